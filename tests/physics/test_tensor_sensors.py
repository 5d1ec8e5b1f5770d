"""Force sensors (create_asset_force_sensor, ForceSensor, the force sensor tensor)."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, make_sim, options, pose
from gymlike import gymapi, gymtorch

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

G = 9.81
FEET = ["front_left_foot", "front_right_foot", "left_back_foot", "right_back_foot"]


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_ant_foot_sensors_carry_its_weight(gym, engine):
    sim = make_sim(gym, engine, dt=1 / 120, substeps=2)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    world = gymapi.ForceSensorProperties()
    world.use_world_frame = True
    tilted = gymapi.Transform(gymapi.Vec3(0.0, 0.0, 0.05), gymapi.Quat.from_axis_angle(gymapi.Vec3(1, 0, 0), 0.7))
    for name in FEET:
        assert gym.create_asset_force_sensor(ant, gym.find_asset_rigid_body_index(ant, name), gymapi.Transform(),
                                             world) == FEET.index(name)
    local = gym.create_asset_force_sensor(ant, gym.find_asset_rigid_body_index(ant, FEET[0]), tilted)
    assert local == 4
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, ant, pose(z=0.6), "ant", i, 1)
        envs.append(env)
    assert gym.get_actor_force_sensor_count(envs[1], 0) == 5
    assert gym.get_sim_force_sensor_count(sim) == 10
    gym.prepare_sim(sim)
    t = gym.acquire_force_sensor_tensor(sim)
    fs = gymtorch.wrap_tensor(t)
    assert tuple(fs.shape) == (10, 6) and fs.data_ptr() == t.data_ptr
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    for _ in range(180):
        gym.simulate(sim)
    gym.refresh_force_sensor_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    mass = sum(p.mass for p in gym.get_actor_rigid_body_properties(envs[0], 0))
    for e in range(2):
        f = fs[5 * e:5 * e + 4]
        assert f[:, 2].sum().item() == pytest.approx(mass * G, rel=0.02)
        assert (f[:, 2] > 0.1 * mass * G).all()                 # every foot carries a share
        assert abs(f[:, 0].sum().item()) < 0.02 * mass * G      # horizontal forces balance
    # the tilted sensor reports foot 0's force in its own frame, torque about its origin
    from scipy.spatial.transform import Rotation as R
    foot = gym.find_actor_rigid_body_index(envs[0], 0, FEET[0], gymapi.DOMAIN_SIM)
    x = bodies[foot].numpy().astype(np.float64)
    r_s = R.from_quat(x[3:7]) * R.from_quat([tilted.r.x, tilted.r.y, tilted.r.z, tilted.r.w])
    np.testing.assert_allclose(r_s.apply(fs[4, 0:3].numpy()), fs[0, 0:3].numpy(), atol=1e-3 * mass * G)
    p_s = x[0:3] + R.from_quat(x[3:7]).apply([0.0, 0.0, 0.05])
    p_0 = x[0:3]
    m0 = fs[0, 3:6].numpy().astype(np.float64)                  # about the foot origin (world axes)
    np.testing.assert_allclose(r_s.apply(fs[4, 3:6].numpy()), m0 + np.cross(p_0 - p_s, fs[0, 0:3].numpy()),
                               atol=1e-3 * mass * G)
    # the handle API: ForceSensor objects read the same rows
    s = gym.get_actor_force_sensor(envs[1], 0, 2)
    assert s.get_global_index() == 7
    sf = s.get_forces()
    np.testing.assert_allclose([sf.force.x, sf.force.y, sf.force.z, sf.torque.x, sf.torque.y, sf.torque.z],
                               fs[7].numpy(), atol=1e-4)


def test_box_sensor_torque_about_the_sensor_and_subtree(gym):
    """A box at rest: force m g up at its centre; a sensor 0.1 m along +x reads torque
    (0, 0.1 m g, 0). A fixed-base arm's base sensor sees the contacts of the links below it."""
    sim = make_sim(gym, "physx", dt=1 / 120, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=125.0))      # 1 kg
    gym.create_asset_force_sensor(box, 0, gymapi.Transform(gymapi.Vec3(0.1, 0.0, 0.0)))
    props = gymapi.ForceSensorProperties()
    props.enable_constraint_solver_forces = False                        # contacts off: reads zero
    gym.create_asset_force_sensor(box, 0, gymapi.Transform(), props)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.1), "box", 0, 0)
    gym.prepare_sim(sim)
    fs = gymtorch.wrap_tensor(gym.acquire_force_sensor_tensor(sim))
    for _ in range(60):
        gym.simulate(sim)
    gym.refresh_force_sensor_tensor(sim)
    np.testing.assert_allclose(fs[0].numpy(), [0, 0, G, 0, 0.1 * G, 0], atol=0.02 * G)
    assert fs[1].abs().max() == 0.0


def test_force_sensor_errors_and_late_sensors(gym):
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    early = gym.create_actor(env, box, pose(z=0.1), "early", 0, 0)
    with pytest.raises(IndexError, match="body_idx 3"):
        gym.create_asset_force_sensor(box, 3, gymapi.Transform())
    with pytest.raises(TypeError, match="local_pose"):
        gym.create_asset_force_sensor(box, 0, gymapi.Vec3())
    gym.create_asset_force_sensor(box, 0, gymapi.Transform())
    late = gym.create_actor(env, box, pose(x=0.5, z=0.1), "late", 0, 0)
    assert gym.get_actor_force_sensor_count(env, early) == 0      # created before the sensor
    assert gym.get_actor_force_sensor_count(env, late) == 1
    with pytest.raises(IndexError, match="out of range"):
        gym.get_actor_force_sensor(env, early, 0)
    gym.prepare_sim(sim)
    assert gym.get_sim_force_sensor_count(sim) == 1
    assert gym.get_actor_force_sensor(env, late, 0).get_global_index() == 0
    with pytest.raises(RuntimeError, match="finalized"):
        gym.create_asset_force_sensor(box, 0, gymapi.Transform())
    t = gymtorch.wrap_tensor(gym.acquire_force_sensor_tensor(sim))
    assert tuple(t.shape) == (1, 6)
    gym.simulate(sim)
    gym.refresh_force_sensor_tensor(sim)
    assert torch.isfinite(t).all()
