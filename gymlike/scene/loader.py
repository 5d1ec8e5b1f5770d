"""Build a validated scene Spec into a gymlike sim through the same core as gymapi: assets (files
through the asset loaders, inline bodies/joints through an in-memory Newton sub-builder wrapped in
an `Asset`), one env (= Newton world) per replicated world, one actor per asset or inline tree.

Load order (python_bindings_docs/scenes.md): world count and spacing, builder defaults, external
assets, inline bodies and shapes, inline joints and articulations, initial_joint_q, post_build,
replication, ground plane. Steps up to post_build edit per-actor *templates*; replication copies a
template into every world, so a post_build edit appears in all of them."""

from __future__ import annotations

import fnmatch
import hashlib
import math
import os

import numpy as np

from ..core.errors import GymlikeError, warn
from . import schema as S
from .schema import SceneError

_DRIVE = {"none": 0, "position": 1, "velocity": 2, "effort": 3}   # gymapi.DofDriveMode values


class Template:
    """One actor as every world gets it: asset, pose, filter, and the Isaac Gym properties, DOF
    positions and targets that initial_joint_q and post_build edit before replication."""

    def __init__(self, name, asset, pose, self_collisions, path):
        self.name, self.asset, self.pose, self.path = name, asset, pose, path
        self.filter = 0 if self_collisions else 1     # a non-zero filter drops self-collisions
        self.dof_props = asset.dof_props.copy()
        self.dof_pos = np.zeros(asset.dof_count, np.float32)
        self.targets = np.zeros(asset.dof_count, np.float32)
        self.targets_set = False
        self.body_mass = {}                            # body index -> mass
        self.shape_material = {}                       # body index (None: all) -> {mu, restitution}
        self.contact_offset = None


# ---------------------------------------------------------------------------- transforms
def _qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def _qrot(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(v, np.float64)
    return tuple(2.0 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * v + 2.0 * w * np.cross(u, v))


def tf_mul(a, b):
    return (tuple(np.add(a[0], _qrot(a[1], b[0]))), _qmul(a[1], b[1]))


def tf_inv(a):
    qi = (-a[1][0], -a[1][1], -a[1][2], a[1][3])
    return (tuple(-np.asarray(_qrot(qi, a[0]))), qi)


def _wp_tf(t):
    import warp as wp
    return wp.transform(wp.vec3(*t[0]), wp.quat(*t[1]))


# ---------------------------------------------------------------------------- inline trees
def _trees(spec):
    """Inline bodies grouped into kinematic trees: [(name, root body id, [body ids DFS], {child: joint})]."""
    joint_of = {j["child"]: j for j in spec.joints}
    children = {}
    for b in spec.bodies:        # document order of children
        j = joint_of.get(b["id"])
        if j is not None and j["parent"] != "world":
            children.setdefault(j["parent"], []).append(b["id"])
    roots = [b["id"] for b in spec.bodies if b["id"] not in joint_of or joint_of[b["id"]]["parent"] == "world"]
    art_of = {}
    for a in spec.articulations:
        for label in a["joints"]:
            art_of[label] = a
    trees = []
    for r in roots:
        order, stack = [], [r]
        while stack:
            b = stack.pop()
            order.append(b)
            stack.extend(reversed(children.get(b, [])))
        joints = [joint_of[b] for b in order if b in joint_of]
        arts = {art_of[j["label"]]["path"]: art_of[j["label"]] for j in joints if j["label"] in art_of}
        if len(arts) > 1:
            raise SceneError("articulations", f"the tree rooted at body {r!r} is split over {', '.join(arts)}: "
                                              "an articulation holds one whole kinematic tree")
        name = r
        if arts:
            art = next(iter(arts.values()))
            missing = [j["label"] for j in joints if j["label"] not in art["joints"]]
            extra = [x for x in art["joints"] if x not in [j["label"] for j in joints]]
            if missing or extra:
                raise SceneError(art["path"] + ".joints", f"must list exactly the joints of the tree rooted at "
                                                          f"{r!r}: missing {missing}, not in that tree {extra}")
            name = art["name"]
        trees.append((name, r, order, joint_of))
    return trees


def _inline_asset(sim, spec, tree, options):
    """An Asset whose sub-builder is made from the tree's inline bodies, shapes and joints, in the
    root body's frame (the actor pose is the root's transform), bodies depth-first."""
    from ..core import asset as A
    from ..core.runtime import newton as _newton
    name, root, order, joint_of = tree
    body = {b["id"]: b for b in spec.bodies}
    X_root = body[root]["transform"]
    to_root = tf_inv(X_root)
    bd = spec.builder
    up = A._up_axis(sim)

    def make(scale, self_collisions):
        newton = _newton()
        if scale != 1.0:
            raise GymlikeError(f"scene tree {name!r}: set_actor_scale is not supported on inline scene bodies")
        b = A._new_builder(options, up)
        if bd["rigid_gap"] is not None:
            b.rigid_gap = bd["rigid_gap"]
        for k, v in bd["shape"].items():
            setattr(b.default_shape_cfg, k, v)
        for k, v in bd["joint"].items():
            setattr(b.default_joint_cfg, k, v)
        index, shapes_of = {}, {}
        for bid in order:
            spec_b = body[bid]
            index[bid] = link = b.add_link(xform=_wp_tf(tf_mul(to_root, spec_b["transform"])), label=spec_b["label"])
            shapes_of[bid] = [_add_shape(b, newton, link, s) for s in spec_b["shapes"]]
            _set_mass(b, link, spec_b["mass"])
        joints = []
        for bid in order:
            j = joint_of.get(bid)
            joints.append(_add_joint(b, newton, j, bid, index, body, to_root))
        b.add_articulation(joints, label=name)
        if not self_collisions:
            flat = [(bid, s) for bid in order for s in shapes_of[bid]]
            for i, (ba, sa) in enumerate(flat):
                for bb, sb in flat[i + 1:]:
                    if ba != bb:
                        b.add_shape_collision_filter_pair(sa, sb)
        return b

    asset = A.Asset(sim, "scene", None, options, make)
    asset.name = name
    return asset, X_root


def _add_shape(b, newton, link, s):
    cfg = b.default_shape_cfg.copy()
    for k, v in s["material"].items():
        setattr(cfg, k, v)
    if not s["collide"]:
        cfg.has_shape_collision = cfg.has_particle_collision = False
    kw = dict(xform=_wp_tf(s["transform"]), cfg=cfg, label=s.get("label"))
    t = s["type"]
    if t == "box":
        return b.add_shape_box(link, hx=s["hx"], hy=s["hy"], hz=s["hz"], **kw)
    if t == "sphere":
        return b.add_shape_sphere(link, radius=s["radius"], **kw)
    if t in ("capsule", "cylinder", "cone"):
        return getattr(b, f"add_shape_{t}")(link, radius=s["radius"], half_height=s["half_height"], **kw)
    if t == "ellipsoid":
        return b.add_shape_ellipsoid(link, rx=s["rx"], ry=s["ry"], rz=s["rz"], **kw)
    mesh = newton.Mesh(np.asarray(s["vertices"], np.float32), np.asarray(s["indices"], np.int32))
    return b.add_shape_mesh(link, mesh=mesh, **kw)


def _set_mass(b, link, mass):
    """A body's given mass replaces the shapes' (inertia scaled alike); without shapes it gets the
    inertia of a solid 0.1 m sphere of that mass."""
    import warp as wp
    if mass is None:
        return
    m0 = float(b.body_mass[link])
    if m0 > 0:
        inertia = np.array(b.body_inertia[link], np.float64).reshape(3, 3) * (mass / m0)
    else:
        inertia = np.eye(3) * 0.4 * mass * 0.1 ** 2
    b.body_mass[link] = mass
    b.body_inv_mass[link] = 1.0 / mass
    b.body_inertia[link] = wp.mat33(*inertia.flatten())
    b.body_inv_inertia[link] = wp.mat33(*np.linalg.inv(inertia).flatten())


def _frames(j, bid, body, to_root):
    """Joint frames in the parent (or, for the world, the root actor) frame and the child frame.
    Unspecified frames come from the bodies' document transforms: the joint sits at the child's
    origin unless a frame says otherwise."""
    X_c = body[bid]["transform"]
    X_p = S.IDENTITY if j is None or j["parent"] == "world" else body[j["parent"]]["transform"]
    pf = j["parent_frame"] if j else None
    cf = j["child_frame"] if j else None
    if pf is None and cf is None:
        cf = S.IDENTITY
    if pf is None:
        pf = tf_mul(tf_inv(X_p), tf_mul(X_c, cf))
    elif cf is None:
        cf = tf_mul(tf_inv(X_c), tf_mul(X_p, pf))
    if j is None or j["parent"] == "world":
        pf = tf_mul(to_root, pf)          # the world joint frame, relative to the actor pose
    return pf, cf


def _dof_kwargs(j):
    kw = {}
    if j["limits"] is not None:
        kw["limit_lower"], kw["limit_upper"] = j["limits"]
    d = j["drive"] or {}
    # drive gains become Newton's passive stiffness/damping, which the asset turns into Isaac Gym
    # drive gains (DOF properties), as for MJCF/URDF files
    if "stiffness" in d:
        kw["stiffness"] = d["stiffness"]
    if "damping" in d:
        kw["damping"] = d["damping"]
    if "effort_limit" in d:
        kw["effort_limit"] = d["effort_limit"]
    for k in ("armature", "friction"):
        if j[k] is not None:
            kw[k] = j[k]
    return kw


def _add_joint(b, newton, j, bid, index, body, to_root):
    child = index[bid]
    pf, cf = _frames(j, bid, body, to_root)
    parent = -1 if j is None or j["parent"] == "world" else index[j["parent"]]
    common = dict(parent_xform=_wp_tf(pf), child_xform=_wp_tf(cf))
    if j is None or j["type"] == "free":
        # a root without a joint floats (Isaac Gym's default for a URDF without a fixed base)
        return b.add_joint_free(child, label=j["label"] if j else f"{body[bid]['label']}_root", **common)
    label = j["label"]
    t = j["type"]
    if t == "fixed":
        return b.add_joint_fixed(parent, child, label=label, **common)
    kw = _dof_kwargs(j)
    if t in ("revolute", "prismatic"):
        return getattr(b, f"add_joint_{t}")(parent, child, axis=tuple(j["axis"]), label=label, **common, **kw)
    cfg = newton.ModelBuilder.JointDofConfig
    if t == "ball":      # as gymlike imports MJCF/URDF balls: three hinges about x, y, z
        lin, ang = [], [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    else:
        lin, ang = j["linear_axes"], j["angular_axes"]
    return b.add_joint_d6(parent, child, linear_axes=[cfg(axis=tuple(a), **kw) for a in lin],
                          angular_axes=[cfg(axis=tuple(a), **kw) for a in ang], label=label, **common)


# ---------------------------------------------------------------------------- external assets
def _inline_urdf_file(text):
    """Inline URDF XML goes through the file loader (one path for every URDF rule): written once
    to a cache file named by its content."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "gymlike", "inline_urdf")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha1(text.encode()).hexdigest()[:16] + ".urdf")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def _file_asset(gym, sim, a, options):
    from ..core.asset import load_asset_file
    kind, src = a["source"]
    path = _inline_urdf_file(src) if kind == "inline" else src
    try:
        asset = load_asset_file(sim, os.path.dirname(path), os.path.basename(path), options, a["kind"])
    except GymlikeError as e:
        raise type(e)(f"{a['path']}.{a['kind']}: {e}") from None
    from ..gymapi import _register
    return _register(sim, asset)


def _options(spec, floating=None):
    from ..gymapi import AssetOptions
    o = AssetOptions()
    if floating is not None:
        o.fix_base_link = not floating
    if "density" in spec.builder["shape"]:
        o.density = spec.builder["shape"]["density"]
    if "armature" in spec.builder["joint"]:
        o.armature = spec.builder["joint"]["armature"]
    return o


# ---------------------------------------------------------------------------- selectors
def _select(templates, sel, actor, path, kind):
    """(template, index) pairs whose DOF or body name (kind 'dof_names' / 'body_names') matches
    the glob `sel` in actors matching `actor`; matching nothing is an error (likely a typo)."""
    hits = [(t, i) for t in templates if fnmatch.fnmatchcase(t.name, actor)
            for i, n in enumerate(getattr(t.asset, kind)) if fnmatch.fnmatchcase(n, sel)]
    if not hits:
        what = "DOF" if kind == "dof_names" else "body"
        names = sorted({n for t in templates for n in getattr(t.asset, kind)})
        raise SceneError(path, f"no {what} matches {sel!r} in actors {actor!r} "
                               f"({what} names: {', '.join(names) or 'none'})")
    return hits


def _initial_q(templates, entries):
    for e in entries:
        cands = [t for t in templates if e["actor"] is None or t.name == e["actor"]]
        if isinstance(e["ref"], int):     # a DOF index in the world (Isaac Gym DOMAIN_ENV)
            k = e["ref"]
            for t in cands:
                if k < t.asset.dof_count:
                    t.dof_pos[k] = e["value"]
                    break
                k -= t.asset.dof_count
            else:
                total = sum(t.asset.dof_count for t in cands)
                raise SceneError(e["path"] + ".index", f"DOF index {e['ref']} out of range [0, {total})")
        else:
            hits = [(t, t.asset.dof_names.index(e["ref"])) for t in cands if e["ref"] in t.asset.dof_names]
            if len(hits) != 1:
                names = sorted({n for t in cands for n in t.asset.dof_names})
                why = "is ambiguous (give actor)" if hits else f"names no DOF (DOFs: {', '.join(names) or 'none'})"
                raise SceneError(e["path"] + ".joint", f"{e['ref']!r} {why}")
            t, i = hits[0]
            t.dof_pos[i] = e["value"]


def _post_build(templates, ops):
    for op in ops:
        for sel, value in op["values"].items():
            path = op["path"] + (f".values.{sel}" if op["keyed"] else ".select")
            if op["op"] == "set_joint_targets":
                for t, i in _select(templates, sel, op["actor"], path, "dof_names"):
                    t.targets[i] = value
                    t.targets_set = True
                continue
            attr = op["attr"]
            if attr in S.DOF_ATTRS:
                field = {"drive_mode": "driveMode", "has_limits": "hasLimits"}.get(attr, attr)
                v = _DRIVE[value] if attr == "drive_mode" else value
                for t, i in _select(templates, sel, op["actor"], path, "dof_names"):
                    t.dof_props[field][i] = v
                    if attr in ("lower", "upper"):
                        t.dof_props["hasLimits"][i] = True
            elif attr == "mass":
                for t, i in _select(templates, sel, op["actor"], path, "body_names"):
                    t.body_mass[i] = value
            else:
                for t, i in _select(templates, sel, op["actor"], path, "body_names"):
                    t.shape_material.setdefault(i, {})[attr] = value


# ---------------------------------------------------------------------------- the scene
class Scene:
    """A loaded scene: a gymlike sim (handle and tensor API) plus the Isaac Gym view of it.

    `gym`, `sim`: the gymapi objects; `envs`: one env per world; `actors[w]`: actor handles of
    world w (one per asset, then one per inline tree); `actor_names`; `num_worlds`, `dt`,
    `substeps`, `engine` ('physx' | 'flex'), `device`; `unsupported_features`: what the document
    asked for that gymlike skipped (empty with strict=True, which raises instead)."""

    def __init__(self, spec, gym, sim, envs, actors, templates, num_worlds, spacing, device):
        self.spec = spec
        self.name = spec.name
        self.source = spec.source
        self.gym, self.sim, self.envs, self.actors = gym, sim, envs, actors
        self.templates = templates
        self.actor_names = [t.name for t in templates]
        self.num_worlds = num_worlds
        self.spacing = spacing
        self.dt, self.substeps, self.engine, self.device = spec.dt, spec.substeps, spec.engine, device
        self.unsupported_features = list(spec.unsupported)
        self.ground = spec.ground
        core = sim
        self.bodies_per_world = core.envs[0].body_count
        self.dofs_per_world = core.envs[0].dof_count
        self.actors_per_world = len(templates)
        self._tensors = None

    @property
    def core(self):
        """The core Sim record (gymlike.core.sim.Sim)."""
        return self.sim

    @property
    def coords_per_world(self):
        return int(sum(t.asset.newton_coord_count for t in self.templates))

    def tensors(self):
        """Wrapped torch views of the tensor API buffers: root (worlds, actors, 13), bodies (worlds,
        bodies, 13), dofs (worlds, dofs, 2); refresh them with `refresh()`."""
        if self._tensors is None:
            from .. import gymtorch
            g, s, W = self.gym, self.sim, self.num_worlds
            root = gymtorch.wrap_tensor(g.acquire_actor_root_state_tensor(s))
            body = gymtorch.wrap_tensor(g.acquire_rigid_body_state_tensor(s))
            dof = gymtorch.wrap_tensor(g.acquire_dof_state_tensor(s))
            self._tensors = dict(root=root, body=body, dof=dof,
                                 root_w=root.view(W, self.actors_per_world, 13),
                                 body_w=body.view(W, self.bodies_per_world, 13),
                                 dof_w=dof.view(W, self.dofs_per_world, 2))
        return self._tensors

    def refresh(self):
        t = self.tensors()
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_rigid_body_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        return t

    def step(self, n=1):
        for _ in range(int(n)):
            self.gym.simulate(self.sim)

    def joint_q(self):
        """Newton generalized coordinates per world (worlds, coords per world), a torch view."""
        import warp as wp
        core = self.core
        core.sync_joint_state()
        return wp.to_torch(core.state.joint_q).view(self.num_worlds, -1)

    def reload(self, **kw):
        """A fresh Scene from the same document (the file is read again)."""
        kw.setdefault("num_worlds", self.num_worlds)
        kw.setdefault("device", self.device)
        return load_scene(self.source if self.source else self.spec_doc, **kw)

    def close(self):
        if self.sim is not None and not self.core.destroyed:
            self.gym.destroy_sim(self.sim)

    def __repr__(self):
        return (f"<gymlike Scene '{self.name}': {self.num_worlds} worlds x {self.actors_per_world} actors, "
                f"{self.bodies_per_world} bodies, {self.dofs_per_world} DOFs per world, engine {self.engine}>")


def load_scene(path_or_mapping, *, strict=False, num_worlds=None, device=None, dt=None, engine=None, prepare=True):
    """Load a scene document (YAML/JSON file or mapping, schema_version 1) into a gymlike sim.

    num_worlds overrides replicate.num_worlds / simulation.num_worlds; dt and engine
    ('physx' | 'flex') override the document's simulation section; device 'cpu' or 'cuda:N'.
    Invalid documents raise SceneError (a ValueError) naming the key path, before anything is
    built; with strict=True a feature gymlike cannot build raises UnsupportedSceneFeature."""
    doc, source = S.read_document(path_or_mapping)
    spec = S.validate(doc, source, strict=strict)
    if num_worlds is not None:
        S.integer(num_worlds, "load_scene(num_worlds)", 1)
    if dt is not None:
        spec.dt = S.number(dt, "load_scene(dt)", positive=True)
    if engine is not None:
        if engine not in S.ENGINES:
            raise SceneError("load_scene(engine)", f"expected one of {', '.join(S.ENGINES)}, got {engine!r}")
        spec.engine = S.ENGINES[engine]
    if spec.builder["default_body_armature"]:
        _unsupported(spec, strict, "builder.default_body_armature",
                     "Newton 1.8 has no body armature (joint armature: builder.defaults.joint.armature)")
    if spec.max_rigid_contact is not None and spec.engine == "flex":
        _unsupported(spec, strict, "simulation.max_rigid_contact", "XPBD sizes its contact buffer itself")
    W = num_worlds or (spec.replicate or {}).get("num_worlds") or spec.num_worlds or 1
    spacing = (spec.replicate or {}).get("spacing", (0.0, 0.0, 0.0))

    from .. import gymapi
    gym = gymapi.acquire_gym()
    params = gymapi.SimParams()
    params.up_axis = gymapi.UP_AXIS_Z
    params.gravity = gymapi.Vec3(*spec.gravity)
    params.dt, params.substeps = spec.dt, spec.substeps
    if device is not None and str(device).startswith("cuda"):
        params.use_gpu_pipeline = True
    elif device is not None and device != "cpu":
        raise SceneError("load_scene(device)", f"expected 'cpu' or 'cuda:N', got {device!r}")
    compute = int(str(device).split(":")[1]) if device and ":" in str(device) else 0
    sim = gym.create_sim(compute, -1, gymapi.SIM_PHYSX if spec.engine == "physx" else gymapi.SIM_FLEX, params)
    try:
        scene = _build(spec, gym, sim, W, spacing, prepare)
    except BaseException:
        gym.destroy_sim(sim)          # nothing half-built stays behind
        raise
    scene.spec_doc = doc
    if scene.unsupported_features:
        warn(f"scene '{spec.name}': skipped unsupported features: " + "; ".join(scene.unsupported_features))
    return scene


def _unsupported(spec, strict, path, what):
    if strict:
        raise S.UnsupportedSceneFeature(path, f"{what} (strict=True)")
    spec.unsupported.append(f"{path}: {what}")


def _build(spec, gym, sim, W, spacing, prepare):
    from .. import gymapi
    core = sim
    templates = []
    # external assets (parsed once each), then one asset per inline kinematic tree
    for a in spec.assets:
        asset = _file_asset(gym, sim, a, _options(spec, a["floating"]))
        t = Template(a["name"], asset, a["xform"], a["self_collisions"], a["path"])
        if a["shape"]:
            t.shape_material[None] = dict(a["shape"])
        t.contact_offset = spec.builder["rigid_gap"]
        templates.append(t)
    for tree in _trees(spec):
        asset, X_root = _inline_asset(core, spec, tree, _options(spec))
        from ..gymapi import _register
        _register(sim, asset)
        # (inline shapes got the gap through the builder already)
        t = Template(tree[0], asset, X_root, True, f"bodies ({tree[1]})")
        _joint_drives(t, [tree[3][b] for b in tree[2] if b in tree[3]])
        templates.append(t)
    names = [t.name for t in templates]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SceneError("assets", f"actor names must be unique in a world; repeated: {', '.join(dup)} "
                                   "(give assets a name)")
    _initial_q(templates, spec.initial_joint_q)
    _post_build(templates, spec.post_build)

    # replication: one env (Newton world) per world, the same actors in each
    per_row = max(1, int(math.ceil(math.sqrt(W))))
    sx, sy, sz = spacing
    lower, upper = gymapi.Vec3(-sx / 2, -sy / 2, 0.0), gymapi.Vec3(sx / 2, sy / 2, sz)
    envs, actors = [], []
    for w in range(W):
        env = gym.create_env(sim, lower, upper, per_row)
        hs = []
        for t in templates:
            pose = gymapi.Transform(gymapi.Vec3(*t.pose[0]), gymapi.Quat(*t.pose[1]))
            h = gym.create_actor(env, t.asset, pose, t.name, w, t.filter)
            _apply_template(gym, env, h, t)
            hs.append(h)
        envs.append(env)
        actors.append(hs)
    if spec.ground is not None:
        p = gymapi.PlaneParams()
        p.normal = gymapi.Vec3(0, 0, 1)
        p.static_friction = p.dynamic_friction = spec.ground["friction"]
        p.restitution = spec.ground["restitution"]
        gym.add_ground(sim, p)
    if spec.max_rigid_contact is not None and spec.engine == "physx":
        dofs = sum(t.asset._newton_dof_count for t in templates)
        n = spec.max_rigid_contact            # per world; constraint rows sized as gymlike does
        core.mujoco_options = dict(nconmax=n, njmax=3 * n + 2 * dofs + 8)
    scene = Scene(spec, gym, sim, envs, actors, templates, W, spacing, core.device)
    if prepare:
        gym.prepare_sim(sim)
    return scene


def _joint_drives(t, joints):
    """Drive modes and targets of inline joints -> the template's DOF properties and targets
    (gains came through the builder; a ball or d6 joint's DOFs are named label_0, label_1, ...)."""
    names = t.asset.dof_names
    for j in joints:
        d = j["drive"]
        if not d:
            continue
        label = j["label"]
        dofs = [i for i, n in enumerate(names) if n == label or
                (j["type"] in ("ball", "d6") and n.startswith(label + "_") and n[len(label) + 1:].isdigit())]
        for i in dofs:
            t.dof_props["driveMode"][i] = _DRIVE[d["mode"]]
            if "target" in d:
                t.targets[i] = d["target"]
                t.targets_set = True


def _apply_template(gym, env, h, t):
    from .. import gymapi
    if t.asset.dof_count:
        gym.set_actor_dof_properties(env, h, t.dof_props)
        if t.dof_pos.any():
            st = np.zeros(t.asset.dof_count, gymapi.DofState.dtype)
            st["pos"] = t.dof_pos
            gym.set_actor_dof_states(env, h, st, gymapi.STATE_POS)
        if t.targets_set:
            gym.set_actor_dof_position_targets(env, h, t.targets)
    if t.body_mass:
        props = gym.get_actor_rigid_body_properties(env, h)
        for i, m in t.body_mass.items():
            props[i].mass = m
        gym.set_actor_rigid_body_properties(env, h, props, True)
    if t.shape_material or t.contact_offset is not None:
        props = gym.get_actor_rigid_shape_properties(env, h)
        start = t.asset.body_shape_start
        for k, p in enumerate(props):
            # the body holding shape k (bodies without shapes share the next one's start)
            body = int(np.searchsorted(start, k, side="right") - 1)
            for src in (t.shape_material.get(None), t.shape_material.get(body)):
                if src:
                    if "mu" in src:
                        p.friction = src["mu"]
                    if "restitution" in src:
                        p.restitution = src["restitution"]
            if t.contact_offset is not None:
                p.contact_offset = t.contact_offset
        gym.set_actor_rigid_shape_properties(env, h, props)
