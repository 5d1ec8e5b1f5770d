"""Long training runs (not tests): time-to-solved for Cartpole, reward curves for the others.

    python benchmarks/train_benchmark.py Cartpole                 # until solved (or 5 min)
    python benchmarks/train_benchmark.py Ant --minutes 15
    python benchmarks/train_benchmark.py Quadruped --minutes 15 --num-envs 256

Runs rsl_rl PPO exactly as `examples/train.py` does, from a fresh process (the wall time
includes sim creation and, on a cold cache, Warp kernel compilation). Writes
benchmarks/results/<task>_curve.json (per-iteration history, plus the summary) and
benchmarks/results/<task>_curve.png, and prints the reward every `--report-every` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

T_PROCESS = time.perf_counter()
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("task")
    ap.add_argument("--minutes", type=float, default=None,
                    help="wall-time budget (default: 5 for Cartpole, 15 otherwise)")
    ap.add_argument("--num-envs", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = ap.parse_args()

    from gymlike.envs import load_task_config, load_train_config, make, set_seed
    from gymlike.envs.training import train_rsl_rl

    minutes = args.minutes if args.minutes is not None else (5.0 if args.task == "Cartpole" else 15.0)
    cfg = load_task_config(args.task)
    train_cfg = load_train_config(args.task)
    if args.seed is not None:
        cfg["seed"] = args.seed
    set_seed(int(cfg.get("seed", 42)))
    task = make(args.task, cfg=cfg, num_envs=args.num_envs)
    t_created = time.perf_counter() - T_PROCESS
    solved = train_cfg.get("solved", {})
    budget = minutes * 60.0 - t_created
    print(f"{args.task}: {task.num_envs} envs, created in {t_created:.1f} s; training for up to {budget:.0f} s",
          flush=True)
    runner, hist = train_rsl_rl(task, train_cfg, run_dir=None, max_iterations=10 ** 9, progress=False,
                                stop_reward=solved.get("mean_reward"), stop_length=solved.get("mean_length"),
                                max_time=budget, log_every=25,
                                make_eval_task=lambda: make(args.task, cfg=cfg, num_envs=min(task.num_envs, 128)))
    total = time.perf_counter() - T_PROCESS
    last = hist.rows[-1]
    summary = dict(task=args.task, num_envs=task.num_envs, wall_seconds_from_start=total, sim_create_seconds=t_created,
                   iterations=last["iteration"] + 1, env_steps=last["steps"], final_mean_reward=last["mean_reward"],
                   final_mean_episode_length=last["mean_length"], solved_criterion=solved or None)
    if solved:
        key = "mean_length" if "mean_length" in solved else "mean_reward"
        summary["solved"] = bool(last[key] >= solved[key if key in solved else "mean_reward"])
    # reward at each minute mark
    marks = {}
    for r in hist.rows:
        m = int((r["time"] + t_created) // 60)
        marks[m] = (r["mean_reward"], r["mean_length"], r["steps"])
    summary["per_minute"] = {str(k): dict(mean_reward=v[0], mean_length=v[1], env_steps=v[2])
                             for k, v in sorted(marks.items())}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.task}_curve.json"), "w", encoding="utf-8") as f:
        json.dump(dict(summary=summary, history=hist.rows), f, indent=1)
    hist.plot(os.path.join(args.out, f"{args.task}_curve.png"),
              f"{args.task}: rsl_rl PPO on gymlike, {task.num_envs} envs, 2-core CPU")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
