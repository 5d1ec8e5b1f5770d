"""The ceiling of the MuJoCo C pipeline: `mujoco.rollout` alone on the very MjModel(s) gymlike's C
solver steps (per-world parameters included), the same threads, starting from its current state,
with its last step's inputs held: the physics with no gymlike, Newton or task code around it.
Shared by bench_cpu_pipeline.py and bench_real_tasks.py."""

from __future__ import annotations

import numpy as np


class RawRollout:
    """`step(nstep)`: one mujoco.rollout call of `nstep` physics steps over every world."""

    def __init__(self, cs):
        import mujoco
        from mujoco import rollout
        self.mujoco = mujoco
        b, m, n = cs.batch, cs.template, cs.nworld
        S = mujoco.mjtState
        self.full = int(S.mjSTATE_FULLPHYSICS)
        self.spec = int(S.mjSTATE_CTRL | S.mjSTATE_QFRC_APPLIED | S.mjSTATE_XFRC_APPLIED | S.mjSTATE_EQ_ACTIVE
                        | S.mjSTATE_MOCAP_POS | S.mjSTATE_MOCAP_QUAT)
        # one model when the worlds' per-world values are all the same (as with float32 copies of
        # one template), else a copy per world
        same = all((v == v[:1]).all() for v in b._expanded.values())
        self.models = [b.get_model(0)] * n if same else [b.get_model(w) for w in range(n)]
        d = mujoco.MjData(m)
        self.x = np.zeros((n, mujoco.mj_stateSize(m, self.full)))
        control = np.zeros((n, mujoco.mj_stateSize(m, self.spec)))
        for w in range(n):
            b.get_data(w, d)
            mujoco.mj_getState(m, d, self.x[w], self.full)
            mujoco.mj_getState(m, d, control[w], self.spec)
        self.control = control
        self.nthread = b.nthread
        self.rollout = rollout.Rollout(nthread=self.nthread)
        self.datas = [mujoco.MjData(m) for _ in range(self.nthread)]
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
