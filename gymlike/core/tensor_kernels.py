"""Warp kernels of the tensor API: the gathers behind the refresh calls and the scatters behind
the setters (one launch each over all rows). Apart from tensors.py so that importing gymapi does
not load Warp."""

import warp as wp

from . import kernels


@wp.kernel
def gather_roots(body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                  root_body: wp.array(dtype=wp.int32), body_origin: wp.array(dtype=wp.vec3),
                  out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    b = root_body[i]
    if b < 0:        # an actor without rigid bodies (a tet or cloth grid): origin, identity, at rest
        for k in range(13):
            out[i, k] = 0.0
        out[i, 6] = 1.0
        return
    X = body_q[b]
    v = body_qd[b]
    o = body_origin[b]
    for k in range(3):
        out[i, k] = X[k] - o[k]
    for k in range(3, 7):
        out[i, k] = X[k]
    for k in range(6):
        out[i, 7 + k] = v[k]


@wp.kernel
def gather_bodies(body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                   body_origin: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=wp.float32)):
    b = wp.tid()
    X = body_q[b]
    v = body_qd[b]
    o = body_origin[b]
    for k in range(3):
        out[b, k] = X[k] - o[k]
    for k in range(3, 7):
        out[b, k] = X[k]
    for k in range(6):
        out[b, 7 + k] = v[k]


@wp.kernel
def gather_dofs(joint_q: wp.array(dtype=wp.float32), joint_qd: wp.array(dtype=wp.float32),
                 dof_q: wp.array(dtype=wp.int32), dof_qd: wp.array(dtype=wp.int32),
                 out: wp.array2d(dtype=wp.float32)):
    d = wp.tid()
    out[d, 0] = joint_q[dof_q[d]]
    out[d, 1] = joint_qd[dof_qd[d]]


# `refused[0]` of the state setters: NO_ROW, or the first listed row whose quaternion is zero
# (find_zero_quaternions); the scatters then write no state at all, so a refused call changes
# nothing on any device without the host reading the flag first.
NO_ROW = wp.constant(2147483647)
ZERO_QUAT_NORM2 = wp.constant(1.0e-12)      # (state.ZERO_QUAT_NORM squared)


@wp.kernel
def find_zero_quaternions(src: wp.array2d(dtype=wp.float32), ids: wp.array(dtype=wp.int32), indexed: int,
                          row_env: wp.array(dtype=wp.int32), report: int, refused: wp.array(dtype=wp.int32),
                          bad_env: wp.array(dtype=wp.int32), bad_kind: wp.array(dtype=wp.int32),
                          bad_count: wp.array(dtype=wp.int32)):
    """Rows written (ids[i], or i) whose rotation (columns 3:7) is a zero quaternion: the
    smallest such i goes to refused[0]; with `report`, their envs are flagged for the NaN guard."""
    i = wp.tid()
    r = i
    if indexed != 0:
        r = ids[i]
    q = wp.quat(src[r, 3], src[r, 4], src[r, 5], src[r, 6])
    if wp.dot(q, q) < ZERO_QUAT_NORM2:
        wp.atomic_min(refused, 0, i)
        if report != 0:
            kernels.flag_bad_input(row_env[r], kernels.ZERO_QUATERNION_INPUT, bad_env, bad_kind, bad_count)


@wp.kernel
def scatter_roots(src: wp.array2d(dtype=wp.float32), ids: wp.array(dtype=wp.int32),
                   floating: wp.array(dtype=wp.int32), root_q0: wp.array(dtype=wp.int32),
                   root_qd0: wp.array(dtype=wp.int32), root_joint: wp.array(dtype=wp.int32),
                   actor_art: wp.array(dtype=wp.int32), joint_X_c: wp.array(dtype=wp.transform),
                   root_body: wp.array(dtype=wp.int32), body_origin: wp.array(dtype=wp.vec3),
                   joint_q: wp.array(dtype=wp.float32), joint_qd: wp.array(dtype=wp.float32),
                   joint_X_p: wp.array(dtype=wp.transform), arts: wp.array(dtype=wp.int32),
                   refused: wp.array(dtype=wp.int32)):
    """Root state rows (env frame) -> free-joint coordinates (floating actors) or the root
    joint's parent transform (fixed-base actors: the base is welded where the row puts it)."""
    i = wp.tid()
    a = ids[i]
    arts[i] = actor_art[a]
    if root_body[a] < 0:     # an actor without rigid bodies (a tet or cloth grid): nothing to write
        return
    if refused[0] != NO_ROW:
        return
    p = wp.vec3(src[a, 0], src[a, 1], src[a, 2]) + body_origin[root_body[a]]
    r = wp.normalize(wp.quat(src[a, 3], src[a, 4], src[a, 5], src[a, 6]))
    if floating[a] != 0:
        q0 = root_q0[a]
        for k in range(3):
            joint_q[q0 + k] = p[k]
        for k in range(4):
            joint_q[q0 + 3 + k] = r[k]
        qd0 = root_qd0[a]
        for k in range(6):
            joint_qd[qd0 + k] = src[a, 7 + k]
    else:
        j = root_joint[a]
        joint_X_p[j] = wp.transform_multiply(wp.transform(p, r), joint_X_c[j])


@wp.func
def _put_state(out: wp.array2d(dtype=wp.float32), i: int, p: wp.vec3d, q: wp.quatd, v: wp.vec3d, om: wp.vec3d,
               origin: wp.vec3):
    """Row i of a root or rigid body state tensor (float32): position relative to the env
    origin, rotation (x, y, z, w), linear and angular velocity."""
    for k in range(3):
        out[i, k] = wp.float32(p[k] - wp.float64(origin[k]))
        out[i, 7 + k] = wp.float32(v[k])
        out[i, 10 + k] = wp.float32(om[k])
    for k in range(4):
        out[i, 3 + k] = wp.float32(q[k])


@wp.kernel
def row_roots(rows: wp.array2d(dtype=wp.float64), qpos_at: int, qvel_at: int,
              body_ipos: wp.array2d(dtype=wp.vec3d), world: wp.array(dtype=wp.int32), qadr: wp.array(dtype=wp.int32),
              vadr: wp.array(dtype=wp.int32), mj_body: wp.array(dtype=wp.int32),
              root_body: wp.array(dtype=wp.int32), body_origin: wp.array(dtype=wp.vec3), M: kernels.RowModel,
              out: wp.array2d(dtype=wp.float32)):
    """gather_roots from MuJoCo's rows, for actors whose root is a MuJoCo free joint (world,
    qpos and qvel address, MuJoCo body of each) or, qadr -1, a body welded to the world (a
    fixed base: MuJoCo's mocap pose or the model's, at rest). MuJoCo's free joint holds the
    body origin's pose (w, x, y, z) and velocity, world frame, and the angular velocity in the
    body frame; Isaac Gym's root state has the COM's velocity and the angular velocity in
    world axes."""
    a = wp.tid()
    w = world[a]
    q = wp.quatd()
    p = wp.vec3d()
    v = wp.vec3d()
    om = wp.vec3d()
    if qadr[a] < 0:
        kernels._mj_root(M, w)
        kernels._mj_body(M, w, mj_body[a])
        q = M.rot[w, mj_body[a]]
        p = M.pos[w, mj_body[a]]
    else:
        qa = qpos_at + qadr[a]
        va = qvel_at + vadr[a]
        q = kernels._mj_quat(rows, w, qa + 3)
        p = wp.vec3d(rows[w, qa], rows[w, qa + 1], rows[w, qa + 2])
        om = wp.quat_rotate(q, wp.vec3d(rows[w, va + 3], rows[w, va + 4], rows[w, va + 5]))
        ipos = body_ipos[wp.min(w, body_ipos.shape[0] - 1), mj_body[a]]
        v = wp.vec3d(rows[w, va], rows[w, va + 1], rows[w, va + 2]) + wp.cross(om, wp.quat_rotate(q, ipos))
    _put_state(out, a, p, q, v, om, body_origin[root_body[a]])


@wp.kernel
def row_bodies(M: kernels.RowModel, body_origin: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=wp.float32),
               w0: int):
    """gather_bodies from MuJoCo's rows (one thread per world): forward kinematics of the
    world's bodies (kernels._mj_body), each into the row of its Newton body: the frame origin,
    rotation, the COM's velocity and the angular velocity, world axes. `w0`: the first world."""
    w = wp.tid() + w0
    kernels._mj_root(M, w)
    w_ipos = wp.min(w, M.body_ipos.shape[0] - 1)
    for b in range(1, M.parent.shape[0]):
        kernels._mj_body(M, w, b)
        n = M.newton_body[w, b]
        if n >= 0:
            p = M.pos[w, b]
            q = M.rot[w, b]
            om = M.ang[w, b]
            v = M.lin[w, b] + wp.cross(om, wp.quat_rotate(q, M.body_ipos[w_ipos, b]))
            _put_state(out, n, p, q, v, om, body_origin[n])


@wp.kernel
def scatter_roots_on_rows(src: wp.array2d(dtype=wp.float32), ids: wp.array(dtype=wp.int32),
                          n: wp.array(dtype=wp.int32), rows: wp.array2d(dtype=wp.float64), qpos_at: int, qvel_at: int,
                          body_ipos: wp.array2d(dtype=wp.vec3d), world: wp.array(dtype=wp.int32),
                          qadr: wp.array(dtype=wp.int32),
                          vadr: wp.array(dtype=wp.int32), mj_body: wp.array(dtype=wp.int32),
                          root_body: wp.array(dtype=wp.int32), body_origin: wp.array(dtype=wp.vec3),
                          forget_at: wp.array(dtype=wp.int32), forget_n: wp.array(dtype=wp.int32),
                          refused: wp.array(dtype=wp.int32)):
    """scatter_roots into MuJoCo's rows (row_roots' inverse) for the actors ids[:n[0]], whose
    roots are MuJoCo free joints; the written worlds forget what they carried (row ranges
    forget_at[k] .. + forget_n[k]: warm start, activations). One thread (a reset lists a few
    actors): first find_zero_quaternions (refused[0]: the first listed row with a zero
    quaternion; then nothing is written), then the writes. (The count in an array: the
    arguments stay the same from call to call, so the launch replays as a graph.)"""
    for i in range(n[0]):
        a = ids[i]
        q = wp.quat(src[a, 3], src[a, 4], src[a, 5], src[a, 6])
        if wp.dot(q, q) < ZERO_QUAT_NORM2:
            refused[0] = i
            return
    for i in range(n[0]):
        a = ids[i]
        if qadr[a] < 0:      # (a fixed base: MuJoCoRows.write_roots writes those through Newton)
            continue
        w = world[a]
        qa = qpos_at + qadr[a]
        va = qvel_at + vadr[a]
        o = body_origin[root_body[a]]
        r = wp.normalize(wp.quatd(wp.float64(src[a, 3]), wp.float64(src[a, 4]), wp.float64(src[a, 5]),
                                  wp.float64(src[a, 6])))
        om = wp.vec3d(wp.float64(src[a, 10]), wp.float64(src[a, 11]), wp.float64(src[a, 12]))
        ipos = body_ipos[wp.min(w, body_ipos.shape[0] - 1), mj_body[a]]
        v = wp.vec3d(wp.float64(src[a, 7]), wp.float64(src[a, 8]), wp.float64(src[a, 9])) - wp.cross(
            om, wp.quat_rotate(r, ipos))
        local = wp.quat_rotate_inv(r, om)
        for k in range(3):
            rows[w, qa + k] = wp.float64(src[a, k]) + wp.float64(o[k])
            rows[w, va + k] = v[k]
            rows[w, va + 3 + k] = local[k]
        rows[w, qa + 3] = r[3]
        for k in range(3):
            rows[w, qa + 4 + k] = r[k]
        for f in range(forget_at.shape[0]):
            for j in range(forget_n[f]):
                rows[w, forget_at[f] + j] = wp.float64(0.0)


@wp.kernel
def row_dofs(rows: wp.array2d(dtype=wp.float64), qpos_at: int, qvel_at: int, world: wp.array(dtype=wp.int32),
             qcol: wp.array(dtype=wp.int32), vcol: wp.array(dtype=wp.int32), out: wp.array2d(dtype=wp.float32)):
    """gather_dofs from MuJoCo's rows: DOF d is qpos / qvel column qcol[d] / vcol[d] of world
    world[d] (mjc.DofCells)."""
    d = wp.tid()
    w = world[d]
    out[d, 0] = wp.float32(rows[w, qpos_at + qcol[d]])
    out[d, 1] = wp.float32(rows[w, qvel_at + vcol[d]])


@wp.kernel
def scatter_dofs_on_rows(src: wp.array2d(dtype=wp.float32), ids: wp.array(dtype=wp.int32),
                         n: wp.array(dtype=wp.int32), dof0: wp.array(dtype=wp.int32), ndof: wp.array(dtype=wp.int32),
                         world: wp.array(dtype=wp.int32), qcol: wp.array(dtype=wp.int32),
                         vcol: wp.array(dtype=wp.int32), rows: wp.array2d(dtype=wp.float64), qpos_at: int,
                         qvel_at: int, forget_at: wp.array(dtype=wp.int32), forget_n: wp.array(dtype=wp.int32)):
    """scatter_actor_dofs into MuJoCo's rows for the actors ids[:n[0]] (one thread: a reset lists
    a few actors; the count in an array, as in scatter_roots_on_rows): each DOF's position and
    velocity, and the written worlds forget what they carried (the row ranges forget_at[k] ..
    + forget_n[k]: warm start, activations)."""
    for i in range(n[0]):
        a = ids[i]
        for k in range(ndof[a]):
            d = dof0[a] + k
            w = world[d]
            rows[w, qpos_at + qcol[d]] = wp.float64(src[d, 0])
            rows[w, qvel_at + vcol[d]] = wp.float64(src[d, 1])
            if k == 0:
                for f in range(forget_at.shape[0]):
                    for j in range(forget_n[f]):
                        rows[w, forget_at[f] + j] = wp.float64(0.0)


@wp.kernel
def scatter_actor_dofs(src: wp.array2d(dtype=wp.float32), ids: wp.array(dtype=wp.int32),
                        dof0: wp.array(dtype=wp.int32), ndof: wp.array(dtype=wp.int32),
                        dof_q: wp.array(dtype=wp.int32), dof_qd: wp.array(dtype=wp.int32),
                        actor_art: wp.array(dtype=wp.int32), joint_q: wp.array(dtype=wp.float32),
                        joint_qd: wp.array(dtype=wp.float32), arts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a = ids[i]
    for k in range(ndof[a]):
        d = dof0[a] + k
        joint_q[dof_q[d]] = src[d, 0]
        joint_qd[dof_qd[d]] = src[d, 1]
    arts[i] = actor_art[a]


@wp.kernel
def scatter_bodies(src: wp.array2d(dtype=wp.float32), body_origin: wp.array(dtype=wp.vec3),
                    body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                    refused: wp.array(dtype=wp.int32)):
    b = wp.tid()
    if refused[0] != NO_ROW:
        return
    body_q[b] = wp.transform(wp.vec3(src[b, 0], src[b, 1], src[b, 2]) + body_origin[b],
                             wp.normalize(wp.quat(src[b, 3], src[b, 4], src[b, 5], src[b, 6])))
    body_qd[b] = wp.spatial_vector(src[b, 7], src[b, 8], src[b, 9], src[b, 10], src[b, 11], src[b, 12])


@wp.kernel
def add_body_wrenches(force: wp.array2d(dtype=wp.float32), torque: wp.array2d(dtype=wp.float32),
                       pos: wp.array2d(dtype=wp.float32), has_force: int, has_torque: int,
                       has_pos: int, space: int, body_q: wp.array(dtype=wp.transform),
                       body_com: wp.array(dtype=wp.vec3), body_origin: wp.array(dtype=wp.vec3),
                       out: wp.array(dtype=wp.spatial_vector), body_env: wp.array(dtype=wp.int32),
                       bad_env: wp.array(dtype=wp.int32), bad_kind: wp.array(dtype=wp.int32),
                       bad_count: wp.array(dtype=wp.int32)):
    """Accumulate user forces/torques into the per-body wrench at the COM (world frame); see
    kernels.user_wrench for `space`."""
    b = wp.tid()
    f = wp.vec3(0.0)
    t = wp.vec3(0.0)
    p = wp.vec3(0.0)
    if has_force != 0:
        f = wp.vec3(force[b, 0], force[b, 1], force[b, 2])
    if has_torque != 0:
        t = wp.vec3(torque[b, 0], torque[b, 1], torque[b, 2])
    if has_pos != 0:
        p = wp.vec3(pos[b, 0], pos[b, 1], pos[b, 2])
    for k in range(3):
        if kernels.bad_value(f[k]) or kernels.bad_value(t[k]) or kernels.bad_value(p[k]):
            kernels.flag_bad_input(body_env[b], 3, bad_env, bad_kind, bad_count)
    out[b] = out[b] + kernels.user_wrench(f, t, p, has_pos, space, body_q[b], body_com[b], body_origin[b])


@wp.kernel
def mark_articulations(arts: wp.array(dtype=wp.int32), mask: wp.array(dtype=wp.bool)):
    """mask[a] = True for the articulations `arts` (-1: none): the ones forward kinematics
    must follow after a write (Sim.defer_kinematics)."""
    a = arts[wp.tid()]
    if a >= 0:
        mask[a] = True
