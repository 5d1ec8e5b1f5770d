"""The library adapters, each driven by the real library: rsl_rl's OnPolicyRunner learns two
iterations, rl_games' Runner trains two epochs, gymnasium's vector wrappers step the env."""

import numpy as np
import pytest
import torch

from gymlike.envs import load_train_config, make

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)

N = 64


def test_rsl_rl_runner_updates_policy():
    pytest.importorskip("rsl_rl")
    from rsl_rl.runners import OnPolicyRunner

    from gymlike.envs.adapters import RslRlVecEnv
    task = make("Cartpole", num_envs=N, seed=0)
    env = RslRlVecEnv(task)
    obs = env.get_observations()
    assert obs["policy"].shape == (N, 4)
    cfg = load_train_config("Cartpole")["rsl_rl"]
    cfg["num_steps_per_env"] = 8
    runner = OnPolicyRunner(env, cfg, log_dir=None, device="cpu")
    before = [p.detach().clone() for p in runner.alg.get_policy().parameters()]
    runner.learn(num_learning_iterations=2, init_at_random_ep_len=True)
    after = list(runner.alg.get_policy().parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after))
    # rsl_rl's random initial episode lengths landed in the task's progress buffer
    assert task.progress_buf.max() > 0
    task.close()


def test_rl_games_runner_trains(tmp_path):
    pytest.importorskip("rl_games")
    from rl_games.torch_runner import Runner

    from gymlike.envs.adapters import register_rl_games
    made = []

    def creator(**_):
        made.append(make("Cartpole", num_envs=N, seed=0))
        return made[-1]

    register_rl_games(creator, env_name="gymlike_test", vecenv_type="GYMLIKE_TEST")
    params = load_train_config("Cartpole")["rl_games"]
    conf = params["params"]["config"]
    conf.update(env_name="gymlike_test", num_actors=N, horizon_length=16, minibatch_size=512, mini_epochs=2,
                max_epochs=2, train_dir=str(tmp_path), full_experiment_name="cp", print_stats=False,
                save_frequency=0, save_best_after=1000)
    runner = Runner()
    runner.load(params)
    runner.reset()
    runner.run({"train": True, "play": False, "checkpoint": None, "sigma": None})
    assert len(made) == 1 and made[0].control_steps >= 2 * 16
    assert list((tmp_path / "cp" / "nn").glob("*.pth"))
    made[0].close()


def test_gymnasium_vector_env_with_wrappers():
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.wrappers.vector import ClipAction, RecordEpisodeStatistics

    from gymlike.envs.adapters import GymnasiumVectorEnv
    base = GymnasiumVectorEnv(make("Cartpole", num_envs=N, seed=0))
    assert isinstance(base, gymnasium.vector.VectorEnv)
    assert base.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    env = RecordEpisodeStatistics(ClipAction(base))
    obs, info = env.reset(seed=0)
    assert obs.shape == (N, 4) and obs.dtype == np.float32
    assert env.single_observation_space.shape == (4,) and env.action_space.shape == (N, 1)
    env.action_space.seed(0)
    episodes = 0
    saw_final = False
    for _ in range(100):
        obs, rew, term, trunc, info = env.step(env.action_space.sample() * 3.0)   # ClipAction clips to [-1, 1]
        assert obs.shape == (N, 4) and rew.shape == (N,) and term.dtype == bool and trunc.dtype == bool
        assert np.isfinite(obs).all() and np.isfinite(rew).all()
        if (term | trunc).any():
            saw_final = True
            assert info["final_obs"].shape == (N, 4) and info["_final_obs"][term | trunc].all()
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] > 0).all()
    assert saw_final and episodes > 0
    env.close()


def test_gymnasium_torch_output():
    pytest.importorskip("gymnasium")
    from gymlike.envs.adapters import GymnasiumVectorEnv
    env = GymnasiumVectorEnv(make("Cartpole", num_envs=8, seed=0), torch_output=True)
    obs, _ = env.reset()
    assert isinstance(obs, torch.Tensor)
    obs, rew, term, trunc, _ = env.step(torch.zeros((8, 1)))
    assert isinstance(rew, torch.Tensor) and rew.shape == (8,) and term.dtype == torch.bool
    env.close()
