"""Train (or play) an IsaacGymEnvs-style task on gymlike.

    python examples/train.py task=Cartpole                        # rsl_rl PPO, stops when solved
    python examples/train.py task=Ant max_iterations=300 num_envs=512
    python examples/train.py task=Cartpole algo=rl_games          # rl_games PPO instead
    python examples/train.py task=Cartpole --play                  # run the latest checkpoint
    python examples/train.py task=Cartpole --play checkpoint=runs/Cartpole_.../model_final.pt

Arguments are `key=value` (IsaacGymEnvs style): task, algo (rsl_rl | rl_games), num_envs, seed,
max_iterations, max_time (s), headless, checkpoint, experiment, physics_engine, sim_device,
rl_device, stop_at_solved, play_steps, progress. Dotted keys override the configs: `env.numEnvs=64`,
`sim.dt=0.01` (task YAML), `train.rsl_rl.algorithm.learning_rate=3e-4` (train YAML).
Task names are case-insensitive. `--verbose` shows the RL libraries' own console output.
Outputs go to runs/<experiment>/: TensorBoard events, checkpoints, learning_curve.png,
history.json. Ctrl-C stops training and still writes them. `--play` runs the deterministic
policy for play_steps steps (rsl_rl: runs/<Task>_*/model_final.pt, rl_games:
runs/<Task>_*/nn/model_final.pth, the latest unless checkpoint=...).
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
                rl_device="cpu", stop_at_solved=True, play=False, test=False, play_steps=1000, progress=True,
                verbose=False)


def parse(argv):
    args, task_over, train_over = dict(DEFAULTS), [], []
    for a in argv:
        if a in ("--play", "--test"):
            args["play"] = True
            continue
        if a == "--verbose":
            args["verbose"] = True
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


def resolve_task(name):
    """The task's canonical name, case-insensitively; exits with a did-you-mean otherwise."""
    from gymlike.envs import canonical_task
    try:
        return canonical_task(name)
    except ValueError as e:
        sys.exit(f"train.py: {e}")


def latest_checkpoint(task, algo):
    pattern = os.path.join("runs", f"{task}_*", "nn", "model_final.pth") if algo == "rl_games" else \
        os.path.join("runs", f"{task}_*", "model_final.pt")
    runs = sorted(glob.glob(pattern), key=os.path.getmtime)
    if not runs:
        sys.exit(f"train.py --play: no checkpoint found ({pattern}); train first (same task and algo) "
                 "or pass checkpoint=...")
    return runs[-1]


def tensorboard_command():
    """`tensorboard`, or its path in this interpreter's environment when that is not on PATH."""
    import shutil
    if shutil.which("tensorboard"):
        return "tensorboard"
    exe = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    if os.path.exists(exe):
        rel = os.path.relpath(exe)
        return rel if not rel.startswith("..") else exe
    return f"{sys.executable} -m tensorboard.main"


def main(argv=None):
    args, task_over, train_over = parse(sys.argv[1:] if argv is None else argv)
    if args["verbose"]:
        os.environ["GYMLIKE_VERBOSE"] = "1"
    if args["algo"] not in ("rsl_rl", "rl_games"):
        sys.exit(f"train.py: algo must be rsl_rl or rl_games, got {args['algo']!r}")
    task_name = resolve_task(args["task"])
    from gymlike.envs import apply_overrides, load_task_config, load_train_config, make, set_seed
    from gymlike.envs import training

    try:
        task_cfg = apply_overrides(load_task_config(task_name), task_over)
        train_cfg = apply_overrides(load_train_config(task_name), train_over)
    except KeyError as e:
        hint = " (--play runs play_steps=N steps with either algo)" if "player" in str(e.args[0]) else ""
        sys.exit(f"train.py: {e.args[0]}{hint}")
    if args["seed"] is not None:
        task_cfg["seed"] = int(args["seed"])
    seed = int(task_cfg.get("seed", 42))
    set_seed(seed)
    if args["num_envs"] is not None:
        task_cfg["env"]["numEnvs"] = int(args["num_envs"])

    t0 = time.perf_counter()

    def make_task(num_envs=None, announce=True):
        cfg = task_cfg
        if num_envs is not None:
            cfg = apply_overrides(task_cfg, {"env.numEnvs": int(num_envs)})
        task = make(task_name, cfg=cfg, sim_device=args["sim_device"], rl_device=args["rl_device"],
                    headless=bool(args["headless"]) or not announce, physics_engine=args["physics_engine"])
        if not announce:
            return task
        print(f"{task_name}: {task.num_envs} envs, {task.num_obs} observations, {task.num_actions} actions, "
              f"engine {task_cfg.get('physics_engine', 'physx')}, device {task.device}, seed {seed} "
              f"(created in {time.perf_counter() - t0:.1f} s)", file=sys.__stdout__, flush=True)
        return task

    algo = args["algo"]
    if args["play"]:
        ckpt = args["checkpoint"] or latest_checkpoint(task_name, algo)
        steps = int(args["play_steps"])
        if algo == "rl_games":
            rew, length, n = training.train_rl_games(make_task, train_cfg, None, play_checkpoint=ckpt,
                                                     num_envs=task_cfg["env"]["numEnvs"], play_steps=steps)
        else:
            task = make_task()
            policy, env = training.load_rsl_policy(task, train_cfg, ckpt)
            rew, length, n = training.play(task, policy, env, steps, render=not task.headless)
        print(f"played {ckpt} for {steps} steps (deterministic actions): {n} episodes, "
              f"mean episode reward {rew:.2f}, mean episode length {length:.1f}")
        return 0

    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.join("runs", args["experiment"] or f"{task_name}_{stamp}")
    solved = train_cfg.get("solved") if args["stop_at_solved"] else None
    # the solved rule's deterministic evaluation runs on its own (smaller) copy of the task
    n_eval = min(int(task_cfg["env"]["numEnvs"]), 128)
    common = dict(progress=bool(args["progress"]), solved=solved, max_time=args["max_time"],
                  make_eval_task=lambda: make_task(num_envs=n_eval, announce=False))
    if algo == "rl_games":
        _, hist = training.train_rl_games(make_task, train_cfg, run_dir, max_epochs=args["max_iterations"],
                                          title=f"{task_name} (rl_games PPO)",
                                          num_envs=task_cfg["env"]["numEnvs"], **common)
    else:
        task = make_task()
        train_cfg["rsl_rl"]["seed"] = seed
        _, hist = training.train_rsl_rl(task, train_cfg, run_dir, max_iterations=args["max_iterations"],
                                        title=f"{task_name} (rsl_rl PPO)", **common)
    print(training.summary(hist, time.perf_counter() - t0, hist.rule) + " (wall time incl. sim creation)")
    if hist.stop_reason == "interrupted":
        print(f"interrupted (Ctrl-C): saved {', '.join(os.path.relpath(f) for f in hist.files)}")
    print(f"run directory: {run_dir}  ({os.path.basename(hist.files[0])}, learning_curve.png, history.json; "
          f"TensorBoard: {tensorboard_command()} --logdir {run_dir}; play: "
          f"{os.path.relpath(sys.executable) if not os.path.relpath(sys.executable).startswith('..') else 'python'} "
          f"examples/train.py task={task_name}{' algo=rl_games' if algo == 'rl_games' else ''} --play)")
    return 130 if hist.stop_reason == "interrupted" else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:          # Ctrl-C outside training (sim creation, --play): no traceback
        sys.stderr.write("train.py: interrupted\n")
        sys.exit(130)
