"""The ceiling of the MuJoCo C pipeline: `mujoco.rollout` alone on the very MjModel(s) gymlike's C
solver steps (per-world parameters included), the same threads, the same physics steps: no
gymlike, Newton or task code around it. Shared by bench_cpu_pipeline.py and bench_real_tasks.py.

Two forms:

* `RawRollout(cs).step(nstep)`: from the solver's current state, its last step's inputs held
  (a simple loop; its trajectory drifts from gymlike's, which gets new inputs every step);
* `Recorder(cs)`: records every batch step gymlike makes (state, inputs and warm start of every
  world before it) and `replay()` runs exactly those steps again in `mujoco.rollout`, each from
  its recorded state with its recorded inputs and warm start: the same MuJoCo computation as
  gymlike's, timed alone; `replay_whole()` runs them as one rollout call from the first
  recorded state with every step's recorded inputs (no per-call cost at all).
"""

from __future__ import annotations

import numpy as np


def _components(m, mujoco, spec):
    """{mjtState bit: (offset, size)} of the components of `spec` in a state vector of `m`."""
    out, off = {}, 0
    for b in sorted(int(v) for k, v in vars(mujoco.mjtState).items() if k.startswith("mjSTATE_")):
        if b & (b - 1) or not b & spec:       # (single bits of the spec only)
            continue
        size = mujoco.mj_stateSize(m, b)
        out[b], off = (off, size), off + size
    return out


class _Rollout:
    def __init__(self, cs):
        import mujoco
        from mujoco import rollout
        self.mujoco = mujoco
        b, m, n = cs.batch, cs.template, cs.nworld
        S = mujoco.mjtState
        self.full = int(S.mjSTATE_FULLPHYSICS)
        self.spec = int(S.mjSTATE_CTRL | S.mjSTATE_QFRC_APPLIED | S.mjSTATE_XFRC_APPLIED | S.mjSTATE_EQ_ACTIVE
                        | S.mjSTATE_MOCAP_POS | S.mjSTATE_MOCAP_QUAT)
        # one model when the worlds' per-world values are all the same, else a copy per world
        same = all((v == v[:1]).all() for v in (b.expand(k) for k in cs.expanded))
        self.models = [b.get_model(0)] * n if same else [b.get_model(w) for w in range(n)]
        self.nthread = b.nthread
        self.rollout = rollout.Rollout(nthread=self.nthread)
        self.datas = [mujoco.MjData(m) for _ in range(self.nthread)]
        # columns of the batch's state rows (mjSTATE_INTEGRATION) that make the rollout's
        # initial state, its control vector and the warm start
        rows = _components(m, mujoco, int(S.mjSTATE_INTEGRATION))

        def cols(spec):
            return np.concatenate([np.arange(o, o + s) for bit, (o, s) in rows.items() if bit & spec] or
                                  [np.zeros(0, np.int64)])
        self.x_cols, self.u_cols = cols(self.full), cols(self.spec)
        self.w_cols = cols(int(S.mjSTATE_WARMSTART))


class RawRollout(_Rollout):
    """`step(nstep)`: one mujoco.rollout call of `nstep` physics steps over every world."""

    def __init__(self, cs):
        super().__init__(cs)
        st = cs.batch.state
        self.x = np.ascontiguousarray(st[:, self.x_cols])
        self.control = np.ascontiguousarray(st[:, self.u_cols])
        self.buffers = {}

    def step(self, nstep):
        if nstep not in self.buffers:
            n = len(self.x)
            self.buffers[nstep] = (np.ascontiguousarray(np.repeat(self.control[:, None], nstep, 1)),
                                   np.zeros((n, nstep, self.x.shape[1])))
        control, out = self.buffers[nstep]
        self.rollout.rollout(self.models, self.datas, self.x, control, control_spec=self.spec, nstep=nstep,
                             state=out, skip_checks=True)
        self.x[:] = out[:, -1]


class Recorder(_Rollout):
    """Records each batch step of the C solver while `recording` (its `before_step` hook);
    `replay()` -> seconds of rollout for exactly those steps."""

    def __init__(self, cs):
        super().__init__(cs)
        self.records = []
        self.recording = False

        def record(st, nstep):
            if self.recording:
                self.records.append((st[:, self.x_cols].copy(), st[:, self.u_cols].copy(),
                                     st[:, self.w_cols].copy(), nstep))
        cs.before_step = record

    def replay_whole(self):
        """Seconds of one rollout call running every recorded step from the first record's
        state, each step with its recorded inputs (no state reloads between calls: a reset
        made between them is not replayed, and the warm start is MuJoCo's own from step to
        step): the same physics in one call, without even the rollout API's per-call cost."""
        import time
        if not self.records:
            return 0.0
        x0, _, w0, _ = self.records[0]
        u = np.ascontiguousarray(np.concatenate([np.repeat(u[:, None], nstep, 1)
                                                 for _, u, _, nstep in self.records], 1))
        out = self.whole = np.zeros((len(x0), u.shape[1], x0.shape[1]))     # (kept: every step's state)
        t0 = time.perf_counter()
        self.rollout.rollout(self.models, self.datas, np.ascontiguousarray(x0), u, control_spec=self.spec,
                             nstep=u.shape[1], initial_warmstart=np.ascontiguousarray(w0) if w0.size else None,
                             state=out, skip_checks=True)
        return time.perf_counter() - t0

    def replay(self):
        import time
        jobs = []
        for x, u, w, nstep in self.records:
            jobs.append((np.ascontiguousarray(x), np.ascontiguousarray(np.repeat(u[:, None], nstep, 1)),
                         np.ascontiguousarray(w), nstep, np.zeros((len(x), nstep, x.shape[1]))))
        t0 = time.perf_counter()
        for x, u, w, nstep, out in jobs:
            self.rollout.rollout(self.models, self.datas, x, u, control_spec=self.spec, nstep=nstep,
                                 initial_warmstart=w if w.size else None, state=out, skip_checks=True)
        return time.perf_counter() - t0
