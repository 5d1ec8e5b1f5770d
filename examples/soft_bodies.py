"""Soft bodies: FleX's deformables on Newton's VBD solver (SIM_FLEX only).

Each env holds a soft cube (create_tet_grid), a rigid plate dropped onto it, and a cloth
(create_cloth_grid) hanging from two of its corners, pinned through the particle state tensor
(inverse mass 0). Every env's cube gets a different Young's modulus (set_actor_soft_materials):
the stiffer the cube, the less the plate sinks into it. Every --reset_every frames the cloths of
the even envs are put back flat with set_particle_state_tensor_indexed (the others keep swinging),
and the cubes of the odd envs with reset_actor_particles_to_rest.

Shows: create_tet_grid, create_cloth_grid, soft materials per actor, the particle state tensor
(acquire/refresh/set, indexed), get_actor_tetrahedra_range, get_sim_tetrahedra (stress),
get_soft_contacts.

    python -m gymlike.run --headless --max-frames 120 examples/soft_bodies.py --num_envs 2

At the end it prints, per env, the cube's Young's modulus, the heights of its top and of the plate's bottom, and
the largest compressive stress in the cube.
"""

import torch

try:
    from isaacgym import gymapi, gymtorch, gymutil    # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymtorch, gymutil

args = gymutil.parse_arguments(
    description="Soft bodies: soft cubes under rigid plates, and hanging cloths",
    custom_parameters=[
        {"name": "--num_envs", "type": int, "default": 4, "help": "number of envs"},
        {"name": "--reset_every", "type": int, "default": 90, "help": "reset period in frames (0: never)"},
    ])

gym = gymapi.acquire_gym()
sim_params = gymapi.SimParams()
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 4
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, gymapi.SIM_FLEX, sim_params)
plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

SIDE, CELLS = 0.3, 3
material = gymapi.SoftMaterial()
material.youngs, material.poissons, material.damping = 2e4, 0.3, 0.0
cube_asset = gym.create_tet_grid(sim, material, CELLS, CELLS, CELLS, SIDE / CELLS, SIDE / CELLS, SIDE / CELLS,
                                 500.0, False, False, False, False)
plate_options = gymapi.AssetOptions()
plate_options.density = 200.0
plate_asset = gym.create_box(sim, 0.4, 0.4, 0.05, plate_options)
CLOTH = 6
cloth_asset = gym.create_cloth_grid(sim, CLOTH, CLOTH, 0.08, 0.08)

envs, youngs = [], []
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-1.0, -1.0, 0.0), gymapi.Vec3(1.0, 1.0, 1.0), 2)
    envs.append(env)
    gym.create_actor(env, cube_asset, gymapi.Transform(gymapi.Vec3(-SIDE / 2, -SIDE / 2, 0.0)), "cube", i, 0)
    gym.create_actor(env, plate_asset, gymapi.Transform(gymapi.Vec3(0.0, 0.0, SIDE + 0.1)), "plate", i, 0)
    gym.create_actor(env, cloth_asset, gymapi.Transform(gymapi.Vec3(0.4, -0.2, 0.8)), "cloth", i, 0)
    mats = gym.get_actor_soft_materials(env, 0)
    mats[0].youngs = 1e4 * 2 ** i                  # each env's cube twice as stiff as the last
    gym.set_actor_soft_materials(env, 0, mats)
    youngs.append(mats[0].youngs)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())     # (headless under gymlike.run --headless)
gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(2.0, -2.0, 1.5), gymapi.Vec3(0.5, 0.5, 0.3))

gym.prepare_sim(sim)
particles = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
gym.refresh_particle_state_tensor(sim)
per_cube = (CELLS + 1) ** 3
per_env = per_cube + CLOTH * CLOTH
pins = [per_env * i + per_cube + k for i in range(args.num_envs) for k in (0, CLOTH - 1)]
start = particles.clone()
start[pins, 3] = 0.0                                # pin two corners of every cloth
gym.set_particle_state_tensor(sim, gymtorch.unwrap_tensor(start))
even_cloths = torch.tensor([3 * i + 2 for i in range(0, args.num_envs, 2)], dtype=torch.int32)

frame = 0
while not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    frame += 1
    if args.reset_every and frame % args.reset_every == 0:
        gym.set_particle_state_tensor_indexed(sim, gymtorch.unwrap_tensor(start),
                                              gymtorch.unwrap_tensor(even_cloths), len(even_cloths))
        for i in range(1, args.num_envs, 2):
            gym.reset_actor_particles_to_rest(envs[i], 0)
        print(f"frame {frame}: cloths of the even envs and cubes of the odd envs reset")
    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

gym.refresh_particle_state_tensor(sim)
gym.refresh_actor_root_state_tensor(sim)
_, stress = gym.get_sim_tetrahedra(sim)
for i, env in enumerate(envs):
    cube = particles[per_env * i: per_env * i + per_cube]
    top = float(cube[:, 2].max())
    plate_bottom = float(roots[3 * i + 1, 2]) - 0.025
    r = gym.get_actor_tetrahedra_range(env, 0, 0)
    sz = min(s.z.z for s in stress[r.start:r.start + r.count])
    print(f"env {i}: E {youngs[i]:8.0f} Pa, cube top {top:.3f} m (side {SIDE:.3f}), plate bottom "
          f"{plate_bottom:.3f} m, largest compressive stress {-sz:7.0f} Pa")
print(f"{len(gym.get_soft_contacts(sim))} soft contacts")
gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
