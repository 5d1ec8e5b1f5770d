"""Rigid body forces and torques, for the handle API (apply_body_forces, apply_body_force_at_pos)
and the tensor API (apply_rigid_body_force_tensors, apply_rigid_body_force_at_pos_tensors): both
accumulate into `sim.dev.body_force` through kernels.user_wrench; they act during the next
`simulate` call only and add up within it (cleared by `Sim.simulate`). Before the model exists,
handle-API forces are replayed in call order once it does (Sim.defer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import warp as wp

from .. import kernels
from ..errors import GymlikeValueError
from ..types import Vec3, coerce
from ..runtime import wp as _wp

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..enums import CoordinateSpace
    from ..sim import Actor, Sim


# ============================================================================ validation
def vec3(v: Vec3 | Sequence[float] | None, what: str, arg: str) -> np.ndarray | None:
    """`v` as a (3,) float64 array, checked finite; None stays None."""
    if v is None:
        return None
    v = coerce(Vec3, v, f"{what}: {arg}")
    a = np.array([v.x, v.y, v.z], np.float64)
    if not np.isfinite(a).all():
        raise GymlikeValueError(f"{what}: {arg} must be finite, got {v}")
    return a


# ============================================================================ body forces
def apply_body_wrench(actor: Actor, body: int, force: np.ndarray | None, torque: np.ndarray | None,
                      pos: np.ndarray | None, space: CoordinateSpace, what: str) -> None:
    """Add a force (at `pos`, or at the COM when pos is None) and a torque on one body of the
    actor for the next simulate call. Vectors in `space`; ENV_SPACE positions are relative to
    the env origin, LOCAL_SPACE positions are in the body frame."""
    sim = actor.env.sim
    if force is None and torque is None:
        return
    if not sim.finalized or sim.dev is None or sim.state is None:
        sim.defer(actor, lambda: apply_body_wrench(actor, body, force, torque, pos, space, what), what)
        return
    b = int(sim.host.actor_body0[actor.sim_index]) + int(body)
    _wp().launch(kernels.add_one_body_wrench, dim=1, device=sim.device,
                 inputs=[_vec3_or_zero(force), _vec3_or_zero(torque), _vec3_or_zero(pos),
                         int(pos is not None), int(space), b,
                         wp.vec3(*actor.env.origin.astype(np.float32)), sim.state.body_q,
                         sim.model.body_com, sim.dev.body_force])
    sim.dev.forces_pending = True


def _vec3_or_zero(x):
    return wp.vec3(0.0, 0.0, 0.0) if x is None else wp.vec3(*(float(c) for c in x))


def add_rows(sim: Sim, force: wp.array | None, torque: wp.array | None, pos: wp.array | None, space: int,
             launch: Callable) -> None:
    """Per-body force / torque / position rows (bodies, 3; Warp arrays, None when not given) for
    the next simulate; non-finite or absurd values are flagged for the NaN guard."""
    from .. import tensor_kernels
    dummy = force if force is not None else torque
    m, st, d = sim.model, sim.state, sim.dev
    launch(("forces", id(st)), tensor_kernels.add_body_wrenches, sim.host.num_bodies,
           (force if force is not None else dummy, torque if torque is not None else dummy,
            pos if pos is not None else dummy, int(force is not None), int(torque is not None),
            int(pos is not None), space, st.body_q, m.body_com, d.body_origin, d.body_force, d.body_env,
            d.nan_worlds, d.bad_input, d.nan_count))
    d.forces_pending = True
