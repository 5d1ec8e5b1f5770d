"""The layout promises of the README: importing gymapi is light (no Warp, Newton or torch), the
engine room has no import cycles, the methods gymlike does not provide come from one table, and
error messages name the Gym method the user called."""

import ast
import os
import re
import subprocess
import sys

import pytest

from gymlike import gymapi
from gymlike.core import stubs

CORE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gymlike", "core")


def test_importing_gymapi_loads_no_warp_newton_or_torch():
    code = ("import sys; from gymlike import gymapi; gymapi.acquire_gym(); "
            "print(sorted(m for m in ('warp', 'newton', 'torch', 'mujoco') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def core_imports():
    """module -> gymlike.core modules it imports at module level (imports inside functions are
    lazy on purpose and cannot form an import-time cycle)."""
    mods = {f[:-3] for f in os.listdir(CORE) if f.endswith(".py") and f != "__init__.py"}
    graph = {}
    for m in mods:
        tree = ast.parse(open(os.path.join(CORE, m + ".py")).read())
        deps = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        graph[m] = deps & mods
    return graph


def test_core_has_no_import_cycles():
    graph = core_imports()
    done, path = set(), []

    def visit(m):
        assert m not in path, f"import cycle: {' -> '.join(path[path.index(m):] + [m])}"
        if m in done:
            return
        path.append(m)
        for d in sorted(graph[m]):
            visit(d)
        path.pop()
        done.add(m)
    for m in sorted(graph):
        visit(m)
    assert graph["sim"] and "kernels" not in graph["sim"]     # (the check sees real edges)


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
    stepping = {"state", "state_next", "time", "frame", "joint_state_stale"}
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
