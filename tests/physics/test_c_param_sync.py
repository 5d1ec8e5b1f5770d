"""Per-world parameters on the C step after changes through the API: the batch's sync works only
on the fields Newton wrote since the last one (SolverMuJoCoC._sync_params; domain randomization
changes a few of ~150 at every reset). Oracle: a sync from nothing, which reads every field."""

import mujoco
import numpy as np

from conftest import humanoid_sim, simulate_random_efforts
from gymlike import gymapi
from gymlike.core import mjc
from test_c_constants import heavier

N = 3


def world_models(cs):
    """Every numeric field of each world's model as the batch steps it."""
    out = []
    for w in range(cs.nworld):
        m = cs.batch.get_model(w)
        fields = {k: np.array(getattr(m, k)) for k in dir(m)
                  if not k.startswith("_") and isinstance(getattr(m, k, None), np.ndarray)
                  and getattr(m, k).dtype.kind in "fiu"}
        fields.update({"opt." + k: np.array(getattr(m.opt, k)) for k in dir(m.opt)
                       if not k.startswith("_") and not callable(getattr(m.opt, k))})
        out.append(fields)
    return out


def randomized(gym, sim):
    """Changes of the kinds domain randomization makes, in different envs, between frames."""
    heavier(gym, sim, 1)                                  # masses and inertias
    env2 = gym.get_env(sim, 2)
    shapes = gym.get_actor_rigid_shape_properties(env2, 0)
    for s in shapes:
        s.friction = 0.3
    gym.set_actor_rigid_shape_properties(env2, 0, shapes)   # friction
    props = gym.get_actor_rigid_body_properties(env2, 0)
    m = props[1].inertia
    inertia = np.array([[m.x.x, m.x.y, m.x.z], [m.y.x, m.y.y, m.y.z], [m.z.x, m.z.y, m.z.z]])
    c, s = np.cos(0.5), np.sin(0.5)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    mat = gymapi.Mat33()
    mat.x, mat.y, mat.z = (gymapi.Vec3(*row) for row in R @ inertia @ R.T)
    props[1].inertia = mat                                  # (its inertial axes turn: new BVH boxes)
    gym.set_actor_rigid_body_properties(env2, 0, props, True)
    env0 = gym.get_env(sim, 0)
    dof = gym.get_actor_dof_properties(env0, 0)
    dof["armature"][:] = 0.037
    dof["friction"][:] = 0.5
    dof["upper"][0] = dof["upper"][0] * 0.5
    gym.set_actor_dof_properties(env0, 0, dof)              # armature, limits, joint friction


def test_synced_parameters_are_those_of_a_sync_from_nothing(gym):
    sim = humanoid_sim(gym, N)
    cs = mjc.c_step(sim.solver)
    gym.acquire_net_contact_force_tensor(sim)
    gym.refresh_net_contact_force_tensor(sim)     # (the worlds step the model with the force sensor)
    env1 = gym.get_env(sim, 1)
    dof = gym.get_actor_dof_properties(env1, 0)
    dof["friction"][:] = 0.2
    gym.set_actor_dof_properties(env1, 0, dof)    # (PhysX's joint friction rows on from the start)
    simulate_random_efforts(gym, sim, 3, 30.0, seed=1)
    assert cs.observing and cs.friction_rows
    randomized(gym, sim)
    simulate_random_efforts(gym, sim, 3, 30.0, seed=2)
    heavier(gym, sim, 1)                          # (a second change of the same fields)
    simulate_random_efforts(gym, sim, 3, 30.0, seed=3)
    assert cs.observing and cs.friction_rows
    ours = world_models(cs)
    # the changes reached the worlds they were made in
    assert np.allclose(ours[1]["body_mass"][1:], ours[0]["body_mass"][1:] * 1.6 ** 2)
    assert np.allclose(ours[2]["geom_friction"][1:, 0], 0.3) and not np.allclose(ours[0]["geom_friction"][1:, 0], 0.3)
    assert np.allclose(ours[0]["dof_armature"][6:], 0.037) and not np.allclose(ours[1]["dof_armature"][6:], 0.037)
    assert not np.allclose(ours[2]["body_iquat"], ours[0]["body_iquat"])     # (the turned axes)
    cs.fields = None                               # (forget what was synced: every field read again)
    cs.cur.params_stale()
    cs._sync_params()
    theirs = world_models(cs)
    for w in range(N):
        for k in theirs[w]:
            np.testing.assert_array_equal(ours[w][k], theirs[w][k], err_msg=f"world {w}: {k}")


def test_a_sync_that_finds_nothing_new_keeps_the_batch(gym):
    """The model with the force sensor is the template: nothing written, nothing remade."""
    sim = humanoid_sim(gym, N)
    cs = mjc.c_step(sim.solver)
    gym.acquire_dof_force_tensor(sim)
    gym.refresh_dof_force_tensor(sim)
    simulate_random_efforts(gym, sim, 2, 30.0, seed=1)
    assert cs.observing
    batch = cs.batch
    cs.cur.params_stale()
    simulate_random_efforts(gym, sim, 1, 30.0, seed=2)
    assert cs.batch is batch
    heavier(gym, sim, 1)
    simulate_random_efforts(gym, sim, 1, 30.0, seed=3)
    assert cs.batch is not batch                   # (masses now differ between worlds: a new batch)
    heavy, light = cs.batch.get_model(1).body_mass[1:], cs.batch.get_model(0).body_mass[1:]
    np.testing.assert_allclose(heavy, light * 1.6, rtol=1e-6)


def test_constants_follow_each_change_in_the_world_it_was_made_in(gym):
    """set_constants runs mj_setConst on the worlds whose parameters changed since its last call
    only: a second change, in another env, reaches that env's constants."""
    sim = humanoid_sim(gym, N)
    cs = mjc.c_step(sim.solver)
    simulate_random_efforts(gym, sim, 2, 30.0, seed=1)
    heavier(gym, sim, 1)
    simulate_random_efforts(gym, sim, 2, 30.0, seed=2)
    heavier(gym, sim, 2)
    simulate_random_efforts(gym, sim, 2, 30.0, seed=3)
    inv = cs.mjw_model.dof_invweight0.numpy()
    assert not np.allclose(inv[2], inv[0]) and np.allclose(inv[2], inv[1], rtol=1e-6)
    for w in range(N):
        m = cs.batch.get_model(w)
        mujoco.mj_setConst(m, mujoco.MjData(m))
        np.testing.assert_allclose(inv[w], m.dof_invweight0, rtol=2e-6, err_msg=f"world {w}")


def test_speed_bounds_follow_a_moved_center_of_mass(gym):
    """The chain geometry of the speed bounds (skipping the speed caps and the NaN guard's
    conversion) is made again when a sync finds it changed: a body's COM moved far out
    through its rigid body properties still gets a bound over its exact speed."""
    from gymlike import gymtorch
    sim = humanoid_sim(gym, N)
    cs = mjc.c_step(sim.solver)
    body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim)).view(N, -1, 13)
    def moved(i, dx):
        env = gym.get_env(sim, i)
        props = gym.get_actor_rigid_body_properties(env, 0)
        for p in props[1:]:
            p.com = gymapi.Vec3(p.com.x + dx, p.com.y, p.com.z)
        gym.set_actor_rigid_body_properties(env, 0, props, True)
    moved(2, 0.01)                                      # (COM offsets differ between worlds from here)
    simulate_random_efforts(gym, sim, 2, 30.0, seed=1)
    cs.speed_bounds()                                   # (made for these COM offsets)
    batch = cs.batch
    moved(1, 3.0)
    for k in range(20):
        simulate_random_efforts(gym, sim, 1, 30.0, seed=10 + k)
        _, v_bound = cs.speed_bounds()
        gym.refresh_rigid_body_state_tensor(sim)
        v = body[:, :, 7:10].norm(dim=2).max(dim=1).values.numpy()
        assert (v <= v_bound * (1 + 1e-5) + 1e-6).all(), (v, v_bound)
    assert cs.batch is batch                            # (the same batch: only the geometry is new)


def test_a_change_in_one_env_leaves_the_others_motion_bit_for_bit(gym):
    """PhysX's joint friction rows read the fields of each world's last step; a parameter change
    makes them stale in the worlds it changed only (those run mj_forward first), so the
    other envs move exactly as without the change."""
    import torch
    from gymlike import gymtorch

    def run(change):
        sim = humanoid_sim(gym, N)
        cs = mjc.c_step(sim.solver)
        for i in range(N):
            env = gym.get_env(sim, i)
            dof = gym.get_actor_dof_properties(env, 0)
            dof["friction"][:] = 0.3
            gym.set_actor_dof_properties(env, 0, dof)
        heavier(gym, sim, 2)                      # (masses differ between worlds from the start)
        simulate_random_efforts(gym, sim, 4, 30.0, seed=1)
        batch = cs.batch
        if change:
            heavier(gym, sim, 1)
        simulate_random_efforts(gym, sim, 8, 30.0, seed=2)
        assert cs.friction_rows and cs.batch is batch
        dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        gym.refresh_dof_state_tensor(sim)
        return dofs.view(N, -1, 2).clone()

    changed, same = run(True), run(False)
    assert torch.equal(changed[0], same[0]) and torch.equal(changed[2], same[2])
    assert not torch.allclose(changed[1], same[1], atol=1e-4)
