"""Train (or play) an IsaacGymEnvs-style task on gymlike.

    python examples/train.py task=Cartpole                        # rsl_rl PPO, stops when solved
    python examples/train.py task=Ant max_iterations=300 num_envs=512
    python examples/train.py task=Cartpole algo=rl_games          # rl_games PPO instead
    python examples/train.py task=Cartpole --play                  # run the latest checkpoint
    python examples/train.py task=Cartpole --play checkpoint=runs/Cartpole_.../model_final.pt

Arguments are `key=value` (IsaacGymEnvs style): task, algo (rsl_rl | rl_games), num_envs, seed,
max_iterations, max_time (s), headless, checkpoint, experiment, physics_engine, sim_device,
rl_device, stop_at_solved, play_steps. Dotted keys override the configs: `env.numEnvs=64`,
`sim.dt=0.01` (task YAML), `train.rsl_rl.algorithm.learning_rate=3e-4` (train YAML).
Outputs go to runs/<experiment>/: TensorBoard events, checkpoints, learning_curve.png,
history.json.
"""

from __future__ import annotations

import glob
import os
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

DEFAULTS = dict(task="Cartpole", algo="rsl_rl", num_envs=None, seed=None, max_iterations=None, max_time=None,
                headless=True, checkpoint=None, experiment=None, physics_engine=None, sim_device="cpu",
                rl_device="cpu", stop_at_solved=True, play=False, test=False, play_steps=1000, progress=True)


def parse(argv):
    args, task_over, train_over = dict(DEFAULTS), [], []
    for a in argv:
        if a in ("--play", "--test"):
            args["play"] = True
            continue
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a.startswith("--"):
            a = a[2:]
            if "=" not in a:
                a += "=True"
        if "=" not in a:
            sys.exit(f"train.py: expected key=value, got {a!r} (see --help)")
        k, v = a.split("=", 1)
        if k.startswith("train."):
            train_over.append(f"{k[len('train.'):]}={v}")
        elif k.startswith("task."):
            task_over.append(f"{k[len('task.'):]}={v}")
        elif "." in k or k in ("env", "sim"):
            task_over.append(a)
        elif k in args:
            args[k] = yaml.safe_load(v) if v != "" else None
        else:
            sys.exit(f"train.py: unknown argument {k!r}; known: {', '.join(sorted(DEFAULTS))} "
                     "or dotted config keys (env.numEnvs=..., train.rsl_rl....=...)")
    args["play"] = bool(args["play"] or args["test"])
    return args, task_over, train_over


def latest_checkpoint(task):
    runs = sorted(glob.glob(os.path.join("runs", f"{task}_*", "model_final.pt")), key=os.path.getmtime)
    if not runs:
        sys.exit(f"train.py --play: no checkpoint found under runs/{task}_*/ (train first or pass checkpoint=...)")
    return runs[-1]


def main(argv=None):
    args, task_over, train_over = parse(sys.argv[1:] if argv is None else argv)
    from gymlike.envs import apply_overrides, load_task_config, load_train_config, make, set_seed
    from gymlike.envs import training

    task_name = str(args["task"])
    task_cfg = apply_overrides(load_task_config(task_name), task_over)
    train_cfg = apply_overrides(load_train_config(task_name), train_over)
    if args["seed"] is not None:
        task_cfg["seed"] = int(args["seed"])
    seed = int(task_cfg.get("seed", 42))
    set_seed(seed)
    if args["num_envs"] is not None:
        task_cfg["env"]["numEnvs"] = int(args["num_envs"])

    def make_task():
        return make(task_name, cfg=task_cfg, sim_device=args["sim_device"], rl_device=args["rl_device"],
                    headless=bool(args["headless"]), physics_engine=args["physics_engine"])

    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.join("runs", args["experiment"] or f"{task_name}_{stamp}")
    solved = train_cfg.get("solved", {}) if args["stop_at_solved"] else {}

    if args["algo"] == "rl_games":
        ckpt = None
        if args["play"]:
            ckpt = args["checkpoint"] or sys.exit("train.py --play algo=rl_games: pass checkpoint=runs/<exp>/nn/<name>.pth")
        training.train_rl_games(make_task, train_cfg, run_dir, max_epochs=args["max_iterations"], play_checkpoint=ckpt,
                                title=f"{task_name} (rl_games)", num_envs=task_cfg["env"]["numEnvs"])
        if not args["play"]:
            print(f"run directory: {run_dir} (TensorBoard: tensorboard --logdir {run_dir})")
        return 0
    if args["algo"] != "rsl_rl":
        sys.exit(f"train.py: algo must be rsl_rl or rl_games, got {args['algo']!r}")

    t0 = time.perf_counter()
    task = make_task()
    print(f"{task_name}: {task.num_envs} envs, {task.num_obs} observations, {task.num_actions} actions, "
          f"engine {task_cfg.get('physics_engine', 'physx')}, device {task.device}, seed {seed} "
          f"(created in {time.perf_counter() - t0:.1f} s)", flush=True)
    if args["play"]:
        ckpt = args["checkpoint"] or latest_checkpoint(task_name)
        policy, env = training.load_rsl_policy(task, train_cfg, ckpt)
        rew, length, n = training.play(task, policy, env, int(args["play_steps"]), render=not task.headless)
        print(f"played {ckpt}: {n} episodes, mean episode reward {rew:.2f}, mean episode length {length:.1f}")
        return 0

    train_cfg["rsl_rl"]["seed"] = seed
    runner, hist = training.train_rsl_rl(
        task, train_cfg, run_dir, max_iterations=args["max_iterations"], progress=bool(args["progress"]),
        stop_reward=solved.get("mean_reward"), stop_length=solved.get("mean_length"),
        max_time=args["max_time"], title=f"{task_name} (rsl_rl PPO)")
    total = time.perf_counter() - t0
    last = hist.rows[-1] if hist.rows else {}
    msg = (f"done: {last.get('iteration', -1) + 1} iterations, {last.get('steps', 0)} env steps, "
           f"{total:.1f} s wall time (incl. sim creation), mean episode reward {last.get('mean_reward', float('nan')):.2f}, "
           f"mean episode length {last.get('mean_length', float('nan')):.1f}")
    if solved:
        target = solved.get("mean_length", solved.get("mean_reward"))
        key = "mean_length" if "mean_length" in solved else "mean_reward"
        ok = last.get(key, float("-inf")) >= target
        msg += f"; solved level ({key} >= {target}): {'REACHED' if ok else 'not reached'}"
    print(msg)
    print(f"run directory: {run_dir}  (model_final.pt, learning_curve.png, TensorBoard: tensorboard --logdir {run_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
