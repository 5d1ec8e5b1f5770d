"""A short Cartpole training with rsl_rl (the full solved-level run is benchmarks/train_benchmark.py):
the trained policy's mean episode reward clearly beats the random policy's; the run writes a
checkpoint, TensorBoard events and a learning curve, and the checkpoint plays back."""

import os

import torch

from gymlike.envs import load_train_config, make
from gymlike.envs.training import load_rsl_policy, play, train_rsl_rl

import pytest

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)


def random_policy_reward(task, steps=300):
    gen = torch.Generator().manual_seed(0)
    n = task.num_envs
    cur, done_rews = torch.zeros(n), []
    task.reset()
    for _ in range(steps):
        _, r, d, _ = task.step(torch.rand((n, 1), generator=gen) * 2 - 1)
        cur += r
        ids = d.nonzero().squeeze(-1)
        done_rews += cur[ids].tolist()
        cur[ids] = 0
    return sum(done_rews) / len(done_rews)


def test_short_training_beats_random(tmp_path):
    task = make("Cartpole", num_envs=128, seed=0)
    baseline = random_policy_reward(task)
    task.reset()
    train_cfg = load_train_config("Cartpole")
    run = str(tmp_path / "run")
    _, hist = train_rsl_rl(task, train_cfg, run, max_iterations=30, progress=False, log_every=0)
    trained = hist.rows[-1]["mean_reward"]
    assert trained > 3.0 * baseline and trained > baseline + 20.0, (baseline, trained)
    for f in ("model_final.pt", "learning_curve.png", "history.json"):
        assert os.path.exists(os.path.join(run, f)), f
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(run))
    policy, env = load_rsl_policy(task, train_cfg, os.path.join(run, "model_final.pt"))
    rew, length, _ = play(task, policy, env, steps=100)
    assert length > 20
    task.close()
