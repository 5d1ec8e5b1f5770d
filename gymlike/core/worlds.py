"""Seed 000: the Newton world layout of a gymlike sim, as numpy arrays (gymlike.world and the
scene loader's `world_arrays` both serve it)."""

from __future__ import annotations

from typing import Any

WORLD_ENTITIES = ("particle", "body", "shape", "joint", "articulation", "equality_constraint")
WORLD_STARTS = tuple(f"{e}_world_start" for e in WORLD_ENTITIES) + (
    "joint_dof_world_start", "joint_coord_world_start", "joint_constraint_world_start")


def world_arrays(sim: Any) -> dict[str, Any]:
    """The Newton world layout of a gymlike sim (a gymapi Sim handle), as numpy arrays: per-entity
    world ids (`body_world`, `shape_world`, ...; -1: shared, e.g. the ground) and the
    `*_world_start` arrays (world_count + 2 entries: each world's start, the start of the
    trailing global block, the total), plus `world_count`. Finalizes the sim if needed."""
    from .handles import sim_of
    core = sim_of(sim, "world_arrays")
    core.ensure_ready("world_arrays")
    m = core.model
    out = {"world_count": int(m.world_count)}
    for e in WORLD_ENTITIES:
        a = getattr(m, f"{e}_world", None)
        if a is not None:
            out[f"{e}_world"] = a.numpy().copy()
    for name in WORLD_STARTS:
        a = getattr(m, name, None)
        if a is not None:
            out[name] = a.numpy().copy()
    return out
