"""IsaacGymEnvs-style RL on gymlike: the `VecTask` base class, tasks, configs and adapters.

    from gymlike.envs import make
    env = make("Cartpole", num_envs=256, seed=0)
    obs_dict = env.reset()
    obs_dict, rew, reset, extras = env.step(actions)

Adapters for training libraries live in `gymlike.envs.adapters` (rsl_rl, rl_games, gymnasium).
"""

from __future__ import annotations

from .config import apply_overrides, available_tasks, canonical_task, load_task_config, load_train_config  # noqa: F401
from .vec_task import VecTask, set_seed  # noqa: F401

# task name -> "module of gymlike.envs.tasks:Class" (imported on first use)
TASKS = {
    "Cartpole": "cartpole:Cartpole",
    "Ant": "locomotion:Ant",
    "Humanoid": "locomotion:Humanoid",
    "BallBalance": "ball_balance:BallBalance",
    "ArmReach": "arm_reach:ArmReach",
    "Quadruped": "quadruped:Quadruped",
}


def task_class(name: str):
    if name not in TASKS:
        name = {k.lower(): k for k in TASKS}.get(str(name).lower(), name)
    if name not in TASKS:
        canonical_task(name)          # raises with a did-you-mean
        raise ValueError(f"unknown task {name!r}; available: {', '.join(TASKS)}")
    mod, cls = TASKS[name].split(":")
    from .tasks import arm_reach, ball_balance, cartpole, locomotion, quadruped   # (they load torch)
    modules = {"arm_reach": arm_reach, "ball_balance": ball_balance, "cartpole": cartpole,
               "locomotion": locomotion, "quadruped": quadruped}
    return getattr(modules[mod], cls)


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
