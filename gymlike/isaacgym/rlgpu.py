"""`isaacgym.rlgpu`: Isaac Gym's binding to its native C++ RL tasks (`create_task_cpu`,
`create_task_gpu`, used by rlgpu-era `parse_task` when `--task_type C++`). gymlike has no native
tasks: importing the module works (task registries import it unconditionally), calling either
function raises NotImplementedError; Python tasks (`--task_type Python`) are unaffected."""

import importlib  # noqa: F401  (names Isaac Gym's module has)
import os  # noqa: F401
import sys  # noqa: F401

from gymlike.core.errors import GymlikeNotImplementedError

from . import gymdeps  # noqa: F401

_REASON = ("Isaac Gym's native C++ RL tasks are not part of gymlike; run the task as a Python task "
           "(task_type 'Python')")


def create_task_cpu(name, cfg_json=None, *args, **kwargs):
    """Not available: see the module docstring."""
    raise GymlikeNotImplementedError(f"isaacgym.rlgpu.create_task_cpu({name!r}): {_REASON}")


def create_task_gpu(name, cfg_json=None, *args, **kwargs):
    """Not available: see the module docstring."""
    raise GymlikeNotImplementedError(f"isaacgym.rlgpu.create_task_gpu({name!r}): {_REASON}")
