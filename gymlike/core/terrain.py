"""Static collision geometry shared by all envs: `add_triangle_mesh` and `add_heightfield`.

Both validate their input fully, then append a callable `fn(builder, newton)` to
`sim.static_meshes`; core/build.py runs them before finalize, outside any world (world -1,
collision group -1: every env collides with them).

* Triangle meshes become Newton mesh shapes (`GeoType.MESH`) and heightfields Newton heightfield
  shapes (`GeoType.HFIELD`). Newton's collision pipeline collides against the actual triangles /
  height samples.
* MuJoCo (SIM_PHYSX) would turn a mesh into its convex hull and MuJoCo-Warp's heightfield
  collisions are not reliable, so a SIM_PHYSX sim holding static geometry steps MuJoCo with
  Newton's contacts (`SolverMuJoCo(use_mujoco_contacts=False)` + `CollisionPipeline`), see
  build.py. SIM_FLEX (XPBD) always uses Newton's pipeline.

Isaac Gym conventions kept: mesh vertices are transformed by `params.transform`; heightfield
sample [0, 0] sits at `params.transform` (a corner, not the centre), rows run along x
(`row_scale` apart), columns along y (`column_scale` apart), heights are
`sample * vertical_scale` along the up axis. A 2-D samples array is read as (rows, columns);
a flat one is reshaped to (nbRows, nbColumns).
"""

from __future__ import annotations

import numpy as np

from .enums import UpAxis
from .errors import GymlikeTypeError, GymlikeValueError
from .types import HeightFieldParams, Transform, TriangleMeshParams, coerce, number
from .runtime import wp as _wp


def _xform_of(t, what):
    t = coerce(Transform, t, f"{what}: params.transform")
    vals = [t.p.x, t.p.y, t.p.z, t.r.x, t.r.y, t.r.z, t.r.w]
    if not np.isfinite(vals).all():
        raise GymlikeValueError(f"{what}: params.transform contains non-finite values: {t}")
    n = float(np.linalg.norm(vals[3:]))
    if abs(n - 1.0) > 1e-3:
        raise GymlikeValueError(f"{what}: params.transform.r is not a unit quaternion (norm {n:.4f})")
    return np.array(vals, np.float64)


def _material(params, what):
    mu, rest = params.static_friction, params.restitution
    for name, v in (("static_friction", mu), ("restitution", rest)):
        if not np.isfinite(number(v, f"{what}: params.{name}")) or number(v, what) < 0:
            raise GymlikeValueError(f"{what}: params.{name} must be a non-negative number, got {v!r}")
    return number(mu, what), number(rest, what)


def _count(v, what, name):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise GymlikeValueError(f"{what}: params.{name} must be a non-negative int, got {v!r}")
    return int(v)


def _wp_transform(wp, x):
    return wp.transform(wp.vec3(*x[0:3]), wp.quat(*x[3:7]))


def add_triangle_mesh(sim, vertices, triangles, params):
    what = "add_triangle_mesh"
    sim.check_building(what)
    if not isinstance(params, TriangleMeshParams):
        raise GymlikeTypeError(f"{what}: params must be gymapi.TriangleMeshParams, got {type(params).__name__}")
    v = np.asarray(vertices)
    if v.dtype.names is not None:
        v = np.stack([v["x"], v["y"], v["z"]], -1)
    try:
        v = np.asarray(v, np.float32).reshape(-1, 3)
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: vertices must be float32 with 3 values per vertex, got shape "
                                f"{np.shape(vertices)}") from None
    t = np.asarray(triangles)
    if t.dtype.kind not in "iu":
        raise GymlikeTypeError(f"{what}: triangles must be an integer (uint32) array, got dtype {t.dtype}")
    if t.size % 3:
        raise GymlikeValueError(f"{what}: triangles must hold 3 indices per triangle, got {t.size} indices")
    t = t.reshape(-1, 3).astype(np.int64)
    nv = _count(params.nb_vertices, what, "nb_vertices") or len(v)
    nt = _count(params.nb_triangles, what, "nb_triangles") or len(t)
    if nv > len(v):
        raise GymlikeValueError(f"{what}: params.nb_vertices is {nv} but vertices holds {len(v)}")
    if nt > len(t):
        raise GymlikeValueError(f"{what}: params.nb_triangles is {nt} but triangles holds {len(t)}")
    v, t = v[:nv], t[:nt]
    if nt == 0:
        raise GymlikeValueError(f"{what}: the mesh has no triangles")
    if not np.isfinite(v).all():
        raise GymlikeValueError(f"{what}: vertices contain NaN or inf")
    if t.min() < 0 or t.max() >= nv:
        raise GymlikeValueError(f"{what}: triangle indices must be in [0, {nv}), got range "
                                f"[{int(t.min())}, {int(t.max())}]")
    xf = _xform_of(params.transform, what)
    mu, rest = _material(params, what)
    v, t = v.copy(), t.astype(np.int32).reshape(-1)
    label = f"triangle_mesh_{len(sim.static_meshes)}"

    def add(builder, newton):
        wp = _wp()
        cfg = newton.ModelBuilder.ShapeConfig(mu=mu, restitution=rest, collision_group=-1)
        mesh = newton.Mesh(v, t, compute_inertia=False)
        builder.add_shape_mesh(-1, mesh=mesh, xform=_wp_transform(wp, xf), cfg=cfg, label=label)

    add.kind = "mesh"
    add.segmentation_id = _segmentation_id(params, what)
    sim.static_meshes.append(add)


def _segmentation_id(params, what):
    v = params.segmentation_id
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise GymlikeValueError(f"{what}: params.segmentation_id must be an int >= 0, got {v!r}")
    return int(v)


def add_heightfield(sim, samples, params):
    what = "add_heightfield"
    sim.check_building(what)
    if not isinstance(params, HeightFieldParams):
        raise GymlikeTypeError(f"{what}: params must be gymapi.HeightFieldParams, got {type(params).__name__}")
    h = np.asarray(samples)
    if h.dtype.kind not in "iuf":
        raise GymlikeTypeError(f"{what}: samples must be a numeric (int16) array, got dtype {h.dtype}")
    rows = _count(params.nbRows, what, "nbRows")
    cols = _count(params.nbColumns, what, "nbColumns")
    if h.ndim == 2:
        if rows and cols and rows * cols != h.size:
            raise GymlikeValueError(f"{what}: nbRows x nbColumns = {rows} x {cols} = {rows * cols}, but "
                                    f"samples holds {h.size} values (shape {h.shape})")
        grid = h
    elif h.ndim == 1:
        if not (rows and cols):
            raise GymlikeValueError(f"{what}: a flat samples array needs params.nbRows and params.nbColumns")
        if rows * cols != h.size:
            raise GymlikeValueError(f"{what}: nbRows x nbColumns = {rows * cols}, but samples holds {h.size} values")
        grid = h.reshape(rows, cols)
    else:
        raise GymlikeValueError(f"{what}: samples must be 1-D or 2-D, got shape {h.shape}")
    if grid.shape[0] < 2 or grid.shape[1] < 2:
        raise GymlikeValueError(f"{what}: the heightfield needs at least 2 x 2 samples, got {grid.shape}")
    scales = {}
    for name in ("row_scale", "column_scale", "vertical_scale"):
        s = getattr(params, name)
        s = number(s, f"{what}: params.{name}")
        if not np.isfinite(s) or s <= 0:
            raise GymlikeValueError(f"{what}: params.{name} must be a positive number, got {s!r}")
        scales[name] = s
    heights = grid.astype(np.float64) * scales["vertical_scale"]
    if not np.isfinite(heights).all():
        raise GymlikeValueError(f"{what}: samples contain NaN or inf")
    xf = _xform_of(params.transform, what)
    mu, rest = _material(params, what)
    nx, ny = grid.shape
    hx = 0.5 * (nx - 1) * scales["row_scale"]
    hy = 0.5 * (ny - 1) * scales["column_scale"]
    y_up = sim.params.up_axis == UpAxis.UP_AXIS_Y
    data = heights.T.astype(np.float32).copy()       # Newton/MuJoCo: rows along y, columns along x
    label = f"heightfield_{len(sim.static_meshes)}"

    def add(builder, newton):
        wp = _wp()
        cfg = newton.ModelBuilder.ShapeConfig(mu=mu, restitution=rest, collision_group=-1)
        field = newton.Heightfield(data=data, nrow=ny, ncol=nx, hx=hx, hy=hy)
        X = _wp_transform(wp, xf)
        if y_up:   # local z (height) -> world +y, local x -> x, local y -> -z
            X = X * wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -0.5 * np.pi))
        X = X * wp.transform(wp.vec3(hx, hy, 0.0), wp.quat_identity())   # sample [0, 0] at the corner
        builder.add_shape_heightfield(heightfield=field, xform=X, cfg=cfg, label=label)

    add.kind = "heightfield"
    add.segmentation_id = _segmentation_id(params, what)
    sim.static_meshes.append(add)
