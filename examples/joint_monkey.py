"""Joint monkey: animate every degree of freedom of an asset through its range, one DOF at a time.

Each env holds one fixed-base copy of the chosen asset. The animation drives the DOF states
directly (set_actor_dof_states), like a puppeteer: the current DOF moves from its default
position down to its lower limit, up to its upper limit and back, then the next DOF starts.
With --show_axis the axis of the animated DOF is drawn as a line in the viewer.

Shows: get_asset_dof_properties / names / types, get_actor_dof_states and
set_actor_dof_states, get_actor_dof_frames, gymutil line drawing, the viewer loop.

    python -m gymlike.run examples/joint_monkey.py --asset_id 1 --show_axis
    python -m gymlike.run --headless --max-frames 300 examples/joint_monkey.py --speed_scale 4

At the end it prints, for every DOF, the range it visited (read back from the sim).
"""

import math
import os

import numpy as np

try:
    from isaacgym import gymapi, gymutil          # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymutil

ASSET_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")
ASSETS = ["mjcf/nv_ant.xml", "mjcf/humanoid.xml", "urdf/cartpole.urdf", "urdf/arm7/arm7.urdf",
          "urdf/quadruped/quadruped.urdf"]

args = gymutil.parse_arguments(
    description="Joint monkey: animate DOF ranges",
    custom_parameters=[
        {"name": "--asset_id", "type": int, "default": 0, "help": f"asset 0..{len(ASSETS) - 1}: {', '.join(ASSETS)}"},
        {"name": "--speed_scale", "type": float, "default": 1.0, "help": "animation speed scale"},
        {"name": "--show_axis", "action": "store_true", "help": "draw the axis of the animated DOF"},
        {"name": "--num_envs", "type": int, "default": 16, "help": "number of envs"},
    ])
if not 0 <= args.asset_id < len(ASSETS):
    raise SystemExit(f"*** --asset_id must be in 0..{len(ASSETS) - 1}, got {args.asset_id}")

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False                 # the handle API is used every frame
if args.physics_engine == gymapi.SIM_FLEX:
    sim_params.flex.num_outer_iterations = 4
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None:
    raise SystemExit("*** Failed to create viewer")

asset_file = ASSETS[args.asset_id]
options = gymapi.AssetOptions()
options.fix_base_link = True
options.flip_visual_attachments = False
print(f"Loading asset '{asset_file}' from '{ASSET_ROOT}'")
asset = gym.load_asset(sim, ASSET_ROOT, asset_file, options)

dof_names = gym.get_asset_dof_names(asset)
dof_props = gym.get_asset_dof_properties(asset)
num_dofs = gym.get_asset_dof_count(asset)
dof_types = [gym.get_asset_dof_type(asset, i) for i in range(num_dofs)]
if num_dofs == 0:
    raise SystemExit(f"*** {asset_file} has no DOFs to animate")

# Animation range and speed of every DOF; unlimited DOFs swing through [-pi, pi] (rotations)
# or [-1, 1] m (translations). The default position is clamped into the range.
lower = np.zeros(num_dofs)
upper = np.zeros(num_dofs)
defaults = np.zeros(num_dofs)
speeds = np.zeros(num_dofs)
for i in range(num_dofs):
    rotation = dof_types[i] == gymapi.DOF_ROTATION
    if dof_props["hasLimits"][i]:
        lower[i], upper[i] = dof_props["lower"][i], dof_props["upper"][i]
    else:
        lower[i], upper[i] = (-math.pi, math.pi) if rotation else (-1.0, 1.0)
    defaults[i] = min(max(0.0, lower[i]), upper[i])
    speeds[i] = args.speed_scale * min(max(2.0 * (upper[i] - lower[i]), 0.25 * math.pi), 3.0 * math.pi)
    kind = gym.get_dof_type_string(dof_types[i])
    print(f"DOF {i} '{dof_names[i]}' {kind}: range [{lower[i]:.3f}, {upper[i]:.3f}], default {defaults[i]:.3f}")

# envs in a grid, the robot hanging 1.5 m above the ground
spacing = 1.5
env_lower, env_upper = gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing)
per_row = int(math.sqrt(args.num_envs))
pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, 1.5))
envs, actors = [], []
for i in range(args.num_envs):
    env = gym.create_env(sim, env_lower, env_upper, per_row)
    actor = gym.create_actor(env, asset, pose, "actor", i, 1)
    # puppeteering: no drives, so only the state we set moves the joints
    props = gym.get_actor_dof_properties(env, actor)
    props["driveMode"][:] = gymapi.DOF_MODE_NONE
    props["stiffness"][:] = 0.0
    props["damping"][:] = 0.0
    gym.set_actor_dof_properties(env, actor, props)
    envs.append(env)
    actors.append(actor)

dof_states = np.zeros(num_dofs, dtype=gymapi.DofState.dtype)
dof_states["pos"] = defaults
for env, actor in zip(envs, actors):
    gym.set_actor_dof_states(env, actor, dof_states, gymapi.STATE_ALL)

gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-3.0, -3.0, 4.0), gymapi.Vec3(spacing, spacing, 1.0))

# state machine per DOF: down to the lower limit, up to the upper limit, back to the default
ANIM_SEEK_LOWER, ANIM_SEEK_UPPER, ANIM_SEEK_DEFAULT, ANIM_FINISHED = 1, 2, 3, 4
anim_state = ANIM_SEEK_LOWER
current_dof = 0
cycles = 0
visited_lo = np.full(num_dofs, np.inf)
visited_hi = np.full(num_dofs, -np.inf)
print(f"Animating DOF {current_dof} ('{dof_names[current_dof]}')")

while not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.fetch_results(sim, True)

    speed = speeds[current_dof]
    pos = dof_states["pos"]
    if anim_state == ANIM_SEEK_LOWER:
        pos[current_dof] -= speed * sim_params.dt
        if pos[current_dof] <= lower[current_dof]:
            pos[current_dof] = lower[current_dof]
            anim_state = ANIM_SEEK_UPPER
    elif anim_state == ANIM_SEEK_UPPER:
        pos[current_dof] += speed * sim_params.dt
        if pos[current_dof] >= upper[current_dof]:
            pos[current_dof] = upper[current_dof]
            anim_state = ANIM_SEEK_DEFAULT
    elif anim_state == ANIM_SEEK_DEFAULT:
        pos[current_dof] -= speed * sim_params.dt
        if pos[current_dof] <= defaults[current_dof]:
            pos[current_dof] = defaults[current_dof]
            anim_state = ANIM_FINISHED
    else:
        pos[current_dof] = defaults[current_dof]
        current_dof = (current_dof + 1) % num_dofs
        if current_dof == 0:
            cycles += 1
            print(f"Finished cycle {cycles} over all {num_dofs} DOFs")
        anim_state = ANIM_SEEK_LOWER
        print(f"Animating DOF {current_dof} ('{dof_names[current_dof]}')")
    dof_states["vel"][:] = 0.0

    if args.show_axis:
        gym.clear_lines(viewer)
    for env, actor in zip(envs, actors):
        gym.set_actor_dof_states(env, actor, dof_states, gymapi.STATE_POS)
        if args.show_axis:
            frame = gym.get_actor_dof_frames(env, actor)[current_dof]
            p = gymapi.Vec3(*frame["origin"].tolist())
            a = gymapi.Vec3(*frame["axis"].tolist())
            gymutil.draw_line(p, p + a * 0.5, gymapi.Vec3(1.0, 0.0, 0.0), gym, viewer, env)

    # what the sim now holds for env 0 (read back, not our own copy)
    seen = gym.get_actor_dof_states(envs[0], actors[0], gymapi.STATE_POS)["pos"]
    visited_lo = np.minimum(visited_lo, seen)
    visited_hi = np.maximum(visited_hi, seen)

    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

print(f"Done after {gym.get_frame_count(sim)} frames, {cycles} full cycle(s)")
for i in range(num_dofs):
    print(f"VISITED {i} {dof_names[i]} {visited_lo[i]:.4f} {visited_hi[i]:.4f} range {lower[i]:.4f} {upper[i]:.4f}")

gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
