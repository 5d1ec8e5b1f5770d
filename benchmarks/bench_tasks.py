"""Env-steps/s of every gymlike RL task with random actions, and where the time goes.

    python benchmarks/bench_tasks.py                        # all tasks at 64/256/1024 envs
    python benchmarks/bench_tasks.py Cartpole Ant --envs 64 256 --steps 100

Per task and env count: create the task, warm up (Warp kernels compile on first use, then are
cached), then time `--steps` calls of `task.step(random actions)`. The time of one step is
split into
  physics      Newton's solver step (MuJoCo-Warp / XPBD kernels and their Python launch code),
  obs/reward   the task's torch code (post_physics_step, pre_physics_step, reset_idx) minus the
               gymlike calls inside it,
  gymlike      tensor API calls (refresh_*, set_*), gym.simulate's own work around the solver
               (efforts, NaN check), and VecTask.step's bookkeeping.
Results are printed as a table and written to benchmarks/results/bench_tasks.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gymlike.envs import TASKS, make  # noqa: E402


class Timers:
    def __init__(self):
        self.t = {"solver": 0.0, "simulate": 0.0, "tensor_api": 0.0, "task": 0.0}

    def wrap(self, obj, name, key):
        fn = getattr(obj, name)
        t = self.t

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                t[key] += time.perf_counter() - t0
        setattr(obj, name, timed)
        return fn


TENSOR_CALLS = [n for n in dir(type(__import__("gymlike.gymapi", fromlist=["Gym"]).Gym))
                if n.startswith(("refresh_", "set_dof_", "set_actor_root", "set_rigid_body_state",
                                 "apply_rigid_body_force"))]


def bench(task_name, num_envs, steps, warmup, profile=True):
    t0 = time.perf_counter()
    task = make(task_name, num_envs=num_envs, seed=0)
    create = time.perf_counter() - t0
    n, a = task.num_envs, task.num_actions
    gen = torch.Generator().manual_seed(0)
    acts = [torch.rand((n, a), generator=gen) * 2 - 1 for _ in range(16)]
    for i in range(warmup):
        task.step(acts[i % 16])
    tm = Timers()
    if profile:
        sim = task.sim
        tm.wrap(sim.solver, "step", "solver")
        tm.wrap(task.gym, "simulate", "simulate")
        for name in TENSOR_CALLS:
            tm.wrap(task.gym, name, "tensor_api")
        for name in ("pre_physics_step", "post_physics_step"):
            tm.wrap(task, name, "task")
    t0 = time.perf_counter()
    for i in range(steps):
        task.step(acts[i % 16])
    total = time.perf_counter() - t0
    res = dict(task=task_name, num_envs=n, steps=steps, seconds=total, env_steps_per_s=n * steps / total,
               create_seconds=create)
    if profile:
        t = tm.t
        physics = t["solver"]
        gymlike = (t["simulate"] - t["solver"]) + t["tensor_api"] + (total - t["simulate"] - t["task"])
        obs = t["task"] - t["tensor_api"]
        res.update(physics=physics / total, obs_reward=obs / total, gymlike=gymlike / total)
    task.close()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tasks", nargs="*", default=list(TASKS))
    ap.add_argument("--envs", nargs="+", type=int, default=[64, 256, 1024])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                  "bench_tasks.json"))
    args = ap.parse_args()
    rows = []
    print(f"{'task':<12} {'envs':>5} {'env-steps/s':>12} {'ms/step':>8} {'physics':>8} {'obs/rew':>8} {'gymlike':>8}")
    for name in args.tasks:
        for n in args.envs:
            r = bench(name, n, args.steps, args.warmup, not args.no_profile)
            rows.append(r)
            ms = 1000 * r["seconds"] / r["steps"]
            line = f"{name:<12} {n:>5} {r['env_steps_per_s']:>12,.0f} {ms:>8.1f}"
            if "physics" in r:
                line += f" {100 * r['physics']:>7.1f}% {100 * r['obs_reward']:>7.1f}% {100 * r['gymlike']:>7.1f}%"
            print(line, flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(dict(torch_threads=torch.get_num_threads(), cpu_count=os.cpu_count(), rows=rows), f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
