"""Seed 003's simulation interface on gymlike scenes: `simulate_scene`, `simulate_task`,
`scene_to_raster`, `add_user_input_to_scene`.

Their "scene" is a `SceneFrame`: an immutable snapshot of a scene (its document, geometry,
body colors and the state of every world at one step). Each function also takes a scene
document (file or mapping) or a `SapLoadedScene`, snapshotted as it is. The functions are pure:
they simulate a fresh sim loaded from the frame's document and set to its state, and never
step or change what they are given."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, replace

import numpy as np

from .core import math3d
from .core.errors import GymlikeNotImplementedError, GymlikeTypeError, GymlikeValueError

DEFAULT_MAX_STEPS = 1000
FPS = 60
DEFAULT_STRIDE = FPS          # one frame per simulated second at dt = 1/60
SOLVED_SECONDS = 3.0          # a task is solved when its relations hold this long without a break
TOUCH_TOLERANCE = 0.01        # metres: bodies this close count as touching
RELATIONS = ("touching", "not_touching", "above", "below")


@dataclass(frozen=True)
class SceneFrame:
    """A scene at one step. Per world (first axis): `root_state` (actors, 13) and `body_state`
    (bodies, 13) in the env's frame (position, quaternion xyzw, linear, angular velocity),
    `dof_state` (DOFs, 2), `dof_targets` (DOFs,). `body_labels`, `body_colors` per body of a
    world; `shapes`: (body index in a world, Newton GeoType, scale, local transform, mesh
    vertices or None) of every drawable shape; `user_input_bodies`: bodies added by
    add_user_input_to_scene; `step`, `time` (seconds since the frame the run started from)."""
    document: dict
    num_worlds: int
    dt: float
    step: int
    time: float
    root_state: np.ndarray
    body_state: np.ndarray
    dof_state: np.ndarray
    dof_targets: np.ndarray
    body_labels: tuple
    body_colors: np.ndarray
    shapes: tuple
    user_input_bodies: tuple = field(default_factory=tuple)

    @property
    def body_q(self):
        return self.body_state[..., :7]


@dataclass(frozen=True)
class Task:
    """A scene and a goal: every relation in `relationships` ('touching', 'not_touching',
    'above', 'below') holds between the bodies labelled `body1` and `body2`."""
    task_id: str
    scene: object
    body1: str
    body2: str
    relationships: tuple = ("touching",)


@dataclass
class TaskSimulation:
    """`scene_list`: a frame every `stride` steps; `solved_state_list`: whether the goal held at
    each of them; `is_solution`: the goal held for SOLVED_SECONDS without a break (the run stops
    there); `steps_simulated`."""
    scene_list: list
    solved_state_list: list
    is_solution: bool
    steps_simulated: int


# ---------------------------------------------------------------------------- frames
def _frame(loaded, step=0, time=0.0, shapes=None):
    """Snapshot a SapLoadedScene's current state (nothing is stepped or written)."""
    g, n = loaded.gym, loaded.num_worlds
    t = loaded.refresh()
    targets = np.concatenate([g.get_actor_dof_position_targets(e, h) for e in loaded.envs
                              for h in range(len(e.actors))] or [np.zeros(0)]).astype(np.float32)
    labels = loaded.body_labels[:loaded.bodies_per_world]
    return SceneFrame(document=loaded.document, num_worlds=n, dt=float(loaded.dt), step=step, time=time,
                      root_state=t["root_w"].cpu().numpy().copy(), body_state=t["body_w"].cpu().numpy().copy(),
                      dof_state=t["dof_w"].cpu().numpy().copy(), dof_targets=targets.reshape(n, -1),
                      body_labels=tuple(labels), body_colors=np.asarray(loaded.body_colors, np.int32),
                      shapes=shapes if shapes is not None else _shapes(loaded),
                      user_input_bodies=tuple(getattr(loaded, "user_input_bodies", ())))


def _shapes(loaded):
    """Drawable shapes of world 0: (body index in the world, GeoType, scale, transform, vertices)."""
    s = loaded.sim
    m = loaded.sap_model
    b0 = int(m.body_world_start.numpy()[0])
    nb = loaded.bodies_per_world
    body, types = m.shape_body.numpy(), m.shape_type.numpy()
    scales, xforms = m.shape_scale.numpy(), m.shape_transform.numpy()
    out = []
    for i in range(len(body)):
        if b0 <= body[i] < b0 + nb and s.model.shape_flags.numpy()[i] & 3:     # visible or colliding
            src = m.shape_source[i]
            verts = np.asarray(src.vertices, np.float64) if hasattr(src, "vertices") else None
            out.append((int(body[i] - b0), int(types[i]), tuple(map(float, scales[i])), tuple(map(float, xforms[i])),
                        verts))
    return tuple(out)


def _as_frame(scene, what):
    """A SceneFrame for a frame, a SapLoadedScene or a document (loaded, snapshotted, closed)."""
    from .scene import SapLoadedScene, load_sap_scene
    if isinstance(scene, SceneFrame):
        return scene
    if isinstance(scene, SapLoadedScene):
        _check_from_document(scene, what)
        return _frame(scene)
    if isinstance(scene, (str, dict)) or hasattr(scene, "__fspath__"):
        loaded = load_sap_scene(scene)
        try:
            return _frame(loaded)
        finally:
            loaded.close()
    raise GymlikeTypeError(f"{what}: expected a SceneFrame, a SapLoadedScene or a scene document, got "
                           f"{type(scene).__name__}")


def _check_from_document(loaded, what):
    n = len(loaded.sim.envs[0].actors) if loaded.sim.envs else 0
    if n != loaded.actors_per_world or len(loaded.sim.envs) != loaded.num_worlds:
        raise GymlikeNotImplementedError(f"{what}: the scene has actors its document does not describe (added with the "
                                         "handle API); a pure run reloads the document, so it cannot include them")


def _load(frame):
    """A fresh sim from the frame's document, set to the frame's state."""
    import torch
    from . import gymtorch
    from .scene import load_sap_scene
    loaded = load_sap_scene(frame.document, num_worlds=frame.num_worlds, dt=frame.dt)
    g, s = loaded.gym, loaded.sim
    t = loaded.refresh()
    a = frame.root_state.shape[1]            # user input bodies are actors after these
    t["root_w"][:, :a] = torch.as_tensor(frame.root_state)
    g.set_actor_root_state_tensor(s, gymtorch.unwrap_tensor(t["root"]))
    if loaded.dofs_per_world:
        t["dof_w"][:] = torch.as_tensor(frame.dof_state)
        g.set_dof_state_tensor(s, gymtorch.unwrap_tensor(t["dof"]))
        targets = torch.as_tensor(frame.dof_targets.reshape(-1)).contiguous()
        g.set_dof_position_target_tensor(s, gymtorch.unwrap_tensor(targets))
    loaded.user_input_bodies = frame.user_input_bodies
    return loaded


def _steps(v, name, what, lo):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise GymlikeValueError(f"{what}: {name} must be an int >= {lo}, got {v!r}")
    return int(v)


def _run(frame, steps):
    """A frame after every step of a fresh run from `frame`."""
    loaded = _load(frame)
    out = []
    try:
        for i in range(1, steps + 1):
            loaded.gym.simulate(loaded.sim)
            out.append(_frame(loaded, frame.step + i, frame.time + i * frame.dt, frame.shapes))
    finally:
        loaded.close()
    return out


# ---------------------------------------------------------------------------- the interface
def simulate_scene(scene, steps=DEFAULT_MAX_STEPS):
    """Run the scene for `steps` steps and return the list of `steps` scenes (frames), the i-th
    after i + 1 steps. `scene` itself is not advanced."""
    frame = _as_frame(scene, "simulate_scene")
    return _run(frame, _steps(steps, "steps", "simulate_scene", 0))


def simulate_task(task, steps=DEFAULT_MAX_STEPS, stride=DEFAULT_STRIDE):
    """Run the task's scene and return a TaskSimulation with one scene every `stride` steps."""
    if not isinstance(task, Task):
        raise GymlikeTypeError(f"simulate_task: expected a Task, got {type(task).__name__}")
    steps = _steps(steps, "steps", "simulate_task", 0)
    stride = _steps(stride, "stride", "simulate_task", 1)
    bad = [r for r in task.relationships if r not in RELATIONS]
    if bad or not task.relationships:
        raise GymlikeValueError(f"simulate_task: relationships must be some of {', '.join(RELATIONS)}, got "
                                f"{list(task.relationships)!r}")
    frame = _as_frame(task.scene, "simulate_task")
    pair = [_body_index(frame, task.body1, "body1"), _body_index(frame, task.body2, "body2")]
    hold = max(1, int(math.ceil(SOLVED_SECONDS / frame.dt - 1e-9)))
    held = {"run": 0, "solved": False}
    # the goal is checked every step (a break resets the run), frames are kept every stride steps
    loaded = _load(frame)
    frames, solved_states, steps_done = [], [], 0
    try:
        for i in range(1, steps + 1):
            loaded.gym.simulate(loaded.sim)
            steps_done = i
            f = _frame(loaded, frame.step + i, frame.time + i * frame.dt, frame.shapes)
            ok = all(relation(f, pair[0], pair[1], r) for r in task.relationships)
            held["run"] = held["run"] + 1 if ok else 0
            if i % stride == 0:
                frames.append(f)
                solved_states.append(ok)
            if held["run"] >= hold:
                held["solved"] = True
                if i % stride:
                    frames.append(f)
                    solved_states.append(ok)
                break
    finally:
        loaded.close()
    return TaskSimulation(scene_list=frames, solved_state_list=solved_states, is_solution=held["solved"],
                          steps_simulated=steps_done)


def _body_index(frame, label, what):
    hits = [i for i, lb in enumerate(frame.body_labels) if lb == label or lb.endswith("/" + label)]
    if len(hits) != 1:
        raise GymlikeValueError(f"simulate_task: {what} {label!r} {'is ambiguous' if hits else 'names no body'} "
                                f"(bodies: {', '.join(frame.body_labels)})")
    return hits[0]


def scene_to_raster(scene, *, world=0, height=64, width=64, extent=None):
    """Integer array (height, width) of color codes: each pixel holds the `color` of the topmost
    body there, seen from above (looking down -z), 0 where there is none. Row 0 is the largest
    y, column 0 the smallest x; extent = (xmin, xmax, ymin, ymax) in the env frame, by default
    the bodies' footprint plus 10%."""
    frame = _as_frame(scene, "scene_to_raster")
    for name, v in (("height", height), ("width", width)):
        _steps(v, name, "scene_to_raster", 1)
    if isinstance(world, bool) or not isinstance(world, (int, np.integer)) or not 0 <= world < frame.num_worlds:
        raise GymlikeValueError(f"scene_to_raster: world must be in [0, {frame.num_worlds}), got {world!r}")
    polys = []
    for body, pts in _world_points(frame, world):
        polys.append((int(frame.body_colors[body]), _hull(pts[:, :2]), float(pts[:, 2].max()), pts))
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
        raise GymlikeValueError(f"scene_to_raster: extent must be (xmin, xmax, ymin, ymax) with max > min, "
                                f"got {extent!r}")
    xs = x0 + (np.arange(width) + 0.5) * (x1 - x0) / width
    ys = y1 - (np.arange(height) + 0.5) * (y1 - y0) / height
    X, Y = np.meshgrid(xs, ys)
    out = np.zeros((height, width), np.int32)
    top = np.full((height, width), -np.inf)
    for color, hull, z, _ in polys:
        hit = _inside(hull, X, Y) & (z > top)
        out[hit], top[hit] = color, z
    return out


def add_user_input_to_scene(scene, user_input, keep_space_around_bodies=True, allow_occlusions=False):
    """A new scene with the bodies of `user_input` (scene-file inline bodies: a list, or a
    mapping with `bodies`) added as free bodies and listed in `user_input_bodies`. Unless
    allow_occlusions, a body that overlaps a scene body (closer than TOUCH_TOLERANCE, or 5 cm
    with keep_space_around_bodies) in world 0 is left out."""
    from .scene.schema import SceneError
    frame = _as_frame(scene, "add_user_input_to_scene")
    bodies = user_input.get("bodies") if isinstance(user_input, dict) else user_input
    if not isinstance(bodies, list):
        raise GymlikeTypeError("add_user_input_to_scene: user_input must be a list of scene-file bodies or "
                               f"{{bodies: [...]}}, got {type(user_input).__name__}")
    doc = copy.deepcopy(frame.document)
    ids = {b.get("id") for b in doc.get("bodies") or []} | {a.get("id") for a in doc.get("assets") or []}
    margin = 0.05 if keep_space_around_bodies else TOUCH_TOLERANCE
    kept = []
    for i, b in enumerate(bodies):
        if not isinstance(b, dict) or b.get("id") in ids:
            raise SceneError(f"user_input.bodies[{i}].id", f"expected a body mapping with an id the scene does not "
                                                           f"use, got {b!r}")
        if not allow_occlusions and _occludes(frame, b, margin):
            continue
        kept.append(copy.deepcopy(b))
        ids.add(b["id"])
    if not kept:
        return replace(frame, document=doc)
    doc["bodies"] = list(doc.get("bodies") or []) + kept
    from .scene import load_sap_scene
    loaded = load_sap_scene(doc, num_worlds=frame.num_worlds, prepare=True)
    try:
        grown = _frame(loaded)
    finally:
        loaded.close()
    # the scene's state as it was, the user's bodies at their document poses
    a, nb = frame.root_state.shape[1], frame.body_state.shape[1]
    root, body = grown.root_state.copy(), grown.body_state.copy()
    root[:, :a], body[:, :nb] = frame.root_state, frame.body_state
    return replace(grown, step=frame.step, time=frame.time, root_state=root, body_state=body,
                   dof_state=frame.dof_state, dof_targets=frame.dof_targets,
                   user_input_bodies=frame.user_input_bodies + tuple(kept))


# ---------------------------------------------------------------------------- geometry
def relation(frame, b1, b2, rel, world=0):
    """Whether `rel` holds between bodies b1 and b2 (indices in a world) in the frame."""
    p1, p2 = _body_points(frame, b1, world), _body_points(frame, b2, world)
    if rel == "above":
        return bool(p1[:, 2].min() >= p2[:, 2].max() - TOUCH_TOLERANCE)
    if rel == "below":
        return bool(p1[:, 2].max() <= p2[:, 2].min() + TOUCH_TOLERANCE)
    touch = any(_near(a, b, TOUCH_TOLERANCE) for a in _body_hulls(frame, b1, world)
                for b in _body_hulls(frame, b2, world))
    return touch if rel == "touching" else not touch


def _body_points(frame, body, world):
    pts = [p for b, p in _world_points(frame, world) if b == body]
    return np.concatenate(pts) if pts else np.zeros((0, 3))


def _body_hulls(frame, body, world):
    return [p for b, p in _world_points(frame, world) if b == body]


def _near(a, b, tol):
    """Whether convex point sets a and b come within tol: a point of one inside the other's hull
    grown by tol (sampled surfaces: exact for boxes' corners, 1/24 turn for round shapes)."""
    return _inside_hull(a, b, tol) or _inside_hull(b, a, tol)


def _inside_hull(points, hull_points, tol):
    from scipy.spatial import ConvexHull, QhullError
    try:
        eq = ConvexHull(hull_points).equations
    except (QhullError, ValueError):
        return False
    return bool(((points @ eq[:, :3].T + eq[:, 3]) <= tol).all(axis=1).any())


def _occludes(frame, body_doc, margin):
    """Whether an inline body (document form, at its transform) overlaps a scene body in world 0."""
    from .scene.schema import Spec, _body
    spec = Spec(strict=False)
    b = _body(body_doc, "user_input", spec)
    X = (tuple(b["transform"][0]), tuple(b["transform"][1]))
    from .core.runtime import newton as _newton
    G = _newton().GeoType
    kinds = {"box": G.BOX, "sphere": G.SPHERE, "capsule": G.CAPSULE, "cylinder": G.CYLINDER, "cone": G.CONE,
             "ellipsoid": G.ELLIPSOID}
    mine = []
    for s in b["shapes"]:
        if s["type"] not in kinds:
            continue
        size = {"box": (s.get("hx"), s.get("hy"), s.get("hz")), "sphere": (s.get("radius"), 0, 0),
                "ellipsoid": (s.get("a"), s.get("b"), s.get("c"))}.get(s["type"],
                                                                       (s.get("radius"), s.get("half_height"), 0))
        local = _local_points(kinds[s["type"]], size, None)
        mine.append(_place(_place(local, s["transform"]), X))
    others = [p for _, p in _world_points(frame, 0)]
    return any(_near(m, o, margin) for m in mine for o in others)


def _place(pts, X):
    p, q = np.asarray(X[0], np.float64), X[1]
    return pts @ math3d.quat_to_matrix(q).T + p


def _world_points(frame, world):
    """(body index, points whose convex hull is the shape) for every drawable shape of a world,
    in the env frame."""
    out = []
    for body, gtype, scale, xf, verts in frame.shapes:
        local = _local_points(gtype, scale, verts)
        if local is None:
            continue
        X = frame.body_state[world, body, :7]
        out.append((body, _place(_place(local, (xf[:3], xf[3:7])), (X[:3], X[3:7]))))
    return out


def _sphere_points(n=12):
    """Points on the unit sphere (a latitude/longitude grid) whose hull stands in for round shapes."""
    th = np.linspace(0, np.pi, n)
    ph = np.linspace(0, 2 * np.pi, 2 * n, endpoint=False)
    t, p = np.meshgrid(th, ph)
    return np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)


def _circle(n=24):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([np.cos(a), np.sin(a), np.zeros(n)], -1)


def _local_points(gtype, scale, verts):
    """Points whose convex hull is the shape (exactly for boxes and meshes, closely for round ones)."""
    from .core.runtime import newton as _newton
    G = _newton().GeoType
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
    if gtype in (G.MESH, G.CONVEX_MESH) and verts is not None:
        return verts * np.array([sx, sy, sz])
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
