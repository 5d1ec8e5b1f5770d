"""Visual-only geometry is loaded only where something can draw it (Sim.wants_visuals): a sim
without a graphics device (graphics_device_id -1, as IsaacGymEnvs and legged_gym create it for
headless training) or a headless run without camera sensors builds its actors from the files'
collision geometry alone. The Isaac Gym view (bodies, rigid shapes, masses, shape properties)
and the physics are the same either way."""

import numpy as np
import pytest

from conftest import ASSETS, make_sim, options, pose, write
from gymlike import gymapi
from gymlike.render import cameras

ROBOT = "urdf/quadruped/quadruped.urdf"

# a body whose mass comes from its geoms, one of them visual-only (contype = conaffinity = 0)
MJCF = """
<mujoco model="vis">
  <worldbody>
    <body name="blob" pos="0 0 0.3">
      <freejoint/>
      <geom name="hit" type="sphere" size="0.05" density="1000"/>
      <geom name="look" type="box" size="0.1 0.02 0.02" pos="0 0 0.06" contype="0" conaffinity="0" density="500"/>
    </body>
  </worldbody>
</mujoco>
"""


def _robot_sim(gym, graphics, frames=0, camera=False):
    sim = make_sim(gym, "physx", graphics=graphics)
    asset = gym.load_asset(sim, ASSETS, ROBOT, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    actor = gym.create_actor(env, asset, pose(z=0.6), "robot", 0, 0)
    if camera:
        gym.create_camera_sensor(env, gymapi.CameraProperties())
    gym.prepare_sim(sim)
    return sim, env, actor, asset


def _drawn(sim):
    """(visual-only shapes, visible colliding shapes) of the sim's Newton model."""
    import newton
    flags = sim.model.shape_flags.numpy()
    body = sim.model.shape_body.numpy()
    collide, visible = int(newton.ShapeFlags.COLLIDE_SHAPES), int(newton.ShapeFlags.VISIBLE)
    of_bodies = body >= 0
    return (int(np.sum(of_bodies & ((flags & collide) == 0))),
            int(np.sum(of_bodies & ((flags & collide) != 0) & ((flags & visible) != 0))))


def _shape_rows(gym, sim, env, actor):
    """Per Isaac Gym rigid shape of the actor: its Newton shape's body, type and size, and the
    friction set through the handle API (each shape its own)."""
    props = gym.get_actor_rigid_shape_properties(env, actor)
    for i, p in enumerate(props):
        p.friction = 0.3 + 0.01 * i
    assert gym.set_actor_rigid_shape_properties(env, actor, props)
    s = sim.host.shape_newton
    m = sim.model
    return np.column_stack([m.shape_body.numpy()[s], m.shape_type.numpy()[s], m.shape_scale.numpy()[s],
                            m.shape_material_mu.numpy()[s]])


def test_a_sim_without_graphics_builds_without_visual_geometry_and_moves_the_same(gym):
    with_vis, env_v, act_v, asset_v = _robot_sim(gym, graphics=0)
    without, env_n, act_n, asset_n = _robot_sim(gym, graphics=-1)
    assert _drawn(with_vis)[0] == 21            # the URDF's <visual> elements
    assert _drawn(without) == (0, gym.get_asset_rigid_shape_count(asset_n))   # colliders drawn instead
    # the same Isaac Gym view: bodies, rigid shapes, masses, DOFs
    assert gym.get_asset_rigid_body_names(asset_v) == gym.get_asset_rigid_body_names(asset_n)
    assert gym.get_asset_rigid_shape_count(asset_v) == gym.get_asset_rigid_shape_count(asset_n) > 0
    assert gym.get_asset_dof_names(asset_v) == gym.get_asset_dof_names(asset_n)
    mass = [[p.mass for p in gym.get_actor_rigid_body_properties(e, a)]
            for e, a in ((env_v, act_v), (env_n, act_n))]
    np.testing.assert_array_equal(mass[0], mass[1])
    # each Isaac Gym shape maps to the same collision shape, and its property writes land there
    np.testing.assert_array_equal(_shape_rows(gym, with_vis, env_v, act_v), _shape_rows(gym, without, env_n, act_n))
    # the robot falls, lands and folds the same way
    for _ in range(90):
        gym.simulate(with_vis)
        gym.simulate(without)
    states = [gym.get_actor_rigid_body_states(e, a, gymapi.STATE_ALL)["pose"]["p"]
              for e, a in ((env_v, act_v), (env_n, act_n))]
    z = np.array([list(p) for p in states[0]])[:, 2]
    assert z.min() < 0.5                         # it fell and landed
    np.testing.assert_allclose(np.array([list(p) for p in states[0]]), np.array([list(p) for p in states[1]]),
                               atol=1e-4)


def test_mjcf_visual_geoms_are_left_out_but_still_weigh(gym, tmp_path):
    write(tmp_path, "vis.xml", MJCF)
    masses, shapes = [], []
    for graphics in (0, -1):
        sim = make_sim(gym, "physx", graphics=graphics)
        asset = gym.load_asset(sim, str(tmp_path), "vis.xml", options())
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
        actor = gym.create_actor(env, asset, pose(), "blob", 0, 0)
        gym.prepare_sim(sim)
        assert gym.get_asset_rigid_shape_count(asset) == 1
        masses.append(gym.get_actor_rigid_body_properties(env, actor)[0].mass)
        shapes.append(_drawn(sim))
    assert shapes == [(1, 0), (0, 1)]     # the visual box; without it, the sphere drawn
    sphere, box = 1000 * 4 / 3 * np.pi * 0.05 ** 3, 500 * 0.2 * 0.04 * 0.04
    assert masses[0] == masses[1] == pytest.approx(sphere + box, rel=1e-5)


def test_a_headless_run_loads_visuals_only_for_camera_sensors(gym, monkeypatch):
    monkeypatch.setenv("GYMLIKE_VIEWER", "headless")     # what gymlike.run --headless sets
    plain = _robot_sim(gym, graphics=0)[0]
    assert _drawn(plain)[0] == 0
    filming = _robot_sim(gym, graphics=0, camera=True)[0]
    assert _drawn(filming)[0] == 21
    monkeypatch.delenv("GYMLIKE_VIEWER")
    assert _drawn(_robot_sim(gym, graphics=0)[0])[0] == 21


def test_drawing_a_sim_without_visuals_says_so(gym, monkeypatch):
    monkeypatch.setattr(cameras, "_warned", set())
    sim, env, _, _ = _robot_sim(gym, graphics=-1, camera=True)
    with pytest.warns(RuntimeWarning, match="visual meshes were not loaded .graphics_device_id is -1.*collision shapes are drawn"):
        gym.render_all_camera_sensors(sim)
    img = gym.get_camera_image(sim, env, 0, gymapi.IMAGE_COLOR)
    assert img.shape[0] > 0
