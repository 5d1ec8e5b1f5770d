"""What happens to a sim when it is built, stepped or given new parameters: the orchestration
above the model builder (build.py), the step path (step.py) and the property writers (props.py).
(What a write into the state means for the solver is the backend's: core/backend.py.)

`Sim` (sim.py) is the record of a simulation; it reaches these through `sim.engine` (this
module, handed to it by gymapi.create_sim), so the record imports none of the modules that read
it. Each function takes the sim as its first argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sim import Sim


def build(sim: Sim) -> None:
    """Build the Newton model, tables and solver of the recorded envs and actors (build.py)."""
    from .build import build_model
    build_model(sim)


def step(sim: Sim) -> None:
    """One simulate of the built sim: substeps, wrenches, clamps, NaN guard (step.py)."""
    from .step import Stepper
    sim.component("stepper", lambda: Stepper(sim)).simulate()


def params_changed(sim: Sim, step_changed: bool) -> None:
    """New SimParams on a built sim: gravity at once, and the drive gains when the substep
    length changed (drive damping depends on it)."""
    sim.apply_gravity()
    if step_changed and sim.dev.num_dofs:
        from .props import write_drive_gains
        write_drive_gains(sim)
