"""Rigid body and shape properties, body forces and actor scale, side by side in every env.

    default       a 0.2 m box dropped on the ground: rests at z = 0.1
    scaled        the same box with set_actor_scale(2): 8 times the mass, rests at z = 0.2
    floating      RIGID_BODY_DISABLE_GRAVITY: stays where it was created
    pushed        weightless, pushed along +x by a constant force (apply_body_forces)
    pushed_heavy  the same with twice the mass (set_actor_rigid_body_properties): half the distance
    slippery      friction 0.05 on the ground, pushed by 0.3 m g (apply_body_force_at_pos): slides
    grippy        friction 1.0, pushed by the same force: stays
    ball          restitution 0.9 dropped from 1 m: bounces (SIM_FLEX; MuJoCo has no restitution)

Shows: get/set_actor_rigid_body_properties (mass, inertia, flags), get/set_actor_rigid_shape_properties
(friction, restitution), set_actor_scale / get_actor_scale, apply_body_forces,
apply_body_force_at_pos, set_rigid_body_color, get_actor_rigid_body_states.

    python examples/body_physics_props.py                   # viewer if a display exists
    python examples/body_physics_props.py --headless --num_frames 120
    python examples/body_physics_props.py --flex

At the end it prints one CHECK line per actor: what Isaac Gym physics predicts, what the sim did.
"""

import numpy as np

try:
    from isaacgym import gymapi, gymutil          # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymutil

args = gymutil.parse_arguments(
    description="Rigid body and shape properties, forces and scale",
    headless=True,
    custom_parameters=[
        {"name": "--num_frames", "type": int, "default": 120, "help": "frames to simulate (dt = 1/60 s)"},
        {"name": "--num_envs", "type": int, "default": 2, "help": "number of envs"},
    ])

gym = gymapi.acquire_gym()
sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")
FLEX = args.physics_engine == gymapi.SIM_FLEX
G = 9.81

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
plane.static_friction = plane.dynamic_friction = 0.05    # MuJoCo takes the larger of the two frictions
gym.add_ground(sim, plane)

options = gymapi.AssetOptions()
options.angular_damping = 0.0
options.density = 1000.0
box_asset = gym.create_box(sim, 0.2, 0.2, 0.2, options)    # 8 kg
ball_asset = gym.create_sphere(sim, 0.1, options)

PUSH = 8.0                                                 # N on the weightless 8 kg box: 1 m/s^2
LAYOUT = [  # name, asset, x, y, z
    ("default", box_asset, -1.5, 0.0, 0.5),
    ("scaled", box_asset, -0.75, 0.0, 0.5),
    ("floating", box_asset, 0.0, 0.0, 1.0),
    ("pushed", box_asset, 0.75, -0.5, 1.5),
    ("pushed_heavy", box_asset, 0.75, 0.5, 1.5),
    ("slippery", box_asset, 1.5, -0.5, 0.1),
    ("grippy", box_asset, 1.5, 0.5, 0.1),
    ("ball", ball_asset, -1.5, 1.0, 1.1),
]
COLORS = {"scaled": (0.2, 0.4, 0.9), "floating": (0.9, 0.9, 0.2), "pushed_heavy": (0.8, 0.2, 0.2),
          "slippery": (0.3, 0.8, 0.9), "grippy": (0.5, 0.3, 0.1), "ball": (0.9, 0.4, 0.7)}

envs, handles = [], []
spacing = 2.5
per_row = max(1, int(np.sqrt(args.num_envs)))
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing), per_row)
    h = {}
    for name, asset, x, y, z in LAYOUT:
        h[name] = gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(x, y, z)), name, i, 0)
        if name in COLORS:
            gym.set_rigid_body_color(env, h[name], 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(*COLORS[name]))
    gym.set_actor_scale(env, h["scaled"], 2.0)
    for name in ("floating", "pushed", "pushed_heavy"):
        props = gym.get_actor_rigid_body_properties(env, h[name])
        props[0].flags = gymapi.RIGID_BODY_DISABLE_GRAVITY
        if name == "pushed_heavy":
            props[0].mass *= 2.0
        gym.set_actor_rigid_body_properties(env, h[name], props, recomputeInertia=True)
    for name, mu, e in (("slippery", 0.05, 0.0), ("grippy", 1.0, 0.0), ("ball", 1.0, 0.9)):
        shape_props = gym.get_actor_rigid_shape_properties(env, h[name])
        shape_props[0].friction = mu
        shape_props[0].restitution = e
        gym.set_actor_rigid_shape_properties(env, h[name], shape_props)
    envs.append(env)
    handles.append(h)

h0 = handles[0]
mass = {n: gym.get_actor_rigid_body_properties(envs[0], h0[n])[0].mass for n in ("default", "scaled", "pushed_heavy")}
print(f"masses: default {mass['default']:.3f} kg, scaled (x{gym.get_actor_scale(envs[0], h0['scaled']):g}) "
      f"{mass['scaled']:.3f} kg, pushed_heavy {mass['pushed_heavy']:.3f} kg")

viewer = None
if not args.headless:
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    if viewer is not None:
        gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-4.0, -5.0, 3.0), gymapi.Vec3(0.0, 0.0, 0.5))

gym.prepare_sim(sim)


def pos(env, handle):
    return np.array(gym.get_actor_rigid_body_states(env, handle, gymapi.STATE_POS)[0]["pose"]["p"].tolist())


start = {n: pos(envs[0], h0[n]) for n, *_ in LAYOUT}
ball_z = []
slide_force = 0.3 * mass["default"] * G
frame = 0
while frame < args.num_frames:
    if viewer is not None and gym.query_viewer_has_closed(viewer):
        break
    for env, h in zip(envs, handles):   # forces last one simulate call: apply them every frame
        gym.apply_body_forces(env, gym.get_actor_rigid_body_handle(env, h["pushed"], 0), gymapi.Vec3(PUSH, 0, 0),
                              None, gymapi.ENV_SPACE)
        gym.apply_body_forces(env, gym.get_actor_rigid_body_handle(env, h["pushed_heavy"], 0),
                              gymapi.Vec3(PUSH, 0, 0), None, gymapi.ENV_SPACE)
        for name in ("slippery", "grippy"):
            gym.apply_body_force_at_pos(env, gym.get_actor_rigid_body_handle(env, h[name], 0),
                                        gymapi.Vec3(slide_force, 0, 0), None, gymapi.ENV_SPACE)
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    ball_z.append(pos(envs[0], h0["ball"])[2] - 0.1)
    if viewer is not None:
        gym.step_graphics(sim)
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
    frame += 1

t = gym.get_sim_time(sim)
end = {n: pos(envs[0], h0[n]) for n, *_ in LAYOUT}
moved = {n: end[n] - start[n] for n in end}
print(f"simulated {frame} frames ({t:.2f} s) on {'SIM_FLEX' if FLEX else 'SIM_PHYSX'}")
results = []


def check(name, what, expected, got, tol):
    ok = abs(got - expected) <= tol
    print(f"CHECK {name:13s} {what:28s} expected {expected:8.4f} got {got:8.4f} {'OK' if ok else 'MISS'}")
    results.append(ok)


check("default", "resting height [m]", 0.1, end["default"][2], 0.005)
check("scaled", "resting height [m]", 0.2, end["scaled"][2], 0.005)
check("scaled", "mass / default mass", 8.0, mass["scaled"] / mass["default"], 1e-3)
check("floating", "height change [m]", 0.0, moved["floating"][2], 0.002)
x_push = 0.5 * PUSH / mass["default"] * t * t
check("pushed", "distance [m] (F t^2 / 2m)", x_push, moved["pushed"][0], 0.02 * x_push)
check("pushed_heavy", "distance / pushed distance", 0.5, moved["pushed_heavy"][0] / moved["pushed"][0], 0.01)
a_slip = (0.3 - 0.05) * G
check("slippery", "distance [m] (mu 0.05)", 0.5 * a_slip * t * t, moved["slippery"][0], 0.15 * 0.5 * a_slip * t * t)
# (XPBD's positional friction lets a pushed box creep a few cm per second; MuJoCo holds it)
check("grippy", "distance [m] (mu 1.0)", 0.0, moved["grippy"][0], 0.05 if FLEX else 0.01)
ball_z = np.array(ball_z)
landed = np.nonzero(ball_z < 0.01)[0]               # frames with the ball on the ground
if len(landed) and landed[0] < len(ball_z) - 20:
    rebound = float(ball_z[landed[0]:].max())
    if FLEX:   # e = mean(0.9, ground 0) = 0.45 -> rebound 0.45^2 * 1 m
        check("ball", "rebound height [m]", 0.45 ** 2, rebound, 0.1)
    else:
        print(f"NOTE  ball          rebound height {rebound:.4f} m: MuJoCo (SIM_PHYSX) has no restitution")
else:
    print("NOTE  ball          has not bounced yet (run more frames)")
print("ALL OK" if all(results) else "SOME MISSED")

if viewer is not None:
    gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
