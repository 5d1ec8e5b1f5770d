"""The viewer: headless viewer semantics (frames, frame limit, camera, lines, events, errors) and
Newton's ViewerGL window rendered off-screen through EGL."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import ROOT as REPO, make_sim, options, pose
from gymlike import gymapi
from gymlike.core import session
from gymlike.render.viewer import HeadlessViewer

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)


@pytest.fixture()
def scene(gym, monkeypatch):
    monkeypatch.delenv("GYMLIKE_VIEWER", raising=False)
    monkeypatch.setattr(session, "headless", True)
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(z=0.5), "box", i, 0)
        envs.append(env)
    yield sim, envs
    gym.destroy_sim(sim)


def rotate(q, v):
    x, y, z, w = q.x, q.y, q.z, q.w
    u = np.array([x, y, z])
    return 2 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * np.asarray(v) + 2 * w * np.cross(u, v)


def test_headless_viewer_loop_and_frame_limit(gym, scene, monkeypatch):
    sim, envs = scene
    monkeypatch.setattr(session, "max_frames", 6)
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    assert isinstance(viewer, gymapi.Viewer) and isinstance(viewer, HeadlessViewer)
    frames = 0
    while not gym.query_viewer_has_closed(viewer):
        gym.poll_viewer_events(viewer)
        gym.simulate(sim)
        gym.fetch_results(sim, True)
        gym.step_graphics(sim)
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
        frames += 1
    assert frames == 6 and viewer.frames == 6
    # the viewer closed at the limit: the next simulate ends the script (exit code 0 in the runner)
    with pytest.raises(session.FrameLimitReached):
        sim.step_limit = session.StepLimit(6)
        gym.simulate(sim)
    gym.destroy_viewer(viewer)
    assert gym.query_viewer_has_closed(viewer)


def test_step_limit_without_viewer(gym, scene):
    sim, _ = scene
    sim.step_limit = session.StepLimit(3)
    for _ in range(3):
        gym.simulate(sim)
    with pytest.raises(SystemExit) as e:        # FrameLimitReached is a SystemExit(0)
        gym.simulate(sim)
    assert e.value.code == 0 and gym.get_frame_count(sim) == 3


def test_camera_look_at_and_transform(gym, scene):
    sim, envs = scene
    props = gymapi.CameraProperties()
    props.width, props.height = 640, 480
    viewer = gym.create_viewer(sim, props)
    size = gym.get_viewer_size(viewer)
    assert (size.x, size.y) == (640, 480)
    pos, target = gymapi.Vec3(3, 2, 2), gymapi.Vec3(0, 0, 0.5)
    gym.viewer_camera_look_at(viewer, envs[1], pos, target)
    t = gym.get_viewer_camera_transform(viewer, envs[1])           # env frame
    assert np.allclose([t.p.x, t.p.y, t.p.z], [3, 2, 2], atol=1e-5)
    fwd = np.array([-3, -2, -1.5]) / np.linalg.norm([-3, -2, -1.5])
    assert np.allclose(rotate(t.r, [1, 0, 0]), fwd, atol=1e-5)     # +X looks at the target
    assert rotate(t.r, [0, 0, 1])[2] > 0                           # +Z is up-ish
    assert abs(rotate(t.r, [0, 1, 0])[2]) < 1e-6                   # no roll
    tw = gym.get_viewer_camera_transform(viewer, None)             # sim frame = env frame + origin
    o = gym.get_env_origin(envs[1])
    assert np.allclose([tw.p.x - o.x, tw.p.y - o.y, tw.p.z - o.z], [3, 2, 2], atol=1e-5)
    m = gym.get_viewer_mouse_position(viewer)
    assert isinstance(m, gymapi.Vec2) and 0 <= m.x <= 1
    with pytest.raises(ValueError, match="coincide"):
        gym.viewer_camera_look_at(viewer, envs[0], pos, pos)
    with pytest.raises(TypeError, match="Vec3"):
        gym.viewer_camera_look_at(viewer, envs[0], (1, 2, 3), target)


def test_lines_events_and_errors(gym, scene, monkeypatch):
    sim, envs = scene
    from gymlike.core.enums import KeyboardInput
    monkeypatch.setattr(session, "key_events", {2: [KeyboardInput.KEY_R]})
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_R, "reset")
    gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_ESCAPE, "QUIT")
    gym.subscribe_viewer_mouse_event(viewer, gymapi.MOUSE_LEFT_BUTTON, "shoot")
    seen = []
    for frame in range(4):
        seen += [(frame, e.action, e.value) for e in gym.query_viewer_action_events(viewer)]
        gym.draw_viewer(viewer, sim, True)
    assert seen == [(2, "reset", 1.0), (3, "reset", 0.0)]         # press at frame 2, release after

    verts = np.array([[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0]], np.float32)      # (n, 6) layout
    gym.add_lines(viewer, envs[1], 2, verts, np.array([[1, 0, 0], [0, 1, 0]], np.float32))
    v3 = np.zeros((1, 2), gymapi.Vec3.dtype)
    v3[0, 1] = (0, 0, 1)
    c3 = np.zeros(1, gymapi.Vec3.dtype)
    gym.add_lines(viewer, envs[0], 1, v3, c3)                      # Vec3.dtype layout
    starts, ends, colors = viewer.line_arrays()
    o = gym.get_env_origin(envs[1])
    assert starts.shape == (3, 3) and np.allclose(ends[0], [1 + o.x, o.y, o.z])   # env frame -> sim frame
    gym.draw_env_rigid_contacts(viewer, envs[0], gymapi.Vec3(1, 0, 0), 0.5, True)
    gym.clear_lines(viewer)
    assert viewer.line_arrays() is None

    with pytest.raises(ValueError, match="num_lines needs 4"):
        gym.add_lines(viewer, envs[0], 2, np.zeros((1, 6), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="colors holds 1"):
        gym.add_lines(viewer, envs[0], 2, np.zeros((2, 6), np.float32), np.zeros((1, 3), np.float32))
    with pytest.raises(ValueError, match="KeyboardInput"):
        gym.subscribe_viewer_keyboard_event(viewer, 10_000, "x")
    with pytest.raises(TypeError, match="action"):
        gym.subscribe_viewer_keyboard_event(viewer, gymapi.KEY_A, 3)
    other = make_sim(gym, "physx")
    other_env = gym.create_env(other, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    with pytest.raises(ValueError, match="belongs to sim"):
        gym.add_lines(viewer, other_env, 1, np.zeros(6, np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="created for sim"):
        gym.draw_viewer(viewer, other, True)
    gym.destroy_sim(other)
    with pytest.raises(TypeError, match="Viewer"):
        gym.draw_viewer("viewer", sim, True)
    gym.destroy_viewer(viewer)
    with pytest.raises(RuntimeError, match="destroyed"):
        gym.clear_lines(viewer)


def test_graphics_device_minus_one_is_headless(gym, monkeypatch):
    monkeypatch.setattr(session, "headless", False)
    monkeypatch.setenv("DISPLAY", ":99")                           # even with a display
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams())
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    assert viewer is not None and viewer.kind == "headless"
    with pytest.raises(ValueError, match="width"):
        bad = gymapi.CameraProperties()
        bad.width = 0
        gym.create_viewer(sim, bad)
    gym.destroy_sim(sim)


EGL_SCRIPT = '''\
from isaacgym import gymapi, gymutil
import numpy as np
gym = gymapi.acquire_gym()
sp = gymapi.SimParams(); sp.up_axis = gymapi.UP_AXIS_Z; sp.gravity = gymapi.Vec3(0, 0, -9.81)
sim = gym.create_sim(0, 0, gymapi.SIM_PHYSX, sp)
pp = gymapi.PlaneParams(); pp.normal = gymapi.Vec3(0, 0, 1); gym.add_ground(sim, pp)
box = gym.create_box(sim, 0.4, 0.4, 0.4, gymapi.AssetOptions())
env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0, 0, 0.2)), "box", 0, 0)
cp = gymapi.CameraProperties(); cp.width, cp.height = 160, 120
viewer = gym.create_viewer(sim, cp)
print("KIND", viewer.kind)
gym.viewer_camera_look_at(viewer, env, gymapi.Vec3(2, -2, 1.5), gymapi.Vec3(0, 0, 0.2))
t = gym.get_viewer_camera_transform(viewer, env)
print("CAM", round(t.p.x, 3), round(t.p.y, 3), round(t.p.z, 3))
n = 0
while not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.clear_lines(viewer)
    gymutil.draw_lines(gymutil.WireframeBoxGeometry(0.6, 0.6, 0.6, color=(1, 1, 0)), gym, viewer, env,
                       gymapi.Transform(gymapi.Vec3(0, 0, 0.3)))
    gym.draw_viewer(viewer, sim, True)
    n += 1
img = viewer.gl.get_frame().numpy()
print("FRAMES", n, "IMG", img.shape[0], img.shape[1], int(img.std() > 5))
yellow = (img[..., 0] > 200) & (img[..., 1] > 200) & (img[..., 2] < 80)
print("YELLOW", int(yellow.sum() > 20))
gym.destroy_viewer(viewer)
'''


@pytest.mark.skipif(importlib.util.find_spec("pyglet") is None, reason="pyglet (gymlike[viewer]) not installed")
def test_window_viewer_over_egl(tmp_path):
    """Newton's ViewerGL driven by Isaac Gym calls, rendered off-screen (no display needed)."""
    script = tmp_path / "egl.py"
    script.write_text(textwrap.dedent(EGL_SCRIPT))
    env = dict(os.environ, GYMLIKE_VIEWER="egl", PYTHONPATH=REPO)
    r = subprocess.run([sys.executable, "-m", "gymlike.run", "--max-frames", "4", str(script)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    if "KIND headless" in r.stdout:
        pytest.skip(f"no EGL/OpenGL here: {r.stderr.strip().splitlines()[-1:]}")
    assert "KIND window" in r.stdout
    assert "CAM 2.0 -2.0 1.5" in r.stdout                         # camera pose read back from ViewerGL
    assert "FRAMES 4 IMG 120 160 1" in r.stdout                    # frame limit, rendered image
    assert "YELLOW 1" in r.stdout                                  # the wireframe lines were drawn
