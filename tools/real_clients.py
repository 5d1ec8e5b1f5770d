"""Run real Isaac Gym client code, unmodified, on gymlike and print what runs.

    python tools/real_clients.py examples  /path/to/isaacgym/python/examples [names...]
    python tools/real_clients.py igenvs    /path/to/IsaacGymEnvs [TaskName ...]
    python tools/real_clients.py legged    /path/to/legged_gym [task ...]

`examples`: every script of an Isaac Gym Preview 4 `python/examples` folder runs through
`python -m gymlike.run --headless --max-frames 60` from that folder (as its README says to run
them); a script passes when it exits 0.

`igenvs`: each IsaacGymEnvs task is built from its own hydra config (16 envs, CPU pipeline),
reset, and stepped 100 times with uniform random actions in [-1, 1]; it passes when every
observation and reward stays finite (REAL_CLIENTS_ENVS / REAL_CLIENTS_STEPS change 16 and 100;
REAL_CLIENTS_OVERRIDES adds hydra overrides, e.g. "task.task.randomize=False").
It needs IsaacGymEnvs' own dependencies importable (hydra-core, omegaconf, gym 0.23, termcolor;
put them on PYTHONPATH; the IndustReal tasks also need urdfpy and pysdf, python_bindings_docs/
learning.md says how), and runs from `isaacgymenvs/` as IsaacGymEnvs' train.py does. The tasks
package's __init__ imports every task, so each task module is imported on its own.

`legged`: each legged_gym task (leggedrobotics/legged_gym: anymal_c_flat, anymal_c_rough,
anymal_b, a1, cassie) built as its train.py builds it (its own get_args and task registry,
headless; rsl_rl 1.0.2 importable, which that registry imports), from the checkout's folder,
then stepped as above.

Nothing from those repositories is copied here; results go in python_bindings_docs/real_clients.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TASKS = {"Ant": "ant", "Anymal": "anymal", "AnymalTerrain": "anymal_terrain", "BallBalance": "ball_balance",
         "Cartpole": "cartpole", "FrankaCabinet": "franka_cabinet", "FrankaCubeStack": "franka_cube_stack",
         "Humanoid": "humanoid", "HumanoidAMP": "humanoid_amp", "Ingenuity": "ingenuity",
         "Quadcopter": "quadcopter", "ShadowHand": "shadow_hand", "AllegroHand": "allegro_hand",
         "Trifinger": "trifinger",
         # configs of IsaacGymEnvs' main branch whose class is not named after them (its task map)
         "AllegroKuka": ("allegro_kuka.allegro_kuka_reorientation", "AllegroKukaReorientation"),
         "AllegroKukaTwoArmsLSTM": ("allegro_kuka.allegro_kuka_two_arms_reorientation",
                                    "AllegroKukaTwoArmsReorientation"),
         "AllegroHandDextremeManualDR": ("dextreme.allegro_hand_dextreme", "AllegroHandDextremeManualDR"),
         "AllegroHandDextremeADR": ("dextreme.allegro_hand_dextreme", "AllegroHandDextremeADR"),
         "FactoryTaskNutBoltPick": "factory.factory_task_nut_bolt_pick",
         "FactoryTaskNutBoltPlace": "factory.factory_task_nut_bolt_place",
         "FactoryTaskNutBoltScrew": "factory.factory_task_nut_bolt_screw",
         "FactoryTaskInsertion": "factory.factory_task_insertion",
         "FactoryTaskGears": "factory.factory_task_gears",
         "IndustRealTaskPegsInsert": "industreal.industreal_task_pegs_insert",
         "IndustRealTaskGearsInsert": "industreal.industreal_task_gears_insert",
         "ShadowHandOpenAI_FF": ("shadow_hand", "ShadowHand"),
         "HumanoidAMPHands": ("humanoid_amp", "HumanoidAMP")}


LEGGED_TASKS = ("anymal_c_flat", "anymal_c_rough", "anymal_b", "a1", "cassie")


def _last_error(text):
    lines = [ln for ln in text.splitlines() if "Error" in ln or "Exception" in ln]
    return lines[-1][:200] if lines else ""


def run_examples(folder, names):
    names = names or sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py"))
    ok = 0
    for name in names:
        t0 = time.time()
        # some mirrors import their asset path from the examples package (`from examples import
        # ASSET_PATH`): its parent folder goes on the path, as in that tree's own set-up
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (os.path.dirname(folder), os.environ.get("PYTHONPATH", "")) if p))
        p = subprocess.run([sys.executable, "-m", "gymlike.run", "--headless", "--max-frames", "60",
                            "--timeout", "600", f"{name}.py"], cwd=folder, capture_output=True, text=True, env=env)
        ok += p.returncode == 0
        print(f"{name:28s} {'runs' if p.returncode == 0 else 'FAILS':6s} {time.time() - t0:6.0f} s  "
              f"{'' if p.returncode == 0 else _last_error(p.stderr)}", flush=True)
    print(f"{ok} of {len(names)} run")


def make_task(root, task, num_envs):
    """An IsaacGymEnvs task built from its own hydra config, as its train.py would (CPU pipeline,
    headless), on gymlike (the `isaacgym` alias)."""
    import importlib
    import types
    sys.path.insert(0, root)
    import gymlike
    gymlike.install_isaacgym_alias()
    import isaacgymenvs  # noqa: F401  (registers its OmegaConf resolvers)
    pkg = types.ModuleType("isaacgymenvs.tasks")
    pkg.__path__ = [os.path.join(root, "isaacgymenvs", "tasks")]
    sys.modules["isaacgymenvs.tasks"] = pkg
    from hydra import compose, initialize_config_dir
    from isaacgymenvs.utils.reformat import omegaconf_to_dict
    # AllegroKuka reads a device index from sim_device (train.py's default is cuda:0; with the CPU
    # pipeline Isaac Gym's PhysX then steps on the CPU)
    sim_device = "cuda:0" if task.startswith("AllegroKuka") else "cpu"
    module, name = TASKS[task] if isinstance(TASKS[task], tuple) else (TASKS[task], task)
    cls = getattr(importlib.import_module(f"isaacgymenvs.tasks.{module}"), name)
    # (Factory and IndustReal tasks compose their own hydra configs while they are built)
    with initialize_config_dir(config_dir=os.path.join(root, "isaacgymenvs", "cfg"), version_base=None):
        cfg = compose(config_name="config", overrides=[
            f"task={task}", f"num_envs={num_envs}", f"sim_device={sim_device}", "rl_device=cpu", "pipeline=cpu",
            "headless=True"] + os.environ.get("REAL_CLIENTS_OVERRIDES", "").split())
        task_cfg = omegaconf_to_dict(cfg.task)
        task_cfg.setdefault("rl_device", "cpu")     # (the DeXtreme tasks read it there, default cuda:0)
        return cls(cfg=task_cfg, rl_device="cpu", sim_device=sim_device, graphics_device_id=-1,
                   headless=True, virtual_screen_capture=False, force_render=False)


def is_legged_gym(root):
    """Whether `root` is a legged_gym checkout (leggedrobotics/legged_gym) rather than IsaacGymEnvs."""
    return os.path.isfile(os.path.join(root, "legged_gym", "envs", "__init__.py"))


def client_folder(root):
    """The folder a client's own scripts run from: legged_gym's checkout, IsaacGymEnvs' isaacgymenvs/."""
    return root if is_legged_gym(root) else os.path.join(root, "isaacgymenvs")


def make_client_task(root, task, num_envs):
    """A task of either client, as its own train.py builds it (make_task, make_legged_task)."""
    return (make_legged_task if is_legged_gym(root) else make_task)(root, task, num_envs)


def make_legged_task(root, task, num_envs):
    """A legged_gym task (anymal_c_flat, anymal_c_rough, a1, cassie...) built as its train.py
    builds it (its own get_args and task_registry, headless; CUDA defaults become the CPU), on
    gymlike. Needs rsl_rl 1.0.2 (legged_gym's task_registry imports it) importable."""
    sys.path.insert(0, root)
    import gymlike
    gymlike.install_isaacgym_alias()
    import legged_gym.envs  # noqa: F401  (registers the tasks)
    from legged_gym.utils import get_args, task_registry
    argv = sys.argv
    sys.argv = ["train.py", f"--task={task}", "--headless", f"--num_envs={num_envs}"]
    try:
        args = get_args()
    finally:
        sys.argv = argv
    env, _ = task_registry.make_env(name=task, args=args)
    return env


def run_task(root, task, num_envs=16, steps=100):
    """(in a child process) build, reset and step one IsaacGymEnvs task."""
    import gymlike  # noqa: F401  (first, as Isaac Gym code imports isaacgym before torch)
    import torch
    env = make_client_task(root, task, num_envs)
    env.reset()
    torch.manual_seed(0)
    bad = 0
    t0 = time.perf_counter()
    for _ in range(steps):
        out = env.step(torch.rand((env.num_envs, env.num_actions)) * 2 - 1)
        obs, rew = out[0], out[2 if len(out) == 5 else 1]      # (legged_gym: obs, privileged obs, rew, ...)
        if isinstance(obs, dict):      # (the DeXtreme tasks return a dict of observation groups)
            o = obs["obs"] if "obs" in obs else torch.cat([v.flatten(1) for v in obs.values()], 1)
        else:
            o = obs
        bad += int(not (torch.isfinite(o).all() and torch.isfinite(rew).all()))
    print(f"RESULT {task} steps={steps} non_finite_steps={bad} "
          f"ms_per_step={1e3 * (time.perf_counter() - t0) / steps:.1f}")
    return bad == 0


def run_igenvs(root, tasks):
    legged = is_legged_gym(root)
    tasks = tasks or list(LEGGED_TASKS if legged else TASKS)
    ok = 0
    for task in tasks:
        t0 = time.time()
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "_task", root, task],
                           cwd=client_folder(root), capture_output=True, text=True)
        good = p.returncode == 0 and "non_finite_steps=0" in p.stdout
        ok += good
        print(f"{task:18s} {'runs' if good else 'FAILS':6s} {time.time() - t0:6.0f} s  "
              f"{'' if good else _last_error(p.stderr) or p.stdout.strip()[-200:]}", flush=True)
    print(f"{ok} of {len(tasks)} run")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("examples", "igenvs", "legged", "_task"):
        raise SystemExit(__doc__)
    kind, path, rest = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    if kind == "examples":
        run_examples(path, rest)
    elif kind in ("igenvs", "legged"):
        run_igenvs(path, rest)
    else:
        sys.exit(0 if run_task(path, rest[0], int(os.environ.get("REAL_CLIENTS_ENVS", 16)),
                               int(os.environ.get("REAL_CLIENTS_STEPS", 100))) else 1)
