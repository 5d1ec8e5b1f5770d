"""Scenes as data: a YAML or JSON document (schema_version 1) loaded into a gymlike sim.

`load_scene(path_or_mapping, strict=False, num_worlds=None)` builds the scene through gymapi
(one Newton world per env, the same index layout, handle and tensor API work on it) and
returns a `Scene`. Load order (python_bindings_docs/scenes.md): schema_version, simulation
(dt, substeps, engine, gravity, num_worlds), builder defaults, external assets, inline bodies
and shapes, inline joints and articulations, initial_joint_q, post_build operations,
replication (num_worlds, spacing), ground plane. Every error names the key path and builds
nothing; features gymlike does not model are listed in `Scene.unsupported_features` (with
`strict=True` they raise).

Inline bodies and joints become one MJCF document per kinematic tree, loaded like any MJCF
asset (gymlike's asset rules apply to them too): a body that is no joint's child is a free body.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile

import numpy as np

from .core.errors import GymlikeFileNotFoundError, GymlikeNotImplementedError, GymlikeValueError


class SceneError(GymlikeValueError):
    """A scene document that cannot be loaded; the message starts with the key path."""


_ENGINES = {"physx": "SIM_PHYSX", "mujoco": "SIM_PHYSX", "flex": "SIM_FLEX", "xpbd": "SIM_FLEX"}
_SHAPES = {"box": ("hx", "hy", "hz"), "sphere": ("radius",), "capsule": ("radius", "half_height"),
           "cylinder": ("radius", "half_height"), "ellipsoid": ("rx", "ry", "rz"), "cone": ("radius", "half_height"),
           "mesh": ()}
_JOINTS = ("free", "revolute", "prismatic", "fixed", "ball", "d6")
_EXPR = re.compile(r"^[\s0-9.eE+\-*/()pi]+$")


# ============================================================================ reading values
class _Doc:
    """Typed access to the document with key paths in every error."""

    def __init__(self, strict):
        self.strict = strict
        self.unsupported = []

    def fail(self, path, msg):
        raise SceneError(f"{path}: {msg}")

    def unsupported_feature(self, path, what):
        if self.strict:
            raise GymlikeNotImplementedError(f"{path}: {what} (strict mode)")
        self.unsupported.append(f"{path}: {what}")

    def number(self, v, path, *, positive=False, minimum=None, integer=False):
        if isinstance(v, str):
            v = _expression(v, path)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(path, f"expected a number, got {v!r}")
        v = float(v)
        if not math.isfinite(v):
            self.fail(path, f"expected a finite number, got {v}")
        if positive and v <= 0:
            self.fail(path, f"expected a positive number, got {v:g}")
        if minimum is not None and v < minimum:
            self.fail(path, f"expected a number >= {minimum:g}, got {v:g}")
        if integer:
            if v != int(v):
                self.fail(path, f"expected an integer, got {v:g}")
            return int(v)
        return v

    def vector(self, v, n, path):
        if not isinstance(v, (list, tuple)) or len(v) != n:
            self.fail(path, f"expected a list of {n} numbers, got {v!r}")
        return [self.number(x, f"{path}[{i}]") for i, x in enumerate(v)]

    def mapping(self, v, path, keys):
        if v is None:
            return {}
        if not isinstance(v, dict):
            self.fail(path, f"expected a mapping, got {type(v).__name__}")
        for k in v:
            if k not in keys:
                self.fail(f"{path}.{k}", f"unknown key (known: {', '.join(keys)})")
        return v

    def items(self, v, path):
        if v is None:
            return []
        if not isinstance(v, list):
            self.fail(path, f"expected a list, got {type(v).__name__}")
        return v

    def transform(self, v, path):
        """-> (p [3], q xyzw [4]). identity | {p, q} with q: identity, [x, y, z, w] or
        {axis_angle: [ax, ay, az, angle]}."""
        if v is None or v == "identity":
            return [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]
        v = self.mapping(v, path, ("p", "q"))
        p = self.vector(v.get("p", [0, 0, 0]), 3, f"{path}.p")
        q = v.get("q", "identity")
        if q == "identity":
            q = [0.0, 0.0, 0.0, 1.0]
        elif isinstance(q, dict):
            aa = self.vector(self.mapping(q, f"{path}.q", ("axis_angle",)).get("axis_angle"), 4, f"{path}.q.axis_angle")
            n = math.sqrt(sum(c * c for c in aa[:3]))
            if n < 1e-12:
                self.fail(f"{path}.q.axis_angle", "the axis is zero")
            s = math.sin(aa[3] / 2) / n
            q = [aa[0] * s, aa[1] * s, aa[2] * s, math.cos(aa[3] / 2)]
        else:
            q = self.vector(q, 4, f"{path}.q")
            n = math.sqrt(sum(c * c for c in q))
            if n < 1e-12:
                self.fail(f"{path}.q", "a zero quaternion")
            q = [c / n for c in q]
        return p, q


def _expression(text, path):
    """Numbers may be simple expressions of numbers, pi, + - * / and parentheses."""
    if not _EXPR.match(text) or re.search(r"[A-Za-z]", text.replace("pi", "").replace("e", "").replace("E", "")):
        raise SceneError(f"{path}: expected a number or an expression of numbers, pi, + - * /, got {text!r}")
    tokens = re.findall(r"pi|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|[+\-*/()]", text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise SceneError(f"{path}: cannot read {text!r} as a number")
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom():
        t = peek()
        if t is None:
            raise SceneError(f"{path}: incomplete expression {text!r}")
        if t in "+-":
            take()
            v = atom()
            return v if t == "+" else -v
        if t == "(":
            take()
            v = expr()
            if take() != ")":
                raise SceneError(f"{path}: unbalanced parentheses in {text!r}")
            return v
        take()
        return math.pi if t == "pi" else float(t)

    def term():
        v = atom()
        while peek() in ("*", "/"):
            op = take()
            r = atom()
            if op == "/" and r == 0:
                raise SceneError(f"{path}: division by zero in {text!r}")
            v = v * r if op == "*" else v / r
        return v

    def expr():
        v = term()
        while peek() in ("+", "-"):
            op = take()
            v = v + term() if op == "+" else v - term()
        return v
    try:
        v = expr()
    except IndexError:
        raise SceneError(f"{path}: incomplete expression {text!r}") from None
    if pos != len(tokens):
        raise SceneError(f"{path}: cannot read {text!r} as a number")
    return v


# ============================================================================ the loaded scene
class Scene:
    """A loaded scene: the gymlike sim (the Isaac Gym view: envs = worlds) and what it holds."""

    def __init__(self, name, gym, sim, envs, actors, dt, substeps, unsupported, document):
        self.name = name
        self.gym, self.sim, self.envs = gym, sim, envs
        self.actors = actors                  # per env: the actor handles, in creation order
        self.dt, self.substeps = dt, substeps
        self.unsupported_features = unsupported
        self.document = document
        self._tensors = None

    @property
    def num_worlds(self):
        return len(self.envs)

    @property
    def device(self):
        return self.sim.device

    def tensors(self):
        """Zero-copy torch views: root states (worlds, actors, 13), DOF states (worlds, dofs, 2),
        rigid body states (worlds, bodies, 13), refreshed by `refresh()`."""
        if self._tensors is None:
            from . import gymtorch
            g, s, w = self.gym, self.sim, self.num_worlds
            self._tensors = dict(
                root=gymtorch.wrap_tensor(g.acquire_actor_root_state_tensor(s)).view(w, -1, 13),
                dof=gymtorch.wrap_tensor(g.acquire_dof_state_tensor(s)).view(w, -1, 2),
                body=gymtorch.wrap_tensor(g.acquire_rigid_body_state_tensor(s)).view(w, -1, 13))
            self.refresh()
        return self._tensors

    def refresh(self):
        g, s = self.gym, self.sim
        g.refresh_actor_root_state_tensor(s)
        g.refresh_dof_state_tensor(s)
        g.refresh_rigid_body_state_tensor(s)

    def step(self, frames=1):
        for _ in range(frames):
            self.gym.simulate(self.sim)

    def close(self):
        if self.sim is not None:
            self.gym.destroy_sim(self.sim)
            self.sim = None


# ============================================================================ loading
def load_scene(path_or_mapping, *, strict=False, num_worlds=None, device=None):
    """Load a scene document (a path to a .yaml/.yml/.json file, or a mapping) into a gymlike
    sim. `num_worlds` overrides the document's; `device` ('cpu', 'cuda:0') its pipeline."""
    import yaml
    base = os.getcwd()
    if isinstance(path_or_mapping, (str, os.PathLike)):
        path = os.fspath(path_or_mapping)
        if not os.path.isfile(path):
            raise GymlikeFileNotFoundError(f"load_scene: scene file not found: '{path}'")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            doc = json.loads(text) if path.lower().endswith(".json") else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError) as e:
            raise SceneError(f"{path}: not valid {'JSON' if path.lower().endswith('.json') else 'YAML'}: {e}") from None
        base = os.path.dirname(os.path.abspath(path))
    elif isinstance(path_or_mapping, dict):
        doc = path_or_mapping
    else:
        raise SceneError(f"load_scene: expected a path or a mapping, got {type(path_or_mapping).__name__}")
    d = _Doc(strict)
    plan = _plan(d, doc, base, num_worlds)
    return _build(d, plan, doc, device)


_TOP = ("schema_version", "name", "simulation", "builder", "ground", "assets", "bodies", "joints",
        "articulations", "initial_joint_q", "post_build", "replicate")


def _plan(d, doc, base, num_worlds):
    """Read and check the whole document (nothing is built yet)."""
    doc = d.mapping(doc, "scene", _TOP)
    if doc.get("schema_version") != 1:
        d.fail("schema_version", f"expected 1, got {doc.get('schema_version')!r}")
    plan = dict(name=str(doc.get("name", "scene")), base=base)
    sim = d.mapping(doc.get("simulation"), "simulation",
                    ("dt", "num_worlds", "max_rigid_contact", "solver", "substeps", "engine", "gravity"))
    plan["dt"] = d.number(sim.get("dt", 1.0 / 60.0), "simulation.dt", positive=True)
    plan["substeps"] = d.number(sim.get("substeps", 1), "simulation.substeps", integer=True, minimum=1)
    engine = str(sim.get("engine", sim.get("solver", "physx"))).lower()
    if engine not in _ENGINES:
        d.fail("simulation.engine", f"expected one of {', '.join(_ENGINES)}, got {engine!r}")
    if "solver" in sim and "engine" in sim and _ENGINES[str(sim["solver"]).lower()] != _ENGINES[engine]:
        d.fail("simulation.solver", f"{sim['solver']!r} contradicts engine {sim['engine']!r}")
    plan["engine"] = _ENGINES[engine]
    plan["gravity"] = d.vector(sim.get("gravity", [0, 0, -9.81]), 3, "simulation.gravity")
    if "max_rigid_contact" in sim:
        d.number(sim["max_rigid_contact"], "simulation.max_rigid_contact", integer=True, minimum=1)
        d.unsupported_feature("simulation.max_rigid_contact", "contact capacity is sized from the shapes")
    builder = d.mapping(doc.get("builder"), "builder", ("rigid_gap", "default_body_armature", "defaults"))
    for k in ("rigid_gap", "default_body_armature"):
        if k in builder:
            d.number(builder[k], f"builder.{k}", minimum=0.0)
            d.unsupported_feature(f"builder.{k}", "not modelled (MuJoCo margins and armature are per DOF)")
    defaults = d.mapping(builder.get("defaults"), "builder.defaults", ("shape", "joint"))
    shape_def = d.mapping(defaults.get("shape"), "builder.defaults.shape", ("density", "friction", "restitution"))
    joint_def = d.mapping(defaults.get("joint"), "builder.defaults.joint",
                          ("armature", "damping", "stiffness", "effort", "velocity"))
    plan["shape_defaults"] = {k: d.number(v, f"builder.defaults.shape.{k}", minimum=0.0) for k, v in shape_def.items()}
    plan["joint_defaults"] = {k: d.number(v, f"builder.defaults.joint.{k}", minimum=0.0) for k, v in joint_def.items()}
    plan["assets"] = [_plan_asset(d, a, f"assets[{i}]", base) for i, a in enumerate(d.items(doc.get("assets"), "assets"))]
    plan["bodies"] = _plan_bodies(d, doc, plan)
    plan["joints"] = _plan_joints(d, doc, plan["bodies"], plan["joint_defaults"])
    for i, art in enumerate(d.items(doc.get("articulations"), "articulations")):
        art = d.mapping(art, f"articulations[{i}]", ("id", "joints"))
        for k, j in enumerate(d.items(art.get("joints"), f"articulations[{i}].joints")):
            if j not in plan["joints"]:
                d.fail(f"articulations[{i}].joints[{k}]", f"no joint with id {j!r}")
    plan["trees"] = _trees(plan["bodies"], plan["joints"])
    plan["initial_joint_q"] = doc.get("initial_joint_q")
    plan["post_build"] = [_plan_op(d, op, f"post_build[{i}]", plan)
                          for i, op in enumerate(d.items(doc.get("post_build"), "post_build"))]
    rep = d.mapping(doc.get("replicate"), "replicate", ("num_worlds", "spacing"))
    n = num_worlds if num_worlds is not None else rep.get("num_worlds", sim.get("num_worlds", 1))
    plan["num_worlds"] = d.number(n, "replicate.num_worlds", integer=True, minimum=1)
    sp = rep.get("spacing", 2.0)
    plan["spacing"] = d.vector(sp, 3, "replicate.spacing") if isinstance(sp, list) else \
        [d.number(sp, "replicate.spacing", minimum=0.0)] * 3
    ground = doc.get("ground", True)
    if isinstance(ground, dict):
        ground = d.mapping(ground, "ground", ("enabled", "label", "friction", "restitution"))
        plan["ground"] = dict(enabled=bool(ground.get("enabled", True)),
                              friction=d.number(ground.get("friction", 1.0), "ground.friction", minimum=0.0),
                              restitution=d.number(ground.get("restitution", 0.0), "ground.restitution", minimum=0.0))
    elif isinstance(ground, bool):
        plan["ground"] = dict(enabled=ground, friction=1.0, restitution=0.0)
    else:
        d.fail("ground", f"expected true/false or a mapping, got {ground!r}")
    if not plan["assets"] and not plan["bodies"]:
        d.fail("scene", "no assets and no bodies: nothing to simulate")
    return plan


def _plan_asset(d, a, path, base):
    a = d.mapping(a, path, ("urdf", "mjcf", "usd", "name", "xform", "shape", "enable_self_collisions", "floating",
                            "ignore_paths", "load_visual_shapes", "git"))
    if "git" in a:
        d.fail(f"{path}.git", "git-backed asset sources are not reachable here (no network at run time); "
                              "give a local path")
    kinds = [k for k in ("urdf", "mjcf", "usd") if k in a]
    if len(kinds) != 1:
        d.fail(path, f"expected exactly one of urdf, mjcf, usd, got {kinds or 'none'}")
    kind = kinds[0]
    src = a[kind]
    if not isinstance(src, str) or not src.strip():
        d.fail(f"{path}.{kind}", "expected a file path or (urdf) the URDF text")
    inline = src.lstrip().startswith("<")
    if inline and kind != "urdf":
        d.fail(f"{path}.{kind}", "inline documents are URDF only; give a path")
    if not inline:
        src = src if os.path.isabs(src) else os.path.join(base, src)
        if not os.path.isfile(src):
            raise GymlikeFileNotFoundError(f"{path}.{kind}: asset file not found: '{src}'")
    if a.get("ignore_paths"):
        d.unsupported_feature(f"{path}.ignore_paths", "USD prim filtering is not supported")
    if a.get("load_visual_shapes") is False:
        d.unsupported_feature(f"{path}.load_visual_shapes", "visual shapes are always loaded")
    shape = d.mapping(a.get("shape"), f"{path}.shape", ("friction", "restitution"))
    return dict(kind=kind, source=src, inline=inline, name=str(a.get("name", f"asset{path[7:-1]}")),
                xform=d.transform(a.get("xform"), f"{path}.xform"),
                floating=bool(a.get("floating", True)),
                self_collisions=bool(a.get("enable_self_collisions", True)),
                shape={k: d.number(v, f"{path}.shape.{k}", minimum=0.0) for k, v in shape.items()})


def _plan_bodies(d, doc, plan):
    bodies = {}
    for i, b in enumerate(d.items(doc.get("bodies"), "bodies")):
        path = f"bodies[{i}]"
        b = d.mapping(b, path, ("id", "label", "mass", "transform", "shapes"))
        bid = b.get("id")
        if not isinstance(bid, str) or not re.match(r"^[A-Za-z_][\w\-]*$", bid):
            d.fail(f"{path}.id", f"expected an identifier (letters, digits, _ and -), got {bid!r}")
        if bid in bodies or bid == "world":
            d.fail(f"{path}.id", f"body id {bid!r} is already used" if bid != "world" else "'world' is reserved")
        shapes = []
        for k, s in enumerate(d.items(b.get("shapes"), f"{path}.shapes")):
            sp = f"{path}.shapes[{k}]"
            s = d.mapping(s, sp, ("type", "transform", "material", "file", "scale") + tuple(
                f for fs in _SHAPES.values() for f in fs))
            t = s.get("type")
            if t not in _SHAPES:
                d.fail(f"{sp}.type", f"unknown shape type {t!r} (known: {', '.join(_SHAPES)})")
            if t == "cone":
                d.unsupported_feature(f"{sp}.type", "cone shapes (MuJoCo has none): skipped")
                continue
            dims = [d.number(s.get(f), f"{sp}.{f}", positive=True) if f in s else d.fail(f"{sp}.{f}", "missing")
                    for f in _SHAPES[t]]
            mat = d.mapping(s.get("material"), f"{sp}.material", ("friction", "restitution", "density"))
            shape = dict(type=t, dims=dims, xform=d.transform(s.get("transform"), f"{sp}.transform"),
                         material={**plan["shape_defaults"],
                                   **{m: d.number(v, f"{sp}.material.{m}", minimum=0.0) for m, v in mat.items()}})
            if t == "mesh":
                f = s.get("file")
                if not isinstance(f, str):
                    d.fail(f"{sp}.file", "a mesh shape needs a file")
                shape["file"] = f if os.path.isabs(f) else os.path.join(plan["base"], f)
                if not os.path.isfile(shape["file"]):
                    raise GymlikeFileNotFoundError(f"{sp}.file: mesh file not found: '{shape['file']}'")
                shape["scale"] = d.vector(s.get("scale", [1, 1, 1]), 3, f"{sp}.scale")
            shapes.append(shape)
        mass = d.number(b["mass"], f"{path}.mass", positive=True) if "mass" in b else None
        if mass is None and not shapes:
            d.fail(path, "a body needs a mass or shapes")
        bodies[bid] = dict(id=bid, label=str(b.get("label", bid)), mass=mass, shapes=shapes,
                           xform=d.transform(b.get("transform"), f"{path}.transform"), path=path)
    return bodies


def _plan_joints(d, doc, bodies, joint_defaults):
    joints = {}
    children = {}
    for i, j in enumerate(d.items(doc.get("joints"), "joints")):
        path = f"joints[{i}]"
        j = d.mapping(j, path, ("id", "type", "parent", "child", "parent_xform", "child_xform", "axis", "limits",
                                "drive", "armature", "damping"))
        jid = str(j.get("id", f"joint{i}"))
        if jid in joints:
            d.fail(f"{path}.id", f"joint id {jid!r} is already used")
        t = j.get("type")
        if t not in _JOINTS:
            d.fail(f"{path}.type", f"unknown joint type {t!r} (known: {', '.join(_JOINTS)})")
        parent, child = j.get("parent", "world"), j.get("child")
        if child not in bodies:
            d.fail(f"{path}.child", f"no body with id {child!r}")
        if parent != "world" and parent not in bodies:
            d.fail(f"{path}.parent", f"no body with id {parent!r}")
        if child in children:
            d.fail(f"{path}.child", f"body {child!r} is already the child of joint {children[child]!r}")
        if t == "free" and parent != "world":
            d.fail(f"{path}.parent", "a free joint's parent must be world")
        if t == "d6":
            d.unsupported_feature(f"{path}.type", "d6 joints: simulated as fixed")
            t = "fixed"
        children[child] = jid
        axis = d.vector(j.get("axis", [0, 0, 1]), 3, f"{path}.axis")
        if math.sqrt(sum(c * c for c in axis)) < 1e-9:
            d.fail(f"{path}.axis", "the axis is zero")
        lim = d.mapping(j.get("limits"), f"{path}.limits", ("lower", "upper"))
        limits = None
        if lim:
            limits = (d.number(lim.get("lower"), f"{path}.limits.lower"), d.number(lim.get("upper"), f"{path}.limits.upper"))
            if limits[0] > limits[1]:
                d.fail(f"{path}.limits", f"lower {limits[0]:g} is above upper {limits[1]:g}")
        drive = d.mapping(j.get("drive"), f"{path}.drive", ("mode", "stiffness", "damping", "target", "effort"))
        mode = drive.get("mode", "position" if drive else "none")
        if mode not in ("none", "position", "velocity", "effort"):
            d.fail(f"{path}.drive.mode", f"expected none, position, velocity or effort, got {mode!r}")
        joints[jid] = dict(
            id=jid, type=t, parent=parent, child=child, path=path, axis=axis, limits=limits,
            parent_xform=d.transform(j["parent_xform"], f"{path}.parent_xform") if "parent_xform" in j else None,
            child_xform=d.transform(j.get("child_xform"), f"{path}.child_xform"),
            drive=dict(mode=mode, **{k: d.number(drive[k], f"{path}.drive.{k}", minimum=None if k == "target" else 0.0)
                                     for k in ("stiffness", "damping", "target", "effort") if k in drive}),
            armature=d.number(j.get("armature", joint_defaults.get("armature", 0.0)), f"{path}.armature", minimum=0.0),
            damping=d.number(j.get("damping", joint_defaults.get("damping", 0.0)), f"{path}.damping", minimum=0.0))
    # cycles: walking up from any body must reach the world
    parent_of = {j["child"]: j["parent"] for j in joints.values()}
    for b in bodies:
        seen, cur = set(), b
        while cur != "world" and cur in parent_of:
            if cur in seen:
                d.fail(joints[children[cur]]["path"], f"the joints form a cycle through body {cur!r}")
            seen.add(cur)
            cur = parent_of[cur]
    return joints


def _trees(bodies, joints):
    """Root bodies (not children of a joint, or children of a joint to the world) with their
    subtrees, in document order."""
    by_parent = {}
    for j in joints.values():
        by_parent.setdefault(j["parent"], []).append(j)
    roots = [b for b in bodies if b not in {j["child"] for j in joints.values()}]
    roots += [j["child"] for j in by_parent.get("world", [])]
    return [r for r in bodies if r in roots]


def _plan_op(d, op, path, plan):
    op = d.mapping(op, path, ("op", "joint", "body", "attr", "value", "target"))
    kind = op.get("op")
    if kind not in ("set_joint_target", "set_attr"):
        d.fail(f"{path}.op", f"expected set_joint_target or set_attr, got {kind!r}")
    if kind == "set_joint_target":
        j = op.get("joint")
        if j != "*" and j not in plan["joints"]:
            d.fail(f"{path}.joint", f"no joint with id {j!r} (or '*' for all)")
        return dict(op=kind, joint=j, value=d.number(op.get("value"), f"{path}.value"))
    target = op.get("target", "joint" if "joint" in op else "body")
    attrs = {"joint": ("stiffness", "damping", "armature", "friction", "effort", "velocity", "lower", "upper"),
             "body": ("mass",)}
    if target not in attrs:
        d.fail(f"{path}.target", f"expected joint or body, got {target!r}")
    sel = op.get(target)
    pool = plan["joints"] if target == "joint" else plan["bodies"]
    if sel != "*" and sel not in pool:
        d.fail(f"{path}.{target}", f"no {target} with id {sel!r} (or '*' for all)")
    if op.get("attr") not in attrs[target]:
        d.fail(f"{path}.attr", f"expected one of {', '.join(attrs[target])}, got {op.get('attr')!r}")
    return dict(op=kind, target=target, select=sel, attr=op["attr"], value=d.number(op.get("value"), f"{path}.value"))


# ============================================================================ MJCF of the inline bodies
def _fmt(v):
    return " ".join(f"{float(x):.9g}" for x in v)


def _qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]


def _qrot(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(v, float)
    t = 2.0 * np.cross(u, v)
    return (v + w * t + np.cross(u, t)).tolist()


def _inv(xf):
    p, q = xf
    qi = [-q[0], -q[1], -q[2], q[3]]
    return [-c for c in _qrot(qi, p)], qi


def _mul(a, b):
    return [pa + pb for pa, pb in zip(a[0], _qrot(a[1], b[0]))], _qmul(a[1], b[1])


def _wxyz(q):
    return [q[3], q[0], q[1], q[2]]


def _tree_mjcf(plan, root):
    """An MJCF document for the tree under `root` (positions relative to the root body)."""
    bodies, joints = plan["bodies"], plan["joints"]
    kids = {}
    for j in joints.values():
        kids.setdefault(j["parent"], []).append(j)
    assets = []

    def geom(s):
        t = s["type"]
        m = s["material"]
        attrs = dict(pos=_fmt(s["xform"][0]), quat=_fmt(_wxyz(s["xform"][1])))
        if t == "box":
            attrs.update(type="box", size=_fmt(s["dims"]))
        elif t == "sphere":
            attrs.update(type="sphere", size=_fmt(s["dims"]))
        elif t in ("capsule", "cylinder"):
            attrs.update(type=t, size=_fmt(s["dims"]))
        elif t == "ellipsoid":
            attrs.update(type="ellipsoid", size=_fmt(s["dims"]))
        else:
            name = f"mesh{len(assets)}"
            assets.append(f'<mesh name="{name}" file="{s["file"]}" scale="{_fmt(s["scale"])}"/>')
            attrs.update(type="mesh", mesh=name)
        if "friction" in m:
            attrs["friction"] = f"{m['friction']:.9g} 0.005 0.0001"
        if "density" in m:
            attrs["density"] = f"{m['density']:.9g}"
        return attrs

    def body_xml(bid, xf, joint):
        b = bodies[bid]
        out = [f'<body name="{bid}" pos="{_fmt(xf[0])}" quat="{_fmt(_wxyz(xf[1]))}">']
        if joint is not None and joint["type"] in ("revolute", "prismatic", "ball"):
            jt = {"revolute": "hinge", "prismatic": "slide", "ball": "ball"}[joint["type"]]
            cx = joint["child_xform"]
            attrs = [f'name="{joint["id"]}"', f'type="{jt}"', f'pos="{_fmt(cx[0])}"',
                     f'armature="{joint["armature"]:.9g}"', f'damping="{joint["damping"]:.9g}"']
            if jt != "ball":
                attrs.append(f'axis="{_fmt(_qrot(cx[1], joint["axis"]))}"')
            if joint["limits"] is not None:
                lo, hi = joint["limits"]
                attrs.append(f'limited="true" range="{lo:.9g} {hi:.9g}"' if jt != "ball" else
                             f'limited="true" range="0 {max(abs(lo), abs(hi)):.9g}"')
            out.append(f"<joint {' '.join(attrs)}/>")
        elif joint is None or joint["type"] == "free":
            out.append(f'<freejoint name="{joint["id"] if joint else bid + "_root"}"/>')
        # (a fixed joint: no MJCF joint, the body is welded to its parent)
        geoms = [geom(s) for s in b["shapes"]]
        for k, g in enumerate(geoms):
            if b["mass"] is not None:
                g["mass"] = f"{b['mass'] / len(geoms):.9g}"
            out.append("<geom " + " ".join(f'{key}="{v}"' for key, v in g.items()) + "/>")
        if not geoms:
            out.append(f'<inertial pos="0 0 0" mass="{b["mass"]:.9g}" diaginertia="1e-4 1e-4 1e-4"/>')
        for j in kids.get(bid, []):
            # the child's frame in this body: parent_xform * inverse(child_xform); without
            # parent_xform, from the two bodies' transforms
            if j["parent_xform"] is not None:
                px = j["parent_xform"]
            else:
                px = _mul(_mul(_inv(b["xform"]), bodies[j["child"]]["xform"]), j["child_xform"])
            out.append(body_xml(j["child"], _mul(px, _inv(j["child_xform"])), j))
        out.append("</body>")
        return "\n".join(out)

    root_joint = next((j for j in joints.values() if j["child"] == root), None)
    # a root with no joint, or a free one, floats; one jointed to the world hangs on that joint
    # (a fixed joint: the actor's base is welded, fix_base_link)
    fixed_base = root_joint is not None and root_joint["type"] == "fixed"
    body = body_xml(root, ([0, 0, 0], [0, 0, 0, 1]), root_joint)
    xml = (f'<mujoco model="{root}"><compiler angle="radian"/>'
           + (f"<asset>{''.join(assets)}</asset>" if assets else "")
           + f"<worldbody>{body}</worldbody></mujoco>")
    if root_joint is not None and root_joint["type"] != "free":
        px = root_joint["parent_xform"] or _mul(bodies[root]["xform"], root_joint["child_xform"])
        pose = _mul(px, _inv(root_joint["child_xform"]))
    else:
        pose = bodies[root]["xform"]
    return xml, pose, fixed_base


# ============================================================================ building
def _build(d, plan, doc, device):
    from . import gymapi
    gym = gymapi.acquire_gym()
    params = gymapi.SimParams()
    params.up_axis = gymapi.UP_AXIS_Z
    params.gravity = gymapi.Vec3(*plan["gravity"])
    params.dt = plan["dt"]
    params.substeps = plan["substeps"]
    compute = 0
    if device is not None:
        params.use_gpu_pipeline = str(device).startswith("cuda")
        compute = int(str(device).split(":")[1]) if ":" in str(device) else 0
    sim = gym.create_sim(compute, -1, getattr(gymapi, plan["engine"]), params)
    try:
        return _populate(d, plan, doc, gym, gymapi, sim)
    except BaseException:
        gym.destroy_sim(sim)
        raise


def _populate(d, plan, doc, gym, gymapi, sim):
    folder = tempfile.mkdtemp(prefix="gymlike_scene_")
    templates = []     # (asset, pose, name, shape overrides)
    for i, a in enumerate(plan["assets"]):
        opts = gymapi.AssetOptions()
        opts.fix_base_link = not a["floating"]
        if a["inline"]:
            fname = f"asset{i}.urdf"
            with open(os.path.join(folder, fname), "w") as f:
                f.write(a["source"])
            asset = gym.load_asset(sim, folder, fname, opts)
        else:
            asset = gym.load_asset(sim, os.path.dirname(a["source"]), os.path.basename(a["source"]), opts)
        templates.append((asset, a["xform"], a["name"], a, None))
    for root in plan["trees"]:
        xml, pose, fixed = _tree_mjcf(plan, root)
        fname = f"{root}.xml"
        with open(os.path.join(folder, fname), "w") as f:
            f.write(xml)
        opts = gymapi.AssetOptions()
        opts.fix_base_link = fixed
        templates.append((gym.load_asset(sim, folder, fname, opts), pose, root, None, root))
    if plan["ground"]["enabled"]:
        pp = gymapi.PlaneParams()
        pp.normal = gymapi.Vec3(0, 0, 1)
        pp.static_friction = pp.dynamic_friction = plan["ground"]["friction"]
        pp.restitution = plan["ground"]["restitution"]
        gym.add_ground(sim, pp)
    n = plan["num_worlds"]
    sx, sy, sz = plan["spacing"]
    per_row = max(1, int(math.ceil(math.sqrt(n))))
    envs, actors = [], []
    for w in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-sx / 2, -sy / 2, 0.0), gymapi.Vec3(sx / 2, sy / 2, sz), per_row)
        handles = []
        for asset, (p, q), name, a, root in templates:
            h = gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(*p), gymapi.Quat(*q)), name, w,
                                 0 if a is None or a["self_collisions"] else 1)
            handles.append(h)
            _configure(gym, gymapi, env, h, plan, a, root)
        envs.append(env)
        actors.append(handles)
    _initial_joint_q(d, plan, gym, gymapi, envs, actors)
    for op in plan["post_build"]:        # (applied to every world: the worlds are replicas)
        for env, handles in zip(envs, actors):
            _apply_op(gym, gymapi, env, handles, op, plan)
    gym.prepare_sim(sim)
    return Scene(plan["name"], gym, sim, envs, actors, plan["dt"], plan["substeps"], d.unsupported, doc)


def _configure(gym, gymapi, env, h, plan, asset_plan, root):
    """Drives and shape overrides of one actor."""
    if asset_plan is not None and asset_plan["shape"]:
        props = gym.get_actor_rigid_shape_properties(env, h)
        for p in props:
            if "friction" in asset_plan["shape"]:
                p.friction = asset_plan["shape"]["friction"]
            if "restitution" in asset_plan["shape"]:
                p.restitution = asset_plan["shape"]["restitution"]
        gym.set_actor_rigid_shape_properties(env, h, props)
    if root is None:
        return
    props = gym.get_actor_dof_properties(env, h)
    names = gym.get_actor_dof_names(env, h)
    targets = np.zeros(len(names), np.float32)
    jd = plan["joint_defaults"]
    for k, nm in enumerate(names):
        j = plan["joints"].get(nm) or plan["joints"].get(nm[:-2])
        if j is None:
            continue
        drive = j["drive"]
        mode = {"none": gymapi.DOF_MODE_NONE, "position": gymapi.DOF_MODE_POS, "velocity": gymapi.DOF_MODE_VEL,
                "effort": gymapi.DOF_MODE_EFFORT}[drive["mode"]]
        props["driveMode"][k] = mode
        props["stiffness"][k] = drive.get("stiffness", jd.get("stiffness", 0.0))
        props["damping"][k] = drive.get("damping", jd.get("damping", 0.0))
        if "effort" in drive or "effort" in jd:
            props["effort"][k] = drive.get("effort", jd.get("effort"))
        if "velocity" in jd:
            props["velocity"][k] = jd["velocity"]
        targets[k] = drive.get("target", 0.0)
    gym.set_actor_dof_properties(env, h, props)
    if len(names):
        gym.set_actor_dof_position_targets(env, h, targets)


def _initial_joint_q(d, plan, gym, gymapi, envs, actors):
    q = plan["initial_joint_q"]
    if q is None:
        return
    for env, handles in zip(envs, actors):
        counts = [gym.get_actor_dof_count(env, h) for h in handles]
        states = [gym.get_actor_dof_states(env, h, gymapi.STATE_ALL) for h in handles]
        if isinstance(q, list):            # by index: the world's DOFs in order
            flat = [d.number(v, f"initial_joint_q[{i}]") for i, v in enumerate(q)]
            if len(flat) != sum(counts):
                d.fail("initial_joint_q", f"expected {sum(counts)} values (the world's DOFs), got {len(flat)}")
            k = 0
            for st, c in zip(states, counts):
                st["pos"] = flat[k:k + c]
                k += c
        elif isinstance(q, dict):          # by joint id (or DOF name of an asset)
            for key, v in q.items():
                vals = v if isinstance(v, list) else [v]
                vals = [d.number(x, f"initial_joint_q.{key}") for x in vals]
                for st, h in zip(states, handles):
                    names = gym.get_actor_dof_names(env, h)
                    idx = [i for i, nm in enumerate(names) if nm == key or nm[:-2] == key]
                    if idx:
                        if len(idx) != len(vals):
                            d.fail(f"initial_joint_q.{key}", f"joint {key!r} has {len(idx)} coordinate(s), got {len(vals)}")
                        for i, x in zip(idx, vals):
                            st["pos"][i] = x
                        break
                else:
                    d.fail(f"initial_joint_q.{key}", f"no joint or DOF named {key!r}")
        else:
            d.fail("initial_joint_q", "expected a list (by DOF index) or a mapping (by joint)")
        for st, h in zip(states, handles):
            if len(st):
                gym.set_actor_dof_states(env, h, st, gymapi.STATE_ALL)


def _apply_op(gym, gymapi, env, handles, op, plan):
    if op["op"] == "set_joint_target" or op.get("target") == "joint":
        for h in handles:
            names = gym.get_actor_dof_names(env, h)
            picked = [k for k, nm in enumerate(names)
                      if op.get("joint", op.get("select")) == "*" or nm in (op.get("joint"), op.get("select"))
                      or nm[:-2] in (op.get("joint"), op.get("select"))]
            if not picked:
                continue
            if op["op"] == "set_joint_target":
                t = gym.get_actor_dof_position_targets(env, h)
                t[picked] = op["value"]
                gym.set_actor_dof_position_targets(env, h, t)
            else:
                props = gym.get_actor_dof_properties(env, h)
                field = {"lower": "lower", "upper": "upper"}.get(op["attr"], op["attr"])
                props[field][picked] = op["value"]
                gym.set_actor_dof_properties(env, h, props)
        return
    for h in handles:                       # body attributes
        names = gym.get_actor_rigid_body_names(env, h)
        picked = [k for k, nm in enumerate(names) if op["select"] == "*" or nm == op["select"]]
        if picked:
            props = gym.get_actor_rigid_body_properties(env, h)
            for k in picked:
                props[k].mass = op["value"]
            gym.set_actor_rigid_body_properties(env, h, props, True)
