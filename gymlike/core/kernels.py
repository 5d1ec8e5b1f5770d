"""Warp kernels of the step path and of state writes. Each runs over all entities in one
launch: no Python loop over envs or actors."""

from typing import Any

import warp as wp

DOF_MODE_POS = wp.constant(1)
DOF_MODE_VEL = wp.constant(2)
DOF_MODE_EFFORT = wp.constant(3)


@wp.kernel
def drive_gains(mode: wp.array(dtype=wp.int32), stiffness: wp.array(dtype=wp.float32),
                damping: wp.array(dtype=wp.float32), dof_qd: wp.array(dtype=wp.int32), h: float,
                axis_inertia: wp.array(dtype=wp.float32), armature: wp.array(dtype=wp.float32),
                ke: wp.array(dtype=wp.float32), kd: wp.array(dtype=wp.float32)):
    """Isaac Gym drive modes as gains of Newton's PD drive:
    POS: ke*(q*-q) + kd*(qd*-qd); VEL: kd*(qd*-qd); NONE/EFFORT: no drive.
    h > 0 (MuJoCo, substep length h): PhysX drives are implicit, F = ke (q* - q_next) + ...
    = ke (q* - q) - (kd + h ke) v_next + kd v*, stable for any stiffness. MuJoCo's stiffness
    term is explicit (a stiff drive on a light link, h^2 ke > inertia, diverges in a few steps)
    and its damping implicit: such drives get kd + h ke. Others keep kd, because MuJoCo's
    implicit damping also slows a drive saturated at its effort limit, which PhysX's does not."""
    i = wp.tid()
    m = mode[i]
    d = dof_qd[i]
    k = float(0.0)
    c = float(0.0)
    if m == DOF_MODE_POS:
        k = stiffness[i]
        c = damping[i]
        if h * h * k > axis_inertia[i] + armature[d]:
            c = c + h * k
    elif m == DOF_MODE_VEL:
        c = damping[i]
    ke[d] = k
    kd[d] = c


@wp.kernel
def apply_dof_efforts(effort: wp.array(dtype=wp.float32), mode: wp.array(dtype=wp.int32),
                      limit: wp.array(dtype=wp.float32), scale: wp.array(dtype=wp.float32),
                      dof_qd: wp.array(dtype=wp.int32), joint_f: wp.array(dtype=wp.float32)):
    """Pending efforts act only on DOF_MODE_EFFORT DOFs, clamped to the DOF's effort limit, then
    scaled by `scale` (SIM_FLEX's stand-in for armature, see props.effort_scale)."""
    i = wp.tid()
    f = float(0.0)
    if mode[i] == DOF_MODE_EFFORT:
        f = wp.clamp(effort[i], -limit[i], limit[i]) * scale[i]
    joint_f[dof_qd[i]] = f


@wp.kernel
def body_wrenches(body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                  body_mass: wp.array(dtype=wp.float32), body_inertia: wp.array(dtype=wp.mat33),
                  body_world: wp.array(dtype=wp.int32), gravity: wp.array(dtype=wp.vec3),
                  user_f: wp.array(dtype=wp.spatial_vector), no_gravity: wp.array(dtype=wp.int32),
                  lin_damp: wp.array(dtype=wp.float32), ang_damp: wp.array(dtype=wp.float32),
                  h: float, body_f: wp.array(dtype=wp.spatial_vector)):
    """External wrench per body at its COM, world frame: user forces + gravity compensation
    (RIGID_BODY_DISABLE_GRAVITY) + Isaac Gym's linear/angular damping, written so that the
    damping equals the unconditionally stable velocity scaling v <- v / (1 + c h)."""
    b = wp.tid()
    uf = user_f[b]
    f = wp.spatial_top(uf)
    t = wp.spatial_bottom(uf)
    m = body_mass[b]
    if no_gravity[b] != 0:
        w = body_world[b]
        if w < 0:
            w = gravity.shape[0] - 1
        f = f - m * gravity[w]
    v = body_qd[b]
    cl = lin_damp[b]
    if cl > 0.0:
        f = f - (m * cl / (1.0 + cl * h)) * wp.spatial_top(v)
    ca = ang_damp[b]
    if ca > 0.0:
        R = wp.quat_to_matrix(wp.transform_get_rotation(body_q[b]))
        Iw = R * body_inertia[b] * wp.transpose(R)
        t = t - (ca / (1.0 + ca * h)) * (Iw * wp.spatial_bottom(v))
    body_f[b] = wp.spatial_vector(f, t)


# The divergence guard's bounds: finite states no Isaac Gym scene reaches and no later step
# recovers from (step.Stepper.check_nan names their envs; one reset recovers them).
DIVERGED_SPEED = wp.constant(1.0e5)       # m/s or rad/s, any body
DIVERGED_DISTANCE = wp.constant(1.0e6)    # m, any body position coordinate
DIVERGED_PAST_LIMIT = wp.constant(1000.0)  # rad or m beyond a DOF's limit (160 turns; MuJoCo's soft limits
#   let a humanoid's joint under full random efforts run 6 rad past its limit, a state it recovers from)


@wp.kernel
def find_nan_worlds(body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                    body_env: wp.array(dtype=wp.int32), bad: wp.array(dtype=wp.int32),
                    count: wp.array(dtype=wp.int32)):
    """Flag the env of every body whose state is NaN/inf or has diverged (a speed or position
    beyond DIVERGED_SPEED / DIVERGED_DISTANCE)."""
    b = wp.tid()
    X = body_q[b]
    v = body_qd[b]
    s = float(0.0)
    for k in range(7):
        s += X[k]
    for k in range(6):
        s += v[k]
    fast = float(0.0)
    for k in range(6):
        fast = wp.max(fast, wp.abs(v[k]))
    far = float(0.0)
    for k in range(3):
        far = wp.max(far, wp.abs(X[k]))
    if not wp.isfinite(s) or fast > DIVERGED_SPEED or far > DIVERGED_DISTANCE:
        w = body_env[b]
        if w >= 0:
            bad[w] = 1
        wp.atomic_add(count, 0, 1)


@wp.kernel
def find_dofs_past_limits(joint_q: wp.array(dtype=wp.float32), dof_q: wp.array(dtype=wp.int32),
                          dof_qd: wp.array(dtype=wp.int32), lower: wp.array(dtype=wp.float32),
                          upper: wp.array(dtype=wp.float32), dof_env: wp.array(dtype=wp.int32),
                          bad: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32)):
    """Flag the env of every DOF more than DIVERGED_PAST_LIMIT beyond its limits (DOFs without
    limits have +-props.OPEN_LIMIT)."""
    d = wp.tid()
    q = joint_q[dof_q[d]]
    j = dof_qd[d]
    if q < lower[j] - DIVERGED_PAST_LIMIT or q > upper[j] + DIVERGED_PAST_LIMIT:
        w = dof_env[d]
        if w >= 0:
            bad[w] = 1
        wp.atomic_add(count, 0, 1)


# Inputs no scene produces: NaN/inf, or beyond 1e15 in SI units (float32 keeps no precision
# there; MuJoCo silently drops such forces). Setters flag them; the NaN guard names them.
BAD_INPUT_LIMIT = wp.constant(1.0e15)
BAD_INPUT_KINDS = ("DOF position targets", "DOF velocity targets", "DOF actuation forces",
                   "rigid body forces, torques or force positions",
                   # (refused on the device, named at the next simulate where reading them at the
                   # setter would cost a device sync: tensors.TensorAPI.refuse_zero_quaternions)
                   "root or rigid body states (rows with a zero quaternion: that call wrote nothing)")
ZERO_QUATERNION_INPUT = 4


@wp.func
def bad_value(v: float):
    return not wp.isfinite(v) or wp.abs(v) > BAD_INPUT_LIMIT


@wp.func
def flag_bad_input(env: int, kind: int, env_flags: wp.array(dtype=wp.int32),
                   kind_counts: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32)):
    """Mark env `env` (and input kind `kind`) for the NaN guard's next read."""
    if env >= 0:
        env_flags[env] = 1
    wp.atomic_add(kind_counts, kind, 1)
    wp.atomic_add(count, 0, 1)


@wp.kernel
def scatter(src: wp.array(dtype=Any), idx: wp.array(dtype=wp.int32), dst: wp.array(dtype=Any)):
    """dst[idx[i]] = src[i] for any element type (float, vec3, mat33, transform...)."""
    i = wp.tid()
    dst[idx[i]] = src[i]


@wp.kernel
def gather(src: wp.array(dtype=Any), idx: wp.array(dtype=wp.int32), dst: wp.array(dtype=Any)):
    i = wp.tid()
    dst[i] = src[idx[i]]


@wp.kernel
def clamp_dof_velocities(dof_qd: wp.array(dtype=wp.int32), limit: wp.array(dtype=wp.float32),
                         joint_qd: wp.array(dtype=wp.float32), clamped: wp.array(dtype=wp.int32)):
    """Isaac Gym's DOF velocity limit after a MuJoCo substep (a limit <= 0 means none); sets
    clamped[0] when a velocity was actually cut, so the caller can skip the kinematics update."""
    i = wp.tid()
    v = limit[i]
    if v > 0.0:
        k = dof_qd[i]
        q = joint_qd[k]
        if q > v or q < -v:
            joint_qd[k] = wp.clamp(q, -v, v)
            clamped[0] = 1


@wp.kernel
def body_speed_scale(body_qd: wp.array(dtype=wp.spatial_vector), body_actor: wp.array(dtype=wp.int32),
                     lin_cap: wp.array(dtype=wp.float32), ang_cap: wp.array(dtype=wp.float32),
                     scale: wp.array(dtype=wp.float32)):
    """Per actor, the factor that brings its fastest body under AssetOptions.max_linear_velocity
    / max_angular_velocity (PhysX caps body speeds; MuJoCo has no such cap). scale starts at 1."""
    b = wp.tid()
    v = body_qd[b]
    s = float(1.0)
    w = wp.length(wp.spatial_bottom(v))
    u = wp.length(wp.spatial_top(v))
    if w > ang_cap[b]:
        s = ang_cap[b] / w
    if u > lin_cap[b]:
        s = wp.min(s, lin_cap[b] / u)
    if s < 1.0:
        wp.atomic_min(scale, body_actor[b], s)


@wp.kernel
def scale_actor_velocities(qd0: wp.array(dtype=wp.int32), nqd: wp.array(dtype=wp.int32),
                           scale: wp.array(dtype=wp.float32), joint_qd: wp.array(dtype=wp.float32),
                           clamped: wp.array(dtype=wp.int32)):
    """Scale all joint velocities of an actor (root included) by its speed-cap factor: the
    motion keeps its shape, its fastest body moves at the cap."""
    a = wp.tid()
    s = scale[a]
    if s < 1.0:
        for k in range(nqd[a]):
            joint_qd[qd0[a] + k] = joint_qd[qd0[a] + k] * s
        clamped[0] = 1


@wp.func
def user_wrench(f: wp.vec3, t: wp.vec3, p: wp.vec3, has_pos: int, space: int, X: wp.transform,
                com_local: wp.vec3, origin: wp.vec3):
    """A user force f (applied at p, or at the COM when has_pos is 0) and torque t as a wrench at
    the COM in world axes. space: 0 ENV (world axes, p relative to the env origin), 1 LOCAL
    (body frame), 2 GLOBAL (world axes and positions)."""
    R = wp.transform_get_rotation(X)
    if space == 1:
        f = wp.quat_rotate(R, f)
        t = wp.quat_rotate(R, t)
    if has_pos != 0:
        if space == 1:
            p = wp.transform_point(X, p)
        elif space == 0:
            p = p + origin
        t = t + wp.cross(p - wp.transform_point(X, com_local), f)
    return wp.spatial_vector(f, t)


@wp.kernel
def add_one_body_wrench(f: wp.vec3, t: wp.vec3, p: wp.vec3, has_pos: int, space: int, b: int,
                        origin: wp.vec3, body_q: wp.array(dtype=wp.transform),
                        body_com: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.spatial_vector)):
    """The handle API's apply_body_forces / apply_body_force_at_pos on one body."""
    out[b] = out[b] + user_wrench(f, t, p, has_pos, space, body_q[b], body_com[b], origin)


@wp.kernel
def write_dof_values(src: wp.array(dtype=wp.float32), src_local: int, ids: wp.array(dtype=wp.int32),
                     dof0: wp.array(dtype=wp.int32), ndof: wp.array(dtype=wp.int32),
                     dst_index: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.float32), accumulate: int,
                     actor_env: wp.array(dtype=wp.int32), kind: int, bad_env: wp.array(dtype=wp.int32),
                     bad_kind: wp.array(dtype=wp.int32), bad_count: wp.array(dtype=wp.int32)):
    """DOF targets and efforts of the listed actors, for both APIs (core/drives.py):
    dst[dst_index[d]] (+)= src[d] over each actor's DOFs d (DOMAIN_SIM rows; with src_local, src
    holds the one actor's values from 0). Non-finite or absurd values are flagged for the NaN
    guard."""
    i = wp.tid()
    a = ids[i]
    for k in range(ndof[a]):
        d = dof0[a] + k
        v = float(0.0)
        if src_local != 0:
            v = src[k]
        else:
            v = src[d]
        if bad_value(v):
            flag_bad_input(actor_env[a], kind, bad_env, bad_kind, bad_count)
        if accumulate != 0:
            dst[dst_index[d]] = dst[dst_index[d]] + v
        else:
            dst[dst_index[d]] = v
