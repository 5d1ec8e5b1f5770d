"""What drives the DOFs: position and velocity targets, and efforts (actuation forces), for the
handle API and the tensor API through one writer (`write`: one kernel, the device index tables
of sim.dev). Drive gains and modes are DOF properties (props.py); the drive law is in
kernels.drive_gains / apply_dof_efforts.

Isaac Gym semantics kept here:
* targets persist until changed; they live in Newton's `Control.joint_target_q` (coordinate
  index) and `Control.joint_target_qd` (DOF index) once the model exists, and on the actor
  before that (Isaac Gym scripts set them inside the creation loop; `on_finalize` applies them);
* efforts act during the next `simulate` call only: the handle API's add up within it, the
  tensor API's replace (`sim.dev.dof_effort`, cleared by `Sim.simulate`);
* a value acts only on DOFs whose drive mode uses it: a target is written only to the DOFs
  whose mode takes it (kernels.target_taken), an effort acts only on DOF_MODE_EFFORT DOFs (the
  effort kernel); the drive's stiffness and damping act in every mode (kernels.drive_gains).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .enums import DofDriveMode
from .errors import GymlikeTypeError, GymlikeValueError
from .runtime import call_name, kernels as _kernels, wp as _wp
from .types import number

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import warp as wp

    from .sim import Actor, Sim


# index into kernels.BAD_INPUT_KINDS of each kind of value
KINDS = {"pos_target": 0, "vel_target": 1, "actuation": 2}


# ============================================================================ one writer
def write(sim: Sim, kind: str, src: wp.array, ids: wp.array, count: int, *, local: bool = False,
          accumulate: bool = False, launch: Callable | None = None) -> None:
    """Write DOF values of `count` actors (`ids`: int32 Warp array of DOMAIN_SIM actor indices)
    from `src` (float32 Warp array: one row per DOMAIN_SIM DOF, or with `local` the one actor's
    values). `launch`: the tensor API's recorded launcher (None: a plain launch)."""
    d, c = sim.dev, sim.control
    if kind != "actuation":
        sim.backend.targets_written()
    if kind == "pos_target":
        dst, index = c.joint_target_q, d.dof_q
    elif kind == "vel_target":
        dst, index = c.joint_target_qd, d.dof_qd
    else:
        dst, index = d.dof_effort, d.dof_identity
        d.efforts_pending = True
    args = (src, int(local), ids, d.actor_dof0, d.actor_ndof, index, dst, int(accumulate), d.actor_env,
            KINDS[kind], d.nan_worlds, d.bad_input, d.nan_count, d.dof_mode)
    if launch is not None:
        launch(kind, _kernels().write_dof_values, count, args)
    else:
        _wp().launch(_kernels().write_dof_values, dim=count, inputs=list(args), device=sim.device)


def write_all_host(sim: Sim, kind: str, values: np.ndarray, views: dict) -> bool:
    """Every DOF's values (float32 numpy, DOMAIN_SIM order) as `write` writes them for all
    actors, by numpy on the CPU (the Warp tables' memory; `views`: a dict the caller keeps for
    the numpy views): no staging copy, no launch. False, with nothing written, when a value is
    NaN/inf or beyond kernels.BAD_INPUT_LIMIT: `write` then writes them and flags their envs
    for the NaN guard."""
    if not np.abs(values).max(initial=0.0) <= float(_kernels().BAD_INPUT_LIMIT):       # (NaN: False)
        return False
    d, c, h = sim.dev, sim.control, sim.host
    dst = {"pos_target": c.joint_target_q, "vel_target": c.joint_target_qd, "actuation": d.dof_effort}[kind]
    v = views.get(kind)
    if v is None or v[0] is not dst:
        index = {"pos_target": h.dof_q, "vel_target": h.dof_qd, "actuation": None}[kind]
        if index is not None and np.array_equal(index, np.arange(len(index))):
            index = None
        v = views[kind] = (dst, dst.numpy(), slice(None) if index is None else index)
    taken, count = (None, 0) if kind == "actuation" else h.dof_takes[kind]
    if taken is None or count == len(taken):
        v[1][v[2]] = values
    else:                       # (kernels.target_taken: only the DOFs whose mode takes the target)
        at = np.arange(len(values)) if isinstance(v[2], slice) else v[2]
        v[1][at[taken]] = values[taken]
    if kind == "actuation":
        d.efforts_pending = True
    else:
        sim.backend.targets_written()
    return True


def targets_taken(modes: np.ndarray, kind: str) -> np.ndarray:
    """kernels.target_taken on the host: which DOFs, in drive `modes`, take a target of `kind`
    ('pos_target' or 'vel_target')."""
    taken = modes == int(DofDriveMode.DOF_MODE_POS)
    if kind == "vel_target":
        taken |= modes == int(DofDriveMode.DOF_MODE_VEL)
    return taken


def _write_actor(actor, kind, values, accumulate=False):
    sim = actor.env.sim
    wp = _wp()
    src = wp.array(np.ascontiguousarray(values, np.float32), dtype=wp.float32, device=sim.device)
    ids = wp.array(np.array([actor.sim_index], np.int32), dtype=wp.int32, device=sim.device)
    write(sim, kind, src, ids, 1, local=True, accumulate=accumulate)


def _built(sim):
    return sim.finalized and sim.control is not None


# ============================================================================ handle API
def dof_values(values: np.ndarray | Sequence[float], n: int, what: str | None = None,
               arg: str = "values") -> np.ndarray:
    """A real 1-D array of n finite numbers -> float32 numpy (a copy). Isaac Gym's numpy-array
    argument takes what numpy converts: arrays, lists, tuples and (CPU) torch tensors; a tensor on
    another device is copied to the host."""
    what = what or call_name()
    if isinstance(values, np.ndarray):
        arr = values
    elif hasattr(values, "detach") and hasattr(values, "cpu"):      # a torch tensor
        arr = values.detach().cpu().numpy()
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


def scalar(v: float, what: str | None = None, arg: str = "value") -> float:
    """`v` as a float, checked finite."""
    what = what or call_name()
    v = number(v, f"{what}: {arg}")
    if not np.isfinite(v):
        raise GymlikeValueError(f"{what}: {arg} must be finite, got {v}")
    return v


def set_targets(actor: Actor, values: np.ndarray, kind: str) -> None:
    """kind 'pos' or 'vel'; values already validated (float32, the actor's DOF count)."""
    if actor.asset.dof_count == 0:
        return
    if not _built(actor.env.sim):
        # (recorded whole: creation loops often set targets before the drive modes; the DOFs
        # whose final mode takes them get them when the sim is prepared, on_finalize)
        (actor.pos_targets if kind == "pos" else actor.vel_targets)[:] = values
        return
    _write_actor(actor, "pos_target" if kind == "pos" else "vel_target", values)


def get_targets(actor: Actor, kind: str) -> np.ndarray:
    """The actor's position (m or rad) or velocity (m/s or rad/s) targets, kind 'pos' or 'vel':
    (dofs,) float32, a copy."""
    sim = actor.env.sim
    if not _built(sim):
        return (actor.pos_targets if kind == "pos" else actor.vel_targets).copy()
    h = sim.host
    a = actor.sim_index
    d0, n = int(h.actor_dof0[a]), int(h.actor_ndof[a])
    if n == 0:
        return np.zeros(0, np.float32)
    s = slice(d0, d0 + n)
    if kind == "pos":
        q0, nq = int(h.actor_q0[a]), int(h.actor_nq[a])
        return sim.control.joint_target_q[q0:q0 + nq].numpy()[h.dof_q[s] - q0].astype(np.float32)
    q0, nq = int(h.actor_qd0[a]), int(h.actor_nqd[a])
    return sim.control.joint_target_qd[q0:q0 + nq].numpy()[h.dof_qd[s] - q0].astype(np.float32)


def set_target(actor: Actor, local: int, value: float, kind: str) -> None:
    """Set one DOF's position or velocity target (kind 'pos' or 'vel'), DOF `local` of the actor."""
    vals = get_targets(actor, kind)
    vals[local] = value
    set_targets(actor, vals, kind)


def apply_efforts(actor: Actor, values: np.ndarray | float, local: int | None = None) -> None:
    """Add efforts (all the actor's DOFs, or one DOF `local`) for the next simulate call."""
    n = actor.asset.dof_count
    if n == 0:
        return
    if local is not None:
        full = np.zeros(n, np.float32)
        full[local] = values
        values = full
    if not _built(actor.env.sim):
        if actor.pending_efforts is None:
            actor.pending_efforts = np.zeros(n, np.float32)
        actor.pending_efforts += values
        return
    _write_actor(actor, "actuation", values, accumulate=True)


def on_finalize(sim: Sim, actors: list[Actor]) -> None:
    """Apply the targets and efforts set before the model existed (build_model calls this): a
    target reaches the DOFs whose drive mode, as prepared, takes it (`write`)."""
    if sim.host.num_dofs:
        wp = _wp()
        ids = sim.dev.actor_all
        for kind, values in (("pos_target", [a.pos_targets for a in actors]),
                             ("vel_target", [a.vel_targets for a in actors])):
            src = wp.array(np.concatenate(values).astype(np.float32), dtype=wp.float32, device=sim.device)
            write(sim, kind, src, ids, len(actors))
        if any(a.pending_efforts is not None for a in actors):
            eff = np.concatenate([a.pending_efforts if a.pending_efforts is not None
                                  else np.zeros(a.asset.dof_count, np.float32) for a in actors])
            write(sim, "actuation", wp.array(eff, dtype=wp.float32, device=sim.device), ids, len(actors))
