"""IsaacGymEnvs-style RL on gymlike: the `VecTask` base class, tasks, configs and adapters.

    from gymlike.envs import make
    env = make("Cartpole", num_envs=256, seed=0)
    obs_dict = env.reset()
    obs_dict, rew, reset, extras = env.step(actions)

Adapters for training libraries live in `gymlike.envs.adapters` (rsl_rl, rl_games, gymnasium).
"""

from __future__ import annotations

import importlib

from .config import apply_overrides, available_tasks, canonical_task, load_task_config, load_train_config  # noqa: F401
from .vec_task import VecTask, set_seed  # noqa: F401

# task name -> "module:Class" (imported on first use)
TASKS = {
    "Cartpole": "gymlike.envs.tasks.cartpole:Cartpole",
    "Ant": "gymlike.envs.tasks.locomotion:Ant",
    "Humanoid": "gymlike.envs.tasks.locomotion:Humanoid",
    "BallBalance": "gymlike.envs.tasks.ball_balance:BallBalance",
    "ArmReach": "gymlike.envs.tasks.arm_reach:ArmReach",
    "Quadruped": "gymlike.envs.tasks.quadruped:Quadruped",
}


def task_class(name: str):
    if name not in TASKS:
        name = {k.lower(): k for k in TASKS}.get(str(name).lower(), name)
    if name not in TASKS:
        canonical_task(name)          # raises with a did-you-mean
        raise ValueError(f"unknown task {name!r}; available: {', '.join(TASKS)}")
    mod, cls = TASKS[name].split(":")
    return getattr(importlib.import_module(mod), cls)


def make(task: str, num_envs: int | None = None, seed: int | None = None, cfg: dict | None = None,
         overrides=(), sim_device: str = "cpu", rl_device: str = "cpu", headless: bool = True,
         graphics_device_id: int = -1, force_render: bool = False, physics_engine: str | None = None):
    """Create a task from its YAML config (or `cfg`), with optional overrides
    ('env.numEnvs=64' strings or a dict) and the usual num_envs / seed shortcuts."""
    cfg = load_task_config(task) if cfg is None else cfg
    cfg = apply_overrides(cfg, overrides)
    if num_envs is not None:
        cfg["env"]["numEnvs"] = int(num_envs)
    if seed is not None:
        cfg["seed"] = int(seed)
    if physics_engine is not None:
        cfg["physics_engine"] = physics_engine
    cls = task_class(cfg.get("name", task))
    return cls(cfg, rl_device=rl_device, sim_device=sim_device, graphics_device_id=graphics_device_id,
               headless=headless, virtual_screen_capture=False, force_render=force_render)
