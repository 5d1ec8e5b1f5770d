"""Train an IsaacGymEnvs task with IsaacGymEnvs' own train.py and rl_games, unmodified, on gymlike's
CPU pipeline for a fixed wall time, then print its reward curve (mean episode reward at each
minute) and the env steps reached, read from rl_games' TensorBoard logs.

    python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Ant --envs 512 --minutes 15
    python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Anymal --envs 512 --minutes 15

IsaacGymEnvs is fetched separately and run unmodified from its own folder through
`python -m gymlike.run train.py ...`; its dependencies (hydra-core, omegaconf, gym 0.23,
termcolor, and what its tasks package imports) must be importable (PYTHONPATH). Only hydra
overrides are passed: the env count, the CPU devices, headless, and rl_games' minibatch size
scaled with the env count (IsaacGymEnvs' configs are sized for 4096 envs: the same number of
minibatches per epoch). The run is stopped after `--minutes` plus the log's flush interval and
the curve is cut at `--minutes`. Results: benchmarks/results/train_<task>_<envs>.json.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLUSH = 150          # rl_games' TensorBoard writer flushes every 120 s


def minibatch(root, task, envs):
    """IsaacGymEnvs' minibatch size scaled from its 4096-env configuration to `envs`."""
    import yaml
    with open(os.path.join(root, "isaacgymenvs", "cfg", "train", f"{task}PPO.yaml"), encoding="utf-8") as f:
        cfg = yaml.safe_load(f)["params"]["config"]
    batch = 4096 * int(cfg["horizon_length"])
    parts = max(1, batch // int(cfg["minibatch_size"]))
    return envs * int(cfg["horizon_length"]) // parts


def curve(run_dir, minutes):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(os.path.join(run_dir, "summaries"))
    acc.Reload()
    by_time = [(e.step, e.value) for e in acc.Scalars("rewards/time")] if "rewards/time" in acc.Tags()["scalars"] else []
    by_step = [(e.step, e.value) for e in acc.Scalars("rewards/step")] if "rewards/step" in acc.Tags()["scalars"] else []
    frames = [(e.wall_time, e.step) for e in acc.Scalars("rewards/step")] if by_step else []
    per_minute = []
    for k in range(1, minutes + 1):
        seen = [v for t, v in by_time if t <= 60 * k]
        per_minute.append(round(seen[-1], 2) if seen else None)
    t0 = acc.Scalars("rewards/time")[0].wall_time - acc.Scalars("rewards/time")[0].step if by_time else None
    steps = [s for w, s in frames if t0 is None or w - t0 <= 60 * minutes]
    return per_minute, (steps[-1] if steps else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", help="an IsaacGymEnvs checkout (the folder holding isaacgymenvs/)")
    ap.add_argument("task")
    ap.add_argument("--envs", type=int, default=512)
    ap.add_argument("--minutes", type=int, default=15)
    ap.add_argument("--name", default=None, help="experiment name (default: <task>_<envs>)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    name = args.name or f"{args.task}_{args.envs}"
    cwd = os.path.join(root, "isaacgymenvs")
    cmd = [sys.executable, "-m", "gymlike.run", "train.py", f"task={args.task}", f"num_envs={args.envs}",
           "sim_device=cpu", "rl_device=cpu", "pipeline=cpu", "headless=True", f"experiment={name}",
           "max_iterations=1000000", f"train.params.config.minibatch_size={minibatch(root, args.task, args.envs)}"]
    print(" ".join(cmd[2:]), flush=True)
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    last = ""
    try:
        deadline = t0 + 60 * args.minutes + FLUSH
        for line in p.stdout:
            last = line.strip() or last
            if time.time() > deadline:
                break
    finally:
        os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
    runs = sorted(glob.glob(os.path.join(cwd, "runs", f"{name}_*")), key=os.path.getmtime)
    if not runs:        # (train.py stopped before rl_games wrote a log: say why)
        raise SystemExit(f"train.py wrote no run folder under {cwd}/runs; its last line: {last}")
    per_minute, steps = curve(runs[-1], args.minutes)
    res = dict(task=args.task, envs=args.envs, minutes=args.minutes, reward_per_minute=per_minute,
               env_steps=int(steps), last_line=last, run=runs[-1])
    print(json.dumps(res))
    os.makedirs(os.path.join(ROOT, "benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "benchmarks", "results", f"train_{name}.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
