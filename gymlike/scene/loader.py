"""load_sap_scene: a scene document -> a gymlike sim (one Isaac Gym env per replicated world, one
Newton world each), in seed 001's load order:

1. world count and spacing; 2. builder defaults; 3. external assets; 4. inline bodies and
shapes; 5. inline joints and articulations (scene/authored.py); 6. initial_joint_q; 7. post_build
(scene/ops.py); 8. replication: every piece of the authored world becomes an actor in every
world, placed by Newton's centred world offsets; 9. the ground plane (world -1, shared).

Each piece's Newton sub-builder becomes a gymlike Asset unchanged; what gymlike's Isaac Gym layer
owns (drive modes and gains, targets) is carried over as the actor's DOF properties and targets."""

from __future__ import annotations

import copy

import numpy as np

from ..core.errors import GymlikeNotImplementedError, warn
from . import authored
from . import ops
from . import schema
from .schema import SceneError

# Newton JointTargetMode -> gymapi.DofDriveMode (POSITION_VELOCITY: gymlike's POS law is ke*(q*-q) + kd*(qd*-qd))
_MODE_TO_IG = {0: 0, 1: 1, 2: 2, 3: 1, 4: 3}


class Template:
    """One actor as every world gets it: its gymlike Asset, Isaac Gym DOF properties and targets."""

    def __init__(self, piece, asset):
        self.piece, self.asset, self.name = piece, asset, piece.name
        b = piece.b
        qd, q = asset.dof_qd, asset.dof_q
        self.dof_props = asset.dof_props.copy()
        modes = np.asarray(b.joint_target_mode, np.int64)[qd] if len(qd) else np.zeros(0, np.int64)
        self.dof_props["driveMode"] = [_MODE_TO_IG[int(m)] for m in modes]
        self.dof_props["stiffness"] = np.asarray(b.joint_target_ke, np.float64)[qd] if len(qd) else []
        self.dof_props["damping"] = np.asarray(b.joint_target_kd, np.float64)[qd] if len(qd) else []
        # a passive damper (from the asset file) is a drive towards zero velocity: added to the
        # drive damping, and a joint without a drive gets a velocity drive of that damping
        passive = np.asarray(b.joint_damping, np.float64)[qd] if len(qd) else np.zeros(0)
        self.dof_props["damping"] += np.where(self.dof_props["driveMode"] != 3, passive, 0.0)
        self.dof_props["driveMode"] = np.where((self.dof_props["driveMode"] == 0) & (passive > 0), 2,
                                               self.dof_props["driveMode"])
        self.pos_targets = (np.asarray(b.joint_target_q, np.float64)[q].astype(np.float32) if len(q)
                            else np.zeros(0, np.float32))
        self.vel_targets = (np.asarray(b.joint_target_qd, np.float64)[qd].astype(np.float32) if len(qd)
                            else np.zeros(0, np.float32))
        self.filter = 0 if piece.self_collisions else 1    # a non-zero filter drops self-collisions


def _check_ig_limits(world, spec):
    """What the Newton arrays say that gymlike's Isaac Gym layer cannot carry, collected."""
    newton = authored._newton()
    for p in world.pieces:
        b = p.b
        for j, jt in enumerate(b.joint_type):
            qd = p.qd_range(j)
            if jt == newton.JointType.FREE and any(b.joint_target_mode[d] or b.joint_target_ke[d]
                                                   or b.joint_target_kd[d] for d in qd):
                spec.unsupported_feature(p.path, f"drive on free joint {b.joint_label[j]!r}: MuJoCo has no "
                                                 "actuators on free joints; not applied")
            if any(b.joint_stiffness[d] for d in qd):
                spec.unsupported_feature(p.path, f"passive stiffness of joint {b.joint_label[j]!r} (from the asset "
                                                 "file): gymlike has Isaac Gym drives only; not applied")
            if any(b.joint_damping[d] and b.joint_target_mode[d] == 4 for d in qd):
                spec.unsupported_feature(p.path, f"passive damping of effort-driven joint {b.joint_label[j]!r}: an "
                                                 "Isaac Gym effort drive has no damping; not applied")


def _asset(sim, piece):
    from ..core.assets.mjcf import Mjcf
    from ..core.assets.record import Asset
    from ..gymapi import AssetOptions, _register
    o = AssetOptions()
    # the scene's physics is Newton's: no Isaac Gym default damping or speed caps
    o.angular_damping = 0.0
    o.max_angular_velocity = o.max_linear_velocity = 1e30
    b = authored.finish(piece)

    def make(scale, self_collisions):
        if scale != 1.0:
            raise GymlikeNotImplementedError(f"actor '{piece.name}': set_actor_scale on scene actors is not supported")
        return copy.deepcopy(b)
    make.newton_shapes = True          # the scene's own gaps and meshes (core/collision.py)
    make.scales = False                # (Asset.scalable)
    kind = piece.kind if piece.file else "scene"
    # an MJCF file's joint names and actuators, read as load_asset reads them
    asset = Asset(sim, kind, piece.file, o, make, Mjcf(piece.file) if kind == "mjcf" else None)
    asset.name = piece.name
    return _register(sim, asset)


class SapLoadedScene:
    """A loaded scene: a gymlike sim plus the fields seed 001 documents.

    Seed fields (Newton objects; Newton keeps shape metadata and poses in its Model and State):
    `sap_model` / `collision_model` the Newton Model, `sap_state` / `collision_state` the initial
    State (world frame), `sap_control` the initial Control (targets, joint forces),
    `body_labels`, `shape_labels`, `unsupported_features`; `state()` and `control()` clone them.
    gymlike: `gym`, `sim`, `envs` (one per world), `actors[w]`, `actor_names`, `num_worlds`,
    `world_offsets`, `dt`, `substeps`, `engine`, `device`, `body_colors`, `document`,
    `step(n)`, `refresh()`, `tensors()`, `world_arrays()`, `close()`."""

    def __init__(self, spec, doc, gym, sim, envs, actors, templates, offsets, gravity):
        self.spec, self.document = spec, doc
        self.name, self.source = spec.name, spec.source
        self.gym, self.sim, self.envs, self.actors = gym, sim, envs, actors
        self.templates = templates
        self.actor_names = [t.name for t in templates]
        self.num_worlds = len(envs)
        self.world_offsets = offsets
        self.dt, self.substeps, self.engine, self.device = spec.dt, spec.substeps, spec.engine, sim.device
        self.gravity = gravity
        self.unsupported_features = list(spec.unsupported)
        self.ground = spec.ground
        self.bodies_per_world = sum(t.asset.body_count for t in templates)
        self.dofs_per_world = sum(t.asset.dof_count for t in templates)
        self.actors_per_world = len(templates)
        self.body_colors = [c for t in templates for c in t.piece.colors]      # per body of a world
        self._tensors = self._initial = self._control = None

    # ------------------------------------------------------------------ seed 001 fields
    @property
    def core(self):
        """The core Sim record (gymlike.core.sim.Sim)."""
        return self.sim

    def _model(self):
        self.sim.ensure_ready("SapLoadedScene")
        return self.sim.model

    @property
    def sap_model(self):
        return self._model()

    collision_model = sap_model

    @property
    def sap_state(self):
        if self._initial is None:
            self._initial = self.state()
        return self._initial

    collision_state = sap_state

    @property
    def sap_control(self):
        if self._control is None:
            self._control = self.control()
        return self._control

    @property
    def body_labels(self):
        return list(self._model().body_label)

    @property
    def shape_labels(self):
        return list(self._model().shape_label)

    def state(self):
        """A new Newton State holding the model's initial state (coordinates and, by forward
        kinematics, body poses)."""
        from ..core.runtime import newton
        m = self._model()
        s = m.state()
        newton().eval_fk(m, s.joint_q, s.joint_qd, s)
        return s

    def control(self):
        """A new Newton Control holding the initial control arrays (the targets the scene set)."""
        m = self._model()
        c = m.control()
        if self._control is None:
            src = self.sim.control
        else:
            src = self._control
        for name in ("joint_f", "joint_target_q", "joint_target_qd", "joint_act"):
            a, b = getattr(c, name, None), getattr(src, name, None)
            if a is not None and b is not None and a.shape == b.shape:
                a.assign(b)
        return c

    # ------------------------------------------------------------------ gymlike
    def prepare(self):
        """Finalize (gym.prepare_sim) and snapshot the initial state and control."""
        self.gym.prepare_sim(self.sim)
        self.sap_state, self.sap_control     # noqa: B018  (taken before any step)
        return self

    def world_arrays(self):
        from ..core.worlds import world_arrays
        return world_arrays(self.sim)

    def tensors(self):
        """Wrapped torch views of the tensor API buffers: root (worlds, actors, 13), bodies (worlds,
        bodies, 13), dofs (worlds, dofs, 2); refresh them with `refresh()`."""
        if self._tensors is None:
            from .. import gymtorch
            g, s, n = self.gym, self.sim, self.num_worlds
            root = gymtorch.wrap_tensor(g.acquire_actor_root_state_tensor(s))
            body = gymtorch.wrap_tensor(g.acquire_rigid_body_state_tensor(s))
            dof = gymtorch.wrap_tensor(g.acquire_dof_state_tensor(s))
            self._tensors = dict(root=root, body=body, dof=dof, root_w=root.view(n, self.actors_per_world, 13),
                                 body_w=body.view(n, self.bodies_per_world, 13),
                                 dof_w=dof.view(n, self.dofs_per_world, 2))
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
        self.sim.sync_joint_state()
        return wp.to_torch(self.sim.state.joint_q).view(self.num_worlds, -1)

    def close(self):
        if self.sim is not None and not self.sim.destroyed:
            self.gym.destroy_sim(self.sim)

    def __repr__(self):
        return (f"<gymlike SapLoadedScene '{self.name}': {self.num_worlds} worlds x {self.actors_per_world} actors, "
                f"{self.bodies_per_world} bodies, {self.dofs_per_world} DOFs per world, engine {self.engine}>")


Scene = SapLoadedScene       # gymlike's earlier name


def load_sap_scene(path_or_mapping, *, strict=False, num_worlds=None, device=None, dt=None, engine=None, prepare=True):
    """Load a scene document (YAML/JSON file or mapping, schema_version 1) into a gymlike sim.

    num_worlds overrides replicate.num_worlds / simulation.num_worlds; dt and engine ('physx' |
    'flex') override the document's simulation block; device 'cpu' or 'cuda:N'. Invalid
    documents raise SceneError (a ValueError) naming the key path and build nothing; features
    gymlike cannot build are listed in `unsupported_features`, or raised as
    SapUnsupportedSceneFeature with strict=True. prepare=False leaves the sim open for more
    actors (SapLoadedScene.prepare() or gym.prepare_sim finalizes it)."""
    doc, source = schema.read_document(path_or_mapping)
    if num_worlds is not None:
        schema.integer(num_worlds, "load_sap_scene(num_worlds)", 1)
    if engine is not None and engine not in schema.ENGINES:
        raise SceneError("load_sap_scene(engine)", f"expected one of {', '.join(schema.ENGINES)}, got {engine!r}")
    if engine is not None:      # the engine decides which features are unsupported: known before validation
        doc = dict(doc, simulation=dict(doc.get("simulation") or {}, engine=engine))
    spec = schema.validate(doc, source, strict=strict)
    if dt is not None:
        spec.dt = schema.number(dt, "load_sap_scene(dt)", positive=True)
    if device is not None and not (device == "cpu" or str(device).startswith("cuda")):
        raise SceneError("load_sap_scene(device)", f"expected 'cpu' or 'cuda:N', got {device!r}")
    if spec.max_rigid_contact is not None and spec.engine == "flex":
        spec.unsupported_feature("simulation.max_rigid_contact", "XPBD sizes its contact buffer itself; not applied")
    world = authored.build(spec)                                   # steps 2-5
    ops.initial_joint_q(world, spec.initial_joint_q)        # step 6
    ops.post_build(world, spec.post_build)                  # step 7
    _check_ig_limits(world, spec)

    from .. import gymapi
    gym = gymapi.acquire_gym()
    params = gymapi.SimParams()
    params.up_axis = gymapi.UP_AXIS_Z
    params.gravity = gymapi.Vec3(*world.gravity)
    params.dt, params.substeps = spec.dt, spec.substeps
    if "iterations" in spec.solver and spec.engine == "flex":
        params.flex.num_outer_iterations = spec.solver["iterations"]
    params.use_gpu_pipeline = device is not None and str(device).startswith("cuda")
    compute = int(str(device).split(":")[1]) if device and ":" in str(device) else 0
    sim = gym.create_sim(compute, -1, gymapi.SIM_PHYSX if spec.engine == "physx" else gymapi.SIM_FLEX, params)
    try:
        scene = _replicate(spec, doc, gym, sim, world, num_worlds or spec.num_worlds or 1)   # steps 8, 9
        if prepare:
            scene.prepare()
    except BaseException:
        gym.destroy_sim(sim)          # nothing half-built stays behind
        raise
    if scene.unsupported_features:
        warn(f"scene '{spec.name}': unsupported features not applied: " + "; ".join(scene.unsupported_features))
    return scene


load_scene = load_sap_scene      # gymlike's earlier name


def _replicate(spec, doc, gym, sim, world, n):
    from .. import gymapi
    from ..core.runtime import newton
    templates = [Template(p, _asset(sim, p)) for p in world.pieces]
    spacing = tuple(spec.spacing)
    offsets = (newton().utils.compute_world_offsets(n, spacing, newton().Axis.Z) if any(spacing)
               else np.zeros((n, 3), np.float32)).astype(np.float64)
    envs, actors = [], []
    half = gymapi.Vec3(*(0.5 * abs(s) for s in spacing))
    for w in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-half.x, -half.y, 0.0), half, n)
        env.origin = offsets[w]       # Newton's centred grid (or line), not Isaac Gym's row layout
        hs = []
        for t in templates:
            h = gym.create_actor(env, t.asset, gymapi.Transform(), t.name, w, t.filter)
            if t.asset.dof_count:
                gym.set_actor_dof_properties(env, h, t.dof_props)
                gym.set_actor_dof_position_targets(env, h, t.pos_targets)
                gym.set_actor_dof_velocity_targets(env, h, t.vel_targets)
            hs.append(h)
        envs.append(env)
        actors.append(hs)
    if spec.ground is not None:
        _ground(gym, sim, spec)
    if spec.engine == "physx":
        opts = {k: v for k, v in spec.solver.items()}
        if spec.max_rigid_contact is not None:   # per-world contact cap; constraint rows sized as gymlike does
            dofs = sum(t.asset._newton_dof_count for t in templates)
            opts.setdefault("nconmax", spec.max_rigid_contact)
            opts.setdefault("njmax", 4 * spec.max_rigid_contact + 2 * dofs + 8)
        sim.mujoco_options = opts or None
    return SapLoadedScene(spec, doc, gym, sim, envs, actors, templates, offsets, world.gravity)


def _ground(gym, sim, spec):
    """The ground plane, shared by every world (Newton world -1), with the builder's shape
    defaults; its label and the contact fields Isaac Gym's PlaneParams lack are written once
    the model exists."""
    from .. import gymapi
    d = spec.builder["shape"]
    p = gymapi.PlaneParams()
    p.normal = gymapi.Vec3(0, 0, 1)
    p.static_friction = p.dynamic_friction = d.get("mu", 1.0)
    p.restitution = d.get("restitution", 0.0)
    gym.add_ground(sim, p)
    label = spec.ground["label"]
    fields = {k: d[k] for k in ("ke", "kd", "gap", "margin") if k in d}
    if "tau" in d:
        fields["kd"] = d["tau"] * d.get("ke", 2500.0)
    if "gap" not in fields:            # (a SIM_PHYSX sim's ground has Isaac Gym's contact offset)
        gap = spec.builder["rigid_gap"]
        fields["gap"] = authored._newton().ModelBuilder().rigid_gap if gap is None else gap

    def finish():
        from ..core import props
        m = sim.model
        planes = [i for i, lb in enumerate(m.shape_label) if lb == "ground_plane" and m.shape_body.numpy()[i] < 0]
        if not planes:
            return
        i = planes[-1]
        m.shape_label[i] = label
        names = {"ke": "shape_material_ke", "kd": "shape_material_kd", "gap": "shape_gap", "margin": "shape_margin"}
        for k, v in fields.items():
            props.scatter(sim, getattr(m, names[k]), [i], np.array([v], np.float32))
        if fields:
            props.notify(sim, "SHAPE_PROPERTIES")
    sim.defer(None, finish, "load_sap_scene (ground)")
