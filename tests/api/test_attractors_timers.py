"""Rigid body attractors pull a body to a target (translation and rotation, per axis);
performance timers measure time spent in simulate."""

import pytest

from conftest import make_sim, options, pose
from gymlike import gymapi


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_attractor_pulls_body_to_target(gym, engine):
    sim = make_sim(gym, engine, ground=False, gravity=0.0, dt=1 / 120, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=125.0))   # 1 kg
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=1.0), "box", 0, 0)
    gym.create_actor(env, box, pose(x=0.5, z=1.0), "free", 0, 0)
    props = gymapi.AttractorProperties()
    props.rigid_handle = 0
    props.axes = gymapi.AXIS_ALL
    props.stiffness, props.damping = 50.0, 10.0
    props.target = gymapi.Transform(gymapi.Vec3(0.3, -0.2, 1.4),
                                    gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), 0.6))
    h = gym.create_rigid_body_attractor(env, props)
    assert gym.get_attractor_properties(env, h).stiffness == 50.0
    for _ in range(480):
        gym.simulate(sim)
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)[0]
    assert tuple(st["pose"]["p"].tolist()) == pytest.approx((0.3, -0.2, 1.4), abs=2e-3)
    q = gymapi.Quat(*st["pose"]["r"].tolist())
    assert q.to_euler_zyx()[2] == pytest.approx(0.6, abs=2e-2)
    other = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)[0]["pose"]["p"]
    assert tuple(other.tolist()) == pytest.approx((0.5, 0.0, 1.0), abs=1e-6)   # untouched
    # moving the target moves the body; an attractor on X only leaves Y/Z free
    props.axes = gymapi.AXIS_X
    props.target = gymapi.Transform(gymapi.Vec3(-0.4, 5.0, 5.0))
    gym.set_attractor_properties(env, h, props)
    for _ in range(480):
        gym.simulate(sim)
    p = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]
    assert p["x"] == pytest.approx(-0.4, abs=2e-3)
    assert (p["y"], p["z"]) == pytest.approx((-0.2, 1.4), abs=2e-2)


def test_attractor_errors(gym):
    sim = make_sim(gym, "physx", ground=False)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=1.0), "box", 0, 0)
    props = gymapi.AttractorProperties()
    props.rigid_handle = 3
    with pytest.raises(IndexError, match="rigid_handle"):
        gym.create_rigid_body_attractor(env, props)
    with pytest.raises(IndexError, match="attractor handle"):
        gym.set_attractor_target(env, 0, gymapi.Transform())
    props.rigid_handle, props.stiffness = 0, -1.0
    with pytest.raises(ValueError, match="stiffness"):
        gym.create_rigid_body_attractor(env, props)


def test_performance_timers(gym):
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=1.0), "box", 0, 0)
    gym.prepare_sim(sim)
    t = gym.create_performance_timers(sim)
    for _ in range(20):
        gym.simulate(sim)
    pt = gym.get_performance_timers(sim, t)
    assert 0 < pt.physics_sim <= pt.total_time
    gym.destroy_performance_timers(sim, t)
    with pytest.raises(IndexError):
        gym.get_performance_timers(sim, t)


def test_timer_handles_are_not_reused_while_live(gym):
    sim = make_sim(gym, "physx")
    a = gym.create_performance_timers(sim)
    b = gym.create_performance_timers(sim)
    gym.destroy_performance_timers(sim, a)
    c = gym.create_performance_timers(sim)
    assert c not in (a, b)                 # b is still live: a new handle must not collide with it
    gym.destroy_performance_timers(sim, b)
    gym.get_performance_timers(sim, c)     # c still valid after b's destruction
