"""The CPU pipeline on MuJoCo's C library: SIM_PHYSX sims on the CPU step their worlds with
`mujoco.rollout` (C++, all cores, no GIL, no Python loop over worlds) instead of MuJoCo-Warp on
Warp's CPU backend. Everything above the solver is unchanged: Newton's SolverMuJoCo still maps
Newton's state and control into its MuJoCo data (`mjw_data`: qpos, qvel, act, ctrl,
qfrc_applied, xfrc_applied, one row per world, numpy views on the CPU) and back; only its
`_mujoco_warp_step` is replaced by `CStep`, which steps those rows with the template MjModel the
solver compiled (`solver.mj_model`).

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


def install(sim, solver):
    """Step `solver` with MuJoCo C when the sim qualifies; returns whether it does."""
    if not sim.device.startswith("cpu") or choice() != "mujoco-c":
        return False
    if not getattr(solver, "mjw_model", None) or not solver.mjw_model.opt.run_collision_detection:
        return False
    stepper = CStep(solver, sim)
    solver._mujoco_warp_step = stepper
    step = solver.step

    def step_noting_observables(state_in, state_out, control, contacts, dt, observables=None, **kw):
        stepper.observing = observables is not None
        return step(state_in, state_out, control, contacts, dt, observables=observables, **kw)
    solver.step = step_noting_observables
    solver.notify_model_changed = stepper.wrap_notify(solver.notify_model_changed)
    return True


def c_step(solver):
    """The solver's C step, or None when MuJoCo-Warp steps it."""
    step = getattr(solver, "_mujoco_warp_step", None)
    return step if isinstance(step, CStep) else None


class CStep:
    def __init__(self, solver, sim):
        import mujoco
        from mujoco import rollout
        self.mujoco, self.solver, self.sim = mujoco, solver, sim
        self.warp_step = type(solver)._mujoco_warp_step.__get__(solver)   # for steps with observables
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
        self.state0 = np.zeros((self.nworld, self.nstate))
        self.ncontrol = off
        self.params_dirty = True
        self.fields = None
        self.observing = False      # this substep reports observables (set by the solver.step wrapper)
        self.nstep = 1              # substeps the next call runs (core/step.py fuses substeps)
        self.outs = {}
        self.views = {}
        self.dt = None

    def wrap_notify(self, notify):
        def notify_model_changed(flags):
            notify(flags)
            self.params_dirty = True
        return notify_model_changed

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

    def __call__(self):
        nstep, self.nstep = self.nstep, 1
        if self.observing:
            return self.warp_step()      # contact forces etc. come from MuJoCo-Warp's arrays
        m = self.m
        dt = float(self.solver.mjw_model.opt.timestep.numpy()[0])
        if self.params_dirty or dt != self.dt:
            if self.params_dirty:
                self._per_world_models()
            for model in {id(x): x for x in self.models}.values():
                model.opt.timestep = dt
                # a NaN must reach gymlike's NaN guard (which names the env), not be reset silently
                model.opt.disableflags |= int(self.mujoco.mjtDisableBit.mjDSBL_AUTORESET)
            self.dt = dt
        time, qpos, qvel, act = (self._rows(f) for f in ("time", "qpos", "qvel", "act"))
        nq, nv = m.nq, m.nv
        s = self.state0
        s[:, 0:1] = time
        s[:, 1:1 + nq] = qpos
        s[:, 1 + nq:1 + nq + nv] = qvel
        s[:, 1 + nq + nv:] = act
        if nstep not in self.outs:
            self.outs[nstep] = (np.zeros((self.nworld, nstep, self.ncontrol)),
                                np.zeros((self.nworld, nstep, self.nstate)))
        control, out = self.outs[nstep]
        for field, a, b in self.inputs:      # the same inputs in every substep of the call
            control[:, :, a:b] = self._rows(field)[:, None, :]
        self.rollout.rollout(self.models, self.datas, s, control, control_spec=self.cspec, nstep=nstep,
                             state=out, skip_checks=True)
        o = out[:, -1]
        time[:] = o[:, 0:1]
        qpos[:] = o[:, 1:1 + nq]
        qvel[:] = o[:, 1 + nq:1 + nq + nv]
        act[:] = o[:, 1 + nq + nv:]
