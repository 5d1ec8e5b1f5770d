"""The CPU pipeline on MuJoCo's C library against MuJoCo-Warp on Warp's CPU backend and against
a raw MuJoCo C rollout, side by side in one run: N of the project's ants (assets/mjcf/nv_ant.xml)
on a ground plane, a frame of 1/60 s in 2 substeps, random actuation forces each frame, asset
options as IsaacGymEnvs' Ant task sets them (angular_damping 0: the raw rollout's physics; the
last column keeps Isaac Gym's default angular damping of 0.5, a wrench per body each frame).

* gymlike C    : gymlike with GYMLIKE_CPU_PIPELINE=mujoco-c (core/mjc.py)
* gymlike Warp : gymlike on MuJoCo-Warp (the default CPU path)
* raw C        : mujoco.rollout alone on the MjModels, threads and states gymlike's C step uses
                 (benchmarks/raw_mujoco.py; the ceiling for the C pipeline: both substeps in one
                 call, no Newton/gymlike)
* gymlike C with damping : gymlike C with Isaac Gym's default asset options (angular damping 0.5
                 needs every body's velocity before each frame: a forward-kinematics pass and a
                 wrench per body the raw rollout does not have)

Env-frames/s = envs x frames / wall seconds, best of 5 trials; gymlike C and the raw rollout
alternate trials in one process (same machine load). Each pipeline runs in a child process
(the switch is read when the solver is made).

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
opts = gymapi.AssetOptions()
if not %(damped)r:
    opts.angular_damping = 0.0      # as IsaacGymEnvs' Ant: the raw rollout's physics (no body damping)
ant = gym.load_asset(sim, os.path.join(%(root)r, "assets"), "mjcf/nv_ant.xml", opts)
for i in range(n):
    e = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), int(n ** 0.5) + 1)
    gym.create_actor(e, ant, gymapi.Transform(p=gymapi.Vec3(0, 0, 0.75)), "ant", i, 0)
gym.prepare_sim(sim)
g = torch.Generator().manual_seed(0)
forces = torch.zeros(gym.get_sim_dof_count(sim))
def gym_frame():
    forces.uniform_(-0.5, 0.5, generator=g)
    gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(forces))
    gym.simulate(sim)
frames_of = {"gymlike": gym_frame}
if raw:
    # the same MjModel(s), threads and state gymlike's C solver steps (taken after one gymlike
    # frame), stepped by mujoco.rollout alone (benchmarks/raw_mujoco.py)
    sys.path.insert(0, os.path.join(%(root)r, "benchmarks"))
    from raw_mujoco import RawRollout
    from gymlike.core import mjc
    gym.simulate(sim)
    cs = mjc.c_step(sim.solver)
    rr = RawRollout(cs)
    # gymlike's DOF actuation forces reach MuJoCo as qfrc_applied on the 8 hinges (after the
    # free joint's 6 velocities): the same random loads here, written into the held inputs
    m = cs.template
    a, b = m.nu + 6, m.nu + m.nv
    rng = np.random.default_rng(0)
    def raw_frame():
        rr.step(2)
        for control, _ in rr.buffers.values():
            control[:, :, a:b] = rng.uniform(-0.5, 0.5, (n, 1, b - a))
    frames_of["raw"] = raw_frame
best = dict.fromkeys(frames_of, 0.0)
for frame in frames_of.values():
    for _ in range(3):
        frame()
for _ in range(5):        # trials alternate between the variants: both see the same machine load
    for name, frame in frames_of.items():
        t0 = time.perf_counter()
        for _ in range(frames):
            frame()
        best[name] = max(best[name], n * frames / (time.perf_counter() - t0))
print("RESULT", json.dumps(best))
"""


def child(n, frames, pipeline, raw=False, damped=False):
    env = dict(os.environ, GYMLIKE_CPU_PIPELINE=pipeline)
    out = subprocess.run([sys.executable, "-c", CHILD % dict(root=ROOT, n=n, frames=frames, raw=raw, damped=damped)],
                         env=env, capture_output=True, text=True)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if not line:
        raise SystemExit(f"child failed:\n{out.stderr[-3000:]}")
    return json.loads(line[0][7:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="*", default=[16, 64, 256])
    ap.add_argument("--frames", type=int, default=100)
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPU threads; env-frames/s (best of 5); ant, frame 1/60 s in 2 substeps")
    rows = []
    for n in args.n:
        both = child(n, args.frames, "mujoco-c", raw=True)
        c, raw = both["gymlike"], both["raw"]
        w = child(n, args.frames, "warp")["gymlike"]
        cd = child(n, args.frames, "mujoco-c", damped=True)["gymlike"]
        rows.append((n, c, w, raw, cd))
        print(f"N={n:5d}  gymlike C {c:9.0f}  gymlike Warp {w:9.0f}  raw C rollout {raw:9.0f}  "
              f"C/Warp {c / w:5.2f}  C/raw {c / raw:5.2f}  gymlike C with damping {cd:9.0f}", flush=True)
    print("\n| N | gymlike C | gymlike Warp-CPU | raw MuJoCo C rollout | C / Warp | C / raw "
          "| gymlike C, Isaac Gym's default damping |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, c, w, raw, cd in rows:
        print(f"| {n} | {c:.0f} | {w:.0f} | {raw:.0f} | {c / w:.2f} | {c / raw:.2f} | {cd:.0f} |")


if __name__ == "__main__":
    main()
