"""Hello gymlike: build a few envs from URDF, MJCF and primitive assets, simulate them headless
for two seconds, and print what happened (Isaac Gym's handle API, no viewer)."""

import argparse
import os
import time

from gymlike import gymapi

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--flex", action="store_true", help="use SIM_FLEX (Newton XPBD) instead of SIM_PHYSX (MuJoCo)")
parser.add_argument("--num_envs", type=int, default=4)
args = parser.parse_args()

gym = gymapi.acquire_gym()
sim_params = gymapi.SimParams()
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.dt = 1.0 / 120.0
sim_params.substeps = 2
sim = gym.create_sim(0, -1, gymapi.SIM_FLEX if args.flex else gymapi.SIM_PHYSX, sim_params)

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0, 0, 1)
gym.add_ground(sim, plane)

fixed = gymapi.AssetOptions()
fixed.fix_base_link = True
cartpole = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", fixed)
ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", gymapi.AssetOptions())
ball = gym.create_sphere(sim, 0.1, gymapi.AssetOptions())

envs = []
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
    gym.create_actor(env, cartpole, gymapi.Transform(gymapi.Vec3(0, 1, 1.5)), "cartpole", i, 1)
    gym.create_actor(env, ant, gymapi.Transform(gymapi.Vec3(0, -1, 0.95)), "ant", i, 1)
    gym.create_actor(env, ball, gymapi.Transform(gymapi.Vec3(1, 0, 1.0 + 0.5 * i)), "ball", i, 0)
    # tilt each cartpole's pole a little differently (the Isaac Gym creation-loop idiom)
    dofs = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    dofs["pos"][1] = 0.1 * (i + 1)
    gym.set_actor_dof_states(env, 0, dofs, gymapi.STATE_ALL)
    envs.append(env)

print(f"{args.num_envs} envs, {gym.get_sim_actor_count(sim)} actors, {gym.get_sim_rigid_body_count(sim)} "
      f"bodies, {gym.get_sim_dof_count(sim)} DOFs on {'SIM_FLEX' if args.flex else 'SIM_PHYSX'}")
t0 = time.perf_counter()
gym.prepare_sim(sim)
print(f"prepare_sim: {time.perf_counter() - t0:.1f} s (Warp compiles kernels on first use; cached afterwards)")

t0 = time.perf_counter()
while gym.get_sim_time(sim) < 2.0:
    gym.simulate(sim)
    gym.fetch_results(sim, True)
wall = time.perf_counter() - t0
print(f"simulated {gym.get_sim_time(sim):.2f} s in {gym.get_frame_count(sim)} frames, {wall:.2f} s wall")

for i, env in enumerate(envs):
    pole = gym.get_actor_dof_states(env, 0, gymapi.STATE_POS)["pos"][1]
    torso = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)["pose"]["p"][0]
    ball_z = gym.get_actor_rigid_body_states(env, 2, gymapi.STATE_POS)["pose"]["p"]["z"][0]
    print(f"env {i}: pole angle {pole:+.3f} rad, ant torso z {torso['z']:.3f} m, ball z {ball_z:.3f} m "
          "(resting at 0.1)")
gym.destroy_sim(sim)
