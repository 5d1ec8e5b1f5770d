"""The CPU pipeline on MuJoCo's C library against MuJoCo-Warp on Warp's CPU backend and against
a raw MuJoCo C rollout, side by side in one run: N of the project's ants (assets/mjcf/nv_ant.xml)
on a ground plane, a frame of 1/60 s in 2 substeps, random actuation forces each frame.

* gymlike C    : gymlike with GYMLIKE_CPU_PIPELINE=mujoco-c (core/mjc.py)
* gymlike Warp : gymlike on MuJoCo-Warp (the default CPU path)
* raw C        : mujoco.rollout of the MjModel gymlike's solver compiled, same threads, no gymlike
                 (the ceiling for the C pipeline)

Env-frames/s = envs x frames / wall seconds (best of 2 trials). Each gymlike variant runs in a
child process (the switch is read when the solver is made).

    python benchmarks/bench_cpu_pipeline.py              # N = 16, 64, 256
    python benchmarks/bench_cpu_pipeline.py --n 1024 --frames 50
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, os, sys, time
import numpy as np, torch
sys.path.insert(0, %(root)r)
from gymlike import gymapi, gymtorch
n, frames, raw = %(n)d, %(frames)d, %(raw)r
gym = gymapi.acquire_gym()
p = gymapi.SimParams(); p.up_axis = gymapi.UP_AXIS_Z; p.gravity = gymapi.Vec3(0, 0, -9.81)
p.dt = 1 / 60; p.substeps = 2
sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
pp = gymapi.PlaneParams(); pp.normal = gymapi.Vec3(0, 0, 1); gym.add_ground(sim, pp)
ant = gym.load_asset(sim, os.path.join(%(root)r, "assets"), "mjcf/nv_ant.xml", gymapi.AssetOptions())
for i in range(n):
    e = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), int(n ** 0.5) + 1)
    gym.create_actor(e, ant, gymapi.Transform(p=gymapi.Vec3(0, 0, 0.75)), "ant", i, 0)
gym.prepare_sim(sim)
g = torch.Generator().manual_seed(0)
if raw:
    import mujoco
    from mujoco import rollout
    m = sim.solver.mj_model
    m.opt.timestep = 1 / 120
    nthread = os.cpu_count()
    r = rollout.Rollout(nthread=nthread)
    datas = [mujoco.MjData(m) for _ in range(nthread)]
    d0 = mujoco.MjData(m); d0.qpos[2] = 0.75
    ns = mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    st = np.zeros((n, ns)); s1 = np.empty(ns); mujoco.mj_getState(m, d0, s1, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    st[:] = s1
    out = np.zeros((n, 2, ns))
    def frame():
        ctrl = np.random.default_rng(0).uniform(-0.5, 0.5, (n, 2, m.nu))
        r.rollout([m] * n, datas, st, ctrl, nstep=2, state=out, skip_checks=True)
        st[:] = out[:, -1]
else:
    forces = torch.zeros(gym.get_sim_dof_count(sim))
    def frame():
        forces.uniform_(-0.5, 0.5, generator=g)
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(forces))
        gym.simulate(sim)
for _ in range(3):
    frame()
best = 0.0
for _ in range(2):
    t0 = time.perf_counter()
    for _ in range(frames):
        frame()
    best = max(best, n * frames / (time.perf_counter() - t0))
print("RESULT", json.dumps(dict(rate=best, kind=type(sim.solver._mujoco_warp_step).__name__)))
"""


def child(n, frames, pipeline, raw=False):
    env = dict(os.environ, GYMLIKE_CPU_PIPELINE=pipeline)
    out = subprocess.run([sys.executable, "-c", CHILD % dict(root=ROOT, n=n, frames=frames, raw=raw)],
                         env=env, capture_output=True, text=True)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if not line:
        raise SystemExit(f"child failed:\n{out.stderr[-3000:]}")
    return json.loads(line[0][7:])["rate"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="*", default=[16, 64, 256])
    ap.add_argument("--frames", type=int, default=100)
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPU threads; env-frames/s (best of 2); ant, frame 1/60 s in 2 substeps")
    rows = []
    for n in args.n:
        c = child(n, args.frames, "mujoco-c")
        w = child(n, args.frames, "warp")
        raw = child(n, args.frames, "mujoco-c", raw=True)
        rows.append((n, c, w, raw))
        print(f"N={n:5d}  gymlike C {c:9.0f}  gymlike Warp {w:9.0f}  raw C rollout {raw:9.0f}  "
              f"C/Warp {c / w:5.2f}  C/raw {c / raw:5.2f}", flush=True)
    print("\n| N | gymlike C | gymlike Warp-CPU | raw MuJoCo C rollout | C / Warp | C / raw |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, c, w, raw in rows:
        print(f"| {n} | {c:.0f} | {w:.0f} | {raw:.0f} | {c / w:.2f} | {c / raw:.2f} |")


if __name__ == "__main__":
    main()
