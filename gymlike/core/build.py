"""Finalize a Sim: recorded envs/actors -> one Newton world per env -> Model, index tables,
properties, solver and states. Runs once per sim."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from . import kernels, math3d
from .enums import SimType, UpAxis
from .errors import GymlikeRuntimeError, warn
from .runtime import mujoco_warp as _mujoco_warp, newton as _newton, wp as _wp
from .tables import DeviceTables, HostTables

if TYPE_CHECKING:
    from .sim import Sim

# Called with the sim once its model and index tables exist, before properties are written:
# layers above core register here (render/looks.py applies the colors set before the build),
# so that core never imports them.
AFTER_MODEL = []


def one_world(sim: Sim) -> bool:
    """Whether all envs share one Newton world (isolated by collision groups) instead of one
    world per env: when an actor in collision group -1 must collide with every env (Isaac Gym's
    projectiles), or, on SIM_PHYSX, when envs hold actors of different bodies, joints or
    shapes (Newton's MuJoCo solver needs worlds of the same bodies and joints when it steps
    them separately, collision groups and filters included). Envs whose actors differ only in
    scale, or are other assets of the same structure (_env_signature), keep one world each."""
    if len(sim.envs) < 2:
        return False
    if any(a.group == -1 for e in sim.envs for a in e.actors):
        return True
    if sim.type == SimType.SIM_PHYSX:
        sig0 = _env_signature(sim.envs[0])
        return any(_env_signature(e) != sig0 for e in sim.envs[1:])
    return False


def _plan_collisions_shared(env, counter):
    """One world for all envs: a positive group unique to each (env, Isaac Gym group) keeps envs
    apart; group -1 actors get a unique negative group (they collide with everything); a
    non-zero uniform filter drops self-collisions through the importer's filter pairs."""
    plan = []
    for a in env.actors:
        f = a.shape_props["filter"]
        uniform = a.asset.shape_count == 0 or bool((f == f[0]).all())
        fval = int(f[0]) if a.asset.shape_count else 0
        if a.group == -1:
            counter["neg"] -= 1
            plan.append((counter["neg"], True))
        else:
            key = (env.index, a.group)
            if key not in counter:
                counter["pos"] += 1
                counter[key] = counter["pos"]
            plan.append((counter[key], not (uniform and fval != 0)))
    return plan


def _plan_collisions(env):
    """Newton collision group per actor and whether its own shapes may collide (Isaac Gym group
    and filter semantics inside one env; envs are separate worlds and never collide).

    Newton: group g>0 collides with g and negatives; g<0 with everything but itself; the
    ground and other static sim shapes use -1. A unique negative group per actor is how an
    actor with a non-zero filter loses its self-collisions without O(n^2) filter pairs."""
    groups = {a.group for a in env.actors}
    mixed = len(groups - {-1}) > 1 or (-1 in groups and len(groups) > 1)
    rank = {g: i + 1 for i, g in enumerate(sorted(groups - {-1}))}
    plan = []
    for a in env.actors:
        f = a.shape_props["filter"]
        uniform = a.asset.shape_count == 0 or bool((f == f[0]).all())
        fval = int(f[0]) if a.asset.shape_count else 0
        if not mixed:
            if uniform and fval != 0:
                plan.append((-(a.handle + 2), True))     # no self-collision via the group
            else:
                plan.append((1, uniform))                 # self-collision on (filter 0)
        elif a.group == -1:
            plan.append((-(a.handle + 2), True))
        else:
            # positive group; a non-zero uniform filter disables self-collision through the
            # importer's filter pairs (variant without self-collisions)
            plan.append((rank[a.group], not (uniform and fval != 0)))
    return plan


def build_model(sim: Sim) -> None:
    """Build the sim's Newton model, state, solver and device tables from its envs and actors
    (once, when the sim is first made ready) and attach them to it."""
    wp = _wp()
    newton = _newton()

    up = newton.Axis.Y if sim.params.up_axis == UpAxis.UP_AXIS_Y else newton.Axis.Z
    b = newton.ModelBuilder(up_axis=up)
    from .collision import contact_offset
    if contact_offset(sim) is not None:     # ground and terrain: PhysX's contact offset (collision.py)
        b.rigid_gap = contact_offset(sim)
    sim.attach(visuals=sim.wants_visuals())     # for good: every actor's variant, the renderers' warning
    actors = sim.all_actors()
    if any(a.asset.tendons is not None for a in actors):
        from .assets.importer import carry_tendons
        carry_tendons(b)
    n_act = len(actors)
    a_body0 = np.zeros(n_act, np.int64)
    a_joint0 = np.zeros(n_act, np.int64)
    a_shape0 = np.zeros(n_act, np.int64)
    a_qd0 = np.zeros(n_act, np.int64)
    a_q0 = np.zeros(n_act, np.int64)
    a_p0 = np.zeros(n_act, np.int64)      # first particle (soft bodies, core/deformables.py)
    k = 0
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    sim.attach(one_world=one_world(sim))
    counter = {"pos": 0, "neg": -1}     # (ground and static shapes use -1)
    if sim.one_world:
        b.begin_world(label="envs")
    for env in sim.envs:
        if not sim.one_world:
            b.begin_world(label=f"env_{env.index}")
        plan = _plan_collisions_shared(env, counter) if sim.one_world else _plan_collisions(env)
        env_shapes = []
        for a, (group, self_coll) in zip(env.actors, plan):
            sub = a.asset.builder(a.scale, self_coll)
            a_body0[k], a_joint0[k], a_shape0[k] = len(b.body_label), len(b.joint_type), len(b.shape_body)
            a_qd0[k], a_q0[k] = b.joint_dof_count, b.joint_coord_count
            a_p0[k] = len(b.particle_q)
            p = a.pose.p
            o = env.origin
            xf = wp.transform(wp.vec3(p.x + o[0], p.y + o[1], p.z + o[2]),
                              wp.quat(a.pose.r.x, a.pose.r.y, a.pose.r.z, a.pose.r.w))
            b.add_builder(sub, xform=xf)
            if len(b.particle_q) > a_p0[k]:      # (add_builder only translates particles)
                from .assets.soft import place_particles
                place_particles(b, int(a_p0[k]), xf)
            for s in range(int(a_shape0[k]), len(b.shape_body)):
                if b.shape_flags[s] & collide:
                    b.shape_collision_group[s] = group
            env_shapes.append((a, int(a_shape0[k])))
            k += 1
        _filter_pairs(b, env_shapes, plan)
        if not sim.one_world:
            b.end_world()
    if sim.one_world:
        b.end_world()
    static_seg = {}                     # Newton shape -> segmentation id (ground, terrain)
    for plane in sim.planes:
        cfg = newton.ModelBuilder.ShapeConfig(mu=float(plane.static_friction),
                                              restitution=float(plane.restitution), collision_group=-1)
        n = plane.normal
        s = b.add_shape_plane(plane=(n.x, n.y, n.z, float(plane.distance)), width=0.0, length=0.0,
                              cfg=cfg, label="ground_plane")
        static_seg[int(s)] = int(plane.segmentation_id)
    # on the MuJoCo C pipeline, meshes that are height maps become heightfields (core/terrain.py)
    from . import mjc, terrain
    c_path = sim.type == SimType.SIM_PHYSX and mjc.applies(sim.device)
    static_kinds = set()
    for add_static, budget in zip(sim.static_meshes, terrain.shares(sim.static_meshes)):
        s0 = len(b.shape_body)
        static_kinds.add(add_static(b, newton, c_path, budget))
        for s in range(s0, len(b.shape_body)):
            static_seg[s] = add_static.segmentation_id

    soft = len(b.particle_q) > 0
    if soft:
        b.color()                       # VBD solves particles in independent color groups
    try:
        model = b.finalize(device=sim.device)
    except Exception as e:  # Newton validation errors name Newton entities; add context
        raise GymlikeRuntimeError(f"prepare_sim: Newton could not build the model ({_asset_files(sim)}): "
                                  f"{type(e).__name__}: {e}") from e
    sim.attach(model=model)
    _make_tables(sim, actors, a_body0, a_joint0, a_shape0, a_qd0, a_q0)
    if sim.type == SimType.SIM_FLEX:           # (particle tables, empty without soft bodies)
        from . import deformables
        deformables.on_model(sim, actors, a_p0)
    sim.host.static_shape_seg = static_seg
    for hook in AFTER_MODEL:
        hook(sim)
    from . import props
    props.write_all(sim)
    from . import tendons
    tendons.write(sim, actors, finalize=True)
    sim.apply_gravity()
    # Newton's collision pipeline: for meshes (MuJoCo would collide with their convex hulls) and,
    # on MuJoCo-Warp, heightfields (its heightfield contacts are not reliable)
    newton_contacts = "mesh" in static_kinds or (bool(static_kinds) and not c_path)

    solver, pipeline, contacts = _make_solver(sim, newton_contacts)
    from . import backend
    sim.attach(solver=solver, backend=backend.make(sim, solver), pipeline=pipeline, contacts=contacts,
               step_kwargs={})
    from .forces import observables
    observables.watch_capacity(sim)
    _make_states(sim, actors)
    from . import drives
    drives.on_finalize(sim, actors)    # targets and efforts set before finalize
    sim.replay_deferred()              # state writes and body forces made before, in call order
    for a in actors:                   # (only now: a build that failed keeps them for the retry)
        a.pending_dof_state = a.pending_body_states = a.pending_efforts = None


def _filter_pairs(b, env_shapes, plan):
    """Explicit filter pairs for shapes whose Isaac Gym filters overlap ((fa & fb) != 0)
    across actors, and inside actors whose shapes carry different filters."""
    newton = _newton()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    entries = []   # (actor index in env, newton shape, filter)
    for (a, s0), _ in zip(env_shapes, plan):
        f = a.shape_props["filter"]
        if not f.any():
            continue
        for ig, ns in enumerate(a.asset.shape_newton):
            if f[ig]:
                entries.append((a.handle, s0 + int(ns), int(f[ig]), bool((f == f[0]).all())))
    for i in range(len(entries)):
        ai, si, fi, ui = entries[i]
        for j in range(i + 1, len(entries)):
            aj, sj, fj, _ = entries[j]
            if fi & fj and (ai != aj or not ui) and b.shape_flags[si] & collide and b.shape_flags[sj] & collide:
                b.add_shape_collision_filter_pair(si, sj)


def _make_tables(sim, actors, a_body0, a_joint0, a_shape0, a_qd0, a_q0):
    wp = _wp()
    model = sim.model
    h = HostTables()
    n_act = len(actors)
    h.actor_body0 = a_body0
    h.actor_nbody = np.array([a.asset.body_count for a in actors], np.int64)
    h.actor_joint0 = a_joint0                      # Newton joint index of the actor's root joint
    h.actor_qd0, h.actor_q0 = a_qd0, a_q0          # Newton DOF / coordinate start
    h.actor_nqd = np.array([a.asset._newton_dof_count for a in actors], np.int64)
    h.actor_nq = np.array([a.asset.newton_coord_count for a in actors], np.int64)
    h.actor_dof0 = np.zeros(n_act, np.int64)       # Isaac Gym DOMAIN_SIM DOF start
    h.actor_ndof = np.array([a.asset.dof_count for a in actors], np.int64)
    if n_act:
        h.actor_dof0[1:] = np.cumsum(h.actor_ndof)[:-1]
    h.actor_floating = np.array([a.asset.floating for a in actors], bool)
    h.any_fixed_root = not h.actor_floating.all()
    nd = int(h.actor_ndof.sum())
    h.dof_mode = np.zeros(nd, np.int32)             # DOF_MODE_NONE until props.write_dof_props writes modes
    h.dof_takes = {"pos_target": (np.zeros(nd, bool), 0), "vel_target": (np.zeros(nd, bool), 0)}
    h.actor_env = np.array([a.env.index for a in actors], np.int64)
    joint_art = model.joint_articulation.numpy()
    # (an actor without rigid bodies, a tet or cloth grid, has no articulation: -1)
    has_body = np.array([a.asset.body_count > 0 for a in actors], bool)
    h.actor_articulation = np.where(has_body, joint_art[np.minimum(a_joint0, max(len(joint_art) - 1, 0))]
                                    if len(joint_art) else -1, -1).astype(np.int64)
    h.actor_shape0 = a_shape0
    ntendon = np.array([a.asset.tendons.newton_count if a.asset.tendons else 0 for a in actors], np.int64)
    h.actor_tendon0 = np.concatenate([[0], np.cumsum(ntendon)[:-1]]).astype(np.int64)   # Newton tendon start
    num_dofs = int(h.actor_ndof.sum())
    h.dof_qd = (np.concatenate([a.asset.dof_qd + q for a, q in zip(actors, a_qd0)]) if num_dofs
                else np.zeros(0, np.int32))
    h.dof_q = np.concatenate([a.asset.dof_q + q for a, q in zip(actors, a_q0)]) if num_dofs else np.zeros(0, np.int32)
    h.dof_qd = h.dof_qd.astype(np.int32)
    h.dof_q = h.dof_q.astype(np.int32)
    h.dof_actor = np.repeat(np.arange(n_act), h.actor_ndof)
    h.shape_newton = np.concatenate([a.asset.shape_newton + s for a, s in zip(actors, a_shape0)]).astype(np.int32) \
        if any(a.asset.shape_count for a in actors) else np.zeros(0, np.int32)
    h.num_actors, h.num_dofs = n_act, num_dofs
    h.num_bodies = int(h.actor_nbody.sum())
    h.body_world = model.body_world.numpy()
    h.body_env = np.repeat(h.actor_env, h.actor_nbody).astype(np.int32)   # env of each body
    shape_body = model.shape_body.numpy()
    h.shape_env = np.where(shape_body >= 0, h.body_env[np.maximum(shape_body, 0)] if len(h.body_env) else -1,
                           -1).astype(np.int32)
    # Isaac Gym's positions are env-local: every position crossing the API is the Newton (world)
    # position minus the origin of the body's env (see python_bindings_docs/frames.md)
    h.body_origin = np.concatenate([np.repeat(a.env.origin[None].astype(np.float32), a.asset.body_count, 0)
                                    for a in actors]) if actors else np.zeros((0, 3), np.float32)
    if h.num_bodies != model.body_count:
        raise GymlikeRuntimeError(f"internal: {model.body_count} Newton bodies for {h.num_bodies} gymlike bodies")
    h.base_shape_color = model.shape_color.numpy().copy()    # what reset_actor_materials restores
    h.dof_velocity_limit = np.zeros(num_dofs, np.float32)
    h.dof_friction = np.zeros(num_dofs, np.float32)
    sim.attach(host=h)

    d = DeviceTables()
    dev = sim.device
    d.num_actors, d.num_dofs, d.num_bodies = n_act, num_dofs, h.num_bodies
    d.dof_qd = wp.array(h.dof_qd, dtype=wp.int32, device=dev)
    d.dof_q = wp.array(h.dof_q, dtype=wp.int32, device=dev)
    d.dof_mode = wp.zeros(num_dofs, dtype=wp.int32, device=dev)
    d.dof_stiffness = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_damping = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_effort_limit = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_effort_scale = wp.ones(num_dofs, dtype=wp.float32, device=dev)   # set by props.write_dof_props
    d.dof_effort = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.body_force = wp.zeros(h.num_bodies, dtype=wp.spatial_vector, device=dev)
    d.body_origin = wp.array(h.body_origin.reshape(-1, 3), dtype=wp.vec3, device=dev)
    d.body_env = wp.array(h.body_env, dtype=wp.int32, device=dev)
    d.no_gravity = wp.zeros(h.num_bodies, dtype=wp.int32, device=dev)
    d.lin_damp = wp.zeros(h.num_bodies, dtype=wp.float32, device=dev)
    d.ang_damp = wp.zeros(h.num_bodies, dtype=wp.float32, device=dev)
    d.nan_worlds = wp.zeros(max(1, len(sim.envs)), dtype=wp.int32, device=dev)
    d.nan_count = wp.zeros(1, dtype=wp.int32, device=dev)
    d.bad_input = wp.zeros(len(kernels.BAD_INPUT_KINDS), dtype=wp.int32, device=dev)   # flags per input kind
    d.efforts_pending = False
    d.forces_pending = False
    d.passive_forces = False
    d.dof_velocity_limit = wp.zeros(num_dofs, dtype=wp.float32, device=dev)  # <= 0: none
    d.velocity_clamp = False           # set by props.write_dof_props (SIM_PHYSX only)
    d.dof_friction = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.joint_friction = False           # set by props.write_dof_props (SIM_PHYSX only)
    sim.attach(dev=d)

    # body speed caps (AssetOptions.max_linear/angular_velocity)
    d.body_actor = wp.array(np.repeat(np.arange(n_act), h.actor_nbody).astype(np.int32), dtype=wp.int32, device=dev)
    caps = lambda name: np.concatenate(  # noqa: E731
        [np.full(a.asset.body_count, min(float(getattr(a.asset.options, name)), 1e30), np.float32)
         for a in actors] or [np.zeros(0, np.float32)])
    d.body_lin_cap = wp.array(caps("max_linear_velocity"), dtype=wp.float32, device=dev)
    d.body_ang_cap = wp.array(caps("max_angular_velocity"), dtype=wp.float32, device=dev)
    d.actor_speed_scale = wp.ones(max(1, n_act), dtype=wp.float32, device=dev)
    i32 = lambda a: wp.array(np.ascontiguousarray(a, np.int32), dtype=wp.int32, device=dev)  # noqa: E731
    d.actor_qd0, d.actor_nqd = i32(h.actor_qd0), i32(h.actor_nqd)
    d.actor_q0, d.actor_joint0 = i32(h.actor_q0), i32(h.actor_joint0)
    d.actor_body0 = i32(np.where(h.actor_nbody > 0, h.actor_body0, -1))   # -1: no rigid body (a tet/cloth grid)
    d.actor_floating, d.actor_articulation = i32(h.actor_floating), i32(h.actor_articulation)
    d.actor_env, d.actor_dof0, d.actor_ndof = i32(h.actor_env), i32(h.actor_dof0), i32(h.actor_ndof)
    d.actor_all = i32(np.arange(n_act))
    d.dof_identity = i32(np.arange(num_dofs))
    d.dof_env = i32(h.actor_env[h.dof_actor])
    d.speed_caps = sim.type == SimType.SIM_PHYSX
    # (AssetOptions documents the caps for both engines, where it marks gyroscopic forces and
    # V-HACD "PhysX only"; VBD's soft-body sims are left without)
    d.speed_caps_xpbd = bool(sim.type == SimType.SIM_FLEX and not model.particle_count)
    h.dof_axis_inertia = _dof_axis_inertia(model, h, actors)
    d.dof_axis_inertia = wp.array(h.dof_axis_inertia, dtype=wp.float32, device=dev)
    h.dof_pair_inertia = _dof_pair_inertia(model, h, actors) if sim.type == SimType.SIM_FLEX else h.dof_axis_inertia
    d.dof_pair_inertia = wp.array(h.dof_pair_inertia, dtype=wp.float32, device=dev)
    d.dof_explicit = wp.zeros(num_dofs, dtype=wp.int32, device=dev)     # set by props.write_drive_gains
    d.explicit_drives = False
    # SIM_FLEX on XPBD: joint forces as the articulations' response (dynamics.XpbdJointForces)
    d.xpbd_articulated = bool(sim.type == SimType.SIM_FLEX and not model.particle_count and model.articulation_count)
    d.effort_f = wp.zeros(max(1, model.joint_dof_count), dtype=wp.float32, device=dev)

    # per-body damping from AssetOptions (Isaac Gym applies them to every body of the asset)
    lin = np.concatenate([np.full(a.asset.body_count, a.asset.options.linear_damping, np.float32) for a in actors]
                         or [np.zeros(0, np.float32)])
    ang = np.concatenate([np.full(a.asset.body_count, a.asset.options.angular_damping, np.float32) for a in actors]
                         or [np.zeros(0, np.float32)])
    d.lin_damp.assign(lin)
    d.ang_damp.assign(ang)


def _dof_axis_inertia(model, h, actors):
    """Per DOF, a lower bound of the inertia the drive moves: the child body's moment about the
    joint axis (its mass, for a translation). Drives stiff for that inertia get PhysX's implicit
    damping (kernels.drive_gains)."""
    from .enums import DofType
    n = h.num_dofs
    if n == 0:
        return np.zeros(0, np.float32)
    qd = h.dof_qd.astype(np.int64)
    start = model.joint_qd_start.numpy()
    joint = np.searchsorted(start, qd, side="right") - 1
    child = model.joint_child.numpy()[joint]
    xc = model.joint_X_c.numpy()[joint].astype(np.float64)
    axis = model.joint_axis.numpy()[qd].astype(np.float64)
    a = math3d.quat_rotate(xc[:, 3:7], axis)        # the axis rotated into the child frame
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    mass = model.body_mass.numpy().astype(np.float64)[child]
    inertia = model.body_inertia.numpy().astype(np.float64).reshape(-1, 3, 3)[child]
    r = model.body_com.numpy().astype(np.float64)[child] - xc[:, 0:3]
    rot = np.einsum("ni,nij,nj->n", a, inertia, a) + mass * (np.cross(r, a) ** 2).sum(1)
    lin = np.concatenate([np.asarray(a_.asset.dof_types) == DofType.DOF_TRANSLATION for a_ in actors])
    return np.where(lin, mass, rot).astype(np.float32)


def _dof_pair_inertia(model, h, actors):
    """Per DOF, a lower bound of the inertia the drive's equal and opposite forces see on
    SIM_FLEX: the child's and the parent's moments about axes through their centres of mass in
    series, I_c I_p / (I_c + I_p) (masses for a translation). XPBD turns a joint torque into a
    spin about the body's centre of mass and leaves the hinge to its few constraint iterations,
    so a moment about the hinge over-states it (a cart-pole's pole, 4x). A parent welded to the
    world counts as immovable (build._welded_roots_kinematic). Drives whose stiffness is small
    for it are applied as forces (kernels.drive_gains)."""
    from .enums import DofType
    if h.num_dofs == 0:
        return np.zeros(0, np.float32)
    newton = _newton()
    qd = h.dof_qd.astype(np.int64)
    joint = np.searchsorted(model.joint_qd_start.numpy(), qd, side="right") - 1
    jt, jp, jc = model.joint_type.numpy(), model.joint_parent.numpy(), model.joint_child.numpy()
    welded = set(jc[(jt == int(newton.JointType.FIXED)) & (jp < 0)].tolist())
    mass = model.body_mass.numpy().astype(np.float64)
    inertia = model.body_inertia.numpy().astype(np.float64).reshape(-1, 3, 3)
    axis = model.joint_axis.numpy()[qd].astype(np.float64)

    def com_moment(body, frame):
        a = math3d.quat_rotate(frame[:, 3:7], axis)      # the axis in that body's frame
        a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
        return np.einsum("ni,nij,nj->n", a, inertia[body], a)

    lin = np.concatenate([np.asarray(a_.asset.dof_types) == DofType.DOF_TRANSLATION for a_ in actors])
    child, parent = jc[joint], jp[joint]
    p = np.maximum(parent, 0)
    child_i = np.where(lin, mass[child], com_moment(child, model.joint_X_c.numpy()[joint].astype(np.float64)))
    parent_i = np.where(lin, mass[p], com_moment(p, model.joint_X_p.numpy()[joint].astype(np.float64)))
    fixed = (parent < 0) | np.isin(parent, list(welded)) | (parent_i <= 0.0)
    pair = np.where(fixed, child_i, child_i * parent_i / np.maximum(child_i + parent_i, 1e-30))
    return pair.astype(np.float32)


def _make_solver(sim, newton_contacts):
    """-> (solver, collision pipeline or None, contacts or None)."""
    newton = _newton()
    model = sim.model
    if model.body_count == 0 and not model.particle_count:
        # nothing moves (envs without actors, e.g. a scene of cameras over the ground): MuJoCo
        # cannot convert a model without joints, XPBD steps it as the no-op it is
        return newton.solvers.SolverXPBD(model), None, None
    if sim.type == SimType.SIM_PHYSX:
        try:
            # gymlike-only extension: `sim.mujoco_options` (e.g. {"cone": "pyramidal"}), set before
            # prepare_sim, overrides solver options; gymlike.envs tasks set it from `sim.mujoco:`
            # impratio 10: MuJoCo's friction is a soft constraint that creeps under a steady
            # tangential load inside the friction cone, where PhysX's static friction holds (a
            # box at rest on a 40 degree incline at mu 1 slid 15 mm in 5 s; an ANYmal standing on
            # its PD targets splayed its feet and sank 0.2 m in 6 s). A friction-to-normal
            # impedance ratio of 10 cuts the creep 10x for ~10% more solver time (100, MuJoCo
            # Menagerie's value for legged robots: 25x for ~45%); sliding friction is unchanged.
            # Sims with static terrain keep MuJoCo's 1: a body that sinks deeper than half a
            # heightfield cell on impact gets sideways normals from the cell prisms, and stiffer
            # friction on those held dropped boxes inside the terrain (differences.md)
            from . import mjc
            _mujoco_warp()                          # (imported here with the collector paused)
            c_path = mjc.applies(sim.device)
            opts = dict(cone="elliptic", impratio=1.0 if sim.static_meshes else 10.0)
            if sim.one_world and not c_path and model.joint_dof_count > CG_DOFS:
                opts["solver"] = "cg"
            opts.update(sim.mujoco_options or {})
            arena = opts.pop("arena_kib", None)          # (MuJoCo C's arena: the C pipeline's option)
            opts.pop("rigid_contact_max", None)          # (Newton's collision pipeline: below)
            # a one world keeps its envs apart by collision groups: on MuJoCo C through MuJoCo's
            # masks and exclusions (Newton's conversion of the groups), on MuJoCo-Warp through
            # Newton's collision pipeline
            newton_contacts = newton_contacts or (sim.one_world and not c_path)
            kw = dict(separate_worlds=not sim.one_world, **{**_mujoco_capacity(sim, opts["cone"]), **opts})
            if sim.one_world and c_path and not newton_contacts:
                # MuJoCo-Warp's data (the C step's state conversions; its solver never runs) would
                # size its sparse constraint Jacobian by visiting every geom pair in Python: tens
                # of seconds for a one world. A row touches the DOFs of at most two actors.
                tree = max(a.asset._newton_dof_count for a in sim.all_actors())
                kw.setdefault("njmax_nnz", kw["njmax"] * max(1, min(model.joint_dof_count, 2 * tree)))
            mj_warnings = mjc.MuJoCoWarnings()          # (Newton's conversion runs MuJoCo C's forward)
            with warnings.catch_warnings(), mj_warnings:
                # MuJoCo-Warp's model upload warns of every geom of friction 0 (PhysX takes 0:
                # frictionless shapes) that it "may cause NaN"; its collision, MuJoCo C's and
                # Newton's conversion of contacts all floor friction at MJ_MINMU, so it cannot
                warnings.filterwarnings("ignore", message=r"geom \d+: friction\[\d\] .* < MJ_MINMU")
                if not newton_contacts and c_path:
                    # on the CPU: MuJoCo's C library steps the worlds
                    solver = mjc.SolverMuJoCoC(model, defer=sim.defer_state_sync, arena_kib=arena,
                                               mj_warnings=mj_warnings, **kw)
                else:
                    if arena is not None:
                        warn("prepare_sim: sim.mujoco_options['arena_kib'] sizes MuJoCo C's arena; this sim steps "
                             "on MuJoCo-Warp (its capacities follow the scene), so it has no effect", RuntimeWarning)
                    from .mjw import SolverMuJoCoWarp        # (Newton's, with PhysX's joint rows)
                    solver = SolverMuJoCoWarp(model, use_mujoco_contacts=not newton_contacts, **kw)
            if not newton_contacts:
                _analytic_box_box(solver)
        except Exception as e:   # MuJoCo's compiler: ValueError; its conversion: LinAlgError and others
            raise GymlikeRuntimeError(f"prepare_sim: Newton's MuJoCo solver refused the model "
                                      f"({_asset_files(sim)}): {type(e).__name__}: {e}") from e
        if not newton_contacts:
            return solver, None, None
    elif model.particle_count:
        from .deformables import make_solver      # soft bodies and cloth: SolverVBD (core/deformables.py)
        solver = make_solver(sim)
    else:
        fp = sim.params.flex
        _welded_roots_kinematic(model)
        solver = newton.solvers.SolverXPBD(model, iterations=max(2, int(fp.num_outer_iterations)),
                                           enable_restitution=True)
    cap = (sim.mujoco_options or {}).get("rigid_contact_max")
    pipeline = newton.CollisionPipeline(model, **({} if cap is None else dict(rigid_contact_max=int(cap))))
    return solver, pipeline, pipeline.contacts()


def _analytic_box_box(solver):
    """MuJoCo-Warp collides two boxes with its analytic box-box collider (MuJoCo C's, which the
    C pipeline steps with) instead of its default GJK/EPA, which drops the contact of two
    face-aligned boxes at some sub-millimetre overlaps (mujoco-warp 3.17: a 0.2 m box resting on
    another lost it in 5-10% of the frames and fell 117 mm into it before being thrown out;
    google-deepmind/mujoco_warp#1526, #1430). MuJoCo-Warp reads its NATIVECCD disable flag only
    for this choice, at each step. Set on MuJoCo-Warp's model only: in MuJoCo C (the CPU
    pipeline's template) the flag would send every other convex pair to libccd.
    tests/physics/test_box_stacks.py fails if an upgrade drops the analytic collider (upstream #869)."""
    import mujoco
    if getattr(solver, "mjw_model", None) is not None:
        solver.mjw_model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_NATIVECCD)


def _welded_roots_kinematic(model):
    """SIM_FLEX: root bodies welded to the world (fixed-base actors) become Newton kinematic
    bodies. XPBD otherwise keeps them dynamic, held only by a fixed-joint constraint: a base
    resting on the ground was pushed by the contact and pulled back by the joint every
    iteration (a Franka on the ground diverged within 5-25 frames, driven or not), and the
    reaction of every drive shook it. PhysX and FleX treat a fixed base as immovable."""
    newton = _newton()
    jt, jp, jc = model.joint_type.numpy(), model.joint_parent.numpy(), model.joint_child.numpy()
    roots = jc[(jt == int(newton.JointType.FIXED)) & (jp < 0) & (jc >= 0)]
    if len(roots):
        flags = model.body_flags.numpy()
        flags[roots] = int(newton.BodyFlags.KINEMATIC)
        model.body_flags.assign(flags)


def _asset_files(sim):
    """Which assets the model holds, for errors that name only Newton's labels."""
    files = sorted({a.asset.path or a.asset.kind for e in sim.envs for a in e.actors})
    return "assets: " + ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")


# One world holding every env's DOFs: above this many, MuJoCo's CG solver instead of its Newton
# solver, which factorizes a dense matrix of all of them (cubic in the envs). Both converge to
# the same constraint forces. Envs of quadrupeds and bipeds on the ground (bench_scaled_envs.py,
# 100 steps): Newton 1.5x faster at 384 DOFs, CG 2.2x faster at 768 and 8x at 1,536.
CG_DOFS = 512

PARTS_PER_BODY = 8     # shapes of one body that count towards the contact capacity (_mujoco_capacity)


def _mujoco_capacity(sim, cone="elliptic"):
    """Per-world contact and constraint capacity. MuJoCo-Warp's defaults overflow (and the state
    turns NaN) when a legged robot lies on the ground with all its shapes touching; size from
    the colliding shapes of one env instead: 16 contacts per shape (MuJoCo-Warp keeps contacts
    within the contact gap, Isaac Gym's contact offset: with Newton's 0.1 m a 0.1 m box resting
    on the ground had all 8 corners there and packed boxes 14 contacts each; Newton's pipeline
    also reports several per shape), constraint rows per contact (3 with elliptic cones, 4 with
    pyramidal ones, condim 3) plus limit and friction-loss rows per DOF. A body's shapes count
    at most PARTS_PER_BODY times: a convex decomposition touches with a few of its parts at a
    time, and MuJoCo-Warp's step time grows with its capacity (Trifinger, 768 convex parts on
    13 finger links: 301 ms of solver per step at 4 envs with room for 53,504 contacts, 107 ms
    with 2,000, for the ~60 contacts per env it makes). What still does not fit is reported
    (observables.check_capacity)."""
    def per_env(env):
        shapes = sum(int(np.minimum(a.asset.body_shape_count, PARTS_PER_BODY).sum()) for a in env.actors) \
            + len(sim.planes) + len(sim.static_meshes)
        dofs = sum(a.asset._newton_dof_count for a in env.actors)
        return max(48, 16 * shapes), dofs
    sizes = [per_env(e) for e in sim.envs] or [(48, 0)]
    if sim.one_world:      # one world holds every env: capacities add up
        nconmax, dofs = sum(c for c, _ in sizes), sum(d for _, d in sizes)
    else:
        nconmax, dofs = max(c for c, _ in sizes), max(d for _, d in sizes)
    rows = 3 if cone == "elliptic" else 4
    return dict(nconmax=nconmax, njmax=rows * nconmax + 2 * dofs + 8)


def _env_signature(env):
    """What must be equal for two envs to be worlds of one MuJoCo model: the structure of the
    actors' assets (Asset.structure: the same asset, or one of the same bodies, joints and
    shapes), and their collisions (the group plan and every shape's filter bits, which become
    the world's geom masks and exclusions). Scales and those assets' values may differ (domain
    randomization of scale, Isaac Gym's actor_scaling, an object of another size or mesh per
    env): Newton's MuJoCo solver gives each world its own geom sizes, body and joint frames,
    masses and inertias (core/mjw.fixed_child_frames and SolverMuJoCoC._reshaped_boxes
    complete it), and its own mesh assets (SolverMuJoCoC._meshes_without_hulls on MuJoCo C)."""
    return (tuple((a.asset.structure, tuple(int(f) for f in a.shape_props["filter"])) for a in env.actors),
            tuple(_plan_collisions(env)))


def _make_states(sim, actors):
    newton = _newton()
    model = sim.model
    h = sim.host
    pending = [(i, a.pending_dof_state) for i, a in enumerate(actors) if a.pending_dof_state is not None]
    if pending:
        jq = model.joint_q.numpy().copy()
        jqd = model.joint_qd.numpy().copy()
        for i, st in pending:
            s = slice(int(h.actor_dof0[i]), int(h.actor_dof0[i] + h.actor_ndof[i]))
            jq[h.dof_q[s]] = st["pos"]
            jqd[h.dof_qd[s]] = st["vel"]
        model.joint_q.assign(jq)
        model.joint_qd.assign(jqd)
    state, state_next = model.state(), model.state()
    newton.eval_fk(model, state.joint_q, state.joint_qd, state)
    state_next.assign(state)
    sim.attach(state=state, state_next=state_next, control=model.control(), check_nan=True)
