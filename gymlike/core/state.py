"""Handle-API state access: rigid body states and DOF states as Isaac Gym structured arrays.

Frames: every position is in its env's frame (Newton position minus the env origin), at actor,
env and sim level alike, as in the tensor API. Writes go through joint coordinates so every solver sees them:
body poses -> eval_ik -> joint_q -> eval_fk (MuJoCo reads joint_q, XPBD reads body_q)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import props
from .tables import spans
from .enums import STATE_POS, STATE_VEL
from .errors import GymlikeTypeError, GymlikeValueError
from .runtime import call_name, newton as _newton, wp as _wp


# ---------------------------------------------------------------------------- validation
from .types import DOF_STATE_DTYPE, RIGID_BODY_STATE_DTYPE

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


    from .assets.record import Asset
    from .sim import Actor, Env, Sim
    from .tables import HostTables
def _flags(flags, what):
    if isinstance(flags, bool) or not isinstance(flags, (int, np.integer)) or not 0 <= int(flags) <= 3:
        raise GymlikeValueError(f"{what}: flags must be STATE_NONE/POS/VEL/ALL (0..3), got {flags!r}")
    return int(flags)


def _check_array(arr, dtype, n, what):
    if not isinstance(arr, np.ndarray):
        raise GymlikeTypeError(f"{what}: expected a numpy array of {dtype_name(dtype)}, got {type(arr).__name__}")
    if arr.dtype != dtype:
        raise GymlikeTypeError(f"{what}: expected dtype {dtype_name(dtype)}, got {arr.dtype}")
    if arr.shape != (n,):
        raise GymlikeValueError(f"{what}: expected {n} element(s), got shape {arr.shape}")
    flat = arr.view(np.float32)
    if not np.isfinite(flat).all():
        raise GymlikeValueError(f"{what}: the array contains NaN or inf")


def _check_poses(states, flags, what, arg="states"):
    """Body states whose poses are written must hold rotations: a zero quaternion is refused
    when the write is made, before prepare_sim (deferred) as after it."""
    if not flags & STATE_POS or not len(states):
        return
    q = states.view(np.float32).reshape(-1, 13)[:, 3:7]
    zero = np.linalg.norm(q, axis=1) < ZERO_QUAT_NORM
    if zero.any():
        i = int(np.argmax(zero))
        where = f"{arg}[{i}]['pose']['r']" if arg else "the rotation"
        raise GymlikeValueError(f"{what}: {where} is a zero quaternion {tuple(q[i].tolist())}; "
                                "a pose needs a rotation (a unit quaternion, e.g. (0, 0, 0, 1))")


ZERO_QUAT_NORM = 1e-6    # below this a quaternion has no direction to normalize to


def dtype_name(dtype: np.dtype) -> str:
    """The gymapi name of a state dtype, for messages."""
    return {RIGID_BODY_STATE_DTYPE: "gymapi.RigidBodyState.dtype",
            DOF_STATE_DTYPE: "gymapi.DofState.dtype"}.get(dtype, str(dtype))


# ---------------------------------------------------------------------------- rigid bodies
def _body_rows(sim, b0, n):
    """(n, 13) float32 [pose(7), vel(6)] of Newton bodies b0..b0+n in the sim frame."""
    st = sim.state
    q = st.body_q[b0:b0 + n].numpy()
    qd = st.body_qd[b0:b0 + n].numpy()
    return np.concatenate([q, qd], 1).astype(np.float32)


def sim_origins(sim: Sim) -> np.ndarray:
    """(num_bodies, 3) env origin of every body (sim-level reads and writes)."""
    return sim.host.body_origin


def _rows_to_states(rows, origin, flags):
    out = np.zeros(len(rows), RIGID_BODY_STATE_DTYPE)
    v = out.view(np.float32).reshape(-1, 13)
    if flags & STATE_POS:
        v[:, 0:7] = rows[:, 0:7]
        if origin is not None:
            v[:, 0:3] -= origin.astype(np.float32)
    if flags & STATE_VEL:
        v[:, 7:13] = rows[:, 7:13]
    return out


def get_body_states(sim: Sim, b0: int, n: int, origin: np.ndarray | None, flags: int,
                    what: str) -> np.ndarray:
    """States of bodies b0 .. b0 + n - 1 as a (n,) RigidBodyState.dtype array, positions relative
    to `origin` (m; None: world frame)."""
    flags = _flags(flags, what)
    sim.ensure_ready(what)
    return _rows_to_states(_body_rows(sim, b0, n), origin, flags)


def defer_body_states(actor: Actor, states: np.ndarray, flags: int) -> None:
    """Record body states set before the model exists (read back by actor_rest_body_states)."""
    cur = actor_rest_body_states(actor, STATE_POS | STATE_VEL)
    if flags & STATE_POS:
        cur["pose"] = states["pose"]
    if flags & STATE_VEL:
        cur["vel"] = states["vel"]
    actor.pending_body_states = cur


def defer_dof_states(actor: Actor, states: np.ndarray, flags: int) -> None:
    """Record DOF states set before the model exists (read back by actor_default_dof_states)."""
    cur = actor_default_dof_states(actor, STATE_POS | STATE_VEL)
    if flags & STATE_POS:
        cur["pos"] = states["pos"]
    if flags & STATE_VEL:
        cur["vel"] = states["vel"]
    actor.pending_dof_state = cur
    actor.pending_body_states = None   # the link poses now follow these DOF positions


def rest_body_states(actors: Sequence[Actor], flags: int, what: str) -> np.ndarray:
    """Before the model exists: the actors' authored body states, concatenated (a read does not
    close creation; Isaac Gym's terrain example reads states, then adds a mesh)."""
    flags = _flags(flags, what)
    parts = [actor_rest_body_states(a, flags) for a in actors]
    return np.concatenate(parts) if parts else np.zeros(0, RIGID_BODY_STATE_DTYPE)


def set_actor_body_states(actor: Actor, states: np.ndarray, flags: int, what: str) -> None:
    """Write an actor's body states (env frame); before the model exists they are recorded and
    applied in call order once it does."""
    sim = actor.env.sim
    states = states.copy()
    if not sim.finalized:
        defer_body_states(actor, states, flags)
        sim.defer(actor, lambda: set_actor_body_states(actor, states, flags, what), what)
        return
    set_body_states(sim, int(sim.host.actor_body0[actor.sim_index]), states, actor.env.origin, flags, what)


def defer_actors_body_states(actors: Sequence[Actor], states: np.ndarray, flags: int) -> bool:
    """Before the model exists: body states for consecutive actors' bodies (each actor's rows in
    turn), recorded per actor (see set_actor_body_states)."""
    k = 0
    for a in actors:
        n = a.asset.body_count
        set_actor_body_states(a, states[k:k + n], flags, "set_sim_rigid_body_states")
        k += n
    return True


def actor_rest_body_states(actor: Actor, flags: int) -> np.ndarray:
    """Body states before the sim's model exists: the last body states set, or forward kinematics
    of the asset at the pending (or default) DOF positions placed at the actor pose."""
    if actor.pending_body_states is not None:
        return _rows_to_states(actor.pending_body_states.view(np.float32).reshape(-1, 13), None, flags)
    wp = _wp()
    newton = _newton()
    asset = actor.asset
    model = asset.fk_model(actor.scale)
    jq = model.joint_q.numpy().copy()
    if actor.pending_dof_state is not None and asset.dof_count:
        jq[asset.dof_q] = actor.pending_dof_state["pos"]
    state = model.state()
    state.joint_q.assign(jq)
    newton.eval_fk(model, state.joint_q, state.joint_qd, state)
    X = wp.transform(wp.vec3(*actor.pose.p.to_tuple()), wp.quat(*actor.pose.r.to_tuple()))
    rows = np.zeros((asset.body_count, 13), np.float32)
    for i, bq in enumerate(state.body_q.numpy()):
        rows[i, :7] = np.array(wp.transform_multiply(X, wp.transform(wp.vec3(*bq[:3]), wp.quat(*bq[3:]))), np.float32)
    return _rows_to_states(rows, None, flags)


def set_body_states(sim: Sim, b0: int, states: np.ndarray, origin: np.ndarray | None, flags: int,
                    what: str) -> None:
    """Write body states (structured array) of Newton bodies b0..b0+len-1 (whole actors)."""
    flags = _flags(flags, what)
    if flags == 0:
        return
    wp = _wp()
    newton = _newton()
    h = sim.host
    n = len(states)
    rows = states.view(np.float32).reshape(-1, 13).astype(np.float32).copy()
    if origin is not None:
        rows[:, 0:3] += origin.astype(np.float32)
    q = rows[:, 0:7]
    norms = np.linalg.norm(q[:, 3:7], axis=1)     # (zero quaternions were refused: _check_poses)
    q[:, 3:7] /= np.maximum(norms, 1e-12)[:, None]
    sim.sync_joint_state()
    st = sim.state
    idx = np.arange(b0, b0 + n)
    if flags & STATE_POS:
        props.scatter(sim, st.body_q, idx, q, wp.transform)
    if flags & STATE_VEL:
        props.scatter(sim, st.body_qd, idx, rows[:, 7:13], wp.spatial_vector)
    # actors touched by this write
    a_lo = np.searchsorted(h.actor_body0, b0, side="right") - 1
    a_hi = np.searchsorted(h.actor_body0, b0 + n, side="left")
    actors = np.arange(max(a_lo, 0), a_hi)
    if flags & STATE_POS:
        _move_fixed_roots(sim, actors, idx, q)
    arts = wp.array(h.actor_articulation[actors].astype(np.int32), dtype=wp.int32, device=sim.device)
    newton.eval_ik(sim.model, st, st.joint_q, st.joint_qd, indices=arts)
    newton.eval_fk(sim.model, st.joint_q, st.joint_qd, st, indices=arts)
    sim.state_written(actors)


def _move_fixed_roots(sim, actors, idx, q):
    """A fixed-base actor's root pose lives in its root joint's parent transform (a Model edit)."""
    wp = _wp()
    h = sim.host
    fixed = [a for a in actors if not h.actor_floating[a]]
    if not fixed:
        return
    X_c = sim.model.joint_X_c.numpy()
    rows, vals = [], []
    for a in fixed:
        rb = int(h.actor_body0[a])
        k = int(np.nonzero(idx == rb)[0][0]) if (idx == rb).any() else -1
        if k < 0:
            continue
        j = int(h.actor_joint0[a])
        X_wc = wp.transform(wp.vec3(*q[k, 0:3]), wp.quat(*q[k, 3:7]))
        xc = X_c[j]
        X_p = wp.transform_multiply(X_wc, wp.transform(wp.vec3(*xc[0:3]), wp.quat(*xc[3:7])))
        rows.append(j)
        vals.append(np.array(X_p, np.float32))
    if rows:
        props.scatter(sim, sim.model.joint_X_p, rows, np.array(vals, np.float32), wp.transform)
        props.notify(sim, "JOINT_PROPERTIES", now=True)


# ---------------------------------------------------------------------------- DOFs
def get_dof_states(sim: Sim, actor_index: int, flags: int, what: str) -> np.ndarray:
    """The actor's DOF states (position m or rad, velocity) as a (dofs,) DofState.dtype array."""
    flags = _flags(flags, what)
    h = sim.host
    sim.sync_joint_state()
    s = slice(int(h.actor_dof0[actor_index]), int(h.actor_dof0[actor_index] + h.actor_ndof[actor_index]))
    out = np.zeros(s.stop - s.start, DOF_STATE_DTYPE)
    if out.size == 0:
        return out
    q0, nq = int(h.actor_q0[actor_index]), int(h.actor_nq[actor_index])
    qd0, nqd = int(h.actor_qd0[actor_index]), int(h.actor_nqd[actor_index])
    if flags & STATE_POS:
        out["pos"] = sim.joint_state.joint_q[q0:q0 + nq].numpy()[h.dof_q[s] - q0]
    if flags & STATE_VEL:
        out["vel"] = sim.joint_state.joint_qd[qd0:qd0 + nqd].numpy()[h.dof_qd[s] - qd0]
    return out


def actor_default_dof_states(actor: Actor, flags: int) -> np.ndarray:
    """DOF states before the model exists: the last ones set, else the asset's default positions
    and zero velocity; (dofs,) DofState.dtype."""
    out = np.zeros(actor.asset.dof_count, DOF_STATE_DTYPE)
    if actor.pending_dof_state is not None:
        out[:] = actor.pending_dof_state
    else:
        jq = np.asarray(actor.asset.builder(actor.scale, True).joint_q, np.float32)
        out["pos"] = jq[actor.asset.dof_q] if len(jq) else 0.0
    if not flags & STATE_POS:
        out["pos"] = 0
    if not flags & STATE_VEL:
        out["vel"] = 0
    return out


def set_dof_states(sim: Sim, actor_indices: Sequence[int] | np.ndarray, states: np.ndarray, flags: int,
                   what: str) -> None:
    """Write DOF states of whole actors (states concatenated in actor order)."""
    flags = _flags(flags, what)
    if flags == 0 or len(states) == 0:
        return
    wp = _wp()
    newton = _newton()
    h = sim.host
    dofs = actor_dofs(h, np.asarray(actor_indices, np.int64))
    sim.sync_joint_state()
    st = sim.state
    if flags & STATE_POS:
        props.scatter(sim, st.joint_q, h.dof_q[dofs], states["pos"].astype(np.float32))
    if flags & STATE_VEL:
        props.scatter(sim, st.joint_qd, h.dof_qd[dofs], states["vel"].astype(np.float32))
    arts = wp.array(h.actor_articulation[np.asarray(actor_indices)].astype(np.int32), dtype=wp.int32, device=sim.device)
    newton.eval_fk(sim.model, st.joint_q, st.joint_qd, st, indices=arts)
    sim.state_written(actor_indices)


# ---------------------------------------------------------------------------- frames
def joint_world_frames(sim: Sim, actor_index: int, asset: Asset) -> tuple[np.ndarray, np.ndarray]:
    """World transforms (n_ig_joints, 7) of the actor's Isaac Gym joints: parent body pose *
    joint_X_p; and the world axis of every DOF (n_dofs, 3)."""
    wp = _wp()
    h = sim.host
    j0 = int(h.actor_joint0[actor_index])
    model = sim.model
    parents = model.joint_parent.numpy()
    X_p = model.joint_X_p.numpy()
    axes = model.joint_axis.numpy()
    body_q = sim.state.body_q.numpy()
    frames = []
    for nj in asset.joint_newton:
        j = j0 + int(nj)
        p = parents[j]
        Xp = wp.transform(wp.vec3(*X_p[j][0:3]), wp.quat(*X_p[j][3:7]))
        if p >= 0:
            Xb = wp.transform(wp.vec3(*body_q[p][0:3]), wp.quat(*body_q[p][3:7]))
            Xp = wp.transform_multiply(Xb, Xp)
        frames.append(np.array(Xp, np.float64))
    frames = np.array(frames, np.float64).reshape(-1, 7)
    dof_axes = np.zeros((asset.dof_count, 3))
    for k in range(asset.dof_count):
        X = frames[asset.dof_joint[k]]
        q = wp.quat(*X[3:7])
        a = axes[int(h.actor_qd0[actor_index]) + int(asset.dof_qd[k])]
        dof_axes[k] = np.array(wp.quat_rotate(q, wp.vec3(*a)))
    return frames, dof_axes


# ---------------------------------------------------------------------------- handle API entry points
# (gymapi delegates here; `what` is the Gym method being run, runtime.call_name)
def actor_body_states(actor: Actor, flags: int) -> np.ndarray:
    """An actor's rigid body states in its env's frame (before the model exists: authored)."""
    what = call_name()
    sim = actor.env.sim
    if not sim.finalized:
        return actor_rest_body_states(actor, _flags(flags, what))
    return get_body_states(sim, int(sim.host.actor_body0[actor.sim_index]), actor.asset.body_count,
                           actor.env.origin, flags, what)


def _checked_body_states(states, n, flags, what, arg="states"):
    """The validation every body-state write gets where it is made: type, shape, finite values,
    flags, rotations. Returns the flags."""
    _check_array(states, RIGID_BODY_STATE_DTYPE, n, what)
    flags = _flags(flags, what)
    _check_poses(states, flags, what, arg)
    return flags


def set_actor_body_states_checked(actor: Actor, states: np.ndarray, flags: int) -> bool:
    """Check, then write the actor's body states ((bodies,) RigidBodyState.dtype, env frame)."""
    what = call_name()
    flags = _checked_body_states(states, actor.asset.body_count, flags, what)
    set_actor_body_states(actor, states, flags, what)
    return True


def env_body_states(env: Env, flags: int) -> np.ndarray:
    """The env's body states, (bodies,) RigidBodyState.dtype in the env frame."""
    what = call_name()
    if not env.sim.finalized:
        return rest_body_states(env.actors, flags, what)
    return get_body_states(env.sim, env.sim.env_start(env, "body"), env.body_count, env.origin, flags, what)


def set_env_body_states(env: Env, states: np.ndarray, flags: int) -> bool:
    """Check, then write the env's body states ((bodies,) RigidBodyState.dtype, env frame)."""
    what = call_name()
    flags = _checked_body_states(states, env.body_count, flags, what)
    if not env.sim.finalized:
        return defer_actors_body_states(env.actors, states, flags)
    set_body_states(env.sim, env.sim.env_start(env, "body"), states, env.origin, flags, what)
    return True


def sim_body_states(sim: Sim, flags: int) -> np.ndarray:
    """Every body's state, each in its env's frame (as the rigid body state tensor)."""
    what = call_name()
    if not sim.finalized:
        return rest_body_states(sim.all_actors(), flags, what)
    return get_body_states(sim, 0, sim.total("body"), sim_origins(sim), flags, what)


def set_sim_body_states(sim: Sim, states: np.ndarray, flags: int) -> bool:
    """Check, then write every body's state ((bodies,) RigidBodyState.dtype, each in its env frame)."""
    what = call_name()
    flags = _checked_body_states(states, sim.total("body"), flags, what)
    if not sim.finalized:
        return defer_actors_body_states(sim.all_actors(), states, flags)
    set_body_states(sim, 0, states, sim_origins(sim), flags, what)
    return True


def actor_dof_states(actor: Actor, flags: int) -> np.ndarray:
    """The actor's DOF states, (dofs,) DofState.dtype (before the model exists: the defaults)."""
    what = call_name()
    if not actor.env.sim.finalized:
        return actor_default_dof_states(actor, _flags(flags, what))
    return get_dof_states(actor.env.sim, actor.sim_index, flags, what)


def set_actor_dof_states_checked(actor: Actor, states: np.ndarray, flags: int) -> bool:
    """Check, then write the actor's DOF states ((dofs,) DofState.dtype)."""
    what = call_name()
    _check_array(states, DOF_STATE_DTYPE, actor.asset.dof_count, what)
    flags = _flags(flags, what)
    if not actor.env.sim.finalized:
        if actor.replays:   # keep the order of earlier deferred body-state writes
            states = states.copy()
            actor.env.sim.defer(actor, lambda: set_dof_states(actor.env.sim, [actor.sim_index], states, flags, what),
                                what)
        defer_dof_states(actor, states, flags)
        return True
    set_dof_states(actor.env.sim, [actor.sim_index], states, flags, what)
    return True


def actor_joint_transforms(actor: Actor) -> np.ndarray:
    """The actor's joint frames in its env's frame (Transform.dtype array)."""
    from .types import TRANSFORM_DTYPE
    actor.env.sim.ensure_ready(call_name())
    frames, _ = joint_world_frames(actor.env.sim, actor.sim_index, actor.asset)
    out = np.zeros(len(frames), TRANSFORM_DTYPE)
    v = out.view(np.float32).reshape(-1, 7)
    v[:] = frames
    v[:, 0:3] -= actor.env.origin
    return out


def actor_dof_frames(actor: Actor) -> np.ndarray:
    """Origin (env frame) and world axis of each DOF (DofFrame.dtype array)."""
    from .types import DOF_FRAME_DTYPE
    actor.env.sim.ensure_ready(call_name())
    frames, axes = joint_world_frames(actor.env.sim, actor.sim_index, actor.asset)
    out = np.zeros(actor.asset.dof_count, DOF_FRAME_DTYPE)
    v = out.view(np.float32).reshape(-1, 6)
    if actor.asset.dof_count:
        v[:, 0:3] = frames[actor.asset.dof_joint, 0:3] - actor.env.origin
        v[:, 3:6] = axes
    return out


def body_state(env: Env, handle: int, flags: int) -> np.void:
    """One rigid body's state row, by env-domain body handle."""
    actor, i = _actor_at(env, handle, "body")
    return actor_body_states(actor, flags)[i]


def vec_body_poses(pairs: Sequence[tuple[Env, int]]) -> np.ndarray:
    """Poses (Transform.dtype) of the bodies of (env, env-domain body handle) pairs."""
    from .handles import env_of
    from .types import TRANSFORM_DTYPE
    out = np.zeros(len(pairs), TRANSFORM_DTYPE)
    for k, (e, h) in enumerate(pairs):
        out[k] = body_state(env_of(e), h, STATE_POS)["pose"]
    return out


def set_body_field(env: Env, handle: int, write: Callable[[np.void], object]) -> bool:
    """Read-modify-write of one body's state row (`write(row)`), by env-domain body handle."""
    actor, i = _actor_at(env, handle, "body")
    st = actor_body_states(actor, STATE_POS | STATE_VEL)
    write(st[i])
    what = call_name()
    flags = _checked_body_states(st, actor.asset.body_count, STATE_POS | STATE_VEL, what, arg=None)
    set_actor_body_states(actor, st, flags, what)
    return True


def _actor_at(env, handle, kind):
    from .handles import actor_at
    return actor_at(env, handle, kind, call_name())


def actor_dofs(h: HostTables, actors: np.ndarray) -> np.ndarray:
    """The DOF indices (DOMAIN_SIM) of `actors` (host int array), actor by actor."""
    return spans(h.actor_dof0[actors], h.actor_ndof[actors])
