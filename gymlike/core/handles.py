"""Validation of handles (sim, env, asset, actor, body/DOF/joint handles) and translation between
Isaac Gym's index domains. DOMAIN_ACTOR: index inside the actor; DOMAIN_ENV: actor's first
index in the env + that; DOMAIN_SIM: env's first index in the sim + that.

`what` (the call named in error messages) defaults to the Gym method being run (runtime.call_name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .assets.record import Asset
from .enums import CoordinateSpace, IndexDomain
from .errors import GymlikeIndexError, GymlikeTypeError, GymlikeValueError
from .runtime import call_name
from .sim import Env, Sim
from .types import as_int

if TYPE_CHECKING:
    from collections.abc import Sequence
    from enum import IntEnum

    from .sim import Actor


def sim_of(sim: object, what: str | None = None) -> Sim:
    """`sim` checked to be a live Sim handle."""
    what = what or call_name()
    if not isinstance(sim, Sim):
        raise GymlikeTypeError(f"{what}: expected a Sim handle, got {type(sim).__name__}")
    sim.check_alive()
    return sim


def env_of(env: object, what: str | None = None) -> Env:
    """`env` checked to be an Env handle of a live sim."""
    what = what or call_name()
    if not isinstance(env, Env):
        raise GymlikeTypeError(f"{what}: expected an Env handle, got {type(env).__name__}")
    env.sim.check_alive()
    return env


def asset_of(asset: object, what: str | None = None) -> Asset:
    """`asset` checked to be an Asset handle."""
    what = what or call_name()
    if not isinstance(asset, Asset):
        raise GymlikeTypeError(f"{what}: expected an Asset handle, got {type(asset).__name__}")
    return asset


def actor_of(env: Env, handle: int, what: str | None = None) -> Actor:
    """The actor `handle` of `env`, both checked."""
    what = what or call_name()
    return env_of(env, what).actor(handle, f"{what}: actor handle")


def index(i: int, n: int, what: str | None = None, kind: str = "index") -> int:
    """`i` checked to be an int in [0, n) (any int Isaac Gym takes: numpy ints, an integer torch
    scalar; see types.as_int)."""
    what = what or call_name()
    k = as_int(i)
    if k is None:
        raise GymlikeTypeError(f"{what}: {kind} index must be an int, got {type(i).__name__}")
    if not 0 <= k < n:
        raise GymlikeIndexError(f"{what}: {kind} index {k} out of range [0, {n})")
    return k


def enum_of(cls: type[IntEnum], value: object, what: str | None = None, name: str = "value") -> IntEnum:
    """`value` as a member of the IntEnum `cls`: a non-integer is a TypeError, an integer that
    names no member a ValueError listing the members."""
    what = what or call_name()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise GymlikeTypeError(f"{what}: {name} must be a gymapi.{cls.__name__}, got {type(value).__name__} {value!r}")
    try:
        return cls(int(value))
    except ValueError:
        raise GymlikeValueError(f"{what}: {name} must be one of {', '.join(m.name for m in cls)}, "
                                f"got {value!r}") from None


def domain_of(domain: IndexDomain, what: str | None = None) -> IndexDomain:
    """`domain` checked to be an IndexDomain."""
    what = what or call_name()
    return enum_of(IndexDomain, domain, what, "domain")


def space_of(space: CoordinateSpace, what: str | None = None) -> CoordinateSpace:
    """`space` checked to be a CoordinateSpace."""
    what = what or call_name()
    return enum_of(CoordinateSpace, space, what, "space")


_STARTS = {"body": "body0", "dof": "dof0", "joint": "joint0", "shape": "shape0"}


_NAMES = {"body": "body_names", "dof": "dof_names", "joint": "joint_names"}
_COUNTS = {"body": "body_count", "dof": "dof_count", "joint": "joint_count"}


def local_of(actor: Actor, kind: str, i: int) -> int:
    """A validated index into the actor's bodies/dofs/joints (DOMAIN_ACTOR)."""
    return index(i, getattr(actor.asset, _COUNTS[kind]), call_name(), kind)


def find_local(actor: Actor, kind: str, name: str) -> int:
    """The actor's body/dof/joint called `name` (DOMAIN_ACTOR), -1 if none."""
    names = getattr(actor.asset, _NAMES[kind])
    name = name_of(name)
    return names.index(name) if name in names else -1


def handle_of(actor: Actor, kind: str, local: int) -> int:
    """Handle of an actor's body/dof/joint: its DOMAIN_ENV index; INVALID_HANDLE (-1) stays."""
    return -1 if local < 0 else to_domain(actor, local, kind, IndexDomain.DOMAIN_ENV)


def to_domain(actor: Actor, local: int, kind: str, domain: IndexDomain, what: str | None = None) -> int:
    """Index `local` of an actor's bodies/dofs/joints/shapes expressed in `domain` (the one
    translation between index domains; -1, INVALID_HANDLE, stays -1)."""
    what = what or call_name()
    domain = domain_of(domain, what)
    if local < 0:
        return -1
    if domain == IndexDomain.DOMAIN_ACTOR:
        return int(local)
    env_idx = getattr(actor, _STARTS[kind]) + int(local)
    if domain == IndexDomain.DOMAIN_ENV:
        return env_idx
    return actor.env.sim.env_start(actor.env, kind) + env_idx


def envs_of(envs: Sequence[Env], what: str | None = None) -> list[Env]:
    """The get_vec_* calls' `envs` argument: a list of Env handles."""
    what = what or call_name()
    if not isinstance(envs, (list, tuple)):
        raise GymlikeTypeError(f"{what}: envs must be a list of Env handles, got {type(envs).__name__}")
    return [env_of(e, what) for e in envs]


def env_actor_pairs(envs: Sequence[Env], handles: int | Sequence[int]) -> list[tuple[Env, int]]:
    """The get_vec_* calls' (env, handle) pairs: one handle per env, or one for all."""
    what = call_name()
    envs = envs_of(envs, what)
    hs = list(handles) if isinstance(handles, (list, tuple)) else [handles] * len(envs)
    if len(hs) != len(envs):
        raise GymlikeValueError(f"{what}: {len(envs)} envs but {len(hs)} handles")
    return list(zip(envs, hs))


def actor_at(env: Env, env_index: int, kind: str, what: str | None = None) -> tuple[Actor, int]:
    """(actor, local index) of an env-domain body/dof/joint handle."""
    what = what or call_name()
    counts = {"body": env.body_count, "dof": env.dof_count, "joint": env.joint_count}[kind]
    index(env_index, counts, what, kind)
    starts = np.array([getattr(a, _STARTS[kind]) for a in env.actors])
    sizes = np.array([{"body": a.asset.body_count, "dof": a.asset.dof_count, "joint": a.asset.joint_count}[kind]
                      for a in env.actors])
    k = int(np.searchsorted(starts + sizes, env_index, side="right"))
    a = env.actors[k]
    return a, int(env_index) - getattr(a, _STARTS[kind])


def name_of(x: object, what: str | None = None) -> str:
    """`x` checked to be a str (a name)."""
    what = what or call_name()
    if not isinstance(x, str):
        raise GymlikeTypeError(f"{what}: expected a name (str), got {type(x).__name__}")
    return x
