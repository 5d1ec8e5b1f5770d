"""Every shipped RL task: shapes and dtypes, 200 random-action steps without NaN at 64 envs,
resets touch only the envs that ended, and observations agree with the handle API."""

import math

import numpy as np
import pytest
import torch

from gymlike import gymapi
from gymlike.envs import TASKS, make

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)

N = 64


@pytest.fixture(scope="module", params=list(TASKS))
def task(request):
    t = make(request.param, num_envs=N, seed=3)
    yield t
    t.close()


def _quat_rotate_inv(q, v):
    """Rotate v by the inverse of quaternion q (x, y, z, w), numpy float64."""
    x, y, z, w = q
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return R.T @ np.asarray(v, np.float64)


def _body(gym, env, actor, index):
    s = gym.get_actor_rigid_body_states(env, actor, gymapi.STATE_ALL)[index]
    p = np.array([s["pose"]["p"][k] for k in "xyz"], np.float64)
    q = np.array([s["pose"]["r"][k] for k in "xyzw"], np.float64)
    v = np.array([s["vel"]["linear"][k] for k in "xyz"], np.float64)
    w = np.array([s["vel"]["angular"][k] for k in "xyz"], np.float64)
    return p, q, v, w


def _dofs(gym, env, actor):
    s = gym.get_actor_dof_states(env, actor, gymapi.STATE_ALL)
    return s["pos"].astype(np.float64), s["vel"].astype(np.float64)


def expected_obs(t, k):
    """The task's observation of env k rebuilt from the handle API (env frame states) and the
    task's own non-physics state (actions, commands, targets)."""
    gym, env = t.gym, t.envs[k]
    name = type(t).__name__
    if name == "Cartpole":
        pos, vel = _dofs(gym, env, 0)
        return np.array([pos[0], vel[0], pos[1], vel[1]])
    if name in ("Ant", "Humanoid"):
        p, q, v, w = _body(gym, env, 0, 0)
        pos, vel = _dofs(gym, env, 0)
        props = gym.get_actor_dof_properties(env, 0)
        lo, hi = props["lower"].astype(np.float64), props["upper"].astype(np.float64)
        return np.concatenate([[p[2]], _quat_rotate_inv(q, v) * t.lin_vel_scale,
                               _quat_rotate_inv(q, w) * t.ang_vel_scale,
                               _quat_rotate_inv(q, [0, 0, -1]), _quat_rotate_inv(q, [1, 0, 0]),
                               (2 * pos - (hi + lo)) / (hi - lo), vel * t.dof_vel_scale, t.actions[k].numpy()])
    if name == "BallBalance":
        pos, vel = _dofs(gym, env, 0)
        bp, _, bv, _ = _body(gym, env, 1, 0)
        rel = bp - np.array([0.0, 0.0, 0.515])
        return np.concatenate([pos / t.max_tilt, vel * 0.2, rel[:2] / 0.45, [rel[2]], bv * 0.5])
    if name == "ArmReach":
        pos, vel = _dofs(gym, env, 0)
        hp, hq, _, _ = _body(gym, env, 0, t.hand_index)
        x, y, z, w_ = hq
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w_), 2 * (x * z + y * w_)],
                      [2 * (x * y + z * w_), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w_)],
                      [2 * (x * z - y * w_), 2 * (y * z + x * w_), 1 - 2 * (x * x + y * y)]])
        grasp = hp + R @ np.array([0.0, 0.0, 0.1])
        props = gym.get_actor_dof_properties(env, 0)
        lo, hi = props["lower"][:7].astype(np.float64), props["upper"][:7].astype(np.float64)
        target = t.target_pos[k].numpy()
        return np.concatenate([(2 * pos[:7] - (hi + lo)) / (hi - lo), vel[:7] * 0.1, grasp, target, target - grasp])
    if name == "Quadruped":
        _, q, v, w = _body(gym, env, 0, 0)
        pos, vel = _dofs(gym, env, 0)
        return np.concatenate([_quat_rotate_inv(q, v) * 2.0, _quat_rotate_inv(q, w) * 0.25,
                               _quat_rotate_inv(q, [0, 0, -1]),
                               t.commands[k].numpy() * np.array([2.0, 2.0, 0.25]), pos - t.default_dof_pos.numpy(),
                               vel * 0.05, t.actions[k].numpy()])
    raise AssertionError(f"no handle-API observation for {name}")


def random_actions(t, gen):
    return torch.rand((t.num_envs, t.num_actions), generator=gen) * 2.0 - 1.0


def test_shapes_and_dtypes(task):
    obs = task.reset()
    assert set(obs) >= {"obs"}
    assert obs["obs"].shape == (N, task.num_obs) and obs["obs"].dtype == torch.float32
    assert task.observation_space.shape == (task.num_obs,)
    assert task.action_space.shape == (task.num_actions,)
    assert task.num_envs == N and task.max_episode_length > 0
    o, r, d, extras = task.step(torch.zeros((N, task.num_actions)))
    assert o["obs"].shape == (N, task.num_obs) and o["obs"].dtype == torch.float32
    assert r.shape == (N,) and r.dtype == torch.float32
    assert d.shape == (N,) and d.dtype == torch.long
    assert extras["time_outs"].shape == (N,)
    for buf, shape in ((task.obs_buf, (N, task.num_obs)), (task.rew_buf, (N,)), (task.reset_buf, (N,)),
                       (task.progress_buf, (N,)), (task.states_buf, (N, task.num_states))):
        assert tuple(buf.shape) == shape


def test_random_actions_no_nan_and_resets_only_finished(task):
    """200 random-action steps: finite observations/rewards, and every step resets exactly the
    envs it reports as done (their episode counter restarts, the others' advances)."""
    gen = torch.Generator().manual_seed(0)
    reset_calls = []
    orig = task.reset_idx

    def spy(env_ids):
        reset_calls.append(env_ids.clone())
        return orig(env_ids)

    task.reset_idx = spy
    try:
        task.reset()
        reset_calls.clear()
        finished = 0
        for _ in range(200):
            before = task.progress_buf.clone()
            o, r, d, _ = task.step(random_actions(task, gen))
            assert torch.isfinite(o["obs"]).all() and torch.isfinite(r).all()
            done = d.nonzero().squeeze(-1)
            called = torch.cat(reset_calls) if reset_calls else torch.zeros(0, dtype=torch.long)
            reset_calls.clear()
            assert sorted(called.tolist()) == sorted(done.tolist())
            assert (task.progress_buf[done] == 0).all()
            alive = (d == 0)
            assert (task.progress_buf[alive] == before[alive] + 1).all()
            finished += int(d.sum())
        assert task.nan_resets == 0
    finally:
        task.reset_idx = orig


def test_reset_idx_leaves_other_envs_untouched(task):
    """reset_idx on a few envs changes their simulated state and nothing else's."""
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        task.step(random_actions(task, gen))
    gym, sim = task.gym, task.sim
    from gymlike import gymtorch
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim)).clone().view(N, -1)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim)).clone().view(N, -1)
    ids = torch.tensor([2, 17, 40])
    task.reset_idx(ids)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    roots2 = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim)).view(N, -1)
    dofs2 = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim)).view(N, -1)
    others = torch.ones(N, dtype=torch.bool)
    others[ids] = False
    assert torch.equal(roots2[others], roots[others])
    assert torch.equal(dofs2[others], dofs[others])
    changed = (roots2[ids] != roots[ids]).any(-1) | (dofs2[ids] != dofs[ids]).any(-1)
    assert changed.all()
    assert (task.progress_buf[ids] == 0).all()


def test_observations_match_handle_api(task):
    gen = torch.Generator().manual_seed(2)
    for _ in range(10):
        o, _, _, _ = task.step(random_actions(task, gen))
    for k in (0, N - 1):
        want = np.clip(expected_obs(task, k), -task.clip_obs, task.clip_obs)
        got = o["obs"][k].numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5, err_msg=f"{type(task).__name__} env {k}")


def test_same_seed_same_first_rollout():
    def rollout():
        t = make("Cartpole", num_envs=16, seed=11)
        gen = torch.Generator().manual_seed(5)
        out = [t.reset()["obs"].clone()]
        for _ in range(30):
            o, r, _, _ = t.step(random_actions(t, gen))
            out += [o["obs"].clone(), r.clone()]
        t.close()
        return out
    a, b = rollout(), rollout()
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    c = make("Cartpole", num_envs=16, seed=12)
    assert not torch.equal(c.reset()["obs"], a[0])
    c.close()


def test_config_overrides_and_errors():
    from gymlike.envs import apply_overrides, load_task_config
    cfg = apply_overrides(load_task_config("Cartpole"), ["env.numEnvs=8", "sim.dt=0.01"])
    assert cfg["env"]["numEnvs"] == 8 and math.isclose(cfg["sim"]["dt"], 0.01)
    with pytest.raises(KeyError, match="numEnv"):
        apply_overrides(cfg, ["env.numEnv=8"])
    with pytest.raises(ValueError, match="unknown task"):
        load_task_config("NoSuchTask")
