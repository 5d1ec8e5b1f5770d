"""Training and playing gymlike tasks with established RL libraries (no PPO of our own).

* `train_rsl_rl`: rsl_rl's PPO (`rsl-rl-lib`), built by its `OnPolicyRunner` from the
  `rsl_rl:` section of cfg/train/<Task>PPO.yaml. The rollout/update loop calls the algorithm's
  public steps (act, process_env_step, compute_returns, update).
* `train_rl_games`: rl_games' PPO agent (`a2c_continuous`) built by its `Runner` from the
  `rl_games:` section, the task registered as the vecenv `gymlike`; the epoch loop calls the
  agent's `train_epoch`.
Both share one driver: the same progress bar (`Progress`), solved rule (`SolvedRule`: the
training statistic reaches the train config's `solved:` level, then the deterministic policy
must reach it too), Ctrl-C handling (checkpoint, history and curve are saved), summary line
(`summary`), and outputs (TensorBoard events, checkpoints, history.json, learning_curve.png).
`play` runs a policy's deterministic actions for a number of steps, the way `SolvedRule`
evaluates it.

Third-party console output (rsl_rl's model dumps, rl_games' per-epoch lines) is hidden unless
GYMLIKE_VERBOSE=1 (`examples/train.py --verbose`). GYMLIKE_MAX_ITERATIONS=N caps every
training run at N iterations (smoke tests of documented commands).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import statistics
import sys
import time
from collections import deque

import torch

from ..core import upstream
from .adapters import RslRlVecEnv, register_rl_games


def verbose() -> bool:
    return os.environ.get("GYMLIKE_VERBOSE", "").strip().lower() not in ("", "0", "false", "no")


@contextlib.contextmanager
def quiet():
    """Hide stdout of third-party code unless verbose; shown on stderr if that code raises."""
    if verbose():
        yield
        return
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            yield
    except BaseException:
        sys.stderr.write(buf.getvalue())
        raise


def cpu_threads(device) -> None:
    """One torch thread for CPU training unless OMP_NUM_THREADS says otherwise. The policies are
    small MLPs and Warp's CPU kernels run on one thread: on 2 cores, two torch threads bought
    nothing on an idle machine and made iterations 25x slower (850 vs 21,700 env-steps/s for
    Cartpole) while another process kept one core busy."""
    if str(device).startswith("cpu") and not os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(1)


def iteration_cap(n: int) -> int:
    """n, or GYMLIKE_MAX_ITERATIONS when that is set and smaller."""
    cap = os.environ.get("GYMLIKE_MAX_ITERATIONS", "").strip()
    return min(n, int(cap)) if cap else n


class History:
    """Per-iteration training record: iteration, env steps, wall time, mean episode reward and
    length over the last 100 finished episodes, env-steps/s. `stop_reason` says why training
    ended (solved, max_iterations, max_time, interrupted); `evaluations` lists the
    deterministic-policy evaluations of the solved rule."""

    def __init__(self):
        self.rows: list[dict] = []
        self.stop_reason: str | None = None
        self.evaluations: list[dict] = []
        self.files: list[str] = []
        self.rule = None                  # the run's SolvedRule

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


# ============================================================================ progress
def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def estimate_eta(iter_times, remaining: int, elapsed: float, max_time: float | None = None):
    """Seconds left from measured iteration times (the first iteration, which includes kernel
    loading and warm-up, is left out; median of the last 20), capped by max_time. None until
    two iterations have run."""
    if len(iter_times) < 2:
        return None
    per = statistics.median(list(iter_times)[1:][-20:])
    eta = remaining * per
    if max_time is not None:
        eta = min(eta, max(0.0, max_time - elapsed))
    return eta


def status_text(row: dict, eta: float | None, running_length: int | None = None,
                max_episode_length: int | None = None) -> str:
    """The progress bar's text: ETA, steps/s, and the mean episode reward/length over the last
    100 episodes, or how far the running episodes are while none has finished."""
    parts = [f"ETA {fmt_duration(eta)}" if eta is not None else "ETA ...",
             f"{row.get('fps', 0):,.0f} steps/s"]
    episodes = int(row.get("episodes", 0))
    if episodes == 0:
        running = f"episodes running {running_length}" if running_length is not None else "episodes running"
        if max_episode_length:
            running += f"/{max_episode_length} steps"
        parts.append(f"no episode finished yet ({running})")
    else:
        parts.append(f"reward {row['mean_reward']:.2f} | ep len {row['mean_length']:.1f} | {episodes:,} episodes")
    return " | ".join(parts)


class Progress:
    """One tqdm bar for both algorithms (or a log line every `log_every` iterations when
    disabled). The ETA comes from measured iteration times; at the end the bar is closed at the
    iteration where training stopped (100 %), whatever the reason."""

    def __init__(self, total: int, title: str = "", enabled: bool = True, max_time: float | None = None,
                 max_episode_length: int | None = None, log_every: int = 1):
        self.total, self.max_time, self.log_every = int(total), max_time, log_every
        self.max_episode_length = max_episode_length
        self.iter_times: deque = deque(maxlen=64)
        self.t_start = time.perf_counter()
        self.bar = None
        if enabled:
            from tqdm import tqdm
            self.bar = tqdm(total=self.total, unit="it", dynamic_ncols=True, desc=title or "train",
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
        self.text = ""

    def update(self, row: dict, t_iter: float, running_length: int | None = None):
        self.iter_times.append(t_iter)
        done = int(row["iteration"]) + 1
        eta = estimate_eta(self.iter_times, self.total - done, row["time"], self.max_time)
        text = status_text(row, eta, running_length, self.max_episode_length)
        self.text = text
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(1)
        elif self.log_every and (done - 1) % self.log_every == 0:
            print(f"iter {done - 1:4d}  steps {row['steps']:9d}  {row['time']:7.1f}s  {text}", flush=True)

    def note(self, text: str):
        (self.bar.write if self.bar is not None else print)(text)

    def close(self, reason: str | None = None):
        if self.bar is not None:
            if self.bar.n < self.total:          # stopped early: the bar ends where training stopped
                self.bar.total = self.bar.n
            text = self.text.split(" | ", 1)[-1] if " | " in self.text else self.text
            self.bar.set_postfix_str((f"{reason} | " if reason else "") + text, refresh=False)
            self.bar.refresh()
            self.bar.close()
            self.bar = None


# ============================================================================ solved rule
class SolvedRule:
    """The train config's `solved:` level (`mean_length` or `mean_reward`), checked on the mean
    over the last 100 finished training episodes (at least 100 finished); when that reaches the
    level, `evaluate()` runs the deterministic policy (one `evaluation_steps` rollout of every
    env, as `play` does) and training stops only if that reaches the level too. After a failed
    evaluation the next one waits `cooldown` iterations."""

    def __init__(self, solved: dict | None, evaluate=None, cooldown: int = 10, min_episodes: int = 100,
                 notify=None):
        solved = dict(solved or {})
        self.key = "mean_length" if "mean_length" in solved else ("mean_reward" if "mean_reward" in solved else None)
        self.level = float(solved[self.key]) if self.key else None
        self.evaluate, self.cooldown, self.min_episodes = evaluate, cooldown, min_episodes
        self.next_eval = 0
        self.notify = notify
        self.evaluations: list[dict] = []

    @property
    def active(self):
        return self.key is not None

    def describe(self):
        return f"{self.key} >= {self.level:g}" if self.active else "none"

    def check(self, it: int, row: dict) -> bool:
        if not self.active or row.get("episodes", 0) < self.min_episodes:
            return False
        if not row.get(self.key, float("-inf")) >= self.level:
            return False
        if self.evaluate is None:
            return True
        if it < self.next_eval:
            return False
        rew, length, n = self.evaluate()
        value = length if self.key == "mean_length" else rew
        ok = value >= self.level
        self.evaluations.append(dict(iteration=it, mean_reward=rew, mean_length=length, episodes=n, passed=ok))
        if not ok:
            self.next_eval = it + self.cooldown
            if self.notify:
                self.notify(f"iteration {it}: training episodes reached {self.describe()}, the deterministic policy "
                            f"not yet ({self.key} {value:.1f} over {n} episodes); training on")
        return ok


def summary(hist: History, wall: float, rule: SolvedRule | None = None) -> str:
    """The one-line end-of-training summary shared by both algorithms."""
    last = hist.rows[-1] if hist.rows else {}
    its = int(last.get("iteration", -1)) + 1
    if last.get("episodes", 0):
        stats = (f"mean episode reward {last['mean_reward']:.2f}, mean episode length {last['mean_length']:.1f} "
                 f"(last {min(int(last['episodes']), 100)} training episodes)")
    else:
        stats = "no episode finished yet"
    msg = (f"done ({hist.stop_reason or 'stopped'}): {its} iterations, {last.get('steps', 0):,} env steps, "
           f"{wall:.1f} s wall time, {stats}")
    if rule is not None and rule.active:
        if hist.stop_reason == "solved":
            ev = rule.evaluations[-1] if rule.evaluations else {}
            msg += (f"; solved level ({rule.describe()}) REACHED"
                    + (f", deterministic policy: mean episode length {ev['mean_length']:.1f}, reward "
                       f"{ev['mean_reward']:.2f} over {ev['episodes']} episodes" if ev else ""))
        else:
            msg += f"; solved level ({rule.describe()}) not reached"
            if rule.evaluations:
                ev = rule.evaluations[-1]
                msg += (f" (last deterministic evaluation at iteration {ev['iteration']}: {rule.key} "
                        f"{ev[rule.key]:.1f})")
    return msg


def _finish_run(hist: History, run_dir: str | None, title: str, save_checkpoint):
    """Checkpoint, history.json and learning_curve.png into run_dir (also after Ctrl-C)."""
    if not run_dir:
        return
    os.makedirs(run_dir, exist_ok=True)
    hist.files = [save_checkpoint()]
    hist.save(os.path.join(run_dir, "history.json"))
    hist.plot(os.path.join(run_dir, "learning_curve.png"), title)
    hist.files += [os.path.join(run_dir, "history.json"), os.path.join(run_dir, "learning_curve.png")]


# ============================================================================ evaluation
def play(task, policy, env, steps: int, render: bool = False, reset: bool = False):
    """Run a policy (deterministic actions) for `steps` steps; returns (mean episode reward, mean
    episode length, episodes finished) over the episodes that finished. `reset` first resets
    every env so that each starts a new episode."""
    n = task.num_envs
    cur_rew = torch.zeros(n, device=task.rl_device)
    cur_len = torch.zeros(n, device=task.rl_device)
    rews, lens = [], []
    if reset:
        task.reset()
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


def _make_quietly(factory):
    """factory() with the global RNG states kept (task construction seeds them)."""
    import random

    import numpy as np
    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        with quiet():
            return factory()
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


def evaluation_steps(task) -> int:
    """Steps of a solved-rule evaluation: one full episode of every env."""
    return int(getattr(task, "max_episode_length", 0) or 1000)


def _rsl_cfg(train_cfg: dict) -> dict:
    cfg = copy.deepcopy(train_cfg["rsl_rl"])
    cfg.setdefault("obs_groups", {"actor": ["policy"], "critic": ["policy"]})
    cfg.setdefault("save_interval", 50)
    cfg.setdefault("check_for_nan", True)
    return cfg


def make_rsl_runner(task, train_cfg: dict):
    """An rsl_rl OnPolicyRunner over the task (no runner-side logging: gymlike logs; its model
    printout is hidden unless verbose)."""
    from rsl_rl.runners import OnPolicyRunner
    env = RslRlVecEnv(task)
    cfg = _rsl_cfg(train_cfg)
    if task.num_states > 0 and "critic" not in cfg["obs_groups"]:
        cfg["obs_groups"]["critic"] = ["critic"]
    with quiet():
        runner = OnPolicyRunner(env, cfg, log_dir=None, device=str(task.rl_device))
    return runner, env, cfg


def _solved_dict(solved, stop_reward, stop_length):
    if solved is not None:
        return solved
    if stop_length is not None:
        return {"mean_length": stop_length}
    if stop_reward is not None:
        return {"mean_reward": stop_reward}
    return None


def train_rsl_rl(task, train_cfg: dict, run_dir: str | None, max_iterations: int | None = None,
                 progress: bool = True, stop_reward: float | None = None, stop_length: float | None = None,
                 max_time: float | None = None, title: str = "", log_every: int = 1, solved: dict | None = None,
                 deterministic_check: bool = True, make_eval_task=None):
    """Train with rsl_rl's PPO. Stops after max_iterations, at the solved level (`solved` dict
    or stop_reward / stop_length; see SolvedRule, `deterministic_check=False` skips its
    deterministic evaluation, run on `make_eval_task()` when given), after max_time seconds, or on
    Ctrl-C (KeyboardInterrupt; the checkpoint, history and curve are still written and
    `hist.stop_reason` is "interrupted").
    Returns (runner, History)."""
    cpu_threads(task.rl_device)
    runner, env, cfg = make_rsl_runner(task, train_cfg)
    alg = runner.alg
    n_iter = iteration_cap(int(max_iterations if max_iterations is not None else cfg.get("max_iterations", 100)))
    n_steps = int(cfg["num_steps_per_env"])
    writer = None
    if run_dir:
        os.makedirs(run_dir, exist_ok=True)
        from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter(log_dir=run_dir, flush_secs=10)
    hist = History()
    n = task.num_envs
    dev = task.rl_device
    cur_rew = torch.zeros(n, device=dev)
    cur_len = torch.zeros(n, device=dev)
    rew_buf, len_buf = deque(maxlen=100), deque(maxlen=100)
    episodes = 0
    state = {"obs": None}

    eval_env = {}

    def evaluate():
        """The deterministic policy on a separate task (training episodes go on undisturbed);
        without make_eval_task, on the training task, whose envs are then reset."""
        alg.eval_mode()
        try:
            if make_eval_task is not None:
                if "env" not in eval_env:
                    eval_env["env"] = RslRlVecEnv(_make_quietly(make_eval_task))
                ev = eval_env["env"]
                return play(ev.task, alg.get_policy(), ev, evaluation_steps(ev.task), reset=True)
            result = play(task, alg.get_policy(), env, evaluation_steps(task), reset=True)
            task.reset()
            state["obs"] = env.get_observations().to(alg.device)
            cur_rew.zero_()
            cur_len.zero_()
            rew_buf.clear()               # the rule waits for 100 new episodes
            len_buf.clear()
            return result
        finally:
            alg.train_mode()

    rule = SolvedRule(_solved_dict(solved, stop_reward, stop_length), evaluate if deterministic_check else None)
    bar = Progress(n_iter, title, enabled=progress, max_time=max_time,
                   max_episode_length=int(getattr(task, "max_episode_length", 0) or 0) or None, log_every=log_every)
    rule.notify = bar.note
    total_steps, t_start = 0, time.perf_counter()
    state["obs"] = env.get_observations().to(alg.device)
    alg.train_mode()
    hist.stop_reason = "max_iterations"
    try:
        for it in range(n_iter):
            t0 = time.perf_counter()
            ep_terms: dict[str, list] = {}
            obs = state["obs"]
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
                        episodes += int(done_ids.numel())
                        cur_rew[done_ids] = 0
                        cur_len[done_ids] = 0
                t_collect = time.perf_counter() - t0
                alg.compute_returns(obs)
            state["obs"] = obs
            losses = alg.update()
            t_iter = time.perf_counter() - t0
            runner.current_learning_iteration = it
            total_steps += n_steps * n
            elapsed = time.perf_counter() - t_start
            mean_rew = sum(rew_buf) / len(rew_buf) if rew_buf else float("nan")
            mean_len = sum(len_buf) / len(len_buf) if len_buf else float("nan")
            fps = n_steps * n / t_iter
            hist.add(iteration=it, steps=total_steps, time=elapsed, mean_reward=mean_rew, mean_length=mean_len,
                     fps=fps, collect_fps=n_steps * n / t_collect, episodes=episodes)
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
            bar.update(hist.rows[-1], t_iter, running_length=int(cur_len.max()) if not episodes else None)
            if run_dir and cfg.get("save_interval") and it > 0 and it % int(cfg["save_interval"]) == 0:
                runner.save(os.path.join(run_dir, f"model_{it}.pt"))
            if rule.check(it, hist.rows[-1]):
                hist.stop_reason = "solved"
                break
            if max_time is not None and elapsed >= max_time:
                hist.stop_reason = "max_time"
                break
    except KeyboardInterrupt:
        hist.stop_reason = "interrupted"
    finally:
        bar.close(hist.stop_reason)
        hist.evaluations = rule.evaluations

    def save():
        path = os.path.join(run_dir, "model_final.pt")
        runner.save(path)
        return path

    _finish_run(hist, run_dir, title or "rsl_rl PPO", save)
    if writer is not None:
        writer.close()
    hist.rule = rule
    return runner, hist


def load_rsl_policy(task, train_cfg: dict, checkpoint: str):
    """A deterministic policy (obs TensorDict -> actions) from an rsl_rl checkpoint."""
    runner, env, _ = make_rsl_runner(task, train_cfg)
    runner.load(checkpoint, map_location=str(task.rl_device))
    return runner.get_inference_policy(device=str(task.rl_device)), env


# ============================================================================ rl_games
class _TaskEnv:
    """The task seen as (obs tensor, rew, reset, extras) steps, for `play` with rl_games."""

    def __init__(self, task):
        self.task = task

    def get_observations(self):
        return self.task._obs_dict()["obs"]

    def step(self, actions):
        obs_dict, rew, reset, extras = self.task.step(actions)
        return obs_dict["obs"], rew, reset, extras


def _rl_games_policy(agent):
    """Deterministic actions (the distribution mean, clipped like rl_games' player) of an agent."""
    from rl_games.common.a2c_common import rescale_actions

    def policy(obs):
        agent.model.eval()
        res = agent.model({"is_train": False, "prev_actions": None, "rnn_states": None,
                           "obs": upstream.rl_games_preproc_obs(agent, obs)})
        return rescale_actions(agent.actions_low, agent.actions_high, torch.clamp(res["mus"], -1.0, 1.0))
    return policy


def make_rl_games_agent(make_task, train_cfg: dict, run_dir: str, max_epochs: int | None = None,
                        num_envs: int | None = None):
    """rl_games' agent for the `rl_games:` params (built by its Runner; the task is made through
    the registered `gymlike` vecenv). Returns (agent, task, conf)."""
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
    conf["max_epochs"] = iteration_cap(int(conf.get("max_epochs", 100)))
    with quiet():
        runner = Runner()
        runner.load(params)
        agent = runner.algo_factory.create(runner.algo_name, base_name="run", params=runner.params)
    if "torch_threads" not in params["params"]:   # rl_games' Runner set its own count ('auto')
        cpu_threads(conf["device"])
    with quiet():
        if conf.get("torch_compile") is True:      # rl_games' default; off unless asked (CPU: slower)
            agent.model = torch.compile(agent.model)
    return agent, made["task"], conf


def train_rl_games(make_task, train_cfg: dict, run_dir: str, max_epochs: int | None = None,
                   play_checkpoint: str | None = None, title: str = "", num_envs: int | None = None,
                   progress: bool = True, solved: dict | None = None, max_time: float | None = None,
                   play_steps: int = 1000, log_every: int = 1, deterministic_check: bool = True,
                   make_eval_task=None):
    """Train with rl_games' PPO agent, driven epoch by epoch here with the same progress bar,
    solved rule, Ctrl-C handling and outputs as train_rsl_rl: run_dir/nn/model_final.pth (and
    model_<epoch>.pth every `save_frequency` epochs), summaries/ (rl_games' TensorBoard
    scalars), history.json, learning_curve.png. Returns (agent, History).

    With `play_checkpoint`, plays that checkpoint instead (deterministic actions, `play_steps`
    steps) and returns (mean episode reward, mean episode length, episodes)."""
    if play_checkpoint:
        import shutil
        import tempfile
        scratch = tempfile.mkdtemp(prefix="gymlike_play_")     # rl_games' agent makes run folders
        try:
            agent, task, _ = make_rl_games_agent(make_task, train_cfg, os.path.join(scratch, "run"), None, num_envs)
            with quiet():
                agent.restore(play_checkpoint)
            return play(task, _rl_games_policy(agent), _TaskEnv(task), int(play_steps), render=not task.headless)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    agent, task, conf = make_rl_games_agent(make_task, train_cfg, run_dir, max_epochs, num_envs)
    policy = _rl_games_policy(agent)

    n_iter = int(conf["max_epochs"])

    def episodes_done():                      # total finished episodes (rl_games keeps the last 100)
        n = agent.vec_env.episodes_done
        return 0 if n is None else int(n)

    def reset_agent():
        agent.obs = agent.env_reset()
        for name in ("current_rewards", "current_shaped_rewards", "current_lengths"):
            getattr(agent, name).zero_()
        agent.dones.fill_(0)

    eval_task = {}

    def evaluate():
        try:
            if make_eval_task is not None:
                if "task" not in eval_task:
                    eval_task["task"] = _make_quietly(make_eval_task)
                t = eval_task["task"]
                return play(t, policy, _TaskEnv(t), evaluation_steps(t), reset=True)
            result = play(task, policy, _TaskEnv(task), evaluation_steps(task), reset=True)
            reset_agent()
            agent.game_rewards.clear()    # the rule waits for 100 new episodes
            agent.game_lengths.clear()
            return result
        finally:
            agent.set_train()

    rule = SolvedRule(solved, evaluate if deterministic_check else None)
    bar = Progress(n_iter, title, enabled=progress, max_time=max_time,
                   max_episode_length=int(getattr(task, "max_episode_length", 0) or 0) or None, log_every=log_every)
    rule.notify = bar.note
    hist = History()
    hist.stop_reason = "max_iterations"
    save_freq = int(conf.get("save_frequency", 0) or 0)
    t_start, total_time = time.perf_counter(), 0.0
    try:
        with quiet():
            agent.init_tensors()
            agent.last_mean_rewards = -1e9
            agent.obs = agent.env_reset()
            agent.curr_frames = agent.batch_size_envs
        for it in range(n_iter):
            t0 = time.perf_counter()
            with quiet():
                epoch = agent.update_epoch()
                (step_time, play_time, update_time, sum_time, a_losses, c_losses, b_losses, entropies, kls,
                 last_lr, lr_mul) = agent.train_epoch()
                agent.dataset.update_values_dict(None)
                total_time += sum_time
                agent.frame += agent.curr_frames
                agent.write_stats(total_time, epoch, step_time, play_time, update_time, a_losses, c_losses,
                                  entropies, kls, last_lr, lr_mul, agent.frame, agent.num_agents * sum_time,
                                  agent.num_agents * play_time, agent.curr_frames)
            t_iter = time.perf_counter() - t0
            elapsed = time.perf_counter() - t_start
            have = agent.game_rewards.current_size > 0
            mean_rew = float(agent.game_rewards.get_mean()[0]) if have else float("nan")
            mean_len = float(agent.game_lengths.get_mean()) if have else float("nan")
            if have:
                agent.writer.add_scalar("rewards/time", mean_rew, total_time)
                agent.writer.add_scalar("rewards/iter", mean_rew, epoch)
                agent.writer.add_scalar("episode_lengths/time", mean_len, total_time)
                agent.writer.add_scalar("episode_lengths/iter", mean_len, epoch)
            hist.add(iteration=it, steps=int(agent.frame), time=elapsed, mean_reward=mean_rew, mean_length=mean_len,
                     fps=agent.curr_frames / t_iter, episodes=episodes_done() if have else 0)
            bar.update(hist.rows[-1], t_iter, running_length=int(task.progress_buf.max()) if not have else None)
            if save_freq and it > 0 and it % save_freq == 0:
                with quiet():
                    agent.save(os.path.join(agent.nn_dir, f"model_{it}"))
            row = dict(hist.rows[-1], episodes=min(episodes_done(), int(agent.game_rewards.current_size))
                       if have else 0)   # the rule needs 100 episodes in rl_games' window
            if rule.check(it, row):
                hist.stop_reason = "solved"
                break
            if max_time is not None and elapsed >= max_time:
                hist.stop_reason = "max_time"
                break
    except KeyboardInterrupt:
        hist.stop_reason = "interrupted"
    finally:
        bar.close(hist.stop_reason)
        hist.evaluations = rule.evaluations

    def save():
        path = os.path.join(agent.nn_dir, "model_final")
        with quiet():
            agent.save(path)
        return path + ".pth"

    _finish_run(hist, run_dir, title or "rl_games PPO", save)
    agent.writer.flush()
    hist.rule = rule
    return agent, hist
