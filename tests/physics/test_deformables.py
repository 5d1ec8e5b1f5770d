"""FleX deformables on Newton (core/deformables.py): tet grids, cloth grids, the particle state
tensor, tetrahedra/triangle queries, soft materials, and their error paths. One small SIM_FLEX
scene per topic, built once per module (SolverVBD compiles its kernels on first use)."""

import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch

gym = gymapi.acquire_gym()

E, NU, RHO, H, N = 5e4, 0.3, 1000.0, 0.4, 4     # soft cube: Young's modulus, Poisson, density, side, cells


def _sim(substeps=4):
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0, 0, -9.81)
    p.dt = 1.0 / 60.0
    p.substeps = substeps
    sim = gym.create_sim(0, -1, gymapi.SIM_FLEX, p)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, pp)
    return sim


def _material(e=E, nu=NU):
    m = gymapi.SoftMaterial()
    m.youngs, m.poissons, m.damping = e, nu, 0.0
    return m


@pytest.fixture(scope="module")
def cubes():
    """Two envs, each a soft cube resting on the ground plus a rigid box, stepped 1.5 s."""
    sim = _sim(substeps=2)
    grid = gym.create_tet_grid(sim, _material(), N, N, N, H / N, H / N, H / N, RHO, False, False, False, False)
    box = gym.create_box(sim, 0.2, 0.2, 0.2)
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, grid, gymapi.Transform(gymapi.Vec3(-0.2, -0.2, 0.0)), "cube", i, 0)
        gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0.6, 0.0, 0.1)), "box", i, 0)
        envs.append(env)
    mats = gym.get_actor_soft_materials(envs[1], 0)     # env 1's cube: twice as stiff (set before the build)
    mats[0].youngs = 2 * E
    gym.set_actor_soft_materials(envs[1], 0, mats)
    gym.prepare_sim(sim)
    pt = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
    gym.refresh_particle_state_tensor(sim)
    rest = pt.clone()
    heights = []
    half = len(pt) // 2
    for f in range(90):
        gym.simulate(sim)
        if f >= 45:            # the last 0.75 s: average out the (undamped) oscillation
            gym.refresh_particle_state_tensor(sim)
            heights.append([float(pt[s, 2].max() - pt[s, 2].min()) for s in (slice(0, half), slice(half, None))])
    gym.refresh_particle_state_tensor(sim)
    return dict(sim=sim, envs=envs, grid=grid, pt=pt, rest=rest, heights=np.array(heights))


def test_soft_cube_compresses_as_its_youngs_modulus_predicts(cubes):
    # A column of height H under its own weight, free to bulge sideways, shortens by
    # delta = rho g H^2 / (2 E) (linear elasticity, uniaxial stress): 15.7 mm here. Measured
    # with Newton's VBD on a 4x4x4-cell mesh (6 tetrahedra per cell), 2 substeps of 1/120 s,
    # averaged over frames 45-90: 11.9 mm (11.6 mm with 4 substeps over the second second; the
    # base held by friction stiffens a squat cube; XPBD's tetrahedra sag 121 mm, 8x). Tolerance:
    # 0.6-1.4 x the prediction. The cube of env 1 has twice the modulus and must compress half as
    # much (0.35-0.65 x): compression follows 1 / E.
    predicted = RHO * 9.81 * H * H / (2 * E)
    measured = H - cubes["heights"].mean(0)
    print(f"compression: measured {measured[0] * 1000:.2f} mm (E) and {measured[1] * 1000:.2f} mm (2E), "
          f"predicted {predicted * 1000:.2f} mm (E)")
    assert 0.6 * predicted < measured[0] < 1.4 * predicted
    assert 0.35 < measured[1] / measured[0] < 0.65


def test_rigid_box_rests_on_ground_next_to_the_cube(cubes):
    rs = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(cubes["sim"]))
    gym.refresh_actor_root_state_tensor(cubes["sim"])
    # actors: cube, box per env; the cube (no rigid body) has the row of an identity pose at rest,
    # which set_actor_root_state_tensor takes back (and ignores)
    assert abs(float(rs[1, 2]) - 0.1) < 0.02 and abs(float(rs[3, 2]) - 0.1) < 0.02   # the boxes rest on the ground
    ident = torch.tensor([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], dtype=torch.float32)
    assert torch.equal(rs[0], ident) and torch.equal(rs[2], ident)
    before = rs.clone()
    assert gym.set_actor_root_state_tensor(cubes["sim"], gymtorch.unwrap_tensor(rs.clone()))
    gym.refresh_actor_root_state_tensor(cubes["sim"])
    assert torch.equal(rs, before)
    # a teleport of env 0's box (VBD derives velocities from the previous pose: the write must
    # rebase it) leaves it falling from the new height, not launched at 0.3 m / substep
    lifted = rs.clone()
    lifted[1, 2] += 0.3
    ids = torch.tensor([1], dtype=torch.int32)
    gym.set_actor_root_state_tensor_indexed(cubes["sim"], gymtorch.unwrap_tensor(lifted),
                                            gymtorch.unwrap_tensor(ids), 1)
    gym.simulate(cubes["sim"])
    gym.refresh_actor_root_state_tensor(cubes["sim"])
    assert abs(float(rs[1, 9])) < 0.5 and float(rs[1, 2]) > 0.35
    assert abs(float(rs[3, 2]) - float(before[3, 2])) < 0.005 and abs(float(rs[3, 9])) < 0.5


def test_counts_ranges_and_layout(cubes):
    sim, envs, pt = cubes["sim"], cubes["envs"], cubes["pt"]
    per_actor = (N + 1) ** 3
    assert tuple(pt.shape) == (2 * per_actor, 7)
    ntet = 6 * N ** 3
    assert gym.get_sim_tetrahedra_count(sim) == 2 * ntet
    assert gym.get_sim_triangle_count(sim) == 2 * (2 * 6 * N * N)
    r = gym.get_actor_tetrahedra_range(envs[1], 0, 0)
    assert (r.start, r.count) == (ntet, ntet)
    t = gym.get_actor_triangle_range(envs[1], 0, 0)
    assert (t.start, t.count) == (2 * 6 * N * N, 2 * 6 * N * N)
    idx, stress = gym.get_sim_tetrahedra(sim)
    assert len(idx) == 4 * 2 * ntet and len(stress) == 2 * ntet
    # env 1's tetrahedra use env 1's particles only
    assert min(idx[4 * ntet:]) == per_actor
    # positions are env-local: both cubes were created at the same place in their env
    rest = cubes["rest"]
    assert torch.allclose(rest[:per_actor, :3], rest[per_actor:, :3], atol=1e-5)
    assert float(rest[:, 2].min()) == pytest.approx(0.0, abs=1e-6)
    assert float(pt[:, 3].min()) > 0                 # inverse masses (nothing pinned)
    # the cube's bottom carries its weight: compressive vertical stress, about rho g H at the base
    sz = np.array([s.z.z for s in stress[:ntet]])
    assert sz.min() < -0.3 * RHO * 9.81 * H


def test_triangles_match_the_particle_tensor(cubes):
    sim, pt = cubes["sim"], cubes["pt"]
    idx, parents, normals = gym.get_sim_triangles(sim)
    tri = np.array(idx).reshape(-1, 3)
    x = pt[:, :3].numpy().astype(np.float64)
    n = np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    got = np.array([(v.x, v.y, v.z) for v in normals])
    assert np.allclose(n, got, atol=1e-3)
    # surface normals point outwards: from the cube's centre to the face
    c = x[tri].mean(1) - x[: len(x) // 2].mean(0)
    assert (np.einsum("ij,ij->i", c[: len(c) // 2], got[: len(c) // 2]) > 0).all()
    tets = np.array(gym.get_sim_tetrahedra(sim)[0]).reshape(-1, 4)
    for k in (0, len(tri) - 1):    # each triangle's parent tetrahedron holds its three particles
        assert set(tri[k]) <= set(tets[parents[k]])


def test_soft_contacts_touch_the_ground(cubes):
    c = gym.get_soft_contacts(cubes["sim"])
    assert len(c) > 0
    assert (c["bodyIndex"] == -1).all()                # the ground plane
    assert np.allclose(c["normal"]["z"], 1.0, atol=1e-4)


def test_indexed_set_and_reset_change_only_listed_actors(cubes):
    sim, pt = cubes["sim"], cubes["pt"]
    gym.refresh_particle_state_tensor(sim)
    before = pt.clone()
    new = pt.clone()
    new[:, 2] += 0.5                                   # lift every particle ...
    ids = torch.tensor([2], dtype=torch.int32)         # ... but write env 1's cube only (actor 2)
    assert gym.set_particle_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), 1)
    gym.refresh_particle_state_tensor(sim)
    half = len(pt) // 2
    assert torch.equal(pt[:half], before[:half])
    assert torch.allclose(pt[half:, 2], before[half:, 2] + 0.5)
    # reset env 1's cube to rest: its particles return to their creation positions, env 0's stay
    assert gym.reset_actor_particles_to_rest(cubes["envs"][1], 0)
    gym.refresh_particle_state_tensor(sim)
    assert torch.equal(pt[:half], before[:half])
    assert torch.allclose(pt[half:, :3], cubes["rest"][half:, :3], atol=1e-6)
    assert torch.count_nonzero(pt[half:, 4:7]) == 0


def test_errors_change_nothing(cubes):
    sim, envs, pt = cubes["sim"], cubes["envs"], cubes["pt"]
    gym.refresh_particle_state_tensor(sim)
    before = pt.clone()
    good = pt.clone()
    with pytest.raises(ValueError, match="shape"):
        gym.set_particle_state_tensor(sim, gymtorch.unwrap_tensor(good[:-1].clone()))
    bad = good.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        gym.set_particle_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    bad = good.clone()
    bad[-1, 3] = -1.0
    with pytest.raises(ValueError, match="inverse mass"):
        gym.set_particle_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    with pytest.raises(IndexError):
        gym.set_particle_state_tensor_indexed(sim, gymtorch.unwrap_tensor(good),
                                              gymtorch.unwrap_tensor(torch.tensor([9], dtype=torch.int32)), 1)
    with pytest.raises(IndexError):
        gym.get_actor_tetrahedra_range(envs[0], 0, 1)
    with pytest.raises(IndexError):
        gym.reset_actor_particles_to_rest(envs[0], 7)
    mats = gym.get_actor_soft_materials(envs[0], 0)
    mats[0].poissons = 0.5
    with pytest.raises(ValueError, match="poissons"):
        gym.set_actor_soft_materials(envs[0], 0, mats)
    with pytest.raises(ValueError, match="soft bodies"):
        gym.set_actor_soft_materials(envs[0], 0, mats + mats)
    assert gym.get_actor_soft_materials(envs[0], 0)[0].poissons == pytest.approx(NU)
    gym.refresh_particle_state_tensor(sim)
    assert torch.equal(pt, before)


def test_soft_materials_per_actor(cubes):
    sim, envs = cubes["sim"], cubes["envs"]
    assert gym.get_asset_soft_body_count(cubes["grid"]) == 1
    assert gym.get_asset_soft_materials(cubes["grid"])[0].youngs == pytest.approx(E)
    ntet = 6 * N ** 3
    mu = E / (2 * (1 + NU))
    m = sim.model.tet_materials.numpy()        # the material set before the build reached Newton
    assert np.allclose(m[:ntet, 0], mu, rtol=1e-5) and np.allclose(m[ntet:, 0], 2 * mu, rtol=1e-5)
    mats = gym.get_actor_soft_materials(envs[1], 0)
    assert mats[0].youngs == pytest.approx(2 * E)
    mats[0].youngs, mats[0].poissons = 3 * E, 0.4
    assert gym.set_actor_soft_materials(envs[1], 0, mats)
    assert gym.get_actor_soft_materials(envs[1], 0)[0].youngs == pytest.approx(3 * E)
    assert gym.get_actor_soft_materials(envs[0], 0)[0].youngs == pytest.approx(E)
    m = sim.model.tet_materials.numpy()
    lam = 3 * E * 0.4 / (1.4 * 0.2)
    assert np.allclose(m[:ntet, 0], mu, rtol=1e-5)
    assert np.allclose(m[ntet:, 0], 3 * E / 2.8, rtol=1e-5) and np.allclose(m[ntet:, 1], lam, rtol=1e-5)


def test_cloth_pinned_at_two_corners_hangs():
    sim = _sim(substeps=4)
    w, ln, sp = 5, 5, 0.1
    cloth = gym.create_cloth_grid(sim, w, ln, sp, sp)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, cloth, gymapi.Transform(gymapi.Vec3(0, 0, 1.0)), "cloth", 0, 0)
    assert gym.get_actor_soft_body_count(env, 0) == 1
    mats = gym.get_actor_soft_materials(env, 0)
    assert gym.set_actor_soft_materials(env, 0, mats)       # its own material back: accepted
    mats[0].youngs = 1e5
    with pytest.raises(ValueError, match="cloth"):
        gym.set_actor_soft_materials(env, 0, mats)
    gym.prepare_sim(sim)
    pt = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
    gym.refresh_particle_state_tensor(sim)
    assert tuple(pt.shape) == (w * ln, 7)
    assert torch.allclose(pt[:, 2], torch.full((w * ln,), 1.0))
    pins = [0, ln - 1]                                 # the two corners at x = 0 (particle i*ln + j)
    st = pt.clone()
    st[pins, 3] = 0.0                                  # inverse mass 0: pinned
    gym.set_particle_state_tensor(sim, gymtorch.unwrap_tensor(st))
    for _ in range(60):
        gym.simulate(sim)
    gym.refresh_particle_state_tensor(sim)
    assert torch.allclose(pt[pins, :3], st[pins, :3], atol=1e-5)     # the pinned corners stayed
    far = [(w - 1) * ln, w * ln - 1]
    assert float(pt[far, 2].max()) < 1.0 - 0.25        # the free edge swung down
    # no particle hangs further from the pins than the cloth reaches
    d = torch.linalg.norm(pt[:, :3] - st[0, :3], dim=1)
    assert float(d.max()) < 1.15 * np.hypot((w - 1) * sp, (ln - 1) * sp)
    idx, parents, normals = gym.get_sim_triangles(sim)
    assert len(parents) == 2 * (w - 1) * (ln - 1) and set(parents) == {-1}
    assert gym.get_sim_tetrahedra_count(sim) == 0
    tri = np.array(idx).reshape(-1, 3)
    x = pt[:, :3].numpy()
    n = np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    assert np.allclose(n, [(v.x, v.y, v.z) for v in normals], atol=1e-3)


def test_physx_refuses_deformables():
    p = gymapi.SimParams()
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    with pytest.raises(NotImplementedError, match="SIM_FLEX"):
        gym.create_tet_grid(sim, _material(), 1, 1, 1, 0.1, 0.1, 0.1, 1000.0, False, False, False, False)
    with pytest.raises(NotImplementedError, match="SIM_FLEX"):
        gym.create_cloth_grid(sim, 3, 3, 0.1, 0.1)
    assert sim.assets == []
    box = gym.create_box(sim, 0.1, 0.1, 0.1)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, gymapi.Transform(), "box", 0, 0)
    with pytest.raises(NotImplementedError, match="SIM_FLEX"):
        gym.acquire_particle_state_tensor(sim)
    assert sim.model is None                           # the refusal did not build the sim
    with pytest.raises(NotImplementedError, match="Newton"):
        gym.get_pneumatic_pressure(env, 0, 0)


def test_bad_grid_arguments():
    sim = _sim()
    with pytest.raises(ValueError, match="youngs"):
        gym.create_tet_grid(sim, _material(e=-1.0), 1, 1, 1, 0.1, 0.1, 0.1, 1000.0, False, False, False, False)
    with pytest.raises(ValueError, match="dim"):
        gym.create_tet_grid(sim, _material(), 0, 1, 1, 0.1, 0.1, 0.1, 1000.0, False, False, False, False)
    with pytest.raises(ValueError, match="width"):
        gym.create_cloth_grid(sim, 1, 3, 0.1, 0.1)
    with pytest.raises(ValueError, match="spacing"):
        gym.create_cloth_grid(sim, 3, 3, 0.0, 0.1)
    assert sim.assets == []


def test_rigid_box_rests_on_a_soft_cube():
    # two-way coupling: a 0.9 kg plate (wider than the cube, so that it lies on all 9 top
    # particles) dropped on a soft cube comes to rest on its top face, held up by the cube
    sim = _sim(substeps=4)
    side = 0.2
    grid = gym.create_tet_grid(sim, _material(e=2e4), 2, 2, 2, side / 2, side / 2, side / 2, RHO,
                               False, False, False, False)
    o = gymapi.AssetOptions()
    o.density = 100.0
    box = gym.create_box(sim, 0.3, 0.3, 0.1, o)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, grid, gymapi.Transform(gymapi.Vec3(-side / 2, -side / 2, 0.0)), "cube", 0, 0)
    gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0.0, 0.0, side + 0.1)), "box", 0, 0)
    gym.prepare_sim(sim)
    for _ in range(60):
        gym.simulate(sim)
    pt = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
    gym.refresh_particle_state_tensor(sim)
    rs = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    top = float(pt[:, 2].max())
    box_z = float(rs[1, 2])
    print(f"plate bottom {box_z - 0.05:.4f} m, cube top {top:.4f} m")
    assert abs(box_z - 0.05 - top) < 0.015         # the plate's bottom face lies on the cube's top
    assert box_z > side * 0.8                      # ... held up by the cube, not fallen through it
    assert float(rs[1, 9].abs()) < 0.05            # at rest


def test_flex_sim_without_deformables_has_an_empty_particle_tensor():
    sim = _sim()
    box = gym.create_box(sim, 0.1, 0.1, 0.1)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0, 0, 0.05)), "box", 0, 0)
    t = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
    assert tuple(t.shape) == (0, 7)
    assert gym.refresh_particle_state_tensor(sim)
    assert gym.get_sim_tetrahedra_count(sim) == 0 and gym.get_sim_triangles(sim) == ([], [], [])
    assert len(gym.get_soft_contacts(sim)) == 0
    assert type(sim.solver).__name__ == "SolverXPBD"     # rigid-only SIM_FLEX sims keep XPBD


URDF = """<?xml version="1.0"?>
<robot name="soft_on_a_post">
  <link name="base">
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.05 0.05 0.1"/></geometry></collision>
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hold" type="fixed"><parent link="base"/><child link="blob"/></joint>
  <link name="blob">
    <fem>
      <origin xyz="0.3 0 0.2" rpy="0 0 0"/>
      <density value="500"/>
      <youngs value="3e4"/>
      <poissons value="0.35"/>
      <damping value="0.01"/>
      <tetmesh filename="{tet}"/>
    </fem>
  </link>
</robot>
"""


def _tet_file(path):
    """A 0.2 m cube of 5 tetrahedra, in the .tet format Isaac Gym's soft links use."""
    v = [(x, y, z) for x in (0, 0.2) for y in (0, 0.2) for z in (0, 0.2)]
    t = [(0, 1, 2, 4), (3, 1, 2, 7), (5, 1, 4, 7), (6, 2, 4, 7), (1, 2, 4, 7)]
    path.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in v) + "".join(f"t {a} {b} {c} {d}\n" for a, b, c, d in t))


@pytest.mark.slow      # (~7 s; the fast tier keeps the soft cube and cloth)
def test_urdf_soft_link(tmp_path):
    _tet_file(tmp_path / "blob.tet")
    (tmp_path / "post.urdf").write_text(URDF.format(tet="blob.tet"))
    sim = _sim()
    o = gymapi.AssetOptions()
    o.fix_base_link = True
    asset = gym.load_asset(sim, str(tmp_path), "post.urdf", o)
    assert gym.get_asset_soft_body_count(asset) == 1
    m = gym.get_asset_soft_materials(asset)[0]
    assert (m.youngs, m.poissons, m.damping) == pytest.approx((3e4, 0.35, 0.01))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(0.0, 0.0, 0.1)), "post", 0, 0)
    pt = gymtorch.wrap_tensor(gym.acquire_particle_state_tensor(sim))
    gym.refresh_particle_state_tensor(sim)
    # the mesh sits at the link frame (actor pose + fixed joint) + the <fem> origin
    assert tuple(pt.shape) == (8, 7)
    assert torch.allclose(pt[:, :3].min(0).values, torch.tensor([0.3, 0.0, 0.3]), atol=1e-5)
    # masses: density x volume (0.2^3 m^3 x 500 kg/m^3 = 4 kg) over the particles
    assert float((1.0 / pt[:, 3]).sum()) == pytest.approx(4.0, rel=1e-4)
    assert gym.get_sim_tetrahedra_count(sim) == 5 and gym.get_sim_triangle_count(sim) == 12
    for _ in range(45):
        gym.simulate(sim)
    gym.refresh_particle_state_tensor(sim)
    assert 0.0 < float(pt[:, 2].min()) < 0.03                 # fell 0.3 m and lies on the ground
    assert float(pt[:, 2].max()) > 0.15                       # still a cube, not flattened


def test_urdf_soft_link_errors(tmp_path):
    sim = _sim()
    (tmp_path / "missing.urdf").write_text(URDF.format(tet="nowhere.tet"))
    with pytest.raises(FileNotFoundError, match="nowhere.tet"):
        gym.load_asset(sim, str(tmp_path), "missing.urdf")
    (tmp_path / "bad.tet").write_text("v 0 0 0\nv 1 0 0\nq 1 2 3\n")
    (tmp_path / "bad.urdf").write_text(URDF.format(tet="bad.tet"))
    with pytest.raises(gymapi.GymlikeError, match=r"bad.tet:3"):
        gym.load_asset(sim, str(tmp_path), "bad.urdf")
    assert sim.assets == []
    _tet_file(tmp_path / "blob.tet")
    (tmp_path / "post.urdf").write_text(URDF.format(tet="blob.tet"))
    physx = gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams())
    with pytest.raises(NotImplementedError, match="SIM_FLEX"):
        gym.load_asset(physx, str(tmp_path), "post.urdf")
