"""Cost of camera sensors on gymlike against the physics step, and against raw Newton's
SensorCamera on the same model, side by side in one run.

N ants (nv_ant MJCF) on a ground plane, one camera per env of W x W pixels looking at its ant,
random efforts. Reported per frame (1/60 s in 2 substeps): the physics step (simulate), one
`render_all_camera_sensors` (color, depth and segmentation of every camera), the render cost per
pixel, and raw Newton `SensorCamera.update` for the same views and outputs (gymlike adds the
camera pose and Isaac Gym image kernels on top).

    python benchmarks/bench_cameras.py                 # 64 envs x 1 camera of 128 x 128
    python benchmarks/bench_cameras.py --n 16 --size 64 --frames 10
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--frames", type=int, default=30)
    args = ap.parse_args()
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
    cp = gymapi.CameraProperties()
    cp.width = cp.height = args.size
    cp.enable_tensors = True
    per_row = int(np.ceil(np.sqrt(args.n)))
    for i in range(args.n):
        env = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), per_row)
        gym.create_actor(env, ant, gymapi.Transform(gymapi.Vec3(0, 0, 0.0)), "ant", i, 0)
        c = gym.create_camera_sensor(env, cp)
        gym.set_camera_location(c, env, gymapi.Vec3(1.2, -1.2, 0.9), gymapi.Vec3(0, 0, 0.2))
    gym.prepare_sim(sim)
    import torch
    nd = gym.get_sim_dof_count(sim)
    gen = torch.Generator().manual_seed(0)
    gym.render_all_camera_sensors(sim)               # warm-up: kernel compilation
    gym.simulate(sim)
    t_sim = t_render = 0.0
    for _ in range(args.frames):
        eff = (torch.rand(nd, generator=gen) * 2 - 1) * 5.0
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(eff))
        t0 = time.perf_counter()
        gym.simulate(sim)
        t1 = time.perf_counter()
        gym.render_all_camera_sensors(sim)
        t2 = time.perf_counter()
        t_sim += t1 - t0
        t_render += t2 - t1
    # raw Newton: the same views and outputs through SensorCamera.update alone
    cams = sim.cameras
    g = cams.groups[0]
    t0 = time.perf_counter()
    for _ in range(args.frames):
        sim.model.bvh_refit_shapes(sim.state)
        cams.sensor.update(sim.state, g.xforms, g.rays, color_image=g.color, forward_depth_image=g.fdepth,
                           shape_index_image=g.shape, world_indices=g.worlds, render_config=cams.config)
    t_raw = time.perf_counter() - t0
    f = args.frames
    px = args.n * args.size * args.size
    print(f"{args.n} envs x 1 camera of {args.size}x{args.size} ({px} pixels), {f} frames, 2 CPU threads")
    print(f"physics step        {1e3 * t_sim / f:9.2f} ms/frame")
    print(f"render (gymlike)    {1e3 * t_render / f:9.2f} ms/frame  {1e9 * t_render / f / px:7.1f} ns/pixel")
    print(f"render (raw Newton) {1e3 * t_raw / f:9.2f} ms/frame  {1e9 * t_raw / f / px:7.1f} ns/pixel")
    print(f"ratio render/physics {t_render / t_sim:.2f}   gymlike/raw Newton render {t_render / t_raw:.2f}")


if __name__ == "__main__":
    main()
