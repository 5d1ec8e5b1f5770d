"""Camera sensors: color, depth and segmentation images from fixed and body-mounted cameras.

Each env holds a textured crate and a coloured ball dropped from 1.5 m. Every env carries two
camera sensors:

    create_camera_sensor + set_camera_location      a fixed camera looking at the crate
    attach_camera_to_body (FOLLOW_POSITION)          a camera riding beside the ball, looking down

Every `--every` frames the example renders all cameras (render_all_camera_sensors), reads the
images three ways (get_camera_image, the zero-copy torch tensors of get_camera_image_gpu_tensor,
write_camera_image_to_file) and checks what a camera must see:

    * the ball camera's depth straight down equals the ball's height and shrinks as it falls;
    * segmentation ids are the ones given to create_actor (crate 1, ball 2) and the ground's
      PlaneParams.segmentation_id (3); the fixed camera sees the crate;
    * no camera sees another env's actors (every env's ball has its own colour).

    python examples/camera_sensors.py                             # viewer if a display exists
    python examples/camera_sensors.py --headless --out camera_images --num_frames 60

PNG files go to --out (color, depth as grey, segmentation as 16-bit). It prints RESULT lines and
"ALL OK" when every check held.

Shows: camera sensors (fixed and body-mounted), color/depth/segmentation images, image tensors,
textures from a buffer, body colors, segmentation ids of actors and of the ground.
"""

import os

import numpy as np

try:
    from isaacgym import gymapi, gymtorch, gymutil      # Isaac Gym, or gymlike under `python -m gymlike.run`
except ImportError:
    from gymlike import gymapi, gymtorch, gymutil

args = gymutil.parse_arguments(
    description="Camera sensors: color, depth and segmentation images",
    headless=True,
    custom_parameters=[
        {"name": "--num_envs", "type": int, "default": 4, "help": "number of environments"},
        {"name": "--num_frames", "type": int, "default": 60, "help": "frames to simulate (dt = 1/60 s)"},
        {"name": "--every", "type": int, "default": 15, "help": "render the cameras every N frames"},
        {"name": "--out", "type": str, "default": "camera_images", "help": "folder for the PNG files"},
        {"name": "--size", "type": int, "default": 96, "help": "camera image width and height"},
    ])

CRATE, BALL, GROUND = 1, 2, 3
CAM_SIDE = 0.25                    # the ball camera rides this far beside the ball, at its height

gym = gymapi.acquire_gym()
sim_params = gymapi.SimParams()
sim_params.dt = 1.0 / 60.0
sim_params.substeps = 2
sim_params.up_axis = gymapi.UP_AXIS_Z
sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sim_params.use_gpu_pipeline = False     # images are read on the host below
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sim_params)

plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0, 0, 1)
plane.segmentation_id = GROUND
gym.add_ground(sim, plane)

opts = gymapi.AssetOptions()
opts.fix_base_link = True
crate_asset = gym.create_box(sim, 0.5, 0.5, 0.5, opts)
ball_asset = gym.create_sphere(sim, 0.1, gymapi.AssetOptions())

# a checkerboard texture for the crates, made in memory (RGBA rows)
checker = np.zeros((32, 32, 4), np.uint8)
checker[..., 3] = 255
checker[(np.add.outer(np.arange(32) // 8, np.arange(32) // 8) % 2) == 0, :3] = (230, 150, 40)
checker[(np.add.outer(np.arange(32) // 8, np.arange(32) // 8) % 2) == 1, :3] = (60, 40, 20)
crate_texture = gym.create_texture_from_buffer(sim, 32, 32, checker.reshape(32, 32 * 4))

props = gymapi.CameraProperties()
props.width = props.height = args.size
props.horizontal_fov = 75.0
props.enable_tensors = True
down = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), np.pi / 2)     # camera +X (forward) -> -Z

envs, fixed_cams, ball_cams, ball_colors = [], [], [], []
spacing = 1.5
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-spacing, -spacing, 0), gymapi.Vec3(spacing, spacing, spacing), 2)
    crate = gym.create_actor(env, crate_asset, gymapi.Transform(gymapi.Vec3(0.6, 0.0, 0.25)), "crate", i, 0, CRATE)
    gym.set_rigid_body_texture(env, crate, 0, gymapi.MESH_VISUAL_AND_COLLISION, crate_texture)
    ball = gym.create_actor(env, ball_asset, gymapi.Transform(gymapi.Vec3(-0.4, 0.3, 1.5)), "ball", i, 0, BALL)
    color = np.eye(3)[i % 3] * 0.8 + 0.1
    gym.set_rigid_body_color(env, ball, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(*color))
    cam = gym.create_camera_sensor(env, props)
    gym.set_camera_location(cam, env, gymapi.Vec3(-0.9, -0.9, 1.0), gymapi.Vec3(0.4, 0.1, 0.3))
    bcam = gym.create_camera_sensor(env, props)
    body = gym.get_actor_rigid_body_handle(env, ball, 0)
    # FOLLOW_POSITION: the camera follows the ball's position but not its spin as it rolls
    gym.attach_camera_to_body(bcam, env, body, gymapi.Transform(gymapi.Vec3(CAM_SIDE, 0, 0), down),
                              gymapi.FOLLOW_POSITION)
    envs.append(env)
    fixed_cams.append(cam)
    ball_cams.append(bcam)
    ball_colors.append(color)

viewer = None if args.headless else gym.create_viewer(sim, gymapi.CameraProperties())
gym.prepare_sim(sim)
root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim)).view(args.num_envs, 2, 13)
color_tensors = [gymtorch.wrap_tensor(gym.get_camera_image_gpu_tensor(sim, e, c, gymapi.IMAGE_COLOR))
                 for e, c in zip(envs, fixed_cams)]
os.makedirs(args.out, exist_ok=True)

failures = []
heights, depths = [], []
for frame in range(1, args.num_frames + 1):
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    gym.step_graphics(sim)
    if frame % args.every == 0:
        gym.render_all_camera_sensors(sim)
        gym.refresh_actor_root_state_tensor(sim)
        gym.start_access_image_tensors(sim)
        for i, env in enumerate(envs):
            seg = gym.get_camera_image(sim, env, fixed_cams[i], gymapi.IMAGE_SEGMENTATION)
            rgba = gym.get_camera_image(sim, env, fixed_cams[i], gymapi.IMAGE_COLOR)
            if not np.array_equal(color_tensors[i].cpu().numpy().reshape(rgba.shape), rgba):
                failures.append(f"frame {frame} env {i}: image tensor differs from get_camera_image")
            ids = set(np.unique(seg).tolist())
            if CRATE not in ids or GROUND not in ids or not ids <= {0, CRATE, BALL, GROUND}:
                failures.append(f"frame {frame} env {i}: fixed camera segmentation ids {sorted(ids)}")
            # the ball seen by the fixed camera has this env's colour (no other env's ball shows)
            ball_px = rgba.reshape(seg.shape + (4,))[seg == BALL][:, :3].astype(float)
            if len(ball_px):
                hue = int(np.argmax(ball_px.mean(0)))
                if hue != int(np.argmax(ball_colors[i])):
                    failures.append(f"frame {frame} env {i}: the ball it sees has another env's colour")
            depth = gym.get_camera_image(sim, env, ball_cams[i], gymapi.IMAGE_DEPTH)
            centre = -float(depth[args.size // 2, args.size // 2])
            z = float(root[i, 1, 2])
            if abs(centre - z) > 0.02 * z + 0.005:
                failures.append(f"frame {frame} env {i}: ball camera depth {centre:.3f}, height {z:.3f}")
            if i == 0:
                heights.append(z)
                depths.append(centre)
                for c, tag in ((fixed_cams[i], "fixed"), (ball_cams[i], "ball")):
                    for t, kind in ((gymapi.IMAGE_COLOR, "rgb"), (gymapi.IMAGE_DEPTH, "depth"),
                                    (gymapi.IMAGE_SEGMENTATION, "seg")):
                        gym.write_camera_image_to_file(sim, env, c, t, os.path.join(
                            args.out, f"{kind}_env{i}_{tag}_frame{frame:04d}.png"))
        gym.end_access_image_tensors(sim)
        print(f"RESULT frame {frame} ball height {heights[-1]:.3f} ball-camera depth {depths[-1]:.3f}")
    if viewer is not None:
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
        if gym.query_viewer_has_closed(viewer):
            break

if len(depths) >= 2 and not (all(a >= b - 1e-3 for a, b in zip(depths, depths[1:])) and depths[0] > depths[-1]):
    failures.append(f"the ball camera's depth did not shrink as the ball fell: {depths}")
print(f"RESULT wrote {len(os.listdir(args.out))} PNG files to {args.out}")
for f in failures:
    print("FAIL", f)
print("ALL OK" if not failures else f"{len(failures)} check(s) failed")
if viewer is not None:
    gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
