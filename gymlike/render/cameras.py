"""Isaac Gym camera sensors, body colors, textures and lights on Newton's ray-traced SensorCamera.

Conventions (python_bindings_docs/cameras.md has the full table):

* Camera frame: Isaac Gym's, the one the viewer camera uses: the camera looks along its local +X,
  +Z is up, +Y points left. Newton's camera looks along -Z with +Y up and +X right;
  `_IG_TO_NEWTON` turns one into the other.
* `set_camera_location` / `set_camera_transform` / `get_camera_transform` are in the env frame,
  `attach_camera_to_body` in the body frame (FOLLOW_TRANSFORM) or as a world offset from the
  body's position with a fixed orientation (FOLLOW_POSITION).
* `get_camera_view_matrix`: row-vector convention (p_view = [p_sim, 1] @ V), sim frame (env
  origins included), OpenGL view space (x right, y up, looking along -z).
  `get_camera_proj_matrix`: row-vector reverse-Z infinite perspective, P[0,0] = 1/tan(hfov/2),
  P[1,1] = P[0,0] * width/height, P[2,3] = -1, P[3,2] = near_plane.
* Images: IMAGE_COLOR (H, W*4) uint8 RGBA (torch tensor (H, W, 4)); IMAGE_DEPTH (H, W) float32,
  minus the distance along the view axis, -inf where nothing is hit within far_plane;
  IMAGE_SEGMENTATION (H, W) int32 segmentation ids (0 where nothing is hit).
* A camera sees its env's actors plus the shared ground and terrain (Newton world -1).

Layout: cameras are rendered in groups of equal image size, field of view and geometry choice
(one `SensorCamera.update` per group, every camera of a group in one launch). A group's buffers
never move once made (image tensors handed out stay valid); cameras created later form new
groups, destroyed cameras are skipped.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..core.enums import CameraFollowMode, ImageType
from ..core.errors import (GymlikeFileNotFoundError, GymlikeIndexError, GymlikeNotImplementedError,
                           GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError)
from ..core import math3d, upstream
from ..core.runtime import newton as _newton, wp as _wp, call_name
from ..core.sim import Env
from ..core.types import CameraProperties, Transform, coerce, finite_vec3, number
from ..core.errors import warn

# Newton camera axes (x right, y up, z backward) expressed in Isaac Gym's camera frame
# (x forward, y left, z up): right = -y, up = +z, backward = -x.
_IG_TO_NEWTON = math3d.quat_from_matrix(np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))


# ============================================================================ validation
def _transform(t, what, name):
    t = coerce(Transform, t, f"{what}: {name}")
    p = np.array([t.p.x, t.p.y, t.p.z], np.float64)
    q = np.array([t.r.x, t.r.y, t.r.z, t.r.w], np.float64)
    if not (np.isfinite(p).all() and np.isfinite(q).all()):
        raise GymlikeValueError(f"{what}: {name} must be finite, got {t}")
    n = np.linalg.norm(q)
    if n < 1e-6:
        raise GymlikeValueError(f"{what}: {name}.r is a zero quaternion")
    return p, q / n


def _props(props, what):
    if not isinstance(props, CameraProperties):
        raise GymlikeTypeError(f"{what}: expected gymapi.CameraProperties, got {type(props).__name__}")
    out = {}
    for name in ("width", "height", "supersampling_horizontal", "supersampling_vertical"):
        v = getattr(props, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise GymlikeValueError(f"{what}: CameraProperties.{name} must be an int >= 1, got {v!r}")
        out[name] = int(v)
    if out["width"] * out["height"] > 16384 * 16384:
        raise GymlikeValueError(f"{what}: a {out['width']}x{out['height']} image is too large")
    fov = number(props.horizontal_fov, f"{what}: CameraProperties.horizontal_fov")
    if not 0.0 < fov < 180.0:
        raise GymlikeValueError(f"{what}: CameraProperties.horizontal_fov must be in (0, 180) degrees, got {fov}")
    near = number(props.near_plane, f"{what}: CameraProperties.near_plane")
    far = number(props.far_plane, f"{what}: CameraProperties.far_plane")
    if not (0.0 < near < far) or not math.isfinite(far):
        raise GymlikeValueError(f"{what}: CameraProperties needs 0 < near_plane < far_plane (finite), "
                                f"got near {near}, far {far}")
    out.update(horizontal_fov=fov, near_plane=near, far_plane=far,
               enable_tensors=bool(props.enable_tensors),
               use_collision_geometry=bool(props.use_collision_geometry))
    return out


def _image_type(t, what):
    try:
        t = ImageType(int(t))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: unknown image type {t!r}; expected IMAGE_COLOR, IMAGE_DEPTH, "
                                "IMAGE_SEGMENTATION or IMAGE_OPTICAL_FLOW") from None
    if t == ImageType.IMAGE_OPTICAL_FLOW:
        raise GymlikeNotImplementedError(f"{what}: IMAGE_OPTICAL_FLOW is not implemented in gymlike yet "
                                         "(Newton's ray tracer gives color, depth and shape ids only)")
    return t


# ============================================================================ cameras
class Camera:
    """One camera sensor. `local` is the camera pose in Isaac Gym's camera frame: in the env
    frame when `body` < 0, else relative to that body (env-domain body handle)."""

    def __init__(self, env, handle, props):
        self.env, self.handle = env, handle
        self.props = props
        self.p = np.zeros(3)
        self.q = np.array([0.0, 0.0, 0.0, 1.0])
        self.body = -1
        self.mode = int(CameraFollowMode.FOLLOW_TRANSFORM)
        self.destroyed = False
        self.group = None               # (group, row) once laid out

    @property
    def key(self):
        p = self.props
        return (p["width"], p["height"], p["horizontal_fov"], p["use_collision_geometry"],
                p["supersampling_horizontal"] * p["supersampling_vertical"])


class _Group:
    """Cameras rendered together (same image size, field of view, geometry, sampling)."""

    def __init__(self, system, cams):
        wp = _wp()
        sim = system.sim
        dev = sim.device
        self.cams = cams
        p = cams[0].props
        self.width, self.height = p["width"], p["height"]
        self.collision = p["use_collision_geometry"]
        self.samples = p["supersampling_horizontal"] * p["supersampling_vertical"]
        n = len(cams)
        hfov = math.radians(p["horizontal_fov"])
        vfov = 2.0 * math.atan(math.tan(0.5 * hfov) * self.height / self.width)
        from newton.sensors import SensorCamera
        self.rays = SensorCamera.compute_camera_rays_pinhole(self.width, self.height, camera_fov=vfov,
                                                             sample_count=self.samples, device=dev)
        self.body = wp.zeros(n, dtype=wp.int32, device=dev)
        self.local = wp.zeros(n, dtype=wp.transform, device=dev)
        self.origin = wp.zeros(n, dtype=wp.vec3, device=dev)
        self.mode = wp.zeros(n, dtype=wp.int32, device=dev)
        self.worlds = wp.zeros(n, dtype=wp.int32, device=dev)
        self.far = wp.array([c.props["far_plane"] for c in cams], dtype=wp.float32, device=dev)
        self.xforms = wp.zeros(n, dtype=wp.transform, device=dev)
        shape = (n, self.height, self.width)
        self.color = wp.zeros(shape, dtype=wp.uint32, device=dev)
        self.fdepth = wp.zeros(shape, dtype=wp.float32, device=dev)
        self.shape = wp.zeros(shape, dtype=wp.uint32, device=dev)
        self.depth = wp.full(shape, -np.inf, dtype=wp.float32, device=dev)
        self.seg = wp.zeros(shape, dtype=wp.int32, device=dev)
        for row, c in enumerate(cams):
            c.group = (self, row)
        self.dirty = True

    def upload(self, system):
        """Camera placements -> device arrays (only after a set/attach/destroy)."""
        wp = _wp()
        sim = system.sim
        body, local, origin, mode, worlds = [], [], [], [], []
        for c in self.cams:
            q = math3d.quat_mul(c.q, _IG_TO_NEWTON)
            local.append(wp.transform(wp.vec3(*c.p), wp.quat(*q)))
            b = -1 if c.body < 0 else sim.env_start(c.env, "body") + c.body
            body.append(b)
            origin.append(wp.vec3(*c.env.origin))
            mode.append(c.mode)
            worlds.append(int(_world_flag("DISABLE_PRESERVE")) if c.destroyed else
                          0 if sim.one_world else c.env.index)   # one Newton world per env otherwise
        self.body.assign(np.array(body, np.int32))
        self.local.assign(local)
        self.origin.assign(origin)
        self.mode.assign(np.array(mode, np.int32))
        self.worlds.assign(np.array(worlds, np.int32))
        self.dirty = False

    def active(self):
        return any(not c.destroyed for c in self.cams)


def _world_flag(name):
    from newton.sensors import SensorCamera
    return getattr(SensorCamera.WorldRenderFlag, name)


# Handles of viewer cameras (get_viewer_camera_handle): far above any env's camera count.
_VIEWER_HANDLE_BASE = 1 << 24


class ViewerCamera:
    """The viewer's camera through the camera-sensor calls, bound to the env a call names:
    its image is the viewer's picture of every env, its pose the viewer camera's."""

    def __init__(self, viewer, handle, env):
        self.viewer, self.handle, self.env = viewer, handle, env
        self.body, self.destroyed = -1, False

    @property
    def props(self):
        w, h = _viewer_image_size(self.viewer)
        return dict(width=w, height=h, horizontal_fov=float(self.viewer.horizontal_fov), near_plane=0.01,
                    far_plane=math.inf, enable_tensors=False)


class CameraSystem:
    """The sim's cameras, textures, body looks and light (`sim.component("cameras", ...)`)."""

    def __init__(self, sim):
        self.sim = sim
        self.cams = {}                  # env index -> [Camera]
        self.groups = []
        self.sensor = None
        self.textures = {}              # handle -> (H, W, 4) uint8 RGBA
        self.next_texture = 0
        self.body_textures = {}         # (env index, actor handle, body, kind) -> texture handle
        self.textures_dirty = False
        self.light = None               # (intensity, ambient, direction) of light 0
        self.shape_seg = None
        self.frames_rendered = 0
        self.viewers = []               # viewers whose camera got a handle (get_viewer_camera_handle)

    # ---- cameras
    def create(self, env, props):
        props = _props(props, "create_camera_sensor")
        cams = self.cams.setdefault(env.index, [])
        cam = Camera(env, len(cams), props)
        up = np.array([0.0, 1.0, 0.0]) if _y_up(self.sim) else np.array([0.0, 0.0, 1.0])
        # Isaac Gym's default placement: 1 m back and up from the env origin, looking at it
        cam.p, cam.q = _look_at(np.array([-1.0, 0.0, 0.0]) + up, np.zeros(3), up)
        cams.append(cam)
        return cam.handle

    def viewer_handle(self, viewer):
        if viewer not in self.viewers:
            self.viewers.append(viewer)
        return _VIEWER_HANDLE_BASE + self.viewers.index(viewer)

    def camera(self, env, handle, what):
        if isinstance(handle, bool) or not isinstance(handle, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: expected an int camera handle, got {type(handle).__name__}")
        k = int(handle) - _VIEWER_HANDLE_BASE
        if 0 <= k < len(self.viewers):
            viewer = self.viewers[k]
            if viewer.destroyed:
                raise GymlikeRuntimeError(f"{what}: the viewer of camera handle {handle} was destroyed")
            return ViewerCamera(viewer, int(handle), env)
        cams = self.cams.get(env.index, [])
        if not 0 <= handle < len(cams):
            raise GymlikeIndexError(f"{what}: camera handle {handle} out of range: env {env.index} has "
                                    f"{len(cams)} camera sensor(s)")
        cam = cams[handle]
        if cam.destroyed:
            raise GymlikeRuntimeError(f"{what}: camera {handle} of env {env.index} was destroyed")
        return cam

    def _moved(self, cam):
        if cam.group is not None:
            cam.group[0].dirty = True

    def set_location(self, cam, pos, target):
        pos = finite_vec3(pos, "set_camera_location: position")
        target = finite_vec3(target, "set_camera_location: target")
        if np.linalg.norm(target - pos) < 1e-9:
            raise GymlikeValueError("set_camera_location: position and target coincide")
        if isinstance(cam, ViewerCamera):
            cam.viewer.look_at(pos + cam.env.origin, target + cam.env.origin)
            return
        up = np.array([0.0, 1.0, 0.0]) if _y_up(self.sim) else np.array([0.0, 0.0, 1.0])
        cam.p, cam.q = _look_at(pos, target, up)
        cam.body = -1
        self._moved(cam)

    def set_transform(self, cam, transform):
        p, q = _transform(transform, "set_camera_transform", "transform")
        if isinstance(cam, ViewerCamera):                 # look along the transform's +X
            p = p + cam.env.origin
            cam.viewer.look_at(p, p + math3d.quat_rotate(q, [1.0, 0.0, 0.0]))
            return
        cam.p, cam.q = p, q             # an attached camera stays attached: relative to its body
        self._moved(cam)

    def attach(self, cam, body, transform, mode):
        what = "attach_camera_to_body"
        if isinstance(cam, ViewerCamera):
            raise GymlikeValueError(f"{what}: the viewer camera cannot be attached to a body; create a "
                                    "camera sensor for that")
        if isinstance(body, bool) or not isinstance(body, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: expected an int rigid body handle, got {type(body).__name__}")
        if not 0 <= body < cam.env.body_count:
            raise GymlikeIndexError(f"{what}: rigid body handle {body} out of range: env {cam.env.index} has "
                                    f"{cam.env.body_count} rigid bodies")
        p, q = _transform(transform, what, "transform")
        try:
            mode = int(CameraFollowMode(int(mode)))
        except (TypeError, ValueError):
            raise GymlikeValueError(f"{what}: follow mode must be FOLLOW_POSITION or FOLLOW_TRANSFORM, "
                                    f"got {mode!r}") from None
        cam.p, cam.q, cam.body, cam.mode = p, q, int(body), mode
        self._moved(cam)

    def destroy(self, cam):
        if isinstance(cam, ViewerCamera):
            raise GymlikeValueError("destroy_camera_sensor: the viewer camera is not a camera sensor "
                                    "(destroy the viewer instead)")
        cam.destroyed = True
        self._moved(cam)

    def world_pose(self, cam):
        """Camera pose in the sim frame, Isaac Gym camera frame: (p, q)."""
        if isinstance(cam, ViewerCamera):
            return _viewer_pose(cam.viewer)
        if cam.body < 0:
            return cam.p + cam.env.origin, cam.q
        sim = self.sim
        sim.ensure_ready("camera transform of an attached camera")
        b = sim.env_start(cam.env, "body") + cam.body
        X = sim.state.body_q.numpy()[b].astype(np.float64)
        bp, bq = X[:3], X[3:]
        if cam.mode == int(CameraFollowMode.FOLLOW_POSITION):
            return bp + cam.p, cam.q
        return bp + math3d.quat_rotate(bq, cam.p), math3d.quat_mul(bq, cam.q)

    def view_matrix(self, cam):
        p, q = self.world_pose(cam)
        qn = math3d.quat_mul(q, _IG_TO_NEWTON)             # OpenGL camera frame in the sim frame
        R = math3d.quat_to_matrix(qn)
        M = np.eye(4)
        M[:3, :3] = R.T
        M[:3, 3] = -R.T @ p                      # world -> camera, column-vector form
        return M.T.astype(np.float32)            # row-vector form, as Isaac Gym returns it

    @staticmethod
    def proj_matrix(cam):
        pr = cam.props
        f = 1.0 / math.tan(0.5 * math.radians(pr["horizontal_fov"]))
        P = np.zeros((4, 4), np.float32)
        P[0, 0] = f
        P[1, 1] = f * pr["width"] / pr["height"]
        P[2, 3] = -1.0
        P[3, 2] = pr["near_plane"]
        return P

    # ---- rendering
    def _layout(self):
        """Groups for the cameras not in one yet (existing groups never move)."""
        new = [c for cams in self.cams.values() for c in cams if c.group is None and not c.destroyed]
        by_key = {}
        for c in new:
            by_key.setdefault(c.key, []).append(c)
        for cams in by_key.values():
            self.groups.append(_Group(self, cams))

    def buffers(self, cam, what):
        """(group, row) of a camera, laying it out if needed (the model need not exist yet:
        Isaac Gym code takes image tensors while it creates envs)."""
        if cam.group is None:
            self._layout()
        return cam.group

    def _ensure_sensor(self):
        if self.sensor is not None:
            return
        from newton.sensors import SensorCamera
        sim = self.sim
        warn_without_visuals(sim, "the camera sensors")
        if sim.one_world:
            warn("gymlike: this sim keeps all envs in one Newton world (group -1 actors or "
                 "different envs on SIM_PHYSX), so its cameras see every env's actors",
                 RuntimeWarning)
        try:
            self.sensor = SensorCamera(sim.model)
        except ValueError as e:           # a mesh texture file that cannot be read
            warn(f"gymlike: camera sensors render without mesh textures: {e}", RuntimeWarning)
            self.sensor = SensorCamera(sim.model, load_textures=False)
        # nothing hit: opaque black (packed RGBA, little endian), as an image tensor wants it
        self.sensor.default_clear_data = SensorCamera.ClearData(clear_color=-(1 << 24))   # 0xFF000000 as int32
        self.config = SensorCamera.RenderConfig(max_distance=1.0e6)
        self.config_textured = SensorCamera.RenderConfig(max_distance=1.0e6, enable_textures=True)
        self._apply_light()
        self._shape_segmentation()
        sources, ids = upstream.texture_table(self.sensor)
        self._base_texture_ids, self._base_texture_count = ids.copy(), len(sources)

    def _shape_segmentation(self):
        """Segmentation id of every Newton shape: its body's id, or its ground/terrain's."""
        wp = _wp()
        sim = self.sim
        h = sim.host
        seg = np.zeros(sim.model.shape_count, np.int32)
        shape_body = sim.model.shape_body.numpy()
        body_seg = np.zeros(h.num_bodies, np.int32)
        for a, b0 in zip(sim.all_actors(), h.actor_body0):
            ids = [body_segmentation_id(a, i) for i in range(a.asset.body_count)]
            body_seg[int(b0):int(b0) + len(ids)] = ids
        has = shape_body >= 0
        seg[has] = body_seg[shape_body[has]]
        for s, sid in getattr(h, "static_shape_seg", {}).items():
            seg[s] = sid
        self.shape_seg = wp.array(seg, dtype=wp.int32, device=sim.device)

    def segmentation_changed(self):
        if self.sensor is not None:
            self._shape_segmentation()

    def render(self):
        wp = _wp()
        from . import camera_kernels
        sim = self.sim
        sim.ensure_ready("render_all_camera_sensors")
        self._layout()
        groups = [g for g in self.groups if g.active()]
        if not groups:
            return
        self._ensure_sensor()
        if self.textures_dirty:
            self._upload_textures()
        model, state = sim.model, sim.state
        newton = _newton()
        mask = None
        for g in groups:
            if g.dirty:
                g.upload(self)
            want = newton.ShapeFlags.COLLIDE_SHAPES if g.collision else newton.ShapeFlags.VISIBLE
            if mask != want:
                if mask is not None or g.collision:
                    model.bvh_build_shapes(state, shape_flags=want)
                else:
                    model.bvh_refit_shapes(state)
                mask = want
            wp.launch(camera_kernels.camera_poses, dim=len(g.cams),
                      inputs=[state.body_q, g.body, g.local, g.origin, g.mode], outputs=[g.xforms], device=sim.device)
            config = self.config_textured if self.textured else self.config
            if g.samples > 1:
                import dataclasses
                from newton.sensors import SensorCamera
                config = dataclasses.replace(config, anti_aliasing=SensorCamera.AntiAliasing.SSAA)
            self.sensor.update(state, g.xforms, g.rays, color_image=g.color, forward_depth_image=g.fdepth,
                               shape_index_image=g.shape, world_indices=g.worlds, render_config=config)
            wp.launch(camera_kernels.isaac_images, dim=(len(g.cams), g.height, g.width),
                      inputs=[g.fdepth, g.shape, self.shape_seg, g.far], outputs=[g.depth, g.seg],
                      device=sim.device)
        if mask is not None and mask != newton.ShapeFlags.VISIBLE:
            model.bvh_build_shapes(state)          # back to what the viewer and others expect
        self.frames_rendered += 1

    # ---- images
    def image(self, cam, image_type, what=None):
        what = what or call_name()
        t = _image_type(image_type, what)
        if isinstance(cam, ViewerCamera):                 # rendered now, at the viewer's size
            shot = _viewer_shot(cam.viewer)
            if t == ImageType.IMAGE_COLOR:
                return shot.out.numpy().view(np.uint8).reshape(shot.height, shot.width * 4).copy()
            return (shot.depth if t == ImageType.IMAGE_DEPTH else shot.seg).numpy()[0].copy()
        g, row = self.buffers(cam, what)
        # copies (on the CPU .numpy() is a view, and Isaac Gym code edits the images it gets)
        if t == ImageType.IMAGE_COLOR:
            return g.color.numpy()[row].view(np.uint8).reshape(g.height, g.width * 4).copy()
        if t == ImageType.IMAGE_DEPTH:
            return g.depth.numpy()[row].copy()
        return g.seg.numpy()[row].copy()

    def tensor(self, cam, image_type, what=None):
        wp = _wp()
        what = what or call_name()
        import torch
        t = _image_type(image_type, what)
        if isinstance(cam, ViewerCamera):
            raise GymlikeNotImplementedError(f"{what}: the viewer camera has no image tensor in gymlike; "
                                             "use get_camera_image, or a camera sensor with enable_tensors")
        if not cam.props["enable_tensors"]:
            raise GymlikeValueError(f"{what}: camera {cam.handle} of env {cam.env.index} was created with "
                                    "CameraProperties.enable_tensors = False; set it to True before "
                                    "create_camera_sensor to get image tensors")
        g, row = self.buffers(cam, what)
        if t == ImageType.IMAGE_COLOR:
            return wp.to_torch(g.color)[row].view(torch.uint8).view(g.height, g.width, 4)
        if t == ImageType.IMAGE_DEPTH:
            return wp.to_torch(g.depth)[row]
        return wp.to_torch(g.seg)[row]

    def write_png(self, cam, image_type, filename, what=None):
        what = what or call_name()
        from PIL import Image
        t = _image_type(image_type, what)
        img = self.image(cam, t, what)
        if t == ImageType.IMAGE_COLOR:
            pil = Image.fromarray(img.reshape(img.shape[0], -1, 4), "RGBA")
        elif t == ImageType.IMAGE_DEPTH:
            # 8-bit grey, inverse depth: the nearest point white, twice as far half as bright,
            # nothing hit black (a ground plane reaching the horizon would flatten a linear scale)
            hit = np.isfinite(img)
            d = -img[hit]
            out = np.zeros(img.shape, np.uint8)
            if d.size:
                out[hit] = np.clip(255.0 * max(float(d.min()), 1e-6) / np.maximum(d, 1e-6), 1, 255).astype(np.uint8)
            pil = Image.fromarray(out, "L")
        else:
            pil = Image.fromarray(np.clip(img, 0, 65535).astype(np.uint16))
        try:
            pil.save(os.fspath(filename), format="PNG")
        except (OSError, ValueError) as e:
            raise GymlikeRuntimeError(f"{what}: cannot write '{filename}': {e}") from e

    # ---- looks: textures, colors, light
    def add_texture(self, rgba):
        handle = self.next_texture
        self.next_texture += 1
        self.textures[handle] = np.ascontiguousarray(rgba, np.uint8)
        return handle

    def texture(self, handle, what):
        if isinstance(handle, bool) or not isinstance(handle, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: expected an int texture handle, got {type(handle).__name__}")
        if int(handle) not in self.textures:
            raise GymlikeValueError(f"{what}: texture handle {handle} is not a live texture of this sim")
        return int(handle)

    def free_texture(self, handle):
        handle = self.texture(handle, "free_texture")
        del self.textures[handle]
        for key in [k for k, v in self.body_textures.items() if v == handle]:
            del self.body_textures[key]
        self.textures_dirty = True

    def set_body_texture(self, actor, body, kinds, handle):
        for k in kinds:
            key = (actor.env.index, actor.handle, body, k)
            if handle is None:
                self.body_textures.pop(key, None)
            else:
                self.body_textures[key] = handle
        self.textures_dirty = True

    def body_texture(self, actor, body, kind):
        return self.body_textures.get((actor.env.index, actor.handle, body, kind), -1)

    @property
    def textured(self):
        return bool(self.body_textures)

    def _upload_textures(self):
        """Body textures -> the renderer's per-shape texture table (Newton's SensorCamera has no
        public call for it; this mirrors what its assign_checkerboard_material does)."""
        wp = _wp()
        sources = list(upstream.texture_table(self.sensor)[0][:self._base_texture_count])
        ids = self._base_texture_ids.copy()
        slot = {}
        sim = self.sim
        for (env_i, actor_h, body, kind), handle in self.body_textures.items():
            actor = sim.envs[env_i].actors[actor_h]
            shapes = shapes_of_body(sim, actor, body, kind)
            if not len(shapes):
                continue
            if handle not in slot:
                texture = wp.Texture2D(self.textures[handle], filter_mode=wp.TextureFilterMode.LINEAR,
                                       address_mode=wp.TextureAddressMode.WRAP, normalized_coords=True,
                                       dtype=wp.uint8, num_channels=4, device=sim.device)
                slot[handle] = len(sources)
                sources.append(upstream.texture_data(texture))
            ids[shapes] = slot[handle]
        upstream.set_texture_table(self.sensor, sources, ids, sim.device)
        self.textures_dirty = False

    def set_light(self, index, intensity, ambient, direction):
        what = "set_light_parameters"
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
            raise GymlikeValueError(f"{what}: light index must be an int >= 0, got {index!r}")
        i = finite_vec3(intensity, f"{what}: intensity")
        a = finite_vec3(ambient, f"{what}: ambient")
        d = finite_vec3(direction, f"{what}: direction")
        if np.linalg.norm(d) < 1e-9:
            raise GymlikeValueError(f"{what}: direction must not be zero")
        if index != 0:
            _warn_once("light", "gymlike: only light 0 is rendered (Newton's camera has one directional "
                       "light); set_light_parameters for other indices is accepted and ignored")
            return
        self.light = (i, a, d / np.linalg.norm(d))
        self._apply_light()

    def _apply_light(self):
        wp = _wp()
        if self.sensor is None:
            return
        if self.light is None:
            self.sensor.create_default_light(enable_shadows=False)
            return
        i, a, d = self.light
        self.sensor.create_default_light(enable_shadows=False, direction=wp.vec3(*d), color=wp.vec3(*i))
        self.sensor.set_ambient_light(wp.vec3(*a))


_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warn(message, RuntimeWarning)


def warn_without_visuals(sim, what):
    """Once per process: this sim's model was built without visual geometry (Sim.wants_visuals),
    so what is drawn is its collision shapes."""
    if sim.visuals is False and any(a.drops_visuals for a in sim.assets):
        why = ("graphics_device_id is -1: Isaac Gym renders nothing then" if sim.graphics_device_id < 0
               else "it was built in a headless run without camera sensors")
        _warn_once("visuals", f"gymlike: {what}: the sim's visual meshes were not loaded ({why}); "
                   "collision shapes are drawn instead")


def _y_up(sim):
    from ..core.enums import UpAxis
    return sim.params.up_axis == UpAxis.UP_AXIS_Y


def _look_at(pos, target, up):
    pos = np.asarray(pos, np.float64)
    return pos, math3d.quat_look_along(np.asarray(target, np.float64) - pos, up)


def body_segmentation_id(actor, body):
    """The segmentation id of a body: set per body, else the actor's segmentationId."""
    return int(actor.body_segmentation.get(int(body), actor.segmentation_id))


def shapes_of_body(sim, actor, body, kind):
    """Newton shape indices of one body of an actor: kind 1 (MESH_COLLISION) = colliding shapes,
    2 (MESH_VISUAL) = visible shapes."""
    newton = _newton()
    h = sim.host
    nb = int(h.actor_body0[actor.sim_index]) + int(body)
    model = sim.model
    shape_body = _cached(sim, "shape_body", lambda: model.shape_body.numpy())
    flags = _cached(sim, "shape_flags", lambda: model.shape_flags.numpy())
    bit = int(newton.ShapeFlags.COLLIDE_SHAPES if kind == 1 else newton.ShapeFlags.VISIBLE)
    return np.nonzero((shape_body == nb) & ((flags & bit) != 0))[0]


def _cached(sim, name, make):
    """Host copies of model arrays that never change once the model is built."""
    cache = sim.component("render_cache", dict)
    if cache.get("model") is not sim.model:
        cache.clear()
        cache["model"] = sim.model
    if name not in cache:
        cache[name] = make()
    return cache[name]


# ============================================================================ public entry points
def system(sim):
    return sim.component("cameras", lambda: CameraSystem(sim))


def env_check(sim, env, what=None):
    what = what or call_name()
    if not isinstance(env, Env):
        raise GymlikeTypeError(f"{what}: expected an Env handle, got {type(env).__name__}")
    if sim is not None and env.sim is not sim:
        raise GymlikeValueError(f"{what}: env {env.index} belongs to sim {env.sim.id}, not to sim {sim.id}")
    env.sim.check_alive()
    return env


def load_texture_file(sim, filename, what="create_texture_from_file"):
    from PIL import Image, UnidentifiedImageError
    if not isinstance(filename, (str, os.PathLike)):
        raise GymlikeTypeError(f"{what}: filename must be a str path, got {type(filename).__name__}")
    path = os.fspath(filename)
    if not os.path.isfile(path):
        raise GymlikeFileNotFoundError(f"{what}: texture file '{path}' not found (cwd {os.getcwd()})")
    try:
        with Image.open(path) as im:
            rgba = np.asarray(im.convert("RGBA"))
    except (UnidentifiedImageError, OSError) as e:
        raise GymlikeValueError(f"{what}: '{path}' is not an image file Pillow can read: {e}") from None
    return system(sim).add_texture(rgba)


def texture_from_buffer(sim, width, height, data, what="create_texture_from_buffer"):
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise GymlikeValueError(f"{what}: {name} must be an int >= 1, got {v!r}")
    a = np.asarray(data)
    if a.dtype != np.uint8:
        raise GymlikeTypeError(f"{what}: the buffer must be uint8 RGBA, got dtype {a.dtype}")
    if a.size != width * height * 4:
        raise GymlikeValueError(f"{what}: a {width}x{height} RGBA texture needs {width * height * 4} bytes, "
                                f"the buffer holds {a.size} (shape {a.shape})")
    return system(sim).add_texture(a.reshape(height, width, 4))



# ============================================================================ viewer images and recording
# A headless viewer has no picture of its own: its images are ray traced from the viewer camera,
# one view per env (each env is its own Newton world) composited by depth.
_VIEWER_MAX_WIDTH = 960


class _ViewerShot:
    def __init__(self, sim, width, height, hfov, views):
        wp = _wp()
        from newton.sensors import SensorCamera
        dev = sim.device
        vfov = 2.0 * math.atan(math.tan(0.5 * math.radians(hfov)) * height / width)
        self.key = (width, height, hfov, views)
        self.width, self.height = width, height
        self.rays = SensorCamera.compute_camera_rays_pinhole(width, height, camera_fov=vfov, device=dev)
        self.worlds = wp.array(np.arange(views, dtype=np.int32), dtype=wp.int32, device=dev)
        self.xforms = wp.zeros(views, dtype=wp.transform, device=dev)
        self.color = wp.zeros((views, height, width), dtype=wp.uint32, device=dev)
        self.fdepth = wp.zeros((views, height, width), dtype=wp.float32, device=dev)
        self.shape = wp.zeros((views, height, width), dtype=wp.uint32, device=dev)
        self.out = wp.zeros((height, width), dtype=wp.uint32, device=dev)
        # the composite as one camera view: Newton depth and shape, then Isaac Gym depth and ids
        self.out_fdepth = wp.zeros((1, height, width), dtype=wp.float32, device=dev)
        self.out_shape = wp.zeros((1, height, width), dtype=wp.uint32, device=dev)
        self.depth = wp.zeros((1, height, width), dtype=wp.float32, device=dev)
        self.seg = wp.zeros((1, height, width), dtype=wp.int32, device=dev)
        self.far = wp.array([1.0e30], dtype=wp.float32, device=dev)


def _viewer_shot(viewer):
    """Ray trace the whole sim from the viewer's camera (at most _VIEWER_MAX_WIDTH pixels wide)."""
    wp = _wp()
    from . import camera_kernels
    sim = viewer.sim
    sim.ensure_ready("viewer image")
    cams = system(sim)
    cams._ensure_sensor()
    if cams.textures_dirty:
        cams._upload_textures()
    w, h = _viewer_image_size(viewer)
    views = 1 if sim.one_world else max(1, int(sim.model.world_count))
    shot = getattr(viewer, "_shot", None)
    key = (w, h, float(viewer.horizontal_fov), views)
    if shot is None or shot.key != key:
        shot = viewer._shot = _ViewerShot(sim, w, h, float(viewer.horizontal_fov), views)
    p, q = _viewer_pose(viewer)
    q = math3d.quat_mul(q, _IG_TO_NEWTON)
    shot.xforms.fill_(wp.transform(wp.vec3(*p), wp.quat(*q)))
    sim.model.bvh_refit_shapes(sim.state)
    config = cams.config_textured if cams.textured else cams.config
    cams.sensor.update(sim.state, shot.xforms, shot.rays, color_image=shot.color, forward_depth_image=shot.fdepth,
                       shape_index_image=shot.shape, world_indices=shot.worlds, render_config=config)
    sky = np.array([int(0.45 * 255), int(0.5 * 255), int(0.58 * 255), 255], np.uint8).view(np.uint32)[0]
    wp.launch(camera_kernels.composite, dim=(h, w), inputs=[shot.color, shot.fdepth, shot.shape, wp.uint32(int(sky))],
              outputs=[shot.out, shot.out_fdepth, shot.out_shape], device=sim.device)
    wp.launch(camera_kernels.isaac_images, dim=(1, h, w),
              inputs=[shot.out_fdepth, shot.out_shape, cams.shape_seg, shot.far], outputs=[shot.depth, shot.seg],
              device=sim.device)
    return shot


def _viewer_image_size(viewer):
    w, h = viewer.size()
    scale = min(1.0, _VIEWER_MAX_WIDTH / w)
    return max(1, int(round(w * scale))), max(1, int(round(h * scale)))


def _viewer_pose(viewer):
    """Viewer camera pose in the sim frame, Isaac Gym camera frame: (p, q)."""
    pos, forward = viewer.camera_pose()
    pos = np.asarray(pos, np.float64)
    up = np.array([0.0, 1.0, 0.0]) if _y_up(viewer.sim) else np.array([0.0, 0.0, 1.0])
    return _look_at(pos, pos + np.asarray(forward, np.float64), up)


def viewer_image(viewer):
    """(H, W, 4) uint8 RGBA picture of the whole sim from the viewer's camera."""
    shot = _viewer_shot(viewer)
    return shot.out.numpy().view(np.uint8).reshape(shot.height, shot.width, 4).copy()


def write_viewer_image(viewer, filename, what="write_viewer_image_to_file"):
    from PIL import Image
    img = viewer_image(viewer)
    try:
        Image.fromarray(img, "RGBA").save(os.fspath(filename), format="PNG")
    except (OSError, ValueError) as e:
        raise GymlikeRuntimeError(f"{what}: cannot write '{filename}': {e}") from e


class Recorder:
    """Frames of a viewer to a video file (.mp4, .gif, ... through imageio) or, for a path
    without a video extension, to numbered PNG files in that folder."""

    VIDEO = (".mp4", ".mkv", ".avi", ".mov", ".gif", ".webm")

    def __init__(self, path, fps):
        self.path = os.fspath(path)
        self.frames = 0
        self.writer = None
        if self.path.lower().endswith(self.VIDEO):
            try:
                import imageio.v2 as imageio
                self.writer = imageio.get_writer(self.path, fps=fps, macro_block_size=1) \
                    if not self.path.lower().endswith(".gif") else imageio.get_writer(self.path, duration=1.0 / fps)
            except ImportError as e:
                raise GymlikeRuntimeError(f"--record {self.path}: writing video needs imageio and imageio-ffmpeg "
                                          f"(pip install -e \".[video]\"): {e}") from None
        else:
            os.makedirs(self.path, exist_ok=True)

    def add(self, rgba):
        if self.writer is not None:
            self.writer.append_data(rgba[..., :3])
        else:
            from PIL import Image
            Image.fromarray(rgba, "RGBA").save(os.path.join(self.path, f"frame_{self.frames:05d}.png"))
        self.frames += 1

    def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None
