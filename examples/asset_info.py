"""Asset info: print what gymlike sees in an asset file: bodies, shapes, joints, DOFs and their
properties, then the rigid body properties of an actor made from it.

Without --asset it prints every robot in the repository's assets/ folder; --asset takes a path
relative to assets/ (or an absolute path) to a URDF, MJCF (.xml) or USD file.

Shows: load_asset, the get_asset_* queries (names, dicts, types, shape indices),
get_asset_dof_properties, get_asset_rigid_shape_properties, get_actor_rigid_body_properties,
get_joint_type_string / get_dof_type_string.

    python -m gymlike.run examples/asset_info.py
    python -m gymlike.run examples/asset_info.py --asset urdf/arm7/arm7.urdf --fix_base
"""

import os

import numpy as np

try:
    from isaacgym import gymapi, gymutil          # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymutil

ASSET_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets"))
DEFAULT_ASSETS = ["urdf/cartpole.urdf", "urdf/arm7/arm7.urdf", "urdf/quadruped/quadruped.urdf",
                  "mjcf/nv_ant.xml", "mjcf/humanoid.xml", "usd/pendulum2.usda"]
DRIVE_MODES = {int(gymapi.DOF_MODE_NONE): "NONE", int(gymapi.DOF_MODE_POS): "POS",
               int(gymapi.DOF_MODE_VEL): "VEL", int(gymapi.DOF_MODE_EFFORT): "EFFORT"}

args = gymutil.parse_arguments(
    description="Asset info: print bodies, joints, DOFs and properties",
    custom_parameters=[
        {"name": "--asset", "type": str, "default": "", "help": "asset path (relative to assets/ or absolute)"},
        {"name": "--fix_base", "action": "store_true", "help": "load with fix_base_link"},
    ])

gym = gymapi.acquire_gym()
sim_params = gymapi.SimParams()
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim = gym.create_sim(args.compute_device_id, -1, args.physics_engine, sim_params)   # no graphics needed
if sim is None:
    raise SystemExit("*** Failed to create sim")

assets = [args.asset] if args.asset else DEFAULT_ASSETS


def fmt(v):
    return "inf" if np.isinf(v) and v > 0 else "-inf" if np.isinf(v) else f"{v:.4g}"


def print_asset_info(path):
    root, name = (os.path.dirname(path), os.path.basename(path)) if os.path.isabs(path) else (ASSET_ROOT, path)
    options = gymapi.AssetOptions()
    options.fix_base_link = args.fix_base
    asset = gym.load_asset(sim, root, name, options)

    num_bodies = gym.get_asset_rigid_body_count(asset)
    num_shapes = gym.get_asset_rigid_shape_count(asset)
    num_joints = gym.get_asset_joint_count(asset)
    num_dofs = gym.get_asset_dof_count(asset)
    print(f"\n=== {name}")
    print(f"COUNTS bodies {num_bodies} shapes {num_shapes} joints {num_joints} dofs {num_dofs}")

    print("Bodies:")
    shape_ranges = gym.get_asset_rigid_body_shape_indices(asset)
    for i, body in enumerate(gym.get_asset_rigid_body_names(asset)):
        r = shape_ranges[i]
        print(f"  {i:2d} {body:<20s} shapes [{r.start}, {r.start + r.count})")
    assert gym.get_asset_rigid_body_dict(asset) == {n: i for i, n in enumerate(gym.get_asset_rigid_body_names(asset))}

    print("Joints:")
    for i, joint in enumerate(gym.get_asset_joint_names(asset)):
        kind = gym.get_joint_type_string(gym.get_asset_joint_type(asset, i))
        print(f"  {i:2d} {joint:<20s} {kind}")

    print("DOFs:")
    props = gym.get_asset_dof_properties(asset)
    for i, dof in enumerate(gym.get_asset_dof_names(asset)):
        kind = gym.get_dof_type_string(gym.get_asset_dof_type(asset, i))
        p = props[i]
        limits = f"[{fmt(p['lower'])}, {fmt(p['upper'])}]" if p["hasLimits"] else "unlimited"
        print(f"  {i:2d} {dof:<20s} {kind:<11s} limits {limits:<20s} "
              f"drive {DRIVE_MODES.get(int(p['driveMode']), '?'):<6s} "
              f"stiffness {fmt(p['stiffness'])} damping {fmt(p['damping'])} velocity {fmt(p['velocity'])} "
              f"effort {fmt(p['effort'])} friction {fmt(p['friction'])} armature {fmt(p['armature'])}")

    print("Shapes:")
    for i, sp in enumerate(gym.get_asset_rigid_shape_properties(asset)):
        print(f"  {i:2d} friction {fmt(sp.friction)} rolling {fmt(sp.rolling_friction)} "
              f"torsion {fmt(sp.torsion_friction)} "
              f"restitution {fmt(sp.restitution)} thickness {fmt(sp.thickness)} filter {sp.filter}")

    # body masses and inertias are actor properties in Isaac Gym: make one actor to read them
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    actor = gym.create_actor(env, asset, gymapi.Transform(), name, 0, 0)
    print("Rigid body properties:")
    total = 0.0
    for i, bp in enumerate(gym.get_actor_rigid_body_properties(env, actor)):
        total += bp.mass
        c, I = bp.com, bp.inertia
        print(f"  {i:2d} mass {bp.mass:.4g} com ({c.x:.3g}, {c.y:.3g}, {c.z:.3g}) "
              f"inertia diag ({I.x.x:.3g}, {I.y.y:.3g}, {I.z.z:.3g})")
    print(f"MASS total {total:.4f} kg")


for path in assets:
    print_asset_info(path)

gym.destroy_sim(sim)
