"""Solver observables on demand: the per-step quantities Newton's solvers can report besides the
state (contact forces, incoming joint wrenches), switched on only when a tensor or handle-API
call needs them, so a sim that never asks for forces never pays for them.

`require(sim, kinds)` adds observable kinds to the sim's single `Observables` container and
hands it to `solver.step` through `sim.step_kwargs["observables"]`; on the MuJoCo C pipeline
(core/mjc.py) the C solver reports contact and joint forces itself, so no container is made. For SolverMuJoCo a contact
buffer sized `solver.get_max_contact_count()` is created here (MuJoCo runs its own collision
and exports its contacts into it); SolverXPBD already steps with the collision pipeline's
buffer. The solver overwrites every requested array on every substep, so all readings are
those of the last substep of the last `simulate` call."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..enums import SimType
from ..errors import GymlikeNotImplementedError, listed
from ..runtime import newton as _newton

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..sim import Sim

CONTACT_F = "contact_f"
BODY_PARENT_F = "body_parent_f"
OVERFLOW = "overflow"


class Observed:
    """The sim's observable container and the contact buffer it is aligned with, or, on the
    MuJoCo C pipeline, the C solver that reports them itself (`c`)."""

    def __init__(self):
        self.kinds = frozenset()
        self.obs = None
        self.contacts = None
        self.c = None           # the SolverMuJoCoC reporting the kinds (core/mjc.py)
        self.steps = 0          # simulate calls since the container exists (0: arrays are zero)
        self.overflow_told = False

    def on_simulate(self) -> None:
        """Count one more simulate call since the observed arrays exist (0: they are still zero)."""
        self.steps += 1


def state(sim: Sim) -> Observed:
    """The sim's Observed record (made on first use)."""
    return sim.component("observed", Observed)


def require(sim: Sim, kinds: Iterable[str], what: str) -> Observed:
    """Make sure the solver reports `kinds` from the next simulate on; return the Observed."""
    o = state(sim)
    kinds = frozenset(kinds)
    if kinds <= o.kinds:
        return o
    solver = sim.solver
    from .. import mjc
    cs = mjc.c_step(solver)
    if cs is not None and not o.obs and (o.kinds | kinds) <= {CONTACT_F, BODY_PARENT_F} and cs.observe():
        # MuJoCo C reports contact and joint forces of every step itself (no MuJoCo-Warp step)
        o.c, o.kinds, o.steps = cs, o.kinds | kinds, 0
        if not any(listener is o for listener in sim.listeners):
            sim.listeners.append(o)
        return o
    missing = kinds - frozenset(solver.supported_observables)
    if missing:
        raise GymlikeNotImplementedError(
            f"{what}: the {type(solver).__name__} solver cannot report {', '.join(sorted(missing))}")
    newton = _newton()
    want = o.kinds | kinds
    if CONTACT_F in want and o.contacts is None:
        if sim.contacts is None and sim.type == SimType.SIM_PHYSX:
            # MuJoCo runs its own collision: give it a buffer to export its contacts into
            o.contacts = newton.Contacts(solver.get_max_contact_count(), 0, device=sim.device)
            sim.attach(contacts=o.contacts)
        else:
            # the solver steps with Newton's collision pipeline (XPBD, or MuJoCo with static
            # meshes): the forces are reported on those contact rows
            o.contacts = sim.contacts
    o.obs = solver.observables(want, contacts=o.contacts if CONTACT_F in want else None)
    o.kinds = want
    o.steps = 0
    sim.step_kwargs["observables"] = o.obs
    if not any(listener is o for listener in sim.listeners):
        sim.listeners.append(o)
    return o


# ============================================================================ capacity
# MuJoCo-Warp and Newton's collision pipeline have fixed buffers (contacts, constraint rows,
# broad-phase pairs); what does not fit is dropped, with at most a printf of the library. The
# MuJoCo-Warp solver reports it per world (Newton's overflow observable: MuJoCo-Warp's
# OverflowType bits and Newton's own), which gymlike reads with the NaN flags and reports once
# per sim, naming the envs and the setting that raises the buffer. (MuJoCo C reports its own
# arena in core/mjc.py.)
_NOT_CAPACITY = ("ITERATIONS", "LS_ITERATIONS")      # (solver iteration limits: not dropped data)


def watch_capacity(sim: Sim) -> None:
    """After the solver is made: have a MuJoCo-Warp solver report its overflows."""
    from .. import mjc
    solver = sim.solver
    if mjc.c_step(solver) is not None or OVERFLOW not in frozenset(solver.supported_observables):
        return
    require(sim, {OVERFLOW}, "prepare_sim")


def check_capacity(sim: Sim) -> None:
    """Warn once per sim when a buffer of the last step overflowed (read with the NaN flags:
    a device read on CUDA)."""
    from ..errors import warn
    o = sim.observed
    if o is None or o.overflow_told:
        return
    bits = None
    if o.obs is not None and getattr(o.obs, "overflow", None) is not None and o.steps:
        bits = o.obs.overflow.numpy()
    names = []
    if bits is not None and bits.any():
        import mujoco_warp
        newton = _newton()
        flags = {m.name: int(m) for m in mujoco_warp.OverflowType if m.name not in _NOT_CAPACITY and int(m)}
        flags.update({m.name: int(m) for m in newton.solvers.SolverMuJoCo.OverflowBits})
        seen = int(np.bitwise_or.reduce(bits))
        names = [n for n, b in flags.items() if seen & b and n != "ALL"]
    if not names:
        return
    o.overflow_told = True
    worlds = np.nonzero(bits)[0]
    if sim.one_world:
        where = "in the sim's one world (all envs)"
    elif set(names) <= {"CONTACT_PIPELINE", "SOLVER_NCONMAX"}:
        where = "in buffers all envs share"       # (Newton's contact count is global)
    else:
        where = f"in env(s) {listed(worlds, 10)}"
    setting = ("sim.mujoco_options = {'rigid_contact_max': N} (Newton's collision pipeline)"
               if names == ["CONTACT_PIPELINE"] else
               "sim.mujoco_options = {'nconmax': N, 'njmax': M} (contacts and constraint rows per world)"
               + (" and 'rigid_contact_max' (Newton's collision pipeline)" if "CONTACT_PIPELINE" in names else ""))
    warn(f"simulate: MuJoCo-Warp's buffers overflowed ({', '.join(names)}) {where}: contacts or constraints "
         f"beyond them were dropped. Raise them with {setting} before prepare_sim (gymlike.envs tasks: "
         "sim.mujoco: ...); this warning is given once per sim", RuntimeWarning)
