"""Strided rollouts of a scene (`simulate_scene`) and a top-down raster of it (`scene_to_raster`).

Both run on the scene's gymlike sim (the same model and tensors as the handle API): a rollout is
`gym.simulate` N times with the rigid body state tensor and Newton's joint coordinates copied
every `stride` steps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core.errors import GymlikeTypeError, GymlikeValueError


@dataclass
class RolloutResult:
    """`body_q` (frames, worlds, bodies per world, 7): position in the env's frame and quaternion
    xyzw; `joint_q` (frames, worlds, coordinates per world): Newton's generalized coordinates (a
    free root's 7 first); `steps` (frames,) the step count after which each frame was taken;
    `dt` seconds per step."""
    body_q: object
    joint_q: object
    steps: object
    stride: int
    dt: float

    @property
    def times(self):
        return self.steps.double() * self.dt


def _scene(scene, num_worlds):
    from .scene import Scene, load_scene
    if isinstance(scene, Scene):
        if num_worlds is not None and num_worlds != scene.num_worlds:
            raise GymlikeValueError(f"simulate_scene: num_worlds {num_worlds} given for a loaded scene of "
                                    f"{scene.num_worlds} worlds (reload it with load_scene(num_worlds=...))")
        return scene, False
    if isinstance(scene, (str, dict)) or hasattr(scene, "__fspath__"):
        return load_scene(scene, num_worlds=num_worlds), True
    raise GymlikeTypeError(f"simulate_scene: expected a Scene, a scene file or a mapping, got {type(scene).__name__}")


def _actions(actions, steps, W, D, device):
    """actions -> fn(step) giving DOF position targets (W, D) or None."""
    import torch
    if actions is None:
        return None
    if callable(actions):
        return actions
    a = torch.as_tensor(actions, dtype=torch.float32, device=device)
    if tuple(a.shape) == (W, D):
        return lambda i: a
    if tuple(a.shape) == (steps, W, D):
        return lambda i: a[i]
    raise GymlikeValueError(f"simulate_scene: actions must have shape ({W}, {D}) or ({steps}, {W}, {D}) "
                            f"(DOF position targets), got {tuple(a.shape)}")


def simulate_scene(scene, steps, stride=1, actions=None, *, num_worlds=None):
    """Step `scene` (a Scene, or a file/mapping loaded and closed here) `steps` times and return
    a RolloutResult with one frame after every `stride` steps (steps // stride frames).

    actions: DOF position targets, (worlds, DOFs) held throughout, (steps, worlds, DOFs) one
    row per step, or a callable step -> (worlds, DOFs)."""
    import torch
    from . import gymtorch
    for name, v, lo in (("steps", steps, 0), ("stride", stride, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise GymlikeValueError(f"simulate_scene: {name} must be an int >= {lo}, got {v!r}")
    sc, owned = _scene(scene, num_worlds)
    try:
        g, s = sc.gym, sc.sim
        g.prepare_sim(s)
        t = sc.tensors()
        W, D = sc.num_worlds, sc.dofs_per_world
        act = _actions(actions, steps, W, D, t["root"].device)
        targets = torch.zeros(W * D, dtype=torch.float32, device=t["root"].device)
        frames = steps // stride
        body_q = torch.empty((frames, W, sc.bodies_per_world, 7), dtype=torch.float32, device=t["root"].device)
        joint_q = torch.empty((frames, W, sc.coords_per_world), dtype=torch.float32, device=t["root"].device)
        k = 0
        for i in range(steps):
            if act is not None:
                a = torch.as_tensor(act(i), dtype=torch.float32, device=targets.device)
                if tuple(a.shape) != (W, D):
                    raise GymlikeValueError(f"simulate_scene: actions({i}) must have shape ({W}, {D}), got {tuple(a.shape)}")
                targets.copy_(a.reshape(-1))
                g.set_dof_position_target_tensor(s, gymtorch.unwrap_tensor(targets))
            g.simulate(s)
            if (i + 1) % stride == 0:
                g.refresh_rigid_body_state_tensor(s)
                body_q[k] = t["body_w"][..., :7]
                joint_q[k] = sc.joint_q()
                k += 1
        steps_t = torch.arange(1, frames + 1, dtype=torch.int64) * stride
        return RolloutResult(body_q=body_q, joint_q=joint_q, steps=steps_t, stride=int(stride), dt=float(sc.dt))
    finally:
        if owned:
            sc.close()


# ---------------------------------------------------------------------------- raster
def _sphere_points(n=12):
    """Points on the unit sphere (a latitude/longitude grid) whose hull stands in for round shapes."""
    th = np.linspace(0, np.pi, n)
    ph = np.linspace(0, 2 * np.pi, 2 * n, endpoint=False)
    t, p = np.meshgrid(th, ph)
    return np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)


def _circle(n=24):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([np.cos(a), np.sin(a), np.zeros(n)], -1)


def _local_points(gtype, scale, source, newton):
    """Points whose convex hull is the shape (exactly for boxes and meshes, closely for round ones)."""
    G = newton.GeoType
    sx, sy, sz = (float(v) for v in scale)
    if gtype == G.BOX:
        return np.array([[x, y, z] for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)])
    if gtype == G.SPHERE:
        return _sphere_points() * sx
    if gtype == G.ELLIPSOID:
        return _sphere_points() * np.array([sx, sy, sz])
    if gtype == G.CAPSULE:
        pts = _sphere_points() * sx
        return np.concatenate([pts + [0, 0, sy], pts - [0, 0, sy]])
    if gtype == G.CYLINDER:
        c = _circle() * sx
        return np.concatenate([c + [0, 0, sy], c - [0, 0, sy]])
    if gtype == G.CONE:
        return np.concatenate([_circle() * sx - [0, 0, sy], [[0, 0, sy]]])
    if gtype in (G.MESH, G.CONVEX_MESH) and source is not None:
        return np.asarray(source.vertices, np.float64) * np.array([sx, sy, sz])
    return None       # planes, heightfields: not bodies of a world


def _hull(p):
    """Convex hull of 2-D points, counter-clockwise (Andrew's monotone chain)."""
    p = np.unique(np.round(p, 9), axis=0)
    if len(p) < 3:
        return p
    p = p[np.lexsort((p[:, 1], p[:, 0]))]

    def turn(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(points):
        h = []
        for q in points:
            while len(h) >= 2 and turn(h[-2], h[-1], q) <= 0:
                h.pop()
            h.append(q)
        return h
    lower, upper = half(p), half(p[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _inside(hull, x, y):
    """Pixels (x, y grids) inside a counter-clockwise convex polygon."""
    if len(hull) < 3:
        return np.zeros(x.shape, bool)
    inside = np.ones(x.shape, bool)
    for a, b in zip(hull, np.roll(hull, -1, 0)):
        inside &= (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) >= -1e-12
    return inside


def _palette(ids):
    """A fixed color per body id, packed 0xRRGGBB (0 stays 0: background)."""
    h = (ids * 0.6180339887) % 1.0
    rgb = np.stack([np.abs(h * 6 - 3) - 1, 2 - np.abs(h * 6 - 2), 2 - np.abs(h * 6 - 4)], -1).clip(0, 1)
    rgb = (55 + 200 * rgb).astype(np.int64)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    return np.where(ids > 0, packed, 0).astype(np.int32)


def scene_to_raster(scene, world=0, height=64, width=64, extent=None, values="ids"):
    """Top-down raster (height, width) int32 of one world, looking down -z: each pixel holds the
    topmost body there, as its index in the world + 1 (values='ids'; 0: no body) or its color
    packed 0xRRGGBB (values='colors'). Row 0 is the largest y, column 0 the smallest x.
    extent = (xmin, xmax, ymin, ymax) in the env's frame; default: the bodies' footprint + 10%."""
    from .core.runtime import newton as _newton
    from .scene import Scene
    newton = _newton()
    if not isinstance(scene, Scene):
        raise GymlikeTypeError(f"scene_to_raster: expected a Scene, got {type(scene).__name__}")
    for name, v in (("height", height), ("width", width)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise GymlikeValueError(f"scene_to_raster: {name} must be an int >= 1, got {v!r}")
    if isinstance(world, bool) or not isinstance(world, (int, np.integer)) or not 0 <= world < scene.num_worlds:
        raise GymlikeValueError(f"scene_to_raster: world must be in [0, {scene.num_worlds}), got {world!r}")
    if values not in ("ids", "colors"):
        raise GymlikeValueError(f"scene_to_raster: values must be 'ids' or 'colors', got {values!r}")
    core = scene.core
    core.ensure_ready("scene_to_raster")
    m, h = core.model, core.host
    body_q = core.state.body_q.numpy()
    shape_body = m.shape_body.numpy()
    types, scales, xforms = m.shape_type.numpy(), m.shape_scale.numpy(), m.shape_transform.numpy()
    b0 = int(core.env_start(core.envs[world], "body"))
    origin = np.asarray(core.envs[world].origin, np.float64)
    from .scene.loader import tf_mul
    polys = []     # (body id in world + 1, hull, top z)
    for s in np.nonzero(h.shape_env == world)[0]:
        b = int(shape_body[s])
        pts = _local_points(types[s], scales[s], m.shape_source[s], newton)
        if b < 0 or pts is None:
            continue
        X = tf_mul((tuple(body_q[b][:3]), tuple(body_q[b][3:])), (tuple(xforms[s][:3]), tuple(xforms[s][3:])))
        R = _rotation(X[1])
        wpts = pts @ R.T + np.asarray(X[0]) - origin
        polys.append((b - b0 + 1, _hull(wpts[:, :2]), float(wpts[:, 2].max()), wpts))
    if extent is None:
        if polys:
            allp = np.concatenate([p[3][:, :2] for p in polys])
            lo, hi = allp.min(0), allp.max(0)
            pad = 0.1 * max(hi[0] - lo[0], hi[1] - lo[1], 1e-3)
            extent = (lo[0] - pad, hi[0] + pad, lo[1] - pad, hi[1] + pad)
        else:
            extent = (-1.0, 1.0, -1.0, 1.0)
    x0, x1, y0, y1 = (float(v) for v in extent)
    if not (x1 > x0 and y1 > y0):
        raise GymlikeValueError(f"scene_to_raster: extent must be (xmin, xmax, ymin, ymax) with max > min, got {extent!r}")
    xs = x0 + (np.arange(width) + 0.5) * (x1 - x0) / width
    ys = y1 - (np.arange(height) + 0.5) * (y1 - y0) / height
    X, Y = np.meshgrid(xs, ys)
    ids = np.zeros((height, width), np.int32)
    top = np.full((height, width), -np.inf)
    for bid, hull, z, _ in polys:
        hit = _inside(hull, X, Y) & (z > top)
        ids[hit], top[hit] = bid, z
    return ids if values == "ids" else _palette(ids)


def _rotation(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
