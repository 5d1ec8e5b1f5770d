"""Cost of gymlike's one-world mode (all envs in one Newton world, kept apart by collision groups)
against the default one-world-per-env layout, on the same scene, side by side in one run.

One-world mode is what gymlike uses for scenes Isaac Gym simulates on PhysX that are not one
identical world per env (envs holding different actors, collision group -1 actors that hit every
env). Here both layouts simulate the same uniform scene (N ants on a ground plane, random
efforts), so the ratio is the price of the mode itself.

    python benchmarks/bench_one_world.py            # N = 4, 16, 64
    python benchmarks/bench_one_world.py --n 16 --steps 100
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gymlike import gymapi, gymtorch  # noqa: E402
from gymlike.core import build  # noqa: E402


def run(n, steps, one_world):
    real = build.one_world
    build.one_world = (lambda sim: True) if one_world else (lambda sim: False)
    try:
        gym = gymapi.acquire_gym()
        p = gymapi.SimParams()
        p.up_axis, p.gravity, p.dt, p.substeps = gymapi.UP_AXIS_Z, gymapi.Vec3(0, 0, -9.81), 1 / 60, 2
        sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
        pp = gymapi.PlaneParams()
        pp.normal = gymapi.Vec3(0, 0, 1)
        gym.add_ground(sim, pp)
        o = gymapi.AssetOptions()
        o.default_dof_drive_mode = gymapi.DOF_MODE_EFFORT
        ant = gym.load_asset(sim, os.path.join(ROOT, "assets"), "mjcf/nv_ant.xml", o)
        per_row = int(np.ceil(np.sqrt(n)))
        for i in range(n):
            env = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), per_row)
            gym.create_actor(env, ant, gymapi.Transform(gymapi.Vec3(0, 0, 0.0)), "ant", i, 0)
        gym.prepare_sim(sim)
        import torch
        nd = gym.get_sim_dof_count(sim)
        gen = torch.Generator().manual_seed(0)
        for k in range(steps + 10):
            if k == 10:                                  # warm-up (kernel compilation) excluded
                t0 = time.perf_counter()
            eff = (torch.rand(nd, generator=gen) * 2 - 1) * 5.0
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(eff))
            gym.simulate(sim)
        dt = time.perf_counter() - t0
        gym.destroy_sim(sim)
        return n * steps / dt
    finally:
        build.one_world = real


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="*", default=[4, 16, 64])
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()
    print(f"{'envs':>6} {'per-env worlds':>16} {'one world':>12} {'one/per-env':>12}   (env-steps/s, SIM_PHYSX, ants)")
    for n in args.n:
        sep = run(n, args.steps, False)
        one = run(n, args.steps, True)
        print(f"{n:>6} {sep:>16.0f} {one:>12.0f} {one / sep:>12.2f}")


if __name__ == "__main__":
    main()
