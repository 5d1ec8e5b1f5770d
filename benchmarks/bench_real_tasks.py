"""Real IsaacGymEnvs (or legged_gym) tasks on gymlike's CPU pipeline against a raw MuJoCo C
rollout of the very MjModel gymlike compiled for them, side by side in one process.

    python benchmarks/bench_real_tasks.py /path/to/IsaacGymEnvs                    # 6 tasks, 64 and 512 envs
    python benchmarks/bench_real_tasks.py /path/to/IsaacGymEnvs Ant Anymal --envs 64 --steps 50
    python benchmarks/bench_real_tasks.py /path/to/legged_gym --out benchmarks/results/bench_legged_gym.json

IsaacGymEnvs is fetched separately and run unmodified (never copied into this repository); its
own dependencies (hydra-core, omegaconf, gym 0.23, termcolor) must be importable (PYTHONPATH).
Each task is built from its own hydra config (CPU pipeline, headless) in a child process, reset,
warmed up, then stepped with uniform random actions in [-1, 1]. A legged_gym checkout
(leggedrobotics/legged_gym; rsl_rl 1.0.2 importable, which its task registry imports) runs
anymal_c_flat and anymal_c_rough by default, each built as its train.py builds it.

Per task and env count, the median of `--trials` alternating trials of `--steps` env.steps:

* env-steps/s     the task's own `env.step` (its torch code, VecTask's bookkeeping and gymlike),
* inside          seconds spent inside `Gym` method calls (refresh_*, set_*, simulate,
                  fetch_results, ...) per env.step, i.e. gymlike plus the physics it runs,
* raw             `mujoco.rollout` alone on the MjModel(s) gymlike's C solver steps, the same
                  threads, replaying exactly the MuJoCo steps of another `--steps` env.steps
                  (recorded untimed: each world's state, inputs and warm start before each
                  step; one call of `substeps` steps per `simulate`): the physics with nothing
                  around it (benchmarks/raw_mujoco.py),
* long            those recorded steps as one `mujoco.rollout` call from the first recorded
                  state, each step with its recorded inputs (same models and threads; resets
                  made between steps are not replayed): the physics without even the rollout
                  API's per-call cost,
* inside / raw    the cost of the API layer around the physics (1.0: none); inside / long the
                  same against the single long rollout.

Results go to benchmarks/results/bench_real_tasks.json and, as a table, to
python_bindings_docs/cpu_pipeline.md by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["Cartpole", "Ant", "Humanoid", "Anymal", "AnymalTerrain", "ShadowHand"]
LEGGED = ["anymal_c_flat", "anymal_c_rough"]       # (legged_gym)


def clients():
    """tools/real_clients.py (how each client builds its tasks, and where its scripts run)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import real_clients
    return real_clients


class Inside:
    """Seconds spent inside the Gym object's methods (outermost calls only)."""

    def __init__(self, gym):
        import time
        self.seconds, self.calls, self.depth = 0.0, {}, 0
        for name in dir(type(gym)):
            if name.startswith("_") or not callable(getattr(gym, name)):
                continue
            fn = getattr(gym, name)

            def timed(*a, _fn=fn, _name=name, **k):
                if self.depth:
                    return _fn(*a, **k)
                self.depth += 1
                t0 = time.perf_counter()
                try:
                    return _fn(*a, **k)
                finally:
                    self.depth -= 1
                    self.seconds += time.perf_counter() - t0
                    self.calls[_name] = self.calls.get(_name, 0) + 1
            setattr(gym, name, timed)


def child(root, task_name, n, steps, trials, warmup):
    import time
    import numpy as np
    import gymlike  # noqa: F401  (first, as Isaac Gym code imports isaacgym before torch: core/runtime.passive_openmp)
    import torch
    os.chdir(clients().client_folder(root))
    env = clients().make_client_task(root, task_name, n)
    env.reset()
    torch.manual_seed(0)
    acts = [torch.rand((env.num_envs, env.num_actions)) * 2 - 1 for _ in range(16)]
    for i in range(warmup):
        env.step(acts[i % 16])
    from gymlike.core import mjc
    from gymlike.core import handles
    sim = handles.sim_of(env.sim)
    cs = mjc.c_step(sim.solver)
    inside = Inside(env.gym)
    n_sub = max(1, int(sim.params.substeps))
    res = dict(task=task_name, num_envs=n, steps=steps, pipeline="mujoco-c" if cs else "warp",
               substeps=n_sub, observing=bool(getattr(cs, "observing", False)))

    counted = {}

    def gym_trial():
        inside.seconds = 0.0
        inside.calls.clear()
        sims0 = sim.frame
        t0 = time.perf_counter()
        for i in range(steps):
            env.step(acts[i % 16])
        t = time.perf_counter() - t0
        counted.clear()
        counted.update(inside.calls)      # (the raw comparison's recorded steps call Gym too)
        return t, inside.seconds, sim.frame - sims0

    raw = None
    if cs is not None and hasattr(cs, "batch"):      # (an older gymlike: no raw comparison)
        from raw_mujoco import Recorder
        rec = Recorder(cs)

        def raw():
            # the same number of env.steps again, recorded (untimed), then exactly those MuJoCo
            # steps (states, inputs, warm starts) replayed in mujoco.rollout (timed): one call
            # per batch step, and all of them in one call
            rec.records.clear()
            rec.recording = True
            for i in range(steps):
                env.step(acts[i % 16])
            rec.recording = False
            return rec.replay(), rec.replay_whole()

    runs = dict(wall=[], inside=[], raw=[], long=[])
    for _ in range(trials):
        wall, ins, calls = gym_trial()
        runs["wall"].append(wall)
        runs["inside"].append(ins)
        if raw is not None:
            r, w = raw()
            runs["raw"].append(r)
            runs["long"].append(w)
    best = {k: float(np.median(v)) if v else np.inf for k, v in runs.items()}
    res["spread"] = {k: float((max(v) - min(v)) / np.median(v)) for k, v in runs.items() if v}
    res["simulate_per_step"] = calls / steps
    res["calls_per_step"] = {k: v / steps for k, v in sorted(counted.items())}
    res["env_steps_per_s"] = n * steps / best["wall"]
    res["inside_ms_per_step"] = 1000 * best["inside"] / steps
    if raw is not None:
        res["raw_env_steps_per_s"] = n * steps / best["raw"]
        res["raw_ms_per_step"] = 1000 * best["raw"] / steps
        res["step_over_raw"] = best["raw"] / best["wall"]
        res["inside_over_raw"] = best["inside"] / best["raw"]
        res["long_ms_per_step"] = 1000 * best["long"] / steps
        res["inside_over_long"] = best["inside"] / best["long"]
    print("RESULT " + json.dumps(res), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="an IsaacGymEnvs checkout (the folder holding isaacgymenvs/) or a "
                                 "legged_gym one (the folder holding legged_gym/)")
    ap.add_argument("tasks", nargs="*")
    ap.add_argument("--envs", nargs="+", type=int, default=[64, 512])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "bench_real_tasks.json"))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    tasks = args.tasks or (LEGGED if clients().is_legged_gym(root) else DEFAULT)
    rows = []
    print(f"{'task':<14} {'envs':>5} {'pipeline':>9} {'env-steps/s':>12} {'inside ms':>10} {'raw ms':>8} "
          f"{'step/raw':>9} {'inside/raw':>11} {'long ms':>8} {'inside/long':>12}")
    for task in tasks:
        for n in args.envs:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", root, task, str(n),
                                str(args.steps), str(args.trials), str(args.warmup)],
                               capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                   x for x in (ROOT, os.path.join(ROOT, "benchmarks"),
                                               os.environ.get("PYTHONPATH", "")) if x)))
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            if p.returncode or not lines:
                print(f"{task:<14} {n:>5} FAILED: {(p.stderr.strip().splitlines() or ['?'])[-1][:200]}", flush=True)
                continue
            r = json.loads(lines[-1][7:])
            rows.append(r)
            print(f"{task:<14} {n:>5} {r['pipeline']:>9} {r['env_steps_per_s']:>12,.0f} "
                  f"{r['inside_ms_per_step']:>10.2f} {r.get('raw_ms_per_step', float('nan')):>8.2f} "
                  f"{r.get('step_over_raw', float('nan')):>9.3f} {r.get('inside_over_raw', float('nan')):>11.2f} "
                  f"{r.get('long_ms_per_step', float('nan')):>8.2f} {r.get('inside_over_long', float('nan')):>12.2f}",
                  flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(dict(cpu_count=os.cpu_count(), rows=rows), f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        r, t, n, s, tr, w = sys.argv[2:8]
        child(r, t, int(n), int(s), int(tr), int(w))
    else:
        main()
