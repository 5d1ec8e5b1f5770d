"""PhysX's articulation joint rows on SIM_PHYSX: DOF friction and DOF velocity limits
(python_bindings_docs/differences.md, "Velocity limits and joint friction").

PhysX solves both with the step's other constraints, as joint-space rows between a joint's
parent and child (equal and opposite: momentum is kept). MuJoCo has neither, so gymlike adds
them around each MuJoCo step, one kernel thread per world and one launch per substep, on
MuJoCo C's float64 rows and fields (core/mjc.py) and, through the `mjw_*` copies at the end of
this module, on MuJoCo-Warp's Data (core/mjw.py):

* friction (Isaac Gym's DOF `friction`, PhysX's unitless joint friction coefficient mu): before
  each step, `friction_bounds` writes mu * |W| into MuJoCo's per-world friction loss of the DOF,
  which MuJoCo's solver then applies with the contacts. W is the spatial force (force, and
  torque about the child's centre of mass) the joint transmits to its child's subtree under the
  step's unconstrained motion, the user's efforts included, as PhysX computes it: from the last
  step's fields (MuJoCo's mass-matrix ingredients, unconstrained accelerations, kinematics)
  with the change of the applied forces since then through the inverse mass matrix, so the
  bound follows this step's efforts (that is what keeps an explicit PD loop on a light link
  bounded: the friction grows with the effort). The rows are made stiff (FRICTION_IMPEDANCE).
* velocity limits (DOF `velocity`): after each step, `velocity_limits` brings each DOF over its
  limit back to it by a joint impulse through the step's inverse mass matrix (projected
  Gauss-Seidel over those DOFs), and moves the positions MuJoCo integrated by h times the
  velocity change, as if the impulse had acted before the integration.

M^-1 comes from MuJoCo's own factor of the step on MuJoCo C (qLD, `Tree.mj_ld`) and from the
kernels' factorization along the DOF tree on MuJoCo-Warp (`_factor_mass`, from crb).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import warp as wp

from . import host

SWEEPS = 8                  # Gauss-Seidel sweeps over the DOFs past their velocity limits
# MuJoCo's impedance (solimp's d0, d_width) of the friction rows: a row removes this share of a
# step's velocity change within its bound, so an explicit PD loop K times over its stable gain
# stays bounded while (1 - d) K < 2. MuJoCo's default 0.9 let humanoid-gym's XBot ankles
# (K = 19) chatter at their effort limit; 0.95 holds K up to 40. Stiffer rows lock the joint
# where PhysX's TGS solver lets it creep (it moves the positions between its iterations): at
# 0.99 and 0.999 the XBot's published policy over-ran its 0.6 m/s command (0.59, 0.72 m/s
# against 0.54 in MuJoCo with the vendor's model, 0.57 at 0.95)
FRICTION_IMPEDANCE = (0.95, 0.95)
MJ_FREE = wp.constant(0)
MJ_BALL = wp.constant(1)


@wp.func
def _v3(a: wp.array2d(dtype=wp.float64), w: int, at: int):
    return wp.vec3d(a[w, at], a[w, at + 1], a[w, at + 2])


@wp.func
def _inert_rot(c: wp.array2d(dtype=wp.float64), w: int, at: int, r: wp.vec3d, l: wp.vec3d):
    """Rotational part of MuJoCo's 10-number spatial inertia times a motion (r, l)."""
    i0 = c[w, at]
    i1 = c[w, at + 1]
    i2 = c[w, at + 2]
    i3 = c[w, at + 3]
    i4 = c[w, at + 4]
    i5 = c[w, at + 5]
    mc = wp.vec3d(c[w, at + 6], c[w, at + 7], c[w, at + 8])
    return wp.vec3d(i0 * r[0] + i3 * r[1] + i4 * r[2], i3 * r[0] + i1 * r[1] + i5 * r[2],
                    i4 * r[0] + i5 * r[1] + i2 * r[2]) + wp.cross(mc, l)


@wp.func
def _inert_lin(c: wp.array2d(dtype=wp.float64), w: int, at: int, r: wp.vec3d, l: wp.vec3d):
    """Linear part of MuJoCo's spatial inertia times a motion (r, l)."""
    mc = wp.vec3d(c[w, at + 6], c[w, at + 7], c[w, at + 8])
    return c[w, at + 9] * l - wp.cross(mc, r)


@wp.func
def _solve(L: wp.array2d(dtype=wp.float64), T: Any, w: int, nv: int, x: wp.array2d(dtype=wp.float64), at: int):
    """x[w, at:at+nv] <- M^-1 x[w, at:at+nv] from _factor_mass's M = L^T L: two passes along
    the DOF tree (only a DOF's ancestors are nonzero in its row of L)."""
    for ii in range(nv):
        i = nv - 1 - ii
        xi = x[w, at + i] / L[w, i * nv + i]
        x[w, at + i] = xi
        j = T.dof_parent[i]
        while j >= 0:
            x[w, at + j] = x[w, at + j] - L[w, i * nv + j] * xi
            j = T.dof_parent[j]
    for i in range(nv):
        s = x[w, at + i]
        j = T.dof_parent[i]
        while j >= 0:
            s -= L[w, i * nv + j] * x[w, at + j]
            j = T.dof_parent[j]
        x[w, at + i] = s / L[w, i * nv + i]


@wp.func
def _quat_step(rows: wp.array2d(dtype=wp.float64), w: int, at: int, turn: wp.vec3d):
    """MuJoCo's quaternion (w, x, y, z) at rows[w, at:at+4] turned by the local rotation vector `turn`."""
    q = wp.quatd(rows[w, at + 1], rows[w, at + 2], rows[w, at + 3], rows[w, at])
    angle = wp.length(turn)
    if angle > wp.float64(0.0):
        q = wp.normalize(q * wp.quat_from_axis_angle(wp.normalize(turn), angle))
        rows[w, at] = q[3]
        rows[w, at + 1] = q[0]
        rows[w, at + 2] = q[1]
        rows[w, at + 3] = q[2]


@wp.struct
class Frames:
    """MuJoCo's quantities of a step's start state, one row of values per world (float64):
    cdof, cdof_dot (6 per DOF), crb, cinert (10 per body), cvel (6 per body), subtree_com and
    xipos (3 per body), qacc_smooth (per DOF), and qvel0, the velocities the step began with."""
    cdof: wp.array2d(dtype=wp.float64)
    cdof_dot: wp.array2d(dtype=wp.float64)
    crb: wp.array2d(dtype=wp.float64)
    cinert: wp.array2d(dtype=wp.float64)
    cvel: wp.array2d(dtype=wp.float64)
    com: wp.array2d(dtype=wp.float64)
    xipos: wp.array2d(dtype=wp.float64)
    qacc: wp.array2d(dtype=wp.float64)
    qvel0: wp.array2d(dtype=wp.float64)
    qld: wp.array2d(dtype=wp.float64)        # MuJoCo C's factor of M (Tree.mj_ld): qLD, per world
    qld_dinv: wp.array2d(dtype=wp.float64)   # and qLDiagInv


@wp.struct
class Tree:
    """MuJoCo's kinematic tree (shared by every world) and the rows' layout."""
    body_parent: wp.array(dtype=wp.int32)
    body_root: wp.array(dtype=wp.int32)
    body_dof0: wp.array(dtype=wp.int32)
    body_ndof: wp.array(dtype=wp.int32)
    dof_body: wp.array(dtype=wp.int32)
    dof_parent: wp.array(dtype=wp.int32)
    jnt_type: wp.array(dtype=wp.int32)
    jnt_qadr: wp.array(dtype=wp.int32)
    jnt_vadr: wp.array(dtype=wp.int32)
    qpos_at: int
    qvel_at: int
    qfrc_at: int
    xfrc_at: int
    mj_ld: int                           # 1: M^-1 from MuJoCo's own factor (Frames.qld), 0: _factor_mass
    m_rowadr: wp.array(dtype=wp.int32)   # MuJoCo's sparse layout of M and qLD (rows of ancestors,
    m_rownnz: wp.array(dtype=wp.int32)   # the diagonal last)
    m_colind: wp.array(dtype=wp.int32)


@wp.struct
class Scratch:
    """Per-world work space (worlds, n)."""
    L: wp.array2d(dtype=wp.float64)      # nv * nv: M = L^T L (_factor_mass)
    acc: wp.array2d(dtype=wp.float64)    # 6 nb: body accelerations
    frc: wp.array2d(dtype=wp.float64)    # 6 nb: forces transmitted to each subtree
    cols: wp.array2d(dtype=wp.float64)   # nv * nv: columns of M^-1 (of the constrained DOFs)
    have: wp.array2d(dtype=wp.int32)     # nv: 1 where the column is computed
    dv: wp.array2d(dtype=wp.float64)     # nv: the velocity change applied
    dq: wp.array2d(dtype=wp.float64)     # nv: the position change (joint-space, rotation vectors)


@wp.func
def _factor_mass(F: Frames, T: Tree, S: Scratch, armature: wp.array2d(dtype=wp.float64), w: int, aw: int,
                 nv: int):
    """S.L[w] = L with L^T L the joint-space inertia of F's state (MuJoCo's composite-body
    algorithm, armature on the diagonal; only each DOF's row entries at its ancestors and
    itself are meaningful); False where it is not positive definite (no step computed the
    frames yet, or a degenerate model)."""
    zero = wp.float64(0.0)
    for i in range(nv):
        b = T.dof_body[i]
        sr = _v3(F.cdof, w, 6 * i)
        sl = _v3(F.cdof, w, 6 * i + 3)
        br = _inert_rot(F.crb, w, 10 * b, sr, sl)
        bl = _inert_lin(F.crb, w, 10 * b, sr, sl)
        j = i
        while j >= 0:
            S.L[w, i * nv + j] = wp.dot(_v3(F.cdof, w, 6 * j), br) + wp.dot(_v3(F.cdof, w, 6 * j + 3), bl)
            j = T.dof_parent[j]
        S.L[w, i * nv + i] = S.L[w, i * nv + i] + armature[aw, i]
    # M = L^T L in place, leaves first (Featherstone's LTL): no fill-in outside each DOF's
    # ancestors, so a hand's independent fingers cost their depth squared, not nv^3
    ok = int(1)
    for kk in range(nv):
        k = nv - 1 - kk
        s = S.L[w, k * nv + k]
        if not (s > zero):
            ok = 0
            break
        s = wp.sqrt(s)
        S.L[w, k * nv + k] = s
        i = T.dof_parent[k]
        while i >= 0:
            S.L[w, k * nv + i] = S.L[w, k * nv + i] / s
            i = T.dof_parent[i]
        i = T.dof_parent[k]
        while i >= 0:
            lki = S.L[w, k * nv + i]
            j = i
            while j >= 0:
                S.L[w, i * nv + j] = S.L[w, i * nv + j] - lki * S.L[w, k * nv + j]
                j = T.dof_parent[j]
            i = T.dof_parent[i]
    return ok


@wp.func
def _solve_ld(F: Frames, T: Tree, w: int, nv: int, x: wp.array2d(dtype=wp.float64), at: int):
    """x[w, at:at+nv] <- M^-1 x[w, at:at+nv] from MuJoCo's M = L^T D L of the step (qLD, unit
    L in M's sparse rows, D's inverse in qLDiagInv), as mj_solveLD."""
    for ii in range(nv):
        i = nv - 1 - ii
        adr = T.m_rowadr[i]
        xi = x[w, at + i]
        for k in range(T.m_rownnz[i] - 1):
            j = T.m_colind[adr + k]
            x[w, at + j] = x[w, at + j] - F.qld[w, adr + k] * xi
    for i in range(nv):
        x[w, at + i] = x[w, at + i] * F.qld_dinv[w, i]
    for i in range(nv):
        adr = T.m_rowadr[i]
        s = x[w, at + i]
        for k in range(T.m_rownnz[i] - 1):
            s -= F.qld[w, adr + k] * x[w, at + T.m_colind[adr + k]]
        x[w, at + i] = s


@wp.func
def _mass(F: Frames, T: Tree, S: Scratch, armature: wp.array2d(dtype=wp.float64), w: int, aw: int, nv: int):
    """Whether this world's M^-1 can be applied (_apply_minv): MuJoCo's factor when the C
    pipeline binds it (positive, finite pivots), else _factor_mass's into S.L."""
    if T.mj_ld == 0:
        return _factor_mass(F, T, S, armature, w, aw, nv)
    for i in range(nv):
        d = F.qld_dinv[w, i]
        if not (d > wp.float64(0.0) and d < wp.float64(1.0e300)):
            return 0
    return 1


@wp.func
def _apply_minv(F: Frames, T: Tree, S: Scratch, w: int, nv: int, x: wp.array2d(dtype=wp.float64), at: int):
    """x[w, at:at+nv] <- M^-1 x[w, at:at+nv] (after _mass)."""
    if T.mj_ld == 0:
        _solve(S.L, T, w, nv, x, at)
    else:
        _solve_ld(F, T, w, nv, x, at)


@wp.func
def _col(F: Frames, T: Tree, S: Scratch, w: int, nv: int, d: int, col: wp.array2d(dtype=wp.float64), at: int):
    """col[w, at:at+nv] = M^-1 e_d."""
    for i in range(nv):
        col[w, at + i] = wp.float64(0.0)
    col[w, at + d] = wp.float64(1.0)
    _apply_minv(F, T, S, w, nv, col, at)


@wp.kernel
def friction_bounds(rows: wp.array2d(dtype=wp.float64), F: Frames, T: Tree, S: Scratch,
                    armature: wp.array2d(dtype=wp.float64), mu: wp.array2d(dtype=wp.float64),
                    gravity: wp.array2d(dtype=wp.float64), qfrc_prev: wp.array2d(dtype=wp.float64),
                    scale: wp.float64, out: wp.array2d(dtype=wp.float64), w0: int):
    """Before a MuJoCo step: each DOF's PhysX joint friction bound mu * |W| * `scale` (N m or
    N) into `out` (worlds, DOFs: MuJoCo's per-world dof_frictionloss, which the step then
    solves with its contacts), W the spatial force the joint transmits to its child's subtree
    under the step's unconstrained motion: the last step's (F, MuJoCo's own) with the change
    of the applied generalized forces since it (rows' qfrc_applied - qfrc_prev) through the
    inverse mass matrix, so the bound follows this step's efforts (module docstring). `w0`:
    the first world (launch.Launcher's parts)."""
    w = wp.tid() + w0
    nv = T.dof_body.shape[0]
    nb = T.body_parent.shape[0]
    aw = wp.min(w, armature.shape[0] - 1)
    fw = wp.min(w, mu.shape[0] - 1)
    gw = wp.min(w, gravity.shape[0] - 1)
    zero = wp.float64(0.0)
    friction = int(0)
    for d in range(nv):
        out[w, d] = zero
        if mu[fw, d] > zero:
            friction = 1
    if friction == 0:
        return
    if _mass(F, T, S, armature, w, aw, nv) == 0:
        return
    # this step's unconstrained accelerations: M^-1 (the change of qfrc_applied) on the last's
    for i in range(nv):
        S.dv[w, i] = rows[w, T.qfrc_at + i] - qfrc_prev[w, i]
    _apply_minv(F, T, S, w, nv, S.dv, 0)
    # body accelerations (gravity as the world's upward acceleration), then the force each
    # subtree needs (MuJoCo's RNEA, the user's body wrenches taken out), leaves to root
    for c in range(3):
        S.acc[w, c] = zero
        S.acc[w, 3 + c] = -gravity[gw, c]
    for b in range(1, nb):
        p = T.body_parent[b]
        r = wp.vec3d(S.acc[w, 6 * p], S.acc[w, 6 * p + 1], S.acc[w, 6 * p + 2])
        l = wp.vec3d(S.acc[w, 6 * p + 3], S.acc[w, 6 * p + 4], S.acc[w, 6 * p + 5])
        for k in range(T.body_ndof[b]):
            d = T.body_dof0[b] + k
            vel = F.qvel0[w, d]
            acc = F.qacc[w, d] + S.dv[w, d]
            r += vel * _v3(F.cdof_dot, w, 6 * d) + acc * _v3(F.cdof, w, 6 * d)
            l += vel * _v3(F.cdof_dot, w, 6 * d + 3) + acc * _v3(F.cdof, w, 6 * d + 3)
        vr = _v3(F.cvel, w, 6 * b)
        vl = _v3(F.cvel, w, 6 * b + 3)
        ir = _inert_rot(F.cinert, w, 10 * b, vr, vl)
        il = _inert_lin(F.cinert, w, 10 * b, vr, vl)
        fr = _inert_rot(F.cinert, w, 10 * b, r, l) + wp.cross(vr, ir) + wp.cross(vl, il)
        fl = _inert_lin(F.cinert, w, 10 * b, r, l) + wp.cross(vr, il)
        # a user wrench (world frame, at the COM) supplies part of that force
        ef = _v3(rows, w, T.xfrc_at + 6 * b)
        et = _v3(rows, w, T.xfrc_at + 6 * b + 3)
        lever = _v3(F.xipos, w, 3 * b) - _v3(F.com, w, 3 * T.body_root[b])
        fr = fr - et - wp.cross(lever, ef)
        fl = fl - ef
        for c in range(3):
            S.acc[w, 6 * b + c] = r[c]
            S.acc[w, 6 * b + 3 + c] = l[c]
            S.frc[w, 6 * b + c] = fr[c]
            S.frc[w, 6 * b + 3 + c] = fl[c]
    for bb in range(1, nb):
        b = nb - bb
        p = T.body_parent[b]
        if p > 0:
            for c in range(6):
                S.frc[w, 6 * p + c] = S.frc[w, 6 * p + c] + S.frc[w, 6 * b + c]
    for d in range(nv):
        if mu[fw, d] > zero:
            b = T.dof_body[d]
            f = wp.vec3d(S.frc[w, 6 * b + 3], S.frc[w, 6 * b + 4], S.frc[w, 6 * b + 5])
            # the torque about the child's centre of mass, as PhysX measures it
            lever = _v3(F.xipos, w, 3 * b) - _v3(F.com, w, 3 * T.body_root[b])
            t = wp.vec3d(S.frc[w, 6 * b], S.frc[w, 6 * b + 1], S.frc[w, 6 * b + 2]) - wp.cross(lever, f)
            out[w, d] = mu[fw, d] * scale * wp.sqrt(wp.dot(f, f) + wp.dot(t, t))


@wp.func
def _move(rows: wp.array2d(dtype=wp.float64), T: Tree, S: Scratch, w: int):
    """The positions MuJoCo integrated moved by S.dq (joint space; rotation vectors for balls
    and free joints' rotations)."""
    for j in range(T.jnt_type.shape[0]):
        jt = T.jnt_type[j]
        qa = T.qpos_at + T.jnt_qadr[j]
        va = T.jnt_vadr[j]
        if jt == MJ_FREE:
            for c in range(3):
                rows[w, qa + c] = rows[w, qa + c] + S.dq[w, va + c]
            _quat_step(rows, w, qa + 3, wp.vec3d(S.dq[w, va + 3], S.dq[w, va + 4], S.dq[w, va + 5]))
        elif jt == MJ_BALL:
            _quat_step(rows, w, qa, wp.vec3d(S.dq[w, va], S.dq[w, va + 1], S.dq[w, va + 2]))
        else:
            rows[w, qa] = rows[w, qa] + S.dq[w, va]


@wp.kernel
def velocity_limits(rows: wp.array2d(dtype=wp.float64), F: Frames, T: Tree, S: Scratch,
                    armature: wp.array2d(dtype=wp.float64), vmax: wp.array2d(dtype=wp.float64),
                    h: wp.float64, hits: wp.array(dtype=wp.int32), w0: int):
    """After a MuJoCo step of h s: each DOF over its velocity limit (`vmax`, inf: none) brought
    back to it by a joint impulse through the step's inverse mass matrix (projected
    Gauss-Seidel over those DOFs), and the positions moved by h times the velocity change
    (module docstring); hits[0] = 1 where an impulse was applied. `w0`: the first world."""
    w = wp.tid() + w0
    nv = T.dof_body.shape[0]
    aw = wp.min(w, armature.shape[0] - 1)
    lw = wp.min(w, vmax.shape[0] - 1)
    zero = wp.float64(0.0)
    active = int(0)
    for d in range(nv):
        if wp.abs(rows[w, T.qvel_at + d]) > vmax[lw, d]:
            active = 1
    if active == 0:
        return
    if _mass(F, T, S, armature, w, aw, nv) == 0:
        return
    for d in range(nv):
        S.dv[w, d] = zero
        S.have[w, d] = 0
    applied = int(0)
    for sweep in range(SWEEPS):
        worst = zero
        for d in range(nv):
            v = rows[w, T.qvel_at + d]
            lim = vmax[lw, d]
            if not (wp.abs(v) > lim):
                continue
            if S.have[w, d] == 0:
                _col(F, T, S, w, nv, d, S.cols, d * nv)
                S.have[w, d] = 1
            inv = S.cols[w, d * nv + d]
            dl = (wp.clamp(v, -lim, lim) - v) / inv
            applied = 1
            for i in range(nv):
                step = S.cols[w, d * nv + i] * dl
                rows[w, T.qvel_at + i] = rows[w, T.qvel_at + i] + step
                S.dv[w, i] = S.dv[w, i] + step
            worst = wp.max(worst, wp.abs(inv * dl))
        if worst <= wp.float64(1e-9):
            break
    if applied == 0:
        return
    hits[0] = 1
    for i in range(nv):
        S.dq[w, i] = h * S.dv[w, i]
    _move(rows, T, S, w)


def tree(model: Any, row_at: dict, device: str = "cpu", mj_ld: bool = False) -> Tree:
    """The Tree of an MjModel whose rows have the layout `row_at` (field -> column), on `device`;
    `mj_ld`: the kernels apply M^-1 from MuJoCo's factor (Frames.qld, MuJoCo C's bound qLD)."""
    t = Tree()

    def ints(a):
        return host.ints(a, device)
    t.body_parent, t.body_root = ints(model.body_parentid), ints(model.body_rootid)
    t.body_dof0, t.body_ndof = ints(model.body_dofadr), ints(model.body_dofnum)
    t.dof_body, t.dof_parent = ints(model.dof_bodyid), ints(model.dof_parentid)
    t.jnt_type, t.jnt_qadr, t.jnt_vadr = ints(model.jnt_type), ints(model.jnt_qposadr), ints(model.jnt_dofadr)
    t.qpos_at, t.qvel_at = int(row_at["qpos"]), int(row_at["qvel"])
    t.qfrc_at, t.xfrc_at = int(row_at["qfrc_applied"]), int(row_at["xfrc_applied"])
    t.mj_ld = int(bool(mj_ld))
    t.m_rowadr, t.m_rownnz, t.m_colind = ints(model.M_rowadr), ints(model.M_rownnz), ints(model.M_colind)
    return t


def scratch(nworld: int, nv: int, nbody: int, device: str = "cpu") -> Scratch:
    """Zeroed work space for `nworld` worlds of nv DOFs and nbody bodies, on `device`."""
    s = Scratch()

    def zeros(n, dtype=wp.float64):
        return wp.zeros((nworld, max(1, n)), dtype=dtype, device=device)
    s.L, s.cols = zeros(nv * nv), zeros(nv * nv)
    s.acc, s.frc = zeros(6 * nbody), zeros(6 * nbody)
    s.dv, s.dq = zeros(nv), zeros(nv)
    s.have = zeros(nv, wp.int32)
    return s


FRAME_FIELDS = ("cdof", "cdof_dot", "crb", "cinert", "cvel", "subtree_com", "xipos", "qacc_smooth", "qLD",
                "qLDiagInv")
# MuJoCo C's fields the joint rows read: with joint friction all but crb (M^-1 comes from
# MuJoCo's own factor of the step, qLD: the kernels' factorization of M was half of
# friction_bounds' time), else the factor alone (the velocity limits)
C_FRICTION_FIELDS = tuple(k for k in FRAME_FIELDS if k != "crb")
C_MASS_FIELDS = ("qLD", "qLDiagInv")


def fields(friction: bool) -> tuple:
    """The MuJoCo C fields the joint rows read (the batch copies every field it binds out of
    each step: only those)."""
    return C_FRICTION_FIELDS if friction else C_MASS_FIELDS


def frames(bound: dict, qvel0: np.ndarray) -> Frames:
    """Frames viewing MuJoCo's bound derived fields (name -> (worlds, ...) float64 numpy, kept
    alive by the caller; a field not bound gets an empty stand-in) and the start velocities
    `qvel0` (worlds, nv)."""
    f = Frames()

    def view(a):
        return wp.zeros((1, 1), dtype=wp.float64, device="cpu") if a is None else host.view(a)
    (f.cdof, f.cdof_dot, f.crb, f.cinert, f.cvel, f.com, f.xipos, f.qacc, f.qld,
     f.qld_dinv) = (view(bound.get(k)) for k in FRAME_FIELDS)
    f.qvel0 = view(qvel0)
    return f


# ---------------------------------------------------------------------------- MuJoCo-Warp
# On the MuJoCo-Warp pipeline (CUDA, and GYMLIKE_CPU_PIPELINE=warp; core/mjw.py) the same kernels
# run on float64 copies of MuJoCo-Warp's float32 Data, laid out as MuJoCo C's rows and fields
# are: the kernels below copy (`mjw_*`, one thread per world) and write the results back.
vec10f = wp.types.vector(length=10, dtype=wp.float32)    # MuJoCo-Warp's spatial inertias (crb, cinert)
vec5f = wp.types.vector(length=5, dtype=wp.float32)      # MuJoCo-Warp's solimp


def rows_layout(model: Any) -> dict:
    """The columns of the float64 rows of the MuJoCo-Warp pipeline: qpos, qvel, qfrc_applied,
    xfrc_applied (6 per body) of an MjModel, one after the other; and "width"."""
    at = {"qpos": 0, "qvel": model.nq, "qfrc_applied": model.nq + model.nv, "xfrc_applied": model.nq + 2 * model.nv}
    at["width"] = at["xfrc_applied"] + 6 * model.nbody
    return at


def frames_zeros(nworld: int, nv: int, nbody: int, device: str) -> Frames:
    """Frames of float64 arrays (zeros) on `device`, filled by the mjw_* kernels."""
    f = Frames()

    def zeros(n):
        return wp.zeros((nworld, max(1, n)), dtype=wp.float64, device=device)
    f.cdof, f.cdof_dot, f.cvel = zeros(6 * nv), zeros(6 * nv), zeros(6 * nbody)
    f.crb, f.cinert = zeros(10 * nbody), zeros(10 * nbody)
    f.com, f.xipos = zeros(3 * nbody), zeros(3 * nbody)
    f.qacc, f.qvel0 = zeros(nv), zeros(nv)
    f.qld, f.qld_dinv = zeros(0), zeros(0)        # (MuJoCo-Warp: the kernels factor M themselves)
    return f


@wp.func
def _put6(dst: wp.array2d(dtype=wp.float64), w: int, at: int, v: wp.spatial_vectorf):
    for c in range(6):
        dst[w, at + c] = wp.float64(v[c])


@wp.func
def _put10(dst: wp.array2d(dtype=wp.float64), w: int, at: int, v: vec10f):
    for c in range(10):
        dst[w, at + c] = wp.float64(v[c])


@wp.func
def _put3(dst: wp.array2d(dtype=wp.float64), w: int, at: int, v: wp.vec3f):
    for c in range(3):
        dst[w, at + c] = wp.float64(v[c])


@wp.func
def _mass_frames(cdof: wp.array2d(dtype=wp.spatial_vectorf), crb: wp.array2d(dtype=vec10f), w: int, F: Frames):
    """The mass matrix's ingredients (cdof, crb) of world w into F."""
    for d in range(cdof.shape[1]):
        _put6(F.cdof, w, 6 * d, cdof[w, d])
    for b in range(crb.shape[1]):
        _put10(F.crb, w, 10 * b, crb[w, b])


@wp.func
def _all_frames(cdof: wp.array2d(dtype=wp.spatial_vectorf), cdof_dot: wp.array2d(dtype=wp.spatial_vectorf),
                crb: wp.array2d(dtype=vec10f), cinert: wp.array2d(dtype=vec10f),
                cvel: wp.array2d(dtype=wp.spatial_vectorf), com: wp.array2d(dtype=wp.vec3f),
                xipos: wp.array2d(dtype=wp.vec3f), qacc: wp.array2d(dtype=wp.float32), w: int, F: Frames):
    _mass_frames(cdof, crb, w, F)
    for d in range(cdof.shape[1]):
        _put6(F.cdof_dot, w, 6 * d, cdof_dot[w, d])
        F.qacc[w, d] = wp.float64(qacc[w, d])
    for b in range(crb.shape[1]):
        _put10(F.cinert, w, 10 * b, cinert[w, b])
        _put6(F.cvel, w, 6 * b, cvel[w, b])
        _put3(F.com, w, 3 * b, com[w, b])
        _put3(F.xipos, w, 3 * b, xipos[w, b])


@wp.kernel
def mjw_before(qfrc: wp.array2d(dtype=wp.float32), xfrc: wp.array2d(dtype=wp.spatial_vectorf),
               cdof: wp.array2d(dtype=wp.spatial_vectorf), cdof_dot: wp.array2d(dtype=wp.spatial_vectorf),
               crb: wp.array2d(dtype=vec10f), cinert: wp.array2d(dtype=vec10f),
               cvel: wp.array2d(dtype=wp.spatial_vectorf), com: wp.array2d(dtype=wp.vec3f),
               xipos: wp.array2d(dtype=wp.vec3f), qacc: wp.array2d(dtype=wp.float32), T: Tree,
               rows: wp.array2d(dtype=wp.float64), F: Frames):
    """Before a MuJoCo-Warp step, for friction_bounds: this step's applied forces into the rows,
    and MuJoCo-Warp's derived fields (of the last step's start state) into F."""
    w = wp.tid()
    for d in range(qfrc.shape[1]):
        rows[w, T.qfrc_at + d] = wp.float64(qfrc[w, d])
    for b in range(xfrc.shape[1]):
        _put6(rows, w, T.xfrc_at + 6 * b, xfrc[w, b])
    _all_frames(cdof, cdof_dot, crb, cinert, cvel, com, xipos, qacc, w, F)


@wp.kernel
def mjw_fresh(qvel: wp.array2d(dtype=wp.float32), qfrc: wp.array2d(dtype=wp.float32),
              cdof: wp.array2d(dtype=wp.spatial_vectorf), cdof_dot: wp.array2d(dtype=wp.spatial_vectorf),
              crb: wp.array2d(dtype=vec10f), cinert: wp.array2d(dtype=vec10f),
              cvel: wp.array2d(dtype=wp.spatial_vectorf), com: wp.array2d(dtype=wp.vec3f),
              xipos: wp.array2d(dtype=wp.vec3f), qacc: wp.array2d(dtype=wp.float32),
              valid: wp.array(dtype=wp.int32), F: Frames, qfrc_prev: wp.array2d(dtype=wp.float64)):
    """Worlds with no valid last step (valid[w] == 0: the first, or a state written since):
    the fields MuJoCo-Warp just computed of this state and inputs into F, as if the last step
    had started here (its velocities, its applied forces); then valid."""
    w = wp.tid()
    if valid[w] != 0:
        return
    _all_frames(cdof, cdof_dot, crb, cinert, cvel, com, xipos, qacc, w, F)
    for d in range(qvel.shape[1]):
        F.qvel0[w, d] = wp.float64(qvel[w, d])
        qfrc_prev[w, d] = wp.float64(qfrc[w, d])
    valid[w] = 1


@wp.kernel
def mjw_friction_out(bound: wp.array2d(dtype=wp.float64), qvel: wp.array2d(dtype=wp.float32),
                     qfrc: wp.array2d(dtype=wp.float32), frictionloss: wp.array2d(dtype=wp.float32),
                     F: Frames, qfrc_prev: wp.array2d(dtype=wp.float64)):
    """After friction_bounds: the bounds into MuJoCo-Warp's per-world dof_frictionloss, and what
    the next step's bounds start from: the velocities and applied forces of this step."""
    w = wp.tid()
    for d in range(qvel.shape[1]):
        frictionloss[w, d] = wp.float32(bound[w, d])
        F.qvel0[w, d] = wp.float64(qvel[w, d])
        qfrc_prev[w, d] = wp.float64(qfrc[w, d])


@wp.kernel
def mjw_after(qpos: wp.array2d(dtype=wp.float32), qvel: wp.array2d(dtype=wp.float32),
              cdof: wp.array2d(dtype=wp.spatial_vectorf), crb: wp.array2d(dtype=vec10f),
              vmax: wp.array2d(dtype=wp.float64), T: Tree, rows: wp.array2d(dtype=wp.float64), F: Frames,
              over: wp.array(dtype=wp.int32)):
    """After a MuJoCo-Warp step, for velocity_limits: its velocities into the rows; in worlds
    where a DOF is over its limit (over[w] = 1) also its positions and the step's mass-matrix
    ingredients (MuJoCo-Warp's fields are of the step's start state)."""
    w = wp.tid()
    lw = wp.min(w, vmax.shape[0] - 1)
    o = int(0)
    for d in range(qvel.shape[1]):
        v = wp.float64(qvel[w, d])
        rows[w, T.qvel_at + d] = v
        if wp.abs(v) > vmax[lw, d]:
            o = 1
    over[w] = o
    if o == 0:
        return
    for i in range(qpos.shape[1]):
        rows[w, T.qpos_at + i] = wp.float64(qpos[w, i])
    _mass_frames(cdof, crb, w, F)


@wp.kernel
def mjw_unpack(rows: wp.array2d(dtype=wp.float64), T: Tree, over: wp.array(dtype=wp.int32),
               qpos: wp.array2d(dtype=wp.float32), qvel: wp.array2d(dtype=wp.float32)):
    """After velocity_limits: the limited velocities and moved positions of the worlds that
    had a DOF over its limit back into MuJoCo-Warp's Data."""
    w = wp.tid()
    if over[w] == 0:
        return
    for i in range(qpos.shape[1]):
        qpos[w, i] = wp.float32(rows[w, T.qpos_at + i])
    for d in range(qvel.shape[1]):
        qvel[w, d] = wp.float32(rows[w, T.qvel_at + d])


@wp.kernel
def mjw_model_values(armature: wp.array2d(dtype=wp.float32), gravity: wp.array(dtype=wp.vec3f),
                     armature_out: wp.array2d(dtype=wp.float64), gravity_out: wp.array2d(dtype=wp.float64)):
    """MuJoCo-Warp's armature (per world, or one row for all) and gravity in float64."""
    w = wp.tid()
    if w < armature.shape[0]:
        for d in range(armature.shape[1]):
            armature_out[w, d] = wp.float64(armature[w, d])
    if w < gravity.shape[0]:
        for c in range(3):
            gravity_out[w, c] = wp.float64(gravity[w][c])


@wp.kernel
def mjw_friction_impedance(solimp: wp.array2d(dtype=vec5f), d0: wp.float32, dwidth: wp.float32):
    """MuJoCo-Warp's dof_solimp of every DOF with the friction rows' impedance (d0, d_width)."""
    w, d = wp.tid()
    s = solimp[w, d]
    s[0] = d0
    s[1] = dwidth
    solimp[w, d] = s


@wp.kernel
def mjw_forget(mask: wp.array(dtype=wp.bool), valid: wp.array(dtype=wp.int32)):
    """Worlds in `mask` have no valid last step for friction_bounds any more (a state write)."""
    w = wp.tid()
    if mask[w]:
        valid[w] = 0
