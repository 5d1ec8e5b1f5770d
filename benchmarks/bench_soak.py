"""Soak: many ants under random efforts with periodic indexed resets, as a training loop runs.
Prints steps/s, resident memory after warm-up and at the end (it must stay flat), and how many
NaN resets happened (0 expected on SIM_PHYSX at the ants' gear torque).

    python benchmarks/bench_soak.py                      # 256 ants, 6000 frames (the long soak)
    python benchmarks/bench_soak.py --n 32 --frames 300  # what tests/physics/test_determinism_soak.py runs
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
ASSETS = os.path.join(ROOT, "assets")

from gymlike import gymapi, gymtorch  # noqa: E402
from gymlike.core.errors import SimulationNaNError  # noqa: E402


def rss_mb():
    """Resident memory now (Linux /proc), else the peak so far."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def soak(gym, n=256, frames=6000, engine=gymapi.SIM_PHYSX, reset_every=200, seed=0, substeps=2):
    """Run the soak; returns a dict of measurements and the final root states (torch)."""
    import torch
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
    p.dt, p.substeps = 1.0 / 60.0, substeps
    sim = gym.create_sim(0, -1, engine, p)
    plane = gymapi.PlaneParams()
    plane.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, plane)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", gymapi.AssetOptions())
    start = gymapi.Transform(gymapi.Vec3(0, 0, 0.75), gymapi.Quat())
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), int(np.sqrt(n)))
        gym.create_actor(env, ant, start, "ant", i, 1)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    root0, dofs0 = root.clone(), dofs.clone()
    gen = torch.Generator().manual_seed(seed)
    nan_resets, warm_rss, t0 = 0, None, None

    def reset(ids):
        idx = gymtorch.unwrap_tensor(ids)
        root[ids.long()] = root0[ids.long()]
        dofs.view(n, -1, 2)[ids.long()] = dofs0.view(n, -1, 2)[ids.long()]
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(root), idx, len(ids))
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(dofs), idx, len(ids))

    for f in range(frames):
        if f == min(50, frames // 4):
            warm_rss, t0 = rss_mb(), time.perf_counter()
        efforts = (torch.rand(n * 8, generator=gen) * 2 - 1) * 15.0
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
        try:
            gym.simulate(sim)
        except SimulationNaNError as e:
            nan_resets += len(e.envs)
            reset(torch.tensor(e.envs, dtype=torch.int32))
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        if reset_every and f % reset_every == reset_every - 1:     # a quarter of the envs each time
            reset(torch.arange(f // reset_every % 4, n, 4, dtype=torch.int32))
    seconds = time.perf_counter() - t0
    measured = frames - min(50, frames // 4)
    out = dict(n=n, frames=frames, steps_per_s=measured * n / seconds, rss_warm_mb=warm_rss,
               rss_end_mb=rss_mb(), nan_resets=nan_resets)
    gym.destroy_sim(sim)
    return out, root.clone()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--frames", type=int, default=6000)
    ap.add_argument("--flex", action="store_true", help="SIM_FLEX (Newton XPBD) instead of SIM_PHYSX")
    a = ap.parse_args()
    gym = gymapi.acquire_gym()
    engine = gymapi.SIM_FLEX if a.flex else gymapi.SIM_PHYSX
    r, root = soak(gym, a.n, a.frames, engine, substeps=4 if a.flex else 2)
    print(f"{r['n']} ants x {r['frames']} frames: {r['steps_per_s']:.0f} env-steps/s, memory "
          f"{r['rss_warm_mb']:.0f} MB after warm-up -> {r['rss_end_mb']:.0f} MB at the end "
          f"({r['rss_end_mb'] - r['rss_warm_mb']:+.1f} MB), NaN resets {r['nan_resets']}, "
          f"final state finite: {bool(root.isfinite().all())}")


if __name__ == "__main__":
    main()
