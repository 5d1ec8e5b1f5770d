"""Isaac Gym's lifecycle orders: reads and writes while still creating, static geometry added
after a read, no prepare_sim at all, and a failed prepare_sim that leaves the sim as it was."""

import numpy as np
import pytest

from gymlike import gymapi

from conftest import make_sim, options, pose


def _scene(gym, n=3):
    sim = make_sim(gym, ground=False, dt=1.0 / 60.0)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(0.0, 0.0, 1.0 + 0.1 * i), "box", i, 0)
        envs.append(env)
    return sim, envs, box


def test_read_states_then_add_triangle_mesh_then_restore(gym):
    sim, envs, _ = _scene(gym)
    initial = np.copy(gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL))   # before any model
    assert initial["pose"]["p"]["z"] == pytest.approx([1.0, 1.1, 1.2])      # authored, env frame
    # static geometry after the read (Isaac Gym's terrain example): a 4 x 4 m square at z = 0
    verts = np.array([[-2, -2, 0], [6, -2, 0], [6, 6, 0], [-2, 6, 0]], np.float32)
    tris = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
    tm = gymapi.TriangleMeshParams()
    tm.nb_vertices, tm.nb_triangles = len(verts), len(tris)
    gym.add_triangle_mesh(sim, verts.flatten(), tris.flatten(), tm)
    for _ in range(90):
        gym.simulate(sim)                           # no prepare_sim: simulate builds the sim
    z = gym.get_sim_rigid_body_states(sim, gymapi.STATE_POS)["pose"]["p"]["z"]
    assert z == pytest.approx(0.1, abs=0.01)        # every box rests on the mesh
    gym.set_sim_rigid_body_states(sim, initial, gymapi.STATE_ALL)
    z = gym.get_sim_rigid_body_states(sim, gymapi.STATE_POS)["pose"]["p"]["z"]
    assert z == pytest.approx([1.0, 1.1, 1.2], abs=1e-5)


def test_env_level_write_while_creating_is_kept(gym):
    sim, envs, box = _scene(gym)
    st = gym.get_env_rigid_body_states(envs[1], gymapi.STATE_ALL)
    st["pose"]["p"]["x"] = 0.5
    gym.set_env_rigid_body_states(envs[1], st, gymapi.STATE_POS)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)   # creation goes on
    gym.create_actor(env, box, pose(0.0, 0.0, 2.0), "box", 9, 0)
    gym.prepare_sim(sim)
    assert gym.get_actor_rigid_body_states(envs[1], 0, gymapi.STATE_POS)["pose"]["p"]["x"][0] == pytest.approx(0.5)
    assert gym.get_actor_rigid_body_states(envs[0], 0, gymapi.STATE_POS)["pose"]["p"]["x"][0] == pytest.approx(0.0)


def test_failed_prepare_sim_changes_nothing_and_the_script_continues(gym, monkeypatch):
    from gymlike.core import build
    sim, envs, box = _scene(gym)
    real = build._make_solver

    def broken(s, *args):
        raise RuntimeError("solver could not be made")
    monkeypatch.setattr(build, "_make_solver", broken)
    with pytest.raises(RuntimeError, match="solver could not be made"):
        gym.prepare_sim(sim)
    assert not sim.finalized
    monkeypatch.setattr(build, "_make_solver", real)
    gym.create_actor(envs[0], box, pose(0.5, 0.0, 1.0), "late", 0, 0)        # still open for creation
    assert gym.get_actor_dof_states(envs[0], 0, gymapi.STATE_ALL).shape == (0,)
    gym.prepare_sim(sim)
    gym.simulate(sim)
    assert gym.get_sim_actor_count(sim) == 4
    assert gym.get_actor_rigid_body_states(envs[0], 1, gymapi.STATE_POS)["pose"]["p"]["x"][0] == pytest.approx(0.5)


def test_writes_before_the_model_replay_in_call_order(gym, tmp_path):
    """Body-state writes, a DOF-state write after them, and a body force, all made while still
    creating, act once the model exists in the order they were made: the later DOF write wins
    over the link poses written before it, and the force acts during the first simulate."""
    from conftest import PENDULUM_URDF, write
    write(tmp_path, "pend.urdf", PENDULUM_URDF.format(L=0.5))
    sim = make_sim(gym, ground=False, dt=1.0 / 60.0)
    pend = gym.load_asset(sim, str(tmp_path), "pend.urdf", options(fix_base_link=True))
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=125.0))        # 1 kg
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
    p = gym.create_actor(env, pend, pose(0.0, 0.0, 2.0), "pend", 0, 0)
    b = gym.create_actor(env, box, pose(1.0, 0.0, 1.0), "box", 0, 0)
    # pendulum: link poses at rest (0 rad), then a DOF write of 0.3 rad (which must win)
    states = gym.get_actor_rigid_body_states(env, p, gymapi.STATE_ALL)
    gym.set_actor_rigid_body_states(env, p, states, gymapi.STATE_ALL)
    dof = gym.get_actor_dof_states(env, p, gymapi.STATE_ALL)
    dof["pos"] = 0.3
    gym.set_actor_dof_states(env, p, dof, gymapi.STATE_ALL)
    # box: placed at z = 3, then pushed up with 29.81 N for the first simulate (net +20 m/s^2)
    bs = gym.get_actor_rigid_body_states(env, b, gymapi.STATE_ALL)
    bs["pose"]["p"]["z"] = 3.0
    gym.set_actor_rigid_body_states(env, b, bs, gymapi.STATE_ALL)
    gym.apply_body_forces(env, gym.get_actor_rigid_body_handle(env, b, 0), gymapi.Vec3(0, 0, 29.81), None,
                          gymapi.ENV_SPACE)
    assert gym.get_actor_dof_states(env, p, gymapi.STATE_POS)["pos"][0] == pytest.approx(0.3)
    gym.prepare_sim(sim)
    assert gym.get_actor_dof_states(env, p, gymapi.STATE_POS)["pos"][0] == pytest.approx(0.3, abs=1e-6)
    assert gym.get_actor_rigid_body_states(env, b, gymapi.STATE_POS)["pose"]["p"]["z"][0] == pytest.approx(3.0)
    gym.simulate(sim)
    vz = gym.get_actor_rigid_body_states(env, b, gymapi.STATE_VEL)["vel"]["linear"]["z"][0]
    assert vz == pytest.approx(20.0 / 60.0, rel=1e-3)
    gym.simulate(sim)                                   # the force lasted one simulate only
    vz2 = gym.get_actor_rigid_body_states(env, b, gymapi.STATE_VEL)["vel"]["linear"]["z"][0]
    assert vz2 - vz == pytest.approx(-9.81 / 60.0, rel=1e-3)
