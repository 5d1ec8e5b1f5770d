"""USD export: the stage opens in usd-core with every body at its simulated pose, colors and
materials as set, physics that Newton's own USD importer reads back and that simulates like the
original asset; options and error paths."""

import math
import os

import numpy as np
import pytest

pxr = pytest.importorskip("pxr")
from pxr import Usd, UsdGeom, UsdShade  # noqa: E402

from gymlike import gymapi, gymtorch  # noqa: E402

from conftest import ASSETS, make_sim, options, pose  # noqa: E402


def _world(stage, path):
    m = UsdGeom.Xformable(stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    q = m.ExtractRotationQuat()
    return np.array(m.ExtractTranslation()), np.array([*q.GetImaginary(), q.GetReal()])


def _same_rotation(q1, q2, tol=1e-5):
    return abs(abs(float(np.dot(q1, q2))) - 1.0) < tol


def test_sim_export_puts_bodies_at_simulated_poses(gym, tmp_path):
    sim = make_sim(gym, dt=1.0 / 60.0, graphics=0)
    hp = gymapi.HeightFieldParams()
    hp.row_scale, hp.column_scale, hp.vertical_scale = 0.5, 0.25, 0.01
    hp.nbRows, hp.nbColumns = 3, 2
    hp.transform.p = gymapi.Vec3(10.0, 10.0, 0.0)                   # away from the actors
    heights = np.array([[0, 10], [20, 30], [40, 50]], np.int16)     # rows along x
    gym.add_heightfield(sim, heights, hp)
    box = gym.create_box(sim, 0.3, 0.2, 0.1, options())
    pend = gym.load_asset(sim, ASSETS, "urdf/pendulum.urdf", options(fix_base_link=True))
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, box, pose(0.5, 0.0, 1.0, gymapi.Quat.from_euler_zyx(0.3, 0.2, 0.1)), "box", i, 0)
        gym.create_actor(env, pend, pose(-0.5, 0.0, 1.5), "pendulum", i, 0)
        envs.append(env)
    gym.set_rigid_body_color(envs[1], 0, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(1.0, 0.0, 0.0))
    gym.prepare_sim(sim)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    dofs[:, 0] = 0.7
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(dofs))
    for _ in range(20):
        gym.simulate(sim)
    gym.fetch_results(sim, True)
    gym.refresh_rigid_body_state_tensor(sim)
    rb = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim)).numpy().copy()   # env frame

    ex = gym.create_usd_exporter(gymapi.UsdExportOptions())
    assert gym.set_usd_export_root(ex, str(tmp_path / "exports"))
    assert gym.get_usd_export_root(ex) == str(tmp_path / "exports")
    transforms = gym.export_usd_sim(ex, sim, "scene", "run1")
    path = tmp_path / "exports" / "run1" / "scene.usda"
    assert path.is_file()

    stage = Usd.Stage.Open(str(path))
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    assert stage.GetDefaultPrim().GetPath() == "/World"
    expected = {}
    for e, env in enumerate(envs):
        o = gym.get_env_origin(env)
        origin = np.array([o.x, o.y, o.z])
        for a, (name, bodies) in enumerate((("box", ["box"]), ("pendulum", ["base", "bob"]))):
            for b, body in enumerate(bodies):
                i = gym.get_actor_rigid_body_index(env, a, b, gymapi.DOMAIN_SIM)
                expected[f"/World/envs/env_{e}/{name}/{body}"] = (rb[i, :3] + origin, rb[i, 3:7])
    assert set(transforms) == set(expected)
    for prim_path, (p, q) in expected.items():
        up, uq = _world(stage, prim_path)
        np.testing.assert_allclose(up, p, atol=1e-5, err_msg=prim_path)
        assert _same_rotation(uq, q), prim_path
        t = transforms[prim_path]
        np.testing.assert_allclose([t.p.x, t.p.y, t.p.z], p, atol=1e-5)
    # the pendulum swung: its bob is not where it started
    assert abs(expected["/World/envs/env_0/pendulum/bob"][1][1]) > 0.05
    # the box geometry: a 2-unit cube scaled to the half extents
    cube = [p for p in Usd.PrimRange(stage.GetPrimAtPath("/World/envs/env_1/box/box")) if p.IsA(UsdGeom.Cube)]
    assert cube
    color = UsdGeom.Gprim(cube[0]).GetDisplayColorAttr().Get()[0]
    assert tuple(color) == (1.0, 0.0, 0.0)
    ops = {op.GetOpName(): op.Get() for op in UsdGeom.Xformable(cube[0]).GetOrderedXformOps()}
    np.testing.assert_allclose(ops["xformOp:scale"], (0.15, 0.1, 0.05), rtol=1e-6)
    # the ground plane is shared static geometry, and no physics was asked for
    static = list(Usd.PrimRange(stage.GetPrimAtPath("/World/static")))
    assert any(p.IsA(UsdGeom.Plane) for p in static)
    # the heightfield: sample [i, j] at transform.p + (i * row_scale, j * column_scale, h * vertical_scale)
    hf = [p for p in static if p.IsA(UsdGeom.Mesh)]
    assert len(hf) == 1
    xf = UsdGeom.Xformable(hf[0]).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    pts = np.array([xf.Transform(pxr.Gf.Vec3d(*map(float, v))) for v in UsdGeom.Mesh(hf[0]).GetPointsAttr().Get()])
    want = np.array([(10.0 + i * 0.5, 10.0 + j * 0.25, heights[i, j] * 0.01) for i in range(3) for j in range(2)])
    for w_ in want:                      # (the MuJoCo C pipeline subdivides cells longer than
        assert np.abs(pts - w_).max(axis=1).min() < 1e-4, w_          # 0.1 m: more points, the same surface)
    # every point lies on the heightfield's surface: its cells split along the (+x, +y) diagonal
    for x, y, z in pts:
        a, b = (x - 10.0) / 0.5, (y - 10.0) / 0.25
        i, j = min(int(a), 1), min(int(b), 0)
        u, v = a - i, b - j
        h = heights * 0.01
        want_z = (h[i, j] + u * (h[i + 1, j] - h[i, j]) + v * (h[i + 1, j + 1] - h[i + 1, j]) if u >= v
                  else h[i, j] + v * (h[i, j + 1] - h[i, j]) + u * (h[i + 1, j + 1] - h[i, j + 1]))
        assert abs(z - want_z) < 1e-4, (x, y, z, want_z)
    assert not any(p.HasAPI(pxr.UsdPhysics.RigidBodyAPI) for p in stage.Traverse())


def test_asset_export_round_trip_simulates_like_the_original(gym, tmp_path):
    """Export the pendulum URDF with physics, load the USD back (gymlike and Newton's importer):
    same masses and limits, and the USD pendulum swings like the URDF one."""
    sim0 = make_sim(gym, ground=False, graphics=0)
    urdf = gym.load_asset(sim0, ASSETS, "urdf/pendulum.urdf", options(fix_base_link=True))
    eo = gymapi.UsdExportOptions()
    eo.export_physics = True
    ex = gym.create_usd_exporter(eo)
    gym.set_usd_export_root(ex, str(tmp_path))
    assert gym.export_usd_asset(ex, urdf, "pendulum.usda") is True
    out = tmp_path / "pendulum.usda"

    import newton
    b = newton.ModelBuilder()
    b.add_usd(str(out))
    assert b.body_count == 2
    np.testing.assert_allclose(sorted(b.body_mass), [1.0, 1.0], rtol=1e-6)
    assert sorted(int(t) for t in b.joint_type) == sorted([int(newton.JointType.FIXED),
                                                           int(newton.JointType.REVOLUTE)])

    traces = []
    for root, name in ((ASSETS, "urdf/pendulum.urdf"), (str(tmp_path), "pendulum.usda")):
        sim = make_sim(gym, ground=False, dt=1.0 / 240.0)
        asset = gym.load_asset(sim, root, name, options(fix_base_link=True))
        assert gym.get_asset_dof_count(asset) == 1
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 2), 1)
        gym.create_actor(env, asset, pose(0, 0, 2), "p", 0, 0)
        props = gym.get_actor_dof_properties(env, 0)
        props["driveMode"][:] = gymapi.DOF_MODE_NONE
        props["stiffness"][:] = props["damping"][:] = 0.0
        gym.set_actor_dof_properties(env, 0, props)
        gym.prepare_sim(sim)
        dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        dofs[0, 0] = 0.3
        gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(dofs))
        trace = []
        for _ in range(240):
            gym.simulate(sim)
            gym.fetch_results(sim, True)
            gym.refresh_dof_state_tensor(sim)
            trace.append(float(dofs[0, 0]))
        traces.append(np.abs(np.array(trace)))      # the sign depends on the axis direction chosen
        gym.destroy_sim(sim)
    assert traces[0].max() > 0.25 and traces[0].min() < 0.05            # it swings through the bottom
    np.testing.assert_allclose(traces[1], traces[0], atol=2e-3)
    gym.destroy_sim(sim0)


def test_mjcf_asset_export_keeps_joint_limits(gym, tmp_path):
    sim = make_sim(gym, ground=False, graphics=0)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    eo = gymapi.UsdExportOptions()
    eo.export_physics = True
    eo.material_mode = gymapi.USD_MATERIAL_PREVIEW_SURFACE
    ex = gym.create_usd_exporter(eo)
    gym.set_usd_export_root(ex, str(tmp_path))
    assert gym.export_usd_asset(ex, ant, "ant")
    stage = Usd.Stage.Open(str(tmp_path / "ant.usda"))
    joints = {p.GetName(): pxr.UsdPhysics.RevoluteJoint(p) for p in stage.Traverse()
              if p.IsA(pxr.UsdPhysics.RevoluteJoint)}
    props = gym.get_asset_dof_properties(ant)
    names = gym.get_asset_dof_names(ant)
    assert set(names) <= set(joints)
    for i, n in enumerate(names):
        assert math.isclose(joints[n].GetLowerLimitAttr().Get(), math.degrees(props["lower"][i]), abs_tol=1e-3)
        assert math.isclose(joints[n].GetUpperLimitAttr().Get(), math.degrees(props["upper"][i]), abs_tol=1e-3)
    # every visible shape is bound to a preview-surface material of its display color
    bound = [p for p in stage.Traverse() if p.HasAPI(UsdShade.MaterialBindingAPI)]
    assert bound
    for p in bound:
        mat = UsdShade.MaterialBindingAPI(p).ComputeBoundMaterial()[0]
        shader = UsdShade.Shader(stage.GetPrimAtPath(mat.GetPath().AppendChild("PreviewSurface")))
        assert tuple(shader.GetInput("diffuseColor").Get()) == tuple(UsdGeom.Gprim(p).GetDisplayColorAttr().Get()[0])
    gym.destroy_sim(sim)


def test_usd_exporter_errors_change_nothing(gym, tmp_path):
    sim = make_sim(gym, ground=False, graphics=0)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    with pytest.raises(TypeError):
        gym.create_usd_exporter(gymapi.SimParams())
    for field, value, err in (("material_mode", gymapi.USD_MATERIAL_MDL, NotImplementedError),
                              ("single_file", False, NotImplementedError),
                              ("scale", 0.0, ValueError), ("scale", float("nan"), ValueError)):
        eo = gymapi.UsdExportOptions()
        setattr(eo, field, value)
        with pytest.raises(err, match=field if err is ValueError else None):
            gym.create_usd_exporter(eo)
    ex = gym.create_usd_exporter()
    a_file = tmp_path / "not_a_dir"
    a_file.write_text("x")
    root = gym.get_usd_export_root(ex)
    assert gym.set_usd_export_root(ex, str(a_file)) is False
    assert gym.get_usd_export_root(ex) == root
    with pytest.raises(TypeError):
        gym.set_usd_export_root(ex, 3)
    with pytest.raises(TypeError):
        gym.export_usd_asset(ex, sim, "x.usda")
    with pytest.raises(TypeError):
        gym.export_usd_sim("exporter", sim, "x")
    with pytest.raises(ValueError):
        gym.export_usd_sim(ex, sim, "")
    gym.set_usd_export_root(ex, str(tmp_path))
    assert gym.export_usd_asset(ex, box, "box") and (tmp_path / "box.usda").is_file()
    gym.destroy_usd_exporter(ex)
    with pytest.raises(RuntimeError, match="destroyed"):
        gym.export_usd_asset(ex, box, "box2")
    assert not (tmp_path / "box2.usda").exists()
    assert sorted(os.listdir(tmp_path)) == ["box.usda", "not_a_dir"]
    gym.destroy_sim(sim)
