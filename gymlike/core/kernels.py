"""Warp kernels of the step path and of state writes. Each runs over all entities in one
launch: no Python loop over envs or actors."""

from typing import Any

import warp as wp

DOF_MODE_POS = wp.constant(1)
DOF_MODE_VEL = wp.constant(2)
DOF_MODE_EFFORT = wp.constant(3)


# SIM_FLEX drives (drive_gains): a drive stiffness is applied as a joint force when
# h^2 ke <= FLEX_EXPLICIT * inertia (build._dof_pair_inertia). Symplectic Euler would allow 4,
# but XPBD's constraint iterations amplify it: a cart-pole's pole diverged above 0.53 (2
# substeps of 1/120 s, tests/physics/test_flex_drives.py), so 0.4 keeps a margin; the
# damping of a drive left to XPBD's constraint is capped at FLEX_DAMPING_CAP * ke * h
FLEX_EXPLICIT = wp.constant(0.4)
FLEX_DAMPING_CAP = wp.constant(1.0)


@wp.kernel
def drive_gains(stiffness: wp.array(dtype=wp.float32),
                damping: wp.array(dtype=wp.float32), dof_qd: wp.array(dtype=wp.int32), h: float,
                axis_inertia: wp.array(dtype=wp.float32), armature: wp.array(dtype=wp.float32),
                flex_h: float, pair_inertia: wp.array(dtype=wp.float32),
                ke: wp.array(dtype=wp.float32), kd: wp.array(dtype=wp.float32),
                as_force: wp.array(dtype=wp.int32)):
    """Isaac Gym's DOF drive as gains of Newton's PD drive, ke*(q*-q) + kd*(qd*-qd) with the
    DOF's stiffness and damping in every drive mode: PhysX's joint drive acts whatever the mode
    (the mode decides which targets and efforts the DOF takes), so Isaac Gym's examples zero both
    gains for effort control and for free "ragdoll" joints, and an MJCF joint's stiffness and
    damping (which Isaac Gym reads as the DOF's) spring and damp it toward its targets (zero
    unless set) under DOF_MODE_EFFORT or DOF_MODE_NONE too.
    h > 0 (MuJoCo, substep length h): PhysX drives are implicit, F = ke (q* - q_next) + ...
    = ke (q* - q) - (kd + h ke) v_next + kd v*, stable for any stiffness. MuJoCo's stiffness
    term is explicit (a stiff drive on a light link, h^2 ke > inertia, diverges in a few steps)
    and its damping implicit: such drives get kd + h ke. Others keep kd, because MuJoCo's
    implicit damping also slows a drive saturated at its effort limit, which PhysX's does not.
    flex_h > 0 (XPBD, substep flex_h): XPBD solves a drive as a compliant constraint (compliance
    1/ke) whose correction is not accumulated over its few Jacobi iterations and is divided by
    1 + kd / (ke h), so it cannot hold a load: an arm at stiffness 400 on its own targets
    sagged under gravity by 0.5-1.6 rad whatever the stiffness, collapsed and diverged. Where
    the stiffness is stable as an explicit force (h^2 ke <= FLEX_EXPLICIT * pair_inertia, the
    child's and parent's moments about the axis in series) it becomes a joint force
    ke (q* - q) each substep (flex_dof_forces; as_force = 1), which holds a load exactly, and
    XPBD keeps the damping as its velocity drive (implicit, so stable for any damping, and
    without force at rest). A stiffer drive (a light link) stays XPBD's compliant drive with
    its damping capped at FLEX_DAMPING_CAP * ke h, where it halves the correction at most."""
    i = wp.tid()
    d = dof_qd[i]
    x = int(0)
    k = stiffness[i]
    c = damping[i]
    if h * h * k > axis_inertia[i] + armature[d]:
        c = c + h * k
    if flex_h > 0.0 and k > 0.0 and flex_h * flex_h * k <= FLEX_EXPLICIT * pair_inertia[i]:
        x = 1
        k = 0.0
    elif flex_h > 0.0 and k > 0.0:
        c = wp.min(c, FLEX_DAMPING_CAP * k * flex_h)
    ke[d] = k
    kd[d] = c
    as_force[i] = x


@wp.kernel
def flex_dof_forces(effort: wp.array(dtype=wp.float32), mode: wp.array(dtype=wp.int32),
                    limit: wp.array(dtype=wp.float32), scale: wp.array(dtype=wp.float32),
                    as_force: wp.array(dtype=wp.int32), stiffness: wp.array(dtype=wp.float32),
                    dof_q: wp.array(dtype=wp.int32), dof_qd: wp.array(dtype=wp.int32),
                    target_q: wp.array(dtype=wp.float32), joint_q: wp.array(dtype=wp.float32),
                    articulated: int, effort_f: wp.array(dtype=wp.float32), joint_f: wp.array(dtype=wp.float32)):
    """SIM_FLEX, each substep: a DOF's joint force = its pending effort (as apply_dof_efforts)
    + the stiffness part of an explicit drive (drive_gains, in any mode), ke (q* - q) clamped to the effort
    limit as PhysX clamps its drive; joint_q is the substep's (eval_ik of XPBD's bodies).
    articulated != 0 (XPBD): the efforts go to effort_f instead, which dynamics.XpbdJointForces
    applies as the articulation's response (armature included, so no scale)."""
    i = wp.tid()
    f = float(0.0)
    e = float(0.0)
    if mode[i] == DOF_MODE_EFFORT:
        e = wp.clamp(effort[i], -limit[i], limit[i])
        if articulated == 0:
            f = e * scale[i]
            e = 0.0
    if as_force[i] != 0:
        q = dof_q[i]
        f = f + wp.clamp(stiffness[i] * (target_q[q] - joint_q[q]), -limit[i], limit[i])
    joint_f[dof_qd[i]] = f
    if articulated != 0:
        effort_f[dof_qd[i]] = e


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



# MuJoCo joint types (mjtJoint) the row wrench kernel follows
MJ_FREE = wp.constant(0)
MJ_SLIDE = wp.constant(2)
MJ_HINGE = wp.constant(3)


@wp.func
def _mj_quat(q: wp.array2d(dtype=wp.float64), w: int, i: int) -> wp.quatd:
    """MuJoCo's (w, x, y, z) at q[w, i:i+4] as a Warp quaternion (x, y, z, w), normalised."""
    return wp.normalize(wp.quatd(q[w, i + 1], q[w, i + 2], q[w, i + 3], q[w, i]))


@wp.func
def _mj_quat4(q: wp.vec4d) -> wp.quatd:
    """A MuJoCo (w, x, y, z) quaternion as a Warp one (x, y, z, w)."""
    return wp.quatd(q[1], q[2], q[3], q[0])


@wp.struct
class RowModel:
    """What row_body_wrenches reads of MuJoCo: the rows (worlds, state values) with the offsets
    of qpos, qvel, xfrc_applied, mocap_pos and mocap_quat in them, the body tree and joints, the
    model arrays the batch steps ((1 or worlds, n): shared or per-world values; quaternions in
    MuJoCo's (w, x, y, z) order), the Newton body of each (world, MuJoCo body), and scratch
    (worlds, bodies): each body's frame origin, rotation, origin velocity, angular velocity."""
    rows: wp.array2d(dtype=wp.float64)
    qpos_at: int
    qvel_at: int
    xfrc_at: int
    mocap_pos_at: int
    mocap_quat_at: int
    parent: wp.array(dtype=wp.int32)
    mocap: wp.array(dtype=wp.int32)
    jnt_first: wp.array(dtype=wp.int32)
    jnt_count: wp.array(dtype=wp.int32)
    jnt_type: wp.array(dtype=wp.int32)
    jnt_qadr: wp.array(dtype=wp.int32)
    jnt_vadr: wp.array(dtype=wp.int32)
    jnt_pos: wp.array2d(dtype=wp.vec3d)
    jnt_axis: wp.array2d(dtype=wp.vec3d)
    qpos0: wp.array2d(dtype=wp.float64)
    body_pos: wp.array2d(dtype=wp.vec3d)
    body_quat: wp.array2d(dtype=wp.vec4d)
    body_ipos: wp.array2d(dtype=wp.vec3d)
    body_iquat: wp.array2d(dtype=wp.vec4d)
    body_mass: wp.array2d(dtype=wp.float64)
    body_inertia: wp.array2d(dtype=wp.vec3d)
    newton_body: wp.array2d(dtype=wp.int32)
    pos: wp.array2d(dtype=wp.vec3d)
    rot: wp.array2d(dtype=wp.quatd)
    lin: wp.array2d(dtype=wp.vec3d)
    ang: wp.array2d(dtype=wp.vec3d)


@wp.func
def _mj_body(M: RowModel, w: int, b: int):
    """MuJoCo's forward kinematics of body b in world w from the rows (its parent done): the
    frame origin, rotation, origin velocity and angular velocity, kept in M's scratch."""
    m = M.mocap[b]
    p = wp.vec3d()
    q = wp.quatd()
    v = wp.vec3d()
    om = wp.vec3d()
    if m >= 0:
        p = wp.vec3d(M.rows[w, M.mocap_pos_at + 3 * m], M.rows[w, M.mocap_pos_at + 3 * m + 1],
                     M.rows[w, M.mocap_pos_at + 3 * m + 2])
        q = _mj_quat(M.rows, w, M.mocap_quat_at + 4 * m)
    else:
        # (each model array holds one row of values, or one per world)
        w_pos = wp.min(w, M.body_pos.shape[0] - 1)
        w_quat = wp.min(w, M.body_quat.shape[0] - 1)
        jw = wp.min(w, M.jnt_pos.shape[0] - 1)
        kw = wp.min(w, M.jnt_axis.shape[0] - 1)
        qw = wp.min(w, M.qpos0.shape[0] - 1)
        a = M.parent[b]
        pa = M.pos[w, a]
        qa = M.rot[w, a]
        om = M.ang[w, a]
        p = pa + wp.quat_rotate(qa, M.body_pos[w_pos, b])
        q = qa * _mj_quat4(M.body_quat[w_quat, b])
        # the origin's velocity is v + om x (final origin): each rotation (the parent's, each
        # hinge's) acts about its own point, which v accumulates as -(spin x point)
        v = M.lin[w, a] - wp.cross(om, pa)
        for k in range(M.jnt_count[b]):
            j = M.jnt_first[b] + k
            t = M.jnt_type[j]
            qadr = M.qpos_at + M.jnt_qadr[j]
            va = M.qvel_at + M.jnt_vadr[j]
            if t == MJ_FREE:
                p = wp.vec3d(M.rows[w, qadr], M.rows[w, qadr + 1], M.rows[w, qadr + 2])
                q = _mj_quat(M.rows, w, qadr + 3)
                om = wp.quat_rotate(q, wp.vec3d(M.rows[w, va + 3], M.rows[w, va + 4], M.rows[w, va + 5]))
                v = wp.vec3d(M.rows[w, va], M.rows[w, va + 1], M.rows[w, va + 2]) - wp.cross(om, p)
            elif t == MJ_HINGE:
                anchor = p + wp.quat_rotate(q, M.jnt_pos[jw, j])
                axis = wp.quat_rotate(q, M.jnt_axis[kw, j])
                turn = M.rows[w, qadr] - M.qpos0[qw, M.jnt_qadr[j]]
                q = wp.normalize(q * wp.quat_from_axis_angle(M.jnt_axis[kw, j], turn))
                p = anchor - wp.quat_rotate(q, M.jnt_pos[jw, j])
                spin = axis * M.rows[w, va]
                om = om + spin
                v = v - wp.cross(spin, anchor)
            else:       # MJ_SLIDE (the host refuses other joint types)
                axis = wp.quat_rotate(q, M.jnt_axis[kw, j])
                p = p + axis * (M.rows[w, qadr] - M.qpos0[qw, M.jnt_qadr[j]])
                v = v + axis * M.rows[w, va]
        v = v + wp.cross(om, p)
    M.pos[w, b] = p
    M.rot[w, b] = q
    M.lin[w, b] = v
    M.ang[w, b] = om


@wp.func
def _mj_spin(M: RowModel, w: int, b: int):
    """_mj_body's rotation and angular velocity of body b alone (its parent's done), by the same
    operations: what the body wrenches read where no body has linear damping."""
    m = M.mocap[b]
    q = wp.quatd()
    om = wp.vec3d()
    if m >= 0:
        q = _mj_quat(M.rows, w, M.mocap_quat_at + 4 * m)
    else:
        w_quat = wp.min(w, M.body_quat.shape[0] - 1)
        kw = wp.min(w, M.jnt_axis.shape[0] - 1)
        qw = wp.min(w, M.qpos0.shape[0] - 1)
        a = M.parent[b]
        q = M.rot[w, a] * _mj_quat4(M.body_quat[w_quat, b])
        om = M.ang[w, a]
        for k in range(M.jnt_count[b]):
            j = M.jnt_first[b] + k
            t = M.jnt_type[j]
            qadr = M.qpos_at + M.jnt_qadr[j]
            va = M.qvel_at + M.jnt_vadr[j]
            if t == MJ_FREE:
                q = _mj_quat(M.rows, w, qadr + 3)
                om = wp.quat_rotate(q, wp.vec3d(M.rows[w, va + 3], M.rows[w, va + 4], M.rows[w, va + 5]))
            elif t == MJ_HINGE:
                axis = wp.quat_rotate(q, M.jnt_axis[kw, j])
                turn = M.rows[w, qadr] - M.qpos0[qw, M.jnt_qadr[j]]
                q = wp.normalize(q * wp.quat_from_axis_angle(M.jnt_axis[kw, j], turn))
                om = om + axis * M.rows[w, va]
    M.rot[w, b] = q
    M.ang[w, b] = om


@wp.func
def _mj_root(M: RowModel, w: int):
    M.pos[w, 0] = wp.vec3d()
    M.rot[w, 0] = wp.quatd(wp.float64(0.0), wp.float64(0.0), wp.float64(0.0), wp.float64(1.0))
    M.lin[w, 0] = wp.vec3d()
    M.ang[w, 0] = wp.vec3d()


@wp.kernel
def row_body_wrenches(M: RowModel, user_f: wp.array(dtype=wp.spatial_vector),
                      no_gravity: wp.array(dtype=wp.int32), lin_damp: wp.array(dtype=wp.float32),
                      ang_damp: wp.array(dtype=wp.float32), body_world: wp.array(dtype=wp.int32),
                      gravity: wp.array(dtype=wp.vec3), h: float, linear: int, w0: int):
    """body_wrenches computed on MuJoCo's rows (one thread per world): forward kinematics and
    body velocities of MuJoCo's qpos / qvel (_mj_body; rotations and angular velocities alone,
    _mj_spin, unless `linear`: some body has linear damping), then the same wrench (user force,
    gravity switch, damping in its stable form over h) at each body's COM, world frame, into
    xfrc_applied. `w0`: the first world (launch.Launcher's parts)."""
    w = wp.tid() + w0
    _mj_root(M, w)
    w_ipos = wp.min(w, M.body_ipos.shape[0] - 1)
    w_iquat = wp.min(w, M.body_iquat.shape[0] - 1)
    w_mass = wp.min(w, M.body_mass.shape[0] - 1)
    w_inertia = wp.min(w, M.body_inertia.shape[0] - 1)
    for b in range(1, M.parent.shape[0]):
        if linear != 0:
            _mj_body(M, w, b)
        else:
            _mj_spin(M, w, b)
        q = M.rot[w, b]
        v = M.lin[w, b]
        om = M.ang[w, b]
        f = wp.vec3d()
        tq = wp.vec3d()
        n = M.newton_body[w, b]
        if n >= 0:
            uf = user_f[n]
            f = wp.vec3d(wp.spatial_top(uf))
            tq = wp.vec3d(wp.spatial_bottom(uf))
            mass = M.body_mass[w_mass, b]
            if no_gravity[n] != 0:
                gw = body_world[n]
                if gw < 0:
                    gw = gravity.shape[0] - 1
                f = f - mass * wp.vec3d(gravity[gw])
            cl = wp.float64(lin_damp[n])
            if cl > wp.float64(0.0):
                vc = v + wp.cross(om, wp.quat_rotate(q, M.body_ipos[w_ipos, b]))
                f = f - (mass * cl / (wp.float64(1.0) + cl * wp.float64(h))) * vc
            ca = wp.float64(ang_damp[n])
            if ca > wp.float64(0.0):
                qi = q * _mj_quat4(M.body_iquat[w_iquat, b])
                local = wp.quat_rotate_inv(qi, om)
                iw = M.body_inertia[w_inertia, b]
                tq = tq - (ca / (wp.float64(1.0) + ca * wp.float64(h))) * wp.quat_rotate(
                    qi, wp.vec3d(iw[0] * local[0], iw[1] * local[1], iw[2] * local[2]))
        base = M.xfrc_at + 6 * b
        for c in range(3):
            M.rows[w, base + c] = f[c]
            M.rows[w, base + 3 + c] = tq[c]


@wp.kernel
def row_speed_caps(M: RowModel, worlds: wp.array(dtype=wp.int32), ang_cap: wp.array2d(dtype=wp.float64),
                   lin_cap: wp.array2d(dtype=wp.float64), body_actor: wp.array(dtype=wp.int32),
                   dof_actor: wp.array2d(dtype=wp.int32), scale: wp.array(dtype=wp.float64),
                   capped: wp.array(dtype=int)):
    """Isaac Gym's body speed caps (PhysX's max_angular/linear_velocity) on MuJoCo's rows of the
    worlds w with worlds[w] != 0: each body's exact angular and COM speed (from _mj_body),
    per actor the factor bringing its fastest body to its caps (body_speed_scale's), then the
    actor's qvel entries times it (dof_actor: the actor of each (world, MuJoCo DOF), -1 none;
    the velocities of an actor are linear in its joint velocities). capped[0] = 1 where any
    actor was scaled. `scale` (actors) is scratch, written by the thread of each actor's world."""
    w = wp.tid()
    if worlds[w] == 0:
        return
    for k in range(dof_actor.shape[1]):
        a = dof_actor[w, k]
        if a >= 0:
            scale[a] = wp.float64(1.0)
    _mj_root(M, w)
    w_ipos = wp.min(w, M.body_ipos.shape[0] - 1)
    cw = wp.min(w, ang_cap.shape[0] - 1)
    one = wp.float64(1.0)
    hit = int(0)
    for b in range(1, M.parent.shape[0]):
        _mj_body(M, w, b)
        om = M.ang[w, b]
        ws = wp.length(om)
        vs = wp.length(M.lin[w, b] + wp.cross(om, wp.quat_rotate(M.rot[w, b], M.body_ipos[w_ipos, b])))
        s = one
        if ws > ang_cap[cw, b]:
            s = ang_cap[cw, b] / ws
        if vs > lin_cap[cw, b]:
            s = wp.min(s, lin_cap[cw, b] / vs)
        n = M.newton_body[w, b]
        if s < one and n >= 0:
            a = body_actor[n]
            if a >= 0:
                scale[a] = wp.min(scale[a], s)
                hit = 1
    if hit != 0:
        for k in range(dof_actor.shape[1]):
            a = dof_actor[w, k]
            if a >= 0:
                if scale[a] < one:
                    M.rows[w, M.qvel_at + k] = M.rows[w, M.qvel_at + k] * scale[a]
        capped[0] = 1


@wp.kernel
def row_checks(rows: wp.array2d(dtype=wp.float64), qpos_at: int, qvel_at: int,
               q_lo: wp.array2d(dtype=wp.float64),
               q_hi: wp.array2d(dtype=wp.float64), parent: wp.array(dtype=wp.int32),
               dof_first: wp.array(dtype=wp.int32), dof_count: wp.array(dtype=wp.int32),
               angular: wp.array(dtype=wp.int32), dof_reach: wp.array2d(dtype=wp.float64),
               body_reach: wp.array2d(dtype=wp.float64), com_reach: wp.array2d(dtype=wp.float64),
               ang_cap: wp.array2d(dtype=wp.float64), lin_cap: wp.array2d(dtype=wp.float64),
               w_bound: wp.array2d(dtype=wp.float64), lin_sum: wp.array2d(dtype=wp.float64),
               lever_sum: wp.array2d(dtype=wp.float64), v_bound: wp.array2d(dtype=wp.float64),
               world_over: wp.array(dtype=wp.int32), flags: wp.array(dtype=wp.int32), w0: int):
    """One pass over each world's row after a step (one thread per world; tables of one row
    are shared by every world, else one row per world):
    - per MuJoCo body (parents first) a bound on its angular speed, w_bound = the sum of |qvel|
      of the angular DOFs from the root down to it, and on its COM speed, v_bound = the sum of
      the linear |qvel| + each angular |qvel| times the length of the chain from its joint's
      anchor to the COM (anchor offset + body offsets below + COM offset: longer than that
      distance in any configuration), summed down the tree (lin_sum, lever_sum);
    - flags[0] = 1 where a world is not provably sound for the divergence guard (a qpos outside
      [q_lo, q_hi], no such table, or a bound above DIVERGED_SPEED; NaN fails every
      comparison), flags[1] = 1 where a bound reaches a body's speed caps (world_over: which
      worlds). `w0`: the first world (launch.Launcher's parts)."""
    w = wp.tid() + w0
    sound = int(0)
    if q_lo.shape[0] > 0:
        sound = int(1)
        gw = wp.min(w, q_lo.shape[0] - 1)
        for k in range(q_lo.shape[1]):
            q = rows[w, qpos_at + k]
            if not (q >= q_lo[gw, k] and q <= q_hi[gw, k]):
                sound = 0
    over = int(0)
    dw = wp.min(w, dof_reach.shape[0] - 1)
    bw = wp.min(w, body_reach.shape[0] - 1)
    iw = wp.min(w, com_reach.shape[0] - 1)
    cw = wp.min(w, ang_cap.shape[0] - 1)
    zero = wp.float64(0.0)
    w_bound[w, 0] = zero
    lin_sum[w, 0] = zero
    lever_sum[w, 0] = zero
    v_bound[w, 0] = zero
    for b in range(1, parent.shape[0]):
        p = parent[b]
        s = w_bound[w, p]
        l = lin_sum[w, p]
        r = lever_sum[w, p] + s * body_reach[bw, b]      # (every joint above reaches b's origin)
        for k in range(dof_count[b]):
            d = dof_first[b] + k
            a = wp.abs(rows[w, qvel_at + d])
            if angular[d] != 0:
                s += a
                r += a * dof_reach[dw, d]
            else:
                l += a
        vb = l + r + s * com_reach[iw, b]
        w_bound[w, b] = s
        lin_sum[w, b] = l
        lever_sum[w, b] = r
        v_bound[w, b] = vb
        if not (s <= wp.float64(DIVERGED_SPEED) and vb <= wp.float64(DIVERGED_SPEED)):
            sound = 0
        if not (s <= ang_cap[cw, b] and vb <= lin_cap[cw, b]):
            over = 1
    world_over[w] = over
    if sound == 0:
        flags[0] = 1
    if over != 0:
        flags[1] = 1


@wp.kernel
def row_contact_wrenches(bodies: wp.array(dtype=wp.int32), body_rows: wp.array(dtype=wp.int32),
                         root_rows: wp.array(dtype=wp.int32), has_row: wp.array(dtype=wp.int32),
                         ext: wp.array2d(dtype=wp.float64), subtree_com: wp.array2d(dtype=wp.float64),
                         xipos: wp.array2d(dtype=wp.float64), xpos: wp.array2d(dtype=wp.float64),
                         xquat: wp.array2d(dtype=wp.float64), rows: wp.array2d(dtype=wp.float64),
                         xfrc_at: int, nbody: int, applied: int, force: wp.array(dtype=wp.vec3),
                         torque: wp.array(dtype=wp.vec3), pose: wp.array(dtype=wp.transform)):
    """The contact force and torque about the COM on each of the Newton `bodies` in MuJoCo's last
    substep, world frame: MuJoCo's external wrench of the body's row (`ext`: torque, force; the
    torque about the root's subtree COM) less the applied one (xfrc_applied in the state rows:
    force, torque at the COM) when `applied`, the torque moved to the COM: ext_t - app_t +
    (subtree COM - COM) x ext_f; `pose`: the body's pose in that substep (xpos, xquat), where
    the forces act. Bodies without a row (world -1) get zeros and the identity."""
    b = bodies[wp.tid()]
    if has_row[b] == 0:
        force[b] = wp.vec3()
        torque[b] = wp.vec3()
        pose[b] = wp.transform_identity()
        return
    r = body_rows[b]
    pose[b] = wp.transform(wp.vec3(float(xpos[r, 0]), float(xpos[r, 1]), float(xpos[r, 2])),
                           wp.quat(float(xquat[r, 1]), float(xquat[r, 2]), float(xquat[r, 3]), float(xquat[r, 0])))
    root = root_rows[b]
    f = wp.vec3d(ext[r, 3], ext[r, 4], ext[r, 5])
    lever = wp.vec3d(subtree_com[root, 0] - xipos[r, 0], subtree_com[root, 1] - xipos[r, 1],
                     subtree_com[root, 2] - xipos[r, 2])
    t = wp.vec3d(ext[r, 0], ext[r, 1], ext[r, 2]) + wp.cross(lever, f)
    if applied != 0:
        w = r // nbody
        base = xfrc_at + 6 * (r - w * nbody)
        f = f - wp.vec3d(rows[w, base], rows[w, base + 1], rows[w, base + 2])
        t = t - wp.vec3d(rows[w, base + 3], rows[w, base + 4], rows[w, base + 5])
    force[b] = wp.vec3(f)
    torque[b] = wp.vec3(t)


@wp.kernel
def row_dof_forces(row: wp.array(dtype=wp.int32), dof_body: wp.array(dtype=wp.int32), nv: int, nbody: int,
                   cdof: wp.array2d(dtype=wp.float64), cfrc_int: wp.array2d(dtype=wp.float64),
                   out: wp.array(dtype=wp.float32)):
    """The generalized force each DOF's joint transmits in MuJoCo's last substep (one thread per
    Isaac Gym DOF; row: its world * nv + MuJoCo DOF, -1 none): the interaction force of the
    DOF's body (cfrc_int) projected on its motion axis (cdof), both in MuJoCo's COM frame."""
    d = wp.tid()
    r = row[d]
    if r < 0:
        out[d] = 0.0
        return
    w = r // nv
    b = w * nbody + dof_body[r - w * nv]
    tau = wp.float64(0.0)
    for k in range(6):
        tau += cdof[r, k] * cfrc_int[b, k]
    out[d] = wp.float32(tau)


@wp.kernel
def row_efforts(effort: wp.array(dtype=wp.float32), limit: wp.array(dtype=wp.float32),
                scale: wp.array(dtype=wp.float32), world: wp.array(dtype=wp.int32),
                col: wp.array(dtype=wp.int32), rows: wp.array2d(dtype=wp.float64)):
    """Isaac Gym's pending DOF efforts (one thread per DOF) into MuJoCo's qfrc_applied rows as
    apply_dof_efforts and Newton's conversion give them for hinge and slide DOFs: clamped to
    the effort limit, times the scale (0 for DOFs not in effort mode), in float32; the effort is
    consumed (zeroed: efforts last one simulate)."""
    d = wp.tid()
    f = wp.clamp(effort[d], -limit[d], limit[d]) * scale[d]
    rows[world[d], col[d]] = wp.float64(f)
    effort[d] = 0.0


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
    / max_angular_velocity (Isaac Gym caps body speeds on both engines; MuJoCo and XPBD have no
    such cap). scale starts at 1."""
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
def scale_actor_bodies(body_actor: wp.array(dtype=wp.int32), scale: wp.array(dtype=wp.float32),
                       body_qd: wp.array(dtype=wp.spatial_vector)):
    """body_speed_scale's factor where body velocities are the state (XPBD, SIM_FLEX): every body
    of a capped actor scaled alike, so its joints' relative motion keeps its shape."""
    b = wp.tid()
    s = scale[body_actor[b]]
    if s < 1.0:
        body_qd[b] = body_qd[b] * s


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


@wp.func
def target_taken(kind: int, m: int) -> bool:
    """Whether a DOF in drive mode m takes a value of `kind` (drives.KINDS: 0 position target,
    1 velocity target, 2 effort). Isaac Gym applies a target only to the DOFs whose mode uses it
    (a position target to DOF_MODE_POS, a velocity target to DOF_MODE_VEL, and gymlike's POS
    law ke (q* - q) + kd (qd* - qd) takes both); the others keep the drive target they had (zero
    unless set), which their stiffness and damping still act toward (drive_gains)."""
    if kind == 0:
        return m == DOF_MODE_POS
    if kind == 1:
        return m == DOF_MODE_POS or m == DOF_MODE_VEL
    return True


@wp.kernel
def write_dof_values(src: wp.array(dtype=wp.float32), src_local: int, ids: wp.array(dtype=wp.int32),
                     dof0: wp.array(dtype=wp.int32), ndof: wp.array(dtype=wp.int32),
                     dst_index: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.float32), accumulate: int,
                     actor_env: wp.array(dtype=wp.int32), kind: int, bad_env: wp.array(dtype=wp.int32),
                     bad_kind: wp.array(dtype=wp.int32), bad_count: wp.array(dtype=wp.int32),
                     mode: wp.array(dtype=wp.int32)):
    """DOF targets and efforts of the listed actors, for both APIs (core/drives.py):
    dst[dst_index[d]] (+)= src[d] over each actor's DOFs d (DOMAIN_SIM rows; with src_local, src
    holds the one actor's values from 0). A target reaches only the DOFs whose mode takes it
    (target_taken); non-finite or absurd values are flagged for the NaN guard."""
    i = wp.tid()
    a = ids[i]
    for k in range(ndof[a]):
        d = dof0[a] + k
        if not target_taken(kind, mode[d]):
            continue
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
