"""Terrain on the MuJoCo C pipeline: a triangle mesh that is a height map becomes a MuJoCo
heightfield (core/terrain.py heightmap_of), so sims with terrain step in MuJoCo C with MuJoCo's
exact heightfield contacts instead of leaving for Newton's collision pipeline and MuJoCo-Warp."""

import warnings

import mujoco
import numpy as np
import pytest
import torch

from conftest import ASSETS, held_actor, make_sim, options, pose
from gymlike import gymapi, gymtorch, terrain_utils
from gymlike.core import mjc
from gymlike.core.terrain import heightmap_of

HS, VS = 0.1, 0.005


def _rough(levels=4, cols=4, w=40, seed=0):
    """A grid of sub-terrains of terrain_utils' kinds (slopes, noise, stairs, obstacles)."""
    rng = np.random.default_rng(seed)
    np.random.seed(seed)
    hf = np.zeros((levels * w, cols * w), np.int16)
    for i in range(levels):
        for j in range(cols):
            t = terrain_utils.SubTerrain("t", width=w, length=w, vertical_scale=VS, horizontal_scale=HS)
            d = (i + 1) / levels
            kind = (i + j) % 4
            if kind == 0:
                terrain_utils.pyramid_sloped_terrain(t, slope=0.3 * d, platform_size=1.0)
            elif kind == 1:
                terrain_utils.random_uniform_terrain(t, min_height=-0.04 * d, max_height=0.04 * d, step=0.01,
                                                     downsampled_scale=0.2)
            elif kind == 2:
                terrain_utils.pyramid_stairs_terrain(t, step_width=0.4, step_height=0.06 * d, platform_size=1.0)
            else:
                terrain_utils.discrete_obstacles_terrain(t, 0.06 * d, 0.4, 1.0, 8, platform_size=1.0)
            hf[i * w:(i + 1) * w, j * w:(j + 1) * w] = t.height_field_raw
    del rng
    return hf


def _mesh_height(v, t, x, y):
    """The highest point of the mesh over (x, y) (brute force over the triangles nearby)."""
    P, Z = v[t][:, :, :2].astype(np.float64), v[t][:, :, 2].astype(np.float64)
    near = (np.abs(P[:, :, 0] - x).min(1) < 0.3) & (np.abs(P[:, :, 1] - y).min(1) < 0.3)
    best = -np.inf
    for p, z in zip(P[near], Z[near]):
        d1, d2 = p[1] - p[0], p[2] - p[0]
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-12:
            continue
        r = np.array([x, y]) - p[0]
        u, w = (r[0] * d2[1] - r[1] * d2[0]) / den, (d1[0] * r[1] - d1[1] * r[0]) / den
        if u >= -1e-9 and w >= -1e-9 and u + w <= 1 + 1e-9:
            best = max(best, (1 - u - w) * z[0] + u * z[1] + w * z[2])
    return best


def _field_height(field, x, y):
    """The heightfield's surface at (x, y): MuJoCo's cells split along the (+x, +y) diagonal."""
    (x0, y0), step, h = field
    a, b = (x - x0) / step, (y - y0) / step
    i, j = min(int(a), h.shape[0] - 2), min(int(b), h.shape[1] - 2)
    s, t = a - i, b - j
    if s >= t:
        return h[i, j] + s * (h[i + 1, j] - h[i, j]) + t * (h[i + 1, j + 1] - h[i + 1, j])
    return h[i, j] + t * (h[i, j + 1] - h[i, j]) + s * (h[i + 1, j + 1] - h[i, j + 1])


def test_a_height_map_without_walls_becomes_an_exact_heightfield():
    hf = _rough(2, 2)
    v, t = terrain_utils.convert_heightfield_to_trimesh(hf, HS, VS)
    field = heightmap_of(v, t)
    (x0, y0), step, h = field
    assert (x0, y0) == (0.0, 0.0) and step == pytest.approx(HS)
    np.testing.assert_allclose(h, hf * VS, atol=1e-6)                 # the samples are the vertices
    rng = np.random.default_rng(1)
    for x, y in rng.uniform(0.05, 7.8, (40, 2)):                        # and between them, the same surface
        assert _field_height(field, x, y) == pytest.approx(_mesh_height(v, t, x, y), abs=1e-5)


def test_a_long_float32_terrain_keeps_its_lattice_step():
    """A 190 m long terrain of 5 cm cells (extreme-parkour's, legged_gym-style, in float32): its
    shortest edge is ~1e-5 m short of the step, which once made the extent 3,800 steps long
    instead of 3,799, every vertex off the lattice, and the terrain a mesh (Newton's contacts on
    MuJoCo-Warp: 9x slower). The step and the heights are the lattice's."""
    hs = 0.05
    hf = np.zeros((3800, 3), np.int16)
    hf[::7, 1] = 40
    v, t = terrain_utils.convert_heightfield_to_trimesh(hf, hs, VS)
    v = v.astype(np.float32)
    assert (np.diff(np.unique(v[:, 0])).min() < hs - 1e-6)            # (the float32 premise)
    field = heightmap_of(v, t)
    assert field is not None
    (x0, y0), step, h = field
    assert step == pytest.approx(hs, rel=1e-6) and h.shape == hf.shape
    np.testing.assert_allclose(h, hf * VS, atol=1e-6)


def test_vertical_walls_become_ramps_of_a_quarter_step():
    hf = _rough(2, 2)
    v, t = terrain_utils.convert_heightfield_to_trimesh(hf, HS, VS, slope_threshold=0.5)
    field = heightmap_of(v, t)
    (_, _), step, h = field
    assert step == pytest.approx(HS / 4)
    rng = np.random.default_rng(2)
    errors = []
    for x, y in rng.uniform(0.05, 7.8, (300, 2)):
        errors.append(abs(_field_height(field, x, y) - _mesh_height(v, t, x, y)))
    errors = np.array(errors)
    # equal everywhere but within a quarter step of a wall, where the wall is a ramp
    assert np.median(errors) < 1e-5 and (errors < 1e-4).mean() > 0.8


def test_meshes_that_are_not_height_maps_stay_meshes():
    rng = np.random.default_rng(3)
    v = rng.uniform(-1, 1, (30, 3)).astype(np.float32)                   # no lattice
    assert heightmap_of(v, np.arange(30).reshape(10, 3)) is None
    v, t = terrain_utils.convert_heightfield_to_trimesh(np.zeros((10, 10), np.int16), HS, VS)
    assert heightmap_of(v, t[: len(t) // 2]) is None                     # half of it missing


def _hfield_sizes(gym, n, budget, monkeypatch):
    """The sizes (rows x columns) of the heightfields of MuJoCo's geoms in a prepared sim holding
    `n` copies of one stairs mesh (40 x 40 lattice points with vertical walls), side by side, on
    a sample budget."""
    from gymlike.core import terrain
    monkeypatch.setattr(terrain, "SAMPLE_BUDGET", budget)
    sim = make_sim(gym, ground=False)
    t_ = terrain_utils.SubTerrain("t", width=40, length=40, vertical_scale=VS, horizontal_scale=HS)
    terrain_utils.pyramid_stairs_terrain(t_, step_width=0.4, step_height=0.06, platform_size=1.0)
    v, t = terrain_utils.convert_heightfield_to_trimesh(t_.height_field_raw, HS, VS, slope_threshold=0.5)
    for i in range(n):
        tp = gymapi.TriangleMeshParams()
        tp.nb_vertices, tp.nb_triangles = len(v), len(t)
        tp.transform.p = gymapi.Vec3(4.5 * i, 0.0, 0.0)
        gym.add_triangle_mesh(sim, v.flatten(), t.flatten(), tp)
    env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 1)
    gym.create_actor(env, gym.create_box(sim, 0.2, 0.2, 0.2, options()), pose(2.0, 2.0, 1.0), "box", 0, 0)
    gym.prepare_sim(sim)
    m = mjc.c_step(sim.solver).template
    hf = m.geom_dataid[m.geom_type == int(mujoco.mjtGeom.mjGEOM_HFIELD)]
    sizes = [(int(m.hfield_nrow[i]), int(m.hfield_ncol[i])) for i in hf]
    gym.destroy_sim(sim)
    return sizes


def test_many_terrain_meshes_share_one_sample_budget(gym, monkeypatch):
    """The refinement of meshes with walls into heightfield samples (every quarter lattice step)
    is bounded per sim, not per mesh: robot-parkour's 843 barrier meshes, each refined 16-fold
    on a budget of its own, ran a 24 GB machine out of memory in prepare_sim. Alone, a 40 x 40
    stairs mesh is sampled every quarter step (157 x 157); six of them share the budget, each
    sampled every half step, all together within it."""
    budget = 40_000
    assert _hfield_sizes(gym, 1, budget, monkeypatch) == [(157, 157)]
    six = _hfield_sizes(gym, 6, budget, monkeypatch)
    assert six == [(79, 79)] * 6 and sum(r * c for r, c in six) <= budget


STAND = {"HAA": 0.0, "HFE": 0.7, "KFE": -1.4}
NENV = 64


@pytest.mark.slow
def test_quadrupeds_stand_on_rough_terrain_on_the_c_pipeline(gym):
    """64 quadrupeds under PD drives on a generated rough terrain (terrain_utils, vertical walls),
    1000 steps: the sim steps in MuJoCo C (no Newton contacts), MuJoCo drops no contact, nothing
    diverges, and the feet that carry weight rest on the mesh's surface."""
    sim = make_sim(gym, ground=False, dt=1 / 200, substeps=1)
    hf = _rough()
    v, t = terrain_utils.convert_heightfield_to_trimesh(hf, HS, VS, slope_threshold=0.5)
    tp = gymapi.TriangleMeshParams()
    tp.nb_vertices, tp.nb_triangles = len(v), len(t)
    gym.add_triangle_mesh(sim, v.flatten(), t.flatten(), tp)
    asset = gym.load_asset(sim, ASSETS, "urdf/quadruped/quadruped.urdf",
                           options(default_dof_drive_mode=int(gymapi.DOF_MODE_POS)))
    target = np.array([STAND[n.split("_")[1]] for n in gym.get_asset_dof_names(asset)], np.float32)
    rng = np.random.default_rng(4)
    spots = rng.uniform(0.6, 15.4, (NENV, 2))
    for i, (x, y) in enumerate(spots):
        env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 8)   # all over the one terrain
        ground = max(_mesh_height(v, t, x + dx, y + dy) for dx in (-0.3, 0.3) for dy in (-0.2, 0.2))
        held_actor(gym, env, asset, pose(x, y, ground + 0.45), "q", target, 80.0, 2.0, i, 1)
    gym.prepare_sim(sim)
    cs = mjc.c_step(sim.solver)
    assert cs is not None and sim.pipeline is None                    # MuJoCo C, MuJoCo's own contacts
    cf = gymtorch.wrap_tensor(gym.acquire_net_contact_force_tensor(sim))
    body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # (a dropped contact warns)
        for _ in range(1000):
            gym.simulate(sim)
    assert not cs.capacity_seen.any()
    gym.refresh_net_contact_force_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    assert torch.isfinite(body).all()
    nb = gym.get_asset_rigid_body_count(asset)
    feet = [gym.find_asset_rigid_body_index(asset, f"{leg}_foot") for leg in ("LF", "RF", "LH", "RH")]
    b = body.view(NENV, nb, 13)
    f = cf.view(NENV, nb, 3)
    gaps = []
    for e in range(NENV):
        for k in feet:
            if f[e, k, 2] > 5.0:                                       # a foot carrying weight
                x, y, z = b[e, k, 0:3].tolist()
                gaps.append(z - 0.022 - _mesh_height(v, t, x, y))
    gaps = np.array(gaps)
    assert len(gaps) > 100                                             # most feet are down
    # on the surface: within a few mm, except a foot resting on a step's edge (its centre is
    # then beyond the edge, above the lower side)
    assert np.median(np.abs(gaps)) < 0.003 and (gaps > -0.005).all()


def _boxes(gym, arena_kib=None, n=20, z=0.05, spacing=0.11):
    sim = make_sim(gym, dt=1 / 60, substeps=1)
    if arena_kib:
        sim.mujoco_options = {"arena_kib": arena_kib}
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    for e in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        for i in range(n):
            gym.create_actor(env, box, pose(spacing * (i % 5), spacing * (i // 5), z), f"b{i}", e, 0)
    return sim


def test_contacts_beyond_mujocos_arena_are_named_never_dropped_silently(gym):
    """MuJoCo's contacts live in a fixed arena per world (megabytes by default): a scene whose
    contacts do not fit stops with an error that names the envs and the setting that raises
    the arena, and the same scene with it raised (or the default) runs without a word."""
    sim = _boxes(gym, arena_kib=64)                  # 40 boxes on the ground, 4 contacts each
    with pytest.raises(RuntimeError, match=r"MuJoCo stopped env\(s\) 0, 1 .*arena \(64 KiB per world\).*'arena_kib'"):
        gym.simulate(sim)
    gym.destroy_sim(sim)
    for kib in (256, None):
        sim = _boxes(gym, arena_kib=kib)
        gym.prepare_sim(sim)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(30):
                gym.simulate(sim)
        z = gym.get_sim_rigid_body_states(sim, gymapi.STATE_POS)["pose"]["p"]["z"]
        assert z == pytest.approx(0.05, abs=2e-3)     # every box rests on the ground
        gym.destroy_sim(sim)


def test_contacts_beyond_mujoco_warps_buffers_are_reported_once(gym, monkeypatch):
    """On MuJoCo-Warp (the CUDA path) contacts beyond its per-world buffer are dropped: gymlike
    reads MuJoCo-Warp's overflow flags with the NaN flags and says so once, naming the envs and
    the setting; gymlike's own sizing of the same scene overflows nothing. (The boxes start in
    the air and apart: Newton raises nconmax to the contacts of the initial state.)"""
    import warnings
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "warp")
    for nconmax in (8, None):
        sim = _boxes(gym, n=10, z=0.4, spacing=0.3)     # 10 boxes per env land (4 contacts each)
        if nconmax:
            sim.mujoco_options = {"nconmax": nconmax}
        gym.prepare_sim(sim)
        assert mjc.c_step(sim.solver) is None
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for _ in range(30):
                gym.simulate(sim)
        told = [str(w.message) for w in seen if "overflowed" in str(w.message)]
        if nconmax:
            assert len(told) == 1, told
            assert "env(s) 0, 1" in told[0] and "'nconmax'" in told[0]
        else:
            assert told == []
        gym.destroy_sim(sim)
