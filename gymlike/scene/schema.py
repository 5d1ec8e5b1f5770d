"""Scene documents, schema version 1 (the scene-file schema of seed 001): read YAML/JSON (or a
mapping) and validate it completely into a normalized `Spec` before anything is built. Every
error names the key path (`bodies[2].shapes[0].hx: expected a positive number, got -1`).

Two kinds of problems: keys or values the schema does not know (typos, wrong types, bad numbers)
are errors; things the schema documents but gymlike cannot do are collected as unsupported
features (`Spec.unsupported`, then `SapLoadedScene.unsupported_features`), or raised as
`SapUnsupportedSceneFeature` with `strict=True`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..core.errors import GymlikeFileNotFoundError
from .sources import source
from .values import (  # noqa: F401  (re-exported: scene/ reads them as schema's)
    IDENTITY, SapUnsupportedSceneFeature, SceneError, UnsupportedSceneFeature, axis, boolean, exclusive, integer,
    join, mapping, number, sequence, string, transform, vector)

SCHEMA_VERSION = 1
SHAPE_SIZES = {"box": ("hx", "hy", "hz"), "sphere": ("radius",), "capsule": ("radius", "half_height"),
               "cylinder": ("radius", "half_height"), "cone": ("radius", "half_height"),
               "ellipsoid": ("a", "b", "c"), "mesh": ()}
JOINT_TYPES = ("fixed", "free", "revolute", "prismatic")
ASSET_TYPES = ("usd", "urdf", "mjcf")
ASSET_EXT = {".usd": "usd", ".usda": "usd", ".usdc": "usd", ".usdz": "usd", ".urdf": "urdf",
             ".xml": "mjcf", ".mjcf": "mjcf"}
# Newton's JointTargetMode values (the integer actuator mode of a joint DOF)
TARGET_MODES = {"none": 0, "position": 1, "velocity": 2, "position_velocity": 3, "effort": 4}
ENGINES = {"physx": "physx", "mujoco": "physx", "flex": "flex", "xpbd": "flex"}

# shape config fields (Newton ShapeConfig names; tau is the contact dissipation time scale) and
# the documented aliases, normalized before application
SHAPE_NUMBERS = ("density", "ke", "kd", "kf", "ka", "kh", "tau", "mu", "restitution", "mu_torsional",
                 "mu_rolling", "margin", "gap")
SHAPE_FLAGS = ("has_shape_collision", "has_particle_collision", "is_hydroelastic", "is_visible", "is_site",
               "is_solid", "collision_filter_parent")
SHAPE_ALIASES = {"contact_margin": "margin", "shape_margin": "margin", "shape_gap": "gap", "shape_mu": "mu",
                 "shape_ke": "ke", "shape_tau": "tau", "relaxation_time": "tau"}
SHAPE_CFG_KEYS = SHAPE_NUMBERS + SHAPE_FLAGS + ("collision_group",) + tuple(SHAPE_ALIASES)
# joint DOF fields (defaults.joint and joint definitions)
JOINT_NUMBERS = ("target_pos", "target_vel", "target_ke", "target_kd", "limit_lower", "limit_upper", "limit_ke",
                 "limit_kd", "armature", "effort_limit", "velocity_limit", "friction")
JOINT_CFG_KEYS = ("axis", "actuator_mode") + JOINT_NUMBERS
# set_array / copy_array arrays -> (Newton builder attribute, index space, value kind)
ARRAYS = {
    "shape_margin": ("shape_margin", "shape", float), "shape_gap": ("shape_gap", "shape", float),
    "shape_material_ke": ("shape_material_ke", "shape", float),
    "shape_material_tau": ("tau", "shape", float),      # kept by the loader: kd = tau * ke
    "shape_material_mu": ("shape_material_mu", "shape", float),
    "shape_material_restitution": ("shape_material_restitution", "shape", float),
    "shape_material_mu_torsional": ("shape_material_mu_torsional", "shape", float),
    "shape_material_mu_rolling": ("shape_material_mu_rolling", "shape", float),
    "shape_material_kh": ("shape_material_kh", "shape", float),
    "shape_collision_group": ("shape_collision_group", "shape", int), "shape_flags": ("shape_flags", "shape", int),
    "joint_q": ("joint_q", "coord", float), "joint_qd": ("joint_qd", "dof", float),
    "joint_target_pos": ("joint_target_q", "coord", float), "joint_target_vel": ("joint_target_qd", "dof", float),
    "joint_target_ke": ("joint_target_ke", "dof", float), "joint_target_kd": ("joint_target_kd", "dof", float),
    "joint_target_mode": ("joint_target_mode", "dof", int), "joint_armature": ("joint_armature", "dof", float),
}
OPS = ("add_shape", "set_array", "copy_array", "scale_sphere_shapes", "approximate_meshes", "set_attr",
       "set_joint_targets", "set_joint_q", "copy_joint_q_to_joint_targets", "set_joint_armature")
JOINT_SELECTORS = ("joint", "joint_label", "joints", "joint_labels", "label_prefix", "match")
SET_ATTRS = ("gravity", "rigid_gap")
MESH_METHODS = ("bounding_box", "bounding_sphere", "convex_hull")
# SolverMuJoCo keyword arguments a scene may pass (simulation.solver); on SIM_FLEX only iterations
MUJOCO_SOLVER_KEYS = {"iterations": int, "ls_iterations": int, "solver": str, "integrator": str, "cone": str,
                      "impratio": float, "tolerance": float, "ls_tolerance": float, "njmax": int, "nconmax": int}


# ---------------------------------------------------------------------------- the spec
@dataclass
class Spec:
    """A validated scene document (plain Python values; nothing built yet)."""
    name: str = "scene"
    source: str | None = None                    # file the document came from
    base: str = ""                               # folder relative paths resolve against
    dt: float = 1.0 / 60.0
    substeps: int = 1                            # gymlike extension
    engine: str = "physx"                        # gymlike extension: physx (MuJoCo) | flex (XPBD)
    num_worlds: int | None = None
    spacing: tuple = (0.0, 0.0, 0.0)
    max_rigid_contact: int | None = None
    solver: dict = field(default_factory=dict)   # solver kwargs gymlike passes on
    builder: dict = field(default_factory=dict)
    ground: dict | None = None
    assets: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    articulations: list = field(default_factory=list)
    initial_joint_q: list = field(default_factory=list)
    post_build: list = field(default_factory=list)
    unsupported: list = field(default_factory=list)
    strict: bool = False

    def unsupported_feature(self, path, what):
        """Record a documented feature gymlike cannot build (raise it in strict mode)."""
        if self.strict:
            raise SapUnsupportedSceneFeature(path, f"{what} (strict=True)")
        self.unsupported.append(f"{path}: {what}")


TOP_KEYS = ("schema_version", "name", "simulation", "builder", "ground", "assets", "bodies", "joints",
            "articulations", "initial_joint_q", "post_build", "replicate")


def read_document(path_or_mapping):
    """(document mapping, source path or None). YAML or JSON by extension (YAML reads JSON too)."""
    if isinstance(path_or_mapping, dict):
        return path_or_mapping, None
    if not isinstance(path_or_mapping, (str, os.PathLike)):
        raise SceneError("", f"load_sap_scene: expected a file path or a mapping, got {type(path_or_mapping).__name__}")
    path = os.path.abspath(os.fspath(path_or_mapping))
    if not os.path.isfile(path):
        raise GymlikeFileNotFoundError(f"load_sap_scene: scene file not found: '{path}'")
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
    spec = Spec(source=source, strict=strict, base=os.path.dirname(source) if source else os.getcwd())
    mapping(doc, "", TOP_KEYS, ("schema_version",))
    if doc["schema_version"] != SCHEMA_VERSION or isinstance(doc["schema_version"], bool):
        raise SceneError("schema_version", f"expected {SCHEMA_VERSION}, got {doc['schema_version']!r}")
    if "name" in doc:
        spec.name = string(doc["name"], "name")
    _simulation(doc.get("simulation"), spec)
    _replicate(doc.get("replicate"), spec)
    spec.builder = _builder(doc.get("builder"), spec)
    spec.ground = _ground(doc.get("ground", True))
    spec.assets = [_asset(a, f"assets[{i}]", spec) for i, a in enumerate(sequence(doc.get("assets"), "assets"))]
    _unique([a["id"] for a in spec.assets], "assets", "asset id")
    spec.bodies = [_body(b, f"bodies[{i}]", spec) for i, b in enumerate(sequence(doc.get("bodies"), "bodies"))]
    ids = _unique([b["id"] for b in spec.bodies], "bodies", "body id", reserved="world")
    spec.joints = [_joint(j, f"joints[{i}]", ids, spec) for i, j in enumerate(sequence(doc.get("joints"), "joints"))]
    _unique([j["id"] for j in spec.joints], "joints", "joint id")
    _check_tree(spec, ids)
    spec.articulations = _articulations(doc.get("articulations"), spec)
    spec.initial_joint_q = [_joint_q_entry(e, f"initial_joint_q[{i}]")
                            for i, e in enumerate(sequence(doc.get("initial_joint_q"), "initial_joint_q"))]
    spec.post_build = [_op(o, f"post_build[{i}]", spec)
                       for i, o in enumerate(sequence(doc.get("post_build"), "post_build"))]
    if not spec.assets and not spec.bodies:
        raise SceneError("", "the scene has no assets and no bodies: nothing to simulate")
    return spec


def _unique(ids, path, what, reserved=None):
    seen = {}
    for i, x in enumerate(ids):
        if x in seen or x == reserved:
            raise SceneError(f"{path}[{i}].id", f"duplicate or reserved {what} {x!r}")
        seen[x] = i
    return seen


def _simulation(sim, spec):
    if sim is None:
        return
    m = mapping(sim, "simulation", ("dt", "num_worlds", "max_rigid_contact", "solver", "engine", "substeps"))
    if "dt" in m:
        spec.dt = number(m["dt"], "simulation.dt", positive=True)
    if "num_worlds" in m:
        spec.num_worlds = integer(m["num_worlds"], "simulation.num_worlds", 1)
    if "max_rigid_contact" in m:
        spec.max_rigid_contact = integer(m["max_rigid_contact"], "simulation.max_rigid_contact", 1)
    if "substeps" in m:
        spec.substeps = integer(m["substeps"], "simulation.substeps", 1)
    if "engine" in m:
        name = string(m["engine"], "simulation.engine").lower()
        if name not in ENGINES:
            raise SceneError("simulation.engine", f"expected one of {', '.join(ENGINES)}, got {m['engine']!r}")
        spec.engine = ENGINES[name]
    if "solver" in m:
        solver = mapping(m["solver"], "simulation.solver", set(m["solver"]) if isinstance(m["solver"], dict) else ())
        for k, v in solver.items():
            path = f"simulation.solver.{k}"
            kind = MUJOCO_SOLVER_KEYS.get(k)
            if kind is None or (spec.engine == "flex" and k != "iterations"):
                # another solver's keyword (SolverSAP's contact presets, line searches, ...)
                spec.unsupported_feature(path, f"solver option with no {'XPBD' if spec.engine == 'flex' else 'MuJoCo'} "
                                               "meaning in gymlike; not applied")
            elif kind is int:
                spec.solver[k] = integer(v, path, 1)
            elif kind is float:
                spec.solver[k] = number(v, path, positive=True)
            else:
                spec.solver[k] = string(v, path)


def _replicate(r, spec):
    if r is None:
        return
    m = mapping(r, "replicate", ("num_worlds", "spacing"))
    if "num_worlds" in m:
        n = integer(m["num_worlds"], "replicate.num_worlds", 1)
        if spec.num_worlds is not None and spec.num_worlds != n:
            raise SceneError("replicate.num_worlds", f"{n} contradicts simulation.num_worlds {spec.num_worlds}")
        spec.num_worlds = n
    if "spacing" in m:
        spec.spacing = tuple(vector(m["spacing"], "replicate.spacing"))


def shape_cfg(m, path, spec, allowed_extra=()):
    """A shape/material block with aliases normalized -> {canonical field: value}; fields gymlike
    cannot apply are recorded as unsupported (the rest of the block still applies)."""
    m = mapping(m, path, SHAPE_CFG_KEYS + tuple(allowed_extra))
    out = {}
    for k, v in m.items():
        if k in allowed_extra:
            continue
        canon = SHAPE_ALIASES.get(k, k)
        if canon in out:
            raise SceneError(join(path, k), f"{canon!r} is given twice (through an alias)")
        p = join(path, k)
        if canon in SHAPE_FLAGS:
            out[canon] = boolean(v, p)
        elif canon == "collision_group":
            out[canon] = integer(v, p)
        else:
            out[canon] = number(v, p, nonneg=canon != "margin", positive=canon == "kh")
    for k, why in (("kf", "friction stiffness is used by Newton's penalty solvers only"),
                   ("ka", "adhesion is used by Newton's penalty solvers only"),
                   ("kh", "hydroelastic contacts are not available in gymlike's solvers")):
        if k in out:
            spec.unsupported_feature(join(path, k), why + "; not applied")
            del out[k]
    if out.get("is_hydroelastic"):
        spec.unsupported_feature(join(path, "is_hydroelastic"), "hydroelastic contacts are not available in "
                                                                "gymlike's solvers; not applied")
    out.pop("is_hydroelastic", None)
    if out.get("collision_group", 1) not in (0, 1):
        spec.unsupported_feature(join(path, "collision_group"), "gymlike assigns collision groups per actor (Isaac "
                                 "Gym's group and filter); only 0 (no collisions) and 1 (the default) apply; "
                                 "not applied")
        del out["collision_group"]
    if spec.engine == "physx":
        if out.get("margin", 0.0) != 0.0:
            spec.unsupported_feature(join(path, "margin"), "MuJoCo's collision has no contact margin "
                                     "(Newton zeroes it); not applied (it applies with simulation.engine: flex)")
            del out["margin"]
        if out.get("restitution", 0.0) != 0.0:
            spec.unsupported_feature(join(path, "restitution"), "MuJoCo has no restitution; stored, no effect "
                                     "(it applies with simulation.engine: flex)")
    return out


def joint_cfg(m, path, spec, keys=JOINT_CFG_KEYS):
    out = {}
    for k in keys:
        if k not in m:
            continue
        p = join(path, k)
        if k == "axis":
            out[k] = axis(m[k], p)
        elif k == "actuator_mode":
            out[k] = target_mode(m[k], p)
        else:
            out[k] = number(m[k], p, nonneg=k not in ("target_pos", "target_vel", "limit_lower", "limit_upper"))
    if "limit_lower" in out and "limit_upper" in out and out["limit_lower"] > out["limit_upper"]:
        raise SceneError(join(path, "limit_lower"),
                         f"limit_lower {out['limit_lower']} > limit_upper {out['limit_upper']}")
    return out


def target_mode(v, path):
    """Newton's JointTargetMode: a name or its integer value."""
    if isinstance(v, str) and v.lower() in TARGET_MODES:
        return TARGET_MODES[v.lower()]
    if isinstance(v, int) and not isinstance(v, bool) and v in TARGET_MODES.values():
        return v
    raise SceneError(path, f"expected one of {', '.join(TARGET_MODES)} or 0..4, got {v!r}")


def _builder(b, spec):
    out = dict(rigid_gap=None, default_body_armature=0.0, shape={}, joint={})
    if b is None:
        return out
    m = mapping(b, "builder", ("rigid_gap", "default_body_armature", "defaults"))
    if "rigid_gap" in m:
        out["rigid_gap"] = number(m["rigid_gap"], "builder.rigid_gap", nonneg=True)
    if "default_body_armature" in m:
        out["default_body_armature"] = number(m["default_body_armature"], "builder.default_body_armature", nonneg=True)
    d = mapping(m.get("defaults", {}), "builder.defaults", ("shape", "joint"))
    out["shape"] = shape_cfg(d.get("shape", {}), "builder.defaults.shape", spec)
    j = mapping(d.get("joint", {}), "builder.defaults.joint", JOINT_CFG_KEYS)
    out["joint"] = joint_cfg(j, "builder.defaults.joint", spec)
    return out


def _ground(g):
    if isinstance(g, bool):
        return dict(label="ground_plane") if g else None
    m = mapping(g, "ground", ("enabled", "label"))
    if not boolean(m.get("enabled", True), "ground.enabled"):
        return None
    return dict(label=string(m.get("label", "ground_plane"), "ground.label"))


def _asset(a, path, spec):
    m = mapping(a, path, ("id", "type", "source", "xform", "cfg", "shape", "physics", "enable_self_collisions",
                          "hide_collision_shapes", "force_show_colliders", "skip_mesh_approximation", "ignore_paths",
                          "floating", "load_visual_shapes", "parse_visuals_as_colliders", "color"), ("id", "source"))
    out = dict(id=string(m["id"], join(path, "id")), path=path, xform=transform(m.get("xform"), join(path, "xform")))
    out["source"] = source(m["source"], join(path, "source"), spec.base)
    kind = m.get("type")
    if kind is None:
        ext = os.path.splitext(out["source"][1])[1].lower() if out["source"][0] == "file" else ".urdf"
        kind = ASSET_EXT.get(ext)
        if kind is None:
            raise SceneError(join(path, "type"), f"missing, and the source's extension {ext!r} does not tell; "
                                                 f"expected one of {', '.join(ASSET_TYPES)}")
    if kind not in ASSET_TYPES:
        raise SceneError(join(path, "type"), f"expected one of {', '.join(ASSET_TYPES)}, got {kind!r}")
    if out["source"][0] == "inline" and kind != "urdf":
        raise SceneError(join(path, "source"), f"inline XML sources are URDF; this asset is {kind}")
    out["type"] = kind
    cfg = {}
    for key in ("cfg", "shape", "physics"):
        if key in m:
            cfg.update(shape_cfg(m[key], join(path, key), spec))
    out["cfg"] = cfg
    for key, default in (("enable_self_collisions", True), ("hide_collision_shapes", False),
                         ("force_show_colliders", False), ("skip_mesh_approximation", False),
                         ("load_visual_shapes", True), ("parse_visuals_as_colliders", False)):
        out[key] = boolean(m.get(key, default), join(path, key))
    out["floating"] = boolean(m["floating"], join(path, "floating")) if "floating" in m else None
    out["ignore_paths"] = [string(p, f"{path}.ignore_paths[{i}]")
                           for i, p in enumerate(sequence(m.get("ignore_paths"), join(path, "ignore_paths")))]
    if kind != "usd":
        for key in ("ignore_paths", "skip_mesh_approximation"):
            if key in m:
                spec.unsupported_feature(join(path, key), f"a USD import option; a {kind} asset has no use for it")
    if kind == "usd" and "parse_visuals_as_colliders" in m:
        spec.unsupported_feature(join(path, "parse_visuals_as_colliders"),
                                 "a URDF/MJCF import option; not applied to USD")
    out["color"] = integer(m["color"], join(path, "color"), 0) if "color" in m else 1
    return out


def _shape(s, path, spec, allowed_extra=()):
    m = mapping(s, path, ("type", "transform", "cfg", "label", "vertices", "indices", "file")
                + sum(SHAPE_SIZES.values(), ()) + tuple(allowed_extra), ("type",))
    kind = m["type"]
    if kind not in SHAPE_SIZES:
        raise SceneError(join(path, "type"), f"unknown shape type {kind!r}; expected one of {', '.join(SHAPE_SIZES)}")
    out = dict(type=kind, path=path, transform=transform(m.get("transform"), join(path, "transform")),
               cfg=shape_cfg(m.get("cfg", {}), join(path, "cfg"), spec),
               label=string(m["label"], join(path, "label")) if "label" in m else None)
    for f in SHAPE_SIZES[kind]:
        if f not in m:
            raise SceneError(join(path, f), f"missing required key for a {kind}")
        out[f] = number(m[f], join(path, f), positive=True)
    extra = [k for k in sum(SHAPE_SIZES.values(), ()) + ("vertices", "indices", "file")
             if k in m and k not in SHAPE_SIZES[kind] and not (kind == "mesh" and k in ("vertices", "indices", "file"))]
    if extra:
        raise SceneError(join(path, extra[0]), f"not a field of a {kind}")
    if kind == "mesh":
        _mesh(m, path, out, spec)
    return out


def _mesh(m, path, out, spec):
    if "file" in m:
        if "vertices" in m or "indices" in m:
            raise SceneError(join(path, "file"), "give either file or vertices + indices")
        f = string(m["file"], join(path, "file"))
        full = os.path.abspath(f if os.path.isabs(f) else os.path.join(spec.base, f))
        if not os.path.isfile(full):
            raise GymlikeFileNotFoundError(f"{join(path, 'file')}: mesh file not found: '{full}'")
        out["file"] = full
        return
    verts = sequence(m.get("vertices"), join(path, "vertices"))
    if len(verts) < 4:
        raise SceneError(join(path, "vertices"), f"expected at least 4 vertices, got {len(verts)}")
    out["vertices"] = [vector(v, f"{path}.vertices[{i}]") for i, v in enumerate(verts)]
    idx = sequence(m.get("indices"), join(path, "indices"))
    flat = [x for t in idx for x in (t if isinstance(t, list) else [t])]
    if not flat or len(flat) % 3:
        raise SceneError(join(path, "indices"), f"expected triangles (a multiple of 3 indices), got {len(flat)}")
    for i, x in enumerate(flat):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < len(verts):
            raise SceneError(f"{path}.indices", f"index {x!r} (#{i}) out of range [0, {len(verts)})")
    out["indices"] = flat


def _body(b, path, spec):
    m = mapping(b, path, ("id", "label", "transform", "mass", "armature", "shapes", "shape", "physics", "color")
                + SHAPE_CFG_KEYS, ("id",))
    out = dict(id=string(m["id"], join(path, "id")), path=path,
               transform=transform(m.get("transform"), join(path, "transform")),
               mass=number(m.get("mass", 0.0), join(path, "mass"), nonneg=True),
               armature=number(m["armature"], join(path, "armature"), nonneg=True) if "armature" in m else None,
               color=integer(m["color"], join(path, "color"), 0) if "color" in m else 1)
    out["label"] = string(m.get("label", out["id"]), join(path, "label"))
    # body-level shape defaults: shape / physics blocks and direct material aliases
    cfg = shape_cfg({k: v for k, v in m.items() if k in SHAPE_CFG_KEYS}, path, spec)
    for key in ("shape", "physics"):
        if key in m:
            cfg.update(shape_cfg(m[key], join(path, key), spec))
    out["cfg"] = cfg
    out["shapes"] = [_shape(s, f"{path}.shapes[{i}]", spec)
                     for i, s in enumerate(sequence(m.get("shapes"), join(path, "shapes")))]
    return out


def _joint(j, path, ids, spec):
    m = mapping(j, path, ("id", "label", "type", "parent", "child", "parent_xform", "child_xform",
                          "collision_filter_parent") + JOINT_CFG_KEYS, ("id", "type", "child"))
    kind = m["type"]
    if kind not in JOINT_TYPES:
        raise SceneError(join(path, "type"), f"unknown joint type {kind!r}; expected one of {', '.join(JOINT_TYPES)}")
    parent = m.get("parent", "world")
    for key, ref in (("parent", parent), ("child", m["child"])):
        if ref == "world" and key == "parent":
            continue
        if not isinstance(ref, str) or ref not in ids:
            raise SceneError(join(path, key), f"no body with id {ref!r} (bodies: {', '.join(ids) or 'none'})")
    out = dict(id=string(m["id"], join(path, "id")), type=kind, path=path, parent=parent, child=m["child"],
               parent_xform=transform(m["parent_xform"], join(path, "parent_xform")) if "parent_xform" in m else None,
               child_xform=transform(m["child_xform"], join(path, "child_xform")) if "child_xform" in m else None,
               collision_filter_parent=boolean(m.get("collision_filter_parent", True),
                                               join(path, "collision_filter_parent")))
    out["label"] = string(m.get("label", out["id"]), join(path, "label"))
    if kind == "free":
        for key in ("parent_xform", "child_xform"):
            if out[key] is not None and out[key] != IDENTITY:
                spec.unsupported_feature(join(path, key), "a free joint's frames: its coordinates are the body's world "
                                         "pose in gymlike (the root state); the body's transform places it; "
                                         "not applied")
    dof_keys = [k for k in JOINT_CFG_KEYS if k in m]
    if dof_keys and kind in ("fixed", "free"):
        raise SceneError(join(path, dof_keys[0]), f"a {kind} joint has no axis DOFs to give {dof_keys[0]}")
    out["cfg"] = joint_cfg(m, path, spec)
    return out


def _check_tree(spec, ids):
    """Each body has at most one joint that makes it a child, and the joints form trees."""
    parent_of = {}
    for j in spec.joints:
        if j["child"] in parent_of:
            raise SceneError(join(j["path"], "child"), f"body {j['child']!r} is already the child of "
                                                       f"{parent_of[j['child']]['path']}")
        if j["child"] == j["parent"]:
            raise SceneError(join(j["path"], "child"), "a joint cannot connect a body to itself")
        if j["type"] == "free" and j["parent"] != "world":
            raise SceneError(join(j["path"], "parent"), "a free joint must have parent world (gymlike has no "
                                                        "free joint below a body)")
        parent_of[j["child"]] = j
    for body in ids:
        seen, b = set(), body
        while b in parent_of:
            if b in seen:
                raise SceneError(join(parent_of[b]["path"], "parent"), f"joints form a loop through body {b!r}")
            seen.add(b)
            b = parent_of[b]["parent"]


def _articulations(arts, spec):
    out = []
    ids = {j["id"]: j for j in spec.joints}
    used = {}
    for i, a in enumerate(sequence(arts, "articulations")):
        path = f"articulations[{i}]"
        m = mapping(a, path, ("id", "label", "joints"), ("joints",))
        joints = sequence(m["joints"], join(path, "joints"))
        for k, name in enumerate(joints):
            if name not in ids:
                raise SceneError(f"{path}.joints[{k}]", f"no joint with id {name!r}")
            if name in used:
                raise SceneError(f"{path}.joints[{k}]", f"joint {name!r} is already in {used[name]}")
            used[name] = path
        aid = string(m.get("id", f"articulation_{i}"), join(path, "id"))
        out.append(dict(id=aid, label=string(m.get("label", aid), join(path, "label")), joints=list(joints), path=path))
    return out


def joint_ref(m, path):
    """A joint-q address: {joint | joint_label: label, offset: k} or {index: i} -> dict."""
    key = exclusive(m, path, ("joint", "joint_label", "index"))
    if key is None:
        raise SceneError(path, "expected joint (or joint_label) with an optional offset, or index")
    if key == "index":
        if "offset" in m:
            raise SceneError(join(path, "offset"), "offset goes with joint / joint_label, not with index")
        return dict(index=integer(m["index"], join(path, "index")))
    return dict(joint=string(m[key], join(path, key)), joint_key=key,
                offset=integer(m.get("offset", 0), join(path, "offset"), 0))


def _joint_q_entry(e, path):
    m = mapping(e, path, ("joint", "joint_label", "index", "offset", "value"), ("value",))
    out = joint_ref(m, path)
    out.update(path=path, value=number(m["value"], join(path, "value")))
    return out


def selector(m, path):
    """index / range over an array -> ('index', i) | ('range', start, end or None) | None."""
    key = exclusive(m, path, ("index", "range"))
    if key is None:
        return None
    if key == "index":
        return ("index", integer(m["index"], join(path, "index")))
    r, p = m["range"], join(path, "range")
    if r == "all":
        return ("range", 0, None)
    if isinstance(r, str) and ":" in r:
        kind, _, n = r.partition(":")
        try:
            n = int(n)
        except ValueError:
            n = -1
        if kind in ("head", "tail", "from") and n >= 0:
            return ("head", n) if kind == "head" else ("tail", n) if kind == "tail" else ("range", n, None)
    if isinstance(r, list) and len(r) == 2:
        start = integer(r[0], f"{p}[0]")
        end = None if r[1] is None else integer(r[1], f"{p}[1]")
        return ("range", start, end)
    raise SceneError(p, f"expected all, head:N, tail:N, from:N or [start, end], got {r!r}")


def joint_selector(m, path):
    """Joint label selectors -> ('joints', [labels]) | ('prefix', s) | ('match', s) | None."""
    key = exclusive(m, path, JOINT_SELECTORS + ("index", "range"))
    if key is None or key in ("index", "range"):
        return None
    p = join(path, key)
    if key in ("joint", "joint_label"):
        return ("joints", [string(m[key], p)])
    if key in ("joints", "joint_labels"):
        items = sequence(m[key], p)
        if not items:
            raise SceneError(p, "expected at least one joint")
        return ("joints", [string(x, f"{p}[{i}]") for i, x in enumerate(items)])
    return ("prefix" if key == "label_prefix" else "match", string(m[key], p))


def _values(m, path, required=True):
    key = exclusive(m, path, ("value", "values", "from_array"))
    if key is None:
        if required:
            raise SceneError(path, "expected value, values or from_array")
        return None
    if key == "value":
        return ("value", m["value"])
    if key == "from_array":
        name = m["from_array"]
        if name not in ARRAYS:
            raise SceneError(join(path, "from_array"),
                             f"unsupported array {name!r}; expected one of {', '.join(ARRAYS)}")
        return ("from_array", name)
    return ("values", sequence(m["values"], join(path, "values")))


def _array_name(m, key, path):
    name = m.get(key)
    if name not in ARRAYS:
        raise SceneError(join(path, key), f"unsupported array {name!r}; expected one of {', '.join(ARRAYS)}")
    return name


def _op(o, path, spec):
    if not isinstance(o, dict) or o.get("op") not in OPS:
        op = o.get("op") if isinstance(o, dict) else o
        raise SceneError(join(path, "op"), f"unknown op {op!r}; expected one of {', '.join(OPS)}")
    kind = o["op"]
    out = dict(op=kind, path=path)
    sel_keys = ("index", "range")
    if kind == "add_shape":
        m = mapping(o, path, ("op", "body", "shape"), ("op", "body", "shape"))
        out["body"] = string(m["body"], join(path, "body"))
        out["shape"] = _shape(m["shape"], join(path, "shape"), spec)
    elif kind == "set_array":
        m = mapping(o, path, ("op", "array", "value", "values", "from_array") + sel_keys, ("op", "array"))
        out.update(array=_array_name(m, "array", path), select=selector(m, path), values=_values(m, path))
    elif kind == "copy_array":
        m = mapping(o, path, ("op", "array", "from_array", "from_index", "from_range") + sel_keys,
                    ("op", "array", "from_array"))
        src = {k[5:]: v for k, v in m.items() if k in ("from_index", "from_range")}
        out.update(array=_array_name(m, "array", path), from_array=_array_name(m, "from_array", path),
                   select=selector(m, path), from_select=selector(src, path + ".from"))
    elif kind == "scale_sphere_shapes":
        m = mapping(o, path, ("op", "factor"), ("op", "factor"))
        out["factor"] = number(m["factor"], join(path, "factor"), positive=True)
    elif kind == "approximate_meshes":
        m = mapping(o, path, ("op", "method"), ("op",))
        out["method"] = m.get("method", "bounding_box")
        if out["method"] not in MESH_METHODS:
            raise SceneError(join(path, "method"), f"expected one of {', '.join(MESH_METHODS)}, got {out['method']!r}")
    elif kind == "set_attr":
        m = mapping(o, path, ("op", "attr", "value"), ("op", "attr", "value"))
        attr = m["attr"]
        if attr not in SET_ATTRS:
            raise SceneError(join(path, "attr"), f"unsupported builder attribute {attr!r}; expected one of "
                                                 f"{', '.join(SET_ATTRS)}")
        vp = join(path, "value")
        if attr == "gravity":
            v = m["value"]
            out["value"] = tuple(vector(v, vp)) if isinstance(v, list) else (0.0, 0.0, number(v, vp))
        else:
            out["value"] = number(m["value"], vp, nonneg=True)
        out["attr"] = attr
    elif kind in ("set_joint_targets", "set_joint_armature", "copy_joint_q_to_joint_targets"):
        extra = {"set_joint_targets": ("mode", "ke", "kd", "target_pos", "target_vel"),
                 "set_joint_armature": ("value", "values"), "copy_joint_q_to_joint_targets": ()}[kind]
        m = mapping(o, path, ("op",) + JOINT_SELECTORS + sel_keys + extra, ("op",))
        out.update(select=selector(m, path), joints=joint_selector(m, path))
        if kind == "set_joint_targets":
            if "mode" in m:
                out["mode"] = target_mode(m["mode"], join(path, "mode"))
            for k in ("ke", "kd"):
                if k in m:
                    out[k] = number(m[k], join(path, k), nonneg=True)
            for k in ("target_pos", "target_vel"):
                if k in m:
                    out[k] = number(m[k], join(path, k))
            if not any(k in out for k in ("mode", "ke", "kd", "target_pos", "target_vel")):
                raise SceneError(path, "expected at least one of mode, ke, kd, target_pos, target_vel")
        elif kind == "set_joint_armature":
            out["values"] = _values(m, path)
    else:   # set_joint_q
        m = mapping(o, path, ("op", "joint", "joint_label", "index", "offset", "value"), ("op", "value"))
        out.update(joint_ref(m, path), value=number(m["value"], join(path, "value")))
    return out
