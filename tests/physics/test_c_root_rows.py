"""Root and rigid body states on MuJoCo C's rows (mjc.root_rows, mjc.body_rows): where every
actor's root is a MuJoCo free joint or a base welded to the world,
refresh_actor_root_state_tensor and refresh_rigid_body_state_tensor read the rows and
set_actor_root_state_tensor(_indexed) writes the floating actors' rows, with no Newton
conversion. The oracle is the path through Newton's state (its conversion of MuJoCo's state,
forward kinematics), forced by switching the rows paths off."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, humanoid_sim, make_sim, options, pose, simulate_random_efforts
from gymlike import gymapi, gymtorch
from gymlike.core import mjc

N = 3


def humanoids(gym):
    """3 humanoids (free root; the torso's COM is off its origin, so the COM velocity and the
    origin's differ) driven by random efforts for 20 frames."""
    sim = humanoid_sim(gym, N)
    assert mjc.c_step(sim.solver) is not None
    roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    simulate_random_efforts(gym, sim, 20, 40.0, seed=1)
    return sim, roots, bodies


def read(gym, sim, roots, bodies):
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    nb = bodies.shape[0] // N
    return roots.clone(), bodies.view(N, nb, 13)[:, 0].clone()


def no_rows(monkeypatch):
    monkeypatch.setattr(mjc, "root_rows", lambda sim: None)
    monkeypatch.setattr(mjc, "body_rows", lambda sim: None)


def new_roots(roots):
    """Env 1's root moved, tilted (a quaternion of norm 2: written normalised), moving and
    spinning; the others as they are."""
    new = roots.clone()
    q = torch.tensor([0.3, -0.2, 0.5, 0.8])
    new[1, 0:3] = torch.tensor([0.4, -0.3, 1.6])
    new[1, 3:7] = 2.0 * q / q.norm()
    new[1, 7:10] = torch.tensor([0.5, -1.0, 2.0])
    new[1, 10:13] = torch.tensor([3.0, 1.0, -2.0])
    return new


def test_root_states_read_on_the_rows_equal_newtons(gym, monkeypatch):
    sim, roots, bodies = humanoids(gym)
    cs = mjc.c_step(sim.solver)
    assert mjc.root_rows(sim) is not None
    gym.refresh_actor_root_state_tensor(sim)
    assert not cs.cur.newton_current            # (the rows path left Newton's state unconverted)
    on_rows = roots.clone()
    no_rows(monkeypatch)
    via_newton, root_bodies = read(gym, sim, roots, bodies)
    assert torch.allclose(on_rows, via_newton, atol=2e-6, rtol=1e-5)
    assert torch.allclose(on_rows, root_bodies, atol=2e-6, rtol=1e-5)
    assert on_rows[:, 7:13].abs().max() > 0.1        # (moving: the velocities are compared)


def test_root_states_written_on_the_rows_equal_newtons_write(gym, monkeypatch):
    """An indexed write of env 1's root: read back from the rows and from Newton's conversion
    (its root body) it is what was written; the other envs are untouched; ten frames later
    both write paths give the same bodies."""
    runs = []
    for rows in (True, False):
        if not rows:
            no_rows(monkeypatch)
        sim, roots, bodies = humanoids(gym)
        before, _ = read(gym, sim, roots, bodies)
        new = new_roots(before)
        ids = torch.tensor([1], dtype=torch.int32)
        cs = mjc.c_step(sim.solver)
        warm = cs.flat["qacc_warmstart"].copy()
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), 1)
        if rows:       # (the written world forgets its warm start, the others keep it)
            assert np.abs(warm).max() > 0 and not cs.flat["qacc_warmstart"][1].any()
            assert np.array_equal(cs.flat["qacc_warmstart"][[0, 2]], warm[[0, 2]])
        after, root_bodies = read(gym, sim, roots, bodies)
        want = new.clone()
        want[1, 3:7] /= 2.0
        assert torch.allclose(after, want, atol=1e-6), rows
        assert torch.allclose(root_bodies, want, atol=1e-6), rows
        assert torch.equal(after[[0, 2]], before[[0, 2]])
        for _ in range(10):
            gym.simulate(sim)
        runs.append(read(gym, sim, roots, bodies)[0])
    assert torch.allclose(runs[0], runs[1], atol=1e-4)


def test_a_zero_quaternion_written_on_the_rows_changes_nothing(gym):
    sim, roots, bodies = humanoids(gym)
    cs = mjc.c_step(sim.solver)
    before, _ = read(gym, sim, roots, bodies)
    rows = cs.flat["qpos"].copy(), cs.flat["qvel"].copy(), cs.flat["qacc_warmstart"].copy()
    bad = new_roots(before)
    bad[2, 3:7] = 0.0
    ids = torch.tensor([1, 2], dtype=torch.int32)
    with pytest.raises(ValueError, match="zero quaternion"):
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(bad), gymtorch.unwrap_tensor(ids), 2)
    for a, b in zip(rows, (cs.flat["qpos"], cs.flat["qvel"], cs.flat["qacc_warmstart"])):
        assert np.array_equal(a, b)
    assert torch.equal(read(gym, sim, roots, bodies)[0], before)


def test_repeated_indexed_writes_of_varying_counts_each_write_their_actors(gym):
    """A training loop resets a varying few envs every step: the write's launch is replayed as a
    captured graph once its arguments stop changing (the count is read from memory); each call
    still writes exactly its listed actors, root states and DOF states alike."""
    sim, roots, bodies = humanoids(gym)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    per = dofs.shape[0] // N
    for step, listed in enumerate([[0], [2, 1], [1], [0, 1, 2], [2], [1, 0]]):
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        before, dofs_before = roots.clone(), dofs.clone()
        new, new_dofs = before.clone(), dofs_before.clone()
        for e in listed:
            new[e, 0:3] = torch.tensor([0.1 * step, -0.1 * e, 1.2 + 0.01 * step])
            new[e, 7:13] = 0.1 * (step + 1)
            new_dofs[e * per:(e + 1) * per, 0] = 0.05 * (step - e)
        ids = torch.tensor(listed, dtype=torch.int32)
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids),
                                                len(listed))
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new_dofs), gymtorch.unwrap_tensor(ids),
                                         len(listed))
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        for e in range(N):
            want, want_dofs = (new, new_dofs) if e in listed else (before, dofs_before)
            assert torch.allclose(roots[e], want[e], atol=1e-6), (step, e)
            assert torch.equal(dofs[e * per:(e + 1) * per], want_dofs[e * per:(e + 1) * per]), (step, e)
        gym.simulate(sim)


def test_rigid_body_states_read_on_the_rows_equal_newtons(gym, monkeypatch):
    """Every body of the moving humanoids (hinge chains off a free root), read on the rows by
    forward kinematics of MuJoCo's state, is Newton's conversion of it: origin pose, COM
    velocity and angular velocity."""
    sim, roots, bodies = humanoids(gym)
    cs = mjc.c_step(sim.solver)
    assert mjc.body_rows(sim) is not None
    gym.refresh_rigid_body_state_tensor(sim)
    assert not cs.cur.newton_current            # (read without converting Newton's state)
    on_rows = bodies.clone()
    no_rows(monkeypatch)
    gym.refresh_rigid_body_state_tensor(sim)
    assert torch.allclose(on_rows, bodies, atol=5e-6, rtol=1e-5)
    assert on_rows[:, 10:13].abs().max() > 1.0 and on_rows[:, 7:10].abs().max() > 0.1


def arms_and_boxes(gym):
    """3 envs of the project's 7-DOF arm, its base welded to the world at a turned pose, and a
    free box falling beside it; the arms moved by random efforts for 15 frames."""
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    arm = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf",
                         options(fix_base_link=True, default_dof_drive_mode=gymapi.DOF_MODE_EFFORT))
    box = gym.load_asset(sim, ASSETS, "urdf/box.urdf", options())
    turn = gymapi.Quat.from_axis_angle(gymapi.Vec3(0.3, 0.2, 1.0).normalize(), 0.7)
    for i in range(N):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, arm, pose(0.1 * i, 0.2, 0.3, turn), "arm", i, 0)
        gym.create_actor(env, box, pose(0.8, 0.0, 0.5 + 0.1 * i), "box", i, 0)
    gym.prepare_sim(sim)
    roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    simulate_random_efforts(gym, sim, 15, 5.0, seed=2)
    return sim, roots, bodies


def test_fixed_bases_and_bodies_read_on_the_rows_equal_newtons(gym, monkeypatch):
    """A fixed-base actor's root is read on the rows too (its welded pose, at rest), beside a
    falling box's free root; with the arm's bodies, all equal to the path through Newton."""
    sim, roots, bodies = arms_and_boxes(gym)
    cs = mjc.c_step(sim.solver)
    assert mjc.root_rows(sim) is not None and mjc.body_rows(sim) is not None
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    assert not cs.cur.newton_current
    on_rows, bodies_on_rows = roots.clone(), bodies.clone()
    no_rows(monkeypatch)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    assert torch.allclose(on_rows, roots, atol=2e-6, rtol=1e-5)
    assert torch.allclose(bodies_on_rows, bodies, atol=5e-6, rtol=1e-5)
    arm = on_rows.view(N, 2, 13)[:, 0]
    assert torch.allclose(arm[:, 0:3], torch.tensor([[0.1 * i, 0.2, 0.3] for i in range(N)]), atol=1e-6)
    assert not arm[:, 7:13].any()
    assert on_rows.view(N, 2, 13)[:, 1, 7:10].abs().max() > 0.5      # (the boxes fall)
    assert bodies_on_rows[:, 10:13].abs().max() > 0.1                # (the arms turn)


def test_root_writes_beside_fixed_bases_follow_newtons_path(gym, monkeypatch):
    """With fixed bases in the sim, a write listing only boxes goes into the rows, one listing an
    arm moves its base through Newton's model; both read back as written, the other actors
    untouched, and ten frames later both ways give the bodies of the path through Newton."""
    runs = []
    for rows in (True, False):
        if not rows:
            no_rows(monkeypatch)
        sim, roots, bodies = arms_and_boxes(gym)
        gym.refresh_actor_root_state_tensor(sim)
        before = roots.clone()
        new = before.clone()
        new[3, 0:3] = torch.tensor([0.5, 0.5, 0.9])          # env 1's box
        new[3, 7:13] = torch.tensor([0.1, 0.0, 0.5, 1.0, -1.0, 0.5])
        new[4, 0:3] = torch.tensor([-0.3, 0.1, 0.4])         # env 2's arm: its base moves
        cs = mjc.c_step(sim.solver)
        for ids in ([3], [4]):
            t = torch.tensor(ids, dtype=torch.int32)
            gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(t), 1)
            if rows and ids == [3]:
                assert not cs.cur.newton_current      # (the box's write stayed on the rows)
        gym.refresh_actor_root_state_tensor(sim)
        want = before.clone()
        want[[3, 4]] = new[[3, 4]]
        assert torch.allclose(roots, want, atol=1e-6), rows
        for _ in range(10):
            gym.simulate(sim)
        gym.refresh_rigid_body_state_tensor(sim)
        runs.append(bodies.clone())
    assert torch.allclose(runs[0], runs[1], atol=1e-4)
