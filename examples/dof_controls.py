"""DOF controls: the four Isaac Gym drive modes on a cart-pole, one env per mode.

    env 0  DOF_MODE_POS     both DOFs driven to position targets (cart to 1 m, pole to 0.3 rad)
    env 1  DOF_MODE_VEL     cart at 0.5 m/s, pole spinning at 2 rad/s
    env 2  DOF_MODE_EFFORT  a constant force on the cart, re-applied every frame (efforts last one
                            simulate call); the pole is held upright by a POS drive
    env 3  DOF_MODE_NONE    zero gains: the pole, released 0.1 rad from upright, falls freely

Shows: get_asset_dof_properties, set_actor_dof_properties inside the creation loop (drive mode,
stiffness, damping), set_actor_dof_position_targets / set_actor_dof_velocity_targets,
set_dof_target_position, apply_actor_dof_efforts / apply_dof_effort, get_actor_dof_states,
get_dof_position, get_dof_velocity, get_actor_dof_position_targets.

    python examples/dof_controls.py                       # viewer if a display exists
    python examples/dof_controls.py --headless --num_frames 150
    python examples/dof_controls.py --flex                # SIM_FLEX (Newton XPBD)

At the end it prints one RESULT line per driven DOF: what was asked, what the sim reached, OK/MISS.
"""

import math
import os

import numpy as np

try:
    from isaacgym import gymapi, gymutil          # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymutil

ASSET_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")

args = gymutil.parse_arguments(
    description="DOF controls: POS, VEL, EFFORT and NONE drive modes",
    headless=True,
    custom_parameters=[
        {"name": "--num_frames", "type": int, "default": 300, "help": "frames to simulate (dt = 1/60 s)"},
    ])

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False               # the handle API is used every frame
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

options = gymapi.AssetOptions()
options.fix_base_link = True
options.angular_damping = 0.0
asset = gym.load_asset(sim, ASSET_ROOT, "urdf/cartpole.urdf", options)
dof_names = gym.get_asset_dof_names(asset)           # ['slider_to_cart', 'cart_to_pole']
SLIDER, POLE = dof_names.index("slider_to_cart"), dof_names.index("cart_to_pole")
asset_props = gym.get_asset_dof_properties(asset)
print("asset DOF properties (from the URDF):")
for name, row in zip(dof_names, asset_props):
    print(f"  {name}: hasLimits {bool(row['hasLimits'])} range [{row['lower']:.3g}, {row['upper']:.3g}] "
          f"effort {row['effort']:.3g} velocity {row['velocity']:.3g}")

CART_FORCE = 0.22          # N on a 1.1 kg cart + pole: 0.2 m/s^2
POS_TARGETS = np.array([1.0, 0.3], np.float32)
VEL_TARGETS = np.array([0.5, 2.0], np.float32)
MODES = ["POS", "VEL", "EFFORT", "NONE"]
FLEX = args.physics_engine == gymapi.SIM_FLEX

spacing = 2.5
env_lower, env_upper = gymapi.Vec3(-spacing, -0.5, 0.0), gymapi.Vec3(spacing, 0.5, 2.0)
envs, actors = [], []
for i, mode in enumerate(MODES):
    env = gym.create_env(sim, env_lower, env_upper, 1)
    actor = gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(0.0, 0.0, 1.5)), f"cartpole_{mode}", i, 1)
    props = gym.get_actor_dof_properties(env, actor)
    if mode == "POS":
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:] = (100.0, 200.0)
        props["damping"][:] = (20.0, 10.0)
        gym.set_actor_dof_position_targets(env, actor, POS_TARGETS)
    elif mode == "VEL":
        props["driveMode"][:] = gymapi.DOF_MODE_VEL
        props["stiffness"][:] = 0.0
        props["damping"][:] = (20.0, 20.0)
        if FLEX:   # Newton's XPBD velocity drive diverges on the thin pole (see differences.md)
            props["driveMode"][POLE] = gymapi.DOF_MODE_NONE
        gym.set_actor_dof_velocity_targets(env, actor, VEL_TARGETS)
    elif mode == "EFFORT":
        props["driveMode"][SLIDER] = gymapi.DOF_MODE_EFFORT
        props["driveMode"][POLE] = gymapi.DOF_MODE_POS       # pole held upright (target 0)
        props["stiffness"][:] = (0.0, 200.0)
        props["damping"][:] = (0.0, 10.0)
    else:
        props["driveMode"][:] = gymapi.DOF_MODE_NONE
        props["stiffness"][:] = 0.0           # the drive acts in every mode: zero gains for a free joint
        props["damping"][:] = 0.0
        states = gym.get_actor_dof_states(env, actor, gymapi.STATE_ALL)
        states["pos"][POLE] = 0.1
        gym.set_actor_dof_states(env, actor, states, gymapi.STATE_ALL)
    gym.set_actor_dof_properties(env, actor, props)
    envs.append(env)
    actors.append(actor)

# single-DOF form of the same API: the pole target of the POS env, by DOF handle
pole_handle = gym.find_actor_dof_handle(envs[0], actors[0], "cart_to_pole")
gym.set_dof_target_position(envs[0], pole_handle, float(POS_TARGETS[POLE]))

viewer = None
if not args.headless:
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    if viewer is not None:
        gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(0.0, -8.0, 3.0), gymapi.Vec3(0.0, 4.0, 1.0))

gym.prepare_sim(sim)
effort = np.zeros(len(dof_names), np.float32)
effort[SLIDER] = CART_FORCE
pole_max_swing = 0.0
frame = 0
while frame < args.num_frames:
    if viewer is not None and gym.query_viewer_has_closed(viewer):
        break
    # efforts act during the next simulate call only: apply them every frame
    gym.apply_actor_dof_efforts(envs[2], actors[2], effort)
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    pole_max_swing = max(pole_max_swing, abs(gym.get_dof_position(envs[3], pole_handle)))
    if viewer is not None:
        gym.step_graphics(sim)
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
    frame += 1

t = gym.get_sim_time(sim)
print(f"simulated {frame} frames ({t:.2f} s) on {'SIM_FLEX' if FLEX else 'SIM_PHYSX'}")


def report(mode, dof, quantity, asked, got, tol):
    ok = abs(got - asked) <= tol
    print(f"RESULT {mode:6s} {dof_names[dof]:15s} {quantity:8s} asked {asked:8.4f} got {got:8.4f} "
          f"{'OK' if ok else 'MISS'}")
    return ok


results = []
s = gym.get_actor_dof_states(envs[0], actors[0], gymapi.STATE_ALL)
targets = gym.get_actor_dof_position_targets(envs[0], actors[0])
for dof in (SLIDER, POLE):
    results.append(report("POS", dof, "position", float(targets[dof]), float(s["pos"][dof]), 0.02 * abs(targets[dof])))
s = gym.get_actor_dof_states(envs[1], actors[1], gymapi.STATE_ALL)
for dof in ((SLIDER,) if FLEX else (SLIDER, POLE)):
    results.append(report("VEL", dof, "velocity", float(VEL_TARGETS[dof]), float(s["vel"][dof]),
                          0.05 * VEL_TARGETS[dof]))
# the cart + upright pole (1.1 kg) accelerates at F / m
slider_handle = gym.find_actor_dof_handle(envs[2], actors[2], "slider_to_cart")
expected = CART_FORCE / 1.1 * t
results.append(report("EFFORT", SLIDER, "velocity", expected, gym.get_dof_velocity(envs[2], slider_handle),
                      0.05 * expected))
# a free pole released near upright falls past horizontal (|q| > pi/2)
ok = pole_max_swing > math.pi / 2
print(f"RESULT NONE   {dof_names[POLE]:15s} max |q|  above   {math.pi / 2:8.4f} got {pole_max_swing:8.4f} "
      f"{'OK' if ok else 'MISS'}")
results.append(ok)
print("ALL OK" if all(results) else "SOME MISSED")

if viewer is not None:
    gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
