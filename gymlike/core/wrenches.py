"""Rigid body forces and torques of the handle API (apply_body_forces,
apply_body_force_at_pos): they act during the next `simulate` call only and add up within it
(`sim.dev.body_force`, cleared by `Sim.simulate`). Before the model exists they are replayed
in call order once it does (Sim.defer). The tensor API's wrench setters are in
tensors.py; both accumulate into the same `sim.dev.body_force` through kernels.user_wrench."""

from __future__ import annotations

import numpy as np
import warp as wp

from . import kernels as K
from .errors import GymlikeValueError
from .types import Vec3, coerce
from .runtime import wp as _wp


# ============================================================================ validation
def vec3(v, what, arg):
    if v is None:
        return None
    v = coerce(Vec3, v, f"{what}: {arg}")
    a = np.array([v.x, v.y, v.z], np.float64)
    if not np.isfinite(a).all():
        raise GymlikeValueError(f"{what}: {arg} must be finite, got {v}")
    return a


# ============================================================================ body forces
def apply_body_wrench(actor, body, force, torque, pos, space, what):
    """Add a force (at `pos`, or at the COM when pos is None) and a torque on one body of the
    actor for the next simulate call. Vectors in `space`; ENV_SPACE positions are relative to
    the env origin, LOCAL_SPACE positions are in the body frame."""
    sim = actor.env.sim
    if force is None and torque is None:
        return
    if not sim.finalized or sim.dev is None or sim.state is None:
        sim.defer(actor, lambda: apply_body_wrench(actor, body, force, torque, pos, space, what))
        return
    b = int(sim.host.actor_body0[actor.sim_index]) + int(body)
    _wp().launch(K.add_one_body_wrench, dim=1, device=sim.device,
                 inputs=[_vec3_or_zero(force), _vec3_or_zero(torque), _vec3_or_zero(pos),
                         int(pos is not None), int(space), b,
                         wp.vec3(*actor.env.origin.astype(np.float32)), sim.state.body_q,
                         sim.model.body_com, sim.dev.body_force])
    sim.dev.forces_pending = True


def _vec3_or_zero(x):
    return wp.vec3(0.0, 0.0, 0.0) if x is None else wp.vec3(*(float(c) for c in x))
