"""Fixed tendons: MJCF `<tendon><fixed>` with Isaac Gym's (PhysX's) semantics, on MuJoCo tendons.

Isaac Gym's view of a fixed tendon: length L = sum(coef_i * q_i) + offset; a spring
-stiffness * (L - fixed_spring_rest_length) - damping * dL/dt; and, when is_fixed_limited, an
explicit limit spring of `limit_stiffness` outside [fixed_lower_limit, fixed_upper_limit]
(AssetOptions.tendon_limit_stiffness: "the limits are not implicitly solved"). Newton's MuJoCo
solver holds tendons as `model.mujoco.tendon_*` custom attributes; the limit spring is its
force-space limit mode (limit_ke / limit_kd), and a tendon without limits gets limit_ke 0, which
removes the limit row. Every fixed tendon is compiled as limited so that limits can be switched
on after the solver exists (MuJoCo decides limited/unlimited once). MuJoCo shares the joint
coefficients between worlds: they are set on the asset, before actors are created.
Spatial tendons are simulated as the file says and are not part of Isaac Gym's tendon list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .assets.tendons import FIELDS, AssetTendons, copy_props  # noqa: F401  (the record half, re-exported)
from .errors import GymlikeTypeError, GymlikeValueError
from .types import TendonProperties, number
from .runtime import wp as _wp, call_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .assets.record import Asset
    from .sim import Actor, Sim

OPEN = 1e9          # the limit range written for tendons without limits (never reached)


def check_props(props: Sequence[TendonProperties], n: int, what: str | None = None) -> list[TendonProperties]:
    """A list of n TendonProperties -> a clean copy (finite, non-negative gains, lower <= upper)."""
    what = what or call_name()
    if not isinstance(props, (list, tuple)) or not all(isinstance(p, TendonProperties) for p in props):
        raise GymlikeTypeError(f"{what}: props must be a list of gymapi.TendonProperties (as "
                               f"get_*_tendon_properties returns), got {type(props).__name__}")
    if len(props) != n:
        raise GymlikeValueError(f"{what}: props must have one entry per tendon ({n}), got {len(props)}")
    out = copy_props(props)
    for i, p in enumerate(out):
        for f in FIELDS:
            v = number(getattr(p, f), f"{what}: props[{i}].{f}")
            if not np.isfinite(v):
                raise GymlikeValueError(f"{what}: props[{i}].{f} must be finite, got {v}")
            if f in ("stiffness", "damping", "limit_stiffness") and v < 0:
                raise GymlikeValueError(f"{what}: props[{i}].{f} must be >= 0, got {v}")
            setattr(p, f, float(v))
        p.is_fixed_limited = bool(p.is_fixed_limited)
        if p.is_fixed_limited and p.fixed_lower_limit > p.fixed_upper_limit:
            raise GymlikeValueError(f"{what}: props[{i}] has fixed_lower_limit {p.fixed_lower_limit} > "
                                    f"fixed_upper_limit {p.fixed_upper_limit}")
    return out


def check_coefficients(coefs: Sequence[float], n: int, what: str) -> np.ndarray:
    """A tendon's joint coefficients as (n,) float32, checked finite and one per joint."""
    try:
        c = np.array([number(v, f"{what}: coefficients[{i}]") for i, v in enumerate(coefs)], np.float32)
    except TypeError:
        raise GymlikeTypeError(f"{what}: coefficients must be a list of numbers, got "
                               f"{type(coefs).__name__}") from None
    if c.shape != (n,):
        raise GymlikeValueError(f"{what}: the tendon has {n} joints, got {c.size} coefficients")
    if not np.isfinite(c).all():
        raise GymlikeValueError(f"{what}: coefficients must be finite, got {c.tolist()}")
    return c


# ---------------------------------------------------------------------------- into the model
def _arrays(props, offsets):
    """Newton/MuJoCo values of Isaac Gym tendon properties (offset folded into rest and limits)."""
    n = len(props)
    stiff = np.array([p.stiffness for p in props], np.float32).reshape(n)
    damp = np.array([p.damping for p in props], np.float32).reshape(n)
    off = np.asarray(offsets, np.float64).reshape(n)
    rest = np.array([p.fixed_spring_rest_length for p in props], np.float64) - off
    lim = np.array([p.is_fixed_limited for p in props], bool).reshape(n)
    lo = np.array([p.fixed_lower_limit for p in props], np.float64) - off
    hi = np.array([p.fixed_upper_limit for p in props], np.float64) - off
    hi = np.where(hi <= lo, lo + 1e-6, hi)          # MuJoCo needs lower < upper
    rng = np.stack([np.where(lim, lo, -OPEN), np.where(lim, hi, OPEN)], -1).astype(np.float32)
    ke = np.where(lim, [p.limit_stiffness for p in props], 0.0).astype(np.float32).reshape(n)
    return stiff, damp, rest.astype(np.float32), rng, ke


def _rows(sim, actors):
    """(actor, Newton tendon rows of its Isaac Gym tendons) for actors with fixed tendons."""
    out = []
    for a in actors:
        t = a.asset.tendons
        if t is not None and len(t):
            out.append((a, sim.host.actor_tendon0[a.sim_index] + np.asarray(t.newton, np.int64)))
    return out


def write(sim: Sim, actors: list[Actor], finalize: bool = False) -> None:
    """Push the actors' tendon properties (and, at finalize, coefficients) into the model."""
    from .props import notify, scatter
    wp = _wp()
    rows = _rows(sim, actors)
    if not rows:
        return
    from .enums import SimType
    if finalize and sim.type != SimType.SIM_PHYSX:
        from .errors import warn
        warn(f"fixed tendons ({', '.join(sorted({a.asset.name for a, _ in rows}))}) are simulated on "
             "SIM_PHYSX only; SIM_FLEX (Newton's XPBD) ignores them")
    mj = sim.model.mujoco
    idx = np.concatenate([r for _, r in rows])
    stiff, damp, rest, rng, ke = (np.concatenate(v) for v in zip(*(
        _arrays(a.tendon_props, a.tendon_offsets) for a, _ in rows)))
    scatter(sim, mj.tendon_stiffness, idx, stiff)
    scatter(sim, mj.tendon_damping, idx, damp)
    scatter(sim, mj.tendon_range, idx, rng, wp.vec2)
    scatter(sim, mj.tendon_limit_ke, idx, ke)
    scatter(sim, mj.tendon_limit_kd, idx, damp)
    scatter(sim, mj.tendon_solref_limit_mode, idx, np.zeros(len(idx), np.int32))   # force space
    if finalize:
        scatter(sim, mj.tendon_limited, idx, np.ones(len(idx), np.int32))
        scatter(sim, mj.tendon_springlength, idx, np.stack([rest, rest], -1), wp.vec2)
        joints, coefs = [], []
        adr = mj.tendon_joint_adr.numpy()
        for a, r in rows:
            for k, t in enumerate(r):
                joints.append(np.arange(adr[t], adr[t] + len(a.asset.tendons.coefs[k])))
                coefs.append(a.asset.tendons.coefs[k])
        scatter(sim, mj.tendon_coef, np.concatenate(joints), np.concatenate(coefs))
        return
    sim.backend.write_tendon_rest_lengths(idx, rest)
    notify(sim, "TENDON_PROPERTIES")


# ---------------------------------------------------------------------------- handle API
def of_asset(asset: Asset, what: str | None = None) -> AssetTendons:
    """The fixed tendons of an asset (an empty set for assets without any)."""
    what = what or call_name()
    from .handles import asset_of
    a = asset_of(asset, what)
    return a.tendons if a.tendons is not None else _NONE


class _Empty:
    names, joint_names, coefs, props, newton, newton_count = [], [], [], [], [], 0

    def __len__(self):
        return 0


_NONE = _Empty()


def set_coefficients(asset: Asset, index: int, coefs: Sequence[float], what: str | None = None) -> None:
    """Set the joint coefficients of tendon `index` of the asset (before any actor of it exists)."""
    what = what or call_name()
    from .errors import GymlikeRuntimeError
    from .handles import index as check_index
    t = of_asset(asset, what)
    k = check_index(index, len(t.names), what, "tendon")
    c = check_coefficients(coefs, len(t.joint_names[k]), what)
    if asset.sim is not None and any(a.asset is asset for a in asset.sim.all_actors()):
        raise GymlikeRuntimeError(f"{what}: actors of this asset exist already; MuJoCo shares tendon "
                                  "coefficients between envs, so set them before creating actors")
    t.coefs[k] = c


def set_actor(actor: Actor, what: str | None = None, props: Sequence[TendonProperties] | None = None,
              offset: tuple[int, float] | None = None) -> None:
    """Validate, then write the actor's copy and (after prepare_sim) the model."""
    what = what or call_name()
    from .handles import index as check_index
    t = of_asset(actor.asset, what)
    new_props, new_off = actor.tendon_props if len(t) else [], actor.tendon_offsets if len(t) else None
    if props is not None:
        new_props = check_props(props, len(t), what)
    if offset is not None:
        k = check_index(offset[0], len(t), what, "tendon")
        v = number(offset[1], f"{what}: offset")
        if not np.isfinite(v):
            raise GymlikeValueError(f"{what}: offset must be finite, got {v}")
        new_off = new_off.copy()
        new_off[k] = v
    if not len(t):
        return
    actor.tendon_props, actor.tendon_offsets = new_props, new_off
    sim = actor.env.sim
    if sim.finalized:
        write(sim, [actor])
