"""Tests for gymlike.terrain_utils (height-field generators and trimesh conversion)."""

import numpy as np
import pytest

from gymlike import terrain_utils as tu

HS = 0.1    # horizontal scale [m]
VS = 0.005  # vertical scale [m]


def make(width=81, length=81, hs=HS, vs=VS):
    return tu.SubTerrain("t", width=width, length=length, vertical_scale=vs, horizontal_scale=hs)


def assert_int16(terrain, width, length):
    assert terrain.height_field_raw.dtype == np.int16
    assert terrain.height_field_raw.shape == (width, length)


def test_subterrain_defaults():
    t = tu.SubTerrain()
    assert (t.terrain_name, t.width, t.length) == ("terrain", 256, 256)
    assert (t.vertical_scale, t.horizontal_scale) == (1.0, 1.0)
    assert_int16(t, 256, 256)
    assert not t.height_field_raw.any()
    t = tu.SubTerrain(width=10, length=20)
    assert_int16(t, 10, 20)


GENERATORS = [
    (tu.random_uniform_terrain, dict(min_height=-0.05, max_height=0.05, step=0.005, downsampled_scale=0.5)),
    (tu.sloped_terrain, dict(slope=0.3)),
    (tu.pyramid_sloped_terrain, dict(slope=-0.3, platform_size=2.0)),
    (tu.discrete_obstacles_terrain, dict(max_height=0.1, min_size=1.0, max_size=2.0, num_rects=20, platform_size=2.0)),
    (tu.wave_terrain, dict(num_waves=2, amplitude=0.2)),
    (tu.stairs_terrain, dict(step_width=0.5, step_height=0.1)),
    (tu.pyramid_stairs_terrain, dict(step_width=0.5, step_height=0.1, platform_size=2.0)),
    (tu.stepping_stones_terrain, dict(stone_size=0.5, stone_distance=0.2, max_height=0.05, platform_size=2.0,
                                      depth=-1.0)),
]


@pytest.mark.parametrize("fn,kwargs", GENERATORS, ids=[g[0].__name__ for g in GENERATORS])
@pytest.mark.parametrize("size", [(80, 80), (61, 97), (97, 61)])
def test_generators_return_terrain_with_int16_field(fn, kwargs, size):
    np.random.seed(0)
    t = make(*size)
    out = fn(t, **kwargs)
    assert out is t
    assert_int16(t, *size)


@pytest.mark.parametrize("fn,kwargs", GENERATORS, ids=[g[0].__name__ for g in GENERATORS])
def test_seeding_global_numpy_rng_reproduces(fn, kwargs):
    np.random.seed(42)
    a = fn(make(), **kwargs).height_field_raw
    np.random.seed(42)
    b = fn(make(), **kwargs).height_field_raw
    assert np.array_equal(a, b)


def test_random_uniform_terrain_range_and_interpolation():
    np.random.seed(3)
    t = tu.random_uniform_terrain(make(80, 60), min_height=-0.05, max_height=0.1, step=0.01)
    h = t.height_field_raw
    assert h.min() >= -10 and h.max() <= 20
    # without downsampling every sample is one of the allowed levels
    assert set(np.unique(h)) <= set(range(-10, 21, 2))
    assert len(np.unique(h)) > 4

    np.random.seed(4)
    t = tu.random_uniform_terrain(make(80, 60), min_height=0.0, max_height=0.2, step=0.05,
                                  downsampled_scale=1.0)
    h = t.height_field_raw.astype(float)
    assert h.min() >= 0 and h.max() <= 40
    # recompute the coarse grid with the same draws and interpolate separably
    np.random.seed(4)
    coarse = np.random.choice(np.arange(0, 50, 10), (8, 6)).astype(float)
    xs_c, xs_f = np.linspace(0, 8.0, 8), np.linspace(0, 8.0, 80)
    ys_c, ys_f = np.linspace(0, 6.0, 6), np.linspace(0, 6.0, 60)
    along_y = np.stack([np.interp(ys_f, ys_c, row) for row in coarse])
    full = np.stack([np.interp(xs_f, xs_c, col) for col in along_y.T], axis=1)
    assert np.array_equal(h, np.rint(full))
    # smooth: neighbouring cells differ by at most one coarse step spread over ~10 cells
    assert np.abs(np.diff(h, axis=0)).max() <= 10


def test_random_uniform_terrain_adds_to_existing():
    t = make(20, 20)
    t.height_field_raw[:] = 1000
    np.random.seed(0)
    tu.random_uniform_terrain(t, min_height=0.0, max_height=0.01, step=0.005)
    assert t.height_field_raw.min() >= 1000 and t.height_field_raw.max() <= 1002


@pytest.mark.parametrize("slope", [0.5, -0.25, 1.0])
def test_sloped_terrain_has_requested_slope(slope):
    t = tu.sloped_terrain(make(60, 40), slope=slope)
    h = t.height_field_raw.astype(float) * VS
    # constant across y, rising along x
    assert np.all(h == h[:, :1])
    assert h[0, 0] == 0
    measured = (h[-1, 0] - h[0, 0]) / ((t.width - 1) * HS)
    assert measured == pytest.approx(slope, abs=VS / HS)
    # every row-to-row rise matches the slope to within one height unit
    assert np.allclose(np.diff(h[:, 0]), slope * HS, atol=VS + 1e-12)


@pytest.mark.parametrize("slope", [0.4, -0.4])
def test_pyramid_sloped_terrain_peak_and_symmetry(slope):
    w = 81  # odd, so the centre is a grid sample and rows 0 / w-1 mirror each other
    t = tu.pyramid_sloped_terrain(make(w, w), slope=slope, platform_size=2.0)
    h = t.height_field_raw.astype(int)
    c = w // 2
    assert np.array_equal(h, h[::-1, :]) and np.array_equal(h, h[:, ::-1]) and np.array_equal(h, h.T)
    peak = h.max() if slope > 0 else h.min()
    assert h[c, c] == peak != 0
    # border is at 0, and the profile through the centre is monotone towards it
    assert np.all(h[0, :] == 0) and np.all(h[:, 0] == 0)
    profile = h[c, : c + 1] * np.sign(slope)
    assert np.all(np.diff(profile) >= 0)
    # flat platform of about platform_size around the centre
    half = int(2.0 / HS / 2)
    assert np.all(h[c - half:c + half + 1, c - half:c + half + 1] == peak)


def test_discrete_obstacles_keep_platform_flat():
    np.random.seed(1)
    t = tu.discrete_obstacles_terrain(make(80, 80), max_height=0.1, min_size=0.5, max_size=2.0,
                                      num_rects=60, platform_size=2.0)
    h = t.height_field_raw
    m = int(0.1 / VS)
    assert set(np.unique(h)) <= {0, m, -m, m // 2, -m // 2}
    assert (h != 0).sum() > 0.2 * h.size
    p = int(2.0 / HS)
    x0 = (80 - p) // 2
    assert np.all(h[x0:x0 + p, x0:x0 + p] == 0)


def test_wave_terrain_amplitude_bound():
    amp = 0.3
    t = tu.wave_terrain(make(100, 100), num_waves=3, amplitude=amp)
    h = t.height_field_raw.astype(float) * VS
    assert np.abs(h).max() <= amp + 1e-9
    assert np.abs(h).max() >= 0.9 * amp  # the bound is nearly reached
    # num_waves periods of the cosine along y
    row = t.height_field_raw[0].astype(float)
    assert np.sum(np.diff(np.sign(row - row.mean())) != 0) >= 2 * 3 - 1
    assert not tu.wave_terrain(make(10, 10), num_waves=0, amplitude=amp).height_field_raw.any()


@pytest.mark.parametrize("step_height", [0.1, 0.15, -0.05])
def test_stairs_constant_step(step_height):
    step_width = 0.5
    t = tu.stairs_terrain(make(83, 30), step_width=step_width, step_height=step_height)
    h = t.height_field_raw.astype(int)
    w = int(step_width / HS)
    units = int(step_height / VS)  # metres -> units by truncation, as in Isaac Gym
    assert units == round(step_height / VS)  # (these heights are exact multiples)
    n = 83 // w
    assert np.all(h == h[:, :1])
    tops = h[: n * w : w, 0]
    assert tops[0] == units
    assert np.all(np.diff(tops) == units)
    for k in range(n):
        assert np.all(h[k * w:(k + 1) * w] == (k + 1) * units)
    assert np.all(h[n * w:] == 0)  # leftover rows past the last whole step


def test_pyramid_stairs_peak_and_symmetry():
    w = 80
    t = tu.pyramid_stairs_terrain(make(w, w), step_width=0.5, step_height=0.1, platform_size=2.0)
    h = t.height_field_raw.astype(int)
    units = int(0.1 / VS)
    assert np.array_equal(h, h[::-1, :]) and np.array_equal(h, h[:, ::-1]) and np.array_equal(h, h.T)
    assert h[w // 2, w // 2] == h.max() > 0
    # walking from the border to the centre climbs steps of exactly `units`
    profile = h[w // 2, : w // 2]
    jumps = np.diff(profile)
    assert set(np.unique(jumps)) <= {0, units}
    assert h[0, 0] == 0 and np.all(h[:5, :] == 0)
    # negative step height gives a pit
    t = tu.pyramid_stairs_terrain(make(w, w), step_width=0.5, step_height=-0.1, platform_size=2.0)
    assert t.height_field_raw[w // 2, w // 2] == t.height_field_raw.min() < 0


@pytest.mark.parametrize("size", [(80, 80), (60, 90), (90, 60)])
def test_stepping_stones(size):
    np.random.seed(7)
    max_height, depth = 0.05, -1.0
    t = tu.stepping_stones_terrain(make(*size), stone_size=0.6, stone_distance=0.3,
                                   max_height=max_height, platform_size=2.0, depth=depth)
    h = t.height_field_raw.astype(int)
    d = int(depth / VS)
    m = int(max_height / VS)
    stones = h[h != d]
    assert np.all(stones <= m) and np.all(stones >= -m - 1)
    assert (h == d).sum() > 0.2 * h.size  # there are gaps ...
    assert (h != d).sum() > 0.2 * h.size  # ... and stones
    p = int(2.0 / HS)
    x0, y0 = (size[0] - p) // 2, (size[1] - p) // 2
    assert np.all(h[x0:x0 + p, y0:y0 + p] == 0)
    # gaps run straight across: some full rows or columns are all `depth`
    along = 0 if size[1] >= size[0] else 1
    full_gaps = np.all(h == d, axis=along)
    assert full_gaps.sum() >= 3


# --------------------------------------------------------------------------- #
# convert_heightfield_to_trimesh
# --------------------------------------------------------------------------- #

def test_trimesh_counts_dtypes_positions():
    rng = np.random.default_rng(0)
    rows, cols = 7, 11
    hf = rng.integers(-100, 100, size=(rows, cols)).astype(np.int16)
    v, tri = tu.convert_heightfield_to_trimesh(hf, 0.25, 0.01)
    assert v.dtype == np.float32 and v.shape == (rows * cols, 3)
    assert tri.dtype == np.uint32 and tri.shape == (2 * (rows - 1) * (cols - 1), 3)
    ii, jj = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_allclose(v[:, 0], (ii * 0.25).ravel(), atol=1e-6)
    np.testing.assert_allclose(v[:, 1], (jj * 0.25).ravel(), atol=1e-6)
    np.testing.assert_allclose(v[:, 2], hf.ravel() * 0.01, atol=1e-6)
    # each triangle spans one grid cell: three distinct corners of a unit square
    r, c = tri // cols, tri % cols
    assert np.all(r.max(1) - r.min(1) == 1) and np.all(c.max(1) - c.min(1) == 1)
    assert all(len(set(t)) == 3 for t in tri.tolist())
    # every cell is covered exactly twice
    cells = r.min(1).astype(np.int64) * (cols - 1) + c.min(1)
    assert np.all(np.bincount(cells, minlength=(rows - 1) * (cols - 1)) == 2)


def test_trimesh_winding_points_up():
    hf = np.zeros((5, 6), dtype=np.int16)
    v, tri = tu.convert_heightfield_to_trimesh(hf, 0.1, 0.005)
    p = v[tri.astype(np.int64)]
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    assert np.all(n[:, 2] > 0)
    np.testing.assert_allclose(n[:, :2], 0, atol=1e-9)
    # also up-facing on a moderately rough field
    hf = np.random.default_rng(1).integers(-5, 5, size=(5, 6)).astype(np.int16)
    v, tri = tu.convert_heightfield_to_trimesh(hf, 0.1, 0.005)
    p = v[tri.astype(np.int64)]
    assert np.all(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])[:, 2] > 0)


def test_trimesh_slope_threshold_makes_steps_vertical():
    hs, vs = 0.1, 0.005
    hf = np.zeros((8, 6), dtype=np.int16)
    hf[4:, :] = 40           # 0.2 m step between rows 3 and 4 (slope 2 > 0.75)
    hf[:, 5] += 2            # gentle 0.01 m ridge along y (slope 0.1): left alone
    v, _ = tu.convert_heightfield_to_trimesh(hf, hs, vs, slope_threshold=0.75)
    x = v[:, 0].reshape(8, 6)
    y = v[:, 1].reshape(8, 6)
    # the low vertex in front of the step slides under the high one: same x, different z
    np.testing.assert_allclose(x[3], x[4], atol=1e-6)
    np.testing.assert_allclose(x[3], 4 * hs, atol=1e-6)
    # no other row moved in x
    for i in (0, 1, 2, 4, 5, 6, 7):
        np.testing.assert_allclose(x[i], i * hs, atol=1e-6)
    # The diagonal rule (as in Isaac Gym) also fires across this step, so row 3
    # additionally slides one cell in +y (except its last vertex); no other y moves.
    y_grid = np.tile(np.arange(6) * hs, (8, 1))
    np.testing.assert_allclose(np.delete(y, 3, axis=0), np.delete(y_grid, 3, axis=0), atol=1e-6)
    np.testing.assert_allclose(y[3, :5], y_grid[3, 1:], atol=1e-6)
    np.testing.assert_allclose(y[3, 5], y_grid[3, 5], atol=1e-6)
    # without a threshold the step stays a ramp
    v0, _ = tu.convert_heightfield_to_trimesh(hf, hs, vs)
    assert not np.allclose(v0[:, 0].reshape(8, 6)[3], v0[:, 0].reshape(8, 6)[4])

    # a step down along y: the lower vertex behind it moves back (-y)
    hf = np.zeros((4, 8), dtype=np.int16)
    hf[:, :3] = 50
    v, _ = tu.convert_heightfield_to_trimesh(hf, hs, vs, slope_threshold=0.5)
    y = v[:, 1].reshape(4, 8)
    np.testing.assert_allclose(y[:, 3], y[:, 2], atol=1e-6)
    np.testing.assert_allclose(y[:, 3], 2 * hs, atol=1e-6)


def test_trimesh_of_generated_terrain():
    np.random.seed(0)
    t = tu.pyramid_stairs_terrain(make(40, 30), step_width=0.5, step_height=0.1, platform_size=1.0)
    v, tri = tu.convert_heightfield_to_trimesh(t.height_field_raw, HS, VS, slope_threshold=1.5)
    assert v.shape == (40 * 30, 3) and tri.shape == (2 * 39 * 29, 3)
    assert tri.max() < 40 * 30
    np.testing.assert_allclose(v[:, 2], t.height_field_raw.ravel() * VS, atol=1e-6)
    # stair risers are vertical: vertices moved, but never outside the grid
    assert v[:, 0].min() >= 0 and v[:, 0].max() <= 39 * HS + 1e-6
    assert v[:, 1].min() >= 0 and v[:, 1].max() <= 29 * HS + 1e-6


def test_star_import_gives_isaac_gyms_names():
    """Isaac Gym's terrain_utils has no __all__: `from isaacgym.terrain_utils import *` also gives
    the names it imports, and scripts written against it use them (sqrt, choice, gymapi)."""
    names = {}
    exec("from gymlike.terrain_utils import *", names)
    import math
    from gymlike import gymapi, gymutil
    assert names["sqrt"] is math.sqrt and names["choice"] is np.random.choice
    assert names["gymapi"] is gymapi and names["gymutil"] is gymutil and names["np"] is np
    assert callable(names["convert_heightfield_to_trimesh"]) and "SubTerrain" in names
