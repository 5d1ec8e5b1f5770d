"""Handle-API controls: DOF position/velocity targets, DOF efforts and rigid body forces.

Isaac Gym semantics kept here:
* targets persist until changed; they live in Newton's `Control.joint_target_q` (coordinate
  index) and `Control.joint_target_qd` (DOF index) once the model exists, and on the actor
  before that (Isaac Gym scripts set them inside the creation loop);
* efforts and body forces act during the next `simulate` call only and add up within it
  (`sim.dev.dof_effort` / `sim.dev.body_force`, cleared by `Sim.simulate`);
* a value acts only on DOFs whose drive mode uses it (the drive gains and the effort kernel
  take care of that).
Nothing here finalizes the sim: before the model exists, controls are stored and applied by
`on_finalize` (called once by build_model)."""

from __future__ import annotations

import numpy as np
import warp as wp

from . import kernels as K
from .errors import GymlikeTypeError, GymlikeValueError
from .types import Vec3, coerce, number
from .runtime import wp as _wp


# ============================================================================ kernels
@wp.kernel
def _add_floats(src: wp.array(dtype=wp.float32), idx: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.float32)):
    i = wp.tid()
    dst[idx[i]] = dst[idx[i]] + src[i]


# ============================================================================ validation
def dof_values(values, n, what, arg="values"):
    """A real 1-D array of n finite numbers -> float32 numpy (a copy)."""
    if isinstance(values, np.ndarray):
        arr = values
    elif isinstance(values, (list, tuple)):
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError):
            raise GymlikeTypeError(f"{what}: {arg} must be a 1-D array of {n} numbers") from None
    else:
        raise GymlikeTypeError(f"{what}: {arg} must be a numpy array of {n} float32 values, "
                               f"got {type(values).__name__}")
    if arr.dtype.names is not None or arr.dtype.kind not in "fiu":
        raise GymlikeTypeError(f"{what}: {arg} must hold real numbers (float32), got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise GymlikeValueError(f"{what}: {arg} must have the actor's DOF count ({n}) elements, "
                                f"got shape {arr.shape}")
    out = arr.astype(np.float32)
    if not np.isfinite(out).all():
        bad = int(np.argmax(~np.isfinite(out)))
        raise GymlikeValueError(f"{what}: {arg}[{bad}] is {arr[bad]} (NaN/inf is not allowed)")
    return out


def scalar(v, what, arg="value"):
    v = number(v, f"{what}: {arg}")
    if not np.isfinite(v):
        raise GymlikeValueError(f"{what}: {arg} must be finite, got {v}")
    return v


def vec3(v, what, arg):
    if v is None:
        return None
    v = coerce(Vec3, v, f"{what}: {arg}")
    a = np.array([v.x, v.y, v.z], np.float64)
    if not np.isfinite(a).all():
        raise GymlikeValueError(f"{what}: {arg} must be finite, got {v}")
    return a


# ============================================================================ targets
def _dof_slice(sim, actor):
    h = sim.host
    a = actor.sim_index
    return int(h.actor_dof0[a]), int(h.actor_ndof[a])


def set_targets(actor, values, kind, what):
    """kind 'pos' or 'vel'; values already validated (float32, DOF count)."""
    sim = actor.env.sim
    if not sim.finalized or sim.control is None:
        (actor.pos_targets if kind == "pos" else actor.vel_targets)[:] = values
        return
    from . import props as P
    d0, n = _dof_slice(sim, actor)
    if n == 0:
        return
    dofs = np.arange(d0, d0 + n)
    if kind == "pos":
        P.scatter(sim, sim.control.joint_target_q, sim.host.dof_q[dofs], values)
    else:
        P.scatter(sim, sim.control.joint_target_qd, sim.host.dof_qd[dofs], values)


def get_targets(actor, kind):
    sim = actor.env.sim
    if not sim.finalized or sim.control is None:
        return (actor.pos_targets if kind == "pos" else actor.vel_targets).copy()
    h = sim.host
    a = actor.sim_index
    d0, n = _dof_slice(sim, actor)
    if n == 0:
        return np.zeros(0, np.float32)
    s = slice(d0, d0 + n)
    if kind == "pos":
        q0, nq = int(h.actor_q0[a]), int(h.actor_nq[a])
        return sim.control.joint_target_q[q0:q0 + nq].numpy()[h.dof_q[s] - q0].astype(np.float32)
    q0, nq = int(h.actor_qd0[a]), int(h.actor_nqd[a])
    return sim.control.joint_target_qd[q0:q0 + nq].numpy()[h.dof_qd[s] - q0].astype(np.float32)


def set_target(actor, local, value, kind):
    vals = get_targets(actor, kind)
    vals[local] = value
    set_targets(actor, vals, kind, None)


# ============================================================================ efforts
def apply_efforts(actor, values, local=None):
    """Add efforts (all the actor's DOFs, or one DOF `local`) for the next simulate call."""
    sim = actor.env.sim
    n = actor.asset.dof_count
    if n == 0:
        return
    if local is not None:
        full = np.zeros(n, np.float32)
        full[local] = values
        values = full
    if not sim.finalized or sim.dev is None or sim.control is None:
        if actor.pending_efforts is None:
            actor.pending_efforts = np.zeros(n, np.float32)
        actor.pending_efforts += values
        return
    wp_ = _wp()
    d0, n = _dof_slice(sim, actor)
    src = wp_.array(values.astype(np.float32), dtype=wp_.float32, device=sim.device)
    idx = wp_.array(np.arange(d0, d0 + n, dtype=np.int32), dtype=wp_.int32, device=sim.device)
    wp_.launch(_add_floats, dim=n, inputs=[src, idx, sim.dev.dof_effort], device=sim.device)
    sim.dev.efforts_pending = True


# ============================================================================ body forces
def apply_body_wrench(actor, body, force, torque, pos, space, what):
    """Add a force (at `pos`, or at the COM when pos is None) and a torque on one body of the
    actor for the next simulate call. Vectors in `space`; ENV_SPACE positions are relative to
    the env origin, LOCAL_SPACE positions are in the body frame."""
    sim = actor.env.sim
    if force is None and torque is None:
        return
    if not sim.finalized or sim.dev is None or sim.state is None:
        sim.pending_wrenches.append((actor, body, force, torque, pos, space, what))
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


# ============================================================================ finalize
def on_finalize(sim, actors):
    """Apply controls recorded before the model existed: targets (persist), efforts and body
    forces (act during the first simulate call)."""
    from . import props as P
    h = sim.host
    if h.num_dofs:
        pos = np.concatenate([a.pos_targets for a in actors])
        vel = np.concatenate([a.vel_targets for a in actors])
        P.scatter(sim, sim.control.joint_target_q, h.dof_q, pos)
        P.scatter(sim, sim.control.joint_target_qd, h.dof_qd, vel)
        if any(a.pending_efforts is not None for a in actors):
            eff = np.concatenate([a.pending_efforts if a.pending_efforts is not None
                                  else np.zeros(a.asset.dof_count, np.float32) for a in actors])
            sim.dev.dof_effort.assign(eff.astype(np.float32))
            sim.dev.efforts_pending = True
    for a in actors:
        a.pending_efforts = None
    pending = list(sim.pending_wrenches)
    sim.pending_wrenches.clear()
    for (actor, body, force, torque, pos, space, what) in pending:
        apply_body_wrench(actor, body, force, torque, pos, space, what)
