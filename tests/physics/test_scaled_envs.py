"""Envs whose actors differ only in scale keep one Newton world each (issue 42).

Domain randomization of scale (IsaacGymEnvs' `actor_params: scale`, Isaac Gym's actor_scaling
example) gives every env the same assets at different sizes. Such envs used to be merged into
one shared world; now each keeps its own MuJoCo world, whose geom sizes, body frames, masses
and inertias are that env's. The oracle is gymlike itself with a single env at that scale (a
model MuJoCo compiles at that size): every env of the mixed sim must move as that one does.
Two things Newton's per-world conversion leaves to gymlike are checked on purpose: the frames
of bodies welded by fixed joints (a pendulum's tip) and, on MuJoCo C, the midphase boxes of
multi-geom bodies (a dumbbell of two spheres resting on the ground).
"""

import mujoco
import numpy as np
import pytest

from gymlike import gymapi
from conftest import make_sim, options, pose, write

DT = 1.0 / 60.0
SCALES = (1.0, 1.6, 0.6)

# a fixed-base pendulum whose bob is welded to the rod (a fixed joint), with its rod length, bob
# radius and mass and the bob's arm as parameters
PENDULUM_OF = """<robot name="pendulum">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="rod"><inertial><origin xyz="0 0 -{half}"/><mass value="0.2"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -{half}"/><geometry><box size="0.02 0.02 {rod}"/></geometry></collision></link>
  <link name="bob"><inertial><mass value="{mass}"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="{bob}"/></geometry></collision></link>
  <joint name="swing" type="revolute"><parent link="base"/><child link="rod"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="100"/></joint>
  <joint name="weld" type="fixed"><parent link="rod"/><child link="bob"/><origin xyz="0 0 -{arm}"/></joint>
</robot>"""
PENDULUM = PENDULUM_OF.format(rod=0.2, half=0.1, bob=0.04, mass=1, arm=0.3)

# a free dumbbell of two spheres on a bar (one body, three geoms)
DUMBBELL = """<robot name="dumbbell">
  <link name="bar"><inertial><mass value="1"/>\
<inertia ixx="2e-3" iyy="2e-3" izz="2e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="-0.1 0 0"/><geometry><sphere radius="0.03"/></geometry></collision>
    <collision><origin xyz="0.1 0 0"/><geometry><sphere radius="0.03"/></geometry></collision>
    <collision><origin rpy="0 1.5708 0"/><geometry><cylinder radius="0.01" length="0.2"/></geometry></collision></link>
</robot>"""


# a table of two boxes (MuJoCo's midphase runs between bodies of several geoms)
TABLE = """<robot name="table">
  <link name="top"><inertial><mass value="5"/>\
<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.6 0.4 0.1"/></geometry></collision>
    <collision><origin xyz="0.1 0 -0.02"/><geometry><box size="0.2 0.2 0.06"/></geometry></collision></link>
</robot>"""


def _scene(gym, tmp_path, scales, frames):
    """Envs with a pendulum started at 1 rad and a dumbbell dropped 2 cm onto a table (body
    against body: MuJoCo's midphase), pendulum and dumbbell at the env's scale; -> (sim,
    positions (frames, envs, bodies, 3))."""
    write(tmp_path, "pendulum.urdf", PENDULUM)
    write(tmp_path, "dumbbell.urdf", DUMBBELL)
    sim = make_sim(gym, dt=DT, substeps=2)
    pend = gym.load_asset(sim, str(tmp_path), "pendulum.urdf", options(fix_base_link=True))
    bell = gym.load_asset(sim, str(tmp_path), "dumbbell.urdf", options())
    write(tmp_path, "table.urdf", TABLE)
    table = gym.load_asset(sim, str(tmp_path), "table.urdf", options(fix_base_link=True))
    envs = []
    for i, s in enumerate(scales):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        p = gym.create_actor(env, pend, pose(z=1.0), "pendulum", i, 0)
        gym.set_actor_scale(env, p, s)
        gym.create_actor(env, table, pose(x=0.5, z=0.05), "table", i, 0)
        b = gym.create_actor(env, bell, pose(x=0.5, z=0.1 + 0.03 * s + 0.02), "dumbbell", i, 0)
        gym.set_actor_scale(env, b, s)
        st = gym.get_actor_dof_states(env, p, gymapi.STATE_ALL)
        st["pos"][0] = 1.0
        gym.set_actor_dof_states(env, p, st, gymapi.STATE_ALL)
        envs.append(env)
    return sim, _run(gym, sim, envs, frames)


def _run(gym, sim, envs, frames):
    """Simulate `frames` frames -> body positions (frames, envs, bodies, 3)."""
    out = []
    for _ in range(frames):
        gym.simulate(sim)
        out.append([np.stack([gym.get_env_rigid_body_states(e, gymapi.STATE_POS)["pose"]["p"][k] for k in "xyz"], -1)
                    for e in envs])
    return np.asarray(out)


@pytest.mark.parametrize("pipeline", ["mujoco-c", "warp"])
def test_envs_at_different_scales_move_as_each_scale_alone(gym, tmp_path, monkeypatch, pipeline):
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    frames = 30
    sim, mixed = _scene(gym, tmp_path, SCALES, frames)
    assert not sim.one_world and int(sim.model.world_count) == len(SCALES)
    for i, s in enumerate(SCALES):
        single, alone = _scene(gym, tmp_path, [s], frames)
        err = np.abs(mixed[:, i] - alone[:, 0]).max()
        assert err < 1e-4, f"scale {s}: {err:.2e} m from the env simulated alone"
        if pipeline == "mujoco-c":
            # what MuJoCo C steps in that world is what its compiler makes at that scale,
            # midphase boxes included (Newton's per-world values do not cover those)
            import copy
            mine = sim.solver.batch.get_model(i, copy.copy(sim.solver.template))
            ref = single.solver.batch.get_model(0, copy.copy(single.solver.template))
            for f in ("bvh_aabb", "geom_size", "geom_aabb", "body_mass", "body_inertia"):
                assert np.allclose(getattr(mine, f), getattr(ref, f), rtol=1e-5, atol=1e-7), f"scale {s}: {f}"
        gym.destroy_sim(single)
        # the physics really is that scale's: the bob hangs 0.3 s below the pivot (the
        # pendulum swings on), the dumbbell rests on its spheres on the table, 0.03 s above it
        bob = alone[:, 0, 2]
        assert np.linalg.norm(bob[0] - np.array([0.0, 0.0, 1.0])) == pytest.approx(0.3 * s, rel=1e-3)
        assert mixed[-1, i, 4, 2] == pytest.approx(0.1 + 0.03 * s, abs=2e-3)
    gym.destroy_sim(sim)


def _mesh_boxes(gym, scales, frames=60):
    """Envs each holding the project's mesh box at its scale, dropped 2 cm -> (sim, heights
    (frames, envs))."""
    from conftest import ASSETS
    sim = make_sim(gym, dt=DT, substeps=2)
    box = gym.load_asset(sim, ASSETS + "/urdf/mesh_objects", "mesh_box.urdf", options())
    envs = []
    for i, s in enumerate(scales):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        a = gym.create_actor(env, box, pose(z=0.05 * s + 0.02), "box", i, 0)
        gym.set_actor_scale(env, a, s)
        envs.append(env)
    z = []
    for _ in range(frames):
        gym.simulate(sim)
        z.append([float(gym.get_env_rigid_body_states(e, gymapi.STATE_POS)["pose"]["p"]["z"][0]) for e in envs])
    return sim, np.asarray(z)


@pytest.mark.parametrize("pipeline", ["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def test_scaled_mesh_colliders_collide_at_each_envs_scale(gym, monkeypatch, pipeline):
    """Meshes at different scales per env are per-world mesh assets (Newton's). MuJoCo C's
    compiler makes convex hulls only for the meshes its template's geoms collide with (world
    0's), so the C template carries one non-colliding geom per other mesh: every env's mesh
    box falls and rests as that scale alone does (DeXtreme's ADR scales its hand per env: it
    stepped on MuJoCo-Warp before, 7x slower on the CPU)."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    from gymlike.core.mjc import SolverMuJoCoC
    sim, mixed = _mesh_boxes(gym, SCALES)
    assert not sim.one_world and int(sim.model.world_count) == len(SCALES)
    on_c = isinstance(sim.solver, SolverMuJoCoC)
    assert on_c == (pipeline == "mujoco-c")
    if on_c:
        assert len(sim.solver.hull_meshes) == len(SCALES) - 1
        t = sim.solver.template
        carriers = slice(int(sim.solver.mj_model.ngeom), int(t.ngeom))
        assert not t.geom_contype[carriers].any() and not t.geom_conaffinity[carriers].any()
    for i, s in enumerate(SCALES):
        single, alone = _mesh_boxes(gym, [s])
        assert np.abs(mixed[:, i] - alone[:, 0]).max() < 1e-4, f"scale {s}"
        assert mixed[-1, i] == pytest.approx(0.05 * s, abs=2e-3)         # resting on its own size
        gym.destroy_sim(single)
    gym.destroy_sim(sim)


def test_envs_with_different_assets_still_share_one_world(gym):
    """Envs holding different assets are one Newton world on SIM_PHYSX (Newton's MuJoCo solver
    needs the same bodies in every world it steps separately)."""
    sim = make_sim(gym, dt=DT)
    a = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    b = gym.create_sphere(sim, 0.05, options())
    for i, asset in enumerate((a, b)):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, asset, pose(z=0.2), "a", i, 0)
    gym.simulate(sim)
    assert sim.one_world
    gym.destroy_sim(sim)


# a chain whose third link folds back over the base: it would hit it if self-collisions were on
CHAIN = """<robot name="chain">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>{c_base}</link>
  <link name="upper"><inertial><origin xyz="0.1 0 0"/><mass value="0.3"/>\
<inertia ixx="1e-4" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>{c_upper}</link>
  <link name="lower"><inertial><origin xyz="-0.1 0 0"/><mass value="0.3"/>\
<inertia ixx="1e-4" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>{c_lower}</link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="100"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/><origin xyz="0.2 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="100"/></joint>
</robot>"""
CHAIN_COLLIDERS = dict(
    c_base='<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>',
    c_upper='<collision><origin xyz="0.1 0 0"/><geometry><box size="0.2 0.04 0.04"/></geometry></collision>',
    c_lower='<collision><origin xyz="-0.1 0 0"/><geometry><box size="0.2 0.04 0.04"/></geometry></collision>')


@pytest.mark.parametrize("pipeline,cg_dofs", [("mujoco-c", None), ("warp", 0), ("warp", None)])
def test_one_world_keeps_envs_apart_and_self_collisions_off(gym, tmp_path, monkeypatch, pipeline, cg_dofs):
    """Envs of different assets share one world. Envs 0 and 2 hold the same chain with
    colliders, its lower link folded over the base and self-collisions off (filter bits); env 1 the
    same chain without colliders; all three envs at the same place (zero spacing): the three
    swing as one (no self-contact, no contact between the envs). On MuJoCo C the world steps
    with MuJoCo's contacts, kept apart by MuJoCo exclusions, which gymlike adds in one pass
    (Newton's conversion adds them per body pair, cubic in the bodies: Isaac Gym's actor_scaling
    took 130 s). On MuJoCo-Warp it steps with Newton's contacts and the MuJoCo model gets no
    exclusions; on MuJoCo-Warp's CG solver too, which a world of more than build.CG_DOFS DOFs
    steps with."""
    from gymlike.core import build
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    if cg_dofs is not None:
        monkeypatch.setattr(build, "CG_DOFS", cg_dofs)
    write(tmp_path, "solid.urdf", CHAIN.format(**CHAIN_COLLIDERS))
    write(tmp_path, "ghost.urdf", CHAIN.format(c_base="", c_upper="", c_lower=""))
    sim = make_sim(gym, dt=DT, substeps=2, ground=False)
    assets = {f: gym.load_asset(sim, str(tmp_path), f, options(fix_base_link=True))
              for f in ("solid.urdf", "ghost.urdf")}
    envs = []
    # a rack of 90 boxes in each env, out of the chains' reach, which their links may touch and
    # their base may not: with more than 256 colliding shapes Newton's conversion gives up exact
    # MuJoCo masks, and exclusions keep the envs apart and the links off the base
    boxes = "".join(f'<collision><origin xyz="0 0 {0.03 * k}"/><geometry><box size="0.02 0.02 0.02"/></geometry>'
                    '</collision>' for k in range(90))
    write(tmp_path, "rack.urdf", f'<robot name="rack"><link name="rack">{boxes}</link></robot>')
    rack = gym.load_asset(sim, str(tmp_path), "rack.urdf", options(fix_base_link=True))
    for i, f in enumerate(("solid.urdf", "ghost.urdf", "solid.urdf")):
        env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 3)
        a = gym.create_actor(env, assets[f], pose(z=1.0), "chain", i, 1)
        gym.create_actor(env, rack, pose(x=3.0, z=1.0), "rack", i, 2)
        props = gym.get_actor_rigid_shape_properties(env, a)
        for p, bits in zip(props, (3, 1, 1)):     # base apart from the rack, links from the base
            p.filter = bits
        gym.set_actor_rigid_shape_properties(env, a, props)
        st = gym.get_actor_dof_states(env, a, gymapi.STATE_ALL)
        st["pos"][:] = (0.3, -2.9)                 # the lower link back across the base
        gym.set_actor_dof_states(env, a, st, gymapi.STATE_ALL)
        envs.append(env)
    gym.prepare_sim(sim)
    m = sim.solver.mj_model
    assert sim.one_world and (m.nexclude > 0 if pipeline == "mujoco-c" else m.nexclude == 0)
    if pipeline == "mujoco-c":
        # MuJoCo's own filter (contype / conaffinity, body exclusions, parent and child) lets no
        # two geoms touch that Newton keeps apart (groups: other envs; filter pairs: the chain's
        # own links); this scene's 279 colliding shapes take Newton's inexact masks
        shape = sim.solver.mjc_geom_to_newton_shape.numpy()[0]
        group = sim.model.shape_collision_group.numpy()
        excluded = set(m.exclude_signature.tolist())
        b, ct, ca, parent = m.geom_bodyid, m.geom_contype, m.geom_conaffinity, m.body_parentid
        g1, g2 = np.triu_indices(m.ngeom, k=1)
        ga, gb = group[shape[g1]], group[shape[g2]]
        meet = (ga != 0) & (gb != 0) & (((ga > 0) & ((ga == gb) | (gb < 0))) | ((ga < 0) & (ga != gb)))
        apart = ~meet | sim.model.shape_collision_filter_mask(np.stack([shape[g1], shape[g2]], 1))
        for x, y in zip(g1[apart], g2[apart]):
            b1, b2 = sorted((int(b[x]), int(b[y])))
            if b1 == b2 or parent[b2] == b1 or parent[b1] == b2 or not (ct[x] & ca[y] or ct[y] & ca[x]):
                continue
            assert (b1 << 16) + b2 in excluded, (x, y)
    cg = pipeline == "warp" and sim.model.joint_dof_count > build.CG_DOFS
    assert m.opt.solver == (mujoco.mjtSolver.mjSOL_CG if cg else mujoco.mjtSolver.mjSOL_NEWTON)
    angles = []
    for _ in range(30):
        gym.simulate(sim)
        angles.append([gym.get_actor_dof_states(e, 0, gymapi.STATE_POS)["pos"].copy() for e in envs])
    angles = np.asarray(angles)
    assert np.ptp(angles[:, 0, 0]) > 0.3                    # it swings (the upper link; the lower rests on its limit)
    # (a double pendulum: float rounding grows to 3e-4 by frame 30; the lower link reaches the
    # base at frame 21, and with self-collisions on it is 0.3 rad off at once)
    np.testing.assert_allclose(angles[:, 0], angles[:, 1], atol=2e-3)
    np.testing.assert_allclose(angles[:, 2], angles[:, 1], atol=2e-3)
    gym.destroy_sim(sim)


@pytest.mark.parametrize("pipeline", ["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def test_one_world_of_many_envs_keeps_them_apart_by_mask_bits(gym, monkeypatch, pipeline):
    """34 envs of one world (a sphere in even envs, a box in odd ones: envs of different actors
    share one world), all at one place, dropped onto the ground: each body rests where it fell,
    untouched by the 33 others at its place. On MuJoCo C each env takes one of MuJoCo's 31 mask
    bits in turn, so only envs i and i + 31 share a bit and need an exclusion (3 in all):
    MuJoCo scans its exclusions for every body pair its masks let through, and one exclusion per
    cross-env body pair (340,480 for 64 robots) made such a world 4x slower."""
    from gymlike.core import mjc
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim = make_sim(gym, dt=DT, substeps=2)
    sphere = gym.create_sphere(sim, 0.1, options())
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for i in range(34):
        env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 6)
        gym.create_actor(env, box if i % 2 else sphere, pose(z=0.2 + 0.01 * i), "a", i, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    assert sim.one_world
    if pipeline == "mujoco-c":
        m = sim.solver.mj_model
        assert mjc.MASK_BITS == 31 and m.nexclude == 3
        b1, b2 = m.exclude_signature >> 16, m.exclude_signature & 0xFFFF
        # bodies in env order (one body per env): the excluded pairs are envs (0, 31), (1, 32), (2, 33)
        bodies = sorted(int(b) for b in set(m.geom_bodyid.tolist()) if b > 0)
        assert sorted(zip((bodies.index(int(x)) for x in b1), (bodies.index(int(y)) for y in b2))) == \
            [(0, 31), (1, 32), (2, 33)]
        ct = m.body_contype[bodies]
        meets = (ct[:, None] & m.body_conaffinity[bodies][None, :]) != 0
        assert meets.sum() == 34 + 2 * 3           # each env with itself, and the three pairs
    for _ in range(90):
        gym.simulate(sim)
    for e, env in enumerate(envs):
        p = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"][0]
        np.testing.assert_allclose([p["x"], p["y"], p["z"]], [0, 0, 0.1], atol=3e-3, err_msg=f"env {e}")
    gym.destroy_sim(sim)


def _variant_scene(gym, path, file, fix, reimport, monkeypatch, frames=20):
    """Two envs, the asset at scales 1.0 and 1.7, its scale variant copied (or re-imported)."""
    from gymlike.core.assets.record import Asset
    monkeypatch.setattr(Asset, "REIMPORT_SCALES", reimport)
    sim = make_sim(gym, dt=DT, substeps=2)
    asset = (gym.create_box(sim, 0.1, 0.2, 0.05, options()) if file is None
             else gym.load_asset(sim, path, file, options(fix_base_link=fix)))
    envs = []
    for i, s in enumerate((1.0, 1.7)):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        a = gym.create_actor(env, asset, pose(z=0.5 * s, q=gymapi.Quat.from_euler_zyx(0.2, 0.1, 0.0)), "a", i, 0)
        gym.set_actor_scale(env, a, s)
        envs.append(env)
    gym.prepare_sim(sim)
    return sim, _run(gym, sim, envs, frames)


def _shape_extents(model):
    """Each shape's effective size: its scale, times its mesh's vertex extent for meshes."""
    scale = model.shape_scale.numpy().astype(np.float64)
    out = scale.copy()
    for i, src in enumerate(model.shape_source):
        if src is not None and hasattr(src, "vertices"):
            v = np.asarray(src.vertices, np.float64) * scale[i]
            out[i] = v.max(0) - v.min(0)
    return out


@pytest.mark.parametrize("asset", ["quadruped", "arm7", "mesh_box", "box"])
def test_a_scale_variant_is_the_asset_imported_at_that_scale(gym, monkeypatch, asset):
    """set_actor_scale copies the asset's processed builder with every length scaled instead of
    importing the file again at that scale (which reloads its meshes: seconds per scale for a
    robot): the model and the motion are those of the re-import."""
    from conftest import ASSETS
    path, file, fix = {"quadruped": (ASSETS + "/urdf/quadruped", "quadruped.urdf", False),
                       "arm7": (ASSETS + "/urdf/arm7", "arm7.urdf", True),
                       "mesh_box": (ASSETS + "/urdf/mesh_objects", "mesh_box.urdf", False),
                       "box": (None, None, False)}[asset]
    copied, a = _variant_scene(gym, path, file, fix, False, monkeypatch)
    imported, b = _variant_scene(gym, path, file, fix, True, monkeypatch)
    m1, m2 = copied.model, imported.model
    for f in ("joint_X_p", "joint_X_c", "shape_transform", "body_com", "body_mass", "body_inertia",
              "joint_limit_lower", "joint_limit_upper", "joint_velocity_limit", "shape_collision_radius"):
        x, y = getattr(m1, f).numpy(), getattr(m2, f).numpy()
        assert np.allclose(x, y, rtol=1e-5, atol=1e-6), f
    assert np.allclose(_shape_extents(m1), _shape_extents(m2), rtol=1e-5, atol=1e-6)
    assert np.abs(a - b).max() < 1e-5
    gym.destroy_sim(copied)
    gym.destroy_sim(imported)


def _filtered_scene(gym, path, file, fix, reimport, monkeypatch, frames=20, filt=1):
    """Two envs of the asset at scales 1.0 and 1.3, self-collisions off (filter 1), folded
    where its DOFs allow, beside a box of another collision group (two groups in an env: the
    filter acts through the asset's variant without self-collisions, build._plan_collisions);
    its variants copied (or, reimport, every one imported)."""
    from gymlike.core.assets.record import Asset
    monkeypatch.setattr(Asset, "REIMPORT_FILTERS", reimport)
    monkeypatch.setattr(Asset, "REIMPORT_SCALES", reimport)
    sim = make_sim(gym, dt=DT, substeps=2)
    asset = gym.load_asset(sim, path, file, options(fix_base_link=fix))
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = []
    for i, s in enumerate((1.0, 1.3)):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        a = gym.create_actor(env, asset, pose(z=0.6 * s), "a", 0, filt)
        gym.create_actor(env, box, pose(x=2.0, z=0.05), "box", 1, 0)
        gym.set_actor_scale(env, a, s)
        st = gym.get_actor_dof_states(env, a, gymapi.STATE_ALL)
        st["pos"][:] = 2.5 * np.where(np.arange(len(st)) % 2, -1.0, 1.0)   # (clamped to limits)
        gym.set_actor_dof_states(env, a, st, gymapi.STATE_ALL)
        envs.append(env)
    gym.prepare_sim(sim)
    return sim, _run(gym, sim, envs, frames)


@pytest.mark.parametrize("asset", ["chain", "quadruped", "ant"])
def test_a_variant_without_self_collisions_is_the_asset_imported_so(gym, tmp_path, monkeypatch, asset):
    """An actor with a non-zero collision filter takes the asset's variant with self-collisions
    off. It is the processed variant with them on plus a filter pair per two colliding shapes,
    not a second import of the file (which reloads every mesh: seconds per robot): the model's
    candidate contact pairs and the motion are those of the import with self-collisions off."""
    from conftest import ASSETS
    if asset == "chain":
        write(tmp_path, "chain.urdf", CHAIN.format(**CHAIN_COLLIDERS))
    path, file, fix = {"chain": (str(tmp_path), "chain.urdf", True),
                       "quadruped": (ASSETS + "/urdf/quadruped", "quadruped.urdf", False),
                       "ant": (ASSETS + "/mjcf", "nv_ant.xml", False)}[asset]
    copied, a = _filtered_scene(gym, path, file, fix, False, monkeypatch)
    imported, b = _filtered_scene(gym, path, file, fix, True, monkeypatch)
    pairs = [{tuple(p) for p in s.model.shape_contact_pairs.numpy().tolist()} for s in (copied, imported)]
    assert pairs[0] == pairs[1]
    colliding, _ = _filtered_scene(gym, path, file, fix, False, monkeypatch, frames=0, filt=0)
    assert len(pairs[0]) < len(colliding.model.shape_contact_pairs.numpy())   # (the filter matters)
    # the scaled copy and the import at 1.3 differ by float32 rounding (1e-7 m in the first
    # frame); the folded quadruped's contacts amplify that (1e-4 m by frame 20)
    assert np.abs(a - b)[:10].max() < 1e-5 and np.abs(a - b).max() < 1e-3
    for s in (copied, imported, colliding):
        gym.destroy_sim(s)


def test_contacts_of_each_env_in_a_one_world_on_mujoco_c(gym):
    """A box and a sphere resting on the ground in two envs of one world (different assets) on
    MuJoCo C: each env's contact list holds its own body against the ground, and nothing else."""
    sim = make_sim(gym, dt=DT, substeps=2)
    assets = (gym.create_box(sim, 0.2, 0.2, 0.2, options()), gym.create_sphere(sim, 0.1, options()))
    envs = []
    for i, asset in enumerate(assets):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, asset, pose(z=0.1), "a", i, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    from gymlike.core import handles
    assert handles.sim_of(sim).one_world and type(handles.sim_of(sim).solver).__name__ == "SolverMuJoCoC"
    gym.acquire_net_contact_force_tensor(sim)      # (contacts observed from the first step)
    for _ in range(20):
        gym.simulate(sim)
    for i, (env, corners) in enumerate(zip(envs, (4, 1))):
        c = gym.get_env_rigid_contacts(env)
        assert len(c) == corners, c
        assert set(zip(c["env0"].tolist(), c["env1"].tolist())) <= {(i, -1), (-1, i)}
        assert set(zip(c["body0"].tolist(), c["body1"].tolist())) <= {(0, -1), (-1, 0)}
    gym.destroy_sim(sim)


# one body colliding through a cuboid mesh of its own file
CUBOID = """<robot name="cuboid"><link name="body"><inertial><mass value="0.5"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><mesh filename="{name}.obj"/></geometry></collision></link></robot>"""

# per env: pendulum (rod length, bob radius, bob mass, arm), cuboid mesh and box half extents
OTHERS = ((0.2, 0.04, 1.0, 0.3, (0.05, 0.05, 0.05), (0.05, 0.04, 0.03)),
          (0.35, 0.06, 2.0, 0.45, (0.08, 0.05, 0.03), (0.1, 0.05, 0.06)),
          (0.1, 0.03, 0.5, 0.15, (0.04, 0.06, 0.07), (0.03, 0.03, 0.02)))


def _cuboid_obj(path, h):
    corners = [(sx * h[0], sy * h[1], sz * h[2]) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    faces = ((1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2),
             (3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4))
    path.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in corners) +
                    "".join(f"f {a} {b} {c}\n" for a, b, c in faces))


def _others(gym, tmp_path, which, frames=40):
    """Envs holding, per OTHERS[k] for k in `which`: a pendulum started at 1 rad, a cuboid mesh
    and a box (create_box) dropped 2 cm onto the ground, each its own asset -> (sim, body
    positions (frames, envs, bodies, 3))."""
    sim = make_sim(gym, dt=DT, substeps=2)
    envs = []
    for i, k in enumerate(which):
        rod, bob, mass, arm, mesh_h, box_h = OTHERS[k]
        write(tmp_path, f"pendulum{k}.urdf", PENDULUM_OF.format(rod=rod, half=rod / 2, bob=bob, mass=mass, arm=arm))
        _cuboid_obj(tmp_path / f"cuboid{k}.obj", mesh_h)
        write(tmp_path, f"cuboid{k}.urdf", CUBOID.format(name=f"cuboid{k}"))
        pend = gym.load_asset(sim, str(tmp_path), f"pendulum{k}.urdf", options(fix_base_link=True))
        mesh = gym.load_asset(sim, str(tmp_path), f"cuboid{k}.urdf", options())
        box = gym.create_box(sim, *(2 * h for h in box_h), options())
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        p = gym.create_actor(env, pend, pose(z=1.0), "pendulum", i, 0)
        gym.create_actor(env, mesh, pose(x=0.5, z=mesh_h[2] + 0.02), "cuboid", i, 0)
        gym.create_actor(env, box, pose(x=-0.5, z=box_h[2] + 0.02), "box", i, 0)
        st = gym.get_actor_dof_states(env, p, gymapi.STATE_ALL)
        st["pos"][0] = 1.0
        gym.set_actor_dof_states(env, p, st, gymapi.STATE_ALL)
        envs.append(env)
    return sim, _run(gym, sim, envs, frames)


@pytest.mark.parametrize("pipeline", ["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def test_envs_of_other_assets_of_the_same_structure_keep_a_world_each(gym, tmp_path, monkeypatch, pipeline):
    """Envs whose actors are different assets of the same bodies, joints and shapes (pendulums
    of other lengths and masses with a welded bob, cuboid meshes of their own files, boxes of
    other sizes) keep one world each, as scaled envs do: each env moves as its assets alone,
    the bob swings at its own arm, the cuboid and the box rest on their own half heights."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim, mixed = _others(gym, tmp_path, range(len(OTHERS)))
    assert not sim.one_world and int(sim.model.world_count) == len(OTHERS)
    from gymlike.core.mjc import SolverMuJoCoC
    assert isinstance(sim.solver, SolverMuJoCoC) == (pipeline == "mujoco-c")
    for k, (rod, bob, mass, arm, mesh_h, box_h) in enumerate(OTHERS):
        single, alone = _others(gym, tmp_path, [k])
        err = np.abs(mixed[:, k] - alone[:, 0]).max()
        assert err < 1e-4, f"env {k}: {err:.2e} m from its assets simulated alone"
        gym.destroy_sim(single)
        assert np.linalg.norm(mixed[0, k, 2] - np.array([0.0, 0.0, 1.0])) == pytest.approx(arm, rel=1e-3)
        assert mixed[-1, k, 3, 2] == pytest.approx(mesh_h[2], abs=2e-3)
        assert mixed[-1, k, 4, 2] == pytest.approx(box_h[2], abs=2e-3)
    gym.destroy_sim(sim)


def test_the_same_file_loaded_per_env_keeps_a_world_each(gym, tmp_path):
    """Client code that loads its asset once per env gets one world per env, as with one
    load; a box and a sphere (other shapes) still share one world (previous test)."""
    write(tmp_path, "pendulum.urdf", PENDULUM)
    sim = make_sim(gym, dt=DT)
    for i in range(3):
        asset = gym.load_asset(sim, str(tmp_path), "pendulum.urdf", options(fix_base_link=True))
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, asset, pose(z=1.0), "pendulum", i, 0)
    gym.simulate(sim)
    assert not sim.one_world and int(sim.model.world_count) == 3
    gym.destroy_sim(sim)
