"""Transforms: body poses, frames and the gymapi.Transform / Quat maths, drawn as axes.

Each env holds a 7-DOF arm whose joints follow sine-wave position targets. Every frame the
example reads the rigid body states and draws a small coordinate frame at every body
(gymutil.AxesGeometry), plus a red line from the hand to a point 0.15 m ahead of it, computed by
composing transforms. It checks the identities a script relies on while doing so:

* get_rigid_transform(env, handle) == the pose in get_actor_rigid_body_states (env frame)
* get_sim_rigid_body_states == get_actor_rigid_body_states (both in the env frame, as the
  rigid body state tensor; get_env_origin places the env in the sim)
* Transform.transform_point == p + r.rotate(v), and transform_points (vectorised) agrees
* (parent^-1 * child) is constant for a fixed joint (the hand on link7) while the arm moves
* a revolute joint's relative rotation equals its DOF position about its axis

Shows: gymapi.Transform / Quat / Vec3 operations, get_actor_rigid_body_states, get_rigid_transform,
get_sim_rigid_body_states, get_actor_joint_transforms, DOF position targets, gymutil.AxesGeometry.

    python -m gymlike.run examples/transforms.py
    python -m gymlike.run --headless --max-frames 120 examples/transforms.py --num_envs 2
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
    description="Transforms: body frames and transform maths",
    custom_parameters=[{"name": "--num_envs", "type": int, "default": 4, "help": "number of envs"}])

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None:
    raise SystemExit("*** Failed to create viewer")

options = gymapi.AssetOptions()
options.fix_base_link = True
options.default_dof_drive_mode = gymapi.DOF_MODE_POS
arm = gym.load_asset(sim, ASSET_ROOT, "urdf/arm7/arm7.urdf", options)
body_names = gym.get_asset_rigid_body_names(arm)
num_bodies = len(body_names)
hand = gym.find_asset_rigid_body_index(arm, "hand")
link7 = gym.find_asset_rigid_body_index(arm, "link7")
link2 = gym.find_asset_rigid_body_index(arm, "link2")
link1 = gym.find_asset_rigid_body_index(arm, "link1")
joint2_dof = gym.find_asset_dof_index(arm, "joint2")
dof_props = gym.get_asset_dof_properties(arm)
num_dofs = len(dof_props)

spacing = 1.5
env_lower, env_upper = gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing)
per_row = int(math.ceil(math.sqrt(args.num_envs)))
envs, arms = [], []
for i in range(args.num_envs):
    env = gym.create_env(sim, env_lower, env_upper, per_row)
    # turn each arm about z so the envs differ
    pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, 0.0), gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), 0.4 * i))
    actor = gym.create_actor(env, arm, pose, "arm", i, 1)
    props = gym.get_actor_dof_properties(env, actor)
    props["driveMode"][:] = gymapi.DOF_MODE_POS
    props["stiffness"][:] = 400.0
    props["damping"][:] = 40.0
    gym.set_actor_dof_properties(env, actor, props)
    envs.append(env)
    arms.append(actor)

gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-2.5, -2.5, 2.5), gymapi.Vec3(spacing, spacing, 0.6))

lo = np.where(dof_props["hasLimits"], dof_props["lower"], -math.pi)
hi = np.where(dof_props["hasLimits"], dof_props["upper"], math.pi)
mid, amp = 0.5 * (lo + hi), 0.35 * (hi - lo)
freq = np.linspace(0.3, 0.8, num_dofs)

axes = gymutil.AxesGeometry(0.1)
tip_local = gymapi.Vec3(0.0, 0.0, 0.15)


def as_transform(row):
    return gymapi.Transform(gymapi.Vec3(*row["p"].tolist()), gymapi.Quat(*row["r"].tolist()))


def rel_angle(q):
    return 2.0 * math.atan2(math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z), abs(q.w))


err = dict(rigid_transform=0.0, sim_frame=0.0, transform_point=0.0, transform_points=0.0, fixed_joint=0.0,
           revolute_angle=0.0)
fixed_rel0 = None
rel0_joint2 = None
tip_path = 0.0
last_tip = None

while not gym.query_viewer_has_closed(viewer):
    t = gym.get_sim_time(sim)
    targets = (mid + amp * np.sin(2.0 * math.pi * freq * t)).astype(np.float32)
    for env, actor in zip(envs, arms):
        gym.set_actor_dof_position_targets(env, actor, targets)

    gym.simulate(sim)
    gym.fetch_results(sim, True)

    gym.clear_lines(viewer)
    sim_states = gym.get_sim_rigid_body_states(sim, gymapi.STATE_POS)
    for e, (env, actor) in enumerate(zip(envs, arms)):
        states = gym.get_actor_rigid_body_states(env, actor, gymapi.STATE_POS)
        for b in range(num_bodies):
            body = as_transform(states["pose"][b])
            gymutil.draw_lines(axes, gym, viewer, env, body)
            # the handle API and the state array agree
            h = gym.get_actor_rigid_body_handle(env, actor, b)
            rt = gym.get_rigid_transform(env, h)
            err["rigid_transform"] = max(err["rigid_transform"], (rt.p - body.p).length())
            # sim-level states are env-frame states too
            s = sim_states["pose"][gym.get_actor_rigid_body_index(env, actor, b, gymapi.DOMAIN_SIM)]
            err["sim_frame"] = max(err["sim_frame"], (as_transform(s).p - body.p).length())

        hand_pose = as_transform(states["pose"][hand])
        tip = hand_pose.transform_point(tip_local)
        manual = hand_pose.p + hand_pose.r.rotate(tip_local)
        err["transform_point"] = max(err["transform_point"], (tip - manual).length())
        pts = np.zeros(1, gymapi.Vec3.dtype)
        pts[0] = (tip_local.x, tip_local.y, tip_local.z)
        vec = hand_pose.transform_points(pts)[0]
        err["transform_points"] = max(err["transform_points"], (gymapi.Vec3(*vec.tolist()) - tip).length())
        gymutil.draw_line(hand_pose.p, tip, gymapi.Vec3(1.0, 0.0, 0.0), gym, viewer, env)

        # a fixed joint keeps the hand rigidly attached to link7
        rel = as_transform(states["pose"][link7]).inverse() * hand_pose
        if e == 0:
            if fixed_rel0 is None:
                fixed_rel0 = rel
            err["fixed_joint"] = max(err["fixed_joint"], (rel.p - fixed_rel0.p).length())
            # joint2 (revolute): the link2-in-link1 rotation grows by the DOF position about the axis
            r12 = as_transform(states["pose"][link1]).inverse() * as_transform(states["pose"][link2])
            q_dof = float(gym.get_actor_dof_states(env, actor, gymapi.STATE_POS)["pos"][joint2_dof])
            if rel0_joint2 is None:
                rel0_joint2 = (r12.r, q_dof)
            delta = rel0_joint2[0].inverse() * r12.r
            err["revolute_angle"] = max(err["revolute_angle"], abs(rel_angle(delta) - abs(q_dof - rel0_joint2[1])))
            if last_tip is not None:
                tip_path += (tip - last_tip).length()
            last_tip = tip

    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

print(f"Done after {gym.get_frame_count(sim)} frames; hand tip of env 0 travelled {tip_path:.3f} m")
for name, value in err.items():
    print(f"CHECK {name} max error {value:.2e}")

gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
