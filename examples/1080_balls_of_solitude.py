"""1080 balls of solitude: pyramids of balls collapsing, one pyramid per env, with collision
groups and filters deciding which balls touch.

Each env stacks balls in a square pyramid (--levels levels: 1 + 4 + 9 + ... balls) and lets it
fall apart on the ground. The default 36 envs x 30 balls is 1080 balls. Every env is its own
collision group (envs never interact); inside an env the filter decides:

  --filter_mode all        filter 0 for every ball: all balls collide (the pyramid topples)
  --filter_mode none       filter 1 for every ball: balls pass through each other and only
                           meet the ground (the pyramid melts into one layer)
  --filter_mode alternate  levels alternate between filter 1 and 2: a ball collides with the
                           levels directly above and below it, not with its own level's parity

Shows: create_sphere assets, many actors per env, create_actor's group and filter arguments,
get_env_rigid_body_states, the viewer loop.

    python -m gymlike.run examples/1080_balls_of_solitude.py
    python -m gymlike.run --headless --max-frames 240 examples/1080_balls_of_solitude.py --num_envs 4 --levels 3

At the end it prints, per env, the highest ball and whether every ball stayed inside its env.
"""

import math

import numpy as np

np.random.seed(7)

try:
    from isaacgym import gymapi, gymutil          # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymutil

args = gymutil.parse_arguments(
    description="Collision groups and filters: pyramids of balls",
    custom_parameters=[
        {"name": "--num_envs", "type": int, "default": 36, "help": "number of envs (one pyramid each)"},
        {"name": "--levels", "type": int, "default": 4, "help": "pyramid levels (4: 30 balls per env)"},
        {"name": "--filter_mode", "type": str, "default": "all", "help": "all, none or alternate (see above)"},
    ])
if args.filter_mode not in ("all", "none", "alternate"):
    raise SystemExit(f"*** --filter_mode must be all, none or alternate, got {args.filter_mode!r}")

gym = gymapi.acquire_gym()

sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False
sim_params.flex.num_outer_iterations = 6
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)
if sim is None:
    raise SystemExit("*** Failed to create sim")

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0.0, 0.0, 1.0)
gym.add_ground(sim, plane)

viewer = gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None:
    raise SystemExit("*** Failed to create viewer")

radius = 0.1
ball_options = gymapi.AssetOptions()
ball_options.density = 200.0
ball_options.angular_damping = 0.5                 # rolling balls slow down and stay in their env
ball = gym.create_sphere(sim, radius, ball_options)

# square pyramid: level k (from the top) is a (k+1) x (k+1) grid; touching neighbours sit 2r apart
# horizontally and the levels sqrt(2) r apart vertically; a small gap lets the stack settle
gap = 0.002
slots = []
for level in range(args.levels):
    n = args.levels - level                        # bottom level first
    z = radius + level * math.sqrt(2.0) * (radius + gap) + 0.01
    for i in range(n):
        for j in range(n):
            x = (i - 0.5 * (n - 1)) * 2.0 * (radius + gap)
            y = (j - 0.5 * (n - 1)) * 2.0 * (radius + gap)
            slots.append((level, x, y, z))
print(f"{args.num_envs} envs x {len(slots)} balls = {args.num_envs * len(slots)} balls, "
      f"filter mode '{args.filter_mode}'")


def ball_filter(level):
    if args.filter_mode == "all":
        return 0
    if args.filter_mode == "none":
        return 1
    return 1 << (level % 2)


half = 2.0
env_lower, env_upper = gymapi.Vec3(-half, -half, 0.0), gymapi.Vec3(half, half, half)
per_row = int(math.ceil(math.sqrt(args.num_envs)))
envs = []
for e in range(args.num_envs):
    env = gym.create_env(sim, env_lower, env_upper, per_row)
    for k, (level, x, y, z) in enumerate(slots):
        # a little jitter so the pyramids fall, each differently (a perfectly symmetric pyramid
        # can stand on its friction)
        jitter = np.random.uniform(-0.01, 0.01, 2)
        pose = gymapi.Transform(gymapi.Vec3(x + jitter[0], y + jitter[1], z))
        gym.create_actor(env, ball, pose, f"ball{k}", e, ball_filter(level))   # group = env index
    envs.append(env)

top = max(s[3] for s in slots)
gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-2.0, -2.0, 3.0),
                          gymapi.Vec3(2 * half * (per_row - 1) / 2, 2 * half * (per_row - 1) / 2, 0.0))

while not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
    gym.sync_frame_time(sim)

print(f"Done after {gym.get_frame_count(sim)} frames ({gym.get_sim_time(sim):.2f} s); pyramid top was at {top:.3f} m")
for e, env in enumerate(envs):
    p = gym.get_env_rigid_body_states(env, gymapi.STATE_POS)["pose"]["p"]      # env frame
    inside = bool(((np.abs(p["x"]) < half) & (np.abs(p["y"]) < half)).all())
    print(f"ENV {e} max_z {p['z'].max():.3f} min_z {p['z'].min():.3f} mean_z {p['z'].mean():.3f} inside {inside}")

gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
