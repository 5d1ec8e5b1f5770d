"""Scenes Isaac Gym simulates on PhysX that are not one identical world per env: envs holding
different actors, and collision group -1 actors that collide with every env (a projectile of
its own env flying through a row of envs). Both engines; envs stay isolated otherwise."""

import numpy as np
import pytest

from gymlike import gymapi

from conftest import make_sim, options, pose


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_group_minus_one_projectile_hits_actors_in_two_envs(gym, engine):
    sim = make_sim(gym, engine, gravity=0.0, dt=1.0 / 120.0)
    wall = gym.create_box(sim, 0.1, 1.0, 1.0, options(density=50.0))      # 5 kg walls, a 21 kg ball
    ball = gym.create_sphere(sim, 0.1, options(density=5000.0))
    lo, hi = gymapi.Vec3(-1.0, -1.0, 0.0), gymapi.Vec3(1.0, 1.0, 1.0)
    envs = []
    for i in range(3):                          # one row along x, 2 m apart
        env = gym.create_env(sim, lo, hi, 3)
        gym.create_actor(env, wall, pose(0.0, 0.0, 0.5), "wall", i, 0)
        envs.append(env)
    # the projectile's own env (the 4th: next row); the ball starts in world x = -1.5, y = 0
    proj_env = gym.create_env(sim, lo, hi, 3)
    o = gym.get_env_origin(proj_env)
    gym.create_actor(proj_env, ball, pose(-1.5 - o.x, -o.y, 0.5), "ball", -1, 0)
    # a second, group-0 ball in that env: it must pass through the walls of the other envs
    gym.create_actor(proj_env, ball, pose(-1.5 - o.x, -o.y + 0.3, 0.5), "ghost", 0, 0)
    gym.prepare_sim(sim)
    vel = gym.get_actor_rigid_body_states(proj_env, 0, gymapi.STATE_ALL)
    vel["vel"]["linear"]["x"] = 8.0
    gym.set_actor_rigid_body_states(proj_env, 0, vel, gymapi.STATE_ALL)
    vel = gym.get_actor_rigid_body_states(proj_env, 1, gymapi.STATE_ALL)
    vel["vel"]["linear"]["x"] = 8.0
    gym.set_actor_rigid_body_states(proj_env, 1, vel, gymapi.STATE_ALL)
    hit = set()
    for _ in range(150):
        gym.simulate(sim)
        for i, env in enumerate(envs):
            if gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)["vel"]["linear"]["x"][0] > 0.1:
                hit.add(i)
    assert {0, 1} <= hit                          # walls of two different envs were struck
    ghost_x = gym.get_actor_rigid_body_states(proj_env, 1, gymapi.STATE_POS)["pose"]["p"]["x"][0] + o.x
    assert ghost_x > 3.0                          # the group-0 ball flew through every wall


def test_different_actors_per_env_on_physx_keep_index_domains_and_isolation(gym):
    sim = make_sim(gym, "physx", dt=1.0 / 60.0)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    sphere = gym.create_sphere(sim, 0.1, options())
    lo = hi = gymapi.Vec3(0.0, 0.0, 0.0)      # zero spacing (as legged_gym): every env overlaps
    envs = []
    layouts = [[box], [box, sphere], [box, box, sphere]]
    for i, assets in enumerate(layouts):
        env = gym.create_env(sim, lo, hi, 3)
        for k, a in enumerate(assets):
            gym.create_actor(env, a, pose(0.0, 0.0, 0.5 + 0.3 * k), f"a{k}", i, 0)
        envs.append(env)
    # the envs' actors overlap in space; only their own env's actors may touch them
    gym.prepare_sim(sim)
    assert gym.get_sim_actor_count(sim) == 6
    for _ in range(90):
        gym.simulate(sim)
    for env, assets in zip(envs, layouts):
        st = gym.get_env_rigid_body_states(env, gymapi.STATE_POS)
        z = np.sort(st["pose"]["p"]["z"])
        # stacked bodies rest on each other and on the ground, nothing fell through
        assert z[0] == pytest.approx(0.1, abs=0.01)
        assert (np.diff(z) > 0.15).all()
        assert np.abs(st["pose"]["p"]["x"]).max() < 0.05
    assert gym.get_actor_index(envs[2], 2, gymapi.DOMAIN_SIM) == 5
    assert gym.get_actor_rigid_body_index(envs[2], 0, 0, gymapi.DOMAIN_SIM) == 3
