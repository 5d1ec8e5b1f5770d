"""Collision shapes as Isaac Gym's PhysX engine sees them (SIM_PHYSX).

Two PhysX rules that decide how many contacts a scene makes:

* **Contact offset.** PhysX makes contacts between two shapes only closer than the sum of their
  contact offsets (`PhysXParams.contact_offset`, 0.02 m by default; IsaacGymEnvs tasks set
  0.002-0.02 m). Newton's counterpart is the per-shape contact gap, also summed per pair, whose
  default is 0.1 m: left there, every pair of convex parts within 0.2 m of each other makes
  contacts (IsaacGymEnvs' Trifinger: ~46,000 per env, its 768 convex finger parts against each
  other and its stage, median 0.16 m apart). A shape's gap is therefore the sim's
  `physx.contact_offset` (what `get_asset_rigid_shape_properties` then reports as the shape's
  `contact_offset`, settable per shape as in Isaac Gym).
* **Convex meshes.** PhysX collides a triangle mesh of an actor as one convex hull (or, with
  `AssetOptions.vhacd_enabled`, as V-HACD's convex parts); only `add_triangle_mesh` shapes
  collide as triangles. MuJoCo's own collision hulls meshes the same way; Newton's collision
  pipeline (taken when a sim has a static triangle mesh or its envs share one world) would
  collide them triangle by triangle, so they become convex hulls here, as in Isaac Gym.

SIM_FLEX keeps Newton's gap and triangle meshes (FleX collides triangle meshes directly, and
`contact_offset` is PhysX-only), and so do scene files (gymlike.scene: their physics is Newton's,
with the gaps the scene gives).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .enums import SimType
from .runtime import newton as _newton

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import newton

# (`sim` is a core.sim.Sim, left unimported even for type checkers: sim.py imports this module)


def physx_rules(sim: Any) -> bool:
    """Whether the sim collides by PhysX's rules (SIM_PHYSX)."""
    return sim is not None and getattr(sim, "type", None) == SimType.SIM_PHYSX


def contact_offset(sim: Any) -> float | None:
    """The contact gap of a SIM_PHYSX sim's shapes (its `physx.contact_offset`), else None
    (Newton's default gap)."""
    return float(sim.params.physx.contact_offset) if physx_rules(sim) else None


def as_physx_shapes(b: newton.ModelBuilder, sim: Any, make: Callable | None = None) -> None:
    """On SIM_PHYSX: an asset's collision meshes become convex hulls and every shape's contact
    gap the sim's contact offset (sub-builder `b`, after any V-HACD decomposition), unless the
    asset's builder function `make` says its shapes are Newton's (`make.newton_shapes`)."""
    if not physx_rules(sim) or getattr(make, "newton_shapes", False):
        return
    newton = _newton()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    meshes = [s for s, t in enumerate(b.shape_type) if t == newton.GeoType.MESH and b.shape_flags[s] & collide]
    if meshes:
        b.approximate_meshes(method="convex_hull", shape_indices=meshes, keep_visual_shapes=True)
    gap = contact_offset(sim)
    b.shape_gap = [gap] * len(b.shape_gap)
    b.rigid_gap = gap
