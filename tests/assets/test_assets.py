"""Asset loading: formats, Isaac Gym names/counts/order, AssetOptions that change physics, meshes,
parse-once, and the error paths (missing/malformed files, unknown extension, missing mesh)."""

import math
import os

import numpy as np
import pytest

from conftest import ASSETS, make_sim, options, pose, write
from gymlike import gymapi
from gymlike.core.assets import record as asset_module
from gymlike.core.errors import AssetParseError, GymlikeError


@pytest.fixture
def sim(gym):
    s = make_sim(gym, "physx")
    yield s
    gym.destroy_sim(s)


def test_urdf_cartpole_counts_names_types(gym, sim):
    a = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", options(fix_base_link=True))
    assert gym.get_asset_rigid_body_count(a) == 3
    assert gym.get_asset_rigid_body_names(a) == ["slider", "cart", "pole"]
    assert gym.get_asset_rigid_body_dict(a) == {"slider": 0, "cart": 1, "pole": 2}
    assert gym.get_asset_dof_count(a) == 2 and gym.get_asset_joint_count(a) == 2
    assert gym.get_asset_dof_names(a) == ["slider_to_cart", "cart_to_pole"]
    assert gym.get_asset_dof_type(a, 0) == gymapi.DOF_TRANSLATION
    assert gym.get_asset_dof_type(a, 1) == gymapi.DOF_ROTATION
    assert gym.get_asset_joint_type(a, 0) == gymapi.JOINT_PRISMATIC
    assert gym.get_joint_type_string(gym.get_asset_joint_type(a, 1)) == "Revolute"
    assert gym.find_asset_dof_index(a, "cart_to_pole") == 1
    assert gym.find_asset_rigid_body_index(a, "pole") == 2
    assert gym.find_asset_rigid_body_index(a, "nope") == -1
    ranges = gym.get_asset_rigid_body_shape_indices(a)
    assert [(r.start, r.count) for r in ranges] == [(0, 1), (1, 1), (2, 1)]
    assert gym.get_asset_rigid_shape_count(a) == 3


def test_mjcf_multi_hinge_bodies_get_one_dof_per_joint(gym, sim):
    a = gym.load_asset(sim, ASSETS, "mjcf/humanoid.xml", options())
    names = gym.get_asset_dof_names(a)
    assert len(names) == 21 and gym.get_asset_joint_count(a) == 21
    # the three hinges of a hip are three DOFs, named and ordered as in the file
    i = names.index("right_hip_x")
    assert names[i:i + 3] == ["right_hip_x", "right_hip_z", "right_hip_y"]
    assert all(gym.get_asset_dof_type(a, k) == gymapi.DOF_ROTATION for k in range(21))
    assert gym.get_asset_rigid_body_names(a)[0] == "torso"
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    assert gym.get_asset_dof_names(ant) == ["hip_1", "ankle_1", "hip_2", "ankle_2", "hip_3", "ankle_3",
                                            "hip_4", "ankle_4"]
    # Isaac Gym gives MJCF <motor> joints effort drive mode and exposes the gear
    assert gym.get_asset_actuator_count(ant) == 8
    assert gym.get_asset_actuator_properties(ant)[0].motor_effort == 15.0


def test_body_order_is_depth_first_children_by_joint_name(gym, sim):
    """Isaac Gym's URDF order: depth-first, a link's children in the order of their joints'
    names (the file lists the legs LF, RF, LH, RH; Isaac Gym's bodies and DOFs are LF, LH, RF,
    RH, as its A1 / Go1 DOFs are FL, FR, RL, RR from files listing FR, FL, RR, RL)."""
    q = gym.load_asset(sim, ASSETS, "urdf/quadruped/quadruped.urdf", options())
    names = gym.get_asset_rigid_body_names(q)
    assert names[:5] == ["base", "LF_hip", "LF_thigh", "LF_shank", "LF_foot"]
    assert names[5:9] == ["LH_hip", "LH_thigh", "LH_shank", "LH_foot"]
    assert names[9:] == ["RF_hip", "RF_thigh", "RF_shank", "RF_foot", "RH_hip", "RH_thigh", "RH_shank", "RH_foot"]
    assert gym.get_asset_dof_names(q) == [f"{leg}_{j}" for leg in ("LF", "LH", "RF", "RH")
                                          for j in ("HAA", "HFE", "KFE")]


def test_usd_and_primitive_assets(gym, sim):
    usd = gym.load_asset(sim, ASSETS, "usd/pendulum2.usda", options())
    assert gym.get_asset_dof_count(usd) == 2 and gym.get_asset_rigid_body_count(usd) == 2
    fixed = gym.load_usd(sim, ASSETS, "usd/pendulum2.usda", options(fix_base_link=True))
    assert gym.get_asset_dof_count(fixed) == 1
    box = gym.create_box(sim, 0.2, 0.3, 0.4, options(density=100.0))
    assert gym.get_asset_rigid_body_names(box) == ["box"] and gym.get_asset_dof_count(box) == 0
    assert box.body_mass[0] == pytest.approx(100.0 * 0.2 * 0.3 * 0.4)
    cap = gym.create_capsule(sim, 0.1, 0.4, options())
    sph = gym.create_sphere(sim, 0.1, options())
    assert sph.body_mass[0] == pytest.approx(1000.0 * 4 / 3 * math.pi * 0.001, rel=1e-4)
    assert cap.body_mass[0] == pytest.approx(1000.0 * (math.pi * 0.01 * 0.4 + 4 / 3 * math.pi * 0.001), rel=1e-3)


def test_capsule_lies_along_x(gym):
    sim = make_sim(gym, "physx", dt=1 / 120, substeps=2)
    cap = gym.create_capsule(sim, 0.05, 0.4, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, cap, pose(z=0.3), "capsule", 0, 0)
    for _ in range(120):
        gym.simulate(sim)
    p = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]
    assert p["z"] == pytest.approx(0.05, abs=3e-3)   # lying down, resting on its radius


def test_mesh_assets_load_with_their_geometry(gym):
    sim = make_sim(gym, "physx", dt=1 / 120, substeps=2)
    a = gym.load_asset(sim, ASSETS, "urdf/mesh_objects/mesh_box.urdf", options())
    assert gym.get_asset_rigid_shape_count(a) == 1
    b = a.builder(visuals=True)
    mesh_shapes = [s for s, t in enumerate(b.shape_type) if int(t) in (8, 10)]  # GeoType.MESH, CONVEX_MESH
    assert len(mesh_shapes) >= 2            # collision (its convex hull on SIM_PHYSX) + visual meshes
                                            # (.obj and package:// .dae)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, a, pose(z=0.5), "mesh", 0, 0)
    for _ in range(120):
        gym.simulate(sim)
    z = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]["z"]
    verts = b.shape_source[b.shape_flags.index(next(f for f in b.shape_flags if f & 2))].vertices
    assert z == pytest.approx(-float(np.min(verts[:, 2])), abs=5e-3)  # rests on its lowest vertex


def test_each_file_is_parsed_once(gym, sim, monkeypatch):
    calls = {"n": 0}
    orig = asset_module.Asset.builder

    def counting(self, scale=1.0, self_collisions=True, visuals=None):
        if (float(scale), bool(self_collisions), self._visuals(visuals)) not in self._builders:
            calls["n"] += 1
        return orig(self, scale, self_collisions, visuals)

    monkeypatch.setattr(asset_module.Asset, "builder", counting)
    a = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    for i in range(50):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 10)
        gym.create_actor(env, a, pose(z=0.1), "ant", i, 1)
    gym.prepare_sim(sim)
    assert calls["n"] == 1


def test_asset_options_fix_base_and_disable_gravity(gym):
    sim = make_sim(gym, "physx", ground=False, dt=1 / 120, substeps=1)
    fixed = gym.create_box(sim, 0.1, 0.1, 0.1, options(fix_base_link=True))
    floating = gym.create_box(sim, 0.1, 0.1, 0.1, options(disable_gravity=True))
    falling = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    for k, a in enumerate((fixed, floating, falling)):
        gym.create_actor(env, a, pose(x=0.5 * k, z=1.0), f"a{k}", 0, 0)
    for _ in range(120):
        gym.simulate(sim)
    z = [gym.get_actor_rigid_body_states(env, k, gymapi.STATE_POS)[0]["pose"]["p"]["z"] for k in range(3)]
    assert z[0] == pytest.approx(1.0, abs=1e-6)
    assert z[1] == pytest.approx(1.0, abs=1e-4)
    assert z[2] < 1.0 - 0.4


def test_asset_options_density_armature_damping(gym, tmp_path):
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=1 / 100, substeps=1)
    light = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=100.0))
    damped = gym.create_box(sim, 0.2, 0.2, 0.2, options(linear_damping=2.0))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, light, pose(z=1), "light", 0, 0)
    gym.create_actor(env, damped, pose(x=1, z=1), "damped", 0, 0)
    assert light.body_mass[0] == pytest.approx(0.8)
    for k in range(2):
        st = gym.get_actor_rigid_body_states(env, k, gymapi.STATE_ALL)
        st["vel"]["linear"] = (1.0, 0.0, 0.0)
        gym.set_actor_rigid_body_states(env, k, st, gymapi.STATE_ALL)
    for _ in range(100):
        gym.simulate(sim)
    v = [gym.get_actor_rigid_body_states(env, k, gymapi.STATE_VEL)[0]["vel"]["linear"]["x"] for k in range(2)]
    assert v[0] == pytest.approx(1.0, abs=1e-5)                    # undamped: constant velocity
    assert v[1] == pytest.approx((1 / (1 + 2.0 * 0.01)) ** 100, rel=2e-3)   # v <- v / (1 + c dt) per step
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options(armature=0.5))
    base = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    np.testing.assert_allclose(ant.dof_props["armature"], base.dof_props["armature"] + 0.5, rtol=1e-6)


def test_asset_options_collapse_fixed_joints_and_capsules(gym, sim):
    arm = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf", options(fix_base_link=True))
    collapsed = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf",
                               options(fix_base_link=True, collapse_fixed_joints=True))
    assert "hand" in gym.get_asset_rigid_body_names(arm)
    assert "hand" not in gym.get_asset_rigid_body_names(collapsed)
    assert gym.get_asset_dof_names(collapsed) == gym.get_asset_dof_names(arm)
    assert sum(collapsed.body_mass) == pytest.approx(sum(arm.body_mass), rel=1e-5)
    import newton
    cyl = [t for t in arm.builder().shape_type if t == newton.GeoType.CYLINDER]
    caps = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf",
                          options(fix_base_link=True, replace_cylinder_with_capsule=True))
    if cyl:
        assert newton.GeoType.CYLINDER not in caps.builder().shape_type


def test_default_dof_drive_mode_option(gym, sim):
    a = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf",
                       options(fix_base_link=True, default_dof_drive_mode=gymapi.DOF_MODE_POS))
    assert (a.dof_props["driveMode"] == gymapi.DOF_MODE_POS).all()


def test_file_errors(gym, sim, tmp_path):
    with pytest.raises(FileNotFoundError, match="no_such.urdf"):
        gym.load_asset(sim, str(tmp_path), "no_such.urdf")
    with pytest.raises(ValueError, match="unknown asset extension '.obj'"):
        gym.load_asset(sim, ASSETS, "urdf/mesh_objects/meshes/box.obj")
    write(tmp_path, "bad.urdf", "<robot name='x'>\n  <link name='a'>\n  </robot>\n")
    with pytest.raises(AssetParseError, match=r"bad.urdf', line 3"):
        gym.load_asset(sim, str(tmp_path), "bad.urdf")
    write(tmp_path, "bad.xml", "<mujoco>\n<worldbody>\n<body>\n</worldbody></mujoco>\n")
    with pytest.raises(ValueError, match=r"bad.xml', line 4"):
        gym.load_asset(sim, str(tmp_path), "bad.xml")
    with pytest.raises(FileNotFoundError, match=r"missing_mesh.urdf', line \d+: collision mesh "
                                                r"'meshes/does_not_exist.obj' not found; searched"):
        gym.load_asset(sim, ASSETS, "urdf/mesh_objects/missing_mesh.urdf")
    with pytest.raises(TypeError):
        gym.load_asset(sim, ASSETS, "urdf/ball.urdf", "not options")
    with pytest.raises(ValueError, match="finite length"):
        gym.create_box(sim, 0.1, -1.0, 0.1)
    assert isinstance(AssetParseError("x"), GymlikeError)


def test_joint_transforms_and_dof_frames(gym):
    sim = make_sim(gym, "physx", ground=False)
    arm = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, arm, pose(0, 0, 2.0), "cp", 0, 0)
    frames = gym.get_actor_dof_frames(env, 0)
    assert frames.dtype == gymapi.DofFrame.dtype
    np.testing.assert_allclose(list(frames[0]["axis"]), [1, 0, 0], atol=1e-6)   # slider along x
    np.testing.assert_allclose(list(frames[1]["axis"]), [0, 1, 0], atol=1e-6)   # hinge about y
    jt = gym.get_actor_joint_transforms(env, 0)
    assert jt.dtype == gymapi.Transform.dtype and len(jt) == 2
    # the hinge sits on the cart: its frame follows the cart when the slider moves
    ds = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    ds["pos"][0] = 0.7
    gym.set_actor_dof_states(env, 0, ds, gymapi.STATE_ALL)
    moved = gym.get_actor_joint_transforms(env, 0)
    assert moved[1]["p"]["x"] - jt[1]["p"]["x"] == pytest.approx(0.7, abs=1e-5)
    assert gym.get_dof_frame(env, 1).origin.x == pytest.approx(moved[1]["p"]["x"], abs=1e-6)


def test_y_up_sim(gym):
    p = gymapi.SimParams()   # Isaac Gym's defaults: Y up, gravity -9.8 along y
    p.dt, p.substeps = 1 / 120, 2
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    gym.add_ground(sim, gymapi.PlaneParams())          # default normal (0, 1, 0)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, 0, -1), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(y=1.0), "box", 0, 0)
    for _ in range(240):
        gym.simulate(sim)
    p = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]
    assert p["y"] == pytest.approx(0.1, abs=3e-3) and abs(p["z"]) < 1e-3


def test_gpu_pipeline_request_falls_back_to_cpu_with_one_warning(gym, recwarn):
    import warp as wp
    if wp.is_cuda_available():
        pytest.skip("a CUDA device exists here")
    from gymlike.core import sim as sim_module
    sim_module._warned_gpu = False
    p = gymapi.SimParams()
    p.use_gpu_pipeline = True
    with pytest.warns(RuntimeWarning, match="no CUDA device"):
        s = gym.create_sim(0, 0, gymapi.SIM_PHYSX, p)
    assert s.device == "cpu"
    gym.create_sim(0, 0, gymapi.SIM_PHYSX, p)   # only once
    assert not [w for w in recwarn if "no CUDA device" in str(w.message)]


CYLINDER_URDF = """\
<robot name="roller">
  <link name="roller">
    <collision><origin rpy="1.5707963 0 0"/><geometry><cylinder radius="0.1" length="0.3"/></geometry></collision>
    <visual><geometry><mesh filename="meshes/box.obj"/></geometry></visual>
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
</robot>
"""


def test_replace_cylinder_with_capsule_and_flip_visual_attachments(gym, sim, tmp_path):
    import shutil

    import newton
    os.makedirs(tmp_path / "meshes")
    shutil.copy(os.path.join(ASSETS, "urdf/mesh_objects/meshes/box.obj"), tmp_path / "meshes/box.obj")
    write(tmp_path, "roller.urdf", CYLINDER_URDF)
    plain = gym.load_asset(sim, str(tmp_path), "roller.urdf", options())
    caps = gym.load_asset(sim, str(tmp_path), "roller.urdf", options(replace_cylinder_with_capsule=True))
    assert newton.GeoType.CYLINDER in plain.builder().shape_type
    assert newton.GeoType.CYLINDER not in caps.builder().shape_type
    assert newton.GeoType.CAPSULE in caps.builder().shape_type
    flipped = gym.load_asset(sim, str(tmp_path), "roller.urdf", options(flip_visual_attachments=True))
    vis = [s for s, t in enumerate(plain.builder(visuals=True).shape_type) if t == newton.GeoType.MESH]
    q0 = np.array(plain.builder(visuals=True).shape_transform[vis[0]])[3:]
    q1 = np.array(flipped.builder(visuals=True).shape_transform[vis[0]])[3:]
    # the visual mesh was turned from Y-up to Z-up (+90 deg about x); collision shapes unchanged
    assert abs(abs(np.dot(q0, q1)) - math.cos(math.pi / 4)) < 1e-5
    col = [s for s, t in enumerate(plain.builder(visuals=True).shape_type) if t != newton.GeoType.MESH]
    np.testing.assert_allclose(np.array(plain.builder(visuals=True).shape_transform[col[0]]),
                               np.array(flipped.builder(visuals=True).shape_transform[col[0]]))


def test_set_sim_params_changes_gravity_at_runtime(gym):
    sim = make_sim(gym, "physx", ground=False, dt=1 / 100, substeps=1)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=5), "box", 0, 0)
    gym.simulate(sim)
    p = gym.get_sim_params(sim)
    assert p.gravity.z == pytest.approx(-9.81)
    p.gravity = gymapi.Vec3(0.0, 0.0, 0.0)
    p.gravity.x = 2.0
    gym.set_sim_params(sim, p)
    v0 = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)[0]["vel"]["linear"]
    for _ in range(50):
        gym.simulate(sim)
    v1 = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)[0]["vel"]["linear"]
    assert v1["x"] - v0["x"] == pytest.approx(2.0 * 0.5, rel=1e-3)
    assert v1["z"] == pytest.approx(v0["z"], abs=1e-5)
    with pytest.raises(ValueError, match="dt"):
        bad = gym.get_sim_params(sim)
        bad.dt = -1.0
        gym.set_sim_params(sim, bad)


# ---------------------------------------------------------------- degenerate primitives
@pytest.mark.parametrize("engine, pipeline", [("physx", "mujoco-c"), ("physx", "warp"), ("flex", None)])
def test_zero_thickness_box_table_holds_a_cube(gym, monkeypatch, engine, pipeline):
    """Isaac Gym accepts create_box(sim, w, h, 0.0) (a real task was trained on such a table):
    gymlike builds a thin slab, warns once, and a 0.1 m cube dropped 2 cm onto it comes to rest
    on its top (z 0.4 + 0.05; no ground plane: a cube that slipped through would fall away)."""
    if pipeline:
        monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    from gymlike.core.assets import load
    monkeypatch.setattr(load, "_THIN_WARNED", set())
    sim = make_sim(gym, engine, ground=False, dt=1 / 60, substeps=2)
    with pytest.warns(UserWarning, match=r"create_box: depth 0 m is below 1e-06 m; the shape is made") as w:
        table = gym.create_box(sim, 0.6, 0.6, 0.0, options(fix_base_link=True))
        gym.create_box(sim, 0.5, 0.0, 0.0, options(fix_base_link=True))   # warned once
    assert len(w) == 1
    cube = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, table, pose(z=0.4), "table", 0, 0)
    c = gym.create_actor(env, cube, pose(0.1, 0.0, 0.47), "cube", 0, 0)
    zs = []
    for _ in range(120):
        gym.simulate(sim)
        st = gym.get_actor_rigid_body_states(env, c, gymapi.STATE_ALL)
        zs.append(float(st["pose"]["p"]["z"][0]))
    # the slab is 1e-6 m thick on SIM_PHYSX, 5 mm on SIM_FLEX (XPBD's contacts sink about 1 mm)
    tol = 2e-3 if engine == "physx" else 5e-3
    assert min(zs[60:]) == pytest.approx(0.45, abs=tol) and max(zs[60:]) == pytest.approx(0.45, abs=tol)
    assert abs(float(st["vel"]["linear"]["z"][0])) < 1e-3


def test_zero_and_negative_primitive_sizes(gym, sim):
    """Zero sizes are accepted as Isaac Gym accepts them (a sphere-like capsule of width 0 is a
    valid PhysX capsule and gets no warning); negative sizes (negative volume and mass) are not."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        capsule = gym.create_capsule(sim, 0.05, 0.0, options())
    with pytest.warns(UserWarning):
        sphere = gym.create_sphere(sim, 0, options(fix_base_link=True))
    assert gym.get_asset_rigid_shape_count(capsule) == gym.get_asset_rigid_shape_count(sphere) == 1
    for call, arg in ((lambda: gym.create_box(sim, 0.1, -0.1, 0.1), "height"),
                      (lambda: gym.create_sphere(sim, -1e-9), "radius"),
                      (lambda: gym.create_capsule(sim, 0.1, -0.2), "width")):
        with pytest.raises(ValueError, match=rf": {arg} must be a finite length in \[0, 100000\] m"):
            call()
