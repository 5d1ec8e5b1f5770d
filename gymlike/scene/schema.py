"""Scene documents, schema version 1: read YAML/JSON (or a mapping) and validate it completely into
a normalized `Spec` before anything is built. Every error names the key path
(`bodies[2].shapes[0].hx: expected a positive number, got -1`).

Two kinds of problems: keys or values the schema does not know (typos, wrong types, bad numbers)
are errors; things the schema knows but gymlike cannot do (listed in UNSUPPORTED notes below) are
collected in `Spec.unsupported` and skipped, or raised with `strict=True`."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
from dataclasses import dataclass, field

from ..core.errors import GymlikeFileNotFoundError, GymlikeValueError

SCHEMA_VERSION = 1
SHAPE_FIELDS = {"box": ("hx", "hy", "hz"), "sphere": ("radius",), "capsule": ("radius", "half_height"),
                "cylinder": ("radius", "half_height"), "cone": ("radius", "half_height"),
                "ellipsoid": ("rx", "ry", "rz"), "mesh": ()}
JOINT_TYPES = ("free", "revolute", "prismatic", "fixed", "ball", "d6")
DRIVE_MODES = ("none", "position", "velocity", "effort")
ENGINES = {"physx": "physx", "mujoco": "physx", "flex": "flex", "xpbd": "flex"}
# set_attr attributes and what they select: DOF properties by DOF name, body mass by body name,
# shape materials by the name of the body that holds the shapes
DOF_ATTRS = ("stiffness", "damping", "lower", "upper", "effort", "velocity", "friction", "armature",
             "drive_mode", "has_limits")
BODY_ATTRS = ("mass",)
SHAPE_ATTRS = ("mu", "restitution")   # shape friction is `mu`: `friction` is the DOF property
OPS = ("set_attr", "set_joint_targets")
NONDETERMINISTIC_OPS = ("randomize", "randomize_attr", "randomize_joint_q")


class SceneError(GymlikeValueError):
    """A scene document that does not follow schema version 1; `.path` is the key path."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class UnsupportedSceneFeature(SceneError):
    """A feature of the schema gymlike cannot build (raised with strict=True)."""


# ---------------------------------------------------------------------------- numbers
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _arith(node, path, text):
    """Evaluate a parsed arithmetic expression: numbers, `pi`, + - * /, unary signs, parentheses.
    Anything else (names, calls, attributes, powers) is refused: the text is data, never code."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _arith(node.operand, path, text)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _arith(node.left, path, text), _arith(node.right, path, text)
        if isinstance(node.op, ast.Div) and b == 0:
            raise SceneError(path, f"division by zero in {text!r}")
        return _BINOPS[type(node.op)](a, b)
    raise SceneError(path, f"expected a number or an expression of numbers, pi, + - * / and "
                           f"parentheses, got {text!r}")


def number(value, path, *, positive=False, nonneg=False):
    if isinstance(value, bool):
        raise SceneError(path, f"expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        v = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text or len(text) > 200:
            raise SceneError(path, f"expected a number or a short expression, got {value!r}")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise SceneError(path, f"expected a number or an expression, got {value!r}") from None
        v = _arith(tree.body, path, value)
    else:
        raise SceneError(path, f"expected a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(v):
        raise SceneError(path, f"expected a finite number, got {value!r}")
    if positive and v <= 0:
        raise SceneError(path, f"expected a positive number, got {value!r}")
    if nonneg and v < 0:
        raise SceneError(path, f"expected a number >= 0, got {value!r}")
    return v


def integer(value, path, minimum=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise SceneError(path, f"expected an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise SceneError(path, f"expected an integer >= {minimum}, got {value!r}")
    return int(value)


def boolean(value, path):
    if not isinstance(value, bool):
        raise SceneError(path, f"expected true or false, got {value!r}")
    return value


def string(value, path):
    if not isinstance(value, str) or not value:
        raise SceneError(path, f"expected a non-empty string, got {value!r}")
    return value


def vector(value, path, n=3):
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise SceneError(path, f"expected a list of {n} numbers, got {value!r}")
    return [number(v, f"{path}[{i}]") for i, v in enumerate(value)]


def mapping(value, path, allowed, required=()):
    """A mapping whose keys are all in `allowed` (an unknown key is most likely a typo)."""
    if not isinstance(value, dict):
        raise SceneError(path, f"expected a mapping, got {type(value).__name__} {value!r}")
    for k in value:
        if k not in allowed:
            raise SceneError(_join(path, k), f"unknown key; expected one of {', '.join(sorted(allowed))}")
    for k in required:
        if k not in value:
            raise SceneError(_join(path, k), "missing required key")
    return value


def sequence(value, path):
    if value is None:
        return []
    if not isinstance(value, list):
        raise SceneError(path, f"expected a list, got {type(value).__name__}")
    return value


def _join(path, key):
    return f"{path}.{key}" if path else str(key)


# ---------------------------------------------------------------------------- transforms
IDENTITY = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def quaternion(value, path):
    """`identity`, [x, y, z, w] (normalized) or {axis: [x, y, z], angle: a} -> (x, y, z, w)."""
    if value is None or value == "identity":
        return IDENTITY[1]
    if isinstance(value, dict):
        mapping(value, path, ("axis", "angle"), ("axis", "angle"))
        axis = vector(value["axis"], _join(path, "axis"))
        n = math.sqrt(sum(a * a for a in axis))
        if n == 0:
            raise SceneError(_join(path, "axis"), "expected a non-zero axis")
        half = 0.5 * number(value["angle"], _join(path, "angle"))
        s = math.sin(half) / n
        return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(half))
    q = vector(value, path, 4) if isinstance(value, (list, tuple)) else None
    if q is None:
        raise SceneError(path, f"expected identity, [x, y, z, w] or {{axis, angle}}, got {value!r}")
    n = math.sqrt(sum(c * c for c in q))
    if n < 1e-9:
        raise SceneError(path, f"expected a non-zero quaternion, got {value!r}")
    return tuple(c / n for c in q)


def transform(value, path):
    """`identity` or {p: [x, y, z], q: quaternion} (or axis_angle: {axis, angle} for q)."""
    if value is None or value == "identity":
        return IDENTITY
    m = mapping(value, path, ("p", "q", "axis_angle"))
    if "q" in m and "axis_angle" in m:
        raise SceneError(_join(path, "axis_angle"), "give either q or axis_angle, not both")
    p = tuple(vector(m["p"], _join(path, "p"))) if "p" in m else IDENTITY[0]
    if "axis_angle" in m:
        q = quaternion(m["axis_angle"], _join(path, "axis_angle"))
        if not isinstance(m["axis_angle"], dict):
            raise SceneError(_join(path, "axis_angle"), "expected {axis: [x, y, z], angle: a}")
    else:
        q = quaternion(m.get("q"), _join(path, "q"))
    return (p, q)


# ---------------------------------------------------------------------------- the spec
@dataclass
class Spec:
    """A validated scene document (plain Python values; nothing built yet)."""
    name: str = "scene"
    source: str | None = None                    # file the document came from
    dt: float = 1.0 / 60.0
    substeps: int = 1
    num_worlds: int | None = None                # simulation.num_worlds
    engine: str = "physx"                        # physx (MuJoCo-Warp) | flex (XPBD)
    max_rigid_contact: int | None = None
    gravity: tuple = (0.0, 0.0, -9.81)
    builder: dict = field(default_factory=dict)
    ground: dict | None = None
    assets: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    articulations: list = field(default_factory=list)
    initial_joint_q: list = field(default_factory=list)
    post_build: list = field(default_factory=list)
    replicate: dict | None = None
    unsupported: list = field(default_factory=list)


TOP_KEYS = ("schema_version", "name", "simulation", "builder", "ground", "assets", "bodies", "joints",
            "articulations", "initial_joint_q", "post_build", "replicate")


def read_document(path_or_mapping):
    """(document mapping, source path or None). YAML or JSON by extension (YAML reads JSON too)."""
    if isinstance(path_or_mapping, dict):
        return path_or_mapping, None
    if not isinstance(path_or_mapping, (str, os.PathLike)):
        raise SceneError("", f"load_scene: expected a file path or a mapping, got {type(path_or_mapping).__name__}")
    path = os.path.abspath(os.fspath(path_or_mapping))
    if not os.path.isfile(path):
        raise GymlikeFileNotFoundError(f"load_scene: scene file not found: '{path}'")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        if path.lower().endswith(".json"):
            doc = json.loads(text)
        else:
            import yaml
            doc = yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise SceneError("", f"malformed JSON in '{path}', line {e.lineno}: {e.msg}") from None
    except Exception as e:   # yaml.YAMLError carries the line in its message
        raise SceneError("", f"malformed YAML in '{path}': {e}") from None
    if not isinstance(doc, dict):
        raise SceneError("", f"'{path}': expected a mapping at the top level, got {type(doc).__name__}")
    return doc, path


def validate(doc, source=None, strict=False):
    """Document -> Spec, or SceneError naming the key path. Nothing is built here."""
    spec = Spec(source=source)
    base = os.path.dirname(source) if source else os.getcwd()

    def unsupported(path, what):
        msg = f"{path}: {what}"
        if strict:
            raise UnsupportedSceneFeature(path, f"{what} (strict=True)")
        spec.unsupported.append(msg)

    mapping(doc, "", TOP_KEYS, ("schema_version",))
    if doc["schema_version"] != SCHEMA_VERSION or isinstance(doc["schema_version"], bool):
        raise SceneError("schema_version", f"expected {SCHEMA_VERSION}, got {doc['schema_version']!r}")
    if "name" in doc:
        spec.name = string(doc["name"], "name")
    _simulation(doc.get("simulation"), spec, unsupported)
    spec.builder = _builder(doc.get("builder"))
    spec.ground = _ground(doc.get("ground", False))
    spec.assets = [_asset(a, f"assets[{i}]", base, unsupported) for i, a in enumerate(sequence(doc.get("assets"), "assets"))]
    spec.bodies = [_body(b, f"bodies[{i}]", unsupported) for i, b in enumerate(sequence(doc.get("bodies"), "bodies"))]
    ids = {}
    for i, b in enumerate(spec.bodies):
        if b["id"] in ids or b["id"] == "world":
            raise SceneError(f"bodies[{i}].id", f"duplicate or reserved body id {b['id']!r}")
        ids[b["id"]] = i
    spec.joints = [_joint(j, f"joints[{i}]", ids) for i, j in enumerate(sequence(doc.get("joints"), "joints"))]
    _check_tree(spec, ids)
    spec.articulations = _articulations(doc.get("articulations"), spec)
    spec.initial_joint_q = _initial_q(doc.get("initial_joint_q"))
    spec.post_build = [op for i, o in enumerate(sequence(doc.get("post_build"), "post_build"))
                       if (op := _op(o, f"post_build[{i}]", unsupported)) is not None]
    if "replicate" in doc:
        r = mapping(doc["replicate"], "replicate", ("num_worlds", "spacing"))
        spec.replicate = dict(num_worlds=integer(r["num_worlds"], "replicate.num_worlds", 1) if "num_worlds" in r else None,
                              spacing=_spacing(r.get("spacing", 0.0), "replicate.spacing"))
    if not spec.assets and not spec.bodies:
        raise SceneError("", "the scene has no assets and no bodies: nothing to simulate")
    return spec


def _simulation(sim, spec, unsupported):
    if sim is None:
        return
    m = mapping(sim, "simulation", ("dt", "num_worlds", "max_rigid_contact", "solver", "substeps", "engine", "gravity"))
    if "dt" in m:
        spec.dt = number(m["dt"], "simulation.dt", positive=True)
    if "substeps" in m:
        spec.substeps = integer(m["substeps"], "simulation.substeps", 1)
    if "num_worlds" in m:
        spec.num_worlds = integer(m["num_worlds"], "simulation.num_worlds", 1)
    if "gravity" in m:
        spec.gravity = tuple(vector(m["gravity"], "simulation.gravity"))
    for key in ("engine", "solver"):
        if key in m:
            name = string(m[key], f"simulation.{key}").lower()
            if name in ENGINES:
                if key == "solver" and "engine" in m and ENGINES[name] != spec.engine:
                    raise SceneError("simulation.solver", f"{name!r} contradicts simulation.engine {m['engine']!r}")
                spec.engine = ENGINES[name]
            elif name in ("featherstone", "semi_implicit", "vbd", "style3d", "implicit_mpm"):
                unsupported(f"simulation.{key}", f"Newton solver {name!r} is not mapped (gymlike runs "
                                                 "mujoco (SIM_PHYSX) or xpbd (SIM_FLEX)); using mujoco")
            else:
                raise SceneError(f"simulation.{key}", f"expected one of {', '.join(ENGINES)}, got {m[key]!r}")
    if "max_rigid_contact" in m:
        spec.max_rigid_contact = integer(m["max_rigid_contact"], "simulation.max_rigid_contact", 1)


def _builder(b):
    out = dict(rigid_gap=None, default_body_armature=0.0, shape={}, joint={})
    if b is None:
        return out
    m = mapping(b, "builder", ("rigid_gap", "default_body_armature", "defaults"))
    if "rigid_gap" in m:
        out["rigid_gap"] = number(m["rigid_gap"], "builder.rigid_gap", nonneg=True)
    if "default_body_armature" in m:
        out["default_body_armature"] = number(m["default_body_armature"], "builder.default_body_armature", nonneg=True)
    d = mapping(m.get("defaults", {}), "builder.defaults", ("shape", "joint"))
    out["shape"] = _material(d.get("shape", {}), "builder.defaults.shape")
    j = mapping(d.get("joint", {}), "builder.defaults.joint",
                ("armature", "damping", "stiffness", "friction", "limit_ke", "limit_kd", "effort_limit", "velocity_limit"))
    out["joint"] = {k: number(v, f"builder.defaults.joint.{k}", nonneg=True) for k, v in j.items()}
    return out


def _material(m, path):
    m = mapping(m, path, ("density", "mu", "friction", "restitution"))
    if "mu" in m and "friction" in m:
        raise SceneError(_join(path, "friction"), "give either mu or friction (the same thing), not both")
    out = {}
    if "density" in m:
        out["density"] = number(m["density"], _join(path, "density"), nonneg=True)
    for k in ("mu", "friction"):
        if k in m:
            out["mu"] = number(m[k], _join(path, k), nonneg=True)
    if "restitution" in m:
        out["restitution"] = number(m["restitution"], _join(path, "restitution"), nonneg=True)
    return out


def _ground(g):
    if isinstance(g, bool):
        return dict(label="ground", friction=1.0, restitution=0.0) if g else None
    m = mapping(g, "ground", ("enabled", "label", "friction", "restitution"))
    if not boolean(m.get("enabled", True), "ground.enabled"):
        return None
    return dict(label=string(m.get("label", "ground"), "ground.label"),
                friction=number(m.get("friction", 1.0), "ground.friction", nonneg=True),
                restitution=number(m.get("restitution", 0.0), "ground.restitution", nonneg=True))


def _spacing(v, path):
    if isinstance(v, list):
        return tuple(number(x, f"{path}[{i}]", nonneg=True) for i, x in enumerate(vector(v, path)))
    s = number(v, path, nonneg=True)
    return (s, s, 0.0)


def git_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gymlike", "git")


def _asset_source(value, path, base, kind):
    """A local path (relative to the scene file), inline URDF XML, or {git, ref, path} served
    from the local cache only (this machine has no route to git hosts; nothing is cloned)."""
    if isinstance(value, dict):
        m = mapping(value, path, ("git", "ref", "path"), ("git", "path"))
        url, ref = string(m["git"], _join(path, "git")), str(m.get("ref", "HEAD"))
        key = hashlib.sha1(f"{url}@{ref}".encode()).hexdigest()[:16]
        entry = os.path.join(git_cache_dir(), key)
        if not os.path.isdir(entry):
            raise GymlikeFileNotFoundError(
                f"{path}.git: git-backed asset sources are not fetched by gymlike (no network access "
                f"here); the cache entry for {url} at {ref} does not exist: '{entry}' (clone it there to use it)")
        return ("file", os.path.join(entry, string(m["path"], _join(path, "path"))))
    text = string(value, path)
    if kind == "urdf" and text.lstrip().startswith("<"):
        return ("inline", text)
    full = text if os.path.isabs(text) else os.path.join(base, text)
    if not os.path.isfile(full):
        raise GymlikeFileNotFoundError(f"{path}: asset file not found: '{os.path.abspath(full)}'")
    return ("file", os.path.abspath(full))


def _asset(a, path, base, unsupported):
    m = mapping(a, path, ("name", "urdf", "mjcf", "usd", "xform", "shape", "enable_self_collisions", "floating",
                          "ignore_paths", "load_visual_shapes"))
    kinds = [k for k in ("urdf", "mjcf", "usd") if k in m]
    if len(kinds) != 1:
        raise SceneError(path, f"expected exactly one of urdf, mjcf, usd, got {kinds or 'none'}")
    kind = kinds[0]
    out = dict(kind=kind, source=_asset_source(m[kind], _join(path, kind), base, kind), path=path,
               name=string(m.get("name", kind), _join(path, "name")),
               xform=transform(m.get("xform"), _join(path, "xform")),
               shape=_material(m.get("shape", {}), _join(path, "shape")),
               self_collisions=boolean(m.get("enable_self_collisions", True), _join(path, "enable_self_collisions")),
               floating=boolean(m["floating"], _join(path, "floating")) if "floating" in m else None)
    if "density" in out["shape"]:
        raise SceneError(_join(path, "shape.density"), "density cannot be overridden after import "
                                                        "(masses come from the file); use post_build set_attr mass")
    if "ignore_paths" in m:
        sequence(m["ignore_paths"], _join(path, "ignore_paths"))
        unsupported(_join(path, "ignore_paths"), "ignoring USD prim paths is not mapped; the whole file is loaded")
    if "load_visual_shapes" in m and not boolean(m["load_visual_shapes"], _join(path, "load_visual_shapes")):
        unsupported(_join(path, "load_visual_shapes"), "visual shapes are always loaded (they are not collision shapes)")
    return out


def _shape(s, path, unsupported):
    m = mapping(s, path, ("type", "transform", "material", "label", "hx", "hy", "hz", "radius", "half_height",
                          "rx", "ry", "rz", "vertices", "indices", "file", "collide"))
    if "type" not in m:
        raise SceneError(_join(path, "type"), "missing required key")
    kind = m["type"]
    if kind not in SHAPE_FIELDS:
        raise SceneError(_join(path, "type"), f"unknown shape type {kind!r}; expected one of {', '.join(SHAPE_FIELDS)}")
    out = dict(type=kind, path=path, transform=transform(m.get("transform"), _join(path, "transform")),
               material=_material(m.get("material", {}), _join(path, "material")),
               label=m.get("label"), collide=boolean(m.get("collide", True), _join(path, "collide")))
    for f in SHAPE_FIELDS[kind]:
        if f not in m:
            raise SceneError(_join(path, f), f"missing required key for a {kind}")
        out[f] = number(m[f], _join(path, f), positive=True)
    extra = [k for k in ("hx", "hy", "hz", "radius", "half_height", "rx", "ry", "rz", "vertices", "indices", "file")
             if k in m and k not in SHAPE_FIELDS[kind] and not (kind == "mesh" and k in ("vertices", "indices", "file"))]
    if extra:
        raise SceneError(_join(path, extra[0]), f"not a field of a {kind}")
    if kind == "mesh":
        if "file" in m:
            unsupported(_join(path, "file"), "mesh files in scene bodies are not loaded; give vertices and indices "
                                             "(or load the mesh through an asset); shape skipped")
            return None
        verts = sequence(m.get("vertices"), _join(path, "vertices"))
        if len(verts) < 4:
            raise SceneError(_join(path, "vertices"), f"expected at least 4 vertices, got {len(verts)}")
        out["vertices"] = [vector(v, f"{path}.vertices[{i}]") for i, v in enumerate(verts)]
        idx = sequence(m.get("indices"), _join(path, "indices"))
        flat = [x for t in idx for x in (t if isinstance(t, list) else [t])]
        if not flat or len(flat) % 3:
            raise SceneError(_join(path, "indices"), f"expected triangles (a multiple of 3 indices), got {len(flat)}")
        for i, x in enumerate(flat):
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < len(verts):
                raise SceneError(f"{path}.indices", f"index {x!r} (#{i}) out of range [0, {len(verts)})")
        out["indices"] = flat
    return out


def _body(b, path, unsupported):
    m = mapping(b, path, ("id", "label", "mass", "transform", "shapes"), ("id",))
    out = dict(id=string(m["id"], _join(path, "id")), path=path,
               transform=transform(m.get("transform"), _join(path, "transform")),
               mass=number(m["mass"], _join(path, "mass"), positive=True) if "mass" in m else None)
    out["label"] = string(m.get("label", out["id"]), _join(path, "label"))
    shapes = sequence(m.get("shapes"), _join(path, "shapes"))
    out["shapes"] = [s for i, x in enumerate(shapes) if (s := _shape(x, f"{path}.shapes[{i}]", unsupported)) is not None]
    if not out["shapes"] and out["mass"] is None:
        raise SceneError(_join(path, "shapes"), "a body needs shapes or a mass")
    return out


def _limits(v, path):
    m = mapping(v, path, ("lower", "upper"), ("lower", "upper"))
    lo, hi = number(m["lower"], _join(path, "lower")), number(m["upper"], _join(path, "upper"))
    if lo > hi:
        raise SceneError(path, f"lower {lo} > upper {hi}")
    return (lo, hi)


def _drive(v, path):
    m = mapping(v, path, ("mode", "stiffness", "damping", "target", "effort_limit"))
    mode = m.get("mode", "position")
    if mode not in DRIVE_MODES:
        raise SceneError(_join(path, "mode"), f"expected one of {', '.join(DRIVE_MODES)}, got {mode!r}")
    out = dict(mode=mode)
    for k in ("stiffness", "damping", "effort_limit"):
        if k in m:
            out[k] = number(m[k], _join(path, k), nonneg=True)
    if "target" in m:
        out["target"] = number(m["target"], _join(path, "target"))
    return out


def _joint(j, path, ids):
    m = mapping(j, path, ("id", "label", "type", "parent", "child", "parent_frame", "child_frame", "axis",
                          "limits", "drive", "linear_axes", "angular_axes", "armature", "friction"),
                ("type", "child"))
    kind = m["type"]
    if kind not in JOINT_TYPES:
        raise SceneError(_join(path, "type"), f"unknown joint type {kind!r}; expected one of {', '.join(JOINT_TYPES)}")
    parent = m.get("parent", "world")
    for key, ref in (("parent", parent), ("child", m["child"])):
        if ref == "world" and key == "parent":
            continue
        if not isinstance(ref, str) or ref not in ids:
            raise SceneError(_join(path, key), f"no body with id {ref!r} (bodies: {', '.join(ids) or 'none'})")
    label = string(m.get("label", m.get("id", f"joint_{path[7:-1]}")), _join(path, "label"))
    out = dict(type=kind, path=path, label=label, parent=parent, child=m["child"],
               parent_frame=transform(m["parent_frame"], _join(path, "parent_frame")) if "parent_frame" in m else None,
               child_frame=transform(m["child_frame"], _join(path, "child_frame")) if "child_frame" in m else None)
    if kind == "free" and parent != "world":
        raise SceneError(_join(path, "parent"), "a free joint must have parent world (gymlike has no free joint "
                                                "below a body)")
    if kind in ("revolute", "prismatic"):
        axis = vector(m.get("axis", [1, 0, 0]), _join(path, "axis"))
        if not any(axis):
            raise SceneError(_join(path, "axis"), "expected a non-zero axis")
        out["axis"] = axis
    elif "axis" in m:
        raise SceneError(_join(path, "axis"), f"a {kind} joint has no axis")
    if kind == "d6":
        out["linear_axes"] = [vector(a, f"{path}.linear_axes[{i}]") for i, a in
                              enumerate(sequence(m.get("linear_axes"), _join(path, "linear_axes")))]
        out["angular_axes"] = [vector(a, f"{path}.angular_axes[{i}]") for i, a in
                               enumerate(sequence(m.get("angular_axes"), _join(path, "angular_axes")))]
        if not out["linear_axes"] and not out["angular_axes"]:
            raise SceneError(path, "a d6 joint needs linear_axes or angular_axes")
    elif "linear_axes" in m or "angular_axes" in m:
        raise SceneError(_join(path, "linear_axes" if "linear_axes" in m else "angular_axes"), f"not a field of a {kind} joint")
    moving = kind in ("revolute", "prismatic", "ball", "d6")
    for k in ("limits", "drive", "armature", "friction"):
        if k in m and not moving:
            raise SceneError(_join(path, k), f"a {kind} joint has no DOFs to give {k}")
    out["limits"] = _limits(m["limits"], _join(path, "limits")) if "limits" in m else None
    out["drive"] = _drive(m["drive"], _join(path, "drive")) if "drive" in m else None
    for k in ("armature", "friction"):
        out[k] = number(m[k], _join(path, k), nonneg=True) if k in m else None
    return out


def _check_tree(spec, ids):
    """Each body has at most one joint that makes it a child, and the joints form trees."""
    parent_of = {}
    for j in spec.joints:
        if j["child"] in parent_of:
            raise SceneError(_join(j["path"], "child"), f"body {j['child']!r} is already the child of "
                                                        f"{parent_of[j['child']]['path']}")
        if j["child"] == j["parent"]:
            raise SceneError(_join(j["path"], "child"), "a joint cannot connect a body to itself")
        parent_of[j["child"]] = j
    for body in ids:
        seen, b = set(), body
        while b in parent_of:
            if b in seen:
                raise SceneError(_join(parent_of[b]["path"], "parent"), f"joints form a loop through body {b!r}")
            seen.add(b)
            b = parent_of[b]["parent"]


def _articulations(arts, spec):
    out = []
    labels = {j["label"]: j for j in spec.joints}
    used = {}
    for i, a in enumerate(sequence(arts, "articulations")):
        path = f"articulations[{i}]"
        m = mapping(a, path, ("name", "joints"), ("joints",))
        joints = sequence(m["joints"], _join(path, "joints"))
        for k, name in enumerate(joints):
            if name not in labels:
                raise SceneError(f"{path}.joints[{k}]", f"no joint labelled {name!r}")
            if name in used:
                raise SceneError(f"{path}.joints[{k}]", f"joint {name!r} is already in {used[name]}")
            used[name] = path
        out.append(dict(name=string(m.get("name", f"articulation_{i}"), _join(path, "name")), joints=list(joints), path=path))
    return out


def _initial_q(v):
    """{joint: name, value} / {index: i, value} entries, or a mapping {name or index: value}."""
    if v is None:
        return []
    if isinstance(v, dict):
        v = [{"index": k, "value": x} if isinstance(k, int) else {"joint": k, "value": x} for k, x in v.items()]
    out = []
    for i, e in enumerate(sequence(v, "initial_joint_q")):
        path = f"initial_joint_q[{i}]"
        m = mapping(e, path, ("joint", "index", "value", "actor"), ("value",))
        if ("joint" in m) == ("index" in m):
            raise SceneError(path, "expected exactly one of joint (a DOF name) or index (a DOF index in a world)")
        ref = string(m["joint"], _join(path, "joint")) if "joint" in m else integer(m["index"], _join(path, "index"), 0)
        out.append(dict(ref=ref, value=number(m["value"], _join(path, "value")), path=path,
                        actor=string(m["actor"], _join(path, "actor")) if "actor" in m else None))
    return out


def _op(o, path, unsupported):
    if isinstance(o, dict) and o.get("op") in NONDETERMINISTIC_OPS:
        unsupported(_join(path, "op"), f"{o['op']!r} is not deterministic (post_build runs once, before "
                                       "replication); randomize per world in your own reset instead; op skipped")
        return None
    m = mapping(o, path, ("op", "select", "actor", "attr", "value", "values"), ("op",))
    if m["op"] not in OPS:
        raise SceneError(_join(path, "op"), f"unknown op {m['op']!r}; expected one of {', '.join(OPS)}")
    out = dict(op=m["op"], path=path, actor=string(m.get("actor", "*"), _join(path, "actor")), keyed="values" in m)
    if "values" in m:
        if "value" in m or "select" in m:
            raise SceneError(_join(path, "values"), "give either values (a mapping name -> value) or select + value")
        vals = mapping(m["values"], _join(path, "values"), set(m["values"]) if isinstance(m["values"], dict) else ())
        out["values"] = {string(k, _join(path, "values")): v for k, v in vals.items()}
    else:
        for k in ("select", "value"):
            if k not in m:
                raise SceneError(_join(path, k), "missing required key")
        out["values"] = {string(m["select"], _join(path, "select")): m["value"]}
    if m["op"] == "set_attr":
        if "attr" not in m:
            raise SceneError(_join(path, "attr"), "missing required key")
        attr = m["attr"]
        if attr not in DOF_ATTRS + BODY_ATTRS + SHAPE_ATTRS:
            raise SceneError(_join(path, "attr"), f"unknown attribute {attr!r}; expected one of "
                                                  f"{', '.join(DOF_ATTRS + BODY_ATTRS + SHAPE_ATTRS)}")
        out["attr"] = attr
        for sel, v in out["values"].items():
            vp = _join(path, f"values.{sel}" if "values" in m else "value")
            if attr == "drive_mode":
                if v not in DRIVE_MODES:
                    raise SceneError(vp, f"expected one of {', '.join(DRIVE_MODES)}, got {v!r}")
            elif attr == "has_limits":
                boolean(v, vp)
            else:
                out["values"][sel] = number(v, vp, positive=attr == "mass",
                                            nonneg=attr not in ("lower", "upper", "mass"))
    else:
        if "attr" in m:
            raise SceneError(_join(path, "attr"), "set_joint_targets takes no attr")
        for sel, v in out["values"].items():
            out["values"][sel] = number(v, _join(path, f"values.{sel}" if "values" in m else "value"))
    return out
