"""Train a task with its own client's train.py, unmodified, on gymlike's CPU pipeline, and record
its learning curve: reward against env steps and wall time.

    python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Ant --envs 512 --minutes 15
    python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Humanoid --max-steps 48000000
    python benchmarks/train_real_tasks.py /path/to/legged_gym anymal_c_flat --envs 2048

IsaacGymEnvs: its `isaacgymenvs/train.py` with rl_games; its dependencies (hydra-core, omegaconf,
gym 0.23, termcolor, and what its tasks package imports: pysdf, urdfpy, trimesh) must be
importable (PYTHONPATH). Only hydra overrides are passed: the CPU devices, headless, the
experiment name, and with --envs the env count and rl_games' minibatch size scaled with it
(IsaacGymEnvs' configs are sized for 4096 envs: the same number of minibatches per epoch).
The curve comes from rl_games' TensorBoard logs (mean episode reward by frames and by its own
training clock, which starts after the envs are built).

legged_gym (a checkout holding legged_gym/envs/): its `legged_gym/scripts/train.py` with rsl_rl
1.0.2 (importable: PYTHONPATH); with --envs, `--num_envs`. Its curve is parsed from rsl_rl's
report per iteration (mean reward, mean episode length, every `Mean episode rew_*` term, total
timesteps and rsl_rl's total time); legged_gym writes its own logs into its checkout's logs/.

Without --envs a task runs at its own config's env count. The run ends at the config's own
iteration count, or earlier with --max-steps (the iterations that reach that many env steps)
or --minutes (stopped after that wall time plus rl_games' log flush interval, the curve cut
there); Ctrl-C stops it early and keeps the curve so far. The client runs from the current
folder (rl_games writes runs/ there); its output is copied to runs/<name>.log. Results:
benchmarks/results/train_<name>.json (the whole curve).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLUSH = 150          # rl_games' TensorBoard writer flushes every 120 s


def is_legged_gym(root):
    return os.path.isfile(os.path.join(root, "legged_gym", "envs", "__init__.py"))


def igenvs_train_cfg(root, task):
    import yaml
    with open(os.path.join(root, "isaacgymenvs", "cfg", "train", f"{task}PPO.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)["params"]["config"]


def igenvs_envs(root, task):
    """The env count of the task's own config (`numEnvs: ${resolve_default:4096,...}`)."""
    with open(os.path.join(root, "isaacgymenvs", "cfg", "task", f"{task}.yaml"), encoding="utf-8") as f:
        m = re.search(r"numEnvs:\s*\$\{resolve_default:(\d+)", f.read())
    return int(m.group(1)) if m else 4096


def minibatch(root, task, envs):
    """IsaacGymEnvs' minibatch size scaled from its 4096-env configuration to `envs`."""
    cfg = igenvs_train_cfg(root, task)
    batch = 4096 * int(cfg["horizon_length"])
    parts = max(1, batch // int(cfg["minibatch_size"]))
    return envs * int(cfg["horizon_length"]) // parts


def igenvs_command(root, task, envs, name, max_steps):
    cmd = [sys.executable, "-m", "gymlike.run", os.path.join(root, "isaacgymenvs", "train.py"), f"task={task}",
           "sim_device=cpu", "rl_device=cpu", "pipeline=cpu", "headless=True", f"experiment={name}"]
    if envs:
        cmd += [f"num_envs={envs}", f"train.params.config.minibatch_size={minibatch(root, task, envs)}"]
    per_epoch = (envs or igenvs_envs(root, task)) * int(igenvs_train_cfg(root, task)["horizon_length"])
    if max_steps:
        cmd.append(f"max_iterations={math.ceil(max_steps / per_epoch)}")
    return cmd


def legged_command(root, task, envs, max_steps):
    cmd = [sys.executable, "-m", "gymlike.run", os.path.join(root, "legged_gym", "scripts", "train.py"),
           f"--task={task}", "--headless"]
    if envs:
        cmd.append(f"--num_envs={envs}")
    if max_steps:       # (legged_gym's configs: 24 steps per env and iteration unless changed)
        cmd.append(f"--max_iterations={math.ceil(max_steps / ((envs or 4096) * 24))}")
    return cmd


def igenvs_curve(run_dir, seconds=None):
    """rl_games' TensorBoard scalars: one row per logged epoch (frames, its training clock, reward,
    episode length), cut at `seconds` of that clock when given."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(os.path.join(run_dir, "summaries"), size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags()["scalars"]
    if "rewards/iter" not in tags:
        return []
    rows = {}
    for tag, key in (("rewards/step", "env_steps"), ("rewards/time", "seconds")):
        for it, ev in zip(acc.Scalars("rewards/iter"), acc.Scalars(tag)):
            rows.setdefault(it.step, dict(epoch=it.step, reward=round(it.value, 2)))[key] = round(ev.step, 1)
    for it, ev in zip(acc.Scalars("rewards/iter"), acc.Scalars("episode_lengths/iter")):
        rows[it.step]["episode_length"] = round(ev.value, 1)
    out = [rows[k] for k in sorted(rows)]
    return [r for r in out if seconds is None or r.get("seconds", 0) <= seconds]


LEGGED_ROW = {"Mean reward:": "reward", "Mean episode length:": "episode_length", "Total timesteps:": "env_steps",
              "Total time:": "seconds"}


def legged_curve(text):
    """rsl_rl 1.0.2's report, one row per iteration."""
    rows, row = [], None
    for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines():
        m = re.search(r"Learning iteration (\d+)/(\d+)", line)
        if m:
            row = dict(iteration=int(m.group(1)))
            rows.append(row)
            continue
        if row is None or ":" not in line:
            continue
        key, _, val = line.strip().rpartition(":")
        key += ":"
        m = re.match(r"Mean episode (rew_\w+):", key)
        try:
            v = float(val.strip().rstrip("s"))
        except ValueError:
            continue
        if m:
            row[m.group(1)] = v
        elif key in LEGGED_ROW:
            row[LEGGED_ROW[key]] = v
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", help="an IsaacGymEnvs checkout (the folder holding isaacgymenvs/) or a legged_gym one")
    ap.add_argument("task")
    ap.add_argument("--envs", type=int, default=None, help="env count (default: the task's own config)")
    ap.add_argument("--max-steps", type=float, default=None,
                    help="stop after the iteration reaching this many env steps")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this wall time")
    ap.add_argument("--name", default=None, help="experiment name (default: <task>_<envs>)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    legged = is_legged_gym(root)
    name = args.name or f"{args.task}_{args.envs or 'own'}"
    cmd = (legged_command(root, args.task, args.envs, args.max_steps) if legged
           else igenvs_command(root, args.task, args.envs, name, args.max_steps))
    print(" ".join(cmd[2:]), flush=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p))      # (train.py imports its own package)
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True, env=env)
    last, text = "", []
    try:
        os.makedirs("runs", exist_ok=True)
        with open(os.path.join("runs", f"{name}.log"), "w", encoding="utf-8") as log:
            deadline = t0 + 60 * args.minutes + (0 if legged else FLUSH) if args.minutes else math.inf
            try:
                for line in p.stdout:
                    log.write(line)
                    log.flush()
                    text.append(line)
                    last = line.strip() or last
                    if time.time() > deadline:
                        break
            except KeyboardInterrupt:       # (Ctrl-C: stop the run, keep its curve so far)
                pass
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
    wall = time.time() - t0
    seconds = 60 * args.minutes if args.minutes else None
    if legged:
        rows = [r for r in legged_curve("".join(text)) if seconds is None or r.get("seconds", 0) <= seconds]
        run = None
    else:
        runs = sorted(glob.glob(os.path.join("runs", f"{name}_*")), key=os.path.getmtime)
        if not runs:        # (train.py stopped before rl_games wrote a log: say why)
            raise SystemExit(f"train.py wrote no run folder under {os.getcwd()}/runs; its last line: {last}")
        run = os.path.abspath(runs[-1])
        rows = igenvs_curve(run, seconds)
    if not rows:
        raise SystemExit(f"no iteration was reported; the client's last line: {last}")
    res = dict(task=args.task, client="legged_gym" if legged else "IsaacGymEnvs", envs=args.envs or "own config",
               command=" ".join(cmd[2:]), process_seconds=round(wall), env_steps=int(rows[-1].get("env_steps", 0)),
               final=rows[-1], last_line=last, run=run, curve=rows)
    if args.minutes:        # (the mean reward at the end of each minute, as cpu_pipeline.md tabulates it)
        res["reward_per_minute"] = [([r["reward"] for r in rows if r.get("seconds", 0) <= 60 * k] or [None])[-1]
                                    for k in range(1, math.ceil(args.minutes) + 1)]
    print(json.dumps({k: v for k, v in res.items() if k != "curve"}))
    os.makedirs(os.path.join(ROOT, "benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "benchmarks", "results", f"train_{name}.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
