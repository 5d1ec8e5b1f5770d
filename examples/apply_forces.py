"""Apply forces: push, lift and spin rigid bodies with the tensor API and the handle API.

Every env holds the same 1 kg box, released 1 m above the ground, and gets its own treatment
(env index modulo 5):

  0  nothing: the box falls and lands
  1  apply_rigid_body_force_tensors: an upward force equal to its weight, every frame (it hovers)
  2  apply_rigid_body_force_tensors: its weight plus a torque about its local z (it hovers and spins)
  3  apply_rigid_body_force_at_pos_tensors: its weight applied at a point off its centre (it tumbles)
  4  apply_body_forces (handle API): its weight plus a sideways push along +x (it flies off sideways)

Forces last one simulate() call, as in Isaac Gym, so they are applied again every frame.

Shows: acquire_rigid_body_state_tensor / refresh_rigid_body_state_tensor, gymtorch.wrap_tensor /
unwrap_tensor, apply_rigid_body_force_tensors in GLOBAL_SPACE and LOCAL_SPACE,
apply_rigid_body_force_at_pos_tensors, apply_body_forces.

    python -m gymlike.run examples/apply_forces.py
    python -m gymlike.run --headless --max-frames 120 examples/apply_forces.py --num_envs 5

At the end it prints each box's height, horizontal travel and spin rate.
"""

import math

import torch

try:
    from isaacgym import gymapi, gymtorch, gymutil   # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymtorch, gymutil

args = gymutil.parse_arguments(
    description="Apply forces and torques with the tensor and handle APIs",
    custom_parameters=[{"name": "--num_envs", "type": int, "default": 10, "help": "number of envs"}])

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = args.use_gpu_pipeline
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None:
    raise SystemExit("*** Failed to create viewer")

size = 0.2
options = gymapi.AssetOptions()
options.density = 1.0 / size ** 3                  # 1 kg
options.angular_damping = 0.0
options.linear_damping = 0.0
box = gym.create_box(sim, size, size, size, options)

spacing = 1.0
per_row = int(math.ceil(math.sqrt(args.num_envs)))
envs, boxes = [], []
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing), per_row)
    boxes.append(gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0.0, 0.0, 1.0)), "box", i, 0))
    envs.append(env)
gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-2.0, -2.0, 3.0),
                          gymapi.Vec3(spacing * per_row / 2, spacing * per_row / 2, 0.5))

gym.prepare_sim(sim)
body_states = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))   # (num_bodies, 13)
num_bodies = body_states.shape[0]
device = body_states.device
mode = torch.arange(num_bodies, device=device) % 5   # one box (one body) per env

mass = 1.0
weight = torch.zeros(num_bodies, 3, device=device)
weight[mode > 0, 2] = mass * 9.81                   # cancel gravity in every env but env 0
torque = torch.zeros(num_bodies, 3, device=device)
torque[mode == 2, 2] = 0.2                          # about the box's own z axis (LOCAL_SPACE)
offset_pos = torch.zeros(num_bodies, 3, device=device)

gym.refresh_rigid_body_state_tensor(sim)
start = body_states[:, 0:3].clone()
env_origins = start - torch.tensor([0.0, 0.0, 1.0], device=device)   # boxes start 1 m above their env origin

while not gym.query_viewer_has_closed(viewer):
    gym.refresh_rigid_body_state_tensor(sim)
    # 1, 2: weight at the COM, world frame; 2: plus a torque in the body frame
    lift = torch.where((mode == 1).unsqueeze(1) | (mode == 2).unsqueeze(1), weight, torch.zeros_like(weight))
    gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(lift), None, gymapi.GLOBAL_SPACE)
    gym.apply_rigid_body_force_tensors(sim, None, gymtorch.unwrap_tensor(torque), gymapi.LOCAL_SPACE)
    # 3: the weight applied 1 cm beside the COM (env frame position) -> lifts and tumbles
    offset_pos[:] = body_states[:, 0:3] - env_origins
    offset_pos[:, 0] += 0.01
    at_pos = torch.where((mode == 3).unsqueeze(1), weight, torch.zeros_like(weight))
    gym.apply_rigid_body_force_at_pos_tensors(sim, gymtorch.unwrap_tensor(at_pos), gymtorch.unwrap_tensor(offset_pos),
                                              gymapi.ENV_SPACE)
    # 4: the handle API: weight plus a push along +x
    for i, env in enumerate(envs):
        if i % 5 == 4:
            handle = gym.get_actor_rigid_body_handle(env, boxes[i], 0)
            gym.apply_body_forces(env, handle, gymapi.Vec3(2.0, 0.0, mass * 9.81), None, gymapi.ENV_SPACE)

    gym.simulate(sim)
    gym.fetch_results(sim, True)
    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

gym.refresh_rigid_body_state_tensor(sim)
names = ["falls", "hovers", "hovers+spins", "tumbles", "pushed"]
print(f"Done after {gym.get_frame_count(sim)} frames ({gym.get_sim_time(sim):.2f} s)")
for b in range(num_bodies):
    z = float(body_states[b, 2])
    travel = float(torch.linalg.norm(body_states[b, 0:2] - start[b, 0:2]))
    spin = float(body_states[b, 12])
    tilt = float(torch.linalg.norm(body_states[b, 10:12]))
    print(f"BOX {b} {names[b % 5]} z {z:.3f} travel {travel:.3f} spin_z {spin:.3f} tilt_rate {tilt:.3f}")

gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
