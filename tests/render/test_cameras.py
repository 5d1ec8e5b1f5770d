"""Camera sensors: what a camera sees (color, depth, segmentation) checked against the geometry
and the camera's own view/projection matrices; env isolation; cameras carried by bodies; image
tensors; textures, colors and light; error paths. Sims with a graphics device, as Isaac Gym
renders only there (without one they have no visual meshes: tests/assets/test_visuals.py)."""

import os

import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch

from conftest import make_sim, options, pose

W, H = 64, 48
BOX_SEG, GROUND_SEG = 5, 7


def _props(**kw):
    p = gymapi.CameraProperties()
    p.width, p.height, p.horizontal_fov = W, H, 70.0
    p.enable_tensors = True
    for k, v in kw.items():
        setattr(p, k, v)
    return p


def _scene(gym, engine="physx", fixed=True, envs=2, spacing=2.0):
    sim = make_sim(gym, engine, ground=False, dt=1.0 / 60.0, graphics=0)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(0, 0, 1)
    pp.segmentation_id = GROUND_SEG
    gym.add_ground(sim, pp)
    box = gym.create_box(sim, 0.4, 0.4, 0.4, options(fix_base_link=fixed))
    out = []
    for i in range(envs):
        env = gym.create_env(sim, gymapi.Vec3(-spacing, -spacing, 0), gymapi.Vec3(spacing, spacing, spacing), 2)
        out.append(env)
    return sim, box, out


def _project(V, P, p):
    """Pixel (row, col) and view depth of sim-frame point p through Isaac Gym-style matrices."""
    v = np.append(np.asarray(p, np.float64), 1.0) @ V
    c = v @ P
    ndc = c[:2] / c[3]
    return (1.0 - ndc[1]) * 0.5 * H - 0.5, (ndc[0] + 1.0) * 0.5 * W - 0.5, v[2]


def test_box_seen_where_the_matrices_project_it(gym):
    sim, box, envs = _scene(gym, envs=1)
    env = envs[0]
    a = gym.create_actor(env, box, pose(1.5, 0.3, 0.2), "box", 0, 0, BOX_SEG)
    gym.set_rigid_body_color(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(1, 0, 0))
    cam = gym.create_camera_sensor(env, _props())
    gym.set_camera_location(cam, env, gymapi.Vec3(-0.5, -0.4, 1.3), gymapi.Vec3(1.5, 0.3, 0.4))
    gym.render_all_camera_sensors(sim)
    color = gym.get_camera_image(sim, env, cam, gymapi.IMAGE_COLOR)
    depth = gym.get_camera_image(sim, env, cam, gymapi.IMAGE_DEPTH)
    seg = gym.get_camera_image(sim, env, cam, gymapi.IMAGE_SEGMENTATION)
    assert color.shape == (H, W * 4) and color.dtype == np.uint8
    assert depth.shape == (H, W) and depth.dtype == np.float32
    assert seg.shape == (H, W) and seg.dtype == np.int32
    rgba = color.reshape(H, W, 4)
    V = gym.get_camera_view_matrix(sim, env, cam)
    P = gym.get_camera_proj_matrix(sim, env, cam)
    assert V.shape == P.shape == (4, 4) and V.dtype == P.dtype == np.float32
    assert P[0, 0] == pytest.approx(1.0 / np.tan(np.radians(35.0)))
    assert P[1, 1] == pytest.approx(P[0, 0] * W / H)
    origin = np.array(gym.get_env_origin(env).to_tuple())
    top = origin + [1.5, 0.3, 0.4]                      # centre of the box's top face (sim frame)
    r, c, vz = _project(V, P, top)
    assert 0 <= r < H and 0 <= c < W
    r, c = int(round(r)), int(round(c))
    assert seg[r, c] == BOX_SEG
    px = rgba[r, c].astype(int)
    assert px[0] > 2 * max(px[1], px[2]) and px[3] == 255, px        # red
    assert depth[r, c] == pytest.approx(vz, rel=0.03)                  # minus the distance along the view axis
    assert vz < 0
    # the box's image region is where segmentation says, and the ground is everywhere else below
    # the horizon; rows above the horizon hit nothing (sky: depth -inf, segmentation 0)
    box_px = seg == BOX_SEG
    assert 10 < box_px.sum() < W * H / 2
    assert set(np.unique(seg)) <= {0, BOX_SEG, GROUND_SEG}
    assert (seg == GROUND_SEG).sum() > W * H / 4
    assert np.isneginf(depth[seg == 0]).all() and np.isfinite(depth[seg != 0]).all()
    assert (rgba[seg == 0] == [0, 0, 0, 255]).all()      # nothing hit: opaque black
    # the camera pose reads back in the env frame, +X towards the target
    t = gym.get_camera_transform(sim, env, cam)
    assert t.p.to_tuple() == pytest.approx((-0.5, -0.4, 1.3), abs=1e-5)
    fwd = t.r.rotate(gymapi.Vec3(1, 0, 0)).to_tuple()
    d = np.array([2.0, 0.7, -0.9])
    assert fwd == pytest.approx(tuple(d / np.linalg.norm(d)), abs=1e-5)
    # a ground pixel's depth matches the ray's intersection with z = 0
    gr, gc = np.argwhere(seg == GROUND_SEG)[0]
    inv = np.linalg.inv(V.astype(np.float64))
    ndc = np.array([(gc + 0.5) / W * 2 - 1, 1 - (gr + 0.5) / H * 2])
    ray_view = np.array([ndc[0] / P[0, 0], ndc[1] / P[1, 1], -1.0])   # view-space direction, unit depth
    eye = inv[3, :3]
    dirw = ray_view @ inv[:3, :3]
    s = -eye[2] / dirw[2]
    assert depth[gr, gc] == pytest.approx(-s, rel=0.02)


def test_each_env_sees_only_its_own_actors(gym):
    sim, box, envs = _scene(gym)
    o0 = np.array(gym.get_env_origin(envs[0]).to_tuple())
    o1 = np.array(gym.get_env_origin(envs[1]).to_tuple())
    shift = o1 - o0
    assert np.linalg.norm(shift) > 1.0
    # env 1's box sits (in the sim frame) right in front of env 0's camera, env 0's own box off to the side
    gym.create_actor(envs[0], box, pose(1.0, 1.2, 0.2), "box", 0, 0, 3)
    gym.create_actor(envs[1], box, pose(*(np.array([1.0, 0.0, 0.2]) - shift)), "box", 1, 0, 9)
    cams = []
    for env in envs:
        c = gym.create_camera_sensor(env, _props())
        gym.set_camera_location(c, env, gymapi.Vec3(-1.0, 0.0, 0.2), gymapi.Vec3(1.0, 0.0, 0.2))
        cams.append(c)
    gym.render_all_camera_sensors(sim)
    seg0 = gym.get_camera_image(sim, envs[0], cams[0], gymapi.IMAGE_SEGMENTATION)
    seg1 = gym.get_camera_image(sim, envs[1], cams[1], gymapi.IMAGE_SEGMENTATION)
    assert (seg0 == 3).any()                # its own box
    assert not (seg0 == 9).any()            # never env 1's, though it stands in front of the camera
    assert not (seg1 == 3).any()
    assert (seg0 == GROUND_SEG).any() and (seg1 == GROUND_SEG).any()   # the shared ground


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_camera_attached_to_a_falling_body_moves_with_it(gym, engine):
    sim, box, envs = _scene(gym, engine, fixed=False, envs=1)
    env = envs[0]
    gym.create_actor(env, box, pose(0.0, 0.0, 2.0), "box", 0, 0)
    cam = gym.create_camera_sensor(env, _props())
    down = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), np.pi / 2)      # camera +X -> -Z
    gym.attach_camera_to_body(cam, env, 0, gymapi.Transform(gymapi.Vec3(0, 0, -0.3), down),
                              gymapi.FOLLOW_TRANSFORM)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    seen = []
    for step in range(3):
        for _ in range(8):
            gym.simulate(sim)
        gym.refresh_actor_root_state_tensor(sim)
        gym.render_all_camera_sensors(sim)
        z = float(root[0, 2])
        t = gym.get_camera_transform(sim, env, cam)
        assert t.p.z == pytest.approx(z - 0.3, abs=1e-4)
        depth = gym.get_camera_image(sim, env, cam, gymapi.IMAGE_DEPTH)
        assert -depth[H // 2, W // 2] == pytest.approx(z - 0.3, rel=0.02)   # straight down to the ground
        seen.append(z)
    assert seen[0] > seen[1] > seen[2]                                       # it fell, the camera with it


def test_follow_position_keeps_orientation_follow_transform_turns(gym):
    sim, box, envs = _scene(gym, "flex", envs=1)
    env = envs[0]
    gym.create_actor(env, box, pose(0.5, 0.0, 0.2), "box", 0, 0)
    local = gymapi.Transform(gymapi.Vec3(0.2, 0.0, 0.5), gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), 0.3))
    c_pos = gym.create_camera_sensor(env, _props())
    c_tf = gym.create_camera_sensor(env, _props())
    assert (c_pos, c_tf) == (0, 1)
    gym.attach_camera_to_body(c_pos, env, 0, local, gymapi.FOLLOW_POSITION)
    gym.attach_camera_to_body(c_tf, env, 0, local, gymapi.FOLLOW_TRANSFORM)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    turn = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), np.pi / 2)
    new = root.clone()
    new[0, 3:7] = torch.tensor([turn.x, turn.y, turn.z, turn.w])
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(new))
    tp = gym.get_camera_transform(sim, env, c_pos)
    tt = gym.get_camera_transform(sim, env, c_tf)
    assert tp.p.to_tuple() == pytest.approx((0.7, 0.0, 0.7), abs=1e-4)
    assert tp.r.to_tuple() == pytest.approx(local.r.to_tuple(), abs=1e-5) or \
        tp.r.to_tuple() == pytest.approx(tuple(-x for x in local.r.to_tuple()), abs=1e-5)
    assert tt.p.to_tuple() == pytest.approx((0.5, 0.2, 0.7), abs=1e-4)        # offset turned with the body
    expect = (turn * local.r).to_tuple()
    assert tt.r.to_tuple() == pytest.approx(expect, abs=1e-5) or \
        tt.r.to_tuple() == pytest.approx(tuple(-x for x in expect), abs=1e-5)
    # set_camera_location detaches: the camera then stays where it was put
    gym.set_camera_location(c_tf, env, gymapi.Vec3(3, 0, 1), gymapi.Vec3(0, 0, 0))
    assert gym.get_camera_transform(sim, env, c_tf).p.to_tuple() == pytest.approx((3, 0, 1), abs=1e-6)


def test_image_tensors_share_memory_and_equal_host_images(gym):
    sim, box, envs = _scene(gym, envs=2)
    tensors = []
    for i, env in enumerate(envs):
        gym.create_actor(env, box, pose(1.2, 0.0, 0.2), "box", i, 0, 4)
        c = gym.create_camera_sensor(env, _props())
        gym.set_camera_location(c, env, gymapi.Vec3(0, 0, 0.6), gymapi.Vec3(1.2, 0, 0.2))
        # taken while envs are still being created, as Isaac Gym's interop example does
        tensors.append({t: gymtorch.wrap_tensor(gym.get_camera_image_gpu_tensor(sim, env, c, t))
                        for t in (gymapi.IMAGE_COLOR, gymapi.IMAGE_DEPTH, gymapi.IMAGE_SEGMENTATION)})
    ptrs = [t[gymapi.IMAGE_COLOR].data_ptr() for t in tensors]
    gym.render_all_camera_sensors(sim)
    gym.start_access_image_tensors(sim)
    for env, t in zip(envs, tensors):
        col, dep, seg = t[gymapi.IMAGE_COLOR], t[gymapi.IMAGE_DEPTH], t[gymapi.IMAGE_SEGMENTATION]
        assert col.shape == (H, W, 4) and col.dtype == torch.uint8
        assert dep.shape == (H, W) and dep.dtype == torch.float32
        assert seg.shape == (H, W) and seg.dtype == torch.int32
        assert np.array_equal(col.numpy().reshape(H, W * 4), gym.get_camera_image(sim, env, 0, gymapi.IMAGE_COLOR))
        assert np.array_equal(dep.numpy(), gym.get_camera_image(sim, env, 0, gymapi.IMAGE_DEPTH))
        assert np.array_equal(seg.numpy(), gym.get_camera_image(sim, env, 0, gymapi.IMAGE_SEGMENTATION))
        assert (seg == 4).any()
    gym.end_access_image_tensors(sim)
    assert [t[gymapi.IMAGE_COLOR].data_ptr() for t in tensors] == ptrs     # buffers never move
    # the host image is a copy: editing it leaves the camera's buffer alone
    d = gym.get_camera_image(sim, envs[0], 0, gymapi.IMAGE_DEPTH)
    d[:] = 0
    assert np.isfinite(tensors[0][gymapi.IMAGE_DEPTH].numpy()).any() and \
        (tensors[0][gymapi.IMAGE_DEPTH] < 0).any()


def test_texture_color_and_light_change_what_the_camera_sees(gym, tmp_path):
    sim, box, envs = _scene(gym, envs=1)
    env = envs[0]
    a = gym.create_actor(env, box, pose(1.2, 0.0, 0.2), "box", 0, 0, 4)
    gym.set_rigid_body_color(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(1, 0, 0))
    c = gym.create_camera_sensor(env, _props())
    gym.set_camera_location(c, env, gymapi.Vec3(0, -0.3, 0.9), gymapi.Vec3(1.2, 0, 0.2))
    assert gym.get_rigid_body_texture(env, a, 0, gymapi.MESH_VISUAL) == gymapi.INVALID_HANDLE

    def box_rgb():
        gym.render_all_camera_sensors(sim)
        seg = gym.get_camera_image(sim, env, c, gymapi.IMAGE_SEGMENTATION)
        rgba = gym.get_camera_image(sim, env, c, gymapi.IMAGE_COLOR).reshape(H, W, 4)
        return rgba[seg == 4][:, :3].astype(float).mean(0)

    red = box_rgb()
    assert red[0] > 3 * red[1] and red[0] > 3 * red[2]
    # a texture is tinted by the body color (their product, as a material's diffuse color and
    # texture combine): on a white body a green texture shows green
    gym.set_rigid_body_color(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(1, 1, 1))
    white = box_rgb()
    green = np.zeros((8, 8 * 4), np.uint8)
    green[:, 1::4] = 230
    green[:, 3::4] = 255
    tex = gym.create_texture_from_buffer(sim, 8, 8, green)
    gym.set_rigid_body_texture(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, tex)
    assert gym.get_rigid_body_texture(env, a, 0, gymapi.MESH_VISUAL) == tex
    g = box_rgb()
    assert g[1] > 3 * g[0] and g[1] > 3 * g[2], g
    # the same texture from a PNG file
    from PIL import Image
    path = tmp_path / "blue.png"
    Image.new("RGB", (4, 4), (0, 0, 220)).save(path)
    tex2 = gym.create_texture_from_file(sim, str(path))
    gym.set_rigid_body_texture(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, tex2)
    b = box_rgb()
    assert b[2] > 3 * b[0] and b[2] > 3 * b[1], b
    # freeing it brings the plain color back; a new color after the model exists shows at once
    gym.free_texture(sim, tex2)
    assert gym.get_rigid_body_texture(env, a, 0, gymapi.MESH_VISUAL) == gymapi.INVALID_HANDLE
    assert np.allclose(box_rgb(), white, atol=2)
    gym.set_rigid_body_color(env, a, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(0, 0, 1))
    blue = box_rgb()
    assert blue[2] > 3 * blue[0]
    # light: off (no light, no ambient) -> black; back on -> lit
    gym.set_light_parameters(sim, 0, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), gymapi.Vec3(1, 1, -1))
    assert box_rgb().max() < 3
    gym.set_light_parameters(sim, 0, gymapi.Vec3(1, 1, 1), gymapi.Vec3(0.3, 0.3, 0.3), gymapi.Vec3(1, 1, -1))
    assert box_rgb()[2] > 60
    # the PNG holds the image get_camera_image returns
    out = tmp_path / "rgb.png"
    gym.write_camera_image_to_file(sim, env, c, gymapi.IMAGE_COLOR, str(out))
    png = np.asarray(Image.open(out))
    assert png.shape == (H, W, 4)
    assert np.array_equal(png, gym.get_camera_image(sim, env, c, gymapi.IMAGE_COLOR).reshape(H, W, 4))
    gym.write_camera_image_to_file(sim, env, c, gymapi.IMAGE_DEPTH, str(tmp_path / "d.png"))
    assert np.asarray(Image.open(tmp_path / "d.png")).shape == (H, W)


def test_cameras_over_envs_without_actors(gym):
    # Isaac Gym's multiple-camera example: envs with cameras and nothing else; the sim also steps
    for engine in ("physx", "flex"):
        sim, _, envs = _scene(gym, engine, envs=2)
        c = gym.create_camera_sensor(envs[1], _props())
        gym.set_camera_transform(c, envs[1], gymapi.Transform(gymapi.Vec3(0, 0, 1.0),
                                 gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), 0.4)))
        gym.render_all_camera_sensors(sim)
        gym.simulate(sim)
        gym.fetch_results(sim, True)
        seg = gym.get_camera_image(sim, envs[1], c, gymapi.IMAGE_SEGMENTATION)
        assert (seg == GROUND_SEG).sum() > W * H / 4


def test_camera_errors_change_nothing(gym, tmp_path):
    sim, box, envs = _scene(gym, envs=2)
    env = envs[0]
    gym.create_actor(env, box, pose(1, 0, 0.2), "box", 0, 0)
    for bad in (dict(width=0), dict(height=-3), dict(horizontal_fov=0.0), dict(horizontal_fov=180.0),
                dict(near_plane=1.0, far_plane=0.5), dict(near_plane=0.0), dict(width=1.5)):
        with pytest.raises(ValueError):
            gym.create_camera_sensor(env, _props(**bad))
    with pytest.raises(TypeError):
        gym.create_camera_sensor(env, gymapi.SimParams())
    c = gym.create_camera_sensor(env, _props())
    assert c == 0                                      # the failed calls created nothing
    with pytest.raises(IndexError):
        gym.set_camera_location(1, env, gymapi.Vec3(1, 0, 0), gymapi.Vec3(0, 0, 0))
    with pytest.raises(IndexError):
        gym.get_camera_image(sim, envs[1], 0, gymapi.IMAGE_COLOR)       # env 1 has no camera
    with pytest.raises(ValueError):
        gym.set_camera_location(c, env, gymapi.Vec3(1, 1, 1), gymapi.Vec3(1, 1, 1))
    with pytest.raises(ValueError):
        gym.set_camera_location(c, env, gymapi.Vec3(float("nan"), 0, 0), gymapi.Vec3(0, 0, 0))
    before = gym.get_camera_transform(sim, env, c).p.to_tuple()
    with pytest.raises(IndexError):
        gym.attach_camera_to_body(c, env, 5, gymapi.Transform(), gymapi.FOLLOW_TRANSFORM)
    with pytest.raises(ValueError):
        gym.attach_camera_to_body(c, env, 0, gymapi.Transform(), 7)
    assert gym.get_camera_transform(sim, env, c).p.to_tuple() == before
    with pytest.raises(NotImplementedError):
        gym.get_camera_image(sim, env, c, gymapi.IMAGE_OPTICAL_FLOW)
    with pytest.raises(ValueError):
        gym.get_camera_image(sim, env, c, 42)
    other = make_sim(gym, graphics=0)
    with pytest.raises(ValueError):
        gym.get_camera_image(other, env, c, gymapi.IMAGE_COLOR)
    no_tensors = gym.create_camera_sensor(env, _props(enable_tensors=False))
    with pytest.raises(ValueError, match="enable_tensors"):
        gym.get_camera_image_gpu_tensor(sim, env, no_tensors, gymapi.IMAGE_DEPTH)
    gym.destroy_camera_sensor(sim, env, no_tensors)
    with pytest.raises(RuntimeError, match="destroyed"):
        gym.get_camera_image(sim, env, no_tensors, gymapi.IMAGE_COLOR)
    # textures
    with pytest.raises(FileNotFoundError):
        gym.create_texture_from_file(sim, str(tmp_path / "missing.png"))
    (tmp_path / "junk.png").write_bytes(b"not an image")
    with pytest.raises(ValueError):
        gym.create_texture_from_file(sim, str(tmp_path / "junk.png"))
    with pytest.raises(ValueError):
        gym.create_texture_from_buffer(sim, 4, 4, np.zeros(4 * 4 * 3, np.uint8))
    with pytest.raises(TypeError):
        gym.create_texture_from_buffer(sim, 4, 4, np.zeros(4 * 4 * 4, np.float32))
    with pytest.raises(ValueError):
        gym.set_rigid_body_texture(env, 0, 0, gymapi.MESH_VISUAL, 123)
    tex = gym.create_texture_from_buffer(sim, 2, 2, np.full(16, 255, np.uint8))
    gym.free_texture(sim, tex)
    with pytest.raises(ValueError):
        gym.free_texture(sim, tex)
    with pytest.raises(ValueError):
        gym.set_light_parameters(sim, 0, gymapi.Vec3(1, 1, 1), gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0))
    with pytest.raises(ValueError):
        gym.set_light_parameters(sim, -1, gymapi.Vec3(1, 1, 1), gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, -1))
    with pytest.raises(RuntimeError):
        gym.write_camera_image_to_file(sim, env, c, gymapi.IMAGE_COLOR, str(tmp_path / "no_dir" / "x.png"))
    assert not os.path.exists(tmp_path / "no_dir")


def test_y_up_camera_looks_at_its_target(gym):
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Y
    p.gravity = gymapi.Vec3(0, -9.81, 0)
    sim = gym.create_sim(0, 0, gymapi.SIM_PHYSX, p)
    gym.add_ground(sim, gymapi.PlaneParams())           # normal +Y
    box = gym.create_box(sim, 0.4, 0.4, 0.4, options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-1, 0, -1), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(2.0, 0.2, 0.0), "box", 0, 0, 6)
    c = gym.create_camera_sensor(env, _props())
    gym.set_camera_location(c, env, gymapi.Vec3(0, 0.8, 0), gymapi.Vec3(2.0, 0.2, 0))
    gym.render_all_camera_sensors(sim)
    seg = gym.get_camera_image(sim, env, c, gymapi.IMAGE_SEGMENTATION)
    assert seg[H // 2, W // 2] == 6
    # the image is upright: ground (segmentation 0 for a default plane... and hits) below, sky above
    depth = gym.get_camera_image(sim, env, c, gymapi.IMAGE_DEPTH)
    assert np.isneginf(depth[0]).all() and np.isfinite(depth[-1]).all()


def test_viewer_camera_handle_sees_every_env(gym):
    """get_viewer_camera_handle: the viewer's picture of all envs through the camera calls, with
    matrices that project like a camera sensor's, posed by viewer_camera_look_at and set_camera_location."""
    sim, box, envs = _scene(gym)
    for i, env in enumerate(envs):
        gym.create_actor(env, box, pose(0.0, 0.0, 0.2), "box", i, 0, BOX_SEG + i)
    props = gymapi.CameraProperties()
    props.width, props.height = 160, 120
    viewer = gym.create_viewer(sim, props)
    h = gym.get_viewer_camera_handle(viewer)
    assert gym.get_viewer_camera_handle(viewer) == h
    o0 = np.array(gym.get_env_origin(envs[0]).to_tuple())
    o1 = np.array(gym.get_env_origin(envs[1]).to_tuple())
    mid = 0.5 * (o0 + o1)
    gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(*(mid + [0.0, -6.0, 4.0])), gymapi.Vec3(*mid))
    color = gym.get_camera_image(sim, envs[0], h, gymapi.IMAGE_COLOR)
    depth = gym.get_camera_image(sim, envs[0], h, gymapi.IMAGE_DEPTH)
    seg = gym.get_camera_image(sim, envs[1], h, gymapi.IMAGE_SEGMENTATION)
    assert color.shape == (120, 160 * 4) and depth.shape == seg.shape == (120, 160)
    assert {BOX_SEG, BOX_SEG + 1, GROUND_SEG} <= set(np.unique(seg))      # both envs' boxes and the ground
    V = gym.get_camera_view_matrix(sim, envs[0], h)
    P = gym.get_camera_proj_matrix(sim, envs[0], h)
    for i, o in enumerate((o0, o1)):
        v = np.append(o + [0.0, 0.0, 0.4], 1.0) @ V          # top of each box
        c = v @ P
        r = int(round((1.0 - c[1] / c[3]) * 0.5 * 120 - 0.5))
        col = int(round((c[0] / c[3] + 1.0) * 0.5 * 160 - 0.5))
        assert seg[r, col] == BOX_SEG + i
        assert depth[r, col] == pytest.approx(v[2], rel=0.03)
    # the pose reads back in the env named, and set_camera_location moves the viewer camera
    t1 = gym.get_camera_transform(sim, envs[1], h)
    tv = gym.get_viewer_camera_transform(viewer, envs[1])
    assert t1.p.to_tuple() == pytest.approx(tv.p.to_tuple(), abs=1e-5)
    gym.set_camera_location(h, envs[1], gymapi.Vec3(0.0, -3.0, 2.0), gymapi.Vec3(0.0, 0.0, 0.2))
    tv = gym.get_viewer_camera_transform(viewer, envs[1])
    assert tv.p.to_tuple() == pytest.approx((0.0, -3.0, 2.0), abs=1e-5)
    seg = gym.get_camera_image(sim, envs[1], h, gymapi.IMAGE_SEGMENTATION)
    assert seg[60, 80] == BOX_SEG + 1                       # now looking straight at env 1's box
    # what the viewer camera cannot do is refused clearly
    with pytest.raises(NotImplementedError, match="viewer camera"):
        gym.get_camera_image_gpu_tensor(sim, envs[0], h, gymapi.IMAGE_COLOR)
    with pytest.raises(ValueError, match="viewer camera"):
        gym.attach_camera_to_body(h, envs[0], 0, gymapi.Transform(), gymapi.FOLLOW_TRANSFORM)
    with pytest.raises(ValueError, match="viewer camera"):
        gym.destroy_camera_sensor(sim, envs[0], h)
    with pytest.raises(TypeError):
        gym.get_viewer_camera_handle(sim)
    gym.destroy_viewer(viewer)
    with pytest.raises(RuntimeError, match="destroyed"):
        gym.get_camera_image(sim, envs[0], h, gymapi.IMAGE_COLOR)
