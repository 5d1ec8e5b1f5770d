"""Static collision geometry shared by all envs: `add_triangle_mesh` and `add_heightfield`.

Both validate their input fully, then append a callable `fn(builder, newton, c_path, budget)`
to `sim.static_meshes`; core/build.py runs them before finalize, outside any world (world -1,
collision group -1: every env collides with them), each with its share of the sim's heightfield
samples (`shares`). Each returns the kind of shape it added.

* Heightfields become Newton heightfield shapes (`GeoType.HFIELD`).
* Triangle meshes become Newton mesh shapes (`GeoType.MESH`), except on the MuJoCo C pipeline
  (`c_path`), where a mesh that is a height map (terrain_utils' triangulations, and any mesh
  whose vertices lie on a square lattice and whose surface is one height over every point of
  its rectangle) becomes a heightfield: MuJoCo would collide against a mesh's convex hull,
  while its heightfield collisions are exact. The heightfield reproduces the mesh exactly when
  its triangles are the lattice's cells split along the (+x, +y) diagonal (MuJoCo's split);
  otherwise (terrain_utils' vertical walls: vertices moved by one lattice step) the mesh is
  sampled every 1/k lattice step (k = 4, fewer for very large meshes or many meshes, see
  `SAMPLE_BUDGET`), and a vertical wall becomes a ramp 1/k of a lattice step wide.
* A SIM_PHYSX sim holding a Newton mesh (or any static geometry on MuJoCo-Warp, whose
  heightfield collisions are not reliable) steps MuJoCo with Newton's contacts
  (`SolverMuJoCo(use_mujoco_contacts=False)` + `CollisionPipeline`), see build.py. SIM_FLEX
  (XPBD) always uses Newton's pipeline.

Isaac Gym conventions kept: mesh vertices are transformed by `params.transform`; heightfield
sample [0, 0] sits at `params.transform` (a corner, not the centre), rows run along x
(`row_scale` apart), columns along y (`column_scale` apart), heights are
`sample * vertical_scale` along the up axis. A 2-D samples array is read as (rows, columns);
a flat one is reshaped to (nbRows, nbColumns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .enums import UpAxis
from .errors import GymlikeTypeError, GymlikeValueError
from .math3d import quat_rotate
from .types import HeightFieldParams, Transform, TriangleMeshParams, coerce, number
from .runtime import wp as _wp

if TYPE_CHECKING:
    from .sim import Sim


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


def add_triangle_mesh(sim: Sim, vertices: np.ndarray, triangles: np.ndarray,
                      params: TriangleMeshParams) -> None:
    """Add a static triangle mesh (vertices (n, 3) float32 in m, triangles (m, 3) vertex indices)
    to the ground, placed by params.transform."""
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

    def add(builder, newton, c_path, budget):
        wp = _wp()
        cfg = newton.ModelBuilder.ShapeConfig(mu=mu, restitution=rest, collision_group=-1)
        X = _wp_transform(wp, xf)
        field = (heightmap_of(v, t.reshape(-1, 3), budget) if c_path and _z_is_up(xf, sim.params.up_axis)
                 else None)
        if field is not None:
            (x0, y0), step, heights = field
            X = X * wp.transform(wp.vec3(x0, y0, 0.0), wp.quat_identity())
            _add_heightfield(builder, newton, heights, step, step, X, cfg, label, c_path, budget)
            return "heightfield"
        mesh = newton.Mesh(v, t, compute_inertia=False)
        builder.add_shape_mesh(-1, mesh=mesh, xform=X, cfg=cfg, label=label)
        return "mesh"

    add.kind = "mesh"
    add.size = nv          # (a height map's samples before refinement: about its vertices)
    add.segmentation_id = _segmentation_id(params, what)
    sim.static_meshes.append(add)


def _segmentation_id(params, what):
    v = params.segmentation_id
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise GymlikeValueError(f"{what}: params.segmentation_id must be an int >= 0, got {v!r}")
    return int(v)


def add_heightfield(sim: Sim, samples: np.ndarray, params: HeightFieldParams) -> None:
    """Add a static height field: samples (nbRows, nbColumns) int16, heights of
    sample * vertical_scale m, rows row_scale m apart along x, columns column_scale m along y."""
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
    y_up = sim.params.up_axis == UpAxis.UP_AXIS_Y
    label = f"heightfield_{len(sim.static_meshes)}"

    def add(builder, newton, c_path, budget):
        wp = _wp()
        cfg = newton.ModelBuilder.ShapeConfig(mu=mu, restitution=rest, collision_group=-1)
        X = _wp_transform(wp, xf)
        if y_up:   # local z (height) -> world +y, local x -> x, local y -> -z
            X = X * wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -0.5 * np.pi))
        _add_heightfield(builder, newton, heights, scales["row_scale"], scales["column_scale"], X, cfg, label,
                         c_path, budget)
        return "heightfield"

    add.kind = "heightfield"
    add.size = heights.size
    add.segmentation_id = _segmentation_id(params, what)
    sim.static_meshes.append(add)


# Depth of solid under a heightfield's lowest point in MuJoCo [m]: Isaac Gym's heightfields are
# solid all the way down; a thin one (Newton's default is 0.1 mm) lets a falling body pass
# through between two steps.
HEIGHTFIELD_BASE = 1.0


# Longest heightfield cell MuJoCo collides with [m]: MuJoCo collides a body with each cell's two
# triangular prisms as convex shapes, one contact per prism, so a box resting inside one large
# cell would rock on a single contact; larger cells are subdivided (exactly: the subdivided
# cells interpolate the same triangles).
MAX_CELL = 0.1


def _add_heightfield(builder, newton, heights, sx, sy, X, cfg, label, c_path, budget):
    """A Newton heightfield of `heights` (nx, ny): sample [i, j] at (i sx, j sy) in the frame
    `X` (its corner), height along its z; on the C path its cells subdivided to MAX_CELL within
    `budget` samples."""
    wp = _wp()
    if c_path:
        k = int(np.ceil(max(sx, sy) / MAX_CELL - 1e-9))
        k = max(1, min(k, int(np.sqrt(budget / heights.size))))
        if k > 1:
            heights, sx, sy = _refine(heights, k), sx / k, sy / k
    nx, ny = heights.shape
    hx, hy = 0.5 * (nx - 1) * sx, 0.5 * (ny - 1) * sy
    # Newton and MuJoCo store rows along y and columns along x, centred on the shape's origin
    field = newton.Heightfield(data=heights.T.astype(np.float32).copy(), nrow=ny, ncol=nx, hx=hx, hy=hy)
    X = X * wp.transform(wp.vec3(hx, hy, 0.0), wp.quat_identity())
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    builder.add_shape_heightfield(heightfield=field, xform=X, cfg=cfg, label=label,
                                  custom_attributes={"mujoco:hfield_base": HEIGHTFIELD_BASE})


def _refine(h, k):
    """Heights (nx, ny) sampled k times finer on the same surface: each cell's two triangles
    (split along the (+x, +y) diagonal, MuJoCo's split) interpolated linearly."""
    nx, ny = h.shape
    out = np.empty(((nx - 1) * k + 1, (ny - 1) * k + 1))
    a, b = np.meshgrid(np.arange(k + 1) / k, np.arange(k + 1) / k, indexing="ij")
    lower = a >= b
    for i0 in range(0, nx - 1, 256):                           # (rows of cells at a time: memory)
        i1 = min(nx - 1, i0 + 256)
        z00, z10 = h[i0:i1, :-1, None, None], h[i0 + 1:i1 + 1, :-1, None, None]
        z01, z11 = h[i0:i1, 1:, None, None], h[i0 + 1:i1 + 1, 1:, None, None]
        z = np.where(lower, z00 + a * (z10 - z00) + b * (z11 - z10), z00 + b * (z01 - z00) + a * (z11 - z01))
        block = z.transpose(0, 2, 1, 3).reshape((i1 - i0) * (k + 1), (ny - 1) * (k + 1))
        # drop each cell's repeated last row / column (its neighbour starts there), keep the last
        rows = np.r_[np.arange((i1 - i0) * (k + 1))[np.arange((i1 - i0) * (k + 1)) % (k + 1) != k],
                     (i1 - i0) * (k + 1) - 1]
        cols = np.r_[np.arange((ny - 1) * (k + 1))[np.arange((ny - 1) * (k + 1)) % (k + 1) != k],
                     (ny - 1) * (k + 1) - 1]
        out[i0 * k:i1 * k + 1] = block[rows][:, cols]
    return out


# ============================================================================ meshes as height maps
# Heightfield samples of a sim's refined static pieces (meshes with vertical walls sampled every
# lattice step / k, k = 4; coarse heightfields subdivided to MAX_CELL), at most: MuJoCo, Newton
# and MuJoCo-Warp each keep the heights, and Newton's model makes each heightfield a triangle
# mesh with a BVH as well (~0.1 KB per sample). The pieces share it in proportion to their
# sizes (`shares`): robot-parkour's barrier track adds 843 meshes of 13 million vertices in all,
# which each refined 16-fold on a budget of its own ran a 24 GB machine out of memory.
SAMPLE_BUDGET = 8_000_000


def shares(pieces: list) -> list[float]:
    """Each static piece's part of SAMPLE_BUDGET, in proportion to its size (`.size`: its
    samples or vertices before refinement); a sim of one piece gives it the whole budget."""
    total = sum(p.size for p in pieces)
    return [SAMPLE_BUDGET * p.size / total for p in pieces]


def _z_is_up(xf, up_axis):
    """Whether the mesh's local z is the sim's up axis under the transform `xf`."""
    local_z = quat_rotate(xf[3:7], [0.0, 0.0, 1.0])
    up = np.array([0.0, 1.0, 0.0]) if up_axis == UpAxis.UP_AXIS_Y else np.array([0.0, 0.0, 1.0])
    return float(local_z @ up) > 1.0 - 1e-6


def heightmap_of(vertices: np.ndarray, triangles: np.ndarray,
                 budget: float = SAMPLE_BUDGET) -> tuple[tuple[float, float], float, np.ndarray] | None:
    """A triangle mesh that is a height map over its rectangle in its own frame (height along
    z) as ((x0, y0), step, heights (nx, ny)): heights[i, j] is the mesh's height at
    (x0 + i step, y0 + j step); None when the mesh is not one (vertices off a square lattice,
    holes). Where triangles overlap (terrain_utils' slope corrections fold cells near walls)
    the highest counts: a mesh of several layers is taken as its top surface. See the module
    docstring for when the samples are exact; a mesh that is not exact is sampled every
    lattice step / k with at most `budget` samples (k <= 4)."""
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles, np.int64).reshape(-1, 3)
    xy, z = v[:, :2], v[:, 2]
    ext = float(np.ptp(xy, axis=0).max()) if len(xy) else 0.0
    if ext <= 0.0 or not len(t):
        return None
    e = np.abs(np.concatenate([xy[t[:, 1]] - xy[t[:, 0]], xy[t[:, 2]] - xy[t[:, 1]]])).ravel()
    e = e[e > 1e-7 * ext]
    if not e.size:
        return None
    # the lattice step: the shortest edges (their median: float32 vertices of a large terrain are
    # off their lattice by ~1e-5 m, and the very shortest edge is short by that much, which made
    # a 3,800-step extent look 3,801 steps long), refined over the whole extent
    step = float(np.median(e[e <= e.min() * 1.01]))
    span = np.ptp(xy, axis=0)
    along = int(np.argmax(span))
    step = float(span[along] / max(1, round(span[along] / step)))
    x0 = xy.min(0)
    lat = (xy - x0) / step
    ij = np.rint(lat)
    if np.abs(lat - ij).max() > 1e-3 or ij.max() > 1e5:
        return None
    ij = ij.astype(np.int64)
    nx, ny = (int(n) + 1 for n in ij.max(0))
    if nx < 2 or ny < 2:
        return None
    X, Y = ij[t, 0], ij[t, 1]                                     # (triangles, 3) lattice coordinates
    Z = z[t]
    cross = (X[:, 1] - X[:, 0]) * (Y[:, 2] - Y[:, 0]) - (Y[:, 1] - Y[:, 0]) * (X[:, 2] - X[:, 0])
    flat = cross != 0                                             # (vertical walls have no area seen from above)
    lx, ly, hx, hy = X.min(1), Y.min(1), X.max(1), Y.max(1)
    is_lo = (X == lx[:, None]) & (Y == ly[:, None])
    is_hi = (X == hx[:, None]) & (Y == hy[:, None])
    # a cell triangle on MuJoCo's diagonal: one cell, holding both ends of its (+x, +y) diagonal
    reg = (hx - lx == 1) & (hy - ly == 1) & is_lo.any(1) & is_hi.any(1) & (np.abs(cross) == 1)
    other = ~(is_lo | is_hi)
    kind_a = (X * other).sum(1) == hx                             # the third corner is (i+1, j), else (i, j+1)
    if (reg | ~flat).all() and int(reg.sum()) == 2 * (nx - 1) * (ny - 1):
        k = 1                                                     # exact: the samples are the vertices
    else:
        k = int(max(1, min(4, np.sqrt(budget / (nx * ny)))))
    NX, NY = (nx - 1) * k + 1, (ny - 1) * k + 1
    top = np.full(NX * NY, -np.inf)
    # cell triangles: their samples interpolated directly
    z_lo, z_hi, z_o = ((Z * m).sum(1) for m in (is_lo, is_hi, other))
    for a_side in (True, False):
        sel = reg & (kind_a == a_side)
        if not sel.any():
            continue
        a, b = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
        keep = (a >= b) if a_side else (b >= a)
        a, b = a[keep], b[keep]
        # along the first leg (to the third corner), then along the second (to the high corner)
        s1, s2 = (a, b) if a_side else (b, a)
        zz = (z_lo[sel, None] + (s1 / k) * (z_o[sel] - z_lo[sel])[:, None]
              + (s2 / k) * (z_hi[sel] - z_o[sel])[:, None])
        idx = (lx[sel, None] * k + a) * NY + ly[sel, None] * k + b
        np.maximum.at(top, idx.ravel(), zz.ravel())
    # the other triangles (stretched or folded near walls): rasterized
    odd = flat & ~reg
    if odd.any():
        P = np.stack([X[odd], Y[odd]], 2) * k
        _rasterize(P, Z[odd], top, NY)
    top = top.reshape(NX, NY)
    holes = ~np.isfinite(top)
    if holes.any():
        # terrain_utils' diagonal slope corrections pull border vertices inwards and leave
        # slivers uncovered: filled from their neighbours; a mesh with real holes is no height map
        if holes.mean() > 0.01:
            return None
        top = _fill(top)
    return (float(x0[0]), float(x0[1])), step / k, top


def _fill(top):
    """-inf samples take the highest of their covered neighbours, repeatedly."""
    top = top.copy()
    while True:
        holes = ~np.isfinite(top)
        if not holes.any():
            return top
        pad = np.pad(top, 1, constant_values=-np.inf)
        near = np.maximum.reduce([pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]])
        top[holes] = near[holes]


def _rasterize(P, Z, top, ny, chunk=400_000):
    """Raise `top` (flat samples, `ny` per row) to the height of triangles P (n, 3, 2) (integer
    sample coordinates, any orientation; vertex heights Z (n, 3)) at the samples they cover."""
    lo, hi = P.min(1), P.max(1)
    size = hi - lo + 1
    code = size[:, 0] * (int(size[:, 1].max()) + 1) + size[:, 1]     # (one int per bounding-box shape)
    order = np.argsort(code, kind="stable")
    kinds, first = np.unique(code[order], return_index=True)
    for g in range(len(kinds)):
        sel = order[first[g]:first[g + 1] if g + 1 < len(first) else len(order)]
        dims = size[sel[0]]
        a, b = np.meshgrid(np.arange(dims[0]), np.arange(dims[1]), indexing="ij")
        off = np.stack([a.ravel(), b.ravel()], 1)                  # (samples, 2)
        per = max(1, chunk // len(off))
        for c0 in range(0, len(sel), per):
            idx = sel[c0:c0 + per]
            p, zz = P[idx].astype(np.float64), Z[idx]
            q = lo[idx][:, None, :] + off[None]                    # (tri, samples, 2)
            d1, d2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
            den = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
            r = q - p[:, None, 0]
            u = (r[..., 0] * d2[:, None, 1] - r[..., 1] * d2[:, None, 0]) / den[:, None]
            w = (d1[:, None, 0] * r[..., 1] - d1[:, None, 1] * r[..., 0]) / den[:, None]
            s = 1.0 - u - w
            hit = (u >= -1e-9) & (w >= -1e-9) & (s >= -1e-9)
            h = s * zz[:, None, 0] + u * zz[:, None, 1] + w * zz[:, None, 2]
            np.maximum.at(top, (q[..., 0] * ny + q[..., 1])[hit], h[hit])
