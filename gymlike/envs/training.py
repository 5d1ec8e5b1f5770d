"""Training and playing gymlike tasks with established RL libraries (no PPO of our own).

* `train_rsl_rl`: rsl_rl's PPO (`rsl-rl-lib`), built by its `OnPolicyRunner` from the
  `rsl_rl:` section of cfg/train/<Task>PPO.yaml. The rollout/update loop calls the algorithm's
  public steps (act, process_env_step, compute_returns, update) so that gymlike can show a
  progress bar, stop at a target and keep a learning curve; checkpoints are the runner's.
* `train_rl_games`: rl_games' `Runner` with the `rl_games:` section, the task registered as
  the vecenv `gymlike`.
Both write TensorBoard logs, a checkpoint and a learning-curve PNG into the run directory.
"""

from __future__ import annotations

import copy
import json
import math
import os
import time
from collections import deque

import torch

from .adapters import RslRlVecEnv, register_rl_games


class History:
    """Per-iteration training record: iteration, env steps, wall time, mean episode reward and
    length over the last 100 finished episodes, env-steps/s."""

    def __init__(self):
        self.rows: list[dict] = []

    def add(self, **row):
        self.rows.append(row)

    def last(self, key, default=float("nan")):
        return self.rows[-1].get(key, default) if self.rows else default

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.rows, f, indent=1)

    def plot(self, path, title):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        rows = [r for r in self.rows if not math.isnan(r.get("mean_reward", float("nan")))]
        fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
        if rows:
            t = [r["time"] / 60.0 for r in rows]
            ax[0].plot(t, [r["mean_reward"] for r in rows], color="tab:blue")
            ax[1].plot(t, [r["mean_length"] for r in rows], color="tab:orange")
        ax[0].set_xlabel("wall time [min]")
        ax[0].set_ylabel("mean episode reward")
        ax[1].set_xlabel("wall time [min]")
        ax[1].set_ylabel("mean episode length")
        for a in ax:
            a.grid(alpha=0.3)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)


def _rsl_cfg(train_cfg: dict) -> dict:
    cfg = copy.deepcopy(train_cfg["rsl_rl"])
    cfg.setdefault("obs_groups", {"actor": ["policy"], "critic": ["policy"]})
    cfg.setdefault("save_interval", 50)
    cfg.setdefault("check_for_nan", True)
    return cfg


def make_rsl_runner(task, train_cfg: dict):
    """An rsl_rl OnPolicyRunner over the task (no runner-side logging: gymlike logs)."""
    from rsl_rl.runners import OnPolicyRunner
    env = RslRlVecEnv(task)
    cfg = _rsl_cfg(train_cfg)
    if task.num_states > 0 and "critic" not in cfg["obs_groups"]:
        cfg["obs_groups"]["critic"] = ["critic"]
    runner = OnPolicyRunner(env, cfg, log_dir=None, device=str(task.rl_device))
    return runner, env, cfg


def train_rsl_rl(task, train_cfg: dict, run_dir: str | None, max_iterations: int | None = None,
                 progress: bool = True, stop_reward: float | None = None, stop_length: float | None = None,
                 max_time: float | None = None, title: str = "", log_every: int = 1):
    """Train with rsl_rl's PPO. Stops after max_iterations, when the mean episode reward reaches
    stop_reward or the mean episode length reaches stop_length (over the last 100 episodes, at
    least 100 finished), or after max_time seconds. Returns (runner, History)."""
    runner, env, cfg = make_rsl_runner(task, train_cfg)
    alg = runner.alg
    n_iter = int(max_iterations if max_iterations is not None else cfg.get("max_iterations", 100))
    n_steps = int(cfg["num_steps_per_env"])
    writer = None
    if run_dir:
        os.makedirs(run_dir, exist_ok=True)
        from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter(log_dir=run_dir, flush_secs=10)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n_iter, unit="it", dynamic_ncols=True, desc=title or "train")
    hist = History()
    n = task.num_envs
    dev = task.rl_device
    cur_rew = torch.zeros(n, device=dev)
    cur_len = torch.zeros(n, device=dev)
    rew_buf, len_buf = deque(maxlen=100), deque(maxlen=100)
    total_steps, t_start = 0, time.perf_counter()
    obs = env.get_observations().to(alg.device)
    alg.train_mode()
    it = -1
    for it in range(n_iter):
        t0 = time.perf_counter()
        ep_terms: dict[str, list] = {}
        with torch.inference_mode():
            for _ in range(n_steps):
                actions = alg.act(obs)
                obs, rew, dones, extras = env.step(actions.to(env.device))
                obs, rew, dones = obs.to(alg.device), rew.to(alg.device), dones.to(alg.device)
                alg.process_env_step(obs, rew, dones, extras)
                cur_rew += rew
                cur_len += 1
                done_ids = dones.nonzero(as_tuple=False).squeeze(-1)
                if done_ids.numel():
                    for k, v in (extras.get("episode") or {}).items():   # per-term episode logs
                        ep_terms.setdefault(k, []).append(float(v))
                    rew_buf.extend(cur_rew[done_ids].tolist())
                    len_buf.extend(cur_len[done_ids].tolist())
                    cur_rew[done_ids] = 0
                    cur_len[done_ids] = 0
            t_collect = time.perf_counter() - t0
            alg.compute_returns(obs)
        losses = alg.update()
        t_iter = time.perf_counter() - t0
        runner.current_learning_iteration = it
        total_steps += n_steps * n
        elapsed = time.perf_counter() - t_start
        mean_rew = sum(rew_buf) / len(rew_buf) if rew_buf else float("nan")
        mean_len = sum(len_buf) / len(len_buf) if len_buf else float("nan")
        fps = n_steps * n / t_iter
        hist.add(iteration=it, steps=total_steps, time=elapsed, mean_reward=mean_rew, mean_length=mean_len,
                 fps=fps, collect_fps=n_steps * n / t_collect, episodes=len(rew_buf))
        if writer is not None:
            if rew_buf:
                writer.add_scalar("Train/mean_reward", mean_rew, it)
                writer.add_scalar("Train/mean_episode_length", mean_len, it)
                writer.add_scalar("Train/mean_reward_vs_time", mean_rew, int(elapsed))
            writer.add_scalar("Perf/total_fps", fps, it)
            writer.add_scalar("Perf/collection_time", t_collect, it)
            writer.add_scalar("Perf/learning_time", t_iter - t_collect, it)
            for k, v in losses.items():
                writer.add_scalar(f"Loss/{k}", v, it)
            writer.add_scalar("Loss/learning_rate", alg.learning_rate, it)
            writer.add_scalar("Policy/mean_std", float(alg.get_policy().output_std.detach().mean()), it)
            for k, v in ep_terms.items():
                writer.add_scalar(f"Episode/{k}", sum(v) / len(v), it)
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(f"steps {total_steps} | {fps:,.0f} steps/s | reward {mean_rew:.2f} | "
                                f"ep len {mean_len:.1f}")
        elif log_every and it % log_every == 0:
            print(f"iter {it:4d}  steps {total_steps:9d}  {elapsed:7.1f}s  {fps:8.0f} steps/s  "
                  f"mean reward {mean_rew:9.3f}  mean ep len {mean_len:7.1f}", flush=True)
        if run_dir and cfg.get("save_interval") and it > 0 and it % int(cfg["save_interval"]) == 0:
            runner.save(os.path.join(run_dir, f"model_{it}.pt"))
        enough = len(len_buf) >= 100
        if enough and stop_reward is not None and mean_rew >= stop_reward:
            break
        if enough and stop_length is not None and mean_len >= stop_length:
            break
        if max_time is not None and elapsed >= max_time:
            break
    if bar is not None:
        bar.close()
    if run_dir:
        runner.save(os.path.join(run_dir, "model_final.pt"))
        hist.save(os.path.join(run_dir, "history.json"))
        hist.plot(os.path.join(run_dir, "learning_curve.png"), title or "rsl_rl PPO")
    if writer is not None:
        writer.close()
    return runner, hist


def load_rsl_policy(task, train_cfg: dict, checkpoint: str):
    """A deterministic policy (obs TensorDict -> actions) from an rsl_rl checkpoint."""
    runner, env, _ = make_rsl_runner(task, train_cfg)
    runner.load(checkpoint, map_location=str(task.rl_device))
    return runner.get_inference_policy(device=str(task.rl_device)), env


def play(task, policy, env, steps: int, render: bool = False):
    """Run a policy; returns (mean episode reward, mean episode length, episodes finished)."""
    n = task.num_envs
    cur_rew = torch.zeros(n, device=task.rl_device)
    cur_len = torch.zeros(n, device=task.rl_device)
    rews, lens = [], []
    obs = env.get_observations()
    with torch.inference_mode():
        for _ in range(steps):
            obs, rew, dones, _ = env.step(policy(obs))
            if render:
                task.render()
            cur_rew += rew
            cur_len += 1
            ids = dones.nonzero(as_tuple=False).squeeze(-1)
            if ids.numel():
                rews += cur_rew[ids].tolist()
                lens += cur_len[ids].tolist()
                cur_rew[ids] = 0
                cur_len[ids] = 0
    if not rews:   # no episode finished: report the running ones
        rews, lens = cur_rew.tolist(), cur_len.tolist()
    return sum(rews) / len(rews), sum(lens) / len(lens), len(rews)


# ============================================================================ rl_games
def train_rl_games(make_task, train_cfg: dict, run_dir: str, max_epochs: int | None = None,
                   play_checkpoint: str | None = None, title: str = "", num_envs: int | None = None):
    """Train (or play a checkpoint) with rl_games. `make_task()` builds the task."""
    from rl_games.torch_runner import Runner
    made = {}

    def creator(**_):
        if "task" not in made:
            made["task"] = make_task()
        return made["task"]

    register_rl_games(creator)
    params = copy.deepcopy(train_cfg["rl_games"])
    conf = params["params"]["config"]
    conf["env_name"] = "gymlike"
    if num_envs is not None:
        conf["num_actors"] = int(num_envs)
    conf.setdefault("device", "cpu")
    conf.setdefault("device_name", conf["device"])
    conf["train_dir"] = os.path.dirname(os.path.abspath(run_dir))
    conf["full_experiment_name"] = os.path.basename(os.path.abspath(run_dir))
    if max_epochs is not None:
        conf["max_epochs"] = int(max_epochs)
    runner = Runner()
    runner.load(params)
    runner.reset()
    args = {"train": play_checkpoint is None, "play": play_checkpoint is not None,
            "checkpoint": play_checkpoint, "sigma": None}
    runner.run(args)
    if play_checkpoint is None:
        _plot_rl_games(run_dir, title)
    return made.get("task")


def _plot_rl_games(run_dir: str, title: str):
    """Learning curve from rl_games' TensorBoard summaries (rewards vs wall time)."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:  # pragma: no cover
        return
    summ = os.path.join(run_dir, "summaries")
    if not os.path.isdir(summ):
        return
    acc = EventAccumulator(summ)
    acc.Reload()
    tags = acc.Tags().get("scalars", [])
    if "rewards/time" not in tags:
        return
    hist = History()
    lens = {e.step: e.value for e in acc.Scalars("episode_lengths/time")} if "episode_lengths/time" in tags else {}
    for e in acc.Scalars("rewards/time"):
        hist.add(time=float(e.step), mean_reward=float(e.value), mean_length=float(lens.get(e.step, float("nan"))))
    hist.save(os.path.join(run_dir, "history.json"))
    hist.plot(os.path.join(run_dir, "learning_curve.png"), title or "rl_games PPO")
