"""DOF forces, Jacobians and mass matrices.

**DOF force** (acquire_dof_force_tensor, get_actor_dof_forces): the generalized force each DOF's
joint transmits to its child body, i.e. the incoming joint wrench (Newton's `body_parent_f`
observable: force and torque at the child's COM, world frame) projected on the DOF's motion
axis: a torque (N m) for a revolute DOF, a force (N) for a prismatic one. It is the total the
joint applies along the DOF: drive (PD) and effort forces, DOF friction and damping, and
joint-limit forces (the constraint reaction orthogonal to the DOF does not project). For a
PD-held arm at rest it equals the gravity torque at each joint. The value is that of the last
substep of the last simulate. Both engines report `body_parent_f`: MuJoCo computes it exactly
from its post-constraint dynamics (`mj_rnePostConstraint`); Newton's XPBD derives it from its
position corrections, which is an approximation (20% off on a stiff PD chain in our tests).

**Jacobian** (acquire_jacobian_tensor): Isaac Gym's layout, (num_envs, links, 6, columns):
rows [linear velocity (3), angular velocity (3)] of every link in world axes, the linear rows
for the link's **centre of mass** (as PhysX and Newton report them; the rigid body state tensor
gives the same COM velocity, so `J @ qd` equals those rows); for a floating base the 6 root
columns (COM linear velocity, angular velocity of the root, world frame) come first and every
link has a row block; for a fixed base the base link's (all-zero) rows are dropped, so link
`i` of the actor is row block `i - 1` (Isaac Gym's `jacobian[:, hand_index - 1]` idiom).

**Mass matrix** (acquire_mass_matrix_tensor): the joint-space inertia in the same generalized
coordinates as the Jacobian's columns, including DOF armature (what the solver integrates).

Both use `newton.eval_jacobian` / `newton.eval_mass_matrix` on the named actor's articulations
only (an articulation mask), then one gather launch into the gymlike-owned buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import warp as wp

from . import observables as OBS
from .. import upstream
from ..errors import GymlikeTypeError, GymlikeValueError
from ..errors import listed, warn
from ..runtime import newton as _newton, call_name

if TYPE_CHECKING:
    import newton

    from ..sim import Actor, Sim


# ============================================================================ kernels
@wp.kernel
def _dof_forces(dof_qd: wp.array(dtype=wp.int32), dof_child: wp.array(dtype=wp.int32),
                joint_S_s: wp.array(dtype=wp.spatial_vector), body_parent_f: wp.array(dtype=wp.spatial_vector),
                body_q: wp.array(dtype=wp.transform), body_com: wp.array(dtype=wp.vec3),
                out: wp.array(dtype=wp.float32)):
    """tau = S . W with the motion axis S moved to the child's COM, where W is referenced."""
    d = wp.tid()
    S = joint_S_s[dof_qd[d]]
    c = dof_child[d]
    x = wp.transform_point(body_q[c], body_com[c])
    w = wp.spatial_bottom(S)
    v = wp.spatial_top(S) + wp.cross(w, x)
    W = body_parent_f[c]
    out[d] = wp.dot(v, wp.spatial_top(W)) + wp.dot(w, wp.spatial_bottom(W))


@wp.kernel
def _gather_jacobian(J: wp.array3d(dtype=wp.float32), env_art: wp.array(dtype=wp.int32),
                     row_block: wp.array(dtype=wp.int32), col: wp.array(dtype=wp.int32),
                     out: wp.array4d(dtype=wp.float32)):
    e, l, c = wp.tid()
    a = env_art[e]
    r0 = row_block[l] * 6
    k = col[c]
    for i in range(6):
        out[e, l, i, c] = J[a, r0 + i, k]


@wp.kernel
def _gather_mass(H: wp.array3d(dtype=wp.float32), env_art: wp.array(dtype=wp.int32),
                 col: wp.array(dtype=wp.int32), out: wp.array3d(dtype=wp.float32)):
    e, r, c = wp.tid()
    out[e, r, c] = H[env_art[e], col[r], col[c]]


# ============================================================================ DOF forces
@wp.kernel
def _add_efforts(dof_qd: wp.array(dtype=wp.int32), effort_f: wp.array(dtype=wp.float32),
                 out: wp.array(dtype=wp.float32)):
    d = wp.tid()
    out[d] = out[d] + effort_f[dof_qd[d]]


class DofForces:
    def __init__(self, sim, what):
        self.sim = sim
        self.observed = OBS.require(sim, {OBS.BODY_PARENT_F}, what)
        h, m = sim.host, sim.model
        actors = sim.all_actors()
        child = m.joint_child.numpy()
        dof_joint = [a.asset.joint_newton[a.asset.dof_joint] + int(j0)
                     for a, j0 in zip(actors, h.actor_joint0) if a.asset.dof_count]
        dof_joint = np.concatenate(dof_joint) if dof_joint else np.zeros(0, np.int64)
        dev = sim.device
        self.dof_child = wp.array(child[dof_joint].astype(np.int32), dtype=wp.int32, device=dev)
        self.joint_S_s = wp.zeros(max(1, m.joint_dof_count), dtype=wp.spatial_vector, device=dev)
        self.out = wp.zeros(max(1, h.num_dofs), dtype=wp.float32, device=dev)

    def refresh(self, out: wp.array | None = None) -> wp.array:
        """Fill `out` (a float32 Warp array of num_dofs) or the internal buffer; return it."""
        sim = self.sim
        out = self.out if out is None else out
        n = sim.host.num_dofs
        if n == 0:
            return out
        if self.observed.steps == 0:
            out.zero_()
            return out
        if self.observed.c is not None:     # MuJoCo C: its joint forces of the last step
            self.observed.c.write_dof_forces(sim.dev.dof_qd, out)
            return out
        sim.sync_joint_state()
        m, st = sim.model, sim.state
        wp.launch(upstream.motion_subspace_kernel(), dim=m.joint_count, device=sim.device,
                  inputs=[m.joint_articulation, None, m.joint_type, m.joint_parent, m.joint_child,
                          m.joint_q_start, m.joint_qd_start, m.joint_X_p, m.joint_axis, st.joint_q,
                          m.joint_dof_dim, st.body_q, m.body_com],
                  outputs=[self.joint_S_s])
        wp.launch(_dof_forces, dim=n, device=sim.device,
                  inputs=[sim.dev.dof_qd, self.dof_child, self.joint_S_s, self.observed.obs.body_parent_f,
                          st.body_q, m.body_com, out])
        if sim.dev.xpbd_articulated:     # (efforts reach XPBD as body wrenches: XpbdJointForces)
            wp.launch(_add_efforts, dim=n, device=sim.device, inputs=[sim.dev.dof_qd, sim.dev.effort_f, out])
        return out


def dof_forces(sim: Sim, what: str) -> DofForces:
    """The sim's DofForces reader (made, and DOF-force capture switched on, on first use)."""
    return sim.component("dof_forces", lambda: DofForces(sim, what))


def actor_dof_forces_host(actor: Actor, what: str | None = None) -> np.ndarray:
    """The actor's DOF forces (N or N m) of the last simulate call, (dofs,) float32."""
    what = what or call_name()
    sim = actor.env.sim
    sim.ensure_ready(what)
    h = sim.host
    a = actor.sim_index
    if sim.dof_forces is None:
                warn(f"gymlike: {what} switched DOF-force capture on; readings start with the next "
                     "simulate call (acquire_dof_force_tensor or enable_actor_dof_force_sensors "
                     "before the loop avoids this)", RuntimeWarning)
    buf = dof_forces(sim, what).refresh()
    d0, n = int(h.actor_dof0[a]), int(h.actor_ndof[a])
    if n == 0:
        return np.zeros(0, np.float32)
    return buf[d0:d0 + n].numpy().astype(np.float32)


# ============================================================================ Jacobians / mass matrices
class ArticulationTensors:
    """Index tables for one actor name: its articulation in each env and the Isaac Gym rows
    and columns of Newton's padded per-articulation Jacobian / mass matrix."""

    def __init__(self, sim, name, what):
        if not isinstance(name, str):
            raise GymlikeTypeError(f"{what}: the actor name must be a str, got {type(name).__name__}")
        h, m = sim.host, sim.model
        actors = sim.all_actors()
        index = {id(a): i for i, a in enumerate(actors)}
        missing, per_env = [], []
        for env in sim.envs:
            match = [a for a in env.actors if a.name == name]
            if not match:
                missing.append(env.index)
            else:
                per_env.append(match[0])
        if missing:
            names = sorted({a.name for e in sim.envs for a in e.actors})
            shown = listed(missing)
            raise GymlikeValueError(f"{what}: no actor named '{name}' in env(s) {shown}; actor names: "
                                    f"{', '.join(repr(n) for n in names[:20])}")
        if not per_env:
            raise GymlikeValueError(f"{what}: no actor named '{name}': the sim's envs hold no actors")
        asset = per_env[0].asset
        other = [a.env.index for a in per_env if a.asset is not asset]
        if other:
            raise GymlikeValueError(f"{what}: actor '{name}' is created from different assets in env(s) "
                                    f"{other[:20]}; the tensor needs the same articulation in every env")
        ia = [index[id(a)] for a in per_env]
        self.asset = asset
        self.floating = bool(asset.floating)
        art = h.actor_articulation[ia].astype(np.int32)
        if (art < 0).any():
            raise GymlikeValueError(f"{what}: actor '{name}' is not an articulation in Newton")
        # row blocks: the articulation's joint whose child is each Isaac Gym link
        a0 = ia[0]
        j0, b0 = int(h.actor_joint0[a0]), int(h.actor_body0[a0])
        art_start = int(m.articulation_start.numpy()[art[0]])
        child = m.joint_child.numpy()
        nj = asset.newton_joint_count
        block_of_body = {int(child[j]) - b0: j - art_start for j in range(j0, j0 + nj)}
        # a fixed base (root welded to the world) has all-zero rows: Isaac Gym drops them; a root
        # attached to the world by a DOF (an MJCF hinge on the root body) keeps its rows
        newton = _newton()
        welded = int(m.joint_type.numpy()[j0]) == int(newton.JointType.FIXED)
        links = list(range(1 if welded else 0, asset.body_count))
        self.rows = np.array([block_of_body[l] for l in links], np.int32)
        dof_cols = asset.dof_qd.astype(np.int64) + (int(h.actor_qd0[a0]) - int(m.joint_qd_start.numpy()[art_start]))
        cols = (list(range(6)) if self.floating else []) + dof_cols.tolist()
        self.cols = np.array(cols, np.int32)
        self.num_links, self.num_cols = len(links), len(cols)
        dev = sim.device
        self.env_art = wp.array(art, dtype=wp.int32, device=dev)
        self.row_block = wp.array(self.rows if len(self.rows) else np.zeros(1, np.int32), dtype=wp.int32, device=dev)
        self.col = wp.array(self.cols if len(self.cols) else np.zeros(1, np.int32), dtype=wp.int32, device=dev)
        mask = np.zeros(m.articulation_count, bool)
        mask[art] = True
        self.mask = wp.array(mask, dtype=wp.bool, device=dev)
        self.num_envs = len(sim.envs)


class Dynamics:
    """Shared Newton work buffers (padded per articulation) and the per-name index tables."""

    def __init__(self, sim):
        self.sim = sim
        self.tables = {}
        self.J = self.H = self.S = self.I = None

    def table(self, name: str, what: str) -> ArticulationTensors:
        """The index tables of the actors named `name` (made on first use)."""
        t = self.tables.get(name)
        if t is None:
            t = self.tables[name] = ArticulationTensors(self.sim, name, what)
        return t

    def _buffers(self):
        m, dev = self.sim.model, self.sim.device
        if self.J is None:
            mj, md = max(1, m.max_joints_per_articulation), max(1, m.max_dofs_per_articulation)
            self.J = wp.zeros((m.articulation_count, mj * 6, md), dtype=wp.float32, device=dev)
            self.H = wp.zeros((m.articulation_count, md, md), dtype=wp.float32, device=dev)
            self.S = wp.zeros(max(1, m.joint_dof_count), dtype=wp.spatial_vector, device=dev)
            self.I = wp.zeros(max(1, m.body_count), dtype=wp.spatial_matrix, device=dev)

    def refresh_jacobian(self, name: str, out: wp.array) -> None:
        """Fill `out` (float32, the jacobian tensor of the actors named `name`) from Newton's
        Jacobians at the current joint state."""
        newton = _newton()
        t = self.tables[name]
        if t.num_links == 0 or t.num_cols == 0:
            return
        self._buffers()
        self.sim.sync_joint_state()
        newton.eval_jacobian(self.sim.model, self.sim.state, J=self.J, joint_S_s=self.S, mask=t.mask)
        wp.launch(_gather_jacobian, dim=(t.num_envs, t.num_links, t.num_cols), device=self.sim.device,
                  inputs=[self.J, t.env_art, t.row_block, t.col, out])

    def refresh_mass_matrix(self, name: str, out: wp.array) -> None:
        """Fill `out` (float32, the mass-matrix tensor of the actors named `name`) from Newton's
        mass matrices at the current joint state."""
        newton = _newton()
        t = self.tables[name]
        if t.num_cols == 0:
            return
        self._buffers()
        self.sim.sync_joint_state()
        newton.eval_mass_matrix(self.sim.model, self.sim.state, H=self.H, body_I_s=self.I,
                                joint_S_s=self.S, mask=t.mask)
        wp.launch(_gather_mass, dim=(t.num_envs, t.num_cols, t.num_cols), device=self.sim.device,
                  inputs=[self.H, t.env_art, t.col, out])


def dynamics(sim: Sim) -> Dynamics:
    """The sim's Dynamics (Jacobian and mass-matrix buffers, made on first use)."""
    return sim.component("dynamics", lambda: Dynamics(sim))


# ============================================================ joint forces on XPBD (SIM_FLEX)
@wp.kernel
def _articulated_wrenches(acc: wp.array2d(dtype=wp.float32), row_body: wp.array2d(dtype=wp.int32),
                          body_q: wp.array(dtype=wp.transform), body_mass: wp.array(dtype=float),
                          body_inertia: wp.array(dtype=wp.mat33), body_f: wp.array(dtype=wp.spatial_vector)):
    """Body b (the child of the articulation's i-th joint) gets the wrench of its part of the
    articulated acceleration: m a (COM, world) and I_world alpha."""
    a, i = wp.tid()
    b = row_body[a, i]
    if b < 0:
        return
    k = 6 * i
    lin = wp.vec3(acc[a, k], acc[a, k + 1], acc[a, k + 2])
    ang = wp.vec3(acc[a, k + 3], acc[a, k + 4], acc[a, k + 5])
    r = wp.transform_get_rotation(body_q[b])
    torque = wp.quat_rotate(r, body_inertia[b] * wp.quat_rotate_inv(r, ang))
    body_f[b] = body_f[b] + wp.spatial_vector(body_mass[b] * lin, torque)


class XpbdJointForces:
    """SIM_FLEX on Newton's XPBD: DOF efforts applied as the body wrenches of the articulation's
    exact response, qdd = H^-1 tau (H with armature), a = J qdd, wrench = (m a, I alpha) per
    body. XPBD itself turns a joint force into a torque on the child alone and leaves the chain
    to its constraint iterations: a unit torque on a Franka's joint 3 moved it 63x faster than
    the joint-space inertia allows (joint 1: 5x), which made an impedance controller's torques
    diverge; the wrenches give XPBD the accelerations the joints allow, so its constraints have
    nothing to undo. (Drive stiffness applied as a force stays Newton's joint_f: held against
    gravity, which XPBD resolves its own way, the two balance where XPBD's errors cancel.)
    Articulations whose H is singular get Newton's joint_f instead."""

    def __init__(self, sim: Sim):
        import torch
        m, dev = sim.model, sim.device
        self.sim = sim
        A = m.articulation_count
        nj, nd = max(1, m.max_joints_per_articulation), max(1, m.max_dofs_per_articulation)
        start = m.articulation_start.numpy()
        qd_start = m.joint_qd_start.numpy()
        child = m.joint_child.numpy()
        # row block i of articulation a: the child of its i-th joint; column c: DOF qd0(a) + c
        joints = np.arange(start[0], start[-1]) if A else np.zeros(0, np.int64)
        art = np.searchsorted(start, joints, side="right") - 1
        row_body = np.full((A, nj), -1, np.int32)
        row_body[art, joints - start[:-1][art]] = child[joints]
        q0, q1 = qd_start[start[:-1]], qd_start[start[1:]]
        col_qd = np.full((A, nd), -1, np.int64)
        for_cols = np.arange(nd)[None, :]
        valid = for_cols < (q1 - q0)[:, None]
        col_qd[valid] = (q0[:, None] + for_cols)[valid]
        self.row_body = wp.array(row_body, dtype=wp.int32, device=dev)
        tdev = wp.device_to_torch(dev)
        self.col = torch.as_tensor(np.maximum(col_qd, 0), device=tdev)
        self.valid = torch.as_tensor(valid, device=tdev)
        self.pad = torch.diag_embed((~self.valid).to(torch.float32))      # 1 on padded diagonals
        self.J = wp.zeros((A, nj * 6, nd), dtype=wp.float32, device=dev)
        self.H = wp.zeros((A, nd, nd), dtype=wp.float32, device=dev)
        self.S = wp.zeros(max(1, m.joint_dof_count), dtype=wp.spatial_vector, device=dev)
        self.I = wp.zeros(max(1, m.body_count), dtype=wp.spatial_matrix, device=dev)
        self.Jt, self.Ht = wp.to_torch(self.J), wp.to_torch(self.H)

    def apply(self, state: newton.State, tau_qd: wp.array) -> None:
        """Add to state.body_f the wrenches of the joint forces tau_qd (Newton DOF order; joint_q
        of `state` must match its bodies: eval_ik)."""
        import torch
        newton, m = _newton(), self.sim.model
        newton.eval_jacobian(m, state, J=self.J, joint_S_s=self.S)
        newton.eval_mass_matrix(m, state, H=self.H, J=self.J, body_I_s=self.I)
        src = wp.to_torch(tau_qd)
        tau = torch.where(self.valid, src[self.col], 0.0)
        qdd, info = torch.linalg.solve_ex(self.Ht + self.pad, tau.unsqueeze(-1))
        ok = (info == 0) & torch.isfinite(qdd).all(dim=(1, 2))
        qdd = torch.where(ok[:, None, None], qdd, 0.0)
        acc = torch.bmm(self.Jt, qdd).squeeze(-1).contiguous()
        wp.launch(_articulated_wrenches, dim=self.row_body.shape, device=self.sim.device,
                  inputs=[wp.from_torch(acc), self.row_body, state.body_q, m.body_mass, m.body_inertia,
                          state.body_f])
        if not bool(ok.all()):       # (a singular H: those efforts as Newton's joint_f)
            bad = self.valid & ~ok[:, None]
            jf = wp.to_torch(self.sim.control.joint_f)
            jf[self.col[bad]] += src[self.col[bad]]


def xpbd_joint_forces(sim: Sim) -> XpbdJointForces:
    """The sim's XpbdJointForces (made on first use)."""
    return sim.component("xpbd_joint_forces", lambda: XpbdJointForces(sim))
