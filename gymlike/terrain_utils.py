"""Height-field terrain generators and height-field to triangle-mesh conversion.

gymlike's counterpart of ``isaacgym.terrain_utils``. A :class:`SubTerrain` holds
an ``int16`` grid ``height_field_raw`` of shape (width, length); the first index
runs along x, the second along y. Grid cells are ``horizontal_scale`` metres
apart and a stored height ``h`` means ``h * vertical_scale`` metres.

The generators take the SubTerrain first, their parameters in metres, modify
``height_field_raw`` (most add to it, a few overwrite it, as in Isaac Gym) and
return the SubTerrain. Metre values are converted to grid units with ``int()``
(truncation), and random choices are drawn from NumPy's global RNG in the same
order as Isaac Gym, so ``np.random.seed(...)`` reproduces its terrains.

``from isaacgym.terrain_utils import *`` gives the names Isaac Gym's module gives (it has no
``__all__``): the functions, ``np``, ``choice``, ``sqrt``, ``gymapi`` and ``gymutil``, but not
SciPy's ``interpolate`` module (importing SciPy's interpolation costs 0.6 s and nothing here uses
it; import it yourself).
"""

from math import sqrt  # noqa: F401  (Isaac Gym's module exports it)

import numpy as np
from numpy.random import choice  # noqa: F401  (Isaac Gym's module exports it)

from . import gymapi, gymutil  # noqa: F401  (Isaac Gym's module exports them)


class SubTerrain:
    """A rectangular patch of height field, initially flat at height 0."""

    def __init__(self, terrain_name="terrain", width=256, length=256,
                 vertical_scale=1.0, horizontal_scale=1.0):
        self.terrain_name = terrain_name
        self.vertical_scale = vertical_scale
        self.horizontal_scale = horizontal_scale
        self.width = width
        self.length = length
        self.height_field_raw = np.zeros((self.width, self.length), dtype=np.int16)


def _interp_axis(src_n, dst_n, extent):
    """Lower indices and weights to linearly resample ``src_n`` samples to ``dst_n``.

    Both sample sets span [0, extent] evenly, as np.linspace would place them.
    """
    src = np.linspace(0.0, extent, src_n)
    dst = np.linspace(0.0, extent, dst_n)
    if src_n < 2:
        return np.zeros(dst_n, dtype=np.intp), np.zeros(dst_n)
    lo = np.clip(np.searchsorted(src, dst, side="right") - 1, 0, src_n - 2)
    w = (dst - src[lo]) / (src[lo + 1] - src[lo])
    return lo, np.clip(w, 0.0, 1.0)


def _bilinear_resample(grid, out_rows, out_cols, extent_x, extent_y):
    """Bilinear interpolation of ``grid`` onto a finer regular grid (pure NumPy)."""
    grid = np.asarray(grid, dtype=np.float64)
    r0, wr = _interp_axis(grid.shape[0], out_rows, extent_x)
    c0, wc = _interp_axis(grid.shape[1], out_cols, extent_y)
    r1 = np.minimum(r0 + 1, grid.shape[0] - 1)
    c1 = np.minimum(c0 + 1, grid.shape[1] - 1)
    wr = wr[:, None]
    wc = wc[None, :]
    top = grid[r0][:, c0] * (1.0 - wc) + grid[r0][:, c1] * wc
    bottom = grid[r1][:, c0] * (1.0 - wc) + grid[r1][:, c1] * wc
    return top * (1.0 - wr) + bottom * wr


def random_uniform_terrain(terrain, min_height, max_height, step=1, downsampled_scale=None):
    """Add uniform noise heights.

    Heights are drawn from {min_height, min_height + step, ..., max_height} [m] on a
    coarse grid with spacing ``downsampled_scale`` [m] (default: the terrain's
    horizontal scale), then bilinearly interpolated onto the terrain grid.
    """
    if downsampled_scale is None:
        downsampled_scale = terrain.horizontal_scale

    min_h = int(min_height / terrain.vertical_scale)
    max_h = int(max_height / terrain.vertical_scale)
    # A step below one height unit would make an empty/infinite range.
    step_h = max(1, int(step / terrain.vertical_scale))
    heights_range = np.arange(min_h, max_h + step_h, step_h)

    extent_x = terrain.width * terrain.horizontal_scale
    extent_y = terrain.length * terrain.horizontal_scale
    coarse_shape = (int(extent_x / downsampled_scale), int(extent_y / downsampled_scale))
    coarse = np.random.choice(heights_range, coarse_shape)

    # NumPy bilinear interpolation (what scipy's linear interp2d computed), so
    # scipy is not needed.
    fine = _bilinear_resample(coarse, terrain.width, terrain.length, extent_x, extent_y)
    terrain.height_field_raw += np.rint(fine).astype(np.int16)
    return terrain


def sloped_terrain(terrain, slope=1):
    """Add a plane rising by ``slope`` (metres per metre, may be negative) along x."""
    max_height = int(slope * (terrain.horizontal_scale / terrain.vertical_scale) * terrain.width)
    rows = np.arange(terrain.width).reshape(-1, 1)
    ramp = (max_height * rows / terrain.width).astype(terrain.height_field_raw.dtype)
    terrain.height_field_raw += ramp  # broadcast over all columns
    return terrain


def pyramid_sloped_terrain(terrain, slope=1, platform_size=1.):
    """Add a hill (or, with negative slope, a pit) centred on the terrain.

    The height is ``max_height * fx * fy`` where fx, fy fall linearly from 1 at
    the centre to 0 at the border; everything beyond the corner of the central
    ``platform_size`` [m] square is clipped to the height found there, giving a
    flat top.
    """
    cx = int(terrain.width / 2)
    cy = int(terrain.length / 2)
    fx = (cx - np.abs(cx - np.arange(terrain.width))) / cx
    fy = (cy - np.abs(cy - np.arange(terrain.length))) / cy
    max_height = int(slope * (terrain.horizontal_scale / terrain.vertical_scale) * (terrain.width / 2))
    bump = max_height * fx.reshape(-1, 1) * fy.reshape(1, -1)
    terrain.height_field_raw += bump.astype(terrain.height_field_raw.dtype)

    half_platform = int(platform_size / terrain.horizontal_scale / 2)
    corner = terrain.height_field_raw[terrain.width // 2 - half_platform,
                                      terrain.length // 2 - half_platform]
    lo, hi = min(corner, 0), max(corner, 0)
    terrain.height_field_raw = np.clip(terrain.height_field_raw, lo, hi)
    return terrain


def discrete_obstacles_terrain(terrain, max_height, min_size, max_size, num_rects, platform_size=1.):
    """Overwrite ``num_rects`` random rectangles with random heights.

    Heights come from {-max_height, -max_height/2, max_height/2, max_height} [m];
    rectangle sides from [min_size, max_size) [m] in steps of 4 cells, placed on a
    4-cell lattice. The central ``platform_size`` [m] square is reset to 0.
    """
    max_h = int(max_height / terrain.vertical_scale)
    min_cells = int(min_size / terrain.horizontal_scale)
    max_cells = int(max_size / terrain.horizontal_scale)
    platform = int(platform_size / terrain.horizontal_scale)

    n_rows, n_cols = terrain.height_field_raw.shape
    height_choices = [-max_h, -max_h // 2, max_h // 2, max_h]
    size_choices = range(min_cells, max_cells, 4)

    for _ in range(num_rects):
        # Draw order matters for reproducing Isaac Gym with a fixed seed.
        w = np.random.choice(size_choices)
        l = np.random.choice(size_choices)
        i0 = np.random.choice(range(0, n_rows - w, 4))
        j0 = np.random.choice(range(0, n_cols - l, 4))
        terrain.height_field_raw[i0:i0 + w, j0:j0 + l] = np.random.choice(height_choices)

    _flatten_center(terrain, platform)
    return terrain


def wave_terrain(terrain, num_waves=1, amplitude=1.):
    """Add ``a*cos(y/d) + a*sin(x/d)`` with a = amplitude/2 [m] and ``num_waves``
    periods over the terrain length (so heights stay within +-amplitude)."""
    a = int(0.5 * amplitude / terrain.vertical_scale)
    if num_waves > 0:
        d = terrain.length / (num_waves * np.pi * 2)
        xs = np.arange(terrain.width).reshape(-1, 1)
        ys = np.arange(terrain.length).reshape(1, -1)
        waves = a * np.cos(ys / d) + a * np.sin(xs / d)
        terrain.height_field_raw += waves.astype(terrain.height_field_raw.dtype)
    return terrain


def stairs_terrain(terrain, step_width, step_height):
    """Add a staircase climbing along x: step k (k = 0, 1, ...) is ``step_width``
    [m] deep and ``(k + 1) * step_height`` [m] high. Rows past the last whole
    step are left unchanged."""
    width_cells = int(step_width / terrain.horizontal_scale)
    height_units = int(step_height / terrain.vertical_scale)
    num_steps = terrain.width // width_cells
    for k in range(num_steps):
        terrain.height_field_raw[k * width_cells:(k + 1) * width_cells, :] += (k + 1) * height_units
    return terrain


def pyramid_stairs_terrain(terrain, step_width, step_height, platform_size=1.):
    """Overwrite with concentric square steps rising (or, with negative
    step_height, descending) towards a central platform of about
    ``platform_size`` [m]. The outer ring of ``step_width`` keeps its old height."""
    width_cells = int(step_width / terrain.horizontal_scale)
    height_units = int(step_height / terrain.vertical_scale)
    platform = int(platform_size / terrain.horizontal_scale)

    x0, x1 = 0, terrain.width
    y0, y1 = 0, terrain.length
    height = 0
    while (x1 - x0) > platform and (y1 - y0) > platform:
        x0 += width_cells
        x1 -= width_cells
        y0 += width_cells
        y1 -= width_cells
        height += height_units
        terrain.height_field_raw[x0:x1, y0:y1] = height
    return terrain


def stepping_stones_terrain(terrain, stone_size, stone_distance, max_height, platform_size=1., depth=-10):
    """Overwrite with square stones separated by holes.

    The whole field is first set to ``depth`` [m] (the holes). Stones of side
    ``stone_size`` [m] with ``stone_distance`` [m] gaps are laid in bands
    stacked along the longer side; each band starts at a random offset and each
    stone gets a random height from -M-1 to M-1 height units, M being
    ``max_height`` in units. The central ``platform_size`` square is set to 0.
    """
    stone = int(stone_size / terrain.horizontal_scale)
    gap = int(stone_distance / terrain.horizontal_scale)
    max_h = int(max_height / terrain.vertical_scale)
    platform = int(platform_size / terrain.horizontal_scale)
    height_choices = np.arange(-max_h - 1, max_h, step=1)

    terrain.height_field_raw[:, :] = int(depth / terrain.vertical_scale)

    # Lanes (bands of stones) are stacked along the longer grid axis. Working on
    # the transposed view when width > length lets one loop handle both cases;
    # writes go through the view.
    hf = terrain.height_field_raw
    if terrain.width > terrain.length:
        hf = hf.T
    lane_len, num_along = hf.shape  # hf[pos_in_lane, lane_coordinate]

    lane_start = 0
    while lane_start < num_along:
        lane_stop = min(num_along, lane_start + stone)
        pos = np.random.randint(0, stone)
        # The random offset leaves room before the first stone; a partial stone
        # fills it (possibly an empty slice, but the draw still happens).
        hf[0:max(0, pos - gap), lane_start:lane_stop] = np.random.choice(height_choices)
        while pos < lane_len:
            hf[pos:min(lane_len, pos + stone), lane_start:lane_stop] = np.random.choice(height_choices)
            pos += stone + gap
        lane_start += stone + gap

    _flatten_center(terrain, platform)
    return terrain


def _flatten_center(terrain, platform_cells):
    """Set the central ``platform_cells`` x ``platform_cells`` square to height 0."""
    x0 = (terrain.width - platform_cells) // 2
    x1 = (terrain.width + platform_cells) // 2
    y0 = (terrain.length - platform_cells) // 2
    y1 = (terrain.length + platform_cells) // 2
    terrain.height_field_raw[x0:x1, y0:y1] = 0


def convert_heightfield_to_trimesh(height_field_raw, horizontal_scale, vertical_scale, slope_threshold=None):
    """Triangulate a height field.

    Vertex ``i * num_cols + j`` sits at ``(i * horizontal_scale, j * horizontal_scale,
    height_field_raw[i, j] * vertical_scale)``; each grid cell gives two
    triangles wound counter-clockwise seen from above (+z normals).

    If ``slope_threshold`` (rise over run) is given, wherever two neighbouring
    samples differ by a steeper slope, the lower vertex is slid horizontally
    under the higher one, so steps become vertical walls instead of ramps.
    This is checked along x, along y and along the (+x, +y) diagonal; as in
    Isaac Gym, a diagonal hit also moves the vertex along whichever axis had no
    move of its own, which can leave coincident vertices (degenerate triangles).

    Returns ``(vertices float32 (rows*cols, 3), triangles uint32 (2*(rows-1)*(cols-1), 3))``.
    """
    hf = np.asarray(height_field_raw)
    num_rows, num_cols = hf.shape

    xs = np.linspace(0, (num_rows - 1) * horizontal_scale, num_rows)
    ys = np.linspace(0, (num_cols - 1) * horizontal_scale, num_cols)
    yy, xx = np.meshgrid(ys, xs)

    if slope_threshold is not None:
        # threshold in raw height units per grid cell
        thr = slope_threshold * horizontal_scale / vertical_scale
        h = hf.astype(np.int64)  # avoid int16 overflow in differences
        move_x = np.zeros((num_rows, num_cols))
        move_y = np.zeros((num_rows, num_cols))
        move_diag = np.zeros((num_rows, num_cols))
        # rising towards +x: the lower sample moves forward one cell (+1) ...
        move_x[:-1, :] += (h[1:, :] - h[:-1, :]) > thr
        # ... falling towards +x: the lower (next) sample moves back one cell (-1)
        move_x[1:, :] -= (h[:-1, :] - h[1:, :]) > thr
        move_y[:, :-1] += (h[:, 1:] - h[:, :-1]) > thr
        move_y[:, 1:] -= (h[:, :-1] - h[:, 1:]) > thr
        # same along the (+x, +y) diagonal; only used where no axis move applies
        move_diag[:-1, :-1] += (h[1:, 1:] - h[:-1, :-1]) > thr
        move_diag[1:, 1:] -= (h[:-1, :-1] - h[1:, 1:]) > thr
        xx = xx + (move_x + move_diag * (move_x == 0)) * horizontal_scale
        yy = yy + (move_y + move_diag * (move_y == 0)) * horizontal_scale

    vertices = np.zeros((num_rows * num_cols, 3), dtype=np.float32)
    vertices[:, 0] = xx.reshape(-1)
    vertices[:, 1] = yy.reshape(-1)
    vertices[:, 2] = hf.reshape(-1) * vertical_scale

    # Corner indices of every cell: v00=(i,j), v01=(i,j+1), v10=(i+1,j), v11=(i+1,j+1).
    idx = np.arange(num_rows * num_cols, dtype=np.int64).reshape(num_rows, num_cols)
    v00 = idx[:-1, :-1]
    v01 = idx[:-1, 1:]
    v10 = idx[1:, :-1]
    v11 = idx[1:, 1:]
    # Two triangles per cell, cells in row-major order (same order as Isaac Gym).
    tri_a = np.stack([v00, v11, v01], axis=-1)
    tri_b = np.stack([v00, v10, v11], axis=-1)
    triangles = np.stack([tri_a, tri_b], axis=2).reshape(-1, 3).astype(np.uint32)
    return vertices, triangles
