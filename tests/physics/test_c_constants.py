"""MuJoCo's qpos0-dependent constants (inverse weights, actuator accelerations, tendon lengths)
after a mass change on the C step: computed by MuJoCo C's mj_setConst (on the worlds that
changed) instead of Newton's MuJoCo-Warp set_const_0 over every world (upstream.constants_on_c).
Oracles: MuJoCo's own mj_setConst on the world's model, and the path through Newton's
computation (switched off)."""

import mujoco
import numpy as np
import torch

from conftest import humanoid_sim, simulate_random_efforts
from gymlike import gymtorch
from gymlike.core import mjc, upstream

N = 3


def heavier(gym, sim, i):
    """Env i's humanoid: every body 1.6x heavier (its inertias too), as domain randomization does."""
    env = gym.get_env(sim, i)
    props = gym.get_actor_rigid_body_properties(env, 0)
    for p in props:
        p.mass *= 1.6
        p.inertia.x = p.inertia.x * 1.6
        p.inertia.y = p.inertia.y * 1.6
        p.inertia.z = p.inertia.z * 1.6
    gym.set_actor_rigid_body_properties(env, 0, props, True)


def run(gym, newton_path, monkeypatch):
    if newton_path:
        monkeypatch.setattr(mjc.SolverMuJoCoC, "set_constants", lambda self: False)
    sim = humanoid_sim(gym, N)
    cs = mjc.c_step(sim.solver)
    simulate_random_efforts(gym, sim, 5, 30.0, seed=3)
    heavier(gym, sim, 1)
    simulate_random_efforts(gym, sim, 10, 30.0, seed=4)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    consts = {k: getattr(cs.mjw_model, k).numpy().copy() for k in mjc.SolverMuJoCoC.CONSTANTS}
    return sim, cs, dofs.clone(), consts


def test_constants_after_a_mass_change_are_mujocos(gym, monkeypatch):
    sim, cs, dofs, consts = run(gym, False, monkeypatch)
    # Newton's call is the plain one here (no dampratio, no kinematic body): the C step took it
    # (this fails when Newton renames what upstream.plain_set_const reads)
    assert upstream.plain_set_const(cs)
    inv = consts["dof_invweight0"]
    assert not np.allclose(inv[1], inv[0]) and np.allclose(inv[2], inv[0])   # (env 1 only)
    # the oracle: MuJoCo's mj_setConst on the model world 1 steps
    for w in range(N):
        m = cs.batch.get_model(w)
        mujoco.mj_setConst(m, mujoco.MjData(m))
        np.testing.assert_allclose(inv[w], m.dof_invweight0, rtol=2e-6)
        np.testing.assert_allclose(consts["body_invweight0"][w], m.body_invweight0, rtol=2e-6, atol=1e-9)
        np.testing.assert_allclose(consts["actuator_acc0"][w], m.actuator_acc0, rtol=2e-6)


def test_motion_after_a_mass_change_is_that_of_newtons_constants(gym, monkeypatch):
    """Newton's path computes the same constants in float32 (MuJoCo-Warp: within 1e-4 of
    MuJoCo's, the test above holds ours to 2e-6), so the motion that follows is the same."""
    _, _, ours, ours_c = run(gym, False, monkeypatch)
    _, _, theirs, theirs_c = run(gym, True, monkeypatch)
    for k in ours_c:
        np.testing.assert_allclose(ours_c[k], theirs_c[k], rtol=1e-4, atol=1e-9, err_msg=k)
    assert not np.allclose(theirs_c["dof_invweight0"][1], theirs_c["dof_invweight0"][0])
    assert torch.allclose(ours, theirs, atol=1e-3)
    assert ours[:, 1].abs().max() > 0.5          # (moving: the velocities are compared)
