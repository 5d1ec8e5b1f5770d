"""The layout promises of the README: importing gymapi is light (no Warp, Newton or torch), the
engine room has no import cycles and imports nothing above it, the methods gymlike does not
provide come from one table, and error messages name the Gym method the user called."""

import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from gymlike import gymapi
from gymlike.core import stubs

PKG = os.path.join(ROOT, "gymlike")
CORE = os.path.join(PKG, "core")


def test_importing_gymapi_loads_no_warp_newton_or_torch():
    code = ("import sys; from gymlike import gymapi; gymapi.acquire_gym(); "
            "print(sorted(m for m in ('warp', 'newton', 'torch', 'mujoco') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"



@pytest.mark.parametrize("before, env, want", [
    ("", {}, "PASSIVE"),                              # torch's idle OpenMP workers sleep
    ("", {"OMP_WAIT_POLICY": "ACTIVE"}, "ACTIVE"),    # the user's choice stays
    ("", {"GOMP_SPINCOUNT": "1000"}, None),
    ("import torch; ", {}, None),                     # too late: libgomp read the policy already
])
def test_importing_gymlike_makes_idle_openmp_workers_sleep_unless_chosen(before, env, want):
    """core/runtime.passive_openmp: torch's OpenMP workers would spin on the cores MuJoCo's
    threads step on; gymlike sets OMP_WAIT_POLICY=PASSIVE when it is imported before torch and
    the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT."""
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    code = before + "import os, gymlike; print(os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(base, **env))
    assert out.stdout.strip() == str(want)

@pytest.mark.parametrize("paused", [False, pytest.param(True, marks=pytest.mark.slow)])    # (6-7 s each)
def test_warp_newton_mujoco_warp_and_torch_are_imported_frozen(paused):
    """core/runtime._frozen_import: the ~0.7 million objects Warp, Newton, MuJoCo-Warp and torch
    make at import sit in the collector's permanent generation (no full collection, at run time
    or at exit, traverses them again), and the collector is left as the program had it."""
    code = ("import gc, sys; " + ("gc.disable(); " if paused else "") +
            "from gymlike.core import runtime; before = gc.get_freeze_count(); runtime.newton(); "
            "runtime.mujoco_warp(); mid = gc.get_freeze_count(); runtime.torch(); "
            "print(before, mid, gc.get_freeze_count(), gc.isenabled(), "
            "all(m in sys.modules for m in ('warp', 'newton', 'mujoco_warp', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, mid, after, enabled, imported = out.stdout.split()
    assert int(before) == 0 and int(mid) > 200_000 and int(after) > int(mid) + 100_000
    assert enabled == str(not paused) and imported == "True"


def test_parse_arguments_asks_torch_about_cuda_only_where_a_driver_loads():
    """gymutil's CUDA check imports torch (~3 s) only where the CUDA driver library loads:
    Isaac Gym's examples that never use torch do not pay for it."""
    code = ("import sys; sys.argv = ['x']; from gymlike import gymutil; args = gymutil.parse_arguments(); "
            "print(gymutil._cuda_driver_loadable(), 'torch' in sys.modules, args.sim_device)")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True,
                         check=True)
    loadable, torch_loaded, device = out.stdout.split()
    if loadable == "True":
        pytest.skip("this machine has a CUDA driver: torch decides")
    assert torch_loaded == "False" and device == "cpu"


# Modules whose import must build no Warp or Newton object (the lazy-import rule of
# core/runtime.py): the public helpers, rendering (cameras keep their kernels in
# render/camera_kernels.py, imported by the functions that launch them), scenes.
LIGHT = ("gymlike.gymutil", "gymlike.terrain_utils", "gymlike.render.cameras", "gymlike.render.viewer",
         "gymlike.render.usd", "gymlike.scene", "gymlike.rollout", "gymlike.world", "gymlike.run",
         "gymlike.core.math3d")


def test_light_modules_import_without_warp_or_newton():
    code = (f"import sys, importlib; [importlib.import_module(m) for m in {LIGHT!r}]; "
            "print(sorted(m for m in ('warp', 'newton', 'mujoco', 'pxr', 'pyglet') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # (and the check sees a module that does load Warp: the camera kernels)
    code = "import sys; import gymlike.render.camera_kernels; print('warp' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"


def _module_name(path):
    rel = os.path.relpath(path, os.path.dirname(PKG))[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def gymlike_modules():
    """Dotted name -> file of every module under gymlike/."""
    mods = {}
    for folder, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                mods[_module_name(os.path.join(folder, f))] = os.path.join(folder, f)
    return mods


def imports_of(path, known):
    """(gymlike module imported, line, at module level) for every import in the file, found by
    walking the whole tree: an import inside a function runs later, but it is still a dependency."""
    me = _module_name(path)
    package = me if path.endswith("__init__.py") else me.rpartition(".")[0]
    found = []

    def visit(node, top):
        if isinstance(node, ast.Import):
            found.extend((a.name, node.lineno, top) for a in node.names if a.name.split(".")[0] == "gymlike")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            if base.split(".")[0] == "gymlike":
                for a in node.names:       # `from . import x` names a module when x is one
                    sub = f"{base}.{a.name}"
                    found.append((sub if sub in known else base, node.lineno, top))
        top = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, top)
    visit(ast.parse(open(path).read()), True)
    return found


def _within(name, package):
    return name == package or name.startswith(package + ".")


# The engine room's layers, bottom up (issue 43). A core module imports only from its own layer
# and those below it, counting every import (inside functions and under TYPE_CHECKING too), and
# no modules import each other around a loop. Every core module is placed in one layer.
CORE_LAYERS = (
    ("values", "data types, errors, enums, parameters, index tables, Warp kernels, Newton and "
               "MuJoCo adapters: nothing that knows a sim",
     {"", "collision", "currency", "deformable_kernels", "enums", "errors", "forces", "gym_tensor", "host",
      "joint_rows", "kernels", "launch", "math3d", "params", "runtime", "stubs", "tables", "tensor_kernels", "types",
      "upstream"}),
    ("records", "what the user creates, recorded: assets (parsed once), the Sim record with its envs "
                "and actors, the handles that name them",
     {"assets", "assets.check", "assets.fixes", "assets.importer", "assets.load", "assets.mjcf", "assets.record",
      "assets.soft", "assets.tendons", "assets.urdf", "handles", "sim"}),
    ("backends", "the solver paths and their state behind one interface (backend.py): MuJoCo C rows and "
                 "batches, MuJoCo-Warp, Newton's State, what each solver reports (observables)",
     {"backend", "mjc", "mjw", "forces.observables"}),
    ("api", "the Isaac Gym API over the built sim: properties, drives, states, forces, contacts, dynamics, "
            "tendons, deformables, the tensor API's buffers; through sim.backend, never a solver path",
     {"attractors", "deformables", "drives", "forces.contacts", "forces.dynamics", "forces.wrenches", "props",
      "state", "tendons", "tensors", "terrain"}),
    ("step", "the step path: substeps, wrenches, clamps, NaN guard; asks sim.backend, never a solver path",
     {"step"}),
    ("build", "the Newton model, tables and solver made from the records",
     {"build"}),
    ("entry", "what a sim does when built, stepped, written into (engine: Sim.engine), the run's hooks",
     {"engine", "session", "worlds"}),
)


def test_core_imports_follow_its_layers_and_no_module_imports_around_a_loop():
    known = gymlike_modules()
    graph = {m: {d for d, _, _ in imports_of(f, known) if d != m} for m, f in known.items()}
    assert _cycles(graph) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]    # (the walk finds one)
    rank, layer = {}, {}
    for i, (name, _, mods) in enumerate(CORE_LAYERS):
        for m in mods:
            full = f"gymlike.core.{m}".rstrip(".")
            assert full not in rank, f"{full} is in two layers"
            rank[full], layer[full] = i, name
    core = {m for m in known if _within(m, "gymlike.core")}
    assert core - set(rank) == set(), "core modules missing from CORE_LAYERS"
    assert set(rank) - core == set(), "CORE_LAYERS names modules that do not exist"
    offenders = sorted(f"{m} ({layer[m]}) imports {d} ({layer[d]})" for m in core for d in graph[m]
                       if d in rank and rank[d] > rank[m])
    assert offenders == []
    # the API layer and the step path branch on no solver path: they import none of them
    # (sim.backend answers)
    api = next(mods for name, _, mods in CORE_LAYERS if name == "api") | {"step"}
    paths = {"gymlike.core.mjc", "gymlike.core.mjw"}
    assert sorted(f"{m} imports {d}" for m in api for d in graph[f"gymlike.core.{m}"] & paths) == []
    reads = sorted(f"{m}.py:{node.lineno} reads .solver" for m in api
                   for node in ast.walk(ast.parse(open(known[f"gymlike.core.{m}"]).read()))
                   if isinstance(node, ast.Attribute) and node.attr == "solver")
    assert reads == []
    # (real edges: the record imports its asset records; the orchestration imports the build)
    assert "gymlike.core.assets.record" in graph["gymlike.core.sim"]
    assert "gymlike.core.build" in graph["gymlike.core.engine"]


def test_only_the_currency_record_sets_what_is_current():
    """Issue 43: one module answers whether a copy of the state is current. The flags live in
    core/currency.py's Currency; every other module reads them or calls its methods."""
    from gymlike.core import currency
    cur = currency.Currency()
    cur.track_rows(3)
    assert set(vars(cur)) == currency.FIELDS     # (FIELDS names every flag the record keeps)
    known = gymlike_modules()
    setters = sorted(f"{m} line {node.lineno} sets .{node.attr}" for m, f in known.items()
                     if m != "gymlike.core.currency"
                     for node in ast.walk(ast.parse(open(f).read()))
                     if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                     and node.attr in currency.FIELDS)
    assert setters == []
    # (the walk sees a setter: this line would be one)
    probe = ast.parse("solver.cur.newton_current = False")
    assert [n.attr for n in ast.walk(probe) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
            and n.attr in currency.FIELDS] == ["newton_current"]


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# What each layer may import from gymlike, at any level (inside functions too): the engine room
# stands on its own, rendering on the engine room only; scene files and RL tasks sit on top and
# do not lean on each other.
LAYERS = {
    "gymlike.core": lambda d: _within(d, "gymlike.core"),
    "gymlike.render": lambda d: _within(d, "gymlike.core") or _within(d, "gymlike.render"),
    "gymlike.scene": lambda d: not _within(d, "gymlike.envs"),
    "gymlike.envs": lambda d: not _within(d, "gymlike.scene"),
}


def test_layers_import_only_downward():
    known = gymlike_modules()
    offenders = []
    for m, f in sorted(known.items()):
        for layer, allowed in LAYERS.items():
            if _within(m, layer):
                offenders += [f"{os.path.relpath(f, PKG)}:{line} imports {d}"
                              for d, line, _ in imports_of(f, known) if not allowed(d)]
    assert offenders == []
    # (the walk sees imports inside functions: gymapi's lazy import of render.looks)
    assert ("gymlike.render.looks", False) in {(d, top) for d, _, top in imports_of(known["gymlike.gymapi"], known)}


# importlib.import_module where a module name is data: the `isaacgym` alias hook and the private-name adapter.
IMPORTLIB_USERS = {"alias.py", "core/upstream.py"}


def test_lazy_imports_use_one_idiom():
    """One lazy-import idiom (core/runtime.py's docstring): an import statement inside the
    function that needs the module (or a one-line accessor), which the layer check sees. No
    importlib.import_module, no module-level __getattr__, no lazy-module objects."""
    known = gymlike_modules()
    lazy, importlib_users, getattrs = set(), set(), []
    for m, f in known.items():
        rel = os.path.relpath(f, PKG).replace(os.sep, "/")
        tree = ast.parse(open(f).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("LazyModule", "lazy_import"):
                lazy.add(rel)
            if isinstance(node, ast.ClassDef) and any(isinstance(f, ast.FunctionDef) and f.name == "__getattr__"
                                                      and "import" in ast.unparse(f) for f in node.body):
                lazy.add(rel)             # (a class importing a module on attribute access)
            if isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "import_module"
                                               or getattr(node.func, "id", None) in ("import_module", "__import__")):
                importlib_users.add(rel)
        getattrs += [rel for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"]
    assert lazy == set(), f"lazy-module objects in {sorted(lazy)}"
    assert importlib_users <= IMPORTLIB_USERS, f"importlib used in {sorted(importlib_users - IMPORTLIB_USERS)}"
    assert getattrs == []
    # (the walk sees imports inside accessors: runtime.kernels() for the step path's kernels)
    assert ("gymlike.core.kernels", False) in {(d, top) for d, _, top in imports_of(known["gymlike.core.runtime"],
                                                                                    known)}


def test_no_gymlike_data_or_methods_set_on_newton_builders():
    """Importers return what they learn instead of leaving it on Newton's builder, and no
    builder method is replaced on an instance (core/assets/urdf.py subclasses ModelBuilder
    for what it changes)."""
    offenders = []
    for folder, _, files in os.walk(PKG):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(folder, f)
            for node in ast.walk(ast.parse(open(path).read())):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
                for t in targets:
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if isinstance(el, ast.Attribute) and (el.attr.startswith(("_gymlike", "add_"))
                                                              or el.attr == "finalize"):
                            offenders.append(f"{os.path.relpath(path, PKG)}:{node.lineno} sets .{el.attr}")
    assert offenders == []


def test_stub_table_methods_are_the_generated_ones():
    source = open(gymapi.__file__).read()
    for name, (status, params, reason) in stubs.STUBS.items():
        assert status in (stubs.UNSUPPORTED, stubs.NOT_YET) and reason
        assert f"def {name}(" not in source, f"{name} is both written in gymapi and listed in core/stubs.py"
        fn = getattr(gymapi.Gym, name)
        assert fn.__module__ == "gymlike.core.stubs"
        with pytest.raises(NotImplementedError, match=rf"gymapi\.Gym\.{name} .*: {re.escape(reason)}$"):
            fn(gymapi.acquire_gym(), *([None] * len([p for p in params.split() if not p.startswith("*")])))


def test_error_messages_name_the_method_the_user_called(gym):
    with pytest.raises(TypeError, match=r"^get_sim_time: expected a Sim handle, got str"):
        gym.get_sim_time("not a sim")
    with pytest.raises(TypeError, match=r"^get_actor_count: expected an Env handle, got int"):
        gym.get_actor_count(7)
    # a Gym method that calls another one reports the one the user called
    with pytest.raises(TypeError, match=r"^find_actor_tendon_index: expected an Env handle"):
        gym.find_actor_tendon_index(None, 0, "t")
    # and outside Gym calls the name is reset
    from gymlike.core.runtime import call_name
    assert call_name() == "gymlike"
    # helpers take the name from the running call, so gymapi.py never spells its own method names
    tree = ast.parse(open(gymapi.__file__).read())
    spelled = [(fn.name, node.lineno) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
               for node in ast.walk(fn) if isinstance(node, ast.Constant) and node.value == fn.name]
    assert spelled == []
    # errors from helpers deep in index, enum and tensor checks still name it
    with pytest.raises(IndexError, match=r"^get_env: env index 5 out of range"):
        gym.get_env(gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams()), 5)
    with pytest.raises(ValueError, match=r"^get_dof_type_string: dof_type must be one of"):
        gym.get_dof_type_string(42)


def test_only_sim_py_sets_sim_attributes():
    """The sim's data is declared in core/sim.py (_BUILT, _COMPONENTS, Sim.__init__) and set
    there (Sim.attach, Sim.component); other modules only read it. The step path (core/step.py)
    advances the stepping state it exists for; mujoco_options is the one public option,
    declared in Sim.__init__, that a task sets before prepare_sim."""
    stepping = {"state", "state_next", "time", "frame"}
    pkg = os.path.dirname(CORE)
    offenders = []
    for folder, _, files in os.walk(pkg):
        for f in files:
            path = os.path.join(folder, f)
            if not f.endswith(".py") or path == os.path.join(CORE, "sim.py"):
                continue
            for node in ast.walk(ast.parse(open(path).read())):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
                for t in targets:
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if f == "step.py" and getattr(el, "attr", None) in stepping:
                            continue
                        if isinstance(el, ast.Attribute) and el.attr != "mujoco_options" and (
                                (isinstance(el.value, ast.Name) and el.value.id == "sim")
                                or (isinstance(el.value, ast.Attribute) and el.value.attr == "sim")):
                            offenders.append(f"{os.path.relpath(path, pkg)}:{node.lineno} sets sim.{el.attr}")
    assert offenders == []


def test_tables_and_sim_parts_are_declared(gym):
    from gymlike.core.tables import DeviceTables, HostTables
    h = HostTables()
    h.num_actors = 3
    with pytest.raises(AttributeError, match="HostTables has no field 'num_actor'"):
        h.num_actor = 3                      # a typo cannot create a new field
    with pytest.raises(AttributeError, match="DeviceTables has no field"):
        DeviceTables().efforts_pendng = True
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams())
    assert sim.model is None and sim.control is None and sim.tensor_api is None   # declared before the build
    with pytest.raises(AttributeError, match="not declared"):
        sim.attach(modle=None)
    with pytest.raises(AttributeError, match="not declared"):
        sim.component("my_part", dict)
    gym.destroy_sim(sim)


def test_device_tables_hold_the_declared_shapes_and_dtypes(gym):
    """Every array field of DeviceTables is, on a built sim, a Warp array of the shape and dtype
    its declaration names: (D,) DOFs, (B,) bodies, (A,) actors, (E,) envs, (K,) input kinds, (Q,) Newton DOFs."""
    import inspect

    import warp as wp

    from conftest import ASSETS, make_sim, options, pose
    from gymlike.core import kernels
    from gymlike.core.tables import DeviceTables
    sim = make_sim(gym)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    for i in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 3)
        gym.create_actor(env, ant, pose(z=0.6), "ant", i, 1)
        gym.create_actor(env, box, pose(x=1.0, z=0.1), "box", i, 1)
    gym.prepare_sim(sim)
    d = sim.dev
    sizes = {"D": 3 * 8, "B": 3 * (9 + 1), "A": 6, "E": 3, "K": len(kernels.BAD_INPUT_KINDS), "1": 1,
             "Q": 3 * (6 + 8 + 6)}      # (Newton DOFs: the free roots of ants and boxes too)
    assert (d.num_dofs, d.num_bodies, d.num_actors) == (sizes["D"], sizes["B"], sizes["A"])
    declared = re.findall(r"^    (\w+): wp\.array\s+# \((\w)\,\) (\w+)", inspect.getsource(DeviceTables), re.M)
    fields = {k for k, v in DeviceTables.__annotations__.items() if v == "wp.array"}
    assert {name for name, _, _ in declared} == fields and len(fields) > 30
    for name, size, dtype in declared:
        a = getattr(d, name)
        assert isinstance(a, wp.array), name
        assert a.shape == (sizes[size],) and a.dtype == getattr(wp, dtype), (name, a.shape, a.dtype)
    gym.destroy_sim(sim)


# Every public function and method of gymlike/core carries annotations and a docstring (issue 28);
# Warp kernels and funcs are left out: their annotations are Warp types.
CORE_FILES = sorted(os.path.relpath(os.path.join(folder, f), CORE)
                    for folder, _, files in os.walk(CORE) for f in files if f.endswith(".py"))


def _unannotated(path):
    """Public functions/methods of one file lacking a docstring, a parameter or return annotation."""
    found = []

    def walk(body, prefix, in_class):
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                walk(node.body, prefix + node.name + ".", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                decorators = [ast.unparse(d) for d in node.decorator_list]
                if any(d.startswith(("wp.kernel", "wp.func")) for d in decorators):
                    continue
                a = node.args
                params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
                if in_class and "staticmethod" not in decorators and params and params[0].arg in ("self", "cls"):
                    params = params[1:]
                name = prefix + node.name
                if ast.get_docstring(node) is None:
                    found.append(f"{name}: no docstring")
                found.extend(f"{name}: parameter {p.arg} not annotated" for p in params if p.annotation is None)
                if node.returns is None:
                    found.append(f"{name}: no return annotation")

    with open(path) as f:
        walk(ast.parse(f.read()).body, "", False)
    return found


@pytest.mark.parametrize("rel", CORE_FILES)
def test_core_public_functions_are_annotated_and_documented(rel):
    assert _unannotated(os.path.join(CORE, rel)) == []


def test_the_repository_passes_ruffs_checks():
    """ruff.toml's checks (Pyflakes: unused and undefined names, redefinitions; syntax errors;
    lines of at most 120 characters) pass on the whole repository (ruff comes with the `test`
    extra)."""
    root = os.path.dirname(PKG)
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", root],
                         capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]
