"""Static terrain in the sim: a terrain_utils height field added with add_triangle_mesh or
add_heightfield carries dropped boxes at the terrain height under them, on both engines."""

import numpy as np
import pytest

from conftest import make_sim, options, pose
from gymlike import gymapi, terrain_utils

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)

HS, VS = 0.1, 0.005          # horizontal / vertical scale [m]
BORDER = 4.0                 # the terrain spans [-4, 4] x [-4, 4]
HALF = 0.1                   # box half size


def _terrain():
    t = terrain_utils.SubTerrain("stairs", width=80, length=80, vertical_scale=VS, horizontal_scale=HS)
    terrain_utils.pyramid_stairs_terrain(t, step_width=1.0, step_height=0.15, platform_size=1.5)
    return t.height_field_raw


def _plateau_points(hf, margin=0.35):
    """Points whose surroundings (+- margin) are flat, one per distinct height."""
    found = {}
    for x in np.arange(-3.5, 3.51, 0.25):
        for y in np.arange(-3.5, 3.51, 0.25):
            i0, i1 = int(round((x - margin + BORDER) / HS)), int(round((x + margin + BORDER) / HS))
            j0, j1 = int(round((y - margin + BORDER) / HS)), int(round((y + margin + BORDER) / HS))
            patch = hf[i0:i1 + 1, j0:j1 + 1]
            if patch.min() == patch.max() and patch.max() not in found:
                found[int(patch.max())] = (float(x), float(y), float(patch.max() * VS))
    return sorted(found.values(), key=lambda p: p[2])


def _drop_boxes(gym, engine, kind, points):
    sim = make_sim(gym, engine, ground=False, dt=1.0 / 120.0, substeps=2)
    hf = _terrain()
    if kind == "mesh":
        verts, tris = terrain_utils.convert_heightfield_to_trimesh(hf, HS, VS, slope_threshold=1.5)
        tp = gymapi.TriangleMeshParams()
        tp.nb_vertices, tp.nb_triangles = verts.shape[0], tris.shape[0]
        tp.transform.p = gymapi.Vec3(-BORDER, -BORDER, 0.0)
        gym.add_triangle_mesh(sim, verts.flatten(), tris.flatten(), tp)
    else:
        hp = gymapi.HeightFieldParams()
        hp.row_scale = hp.column_scale = HS
        hp.vertical_scale = VS
        hp.nbRows, hp.nbColumns = hf.shape
        hp.transform.p = gymapi.Vec3(-BORDER, -BORDER, 0.0)
        gym.add_heightfield(sim, hf, hp)
    box = gym.create_box(sim, 2 * HALF, 2 * HALF, 2 * HALF, options())
    envs = []
    for x, y, h in points:
        env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 4)   # all envs at the origin
        gym.create_actor(env, box, pose(x, y, h + HALF + 0.3), "box", len(envs), 0)
        envs.append(env)
    for _ in range(120):
        gym.simulate(sim)
    out = [gym.get_actor_rigid_body_states(e, 0, gymapi.STATE_POS)["pose"]["p"][0] for e in envs]
    gym.destroy_sim(sim)
    return out


@pytest.mark.parametrize("engine", ["physx", "flex"])
@pytest.mark.parametrize("kind", ["mesh", "heightfield"])
def test_box_rests_on_terrain(gym, engine, kind):
    points = _plateau_points(_terrain())
    assert len(points) >= 4                                      # several distinct step heights
    rest = _drop_boxes(gym, engine, kind, points)
    errors = []
    for (x, y, h), p in zip(points, rest):
        assert abs(p["x"] - x) < 0.05 and abs(p["y"] - y) < 0.05, f"box at ({x}, {y}) slid to {p}"
        errors.append(float(p["z"]) - (h + HALF))
    print(f"{engine}/{kind}: heights {[round(h, 3) for _, _, h in points]} "
          f"rest-height errors [mm] {[round(1000 * e, 2) for e in errors]}")
    # resting on the terrain surface under the box, not on a convex hull or the grid's bounding box
    assert max(abs(e) for e in errors) < 0.01


def test_terrain_errors(gym):
    sim = make_sim(gym, "physx", ground=False)
    tp = gymapi.TriangleMeshParams()
    verts = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError, match="triangle indices"):
        gym.add_triangle_mesh(sim, verts, np.array([0, 1, 5], np.uint32), tp)
    with pytest.raises(TypeError, match="integer"):
        gym.add_triangle_mesh(sim, verts, np.array([0.0, 1.0, 2.0]), tp)
    tp.nb_vertices = 10
    with pytest.raises(ValueError, match="nb_vertices"):
        gym.add_triangle_mesh(sim, verts, np.array([0, 1, 2], np.uint32), tp)
    with pytest.raises(TypeError, match="TriangleMeshParams"):
        gym.add_triangle_mesh(sim, verts, np.array([0, 1, 2], np.uint32), gymapi.HeightFieldParams())
    hp = gymapi.HeightFieldParams()
    hp.nbRows, hp.nbColumns = 3, 3
    with pytest.raises(ValueError, match="nbRows x nbColumns"):
        gym.add_heightfield(sim, np.zeros(10, np.int16), hp)
    hp.row_scale = 0.0
    with pytest.raises(ValueError, match="row_scale"):
        gym.add_heightfield(sim, np.zeros(9, np.int16), hp)
    assert sim.static_meshes == []                              # nothing half-applied
