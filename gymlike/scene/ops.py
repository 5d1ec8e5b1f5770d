"""initial_joint_q and the post_build operations (load-order steps 6 and 7), applied to the
authored world's Newton sub-builders through its index spaces (scene/authored.py), before
replication copies them into every world. Selectors, ranges and joint references resolve
against the authored world; a selector that selects nothing is an error naming its key path."""

from __future__ import annotations

from ..core.runtime import newton as _newton
from . import authored
from . import schema
from .schema import SceneError


# ---------------------------------------------------------------------------- selection
def indices(sel, n, path):
    """Indices an index / range selector picks from an array of length n (None: all)."""
    if sel is None:
        return list(range(n))
    if sel[0] == "index":
        i = sel[1] + n if sel[1] < 0 else sel[1]
        if not 0 <= i < n:
            raise SceneError(schema.join(path, "index"), f"index {sel[1]} out of range for an array of length {n}")
        return [i]
    if sel[0] == "head":
        return list(range(min(sel[1], n)))
    if sel[0] == "tail":
        return list(range(n - min(sel[1], n), n))
    start, end = sel[1], sel[2]
    start = start + n if start < 0 else start
    end = n if end is None else (end + n if end < 0 else end)
    if not 0 <= start <= end <= n:
        raise SceneError(schema.join(path, "range"), f"range [{sel[1]}, {sel[2]}] is outside an array of length {n}")
    return list(range(start, end))


def match_joints(labels, sel, path):
    """World joint indices a joint selector picks: exact labels (or the suffix after '/' that an
    imported asset's id prefixes), a label prefix, or a substring."""
    kind, arg = sel
    if kind == "joints":
        out = []
        for name in arg:
            hits = [j for j, lb in enumerate(labels) if lb == name] or \
                   [j for j, lb in enumerate(labels) if lb.endswith("/" + name)]
            if not hits:
                raise SceneError(path, f"no joint labelled {name!r} (joints: {_some(labels)})")
            out.extend(h for h in hits if h not in out)
        return out
    hits = [j for j, lb in enumerate(labels) if (lb.startswith(arg) if kind == "prefix" else arg in lb)]
    if not hits:
        raise SceneError(path, f"no joint label {'starts with' if kind == 'prefix' else 'contains'} {arg!r} "
                               f"(joints: {_some(labels)})")
    return hits


def _some(labels, n=12):
    return ", ".join(labels[:n]) + (f" and {len(labels) - n} more" if len(labels) > n else "") if labels else "none"


def joint_dofs(world, joints, what="dof"):
    """World DOF (or coordinate) indices of the given world joints, in order."""
    out, k = [], 0
    spans = []
    for p, j in world.joints:
        n = len(p.qd_range(j) if what == "dof" else p.q_range(j))
        spans.append(range(k, k + n))
        k += n
    for j in joints:
        out.extend(spans[j])
    return out


def address(world, ref, path):
    """The world joint_q index of a {joint, offset} or {index} address."""
    coords = world.coords()
    if "index" in ref:
        return indices(("index", ref["index"]), len(coords), path)[0]
    labels = world.joint_labels()
    hits = match_joints(labels, ("joints", [ref["joint"]]), schema.join(path, ref["joint_key"]))
    if len(hits) > 1:
        raise SceneError(schema.join(path, ref["joint_key"]), f"{ref['joint']!r} matches {len(hits)} joints: "
                                                         f"{', '.join(labels[h] for h in hits)}")
    q = joint_dofs(world, hits, "coord")
    if ref["offset"] >= len(q):
        raise SceneError(schema.join(path, "offset"), f"offset {ref['offset']} is outside joint {labels[hits[0]]!r}, "
                                                 f"which has {len(q)} coordinate(s)")
    return q[ref["offset"]]


# ---------------------------------------------------------------------------- arrays
def get(world, name, entries, i):
    attr, _, kind = schema.ARRAYS[name]
    p, k = entries[i]
    v = p.tau[k] if attr == "tau" else getattr(p.b, attr)[k]
    return kind(v if v is not None else 0.0)


def put(world, name, entries, i, value, path):
    attr, _, kind = schema.ARRAYS[name]
    p, k = entries[i]
    if kind is int:
        if float(value) != int(value):
            raise SceneError(path, f"{name} holds integers, got {value!r}")
        value = int(value)
        if name == "shape_collision_group" and value not in (0, 1):
            world.spec.unsupported_feature(path, f"collision group {value}: gymlike assigns collision groups per actor "
                                                 "(Isaac Gym's group and filter); only 0 and 1 apply; not applied")
            return
        if name == "shape_flags" and value & int(_newton().ShapeFlags.HYDROELASTIC):
            world.spec.unsupported_feature(path, "the HYDROELASTIC shape flag: no hydroelastic contacts in gymlike's "
                                                 "solvers; not applied")
            value &= ~int(_newton().ShapeFlags.HYDROELASTIC)
    if name == "shape_material_kh":
        world.spec.unsupported_feature(path, "hydroelastic stiffness has no effect in gymlike's solvers; not applied")
        return
    if name == "shape_margin" and world.spec.engine == "physx" and value != 0:
        world.spec.unsupported_feature(path, "MuJoCo's collision has no contact margin; not applied")
        return
    if attr == "tau":
        p.tau[k] = float(value)
    else:
        getattr(p.b, attr)[k] = kind(value)


def _numbers(values, n, path, world, name):
    """The values a set_array / set_joint_armature writes to n entries."""
    kind, arg = values
    if kind == "value":
        return [schema.number(arg, schema.join(path, "value"))] * n
    if kind == "values":
        if len(arg) != n:
            raise SceneError(schema.join(path, "values"),
                             f"expected {n} values for the selected entries, got {len(arg)}")
        return [schema.number(v, f"{path}.values[{i}]") for i, v in enumerate(arg)]
    return None


def set_array(world, name, idx, values, path):
    entries = world.entries(schema.ARRAYS[name][1])
    vals = _numbers(values, len(idx), path, world, name)
    if vals is None:          # from_array: the same entries of another array of the same space
        src = values[1]
        src_entries = world.entries(schema.ARRAYS[src][1])
        if max(idx, default=-1) >= len(src_entries):
            raise SceneError(schema.join(path, "from_array"),
                             f"{src} has {len(src_entries)} entries, fewer than {name}'s selection")
        vals = [get(world, src, src_entries, i) for i in idx]
    for i, v in zip(idx, vals):
        put(world, name, entries, i, v, path)


# ---------------------------------------------------------------------------- the steps
def initial_joint_q(world, entries):
    coords = world.coords()
    for e in entries:
        put(world, "joint_q", coords, address(world, e, e["path"]), e["value"], e["path"])


def post_build(world, ops):
    for op in ops:
        STEPS[op["op"]](world, op, op["path"])


def _add_shape(world, op, path):
    ref = op["body"]
    if ref == "world":
        world.spec.unsupported_feature(schema.join(path, "body"), "shapes on the world: gymlike envs hold actors only "
                                       "(give the shape a body with a fixed joint to the world); op skipped")
        return
    target = world.bodies.get(ref)
    if target is None:       # an inline body label or an imported body's label (or its suffix)
        hits = [(p, i) for p in world.pieces for i, lb in enumerate(p.b.body_label)
                if lb == ref or lb.endswith("/" + ref)]
        if len(hits) != 1:
            labels = [lb for p in world.pieces for lb in p.b.body_label]
            raise SceneError(schema.join(path, "body"), f"{ref!r} {'is ambiguous' if hits else 'names no body'} "
                                                   f"(bodies: {_some(labels)})")
        target = hits[0]
    piece, link = target
    i = authored.add_shape(piece, link, op["shape"], {}, world.spec)
    world.shapes.append((piece, i))


def _set_array(world, op, path):
    n = len(world.entries(schema.ARRAYS[op["array"]][1]))
    set_array(world, op["array"], indices(op["select"], n, path), op["values"], path)


def _copy_array(world, op, path):
    dst, src = op["array"], op["from_array"]
    di = indices(op["select"], len(world.entries(schema.ARRAYS[dst][1])), path)
    si = indices(op["from_select"], len(world.entries(schema.ARRAYS[src][1])), path + ".from")
    if len(di) != len(si):
        raise SceneError(path, f"copies {len(si)} entries of {src} into {len(di)} entries of {dst}")
    src_entries = world.entries(schema.ARRAYS[src][1])
    vals = [get(world, src, src_entries, i) for i in si]
    set_array(world, dst, di, ("values", vals), path)


def _scale_sphere_shapes(world, op, path):
    sphere = _newton().GeoType.SPHERE
    for p, s in world.shapes:
        if p.b.shape_type[s] == sphere:
            r, y, z = p.b.shape_scale[s]
            p.b.shape_scale[s] = (r * op["factor"], y, z)
            p.b.shape_collision_radius[s] = p.b.shape_collision_radius[s] * op["factor"]


def _approximate_meshes(world, op, path):
    newton = _newton()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    for p in world.pieces:
        b = p.b
        meshes = [s for s in range(len(b.shape_body))
                  if b.shape_type[s] == newton.GeoType.MESH and b.shape_flags[s] & collide]
        if meshes:
            n0 = len(b.shape_body)
            b.approximate_meshes(method=op["method"], shape_indices=meshes)
            if len(b.shape_body) != n0:     # (Newton replaces shapes in place for these methods)
                raise SceneError(path, "internal: mesh approximation added shapes")


def _set_attr(world, op, path):
    if op["attr"] == "gravity":
        world.gravity = op["value"]
    else:                                   # rigid_gap: the gap of shapes added from here on
        for p in world.pieces:
            p.b.rigid_gap = op["value"]


def _selected_dofs(world, op, path):
    dofs = world.dofs()
    if op["joints"] is not None:
        return joint_dofs(world, match_joints(world.joint_labels(), op["joints"], path))
    return indices(op["select"], len(dofs), path)


def _set_joint_targets(world, op, path):
    dofs = world.dofs()
    sel = _selected_dofs(world, op, path)
    for key, name in (("mode", "joint_target_mode"), ("ke", "joint_target_ke"), ("kd", "joint_target_kd"),
                      ("target_vel", "joint_target_vel")):
        if key in op:
            for i in sel:
                put(world, name, dofs, i, op[key], path)
    if "target_pos" in op:
        for i in sel:
            p, d = dofs[i]
            q = _coord_of_dof(p, d)
            if q is None:
                raise SceneError(schema.join(path, "target_pos"), f"DOF {i} belongs to a joint whose coordinates are "
                                 "not one per DOF (a free joint); select the axis DOFs only")
            p.b.joint_target_q[q] = op["target_pos"]


def _coord_of_dof(p, d):
    for j in range(len(p.b.joint_type)):
        qd = p.qd_range(j)
        if d in qd:
            q = p.q_range(j)
            return q[d - qd.start] if len(q) == len(qd) else None
    return None


def _set_joint_q(world, op, path):
    put(world, "joint_q", world.coords(), address(world, op, path), op["value"], path)


def _copy_joint_q_to_joint_targets(world, op, path):
    coords = world.coords()
    if op["joints"] is not None:
        sel = joint_dofs(world, match_joints(world.joint_labels(), op["joints"], path), "coord")
    else:
        sel = indices(op["select"], len(coords), path)
    for i in sel:
        p, q = coords[i]
        p.b.joint_target_q[q] = p.b.joint_q[q]


def _set_joint_armature(world, op, path):
    sel = _selected_dofs(world, op, path)
    set_array(world, "joint_armature", sel, op["values"], path)


# Each post_build op (schema.OPS, which validated the file) -> the function applying it.
STEPS = {"add_shape": _add_shape, "set_array": _set_array, "copy_array": _copy_array,
         "scale_sphere_shapes": _scale_sphere_shapes, "approximate_meshes": _approximate_meshes,
         "set_attr": _set_attr, "set_joint_targets": _set_joint_targets, "set_joint_q": _set_joint_q,
         "copy_joint_q_to_joint_targets": _copy_joint_q_to_joint_targets,
         "set_joint_armature": _set_joint_armature}
assert set(STEPS) == set(schema.OPS), "scene/ops.py STEPS and scene/schema.py OPS name the same ops"
