"""The CPU pipeline on MuJoCo's C library: SIM_PHYSX sims on the CPU step their worlds with
`mujoco.rollout` (C++, all cores, no GIL, no Python loop over worlds) instead of MuJoCo-Warp on
Warp's CPU backend. Everything above the solver is unchanged: Newton's SolverMuJoCo keeps its
MuJoCo data (`mjw_data`: qpos, qvel, act, ctrl, qfrc_applied, xfrc_applied, one row per world,
numpy views on the CPU) and its conversions to and from Newton's state and control; `CStep.step`
takes the place of `SolverMuJoCo.step` and steps those rows with the template MjModel the solver
compiled (`solver.mj_model`).

MuJoCo's state is the truth between C calls: CStep carries it in float64 and converts Newton's
state into it only after something else wrote that state (gymlike's state setters and resets,
velocity clamps, a MuJoCo-Warp step), where Newton's own step converts it before every step.
Newton's control -> MuJoCo conversion runs every call and MuJoCo -> Newton state conversion
when `sim.state` is next read (Sim.defer_state_sync), both as recorded launches (`Replay`).

Per-world model parameters (masses, gains, friction, limits set through the API) live in
`mjw_model`'s per-world arrays; when a row differs from the template, that world steps a copy
of the template with its values (copies are made only for worlds that differ, after a
property change, not per step).

Not on the C path, stepped by MuJoCo-Warp instead (same data, so the two mix freely): substeps
that report solver observables (contact forces, force sensors and DOF forces come from
MuJoCo-Warp's contact and constraint arrays; only the last substep of a simulate call reports
them, so with 2 substeps half of such a sim's substeps still run in C), and sims whose contacts
come from Newton's collision pipeline (static meshes / heightfields, all envs in one world).
Each C call starts MuJoCo's solver from a zero warm start (rollout does not return the warm
start; the substeps within one call carry it), which converges to the same solution within
solver tolerance. core/step.py runs all substeps of a simulate in one call where it can.

Switch: GYMLIKE_CPU_PIPELINE=mujoco-c (the default) or warp (MuJoCo-Warp on Warp's CPU backend
for every step); see python_bindings_docs/cpu_pipeline.md.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import GymlikeValueError

CHOICES = ("mujoco-c", "warp")


def choice():
    v = os.environ.get("GYMLIKE_CPU_PIPELINE", "mujoco-c").strip().lower() or "mujoco-c"
    if v not in CHOICES:
        raise GymlikeValueError(f"GYMLIKE_CPU_PIPELINE must be one of {', '.join(CHOICES)}, got {v!r}")
    return v


def install(sim, solver, lazy=True):
    """Step `solver` with MuJoCo C when the sim qualifies; returns whether it does. `lazy`:
    Newton's state converts when `sim.state` is next read (False: after every step, for a
    solver driven outside the sim, as benchmarks/bench_tensor_api.py's raw Newton loop)."""
    if not sim.device.startswith("cpu") or choice() != "mujoco-c":
        return False
    if not getattr(solver, "mjw_model", None) or not solver.mjw_model.opt.run_collision_detection:
        return False
    stepper = CStep(solver, sim, lazy)
    solver._gymlike_c_step = stepper
    solver.step = stepper.step
    reset, notify = solver.reset, solver.notify_model_changed

    def reset_worlds(state, world_mask=None, flags=None):
        reset(state, world_mask, flags=flags)       # (zeroes act, ctrl, applied forces, warm start)
        stepper.invalidate(None if world_mask is None else world_mask.numpy()[:stepper.nworld])

    def notify_model_changed(flags):
        notify(flags)                                # (may pose mocap bodies, switch equalities)
        stepper.model_changed()
    solver.reset, solver.notify_model_changed = reset_worlds, notify_model_changed
    return True


def c_step(solver):
    """The solver's C step, or None when MuJoCo-Warp steps it."""
    return getattr(solver, "_gymlike_c_step", None)


class Replay:
    """Newton's conversions between its state and MuJoCo's data (`_apply_mjc_control`,
    `_update_newton_state`) are kernel launches only, each packing its arguments in Python
    (about 30 us per launch). The first call for a given set of objects records the launches
    (`wp.launch(record_cmd=True)`), later calls re-launch the records (a few us each). Any
    other warp entry point seen while recording (a tiled launch) makes that key call the
    function directly instead."""

    def __init__(self):
        self.cmds = {}

    def clear(self):
        self.cmds.clear()

    def __call__(self, key, fn, *args, skip=(), **kw):
        """Run `fn(*args, **kw)`; `skip`: kernels whose recorded launches are left out this time."""
        cmds = self.cmds.get(key)
        if cmds is None:
            cmds = self.cmds[key] = self._record(fn, args, kw)
        elif cmds is False:
            fn(*args, **kw)
        else:
            for cmd in cmds:
                if cmd.kernel not in skip:
                    cmd.launch()

    @staticmethod
    def _record(fn, args, kw):
        import warp as wp
        launch, tiled, cmds, ok = wp.launch, wp.launch_tiled, [], [True]

        def recording(*la, **lk):
            cmd = launch(*la, **dict(lk, record_cmd=True))
            if cmd is not None:            # (a zero-sized launch records nothing)
                cmds.append(cmd)
                cmd.launch()

        def not_recordable(*la, **lk):
            ok[0] = False
            return tiled(*la, **lk)
        wp.launch, wp.launch_tiled = recording, not_recordable
        try:
            fn(*args, **kw)
        finally:
            wp.launch, wp.launch_tiled = launch, tiled
        return cmds if ok[0] else False


class CStep:
    def __init__(self, solver, sim, lazy=True):
        import mujoco
        from mujoco import rollout
        self.mujoco, self.solver, self.sim = mujoco, solver, sim
        self.newton_step = solver.step          # Newton's own step (MuJoCo-Warp), for observing steps
        self.lazy = lazy
        self.replay = Replay()
        self.m = solver.mj_model
        # Newton writes inertial frames (body_ipos/iquat) per world after MuJoCo compiled the
        # template; the compiler's "inertial frame == body frame" shortcut would skip them
        self.m.body_sameframe[:] = 0
        self.d = solver.mjw_data
        self.nworld = int(self.d.nworld)
        nthread = max(1, min(os.cpu_count() or 1, self.nworld))
        self.rollout = rollout.Rollout(nthread=nthread)
        self.datas = [mujoco.MjData(self.m) for _ in range(nthread)]
        self.models = [self.m] * self.nworld
        m = self.m
        # the per-world inputs of a step, in MuJoCo's state-vector order: controls, applied
        # forces, equality switches and mocap poses (Newton makes bodies welded to the world
        # mocap bodies, so each world's fixed actors sit at that world's pose)
        S = mujoco.mjtState
        self.inputs, self.cspec, off = [], 0, 0
        for bit, field in ((S.mjSTATE_CTRL, "ctrl"), (S.mjSTATE_QFRC_APPLIED, "qfrc_applied"),
                           (S.mjSTATE_XFRC_APPLIED, "xfrc_applied"), (S.mjSTATE_EQ_ACTIVE, "eq_active"),
                           (S.mjSTATE_MOCAP_POS, "mocap_pos"), (S.mjSTATE_MOCAP_QUAT, "mocap_quat")):
            size = mujoco.mj_stateSize(m, int(bit))
            if size:
                self.inputs.append((field, off, off + size))
                self.cspec |= int(bit)
                off += size
        self.nstate = mujoco.mj_stateSize(m, int(mujoco.mjtState.mjSTATE_FULLPHYSICS))
        if self.nstate != 1 + m.nq + m.nv + m.na:
            raise GymlikeValueError("the MuJoCo C pipeline does not support plugin or history state; "
                                    "set GYMLIKE_CPU_PIPELINE=warp")
        # MuJoCo's state (time, qpos, qvel, act) of every world in float64, carried from call to
        # call: the truth; a world's row is reloaded from Newton's state after anything else
        # wrote it (a state setter or reset of its env, a velocity clamp, a MuJoCo-Warp step)
        self.x = np.zeros((self.nworld, self.nstate))
        self.stale = np.ones(self.nworld, bool)    # rows of x to reload from Newton's state
        # MuJoCo's ctrl follows Newton's joint targets only (position/velocity actuators), except
        # for ball-joint actuators (they also read joint_q): recomputed after a target write
        self.ctrl_valid = False
        ball = getattr(solver, "mjc_actuator_to_newton_ball_jnt", None)
        self.ctrl_follows_targets = ball is None or not (ball.numpy() >= 0).any()
        # Newton maps efforts on its BALL joints into MuJoCo's frame with the joint's rotation:
        # those inputs need the current joint_q, i.e. the deferred conversion run first (gymlike
        # builds ball joints as three hinges today, so this guards a future mapping)
        import newton
        self.inputs_read_state = bool((solver.model.joint_type.numpy() == int(newton.JointType.BALL)).any())
        self.inputs_gen = 0         # bumps when ctrl, equality switches or mocap poses change
        from newton._src.solvers.mujoco import kernels as nk
        # Newton adds joint_f of free joints into xfrc_applied; Gym DOFs never lie on a free
        # joint (an actor's root joint is not a DOF), so that launch only adds zeros
        free = solver.body_free_qd_start.numpy() if getattr(solver, "body_free_qd_start", None) is not None else []
        free_qd = {int(q) + i for q in free if q >= 0 for i in range(6)}
        self.skip_always = (nk.apply_mjc_free_joint_f_to_body_f_kernel,) if not free_qd & set(
            sim.host.dof_qd.tolist()) else ()
        self.ctrl_kernel, self.body_f_kernel = nk.apply_mjc_control_kernel, nk.apply_mjc_body_f_kernel
        # body wrenches -> xfrc_applied: skipped while the body forces stay zero (core/step.py says
        # so through no_body_f) and xfrc_applied already holds those zeros
        self.no_body_f = False
        self.xfrc_zero = False
        self.caps = None             # tables of speed_bounds
        self.bounds = None           # speed_bounds of the last step
        self.last_out = None        # the Newton state the last C call wrote
        self.ncontrol = off
        self.params_dirty = True
        self.fields = None
        self.nstep = 1              # substeps the next call runs (core/step.py fuses substeps)
        self.outs = {}
        self.views = {}
        self.dt = None

    def invalidate(self, worlds=None):
        """Newton's state or MuJoCo's data of `worlds` (a bool mask; None: all) changed outside
        the C step: those rows are reloaded before the next call, the others keep their float64
        state (so a reset of some envs leaves the others' trajectories exactly as they were)."""
        if worlds is None:
            self.stale[:] = True
        else:
            self.stale |= np.asarray(worlds, bool)
        self.ctrl_valid = self.xfrc_zero = False

    def model_changed(self):
        self.params_dirty = True
        self.caps = self.bounds = None   # (per-world models, so the speed bound's lengths, may change)
        self.ctrl_valid = self.xfrc_zero = False
        self.inputs_gen += 1         # (notify may pose mocap bodies and switch equalities)
        self.replay.clear()

    def targets_written(self):
        self.ctrl_valid = False

    # ------------------------------------------------------------------ per-world parameters
    def _fields(self):
        """(owner name, field, per-world?) of the mjw_model arrays that mirror MjModel fields
        (model fields and opt fields): per-world ones have a leading world dimension."""
        mw, m, n = self.solver.mjw_model, self.m, self.nworld
        out = []
        for owner in ("", "opt"):
            src_w, src_m = (mw, m) if not owner else (mw.opt, m.opt)
            for name in dir(src_w):
                if name.startswith("_"):
                    continue
                arr, ref = getattr(src_w, name, None), getattr(src_m, name, None)
                if ref is None or not hasattr(arr, "numpy") or not hasattr(arr, "shape") or callable(ref):
                    continue
                ref = np.asarray(ref)
                if ref.dtype.kind not in "fiu" or ref.size == 0:
                    continue
                shape = tuple(arr.numpy().shape)     # (vector dtypes: their components count)
                if shape == ref.shape:
                    out.append((owner, name, False))
                elif len(shape) >= 1 and shape[0] in (1, n) and int(np.prod(shape[1:])) == ref.size:
                    out.append((owner, name, True))
        return out

    def _per_world_models(self):
        """The template follows mjw_model's shared arrays; worlds whose per-world rows differ
        from it step copies of it with their rows."""
        import copy
        mw, m, n = self.solver.mjw_model, self.m, self.nworld
        if self.fields is None:
            self.fields = self._fields()

        def owner_of(model, owner):
            return model if not owner else getattr(model, owner)

        def put(model, owner, name, value):
            target = owner_of(model, owner)
            cur = getattr(target, name)
            if isinstance(cur, np.ndarray):
                cur[...] = np.asarray(value).reshape(cur.shape)
            else:
                setattr(target, name, type(cur)(np.asarray(value).reshape(-1)[0]))

        rows = []
        for owner, name, per_world in self.fields:
            arr = getattr(owner_of(mw, owner), name).numpy()
            ref = np.asarray(getattr(owner_of(m, owner), name))
            if not per_world:
                if not np.array_equal(arr.astype(np.float64), ref.astype(np.float64)):
                    put(m, owner, name, arr)
            else:
                rows.append((owner, name, arr, ref))
        models = []
        for w in range(n):
            diff = [(o, nm, arr[w if arr.shape[0] == n else 0]) for o, nm, arr, ref in rows
                    if not np.array_equal(arr[w if arr.shape[0] == n else 0].reshape(ref.shape).astype(np.float64),
                                          ref.astype(np.float64))]
            if not diff:
                models.append(m)
                continue
            mc = copy.copy(m)
            for o, nm, row in diff:
                put(mc, o, nm, row)
            models.append(mc)
        self.models = models
        self.params_dirty = False

    # ------------------------------------------------------------------ the step
    def _rows(self, name):
        """`mjw_data.<name>` as a (worlds, values) numpy view, kept while the array is the same."""
        arr = getattr(self.d, name)
        c = self.views.get(name)
        if c is None or c[0] is not arr:
            c = self.views[name] = (arr, arr.numpy().reshape(self.nworld, -1))
        return c[1]

    def step(self, state_in, state_out, control, contacts, dt, observables=None, **kw):
        """SolverMuJoCo.step on MuJoCo C: Newton's control -> MuJoCo inputs (Newton's kernels,
        replayed), Newton's state -> MuJoCo only after a write, `nstep` substeps in one
        rollout; MuJoCo -> Newton's state deferred to the next read of `sim.state` (`sync`)."""
        nstep, self.nstep = self.nstep, 1
        self.bounds = None               # (MuJoCo's velocities change: speed_bounds recomputes)
        if observables is not None:      # contact forces etc. come from MuJoCo-Warp's arrays
            self._flush()                # (Newton's step starts from Newton's state)
            self.invalidate()
            return self.newton_step(state_in, state_out, control, contacts, dt, observables=observables, **kw)
        solver, d = self.solver, self.d
        if self.inputs_read_state:
            self._flush()
        ctrl_kept = self.ctrl_valid and self.ctrl_follows_targets
        xfrc_kept = self.no_body_f and self.xfrc_zero
        skip = self.skip_always + ((self.ctrl_kernel,) if ctrl_kept else ()) + ((self.body_f_kernel,) if xfrc_kept else ())
        self.replay(("in", id(state_in), id(control)), solver._apply_mjc_control, solver.model, state_in, control, d,
                    skip=skip)
        if not ctrl_kept:
            self.ctrl_valid = True
            self.inputs_gen += 1
        self.xfrc_zero, self.no_body_f = self.no_body_f, False
        if state_in is not self.last_out:
            self.stale[:] = True
        if self.stale.any():
            self._load_x(state_in)
        self._prepare(dt)
        self._rollout(nstep)
        self.last_out = state_out
        if self.lazy:
            self.sim.defer_state_sync(self.sync)      # MuJoCo -> Newton's state when next read
        else:
            self.sync()

    def _flush(self):
        if self.lazy:
            self.sim.sync_state()

    def sync(self):
        """MuJoCo -> Newton's joint and body states (Newton's conversion and forward kinematics,
        replayed) of the last call's output state."""
        s = self.last_out
        self.replay(("out", id(s)), self.solver._update_newton_state, self.solver.model, s, self.d, state_prev=s)

    # ------------------------------------------------------------------ checks on MuJoCo's data
    def surely_sound(self):
        """True when MuJoCo's state is finite and no body can move faster than the NaN guard's
        1e5 (the speed bound below): the guard's check on the body states can then be skipped."""
        if not np.isfinite(self._rows("qpos")).all():
            return False
        w, v = self.speed_bounds()
        return bool(max(w.max(initial=0.0), v.max(initial=0.0)) <= 1.0e5)     # (NaN: False)

    def may_reach_speed_caps(self):
        """False when no body of any world can move faster than its speed caps: a bound from
        MuJoCo's velocities, |w_body| <= sum |angular qvel|, |v_body| <= sum |linear qvel| +
        that * (a length no two points of a world's articulations are further apart than)."""
        w, v = self.speed_bounds()
        _, _, _, ang_cap, lin_cap = self.caps
        return not ((w <= ang_cap) & (v <= lin_cap)).all()

    def speed_bounds(self):
        """Per world: (a bound on every body's angular speed, on every body's COM speed), once
        per step (read by the speed caps and the NaN guard)."""
        if self.bounds is None:
            if self.caps is None:
                self._speed_bound_tables()
            ang, lin, lever = self.caps[:3]
            qvel = np.abs(self._rows("qvel"))
            w = qvel @ ang
            self.bounds = (w, qvel @ lin + w * lever)
        return self.bounds

    def _speed_bound_tables(self):
        m, mj, d = self.m, self.mujoco, self.sim.dev
        J = mj.mjtJoint
        ang, lin = [], []
        for j in range(m.njnt):
            a, t = int(m.jnt_dofadr[j]), int(m.jnt_type[j])
            if t == J.mjJNT_FREE:
                lin += [a, a + 1, a + 2]
                ang += [a + 3, a + 4, a + 5]
            elif t == J.mjJNT_BALL:
                ang += [a, a + 1, a + 2]
            elif t == J.mjJNT_SLIDE:
                lin.append(a)
            else:
                ang.append(a)

        def lever(model):
            # twice the summed offsets of bodies (not their placement in the world), inertial
            # frames and joint anchors: longer than any path between two points of one world
            inner = np.asarray(model.body_parentid)[1:] != 0
            return 2.0 * (np.linalg.norm(np.asarray(model.body_pos)[1:][inner], axis=1).sum()
                          + np.linalg.norm(np.asarray(model.body_ipos)[1:], axis=1).sum()
                          + np.linalg.norm(np.asarray(model.jnt_pos), axis=1).sum())
        by_model = {}
        levers = np.array([by_model.setdefault(id(x), lever(x)) for x in self.models])
        env = d.body_env.numpy()
        ang_cap, lin_cap = np.full(self.nworld, np.inf), np.full(self.nworld, np.inf)
        inside = (env >= 0) & (env < self.nworld)
        np.minimum.at(ang_cap, env[inside], d.body_ang_cap.numpy()[inside])
        np.minimum.at(lin_cap, env[inside], d.body_lin_cap.numpy()[inside])
        ang_sel, lin_sel = np.zeros(m.nv, np.float32), np.zeros(m.nv, np.float32)   # (qvel @ sel: a row sum)
        ang_sel[ang], lin_sel[lin] = 1.0, 1.0
        self.caps = (ang_sel, lin_sel, levers, ang_cap, lin_cap)

    def _prepare(self, dt):
        dt = float(dt)
        if self.params_dirty or dt != self.dt:
            if self.params_dirty:
                self._per_world_models()
            if dt != self.dt:
                self.solver.mjw_model.opt.timestep.fill_(dt)     # (read by MuJoCo-Warp steps)
            for model in {id(x): x for x in self.models}.values():
                model.opt.timestep = dt
                # a NaN must reach gymlike's NaN guard (which names the env), not be reset silently
                model.opt.disableflags |= int(self.mujoco.mjtDisableBit.mjDSBL_AUTORESET)
            self.dt = dt

    def _load_x(self, state):
        """Newton's state -> MuJoCo's data (Newton's conversion, stale worlds only) -> x."""
        import warp as wp
        self._flush()                # (the rows not reloaded keep what MuJoCo holds)
        solver, stale = self.solver, self.stale
        every = bool(stale.all())
        mask = None if every else wp.array(np.append(stale, False), dtype=wp.bool, device=self.sim.device)
        solver._update_mjc_data(self.d, solver.model, state, world_mask=mask)
        solver._update_kinematic_weld_references()
        nq, nv = self.m.nq, self.m.nv
        rows = slice(None) if every else stale
        x = self.x
        x[rows, 0:1] = self._rows("time")[rows]
        x[rows, 1:1 + nq] = self._rows("qpos")[rows]
        x[rows, 1 + nq:1 + nq + nv] = self._rows("qvel")[rows]
        x[rows, 1 + nq + nv:] = self._rows("act")[rows]
        stale[:] = False
        self.inputs_gen += 1         # (mocap poses follow the pushed state)

    def _rollout(self, nstep):
        if nstep not in self.outs:
            self.outs[nstep] = [np.zeros((self.nworld, nstep, self.ncontrol)),
                                np.zeros((self.nworld, nstep, self.nstate)), None, False]
        entry = self.outs[nstep]
        control, out = entry[0], entry[1]
        every = entry[2] != self.inputs_gen
        entry[2] = self.inputs_gen
        for field, a, b in self.inputs:      # the same inputs in every substep of the call
            if every or field == "qfrc_applied" or (field == "xfrc_applied" and not (entry[3] and self.xfrc_zero)):
                control[:, :, a:b] = self._rows(field)[:, None, :]
        entry[3] = self.xfrc_zero            # (this buffer's xfrc columns hold zeros)
        self.rollout.rollout(self.models, self.datas, self.x, control, control_spec=self.cspec, nstep=nstep,
                             state=out, skip_checks=True)
        x = self.x
        x[:] = out[:, -1]
        nq, nv = self.m.nq, self.m.nv
        self._rows("time")[:] = x[:, 0:1]
        self._rows("qpos")[:] = x[:, 1:1 + nq]
        self._rows("qvel")[:] = x[:, 1 + nq:1 + nq + nv]
        self._rows("act")[:] = x[:, 1 + nq + nv:]
