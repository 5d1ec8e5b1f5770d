"""Isaac Gym's viewer on Newton.

`create_viewer(sim, CameraProperties)` returns

* a `WindowViewer` (Newton's `ViewerGL`: OpenGL window, mouse/keyboard camera, lines, contacts)
  when a display is available, pyglet is installed (`pip install gymlike[viewer]`), the sim has
  a graphics device (`graphics_device_id >= 0`) and the runner was not given `--headless`;
* otherwise a `HeadlessViewer`, which accepts every viewer call, keeps the camera, line and
  subscription state that the calls imply, counts frames, and closes after the runner's
  `--max-frames`.

The viewer is never the reason a script fails: if a window cannot be opened, a warning is
printed and the headless viewer is used. Bad arguments (a destroyed viewer, an env of another
sim, arrays too short for `num_lines`) still raise clear errors.

Environment variable GYMLIKE_VIEWER overrides the choice: `headless`, `window`, or `egl`
(ViewerGL rendering off-screen through EGL, no display needed; used by the tests).

Camera transforms (`get_viewer_camera_transform`) use Isaac Gym's camera frame: +X looks at the
target, +Z is up (as close to the sim's up axis as the view allows), +Y points left.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import time
import weakref

import numpy as np

from ..core import math3d, session
from ..core.enums import KeyboardInput, MouseInput, UpAxis
from ..core.errors import GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError
from ..core.sim import Env, Sim
from ..core.types import ActionEvent, CameraProperties, Int2, Quat, Transform, Vec2, Vec3, finite_vec3, number
from ..core.errors import warn
from ..core.runtime import wp as _wp, call_name

_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warn(message, RuntimeWarning)


# ============================================================================ validation
def viewer_of(viewer, what=None):
    what = what or call_name()
    if not isinstance(viewer, HeadlessViewer):
        raise GymlikeTypeError(f"{what}: expected a Viewer handle from create_viewer, got {type(viewer).__name__}")
    if viewer.destroyed:
        raise GymlikeRuntimeError(f"{what}: the viewer was destroyed (destroy_viewer)")
    return viewer


def _env_origin(viewer, env, what):
    """World offset of `env` (None means the sim frame)."""
    if env is None:
        return np.zeros(3)
    if not isinstance(env, Env):
        raise GymlikeTypeError(f"{what}: expected an Env handle (or None), got {type(env).__name__}")
    if env.sim is not viewer.sim:
        raise GymlikeValueError(f"{what}: env {env.index} belongs to sim {env.sim.id}, but the viewer "
                                f"was created for sim {viewer.sim.id}")
    return np.asarray(env.origin, np.float64)


def _points(array, rows, what, name):
    """Float (rows, 3) array from a Vec3.dtype array, an (n, 6) / (2n, 3) float array or a flat list."""
    a = np.asarray(array)
    if a.dtype.names is not None:
        if not {"x", "y", "z"} <= set(a.dtype.names):
            raise GymlikeTypeError(f"{what}: {name} must be float32 or gymapi.Vec3.dtype, got dtype {a.dtype}")
        a = np.stack([a["x"], a["y"], a["z"]], -1)
    try:
        a = np.asarray(a, np.float32).reshape(-1, 3)
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: {name} must hold 3 floats per point, got shape {np.shape(array)}") from None
    if a.shape[0] < rows:
        raise GymlikeValueError(f"{what}: {name} holds {a.shape[0]} points, but num_lines needs {rows}")
    if not np.isfinite(a[:rows]).all():
        raise GymlikeValueError(f"{what}: {name} contains NaN or inf")
    return a[:rows]


# ============================================================================ camera maths
def _up_vector(sim):
    return np.array([0.0, 1.0, 0.0]) if sim.params.up_axis == UpAxis.UP_AXIS_Y else np.array([0.0, 0.0, 1.0])


def camera_transform(pos, forward, up):
    """Transform of a camera at `pos` looking along `forward`: +X forward, +Z up, +Y left."""
    q = math3d.quat_look_along(forward, up)
    return Transform(Vec3(*pos), Quat(*q))


# ============================================================================ headless viewer
class Viewer:
    """Isaac Gym's opaque viewer handle type (gymapi.Viewer): isinstance checks in user code."""


class HeadlessViewer(Viewer):
    """A viewer without a window: every call is accepted and its state kept (camera, lines,
    subscriptions); `frames` counts draw_viewer calls; closes after the runner's frame limit."""

    kind = "headless"

    def __init__(self, sim, props):
        self.sim = sim
        self.width, self.height = int(props.width), int(props.height)
        self.horizontal_fov = float(props.horizontal_fov)
        self.frames = 0
        self.polls = 0
        self.destroyed = False
        self.closed = False
        self.max_frames = session.max_frames
        self.key_events = dict(session.key_events)
        self.key_actions = {}            # KeyboardInput -> [action names]
        self.mouse_actions = {}          # MouseInput -> [action names]
        self.events = []                 # pending ActionEvents
        self.lines = []                  # (starts, ends, colors) float32 (n, 3) in the sim frame
        self.line_count = 0
        self.contact_draws = 0
        self.mouse = (0.5, 0.5)          # normalized window coordinates
        up = _up_vector(sim)
        self.cam_target = np.zeros(3)
        self.cam_pos = (np.array([-3.0, 3.0, -3.0]) if up[1] else np.array([-3.0, -3.0, 3.0]))
        self._pending_release = []
        self.recorder = None
        if session.record:              # gymlike.run --record: every drawn frame goes to a file
            from .cameras import Recorder
            n = sum(1 for r in session.recorders)
            path = session.record if n == 0 else "{0}_{2}{1}".format(*os.path.splitext(session.record), n)
            self.recorder = Recorder(path, fps=max(1, round(1.0 / max(float(sim.params.dt), 1e-6))))
            session.recorders.append(self.recorder)

    # ---- lifecycle
    def limit_reached(self):
        return self.max_frames is not None and self.frames >= self.max_frames

    def has_closed(self):
        return self.closed or self.limit_reached()

    def destroy(self):
        self.destroyed = True
        self.closed = True
        if self.recorder is not None:
            self.recorder.close()

    # ---- frames and events
    def draw(self, render_collision=True):
        self.frames += 1
        self._scripted_keys()
        if self.recorder is not None:
            from .cameras import viewer_image
            self.recorder.add(viewer_image(self))

    def poll(self):
        self.polls += 1

    def _scripted_keys(self):
        for key in self._pending_release:
            self.on_key(key, 0.0)
        self._pending_release = []
        for key in self.key_events.get(self.frames, []):
            self.on_key(key, 1.0)
            self._pending_release.append(key)

    def on_key(self, key, value):
        for action in self.key_actions.get(key, []):
            self.events.append(ActionEvent(action, value))

    def on_mouse(self, button, value):
        for action in self.mouse_actions.get(button, []):
            self.events.append(ActionEvent(action, value))

    def take_events(self):
        events, self.events = self.events, []
        return events

    # ---- camera
    def look_at(self, pos, target):
        self.cam_pos, self.cam_target = pos, target

    def camera_pose(self):
        """(position, forward) in the sim frame."""
        return self.cam_pos, self.cam_target - self.cam_pos

    def size(self):
        return self.width, self.height

    # ---- debug drawing
    def add_lines(self, starts, ends, colors):
        self.lines.append((starts, ends, colors))
        self.line_count += len(starts)

    def clear_lines(self):
        self.lines = []
        self.line_count = 0

    def draw_contacts(self, env, color, scale, flag):
        self.contact_draws += 1

    def line_arrays(self):
        if not self.lines:
            return None
        return tuple(np.concatenate([part[k] for part in self.lines]) for k in range(3))


# ============================================================================ window viewer
_KEY_NAMES = {  # KeyboardInput name (without KEY_) -> pyglet.window.key name, where they differ
    "GRAVE_ACCENT": "GRAVE", "LEFT_BRACKET": "BRACKETLEFT", "RIGHT_BRACKET": "BRACKETRIGHT",
    "DEL": "DELETE", "PAGE_UP": "PAGEUP", "PAGE_DOWN": "PAGEDOWN", "CAPS_LOCK": "CAPSLOCK",
    "SCROLL_LOCK": "SCROLLLOCK", "NUM_LOCK": "NUMLOCK", "PRINT_SCREEN": "PRINT",
    "NUMPAD_DEL": "NUM_DELETE", "NUMPAD_DIVIDE": "NUM_DIVIDE", "NUMPAD_MULTIPLY": "NUM_MULTIPLY",
    "NUMPAD_SUBTRACT": "NUM_SUBTRACT", "NUMPAD_ADD": "NUM_ADD", "NUMPAD_ENTER": "NUM_ENTER",
    "NUMPAD_EQUAL": "NUM_EQUAL", "LEFT_SHIFT": "LSHIFT", "LEFT_CONTROL": "LCTRL", "LEFT_ALT": "LALT",
    "LEFT_SUPER": "LWINDOWS", "RIGHT_SHIFT": "RSHIFT", "RIGHT_CONTROL": "RCTRL", "RIGHT_ALT": "RALT",
    "RIGHT_SUPER": "RWINDOWS",
}


def _pyglet_key_map():
    import pyglet.window.key as k
    out = {}
    for member in KeyboardInput:
        name = member.name[4:]
        if name.isdigit():
            name = "_" + name
        elif name.startswith("NUMPAD_") and name[7:].isdigit():
            name = "NUM_" + name[7:]
        sym = getattr(k, _KEY_NAMES.get(name, name), None)
        if sym is not None:
            out[sym] = member
    return out


class WindowViewer(HeadlessViewer):
    """Newton's ViewerGL driven by Isaac Gym's viewer calls."""

    kind = "window"

    def __init__(self, sim, props, offscreen=False):
        super().__init__(sim, props)
        import pyglet
        if offscreen:
            pyglet.options["headless"] = True
        from newton.viewer import ViewerGL
        self.gl = ViewerGL(width=self.width, height=self.height, vsync=False, headless=offscreen)
        self.offscreen = offscreen
        import pyglet.window.mouse as mouse
        self._keys = _pyglet_key_map()
        self._buttons = {mouse.LEFT: MouseInput.MOUSE_LEFT_BUTTON, mouse.RIGHT: MouseInput.MOUSE_RIGHT_BUTTON,
                         mouse.MIDDLE: MouseInput.MOUSE_MIDDLE_BUTTON}
        r = self.gl.renderer
        r.register_key_press(lambda sym, mod: self._key(sym, 1.0))
        r.register_key_release(lambda sym, mod: self._key(sym, 0.0))
        r.register_mouse_press(lambda x, y, b, m: self._button(x, y, b, 1.0))
        r.register_mouse_release(lambda x, y, b, m: self._button(x, y, b, 0.0))
        r.register_mouse_motion(self._motion)
        r.register_mouse_drag(lambda x, y, dx, dy, b, m: self._motion(x, y, dx, dy))
        r.register_mouse_scroll(self._scroll)
        vfov = 2.0 * math.degrees(math.atan(math.tan(math.radians(self.horizontal_fov) / 2.0)
                                            * self.height / max(self.width, 1)))
        self.gl.camera.fov = vfov
        self._model_set = False
        self._apply_camera()

    def _key(self, symbol, value):
        member = self._keys.get(symbol)
        if member is not None:
            self.on_key(member, value)

    def _button(self, x, y, button, value):
        self._motion(x, y, 0, 0)
        if button in self._buttons:
            self.on_mouse(self._buttons[button], value)

    def _motion(self, x, y, dx, dy):
        w, h = self.gl.renderer.window.get_size()
        self.mouse = (x / max(w, 1), y / max(h, 1))
        for axis, (pos, neg) in ((dx, (MouseInput.MOUSE_MOVE_RIGHT, MouseInput.MOUSE_MOVE_LEFT)),
                                 (dy, (MouseInput.MOUSE_MOVE_UP, MouseInput.MOUSE_MOVE_DOWN))):
            if axis:
                self.on_mouse(pos if axis > 0 else neg, abs(float(axis)))

    def _scroll(self, x, y, sx, sy):
        if sy:
            self.on_mouse(MouseInput.MOUSE_SCROLL_UP if sy > 0 else MouseInput.MOUSE_SCROLL_DOWN, abs(float(sy)))
        if sx:
            self.on_mouse(MouseInput.MOUSE_SCROLL_RIGHT if sx > 0 else MouseInput.MOUSE_SCROLL_LEFT, abs(float(sx)))

    def _apply_camera(self):
        cam = self.gl.camera
        cam.pos = cam._as_vec3(tuple(float(v) for v in self.cam_pos))
        cam.look_at(tuple(float(v) for v in self.cam_target))

    def look_at(self, pos, target):
        super().look_at(pos, target)
        self._apply_camera()

    def camera_pose(self):
        cam = self.gl.camera
        front = cam.get_front()
        return (np.array([cam.pos[0], cam.pos[1], cam.pos[2]], np.float64),
                np.array([front[0], front[1], front[2]], np.float64))

    def size(self):
        w, h = self.gl.renderer.window.get_size()
        return int(w), int(h)

    def has_closed(self):
        if not self.closed and self.gl.renderer.has_exit():
            self.closed = True
        return super().has_closed()

    def _ensure_model(self):
        if self._model_set or not self.sim.finalized:
            return
        from .cameras import warn_without_visuals
        warn_without_visuals(self.sim, "the viewer")
        up = _up_vector(self.sim)
        self.gl.camera.up_axis = 1 if up[1] else 2
        self.gl.set_model(self.sim.model)
        self.gl.set_world_offsets((0.0, 0.0, 0.0))     # envs are already apart in the sim frame
        self._model_set = True
        self._apply_camera()

    def draw(self, render_collision=True):
        super().draw(render_collision)
        if self.has_closed():
            return
        wp = _wp()
        self._ensure_model()
        gl = self.gl
        gl.begin_frame(float(self.sim.time))
        if self._model_set and self.sim.state is not None:
            gl.log_state(self.sim.state)
        lines = self.line_arrays()
        if lines is None:
            gl.log_lines("gymlike_lines", None, None, None)
        else:
            dev = gl.device
            starts, ends, colors = (wp.array(a, dtype=wp.vec3, device=dev) for a in lines)
            gl.log_lines("gymlike_lines", starts, ends, colors)
        gl.end_frame()

    def poll(self):
        super().poll()
        if not self.has_closed():
            self.gl.renderer.update()

    def draw_contacts(self, env, color, scale, flag):
        super().draw_contacts(env, color, scale, flag)
        contacts = self.sim.contacts
        if contacts is None or not self.sim.finalized:
            return
        n = int(contacts.rigid_contact_count.numpy()[0])
        if n == 0:
            return
        model, state = self.sim.model, self.sim.state
        s0 = contacts.rigid_contact_shape0.numpy()[:n]
        s1 = contacts.rigid_contact_shape1.numpy()[:n]
        world = self.sim.host.shape_env          # env of each shape (-1: static)
        mine = (world[s0] == env.index) | (world[s1] == env.index)
        if not mine.any():
            return
        body = model.shape_body.numpy()
        bq = state.body_q.numpy()
        p0 = contacts.rigid_contact_point0.numpy()[:n][mine]
        b0 = body[s0[mine]]
        pts = p0.astype(np.float64).copy()
        for i, b in enumerate(b0):                         # contact point: body frame -> world
            if b >= 0:
                q = Quat(*bq[b, 3:7])
                pts[i] = np.array(q.rotate(Vec3(*p0[i])).to_tuple()) + bq[b, 0:3]
        normals = contacts.rigid_contact_normal.numpy()[:n][mine]
        ends = pts + float(scale) * normals
        cols = np.tile(np.array([color.x, color.y, color.z], np.float32), (len(pts), 1))
        self.add_lines(pts.astype(np.float32), ends.astype(np.float32), cols)

    def destroy(self):
        super().destroy()
        try:
            self.gl.close()
        except Exception:  # noqa: BLE001  (closing a dead window must not fail the script)
            pass


# ============================================================================ choosing a viewer
def _display_available():
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _viewer_mode(sim):
    forced = os.environ.get("GYMLIKE_VIEWER", "").strip().lower()
    if session.headless or session.record or forced == "headless":
        return "headless"
    if forced in ("window", "egl"):
        return forced
    if forced not in ("", "auto"):
        _warn_once("mode", f"GYMLIKE_VIEWER={forced!r} is not one of auto, headless, window, egl; using auto")
    if sim.graphics_device_id is not None and int(sim.graphics_device_id) < 0:
        return "headless"
    if not _display_available():
        return "headless"
    if importlib.util.find_spec("pyglet") is None:
        _warn_once("pyglet", "gymlike: a display is available but pyglet is not installed; the viewer runs "
                   "headless (pip install 'gymlike[viewer]' for a window)")
        return "headless"
    return "window"


def _headless_reason(sim):
    """Why the viewer is headless, when the user may not expect it (None when they asked for it
    through GYMLIKE_VIEWER=headless or graphics_device_id -1)."""
    if session.record:
        return None
    if session.headless:
        return "--headless"
    if os.environ.get("GYMLIKE_VIEWER", "").strip().lower() == "headless":
        return None
    if sim.graphics_device_id is not None and int(sim.graphics_device_id) < 0:
        return None
    if not _display_available():
        return "no display: DISPLAY is not set"
    if importlib.util.find_spec("pyglet") is None:
        return "pyglet is not installed"
    return "the window could not be opened"


def create_viewer(sim, props):
    if not isinstance(props, CameraProperties):
        raise GymlikeTypeError(f"create_viewer: expected gymapi.CameraProperties, got {type(props).__name__}")
    for name in ("width", "height"):
        v = getattr(props, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise GymlikeValueError(f"create_viewer: CameraProperties.{name} must be a positive int, got {v!r}")
    mode = _viewer_mode(sim)
    viewer = None
    if mode in ("window", "egl"):
        try:
            viewer = WindowViewer(sim, props, offscreen=(mode == "egl"))
        except Exception as e:  # noqa: BLE001  (the viewer must never be why a script fails)
            _warn_once("window", f"gymlike: could not open a viewer window ({type(e).__name__}: {e}); "
                       "running headless")
    if viewer is None:
        viewer = HeadlessViewer(sim, props)
        reason = _headless_reason(sim)
        if reason:
            session.note_headless_viewer(reason)
    session.register_viewer(sim, viewer)
    return viewer


# ============================================================================ frame pacing
_sync = weakref.WeakKeyDictionary()   # sim -> (wall time, sim time) of the last sync


def sync_frame_time(sim):
    """Sleep so the sim advances no faster than real time while a window shows it."""
    if not any(isinstance(v, WindowViewer) and not v.offscreen for v in session.viewers_of(sim)):
        return
    now = time.perf_counter()
    last = _sync.get(sim)
    if last is None:
        _sync[sim] = (now, sim.time)
        return
    wall0, t0 = last
    wait = wall0 + (sim.time - t0) - now
    if wait > 0.0:
        time.sleep(min(wait, 0.5))
    elif wait < -0.25:                    # fell behind (slow frames): re-anchor, don't catch up
        _sync[sim] = (now, sim.time)


def sim_for_graphics(sim, what):
    if not isinstance(sim, Sim):
        raise GymlikeTypeError(f"{what}: expected a Sim handle, got {type(sim).__name__}")
    sim.check_alive()
    return sim


def keyboard_input(key, what):
    try:
        return KeyboardInput(int(key))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: expected a gymapi.KeyboardInput (e.g. gymapi.KEY_R), got {key!r}") from None


def mouse_input(button, what):
    try:
        return MouseInput(int(button))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: expected a gymapi.MouseInput (e.g. gymapi.MOUSE_LEFT_BUTTON), "
                                f"got {button!r}") from None


def action_name(action, what):
    if not isinstance(action, str) or not action:
        raise GymlikeTypeError(f"{what}: action must be a non-empty str, got {action!r}")
    return action


# ============================================================================ the Gym methods' work
def destroy_viewer(viewer):
    viewer_of(viewer, "destroy_viewer").destroy()


def write_viewer_image_to_file(viewer, filename):
    """PNG of the sim from the viewer camera (ray traced, every env, no debug lines)."""
    from .cameras import write_viewer_image
    write_viewer_image(viewer_of(viewer, "write_viewer_image_to_file"), filename)


def draw_viewer(viewer, sim, render_collision=True):
    v = viewer_of(viewer, "draw_viewer")
    s = sim_for_graphics(sim, "draw_viewer")
    if s is not v.sim:
        raise GymlikeValueError(f"draw_viewer: the viewer was created for sim {v.sim.id}, not sim {s.id}")
    if not v.has_closed():
        v.draw(bool(render_collision) if render_collision is not None else True)


def poll_viewer_events(viewer):
    viewer_of(viewer, "poll_viewer_events").poll()


def query_viewer_has_closed(viewer):
    if not isinstance(viewer, HeadlessViewer):
        raise GymlikeTypeError(f"query_viewer_has_closed: expected a Viewer handle from create_viewer, "
                               f"got {type(viewer).__name__}")
    return bool(viewer.destroyed or viewer.has_closed())


def query_viewer_action_events(viewer):
    return viewer_of(viewer, "query_viewer_action_events").take_events()


def subscribe_viewer_keyboard_event(viewer, key, action):
    what = "subscribe_viewer_keyboard_event"
    v = viewer_of(viewer, what)
    v.key_actions.setdefault(keyboard_input(key, what), []).append(action_name(action, what))


def subscribe_viewer_mouse_event(viewer, button, action):
    what = "subscribe_viewer_mouse_event"
    v = viewer_of(viewer, what)
    v.mouse_actions.setdefault(mouse_input(button, what), []).append(action_name(action, what))


def viewer_camera_look_at(viewer, env, pos, target):
    what = "viewer_camera_look_at"
    v = viewer_of(viewer, what)
    origin = _env_origin(v, env, what)
    p, t = finite_vec3(pos, f"{what}: camera position") + origin, finite_vec3(target, f"{what}: target") + origin
    if np.linalg.norm(t - p) < 1e-9:
        raise GymlikeValueError(f"{what}: camera position and target coincide ({pos})")
    v.look_at(p, t)


def get_viewer_camera_transform(viewer, env):
    what = "get_viewer_camera_transform"
    v = viewer_of(viewer, what)
    origin = _env_origin(v, env, what)
    pos, forward = v.camera_pose()
    return camera_transform(pos - origin, forward, _up_vector(v.sim))


def get_viewer_size(viewer):
    return Int2(*viewer_of(viewer, "get_viewer_size").size())


def get_viewer_mouse_position(viewer):
    return Vec2(*viewer_of(viewer, "get_viewer_mouse_position").mouse)


def add_lines(viewer, env, num_lines, vertices, colors):
    what = "add_lines"
    v = viewer_of(viewer, what)
    origin = _env_origin(v, env, what)
    if isinstance(num_lines, bool) or not isinstance(num_lines, (int, np.integer)) or num_lines < 0:
        raise GymlikeValueError(f"{what}: num_lines must be a non-negative int, got {num_lines!r}")
    n = int(num_lines)
    if n == 0:
        return
    pts = _points(vertices, 2 * n, what, "vertices").reshape(n, 2, 3)
    cols = _points(colors, n, what, "colors")
    shift = origin.astype(np.float32)
    v.add_lines(pts[:, 0] + shift, pts[:, 1] + shift, cols.copy())


def clear_lines(viewer):
    viewer_of(viewer, "clear_lines").clear_lines()


def draw_env_rigid_contacts(viewer, env, color, scale, flag):
    what = "draw_env_rigid_contacts"
    v = viewer_of(viewer, what)
    if env is None:
        raise GymlikeTypeError(f"{what}: expected an Env handle, got None")
    _env_origin(v, env, what)
    finite_vec3(color, f"{what}: color")
    v.draw_contacts(env, color, number(scale, f"{what}: scale"), bool(flag))


def step_graphics(sim):
    sim_for_graphics(sim, "step_graphics")      # graphics read the live Newton state: nothing to copy


def draw_env_soft_contacts(viewer, env, color, scale, flag):
    what = "draw_env_soft_contacts"
    v = viewer_of(viewer, what)
    if env is not None:
        _env_origin(v, env, what)      # validated; there are no soft bodies, so nothing to draw
