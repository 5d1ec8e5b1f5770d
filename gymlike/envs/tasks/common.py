"""Small helpers shared by the shipped tasks (creation time only; nothing here runs per step)."""

from __future__ import annotations

import os

import torch

from gymlike import gymapi

_REPO_ASSETS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "assets"))


def asset_root(cfg: dict) -> str:
    """`env.asset.assetRoot` from the config, else the repository's assets/ directory."""
    root = cfg["env"].get("asset", {}).get("assetRoot")
    return os.path.abspath(root) if root else _REPO_ASSETS


def add_ground(task, friction: float = 1.0, restitution: float = 0.0):
    pp = gymapi.PlaneParams()
    pp.normal = (gymapi.Vec3(0.0, 0.0, 1.0) if task.sim_params.up_axis == gymapi.UP_AXIS_Z
                 else gymapi.Vec3(0.0, 1.0, 0.0))
    pp.static_friction = pp.dynamic_friction = float(friction)
    pp.restitution = float(restitution)
    task.gym.add_ground(task.sim, pp)


def env_bounds(spacing: float):
    return gymapi.Vec3(-spacing, -spacing, 0.0), gymapi.Vec3(spacing, spacing, spacing)


def rand_uniform(lo, hi, shape, device):
    return lo + (hi - lo) * torch.rand(shape, device=device)
