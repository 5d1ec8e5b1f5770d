"""Finalize a Sim: recorded envs/actors -> one Newton world per env -> Model, index tables,
properties, solver and states. Runs once per sim."""

from __future__ import annotations

import numpy as np

from .enums import RIGID_BODY_DISABLE_GRAVITY, SimType, UpAxis
from .errors import GymlikeRuntimeError, GymlikeValueError
from .sim import _wp


class DeviceTables:
    """Per-sim Warp arrays on the sim device: index maps and per-entity gymlike state."""


class HostTables:
    """numpy copies of the index maps (for the handle API, never used in the step path)."""


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


def build_model(sim):
    wp = _wp()
    import newton

    up = newton.Axis.Y if sim.params.up_axis == UpAxis.UP_AXIS_Y else newton.Axis.Z
    b = newton.ModelBuilder(up_axis=up)
    actors = sim.all_actors()
    n_act = len(actors)
    a_body0 = np.zeros(n_act, np.int64)
    a_joint0 = np.zeros(n_act, np.int64)
    a_shape0 = np.zeros(n_act, np.int64)
    a_qd0 = np.zeros(n_act, np.int64)
    a_q0 = np.zeros(n_act, np.int64)
    k = 0
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    for env in sim.envs:
        b.begin_world(label=f"env_{env.index}")
        plan = _plan_collisions(env)
        env_shapes = []
        for a, (group, self_coll) in zip(env.actors, plan):
            sub = a.asset.builder(a.scale, self_coll)
            a_body0[k], a_joint0[k], a_shape0[k] = len(b.body_label), len(b.joint_type), len(b.shape_body)
            a_qd0[k], a_q0[k] = b.joint_dof_count, b.joint_coord_count
            p = a.pose.p
            o = env.origin
            xf = wp.transform(wp.vec3(p.x + o[0], p.y + o[1], p.z + o[2]),
                              wp.quat(a.pose.r.x, a.pose.r.y, a.pose.r.z, a.pose.r.w))
            b.add_builder(sub, xform=xf)
            for s in range(int(a_shape0[k]), len(b.shape_body)):
                if b.shape_flags[s] & collide:
                    b.shape_collision_group[s] = group
            env_shapes.append((a, int(a_shape0[k])))
            k += 1
        _filter_pairs(b, env_shapes, plan)
        b.end_world()
    for plane in sim.planes:
        cfg = newton.ModelBuilder.ShapeConfig(mu=float(plane.static_friction),
                                              restitution=float(plane.restitution), collision_group=-1)
        n = plane.normal
        b.add_shape_plane(plane=(n.x, n.y, n.z, float(plane.distance)), width=0.0, length=0.0,
                          cfg=cfg, label="ground_plane")
    for add_static in sim.static_meshes:
        add_static(b, newton)

    try:
        model = b.finalize(device=sim.device)
    except Exception as e:  # Newton validation errors name Newton entities; add context
        raise GymlikeRuntimeError(f"prepare_sim: Newton could not build the model: {e}") from e
    sim.model = model
    sim.builder_stats = dict(bodies=len(b.body_label), shapes=len(b.shape_body))
    _make_tables(sim, actors, a_body0, a_joint0, a_shape0, a_qd0, a_q0)
    from . import props
    props.write_all(sim)
    sim.apply_gravity()
    _make_solver(sim)
    _make_states(sim, actors)
    from . import control
    control.on_finalize(sim, actors)   # targets, efforts and forces set before finalize


def _filter_pairs(b, env_shapes, plan):
    """Explicit filter pairs for shapes whose Isaac Gym filters overlap ((fa & fb) != 0)
    across actors, and inside actors whose shapes carry different filters."""
    import newton
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
    h.actor_env = np.array([a.env.index for a in actors], np.int64)
    joint_art = model.joint_articulation.numpy()
    h.actor_articulation = joint_art[a_joint0].astype(np.int64)
    h.actor_shape0 = a_shape0
    num_dofs = int(h.actor_ndof.sum())
    h.dof_qd = np.concatenate([a.asset.dof_qd + q for a, q in zip(actors, a_qd0)]) if num_dofs else np.zeros(0, np.int32)
    h.dof_q = np.concatenate([a.asset.dof_q + q for a, q in zip(actors, a_q0)]) if num_dofs else np.zeros(0, np.int32)
    h.dof_qd = h.dof_qd.astype(np.int32)
    h.dof_q = h.dof_q.astype(np.int32)
    h.dof_actor = np.repeat(np.arange(n_act), h.actor_ndof)
    h.shape_newton = np.concatenate([a.asset.shape_newton + s for a, s in zip(actors, a_shape0)]).astype(np.int32) \
        if any(a.asset.shape_count for a in actors) else np.zeros(0, np.int32)
    h.num_actors, h.num_dofs = n_act, num_dofs
    h.num_bodies = int(h.actor_nbody.sum())
    h.body_world = model.body_world.numpy()
    if h.num_bodies != model.body_count:
        raise GymlikeRuntimeError(f"internal: {model.body_count} Newton bodies for {h.num_bodies} gymlike bodies")
    sim.host = h

    d = DeviceTables()
    dev = sim.device
    d.num_actors, d.num_dofs, d.num_bodies = n_act, num_dofs, h.num_bodies
    d.dof_qd = wp.array(h.dof_qd, dtype=wp.int32, device=dev)
    d.dof_q = wp.array(h.dof_q, dtype=wp.int32, device=dev)
    d.dof_mode = wp.zeros(num_dofs, dtype=wp.int32, device=dev)
    d.dof_stiffness = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_damping = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_effort_limit = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.dof_effort = wp.zeros(num_dofs, dtype=wp.float32, device=dev)
    d.body_force = wp.zeros(h.num_bodies, dtype=wp.spatial_vector, device=dev)
    d.no_gravity = wp.zeros(h.num_bodies, dtype=wp.int32, device=dev)
    d.lin_damp = wp.zeros(h.num_bodies, dtype=wp.float32, device=dev)
    d.ang_damp = wp.zeros(h.num_bodies, dtype=wp.float32, device=dev)
    d.nan_worlds = wp.zeros(max(1, len(sim.envs)), dtype=wp.int32, device=dev)
    d.nan_count = wp.zeros(1, dtype=wp.int32, device=dev)
    d.efforts_pending = False
    d.forces_pending = False
    d.passive_forces = False
    d.dof_velocity_limit = wp.zeros(num_dofs, dtype=wp.float32, device=dev)  # <= 0: none
    d.velocity_clamp = False           # set by props.write_dof_props (SIM_PHYSX only)
    sim.dev = d

    # per-body damping from AssetOptions (Isaac Gym applies them to every body of the asset)
    lin = np.concatenate([np.full(a.asset.body_count, a.asset.options.linear_damping, np.float32) for a in actors])
    ang = np.concatenate([np.full(a.asset.body_count, a.asset.options.angular_damping, np.float32) for a in actors])
    d.lin_damp.assign(lin)
    d.ang_damp.assign(ang)


def _make_solver(sim):
    import newton
    model = sim.model
    sim.pipeline = None
    sim.contacts = None
    sim.step_kwargs = {}
    if sim.type == SimType.SIM_PHYSX:
        # static triangle meshes / heightfields: MuJoCo would collide against a mesh's convex hull
        # (and MuJoCo-Warp's heightfield contacts are unreliable), so MuJoCo steps with contacts
        # from Newton's collision pipeline instead (core/terrain.py)
        newton_contacts = bool(sim.static_meshes)
        try:
            # gymlike-only extension: `sim.mujoco_options` (e.g. {"cone": "pyramidal"}), set before
            # prepare_sim, overrides solver options; gymlike.envs tasks set it from `sim.mujoco:`
            opts = dict(cone="elliptic")
            opts.update(getattr(sim, "mujoco_options", None) or {})
            sim.solver = newton.solvers.SolverMuJoCo(model, use_mujoco_contacts=not newton_contacts,
                                                     **{**_mujoco_capacity(sim, opts["cone"]), **opts})
            if newton_contacts:
                sim.pipeline = newton.CollisionPipeline(model)
                sim.contacts = sim.pipeline.contacts()
        except ValueError as e:
            msg = str(e)
            if "homogeneous" in msg or "Global world" in msg:
                sig0 = _env_signature(sim.envs[0])
                differ = [e_.index for e_ in sim.envs if _env_signature(e_) != sig0]
                shown = ", ".join(map(str, differ[:20])) + (" ..." if len(differ) > 20 else "")
                raise GymlikeValueError(
                    f"prepare_sim: SIM_PHYSX (Newton's MuJoCo solver) needs every env to hold the "
                    f"same actors (same assets in the same order); env(s) {shown} differ from "
                    f"env 0. Use SIM_FLEX (XPBD) for heterogeneous envs. Newton said: {msg}") from None
            raise
    else:
        fp = sim.params.flex
        sim.solver = newton.solvers.SolverXPBD(model, iterations=max(2, int(fp.num_outer_iterations)),
                                               enable_restitution=True)
        sim.pipeline = newton.CollisionPipeline(model)
        sim.contacts = sim.pipeline.contacts()


def _mujoco_capacity(sim, cone="elliptic"):
    """Per-world contact and constraint capacity. MuJoCo-Warp's defaults overflow (and the state
    turns NaN) when a legged robot lies on the ground with all its shapes touching; size from
    the colliding shapes of one env instead: a few contacts per shape, constraint rows per
    contact (3 with elliptic cones, 4 with pyramidal ones, condim 3) plus limit and friction-loss
    rows per DOF."""
    env = sim.envs[0]
    shapes = sum(a.asset.shape_count for a in env.actors) + len(sim.planes) + len(sim.static_meshes)
    dofs = sum(a.asset._newton_dof_count for a in env.actors)
    nconmax = max(48, 6 * shapes)
    if sim.static_meshes:   # Newton's pipeline reports several contacts per shape on a mesh/heightfield
        nconmax = max(nconmax, 16 * shapes)
    rows = 3 if cone == "elliptic" else 4
    return dict(nconmax=nconmax, njmax=rows * nconmax + 2 * dofs + 8)


def _env_signature(env):
    return tuple((a.asset.id, a.scale) for a in env.actors)


def _make_states(sim, actors):
    import newton
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
            actors[i].pending_dof_state = None
        model.joint_q.assign(jq)
        model.joint_qd.assign(jqd)
    sim.state = model.state()
    sim.state_next = model.state()
    sim.control = model.control()
    newton.eval_fk(model, sim.state.joint_q, sim.state.joint_qd, sim.state)
    sim.state_next.assign(sim.state)
    sim.joint_state_stale = False
    sim.check_nan = True
    for a in actors:
        ops, a.deferred, a.pending_body_states = a.deferred, [], None
        for fn in ops:
            fn()
