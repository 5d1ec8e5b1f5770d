"""The authored world of a scene (load-order steps 2-5): one Newton sub-builder per actor (each
imported asset, each kinematic tree of inline bodies), in world coordinates, plus the authored
world's index spaces over them (shapes, joints, joint_q coordinates, DOFs) in the order the
scene document adds them: assets in document order, then inline bodies with their shapes in
document order, then inline joints in document order (a body no joint moves gets a free joint,
after them). initial_joint_q and post_build (scene/ops.py) address these index spaces; the
pieces become gymlike actors (scene/loader.py)."""

from __future__ import annotations


import numpy as np

from ..core import math3d
from ..core.assets.check import check_mjcf
from ..core.assets.importer import guarded, short_name
from ..core.assets.urdf import prepare_urdf
from ..core.runtime import newton as _newton, wp as _wp
from . import schema
from .schema import SceneError

# builder.defaults.joint / joint keys -> Newton JointDofConfig / add_joint_* keyword
_JOINT_KW = {"target_pos": "target_q", "target_vel": "target_qd"}


class Piece:
    """One actor's Newton sub-builder (world coordinates; the actor pose is the identity)."""

    def __init__(self, name, kind, builder, path, file=None, self_collisions=True, color=1):
        self.name, self.kind, self.b, self.path, self.file = name, kind, builder, path, file
        self.self_collisions = self_collisions
        self.tau = [None] * len(builder.shape_body)     # contact dissipation time scale per shape
        self.colors = [color] * len(builder.body_label)

    def q_range(self, j):
        b = self.b
        end = b.joint_q_start[j + 1] if j + 1 < len(b.joint_type) else b.joint_coord_count
        return range(b.joint_q_start[j], end)

    def qd_range(self, j):
        b = self.b
        end = b.joint_qd_start[j + 1] if j + 1 < len(b.joint_type) else b.joint_dof_count
        return range(b.joint_qd_start[j], end)


class Authored:
    """Pieces and the authored world's index spaces: lists of (piece, local index)."""

    def __init__(self, spec):
        self.spec = spec
        self.pieces, self.shapes, self.joints = [], [], []
        self.bodies = {}                 # inline body id -> (piece, local body)
        self.gravity = (0.0, 0.0, -9.81)

    def coords(self):
        return [(p, q) for p, j in self.joints for q in p.q_range(j)]

    def dofs(self):
        return [(p, d) for p, j in self.joints for d in p.qd_range(j)]

    def joint_labels(self):
        return [p.b.joint_label[j] for p, j in self.joints]

    def entries(self, space):
        return {"shape": self.shapes, "coord": self.coords(), "dof": self.dofs()}[space]


# ---------------------------------------------------------------------------- builders
def new_builder(spec):
    """A Newton builder with the scene's builder defaults (load-order step 2)."""
    newton = _newton()
    b = newton.ModelBuilder(up_axis=newton.Axis.Z)
    bd = spec.builder
    if bd["rigid_gap"] is not None:
        b.rigid_gap = bd["rigid_gap"]
    apply_shape_cfg(b.default_shape_cfg, bd["shape"])
    cfg = b.default_joint_cfg
    for k, v in bd["joint"].items():
        if k == "axis":
            cfg.axis = tuple(v)
        elif k == "actuator_mode":
            cfg.actuator_mode = newton.JointTargetMode(v)
        else:
            setattr(cfg, _JOINT_KW.get(k, k), v)
    return b


def apply_shape_cfg(cfg, fields):
    """Canonical shape fields onto a Newton ShapeConfig (tau is kept by the loader, not Newton)."""
    for k, v in fields.items():
        if k == "tau":
            continue
        if k == "collision_group" and v == 0:
            cfg.has_shape_collision = False       # group 0 collides with nothing
        setattr(cfg, k, v)


def _wp_tf(t):
    wp = _wp()
    return wp.transform(wp.vec3(*t[0]), wp.quat(*t[1]))


def _tf(p, q):
    return tuple(map(float, p)), tuple(map(float, q))


def tf_mul(a, b):
    """Scene transforms ((x, y, z), (qx, qy, qz, qw)) composed: b, then a."""
    return _tf(*math3d.transform_mul(a[0], a[1], b[0], b[1]))


def tf_inv(a):
    return _tf(*math3d.transform_inverse(a[0], a[1]))


# ---------------------------------------------------------------------------- assets
def import_asset(spec, a):
    """An imported asset (step 3) as a piece: Newton's importer with the scene's builder
    defaults, the asset's xform and options; labels become '<asset id>/<name>'."""
    from .sources import cache_dir
    newton = _newton()
    b = new_builder(spec)
    apply_shape_cfg(b.default_shape_cfg, a["cfg"])      # overrides applied while importing
    kind, src = a["source"]
    if kind == "inline":
        path = _inline_urdf(src, cache_dir())
    else:
        path = src
    kw = dict(xform=_wp_tf(a["xform"]), enable_self_collisions=a["enable_self_collisions"])
    if a["floating"] is not None:
        kw["floating"] = a["floating"]
    t = a["type"]
    if t == "urdf":
        text = prepare_urdf(path, spec.base)
        kw.update(parse_visuals_as_colliders=a["parse_visuals_as_colliders"], hide_visuals=not a["load_visual_shapes"],
                  joint_ordering="dfs", bodies_follow_joint_ordering=True)
        guarded(path, lambda: b.add_urdf(text, **kw))
    elif t == "mjcf":
        check_mjcf(path)
        kw.update(parse_visuals_as_colliders=a["parse_visuals_as_colliders"], parse_visuals=a["load_visual_shapes"],
                  parse_mujoco_options=False)
        guarded(path, lambda: b.add_mjcf(path, **kw))
    else:
        kw.update(ignore_paths=a["ignore_paths"] or None, skip_mesh_approximation=a["skip_mesh_approximation"],
                  load_visual_shapes=a["load_visual_shapes"], joint_ordering="dfs", bodies_follow_joint_ordering=True)
        guarded(path, lambda: b.add_usd(path, **kw))
    # file values (friction from an MJCF, say) give way to the asset's overrides
    cfg_arrays = {"ke": "shape_material_ke", "kd": "shape_material_kd", "mu": "shape_material_mu",
                  "restitution": "shape_material_restitution", "mu_torsional": "shape_material_mu_torsional",
                  "mu_rolling": "shape_material_mu_rolling", "margin": "shape_margin", "gap": "shape_gap",
                  "collision_group": "shape_collision_group"}
    for k, v in a["cfg"].items():
        if k in cfg_arrays:
            setattr(b, cfg_arrays[k], [v] * len(b.shape_body))
    F = newton.ShapeFlags
    for s in range(len(b.shape_body)):
        if b.shape_flags[s] & F.COLLIDE_SHAPES:
            if a["hide_collision_shapes"]:
                b.shape_flags[s] &= ~int(F.VISIBLE)
            if a["force_show_colliders"]:
                b.shape_flags[s] |= int(F.VISIBLE)
    for attr in ("body_label", "joint_label", "shape_label"):
        setattr(b, attr, [f"{a['id']}/{short_name(x)}" if x else x for x in getattr(b, attr)])
    piece = Piece(a["id"], t, b, a["path"], path if kind == "file" else None, a["enable_self_collisions"], a["color"])
    if "tau" in a["cfg"] or "tau" in spec.builder["shape"]:
        piece.tau = [a["cfg"].get("tau", spec.builder["shape"].get("tau"))] * len(b.shape_body)
    return piece


def _inline_urdf(text, folder):
    """Inline URDF XML goes through the file path (one path for every URDF rule): written once
    to a file named by its content."""
    import hashlib
    import os
    folder = os.path.join(folder, "inline_urdf")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha1(text.encode()).hexdigest()[:16] + ".urdf")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------- inline bodies
def trees(spec):
    """Inline bodies grouped into kinematic trees: [(name, label, [body ids depth-first])]."""
    joint_of = {j["child"]: j for j in spec.joints}
    children = {}
    for b in spec.bodies:        # document order of children
        j = joint_of.get(b["id"])
        if j is not None and j["parent"] != "world":
            children.setdefault(j["parent"], []).append(b["id"])
    art_of = {jid: a for a in spec.articulations for jid in a["joints"]}
    out = []
    for r in [b["id"] for b in spec.bodies if b["id"] not in joint_of or joint_of[b["id"]]["parent"] == "world"]:
        order, stack = [], [r]
        while stack:
            b = stack.pop()
            order.append(b)
            stack.extend(reversed(children.get(b, [])))
        ids = [joint_of[b]["id"] for b in order if b in joint_of]
        arts = {art_of[j]["path"]: art_of[j] for j in ids if j in art_of}
        if len(arts) > 1:
            raise SceneError("articulations", f"the tree rooted at body {r!r} is split over {', '.join(arts)}: "
                                              "an articulation holds one whole kinematic tree")
        name = label = r
        if arts:
            art = next(iter(arts.values()))
            missing = [j for j in ids if j not in art["joints"]]
            extra = [x for x in art["joints"] if x not in ids]
            if missing or extra:
                raise SceneError(art["path"] + ".joints", f"must list exactly the joints of the tree rooted at "
                                                          f"{r!r}: missing {missing}, not in that tree {extra}")
            name, label = art["id"], art["label"]
        out.append((name, label, order))
    return out


def add_inline(world, spec):
    """Steps 4 and 5: one piece per tree; the world's shape and joint lists in document order."""
    newton = _newton()
    body = {b["id"]: b for b in spec.bodies}
    joint_of = {j["child"]: j for j in spec.joints}
    local_joint = {}
    for name, label, order in trees(spec):
        b = new_builder(spec)
        piece = Piece(name, "scene", b, f"bodies ({order[0]})")
        piece.colors = []
        world.pieces.append(piece)
        links = {}
        for bid in order:
            sb = body[bid]
            links[bid] = b.add_link(xform=_wp_tf(sb["transform"]), mass=sb["mass"], label=sb["label"])
            world.bodies[bid] = (piece, links[bid])
            piece.colors.append(sb["color"])
        for bid in order:            # shapes after the links: a body's own defaults per shape
            for s in body[bid]["shapes"]:
                add_shape(piece, links[bid], s, body[bid]["cfg"], spec)
        joints = []
        for bid in order:
            j = joint_of.get(bid)
            jl = _add_joint(b, newton, j, bid, links, body)
            joints.append(jl)
            local_joint[j["id"] if j else ("free", bid)] = (piece, jl)
        b.add_articulation(joints, label=label)
        _body_armature(b, [links[bid] for bid in order], [body[bid]["armature"] for bid in order], spec)
    # the world's shape order: bodies in document order, each body's shapes in order
    for sb in spec.bodies:
        piece, link = world.bodies[sb["id"]]
        world.shapes.extend((piece, s) for s in range(len(piece.b.shape_body)) if piece.b.shape_body[s] == link)
    world.joints.extend(local_joint[j["id"]] for j in spec.joints)
    world.joints.extend(local_joint[("free", sb["id"])] for sb in spec.bodies if ("free", sb["id"]) in local_joint)


def add_shape(piece, link, s, body_cfg, spec):
    """An inline shape on `link` with builder defaults < body fields < the shape's cfg."""
    newton = _newton()
    b = piece.b
    cfg = b.default_shape_cfg.copy()
    fields = {**body_cfg, **s["cfg"]}
    apply_shape_cfg(cfg, fields)
    kw = dict(xform=_wp_tf(s["transform"]), cfg=cfg, label=s["label"])
    t = s["type"]
    if t == "box":
        i = b.add_shape_box(link, hx=s["hx"], hy=s["hy"], hz=s["hz"], **kw)
    elif t == "sphere":
        i = b.add_shape_sphere(link, radius=s["radius"], **kw)
    elif t in ("capsule", "cylinder", "cone"):
        i = getattr(b, f"add_shape_{t}")(link, radius=s["radius"], half_height=s["half_height"], **kw)
    elif t == "ellipsoid":
        i = b.add_shape_ellipsoid(link, rx=s["a"], ry=s["b"], rz=s["c"], **kw)
    else:
        if "file" in s:
            import trimesh
            m = trimesh.load(s["file"], force="mesh")
            verts, idx = np.asarray(m.vertices, np.float32), np.asarray(m.faces, np.int32).reshape(-1)
        else:
            verts, idx = np.asarray(s["vertices"], np.float32), np.asarray(s["indices"], np.int32)
        i = b.add_shape_mesh(link, mesh=newton.Mesh(verts, idx), **kw)
    tau = fields.get("tau", spec.builder["shape"].get("tau"))
    piece.tau.extend([None] * (len(b.shape_body) - len(piece.tau)))
    piece.tau[i] = tau
    return i


def _frames(j, bid, body):
    """Joint frames in the parent frame (the world's, for parent world) and the child frame.
    A frame left out is derived from the bodies' transforms so that the child starts where its
    transform puts it; with both left out the joint sits at the child's origin."""
    X_c = body[bid]["transform"]
    X_p = schema.IDENTITY if j is None or j["parent"] == "world" else body[j["parent"]]["transform"]
    pf = j["parent_xform"] if j else None
    cf = j["child_xform"] if j else None
    if pf is None and cf is None:
        cf = schema.IDENTITY
    if pf is None:
        pf = tf_mul(tf_inv(X_p), tf_mul(X_c, cf))
    elif cf is None:
        cf = tf_mul(tf_inv(X_c), tf_mul(X_p, pf))
    return pf, cf


def _add_joint(b, newton, j, bid, links, body):
    child = links[bid]
    pf, cf = _frames(j, bid, body)
    parent = -1 if j is None or j["parent"] == "world" else links[j["parent"]]
    common = dict(parent_xform=_wp_tf(pf), child_xform=_wp_tf(cf))
    if j is None:     # a body no joint moves floats
        return b.add_joint_free(child, label=f"{body[bid]['label']}_free", **common)
    # with parent world there are no parent shapes to filter: the ground comes after replication
    common.update(label=j["label"], collision_filter_parent=j["collision_filter_parent"] and parent >= 0)
    if j["type"] == "free":   # a free root's coordinates are its world pose (Newton's and gymlike's convention)
        common.update(parent_xform=None, child_xform=None)
        return b.add_joint_free(child, **common)
    if j["type"] == "fixed":
        return b.add_joint_fixed(parent, child, **common)
    kw = {_JOINT_KW.get(k, k): v for k, v in j["cfg"].items()}
    if "axis" in kw:
        kw["axis"] = tuple(kw["axis"])
    if "actuator_mode" in kw:
        kw["actuator_mode"] = newton.JointTargetMode(kw["actuator_mode"])
    return getattr(b, f"add_joint_{j['type']}")(parent, child, **common, **kw)


def _body_armature(b, links, armatures, spec):
    """builder.default_body_armature (or a body's own armature) added to the inertia diagonal."""
    wp = _wp()
    for link, arm in zip(links, armatures):
        a = spec.builder["default_body_armature"] if arm is None else arm
        if a:
            inertia = np.array(b.body_inertia[link], np.float64).reshape(3, 3) + a * np.eye(3)
            b.body_inertia[link] = wp.mat33(*inertia.ravel())
            b.body_inv_inertia[link] = wp.mat33(*np.linalg.inv(inertia).ravel())


def build(spec):
    """Steps 3-5: the authored world."""
    world = Authored(spec)
    for a in spec.assets:
        piece = import_asset(spec, a)
        _body_armature(piece.b, range(len(piece.b.body_label)), [None] * len(piece.b.body_label), spec)
        world.pieces.append(piece)
        world.shapes.extend((piece, s) for s in range(len(piece.b.shape_body)))
        world.joints.extend((piece, j) for j in range(len(piece.b.joint_type)))
    add_inline(world, spec)
    names = [p.name for p in world.pieces]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SceneError("assets", f"actor names (asset ids, articulation ids, root body ids) must be unique; "
                                   f"repeated: {', '.join(dup)}")
    return world


def finish(piece):
    """Newton's arrays from the scene-only data: kd = tau * ke (tau is the contact dissipation
    time scale), and shapes in collision group 0 collide with nothing."""
    b = piece.b
    collide = int(_newton().ShapeFlags.COLLIDE_SHAPES)
    for s, tau in enumerate(piece.tau):
        if tau is not None:
            b.shape_material_kd[s] = float(tau) * float(b.shape_material_ke[s])
        if b.shape_collision_group[s] == 0:
            b.shape_flags[s] &= ~collide
    return b




