"""Task and training configs: YAML files in the IsaacGymEnvs shape plus `key=value` overrides.

    cfg/task/<Task>.yaml     name, physics_engine, seed, env:, sim:, task:
    cfg/train/<Task>PPO.yaml rsl_rl: (OnPolicyRunner config), rl_games: (params: ...)

Overrides use dotted paths into the task config (`env.numEnvs=64`, `sim.dt=0.01`) or into the
train config (`train.rsl_rl.max_iterations=50`); the values are parsed as YAML scalars."""

from __future__ import annotations

import copy
import os

import yaml

CFG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cfg")


def available_tasks() -> list[str]:
    return sorted(f[:-5] for f in os.listdir(os.path.join(CFG_DIR, "task")) if f.endswith(".yaml"))


def canonical_task(task: str) -> str:
    """The task's config name, matched case-insensitively ('cartpole' -> 'Cartpole'); unknown
    names raise ValueError with the closest match and the available tasks."""
    tasks = available_tasks()
    by_lower = {t.lower(): t for t in tasks}
    found = by_lower.get(str(task).lower())
    if found:
        return found
    import difflib
    close = difflib.get_close_matches(str(task).lower(), list(by_lower), n=1, cutoff=0.5)
    hint = f" Did you mean {by_lower[close[0]]!r}?" if close else ""
    raise ValueError(f"unknown task {task!r}.{hint} Available: {', '.join(tasks)}")


def _load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def load_task_config(task: str) -> dict:
    """The task YAML as a plain dict (a fresh copy each call); the name is case-insensitive."""
    return _load(os.path.join(CFG_DIR, "task", f"{canonical_task(task)}.yaml"))


def load_train_config(task: str) -> dict:
    task = canonical_task(task)
    path = os.path.join(CFG_DIR, "train", f"{task}PPO.yaml")
    if not os.path.exists(path):
        raise ValueError(f"no training config for task {task!r} ({path})")
    return _load(path)


def set_path(cfg: dict, dotted: str, value, create: bool = False):
    """cfg['a']['b'] = value for dotted 'a.b'; unknown keys raise KeyError unless create."""
    keys = dotted.split(".")
    node = cfg
    for i, k in enumerate(keys[:-1]):
        if k not in node:
            if not create:
                raise KeyError(f"config override {dotted!r}: no key {'.'.join(keys[:i + 1])!r}")
            node[k] = {}
        node = node[k]
        if not isinstance(node, dict):
            raise KeyError(f"config override {dotted!r}: {'.'.join(keys[:i + 1])!r} is not a section")
    if keys[-1] not in node and not create:
        raise KeyError(f"config override {dotted!r}: no key {dotted!r} (known here: {', '.join(map(str, node))})")
    node[keys[-1]] = value


def parse_value(text: str):
    return yaml.safe_load(text) if text != "" else ""


def apply_overrides(cfg: dict, overrides) -> dict:
    """Apply 'a.b=value' strings or a {dotted: value} dict to a copy of cfg."""
    cfg = copy.deepcopy(cfg)
    items = overrides.items() if isinstance(overrides, dict) else (o.split("=", 1) for o in overrides)
    for key, value in items:
        set_path(cfg, key, parse_value(value) if isinstance(value, str) else value)
    return cfg
