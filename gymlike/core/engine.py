"""What happens to a sim when it is built, stepped, written into or given new parameters: the
orchestration above the model builder (build.py), the step path (step.py), the solver backends
(mjc.py, Newton's solvers) and the property writers (props.py).

`Sim` (sim.py) is the record of a simulation; it reaches these through `sim.engine` (this
module, handed to it by gymapi.create_sim), so the record imports none of the modules that read
it. Each function takes the sim as its first argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .runtime import newton as _newton, wp as _wp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .sim import Sim


def build(sim: Sim) -> None:
    """Build the Newton model, tables and solver of the recorded envs and actors (build.py)."""
    from .build import build_model
    build_model(sim)


def step(sim: Sim) -> None:
    """One simulate of the built sim: substeps, wrenches, clamps, NaN guard (step.py)."""
    from .step import Stepper
    sim.component("stepper", lambda: Stepper(sim)).simulate()


def state_written(sim: Sim, actors: Sequence[int] | np.ndarray | None = None) -> None:
    """After a write into the simulated state of `actors` (host sim indices; None: all) of a
    built sim: the solver forgets what it carried over for their worlds.

    MuJoCo warm-starts each step from the last one's accelerations, so a state that went NaN keeps
    poisoning its world after a reset unless that is cleared (SolverMuJoCo.reset with
    StateFlags.NONE leaves the state alone and zeroes warm start, activations and applied forces,
    which control refills). Newton's VBD (SIM_FLEX with deformables) keeps each body's previous
    pose to derive its velocity: its reset with no state flags rebases that history on the
    written poses."""
    newton = _newton()
    solver = sim.solver
    vbd = solver is not None and isinstance(solver, newton.solvers.SolverVBD)
    if solver is None or not (hasattr(solver, "mjw_data") or vbd):
        return
    worlds = None
    if actors is not None and not sim.one_world:
        worlds = np.zeros(int(sim.model.world_count) + 1, bool)   # last: world -1
        worlds[sim.host.actor_env[np.asarray(actors, np.int64)]] = True
    from . import mjc
    cs = None if vbd else mjc.c_step(solver)
    if cs is not None:            # (the C solver takes the host mask as it is)
        cs.invalidate(worlds, forget=True)
        return
    mask = None if worlds is None else _wp().array(worlds, dtype=_wp().bool, device=sim.device)
    solver.reset(sim.state, mask, flags=newton.StateFlags.NONE)


def params_changed(sim: Sim, step_changed: bool) -> None:
    """New SimParams on a built sim: gravity at once, and the drive gains when the substep
    length changed (drive damping depends on it)."""
    sim.apply_gravity()
    if step_changed and sim.dev.num_dofs:
        from .props import write_drive_gains
        write_drive_gains(sim)
