"""Isaac Gym's frames: every position that crosses the API is in its env's frame (world position
minus the env origin), on a spaced grid of several rows, on both engines."""

import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch

from conftest import make_sim, options, pose


def _grid(gym, engine, num_envs=6, per_row=3, spacing=2.5):
    sim = make_sim(gym, engine, dt=1.0 / 60.0)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    lo, hi = gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing)
    envs = []
    for i in range(num_envs):
        env = gym.create_env(sim, lo, hi, per_row)
        gym.create_actor(env, box, pose(0.3, -0.2, 0.1), "box", i, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    return sim, envs


def _world_positions(sim):
    # Newton's world positions (internal): the oracle for "where the actor really is"
    return sim.state.body_q.numpy()[:, 0:3]


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_tensors_and_handle_api_are_env_local(gym, engine):
    sim, envs = _grid(gym, engine)
    origins = np.array([gym.get_env_origin(e).to_tuple() for e in envs], np.float32)
    assert len({tuple(o) for o in origins}) == len(envs) and len(set(origins[:, 1])) > 1  # spaced, 2 rows
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    # the same local pose in every env reads the same row values
    expect = torch.tensor([0.3, -0.2, 0.1]).expand(len(envs), 3)
    torch.testing.assert_close(root[:, 0:3], expect, atol=1e-5, rtol=0)
    torch.testing.assert_close(bodies[:, 0:3], expect, atol=1e-5, rtol=0)
    sim_states = gym.get_sim_rigid_body_states(sim, gymapi.STATE_POS)
    for i, env in enumerate(envs):
        assert gym.get_rigid_transform(env, 0).p.to_tuple() == pytest.approx((0.3, -0.2, 0.1), abs=1e-5)
        p = sim_states[i]["pose"]["p"]
        assert (p["x"], p["y"], p["z"]) == pytest.approx((0.3, -0.2, 0.1), abs=1e-5)
    # ... while the actors really are at their env origins + the local pose
    assert _world_positions(sim) == pytest.approx(origins + [0.3, -0.2, 0.1], abs=1e-5)

    # writing (0, 0, 1) into every root row puts every actor at its own origin + (0, 0, 1)
    target = root.clone()
    target[:, 0:3] = torch.tensor([0.0, 0.0, 1.0])
    target[:, 7:13] = 0.0
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(target))
    gym.refresh_actor_root_state_tensor(sim)
    torch.testing.assert_close(root[:, 0:3], target[:, 0:3], atol=1e-5, rtol=0)
    assert _world_positions(sim) == pytest.approx(origins + [0.0, 0.0, 1.0], abs=1e-5)
    # and they fall from there onto the shared ground
    for _ in range(60):
        gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    z = root[:, 2].numpy()
    assert np.allclose(z, 0.1, atol=0.01), z
    torch.testing.assert_close(root[:, 0:2], torch.zeros(len(envs), 2), atol=1e-3, rtol=0)


def test_rigid_body_tensor_write_and_sim_level_write_are_env_local(gym):
    sim, envs = _grid(gym, "flex")     # XPBD reads body states directly
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_rigid_body_state_tensor(sim)
    origins = np.array([gym.get_env_origin(e).to_tuple() for e in envs], np.float32)
    new = bodies.clone()
    new[:, 0:3] = torch.tensor([1.0, 0.5, 0.7])
    gym.set_rigid_body_state_tensor(sim, gymtorch.unwrap_tensor(new))
    assert _world_positions(sim) == pytest.approx(origins + [1.0, 0.5, 0.7], abs=1e-5)
    states = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL)
    states["pose"]["p"]["z"] = 2.0
    gym.set_sim_rigid_body_states(sim, states, gymapi.STATE_ALL)
    assert _world_positions(sim) == pytest.approx(origins + [1.0, 0.5, 2.0], abs=1e-5)


@pytest.mark.parametrize("engine", ["physx"])
def test_attractor_target_and_force_position_are_env_local(gym, engine):
    sim = make_sim(gym, engine, ground=False, gravity=0.0, dt=1.0 / 60.0)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs, attractors = [], []
    lo, hi = gymapi.Vec3(-2.0, -2.0, 0.0), gymapi.Vec3(2.0, 2.0, 2.0)
    for i in range(4):
        env = gym.create_env(sim, lo, hi, 2)
        gym.create_actor(env, box, pose(0.0, 0.0, 1.0), "box", i, 0)
        envs.append(env)
    for env in envs:
        props = gymapi.AttractorProperties()
        props.stiffness, props.damping, props.axes = 200.0, 40.0, gymapi.AXIS_TRANSLATION
        props.rigid_handle = 0
        props.target = pose(0.5, 0.0, 1.0)           # env frame: 0.5 m along x from the start
        attractors.append(gym.create_rigid_body_attractor(env, props))
    for _ in range(240):
        gym.simulate(sim)
    for env in envs:
        assert gym.get_rigid_transform(env, 0).p.to_tuple() == pytest.approx((0.5, 0.0, 1.0), abs=2e-3)
