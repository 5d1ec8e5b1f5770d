"""Physics fidelity cases of issue 40 that make Isaac Gym-trained legged policies fall elsewhere,
on the authored biped (assets/urdf/biped: light frictional ankles, feet of four 1 cm spheres),
with the explicit PD loop legged_gym-style tasks run (torques computed every physics step,
dt = 1 ms, clipped to the effort limits, DOF_MODE_EFFORT, zero actions):

* `dropped`: N bipeds dropped from 12 cm with their joints perturbed by U(-0.05, 0.05) rad;
  upright fraction (never below 0.6 m nor tilted past 30 degrees), share of ankle torques at
  their 85 N m limit over the second half, the largest torque over the second half / its limit,
  and the foot-sphere contacts per biped at the end (8 when both feet stand flat).
* `hung`: the same bipeds hung in the air (fixed base), where the explicit ankle loop (kd dt / I
  = 17) has nothing but PhysX's joint friction to keep it bounded.

    python benchmarks/bench_fidelity.py                      # both cases, 16 bipeds, 3 s
    GYMLIKE_CPU_PIPELINE=warp python benchmarks/bench_fidelity.py --n 4

Figures go in the issue notes (regressions show as upright < 100%, saturation > 0, contacts < 8).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gymlike import gymapi, gymtorch  # noqa: E402

BIPED_DIR = os.path.join(ROOT, "assets", "urdf", "biped")
STAND = {"hip_roll": 0.0, "hip_yaw": 0.0, "hip_pitch": -0.25, "knee": 0.5, "ankle_pitch": -0.25, "ankle_roll": 0.0}
KP = {"hip": 200.0, "knee": 350.0, "ankle": 300.0}
KD = 10.0
STAND_Z = 0.784          # pelvis height standing (the URDF's header)


def biped_zero_actions(gym, n=16, seconds=3.0, hung=False, perturb=0.05, seed=0):
    """Run n bipeds under zero actions (module docstring); returns a dict of the measures, with
    per-step arrays `z`, `up` (cos of the tilt) and `ankle_tau` (N m) for tests."""
    import torch
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
    p.dt, p.substeps = 0.001, 1
    p.physx.solver_type, p.physx.num_position_iterations, p.physx.num_velocity_iterations = 1, 4, 1
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    plane = gymapi.PlaneParams()
    plane.normal = gymapi.Vec3(0, 0, 1)
    plane.static_friction = plane.dynamic_friction = 1.0
    gym.add_ground(sim, plane)
    o = gymapi.AssetOptions()
    o.default_dof_drive_mode = int(gymapi.DOF_MODE_EFFORT)
    o.angular_damping, o.max_angular_velocity = 0.0, 1000.0
    o.fix_base_link = hung
    asset = gym.load_asset(sim, BIPED_DIR, "biped.urdf", o)
    names = gym.get_asset_dof_names(asset)
    joint = [name[2:] for name in names]
    default = torch.tensor([STAND[j] for j in joint])
    kp = torch.tensor([KP[j.split("_")[0]] for j in joint])
    limit = torch.tensor(np.ascontiguousarray(gym.get_asset_dof_properties(asset)["effort"]))
    ankles = [i for i, j in enumerate(joint) if j.startswith("ankle")]
    z0 = 1.5 if hung else STAND_Z + 0.12
    envs = []
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), int(math.sqrt(n)) or 1)
        gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(0, 0, z0)), "biped", i, 0)
        envs.append(env)
    gym.acquire_net_contact_force_tensor(sim)      # (contact capture on from the first step)
    gym.prepare_sim(sim)
    nd = len(names)
    dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim)).view(n, nd, 2)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    rng = torch.Generator().manual_seed(seed)
    gym.refresh_dof_state_tensor(sim)
    dof[:, :, 0] = default + perturb * (2 * torch.rand(n, nd, generator=rng) - 1)
    dof[:, :, 1] = 0.0
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(dof.reshape(-1, 2).contiguous()))
    steps = int(round(seconds / p.dt))
    z, up, ankle_tau, tau_max = [], [], [], []
    t0 = time.time()
    for _ in range(steps):
        gym.refresh_dof_state_tensor(sim)
        tau = torch.clamp(kp * (default - dof[:, :, 0]) - KD * dof[:, :, 1], -limit, limit)
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(tau.reshape(-1).contiguous()))
        gym.simulate(sim)
        gym.refresh_actor_root_state_tensor(sim)
        q = root[:, 3:7]
        z.append(root[:, 2].numpy().copy())
        up.append((1.0 - 2.0 * (q[:, 0] ** 2 + q[:, 1] ** 2)).numpy().copy())
        ankle_tau.append(tau[:, ankles].numpy().copy())
        tau_max.append((tau.abs() / limit).max(1).values.numpy().copy())
    wall = time.time() - t0
    z, up, ankle_tau, tau_max = (np.array(a) for a in (z, up, ankle_tau, tau_max))
    late = slice(steps // 2, None)
    touching = []
    for env in envs:
        c = gym.get_env_rigid_contacts(env)
        touching.append(int(((c["body0"] < 0) | (c["body1"] < 0))[c["minDist"] <= 0.0].sum()) if len(c) else 0)
    gym.destroy_sim(sim)
    upright = ((z > 0.6).all(0) & (up > math.cos(math.radians(30))).all(0)) if not hung else np.ones(n, bool)
    return dict(upright=float(upright.mean()), saturated=float((np.abs(ankle_tau[late]) >= 0.99 * 85.0).mean()),
                tau_over_limit=float(tau_max[late].max()), contacts=touching, wall_s=wall, steps=steps,
                z=z, up=up, ankle_tau=ankle_tau)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    gym = gymapi.acquire_gym()
    pipeline = os.environ.get("GYMLIKE_CPU_PIPELINE", "") or "mujoco-c"
    print(f"biped, zero actions, explicit PD at 1 kHz, {args.n} bipeds, {args.seconds} s, pipeline {pipeline}")
    print("| case | upright | ankle torques at limit (2nd half) | max |tau| / limit (2nd half) "
          "| touching foot contacts per biped (min / max) | wall s |")
    print("|---|---|---|---|---|---|")
    for case in ("dropped", "hung"):
        r = biped_zero_actions(gym, args.n, args.seconds, hung=case == "hung")
        touching = f"{min(r['contacts'])} / {max(r['contacts'])}" if case == "dropped" else "-"
        print(f"| {case} | {100 * r['upright']:.0f}% | {100 * r['saturated']:.1f}% | {r['tau_over_limit']:.2f} | "
              f"{touching} | {r['wall_s']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
