"""The step path: one `simulate` call. Applies efforts, then for each solver call (a substep;
all substeps at once on the MuJoCo C pipeline, see Stepper._solver_calls) the body wrenches
(user forces, gravity switches, damping, attractors), Newton's collision where gymlike runs it,
the solver step, DOF velocity limits and body speed caps; then clears the one-call inputs,
advances time and runs the NaN/divergence guard. Every stage is one kernel launch over all
entities (no Python loop over envs or actors), re-launched from recorded launches
(core/launch.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import time

import numpy as np

from .forces import dynamics
from .enums import SimType
from .errors import SimulationNaNError, listed
from .launch import Launcher
from .tables import spans
from .runtime import kernels as _kernels, newton as _newton, wp as _wp

if TYPE_CHECKING:
    import warp as wp


class Stepper:
    """The step path of one sim, with what it keeps between calls."""

    def __init__(self, sim):
        self.sim = sim
        self.launch = Launcher(sim.device)
        self.dirty_body_f = set()     # states whose body_f holds a wrench from an earlier substep
        self.effort_f_live = False    # dev.effort_f holds efforts of the last simulate (SIM_FLEX on XPBD)
        self.nan_unread = 0           # simulate calls since the NaN flags were last read
        self.clamped = _wp().zeros(1, dtype=_wp().int32, device=sim.device)   # a velocity clamp happened
        # seconds of wall time inside the solver's step and Newton's collision, summed when a dict
        # is set here (gymlike.bench; None: not measured)
        self.timing = None
        self._hosts = {}

    def _host(self, arr: wp.array):
        """A kept numpy view of a CPU array."""
        h = self._hosts.get(id(arr))
        if h is None or h[0] is not arr:
            h = self._hosts[id(arr)] = (arr, arr.numpy())
        return h[1]

    def flag(self, arr: wp.array) -> int:
        """arr[0] as an int (on the CPU through a kept numpy view of the array)."""
        if not self.sim.device.startswith("cpu"):
            return int(arr.numpy()[0])
        return int(self._host(arr)[0])

    def zero(self, arr: wp.array) -> None:
        """arr.zero_() (on the CPU a numpy fill of a kept view: no launch through Warp)."""
        if self.sim.device.startswith("cpu"):
            self._host(arr).fill(0)
        else:
            arr.zero_()

    def simulate(self) -> None:
        """One `simulate` call: sim.params.substeps solver substeps of dt / substeps s each, with the
        pending efforts, targets and wrenches applied, then the NaN guard."""
        sim = self.sim
        sim.apply_model_changes()            # (property changes since the last step, told at once)
        n_sub = max(1, int(sim.params.substeps))
        h = float(sim.params.dt) / n_sub
        d = sim.dev
        launch = self.launch
        b = sim.backend                       # (what the solver path does itself: core/backend.py)
        # efforts: on MuJoCo C (every substep on it) straight into MuJoCo's rows, else Newton's joint_f
        on_rows = bool(d.efforts_pending and b.write_efforts(d))
        # SIM_FLEX: efforts + drive stiffness every substep (below); on XPBD every effort, applied
        # as the articulation's response (dynamics.XpbdJointForces)
        articulated = d.xpbd_articulated and d.efforts_pending
        drive_forces = d.explicit_drives or articulated
        if d.xpbd_articulated:
            if self.effort_f_live and not d.efforts_pending:
                d.effort_f.zero_()   # (read by dynamics.DofForces: the last substep's efforts)
            self.effort_f_live = d.efforts_pending
        if d.efforts_pending and not on_rows and not drive_forces:
            launch("efforts", _kernels().apply_dof_efforts, d.num_dofs,
                   (d.dof_effort, d.dof_mode, d.dof_effort_limit, d.dof_effort_scale, d.dof_qd, sim.control.joint_f))
        attractors = sim.attractors
        if attractors is not None and not attractors.items:
            attractors = None
        need_wrench = d.forces_pending or d.passive_forces or attractors is not None
        dirty = self.dirty_body_f
        model = sim.model
        # (on the C pipeline the state may lag MuJoCo's data until read: read it current where
        # body or joint states are used, sim.sync_state)
        for nstep, kw in self._solver_calls(n_sub, attractors is not None, need_wrench):
            on_c = b.on_rows(kw)
            # body wrenches on MuJoCo C's rows (no Newton state needed), else from Newton's state
            on_rows_w = need_wrench and attractors is None and on_c and b.row_wrenches_ok()
            synced = (need_wrench and not on_rows_w) or sim.pipeline is not None
            s_in, s_out = (sim.state if synced else sim.stepping_state), sim.state_next
            if need_wrench and not on_rows_w:
                launch(("wrenches", id(s_in)), _kernels().body_wrenches, d.num_bodies,
                       (s_in.body_q, s_in.body_qd, model.body_mass, model.body_inertia,
                        model.body_world, model.gravity, d.body_force, d.no_gravity,
                        d.lin_damp, d.ang_damp, h * nstep, s_in.body_f))
                dirty.add(id(s_in))
                if attractors is not None:
                    attractors.launch(s_in, h)
            elif id(s_in) in dirty:      # (the solvers only read body_f: a zeroed one stays zero)
                s_in.body_f.zero_()
                dirty.discard(id(s_in))
            # Newton collision (XPBD; MuJoCo + static meshes)
            if sim.pipeline is not None and sim.contacts is not None:
                t0 = self._clock()
                sim.pipeline.collide(s_in, sim.contacts)
                self._lap("collide", t0)
            if drive_forces:
                # the substep's DOF positions from XPBD's bodies, then the joint forces
                _newton().eval_ik(model, s_in, s_in.joint_q, s_in.joint_qd)
                launch(("dforces", id(s_in)), _kernels().flex_dof_forces, d.num_dofs,
                       (d.dof_effort, d.dof_mode, d.dof_effort_limit, d.dof_effort_scale, d.dof_explicit,
                        d.dof_stiffness, d.dof_q, d.dof_qd, sim.control.joint_target_q, s_in.joint_q,
                        int(articulated), d.effort_f, sim.control.joint_f))
                if articulated:
                    if id(s_in) not in dirty:
                        s_in.body_f.zero_()       # (nothing else wrote it this substep)
                        dirty.add(id(s_in))
                    dynamics.xpbd_joint_forces(sim).apply(s_in, d.effort_f)
            # PhysX's joint rows (core/joint_rows.py): DOF friction bounds before the step and
            # velocity limits after it, on MuJoCo C or inside MuJoCo-Warp's step (core/mjw.py)
            joints = b.joint_rows(kw) and (d.velocity_clamp or d.joint_friction)
            if on_c:
                kw = dict(kw, substeps=nstep, efforts=d.efforts_pending and not on_rows,
                          body_forces=need_wrench and not on_rows_w, efforts_on_rows=on_rows,
                          wrenches=d if on_rows_w else None)
            if joints:
                b.begin_joint_rows(d, h, self.friction_scale())
            t0 = self._clock()
            b.step(s_in, s_out, h, kw)
            self._lap("solver", t0)
            if joints and on_c and d.velocity_clamp:
                # PhysX's DOF velocity limits as joint impulses of the step (MuJoCo has none;
                # core/joint_rows.py, which also gave the step its joint friction bounds)
                b.apply_joint_rows(h)
            if on_c and (d.speed_caps or sim.check_nan):
                # one pass over MuJoCo C's rows: the speed bounds read by the caps and the NaN
                # guard below
                b.check_rows(d)
            elif d.velocity_clamp and not on_c and not joints:
                sim.sync_state()
                launch(("vclamp", id(s_out)), _kernels().clamp_dof_velocities, d.num_dofs,
                       (d.dof_qd, d.dof_velocity_limit, s_out.joint_qd, self.clamped))
            # body speed caps (Isaac Gym's max_linear/angular_velocity); the C step applies them on
            # MuJoCo's rows (bounds first, exact speeds where a body may reach its caps)
            caps = d.speed_caps and (not on_c or not b.cap_speeds(d))
            if caps or d.speed_caps_xpbd:
                if caps:
                    sim.sync_state()
                d.actor_speed_scale.fill_(1.0)
                launch(("bspeed", id(s_out)), _kernels().body_speed_scale, d.num_bodies,
                       (s_out.body_qd, d.body_actor, d.body_lin_cap, d.body_ang_cap, d.actor_speed_scale))
                if caps:
                    launch(("ascale", id(s_out)), _kernels().scale_actor_velocities, d.num_actors,
                           (d.actor_qd0, d.actor_nqd, d.actor_speed_scale, s_out.joint_qd, self.clamped))
                else:                     # (XPBD: the bodies are the state, joint_qd is stale)
                    launch(("bscale", id(s_out)), _kernels().scale_actor_bodies, d.num_bodies,
                           (d.body_actor, d.actor_speed_scale, s_out.body_qd))
            if caps and on_c and self.flag(self.clamped):
                # the same scale on MuJoCo's rows of the capped actors (velocities are linear in
                # the joint velocities), and their bodies follow Newton's scaled joint velocities
                self.clamped.zero_()
                scale = d.actor_speed_scale.numpy()
                capped = np.nonzero(scale < 1.0)[0]
                host = sim.host
                b.scale_velocities(spans(host.actor_qd0[capped], host.actor_nqd[capped]),
                                   np.repeat(scale[capped], host.actor_nqd[capped]))
                sim.defer_kinematics(host.actor_articulation[capped], len(capped))
            sim.state, sim.state_next = s_out, s_in
        if d.speed_caps or (d.velocity_clamp and not b.limits_in_step):
            # MuJoCo reads joint_qd, so the clamped velocities act from the next substep on; the
            # body velocities follow them once per simulate, and only when a clamp happened (on
            # CUDA the flag is not read back, to keep the device asynchronous); on MuJoCo C when
            # the state is next read
            if not sim.device.startswith("cpu") or self.flag(self.clamped):
                self.clamped.zero_()
                b.bodies_follow_joints()
        b.cur.bodies_stepped(joints_follow=sim.type != SimType.SIM_FLEX)   # (XPBD: bodies only)
        # efforts and body forces last one simulate() call
        if d.efforts_pending:
            if not on_rows:             # (on the rows the effort kernel consumed them)
                if not d.explicit_drives:    # (explicit drives rewrite joint_f every substep)
                    sim.control.joint_f.zero_()
                self.zero(d.dof_effort)
            d.efforts_pending = False
        if d.forces_pending:
            self.zero(d.body_force)
            d.forces_pending = False
        sim.time += float(sim.params.dt)
        sim.frame += 1
        for listener in sim.listeners:
            listener.on_simulate()
        if sim.check_nan:
            self.check_nan()

    def friction_scale(self) -> float:
        """PhysX's joint friction bound per unit of mu |W| (core/joint_rows.py): 1, and with the
        TGS solver (solver_type 1, Isaac Gym's default), which applies the bound afresh in its
        velocity iterations too, 1 + velocity / position iterations."""
        px = self.sim.params.physx
        if int(px.solver_type) != 1:
            return 1.0
        return 1.0 + max(0, int(px.num_velocity_iterations)) / max(1, int(px.num_position_iterations))

    def _clock(self) -> float:
        return time.perf_counter() if self.timing is not None else 0.0

    def _lap(self, key: str, t0: float) -> None:
        if self.timing is not None:
            self.timing[key] = self.timing.get(key, 0.0) + time.perf_counter() - t0

    def _solver_calls(self, n_sub, attractors, need_wrench=False):
        """(substeps, solver.step keyword arguments) of each solver call of one simulate.
        Observables (contact forces...) are read from the last substep, so earlier ones skip
        them. On the C pipeline the substeps run in one call (one MuJoCo rollout of several
        steps, one pass of Newton's state conversion): body wrenches are then evaluated once
        per call (damping in its stable form v / (1 + c dt) over the call's span), velocity
        limits and speed caps applied after it. Attractors, stiff springs on the body pose,
        keep their per-substep evaluation."""
        kw = self.sim.step_kwargs
        d = self.sim.dev
        b = self.sim.backend
        # PhysX's joint rows act at every substep: DOF friction bounds before it (one substep
        # per call); velocity limits after it, which the C step keeps inside one call of all
        # substeps where it can redo a world's substeps (SolverMuJoCoC.step: body wrenches
        # computed on its rows, or none)
        merged = (not attractors and b.merges_substeps and not d.joint_friction
                  and (not d.velocity_clamp or not need_wrench or b.row_wrenches_ok()))
        if merged:
            first = n_sub - 1 if kw else n_sub       # a step filling Newton's observables runs on MuJoCo-Warp
            return ([(first, {})] if first else []) + ([(1, kw)] if kw else [])
        return [(1, {})] * (n_sub - 1) + [(1, kw)]

    # NaN check: one kernel per simulate flags the worlds whose bodies hold NaN/inf; the flags
    # accumulate on the device and are read back every `sim.nan_check_interval` simulate calls
    # (1: every call, which on the CPU costs a pointer read; on CUDA each read is a device
    # sync, so a larger interval lets the GPU run ahead). The flags are zeroed only after a
    # detection, so a clean run pays one launch and the read.
    def check_nan(self) -> None:
        """Flag worlds whose state went non-finite or diverged; every nan_check_interval frames, raise
        SimulationNaNError (its `envs`: the env indices) if any was flagged or MuJoCo stopped."""
        sim, d = self.sim, self.sim.dev
        b = sim.backend
        # (the C step first checks MuJoCo's state: finite, provably below the speed bound and
        # within the DOF limits' margin leaves nothing to flag, and needs no Newton conversion)
        if not b.surely_sound(d):
            st = sim.state
            self.launch(("nan", id(st)), _kernels().find_nan_worlds, d.num_bodies,
                        (st.body_q, st.body_qd, d.body_env, d.nan_worlds, d.nan_count))
            if not b.cur.joints_stale:    # (XPBD leaves joint coordinates stale: bodies only)
                self.launch(("limits", id(st)), _kernels().find_dofs_past_limits, d.num_dofs,
                            (st.joint_q, d.dof_q, d.dof_qd, sim.model.joint_limit_lower,
                             sim.model.joint_limit_upper, d.dof_env, d.nan_worlds, d.nan_count))
        self.nan_unread += 1
        if self.nan_unread < max(1, int(sim.nan_check_interval)):
            return
        first = sim.frame - self.nan_unread + 1
        self.nan_unread = 0
        b.check_capacity()
        failed = b.take_failure()
        if failed is not None:       # MuJoCo raised in some worlds (they kept their state)
            shown = listed(failed[0])
            todo = failed[2]
            err = SimulationNaNError(f"simulate: MuJoCo stopped env(s) {shown} at frame {sim.frame} (they kept "
                                     f"their state): {' '.join(failed[1].split())}; {todo}")
            err.envs = failed[0]
            raise err
        if self.flag(d.nan_count):
            bad = np.nonzero(d.nan_worlds.numpy())[0].tolist()
            inputs = [_kernels().BAD_INPUT_KINDS[k] for k in np.nonzero(d.bad_input.numpy())[0]]
            d.nan_count.zero_()
            d.nan_worlds.zero_()
            d.bad_input.zero_()
            shown = listed(bad)
            when = f"at frame {sim.frame}" if first == sim.frame else f"between frames {first} and {sim.frame}"
            if inputs:   # the cause was given through the tensor API: name it rather than gains
                err = SimulationNaNError(
                    f"simulate: {' and '.join(inputs)} given for env(s) {shown} hold NaN/inf or values beyond "
                    f"1e15 ({when}); fix those inputs, then reset those envs")
            else:
                err = SimulationNaNError(
                    f"simulate: the state became NaN/inf or diverged (a body speed above 1e5, a body position beyond "
                    f"1e6 m, or a DOF more than 1000 rad or m past its limits) in env(s) {shown} {when}; "
                    "check gains (too stiff for dt), masses and applied forces, then reset those envs")
            err.envs = bad     # env indices, for code that resets them and goes on (gymlike.envs)
            raise err

