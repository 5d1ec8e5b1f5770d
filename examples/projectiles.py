"""Projectiles: a grid of ragdoll ants shot at with heavy balls; save and restore the whole sim.

Every env holds one ant whose DOFs are in DOF_MODE_NONE (no drives: a ragdoll). The balls live
in one extra env of their own, in collision group -1, so they collide with every env (as in
Isaac Gym's projectiles example); a few are parked on the ground beside each ant. Every
--fire_every frames (and on SPACE) the next ball beside every ant is launched from a point next
to it, aimed (with a ballistic correction) at the ant's torso. Rigid body states of the whole
sim can be saved (S) and restored (R) at any time with get_sim_rigid_body_states /
set_sim_rigid_body_states; ESC quits.

Shows: DOF properties (DOF_MODE_NONE), collision group -1 actors of their own env hitting every
env, env frames (get_env_origin), set_actor_rigid_body_states to launch actors, whole-sim state
save/restore, keyboard events.

    python -m gymlike.run examples/projectiles.py --num_envs 16
    python -m gymlike.run --headless --max-frames 200 --keys 90:S,150:R examples/projectiles.py

At the end it prints how far each ant's torso was knocked from where it stood before the first shot.
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
    description="Projectiles: shoot balls at ragdoll ants; S saves, R restores the sim state",
    custom_parameters=[
        {"name": "--num_envs", "type": int, "default": 16, "help": "number of envs (one ant each)"},
        {"name": "--num_projectiles", "type": int, "default": 4, "help": "balls per env"},
        {"name": "--fire_every", "type": int, "default": 60, "help": "auto-fire period in frames (0: SPACE only)"},
        {"name": "--speed", "type": float, "default": 9.0, "help": "launch speed [m/s]"},
    ])

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 4
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False
sim_params.physx.num_position_iterations = 4
sim_params.physx.num_velocity_iterations = 1
sim_params.flex.num_outer_iterations = 6
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
plane.static_friction = plane.dynamic_friction = 1.0
gym.add_ground(sim, plane)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None:
    raise SystemExit("*** Failed to create viewer")
gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_SPACE, "fire")
gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_S, "save")
gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_R, "restore")
gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_ESCAPE, "quit")

ant_options = gymapi.AssetOptions()
ant_options.angular_damping = 0.0
ant_asset = gym.load_asset(sim, ASSET_ROOT, "mjcf/nv_ant.xml", ant_options)
ball_radius = 0.08
ball_options = gymapi.AssetOptions()
ball_options.density = 3000.0                        # ~6.4 kg: heavy enough to knock an ant over
ball_asset = gym.create_sphere(sim, ball_radius, ball_options)

spacing = 3.0
env_lower, env_upper = gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing)
per_row = int(math.ceil(math.sqrt(args.num_envs)))
envs, ants, balls = [], [], []
for i in range(args.num_envs):
    env = gym.create_env(sim, env_lower, env_upper, per_row)
    ant = gym.create_actor(env, ant_asset, gymapi.Transform(gymapi.Vec3(0.0, 0.0, 0.75)), "ant", i, 0)
    props = gym.get_actor_dof_properties(env, ant)
    props["driveMode"][:] = gymapi.DOF_MODE_NONE     # ragdoll: joints move freely within their limits
    props["stiffness"][:] = 0.0
    props["damping"][:] = 0.0
    gym.set_actor_dof_properties(env, ant, props)
    envs.append(env)
    ants.append(ant)
# the projectiles' own env; its balls are in collision group -1 and so collide with every env.
# Positions are given in this env's frame: (global point) - (its origin).
proj_env = gym.create_env(sim, env_lower, env_upper, per_row)
proj_origin = gym.get_env_origin(proj_env)
for e, env in enumerate(envs):
    origin = gym.get_env_origin(env)
    env_balls = []
    for k in range(args.num_projectiles):               # parked in a row behind each ant's gun
        y = (k - 0.5 * (args.num_projectiles - 1)) * 3.0 * ball_radius
        pose = gymapi.Transform(origin + gymapi.Vec3(-2.6, y, ball_radius) - proj_origin)
        env_balls.append(gym.create_actor(proj_env, ball_asset, pose, f"ball{e}_{k}", -1, 0))
    balls.append(env_balls)

gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-4.0, -4.0, 5.0),
                          gymapi.Vec3(spacing * (per_row - 1), spacing * (per_row - 1), 0.0))

gun = gymapi.Vec3(-2.2, 0.0, 1.2)                      # launch point, env frame
next_ball = 0
shots = 0
saved = None
baseline = None
knocked = np.zeros(args.num_envs)


def torso_positions():
    out = np.zeros((len(envs), 3))
    for e, (env, ant) in enumerate(zip(envs, ants)):
        p = gym.get_actor_rigid_body_states(env, ant, gymapi.STATE_POS)["pose"]["p"][0]   # body 0: torso
        out[e] = (p["x"], p["y"], p["z"])
    return out


def fire():
    """Launch the next ball of every env at that env's ant torso."""
    global next_ball, shots, baseline
    torsos = torso_positions()
    if baseline is None:
        baseline = torsos.copy()
    for e, env in enumerate(envs):
        target = gymapi.Vec3(*torsos[e])
        offset = target - gun
        t_flight = offset.length() / args.speed
        aim = offset + gymapi.Vec3(0.0, 0.0, 0.5 * 9.81 * t_flight * t_flight)   # compensate the drop
        vel = aim.normalize() * args.speed
        start = gym.get_env_origin(env) + gun - proj_origin          # the gun, in the ball's env frame
        state = gym.get_actor_rigid_body_states(proj_env, balls[e][next_ball], gymapi.STATE_NONE)
        state["pose"]["p"][:] = (start.x, start.y, start.z)
        state["pose"]["r"][:] = (0.0, 0.0, 0.0, 1.0)
        state["vel"]["linear"][:] = (vel.x, vel.y, vel.z)
        state["vel"]["angular"][:] = (0.0, 0.0, 0.0)
        gym.set_actor_rigid_body_states(proj_env, balls[e][next_ball], state, gymapi.STATE_ALL)
    shots += 1
    print(f"Frame {gym.get_frame_count(sim)}: fired ball {next_ball} in every env")
    next_ball = (next_ball + 1) % args.num_projectiles


running = True
while running and not gym.query_viewer_has_closed(viewer):
    for evt in gym.query_viewer_action_events(viewer):
        if evt.value <= 0:
            continue
        if evt.action == "quit":
            running = False
        elif evt.action == "fire":
            fire()
        elif evt.action == "save":
            saved = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL)
            saved_frame = gym.get_frame_count(sim)
            print(f"Frame {saved_frame}: saved the state of {len(saved)} rigid bodies")
        elif evt.action == "restore" and saved is not None:
            gym.set_sim_rigid_body_states(sim, saved, gymapi.STATE_ALL)
            now = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL)
            err = max(np.abs(now["pose"]["p"][c] - saved["pose"]["p"][c]).max() for c in "xyz")
            print(f"Frame {gym.get_frame_count(sim)}: restored the state saved at frame {saved_frame}")
            print(f"RESTORE max position error {err:.2e} m over {len(now)} bodies")

    frame = gym.get_frame_count(sim)
    if args.fire_every > 0 and frame > 0 and frame % args.fire_every == 0:
        fire()

    gym.simulate(sim)
    gym.fetch_results(sim, True)
    if baseline is not None:
        knocked = np.maximum(knocked, np.linalg.norm((torso_positions() - baseline)[:, :2], axis=1))

    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

print(f"Done after {gym.get_frame_count(sim)} frames and {shots} volley(s)")
for e in range(args.num_envs):
    print(f"ANT {e} knocked {knocked[e]:.3f} m")
print(f"HIT {int((knocked > 0.05).sum())} of {args.num_envs} ants moved more than 5 cm")

gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
