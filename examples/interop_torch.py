"""Tensor API interop with PyTorch: a training-loop skeleton over a handful of envs.

Each env holds a cart-pole (fixed base; the cart is driven by an effort, the pole hangs free)
and a box resting on the ground. The loop works on torch tensors only:

    acquire_*_tensor + gymtorch.wrap_tensor    zero-copy torch views of the sim's buffers
    set_dof_actuation_force_tensor             a torch "policy" pushes every cart each frame
    simulate, refresh_*_tensor                 observations refreshed in place
    set_dof_state_tensor_indexed               envs whose pole fell or whose episode ran 50 frames
                                               are reset (their cart-pole only)
    set_actor_root_state_tensor_indexed        every 60 frames the boxes of half the envs are
                                               dropped from 0.5 m (their roots only)

and checks what Isaac Gym promises: the wrapped tensors share the sim's memory, they are stale
until refreshed, an indexed reset touches only the listed actors, and a resting box carries its
weight (net contact force tensor).

    python examples/interop_torch.py                        # viewer if a display exists
    python examples/interop_torch.py --headless --num_frames 120
    python examples/interop_torch.py --num_envs 8 --flex    # SIM_FLEX (Newton XPBD)

It prints RESULT lines and "ALL OK" when every check held.
"""

import os

import torch

try:
    from isaacgym import gymapi, gymtorch, gymutil      # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymtorch, gymutil

ASSET_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")

args = gymutil.parse_arguments(
    description="Tensor API interop with PyTorch: wrap, refresh, indexed resets",
    headless=True,
    custom_parameters=[
        {"name": "--num_envs", "type": int, "default": 4, "help": "number of environments"},
        {"name": "--num_frames", "type": int, "default": 300, "help": "frames to simulate (dt = 1/60 s)"},
    ])

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

cp_options = gymapi.AssetOptions()
cp_options.fix_base_link = True
cartpole = gym.load_asset(sim, ASSET_ROOT, "urdf/cartpole.urdf", cp_options)
box_options = gymapi.AssetOptions()
box_options.density = 125.0                       # 0.2 m cube: 1 kg
BOX_SIZE, BOX_MASS = 0.2, 1.0
box = gym.create_box(sim, BOX_SIZE, BOX_SIZE, BOX_SIZE, box_options)

num_envs = args.num_envs
envs = []
for i in range(num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-2.0, -1.0, 0.0), gymapi.Vec3(2.0, 1.0, 2.0), 2)
    cp = gym.create_actor(env, cartpole, gymapi.Transform(gymapi.Vec3(0.0, 0.0, 1.5)), "cartpole", i, 1)
    props = gym.get_actor_dof_properties(env, cp)
    props["driveMode"][0] = gymapi.DOF_MODE_EFFORT    # the cart: pushed by the policy
    props["driveMode"][1] = gymapi.DOF_MODE_NONE      # the pole: free
    props["stiffness"][:] = 0.0
    props["damping"][:] = 0.0
    gym.set_actor_dof_properties(env, cp, props)
    gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0.0, 0.6, 0.5 * BOX_SIZE)), "box", i, 0)
    envs.append(env)

viewer = None
if not args.headless:
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    if viewer is not None:
        gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(0.0, -7.0, 3.0), gymapi.Vec3(0.0, 2.0, 1.0))

gym.prepare_sim(sim)

# ---- tensors: acquire once, wrap once; the torch views share the sim's memory
_root = gym.acquire_actor_root_state_tensor(sim)
_dofs = gym.acquire_dof_state_tensor(sim)
_contacts = gym.acquire_net_contact_force_tensor(sim)
root_states = gymtorch.wrap_tensor(_root)                  # (num_envs * 2, 13)
dof_states = gymtorch.wrap_tensor(_dofs)                   # (num_envs * 2, 2): cart, pole per env
contact_forces = gymtorch.wrap_tensor(_contacts)           # (num_bodies, 3)
device = root_states.device        # the sim's device (gymlike runs on the CPU when CUDA is absent)
gym.refresh_actor_root_state_tensor(sim)
gym.refresh_dof_state_tensor(sim)
checks = {}
checks["zero_copy"] = root_states.data_ptr() == gymtorch.unwrap_tensor(root_states).data_ptr

dofs_per_env = gym.get_actor_dof_count(envs[0], 0)
cart_pos = dof_states.view(num_envs, dofs_per_env, 2)[:, 0, 0]     # views of views: still zero copy
pole_pos = dof_states.view(num_envs, dofs_per_env, 2)[:, 1, 0]
pole_vel = dof_states.view(num_envs, dofs_per_env, 2)[:, 1, 1]
cp_ids = torch.tensor([gym.get_actor_index(e, 0, gymapi.DOMAIN_SIM) for e in envs], dtype=torch.int32, device=device)
box_ids = torch.tensor([gym.get_actor_index(e, 1, gymapi.DOMAIN_SIM) for e in envs], dtype=torch.int32, device=device)
box_bodies = torch.tensor([gym.get_actor_rigid_body_index(e, 1, 0, gymapi.DOMAIN_SIM) for e in envs], device=device)
initial_roots = root_states.clone()

# the initial pole angles: small random tilts
gen = torch.Generator(device=device).manual_seed(1)
dof_states.view(num_envs, dofs_per_env, 2)[:, 1, 0] = 0.2 * torch.rand(num_envs, generator=gen, device=device) - 0.1
gym.set_dof_state_tensor(sim, _dofs)

actions = torch.zeros(num_envs * dofs_per_env, device=device)
episode_length = torch.zeros(num_envs, dtype=torch.long, device=device)
MAX_EPISODE = 50
resets = box_drops = 0
checks["stale_until_refresh"] = True
checks["indexed_reset_only_listed"] = True
frame = 0
while frame < args.num_frames:
    if viewer is not None and gym.query_viewer_has_closed(viewer):
        break
    # ---- policy (torch): push the cart under the pole; the pole is free, so it falls anyway
    actions.view(num_envs, dofs_per_env)[:, 0] = 8.0 * pole_pos + 1.5 * pole_vel - 0.5 * cart_pos
    gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(actions))

    before = dof_states.clone()
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    if frame < 3:
        checks["stale_until_refresh"] &= bool(torch.equal(before, dof_states))
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_net_contact_force_tensor(sim)

    # ---- reset the cart-poles whose pole fell or whose episode is over (their DOF states only)
    episode_length += 1
    fallen = (pole_pos.abs() > 0.6) | (cart_pos.abs() > 3.0) | (episode_length >= MAX_EPISODE)
    if fallen.any():
        env_ids = fallen.nonzero().flatten()
        new = dof_states.clone()
        new.view(num_envs, dofs_per_env, 2)[env_ids] = 0.0
        new.view(num_envs, dofs_per_env, 2)[env_ids, 1, 0] = \
            0.2 * torch.rand(len(env_ids), generator=gen, device=device) - 0.1
        ids = cp_ids[env_ids].contiguous()
        kept = dof_states.clone()
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), len(ids))
        gym.refresh_dof_state_tensor(sim)
        mask = torch.zeros(num_envs, dtype=torch.bool, device=device)
        mask[env_ids] = True
        per_env = dof_states.view(num_envs, dofs_per_env, 2)
        ok = torch.allclose(per_env[mask], new.view(num_envs, dofs_per_env, 2)[mask], atol=1e-6)
        ok &= torch.equal(per_env[~mask], kept.view(num_envs, dofs_per_env, 2)[~mask])
        checks["indexed_reset_only_listed"] &= bool(ok)
        resets += len(env_ids)
        episode_length[env_ids] = 0

    # ---- every 60 frames, drop the boxes of the even envs from 0.5 m (root states, indexed)
    if frame % 60 == 30:
        env_ids = torch.arange(0, num_envs, 2, device=device)
        new = root_states.clone()
        rows = box_ids[env_ids].long()
        new[rows] = initial_roots[rows]
        new[rows, 2] = 0.5
        kept = root_states.clone()
        ids = box_ids[env_ids].contiguous()
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), len(ids))
        gym.refresh_actor_root_state_tensor(sim)
        others = torch.ones(len(root_states), dtype=torch.bool, device=device)
        others[rows] = False
        ok = torch.allclose(root_states[rows], new[rows], atol=1e-5) and torch.equal(root_states[others], kept[others])
        checks["indexed_reset_only_listed"] &= bool(ok)
        box_drops += len(env_ids)

    if viewer is not None:
        gym.step_graphics(sim)
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
    frame += 1

# boxes at rest carry their weight: net contact force (0, 0, m g)
box_z = root_states[box_ids.long(), 2]
resting = (box_z - 0.5 * BOX_SIZE).abs() < 0.01
fz = contact_forces[box_bodies, 2]
checks["resting_box_contact_force"] = bool(resting.any()) and bool(
    ((fz[resting] - BOX_MASS * 9.81).abs() < 0.05 * BOX_MASS * 9.81).all())

print(f"simulated {frame} frames, {num_envs} envs, {resets} cart-pole resets, {box_drops} box drops")
print(f"RESULT resets {resets}")
print(f"RESULT box_drops {box_drops}")
print(f"RESULT box_contact_fz {[round(float(f), 3) for f in fz]}")
for name, ok in checks.items():
    print(f"RESULT {name} {'OK' if ok else 'FAILED'}")
print("ALL OK" if all(checks.values()) else "SOME FAILED")

if viewer is not None:
    gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
