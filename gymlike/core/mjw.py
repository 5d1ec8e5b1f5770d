"""The MuJoCo-Warp pipeline of SIM_PHYSX (CUDA, and GYMLIKE_CPU_PIPELINE=warp on the CPU):
`SolverMuJoCoWarp`, Newton's SolverMuJoCo with PhysX's joint rows (core/joint_rows.py: DOF
friction as a bound on MuJoCo's friction loss, DOF velocity limits as joint impulses) around
each MuJoCo-Warp step, as SolverMuJoCoC (core/mjc.py) has them on MuJoCo C.

Inside SolverMuJoCo.step, after Newton's control and state are written into `mjw_data` and
before Newton's state is read back from it (upstream.around_warp_step):

* before the step, with joint friction: MuJoCo-Warp's derived fields are still those of the
  last step's start state, as the C pipeline reads them. They and this step's applied forces
  are copied into float64 arrays laid out as MuJoCo C's (joint_rows.mjw_before),
  joint_rows.friction_bounds computes the bounds and joint_rows.mjw_friction_out writes them
  into MuJoCo-Warp's per-world dof_frictionloss, from which its step makes friction rows.
  Worlds with no last step (the first, or written through the API since: `reset`) get the
  fields of their current state first (MuJoCo-Warp's smooth forward stages, which the step
  recomputes anyway).
* after the step, with velocity limits: its velocities are copied out and compared with the
  limits (joint_rows.mjw_after); only worlds with a DOF over its limit copy their positions and
  mass-matrix ingredients, get the impulses (joint_rows.velocity_limits) and are written back
  (joint_rows.mjw_unpack), so Newton's state, converted right after, holds the limited motion
  and the next step starts from it.

All of it is Warp launches on the sim's device, one thread per world: no host copy or sync in
the step (the tables are made on the host after model changes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import joint_rows, upstream
from .launch import Launcher
from .runtime import newton as _newton, wp as _wp

MJ_MINVAL = 1e-15                # (MuJoCo's mjMINVAL)

if TYPE_CHECKING:
    from typing import Any

    import newton
    import warp as wp

    from .tables import DeviceTables


def fixed_child_frames(solver: Any) -> None:
    """Each world's frame of the MuJoCo bodies welded to their parent (Newton FIXED joints).

    Newton's SolverMuJoCo writes the per-world body frames (body_pos, body_quat) from joint_X_p
    and joint_X_c for the bodies that have a MuJoCo joint; a welded body has none and keeps
    world 0's frame in every world. Worlds differ there when envs hold actors at different
    scales (set_actor_scale: each env its own world, core/build.one_world), so a scaled robot's
    welded feet would sit where the template's are. Written here from Newton's joints, the same
    transform (X_p * X_c^-1) Newton writes for the others, once: Newton's model changes leave
    these bodies' frames alone, and no API call moves a welded joint."""
    model = solver.model
    m2n = solver.mjc_body_to_newton.numpy()
    if m2n.shape[0] < 2 or solver.mjw_model.body_pos.shape[0] < 2:
        return
    jt, jp, jc = (a.numpy() for a in (model.joint_type, model.joint_parent, model.joint_child))
    fixed = np.flatnonzero((jt == int(_newton().JointType.FIXED)) & (jp >= 0))
    if not len(fixed):
        return
    joint_of = np.full(model.body_count, -1, np.int64)
    joint_of[jc[fixed]] = fixed
    w, b = np.nonzero(m2n >= 0)
    j = joint_of[m2n[w, b]]
    w, b, j = w[j >= 0], b[j >= 0], j[j >= 0]
    if not len(j):
        return
    from .math3d import transform_inverse, transform_mul
    xp, xc = model.joint_X_p.numpy()[j], model.joint_X_c.numpy()[j]
    ip, iq = transform_inverse(xc[:, :3], xc[:, 3:])
    p, q = transform_mul(xp[:, :3], xp[:, 3:], ip, iq)
    pos, quat = solver.mjw_model.body_pos.numpy(), solver.mjw_model.body_quat.numpy()
    q = q[:, [3, 0, 1, 2]]                        # (MuJoCo's quaternions are w, x, y, z)
    if np.allclose(pos[w, b], p, rtol=0, atol=1e-7) and np.allclose(np.abs((quat[w, b] * q).sum(-1)), 1, atol=1e-7):
        return
    pos[w, b], quat[w, b] = p, q
    solver.mjw_model.body_pos.assign(pos)
    solver.mjw_model.body_quat.assign(quat)
    # the constants MuJoCo derives from the bodies' layout (inverse weights, and from them
    # Newton's limit solref) were computed with world 0's frames: again, through Newton
    solver.notify_model_changed(_newton().ModelFlags.BODY_INERTIAL_PROPERTIES)


# MuJoCo softens a contact row by the sum of its two bodies' translational inverse weights at
# their centres of mass (body_invweight0[:, 0], from qpos0: R = (1 - d) / d * weight), standing in
# for the inverse mass the contact point sees. A link whose COM lies on its joints' axes (a URDF
# link with its inertial origin at its joint, as in the Allegro hand) cannot move its COM, and the
# weight is degenerate: MuJoCo C's mj_setConst gives 0, a contact between two such links (or one
# and the world) is then a near-rigid row (R at MuJoCo's floor of 1e-15) on which MuJoCo's Newton
# solver diverges (hora's grasp resets with interpenetrating fingers reached 1e6 rad/s in one
# step); MuJoCo-Warp's set_const_0 puts the rotational weight (1/(kg m^2)) in its place, which
# makes those contacts so soft that fingers sink a centimetre into each other. PhysX has no such
# weight. gymlike sets a degenerate weight, and floors every other, at CONTACT_WEIGHT_FLOOR times
# what the body's rotation adds to the mean inverse weight of points on its geometry: on any
# free body MuJoCo's weight, 1/m, is above that (a sphere 0.1 x 1.67/m, a thin rod 0.1 x ~2/m),
# so only links whose COM barely moves change, on both pipelines alike.
CONTACT_WEIGHT_FLOOR = 0.1


def contact_levers(m: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per MuJoCo body of MjModel `m` at qpos0: the mean inverse weight its rotation adds at the
    centres and bounding-box corners of its geoms, per unit of its rotational inverse weight
    (body_invweight0[:, 1]), a squared lever arm (0 where the body has no geom or no rotation);
    and the translational weight of its COM (body_invweight0[:, 0] as mj_setConst computes it)."""
    import mujoco
    lever, tran = np.zeros(m.nbody), np.zeros(m.nbody)
    if m.nv == 0 or m.ngeom == 0:
        return lever, tran
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    mujoco.mj_fwdPosition(m, d)            # (kinematics, COM frames, mass matrix and its factor)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)] + [[0, 0, 0]], float)
    jac = np.zeros((6, m.nv))
    sol = np.zeros((6, m.nv))
    for b in np.unique(m.geom_bodyid):
        if m.body_weldid[b] == 0:              # (welded to the world: nothing moves)
            continue
        mujoco.mj_jacBodyCom(m, d, jac[:3], jac[3:], int(b))
        mujoco.mj_solveM(m, d, sol, jac)
        A = jac @ sol.T                        # (the COM's 6 x 6 inverse spatial inertia)
        tran[b], rot = np.trace(A[:3, :3]) / 3, np.trace(A[3:, 3:]) / 3
        if rot <= 0:
            continue
        g = np.flatnonzero(m.geom_bodyid == b)
        local = m.geom_aabb[g, None, :3] + corners[None] * m.geom_aabb[g, None, 3:]
        pts = d.geom_xpos[g, None] + np.einsum("gij,gkj->gki", d.geom_xmat[g].reshape(-1, 3, 3), local)
        r = (pts - d.xipos[b]).reshape(-1, 3)
        # a point's velocity is v - r x w: J_p = [I, -[r]x] J, A_p = B A B^T
        cross = np.zeros((len(r), 3, 3))
        cross[:, 0, 1], cross[:, 0, 2], cross[:, 1, 2] = -r[:, 2], r[:, 1], -r[:, 0]
        cross -= cross.transpose(0, 2, 1)
        B = np.concatenate([np.broadcast_to(np.eye(3), cross.shape), -cross], 2)
        mean = np.einsum("pij,jk,pik->", B, A, B) / (3 * len(r))
        lever[b] = max(0.0, mean - tran[b]) / rot
    return lever, tran


def floor_contact_weights(solver: Any) -> None:
    """Set or floor MuJoCo's translational body inverse weights (see CONTACT_WEIGHT_FLOOR) in
    every world of `solver.mjw_model` and in `solver.mj_model`, after MuJoCo C or MuJoCo-Warp
    computed them. The levers are the compiled model's (worlds of scaled actors share them); a
    weight is degenerate where it is below MuJoCo's mjMINVAL, or where MuJoCo-Warp put the
    rotational weight in its place for a body whose COM the compiled model cannot move."""
    levers = getattr(solver, "contact_levers", None)
    if levers is None:
        lever, tran = contact_levers(solver.mj_model)
        levers = solver.contact_levers = (CONTACT_WEIGHT_FLOOR * lever, tran < MJ_MINVAL)
    lever, fixed_com = levers
    if not lever.any():
        return
    for w in (solver.mj_model.body_invweight0, solver.mjw_model.body_invweight0):
        a = w if isinstance(w, np.ndarray) else w.numpy()
        tran, rot = a[..., 0], a[..., 1]
        floor = lever * rot
        degenerate = ((tran < MJ_MINVAL) | ((tran == rot) & fixed_com)) & (lever > 0)
        new = np.where(degenerate, floor, np.maximum(tran, floor))
        if not np.array_equal(new, tran):
            a[..., 0] = new
            if not isinstance(w, np.ndarray):
                w.assign(a)


def stable_limits(solver: Any, dt: float) -> None:
    """Critically damp MuJoCo's joint limit rows for steps of `dt` s, in every world of
    `solver.mjw_model`: an underdamped (timeconst tc, dampratio r < 1) becomes
    (max(tc r, 2 dt), 1), the same stiffness (1 / (tc r)^2) where the step can hold it and
    MuJoCo's stiffest stable limit (its `refsafe` bound, 2 dt, critically damped) where not.

    Newton turns the limits' force-space stiffness and damping (1e4, 10 by default) into
    (tc, r) by each DOF's inverse weight, which leaves every limit underdamped, light DOFs
    worst: their tc comes out below 2 dt, which refsafe raises keeping r, so the limit's
    natural frequency times dt is 1 / (2 r), an unstable spring below r = 0.25 (the Franka's
    wrist in IsaacGymEnvs, r = 0.22: sent into its limit at 5 rad/s it came back at 378 rad/s)
    and a bouncing one above (the Allegro hand's fingers, r = 0.29-0.35: back at 10.8 rad/s
    from 5; the ANYmal's knees 4.6 from 5). PhysX's limits are hard, without restitution.
    Tendon limits keep Newton's values: Isaac Gym's are springs (limit_stiffness)."""
    arr = solver.mjw_model.jnt_solref
    if arr.size == 0:
        return
    a = arr.numpy()
    tc, r = a[..., 0].astype(np.float64), a[..., 1].astype(np.float64)
    low = (tc > 0) & (r > 0) & (r < 1 - 1e-6)
    if low.any():
        a[..., 0] = np.where(low, np.maximum(tc * r, 2.0 * dt), tc)
        a[..., 1] = np.where(low, 1.0, r)
        arr.assign(a)


def rows_step(solver: Any) -> SolverMuJoCoWarp | None:
    """The solver if it runs PhysX's joint rows on MuJoCo-Warp, else None."""
    return solver if isinstance(solver, SolverMuJoCoWarp) else None


class _Tables:
    """The joint rows' device arrays of one model state (made by begin_joint_rows)."""

    def __init__(self, solver: SolverMuJoCoWarp, dev: DeviceTables, friction: bool):
        wp = _wp()
        m, mw = solver.mj_model, solver.mjw_model
        n, nv, device = solver.mjw_data.nworld, m.nv, solver.model.device
        at = joint_rows.rows_layout(m)
        self.friction = friction
        self.tree = joint_rows.tree(m, at, device)
        self.scratch = joint_rows.scratch(n, nv, m.nbody, device)
        self.frames = joint_rows.frames_zeros(n, nv, m.nbody, device)
        self.rows = wp.zeros((n, at["width"]), dtype=wp.float64, device=device)
        # Isaac Gym's velocity limits (0: none) and friction coefficients on MuJoCo's DOFs
        m2n = solver.mjc_dof_to_newton_dof.numpy().reshape(n, nv)
        cell = np.full(solver.model.joint_dof_count, -1, np.int64)
        ok = m2n >= 0
        cell[m2n[ok]] = np.flatnonzero(ok)          # Newton DOF -> world * nv + MuJoCo DOF
        c = cell[dev.dof_qd.numpy()]
        vmax, mu = np.full(n * nv, np.inf), np.zeros(n * nv)
        lim, fr = dev.dof_velocity_limit.numpy(), dev.dof_friction.numpy()
        on = (c >= 0) & (lim > 0)
        vmax[c[on]] = lim[on]
        on = (c >= 0) & (fr > 0)
        mu[c[on]] = fr[on]
        self.vmax = wp.array(vmax.reshape(n, nv), dtype=wp.float64, device=device)
        self.mu = wp.array(mu.reshape(n, nv), dtype=wp.float64, device=device)
        # MuJoCo-Warp's armature and gravity (per world, or one row all worlds share) in float64
        arm, grav = mw.dof_armature, mw.opt.gravity
        self.armature = wp.zeros(arm.shape, dtype=wp.float64, device=device)
        self.gravity = wp.zeros((grav.shape[0], 3), dtype=wp.float64, device=device)
        wp.launch(joint_rows.mjw_model_values, dim=max(arm.shape[0], grav.shape[0]), device=device,
                  inputs=[arm, grav, self.armature, self.gravity])
        self.qfrc_prev = wp.zeros((n, nv), dtype=wp.float64, device=device)
        self.bound = wp.zeros((n, nv), dtype=wp.float64, device=device)
        self.valid = wp.zeros(n, dtype=wp.int32, device=device)     # friction: a last step to read
        self.over = wp.zeros(n, dtype=wp.int32, device=device)      # velocity limits: a DOF over it
        self.hits = wp.zeros(1, dtype=wp.int32, device=device)
        if friction:
            # PhysX's friction rows are hard: MuJoCo's soft friction loss made stiff (joint_rows.py)
            d0, width = joint_rows.FRICTION_IMPEDANCE
            wp.launch(joint_rows.mjw_friction_impedance, dim=mw.dof_solimp.shape, device=device,
                      inputs=[mw.dof_solimp, float(d0), float(width)])


@upstream.constants_on_c
@upstream.no_excludes_with_newton_contacts
@upstream.around_warp_step
class SolverMuJoCoWarp(_newton().solvers.SolverMuJoCo):
    """Newton's SolverMuJoCo on MuJoCo-Warp with PhysX's joint rows (see the module docstring).
    Without joint rows (no DOF friction or velocity limit) it is Newton's solver unchanged,
    but for the MuJoCo contact exclusions it skips when the contacts are Newton's."""

    def __init__(self, model: newton.Model, **kwargs: Any):
        self.newton_contacts = not kwargs.get("use_mujoco_contacts", True)
        super().__init__(model, **kwargs)
        fixed_child_frames(self)
        floor_contact_weights(self)
        self.limits_dt = None        # the step the limit rows were made stable for (stable_limits)
        self.jr = None               # _Tables, None: none yet or the model changed
        self.jr_next = None          # (h, friction scale, friction, limits) of the next step
        self.jr_fresh = True         # some world has no last step to read (valid == 0)
        self.jr_launch = Launcher(model.device)

    def step(self, state_in: newton.State, state_out: newton.State, control: newton.Control,
             contacts: newton.Contacts | None, dt: float, **kwargs: Any) -> None:
        """SolverMuJoCo.step, its limit rows stable for `dt` (stable_limits) first."""
        if dt != self.limits_dt:
            stable_limits(self, dt)
            self.limits_dt = dt
        super().step(state_in, state_out, control, contacts, dt, **kwargs)

    def set_constants(self) -> bool:
        """Newton computes MuJoCo's constants on MuJoCo-Warp (upstream.constants_on_c)."""
        return False

    def constants_set(self) -> None:
        """After Newton computed MuJoCo's constants (upstream.constants_on_c)."""
        floor_contact_weights(self)

    def begin_joint_rows(self, dev: DeviceTables, h: float, friction_scale: float) -> None:
        """The next step of `h` s runs the joint rows of `dev` (dev.joint_friction: friction
        bounds, `friction_scale` per unit of mu |W|, Stepper.friction_scale; dev.velocity_clamp:
        velocity limits); the tables are made once, remade after model changes."""
        friction = bool(dev.joint_friction)
        if self.mj_model.nv == 0:
            return
        if self.jr is None or self.jr.friction != friction:
            self.jr = _Tables(self, dev, friction)
            self.jr_fresh = True
        self.jr_next = (float(h), float(friction_scale), friction, bool(dev.velocity_clamp))

    def before_warp_step(self) -> None:
        """Before MuJoCo-Warp's step: the friction bounds of this step into dof_frictionloss."""
        p = self.jr_next
        if p is None or not p[2]:
            return
        t, d, launch = self.jr, self.mjw_data, self.jr_launch
        n = d.nworld
        fields = (d.cdof, d.cdof_dot, d.crb, d.cinert, d.cvel, d.subtree_com, d.xipos, d.qacc_smooth)
        launch("jr_before", joint_rows.mjw_before, n,
               (d.qfrc_applied, d.xfrc_applied, *fields, t.tree, t.rows, t.frames))
        if self.jr_fresh:
            self._forward_smooth()
            launch("jr_fresh", joint_rows.mjw_fresh, n,
                   (d.qvel, d.qfrc_applied, *fields, t.valid, t.frames, t.qfrc_prev))
            self.jr_fresh = False
        launch("jr_friction", joint_rows.friction_bounds, n,
               (t.rows, t.frames, t.tree, t.scratch, t.armature, t.mu, t.gravity, t.qfrc_prev, p[1], t.bound),
               split=True)
        launch("jr_friction_out", joint_rows.mjw_friction_out, n,
               (t.bound, d.qvel, d.qfrc_applied, self.mjw_model.dof_frictionloss, t.frames, t.qfrc_prev))

    def after_warp_step(self) -> None:
        """After MuJoCo-Warp's step: the velocity limits as joint impulses, in mjw_data."""
        p, self.jr_next = self.jr_next, None
        if p is None or not p[3]:
            return
        t, d, launch = self.jr, self.mjw_data, self.jr_launch
        n = d.nworld
        launch("jr_after", joint_rows.mjw_after, n,
               (d.qpos, d.qvel, d.cdof, d.crb, t.vmax, t.tree, t.rows, t.frames, t.over))
        launch("jr_limits", joint_rows.velocity_limits, n,
               (t.rows, t.frames, t.tree, t.scratch, t.armature, t.vmax, p[0], t.hits), split=True)
        launch("jr_unpack", joint_rows.mjw_unpack, n, (t.rows, t.tree, t.over, d.qpos, d.qvel))

    def _forward_smooth(self) -> None:
        """MuJoCo-Warp's fields of the current state and inputs that friction_bounds reads
        (kinematics, inertias, velocities, unconstrained accelerations: the smooth stages of
        its forward pass; the full pass where those stages alone would differ from it). The step
        that follows recomputes all of them."""
        import mujoco_warp as mjwarp
        m, d = self.mjw_model, self.mjw_data
        full = (m.ntendon > 0 or int(m.opt.integrator) == int(mjwarp.IntegratorType.DISCRETE)
                or bool(m.opt.enableflags & mjwarp.EnableBit.SLEEP))
        if full:
            mjwarp.forward(m, d)
            return
        mjwarp.fwd_kinematics(m, d)
        mjwarp.crb(m, d)
        mjwarp.factor_m(m, d)
        mjwarp.transmission(m, d)
        mjwarp.fwd_velocity(m, d)
        mjwarp.fwd_actuation(m, d)
        mjwarp.fwd_acceleration(m, d)

    def reset(self, state: newton.State, world_mask: wp.array | None = None, flags: int | None = None) -> None:
        """SolverMuJoCo.reset; the worlds reset read their own fields for the next friction bounds."""
        super().reset(state, world_mask, flags=flags)
        t = getattr(self, "jr", None)
        if t is not None:
            if world_mask is None:
                t.valid.zero_()
            else:
                _wp().launch(joint_rows.mjw_forget, dim=self.mjw_data.nworld, inputs=[world_mask, t.valid],
                             device=self.model.device)
        self.jr_fresh = True

    def notify_model_changed(self, flags: int) -> None:
        """SolverMuJoCo.notify_model_changed; after a change of DOF properties or gravity the
        joint rows' tables are made again (limits, friction, armature, gravity; Newton may have
        rewritten dof_solimp). Other changes keep them (a fixed root's pose is written through
        JOINT_PROPERTIES at every reset of it)."""
        super().notify_model_changed(flags)
        self.limits_dt = None            # (Newton may have rewritten the limits' solref)
        F = _newton().ModelFlags
        if int(flags) & int(F.JOINT_DOF_PROPERTIES | F.JOINT_DOF_FORCE_PROPERTIES | F.JOINT_DOF_INERTIAL_PROPERTIES
                            | F.MODEL_PROPERTIES):
            self.jr = None
