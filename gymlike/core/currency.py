"""Which copy of a sim's state is current: the one record that says so (issue 43).

A built sim holds its state in up to three places, each of which may lag another:

* **Newton's State** (joint and body coordinates), what Newton's solvers step and what the API
  reads when no solver row is current. It lags MuJoCo C's rows after a C step or a write into
  the rows (`pending` holds the conversion, run on its next read), its bodies lag its joints
  after a joint write (`pending_fk`: forward kinematics pending), its joints lag its bodies
  after an XPBD step (`joints_stale`).
* **MuJoCo C's rows** (per world qpos, qvel, act, warm start, and the next step's inputs), the
  truth between C steps. A world's rows lag Newton's State once the State of that world was
  written (`rows_stale`; `rows_forget`: the write starts anew, warm start and activations go),
  and every row lags when the State stepped is not the one the rows stand for (`rows_of`).
  Their inputs lag Newton's Control targets (`ctrl_current`), the model's parameters
  (`params_current`), equality switches and mocap poses (`inputs_version` against
  `inputs_seen`); `qfrc_nonzero` / `xfrc_nonzero` say whether the applied-force rows may hold
  non-zero values. `rows_checks` keeps the flags of the checks run on the rows as they are.
* MuJoCo-Warp's data is Newton's SolverMuJoCo's own, kept current by it.

The backends move the data (core/backend.py: Newton's State; core/mjc.py: MuJoCo C's rows)
and tell this record what happened through its methods; nothing else keeps or sets such a
flag (tests/project/test_layout.py checks that no other module assigns one of FIELDS).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

# the attributes that say what is current; only this module assigns them
FIELDS = frozenset({
    "pending", "pending_fk", "joints_stale",
    "rows_of", "rows_stale", "any_rows_stale", "rows_forget", "newton_current", "rows_checks",
    "ctrl_current", "params_current", "inputs_version", "inputs_seen", "qfrc_nonzero", "xfrc_nonzero"})


class Currency:
    """What each copy of one sim's state lags (module docstring); the rows' flags are sized by
    track_rows when a C solver is made (until then only Newton's State is tracked)."""

    def __init__(self):
        # Newton's State
        self.pending: Callable[[], None] | None = None   # what makes it current, run on its next read
        self.pending_fk = False          # ... and that is the forward kinematics of written joints
        self.joints_stale = False        # joint_q/qd lag body_q/qd (XPBD steps the bodies only)
        # MuJoCo C's rows
        self.rows_of = None              # the Newton State the rows stand for (the last C step's output)
        self.rows_stale = np.zeros(0, bool)    # worlds to reload from Newton's State
        self.any_rows_stale = False            # rows_stale.any(), kept as a bool
        self.rows_forget = np.zeros(0, bool)   # ... and whose warm start and activations go then
        self.newton_current = True       # Newton's State holds the rows
        self.rows_checks = None          # flags of the row checks on the rows as they are (None: not run)
        self.ctrl_current = False        # MuJoCo's ctrl rows follow Newton's joint targets
        self.params_current = False      # the batch's models hold the model's parameters
        self.inputs_version = 0          # bumps when equality switches or mocap poses may have changed
        self.inputs_seen = None          # the version the rows' switches and mocap poses hold
        self.qfrc_nonzero = self.xfrc_nonzero = True    # the applied-force rows may be non-zero

    # ------------------------------------------------------------------ Newton's State
    def defer(self, sync: Callable[[], None] | None) -> None:
        """`sync()` makes Newton's State current when it is next read (None: nothing pending)."""
        self.pending, self.pending_fk = sync, False

    def defer_kinematics(self, run: Callable[[], None]) -> None:
        """The bodies follow written joints when the State is next read (`run`)."""
        self.pending, self.pending_fk = run, True

    def take_pending(self) -> Callable[[], None] | None:
        """What was pending (None: nothing), now no longer pending: the caller runs it."""
        sync, self.pending, self.pending_fk = self.pending, None, False
        return sync

    def bodies_stepped(self, joints_follow: bool) -> None:
        """A step wrote the State; `joints_follow` False: only its bodies (XPBD)."""
        self.joints_stale = not joints_follow

    def joints_synced(self) -> None:
        """joint_q/qd were computed from the bodies."""
        self.joints_stale = False

    # ------------------------------------------------------------------ MuJoCo C's rows
    def track_rows(self, nworld: int) -> None:
        """MuJoCo C steps `nworld` worlds: every row waits to be loaded from Newton's State."""
        self.rows_stale = np.ones(nworld, bool)
        self.any_rows_stale = nworld > 0
        self.rows_forget = np.ones(nworld, bool)

    def rows_current(self, state: object) -> bool:
        """The rows hold every world's state (no State write waits to be reloaded) and `state`
        is the Newton State they stand for."""
        return state is self.rows_of and not self.any_rows_stale

    def newton_written(self, worlds: np.ndarray | None = None, forget: bool = False) -> None:
        """Newton's State of `worlds` (bool mask over the C worlds; None: all) was written: those
        rows reload from it before the next step, the others keep their float64 state.
        `forget`: the written state does not continue the old one (warm start, activations)."""
        if worlds is None:
            self.rows_stale[:] = True
            self.any_rows_stale = True
            if forget:
                self.rows_forget[:] = True
        else:
            worlds = np.asarray(worlds, bool)[:len(self.rows_stale)]
            self.rows_stale |= worlds
            self.any_rows_stale = self.any_rows_stale or bool(worlds.any())
            if forget:
                self.rows_forget |= worlds

    def newton_stepped(self, state_out: object) -> None:
        """Newton's own step wrote `state_out`: every row reloads from it."""
        self.rows_of = state_out
        self.newton_written()

    def rows_reloaded(self) -> None:
        """The stale rows were reloaded from Newton's State (mocap poses follow it)."""
        self.rows_stale[:] = False
        self.any_rows_stale = False
        self.rows_forget[:] = False
        self.inputs_version += 1

    def rows_checked(self, flags: np.ndarray | None) -> None:
        """The row checks ran on the rows as they are (None: they must run again)."""
        self.rows_checks = flags

    def inputs_written(self, qfrc_nonzero: bool, xfrc_nonzero: bool) -> None:
        """A step's inputs are in the rows: ctrl follows the targets; whether the applied forces
        may be non-zero."""
        self.ctrl_current, self.qfrc_nonzero, self.xfrc_nonzero = True, qfrc_nonzero, xfrc_nonzero

    def rows_stepped(self, state_out: object) -> None:
        """The rows stepped and stand for `state_out`, which lags them until converted."""
        self.rows_of = state_out
        self.newton_current = False

    def rows_ahead(self, checked: bool = True) -> bool:
        """The rows moved on from Newton's State (a write, impulses, caps); `checked` False: the
        row checks must run again. True when the State was current until now: the caller then
        arranges its conversion."""
        if not checked:
            self.rows_checks = None
        was, self.newton_current = self.newton_current, False
        return was

    def newton_caught_up(self) -> bool:
        """Newton's State is converted from the rows now; False when it held them already."""
        was, self.newton_current = self.newton_current, True
        return not was

    def targets_written(self) -> None:
        """Position or velocity targets changed: the ctrl rows follow at the next step."""
        self.ctrl_current = False

    def solver_reset(self) -> None:
        """Newton's reset cleared MuJoCo-Warp's inputs: copy every input again."""
        self.ctrl_current = False
        self.qfrc_nonzero = self.xfrc_nonzero = True

    def model_changed(self) -> None:
        """The model's parameters changed: they reach the batch before the next step, and ctrl,
        the row checks, equality switches and mocap poses follow again."""
        self.params_current = False
        self.ctrl_current = False
        self.rows_checks = None
        self.inputs_version += 1

    def params_stale(self) -> None:
        """The batch's models must take the model's parameters again (a new time step, batch or
        compiled model)."""
        self.params_current = False

    def params_synced(self) -> None:
        """The batch's models hold the model's parameters."""
        self.params_current = True

    def batch_made(self) -> None:
        """A new batch: its switches and mocap poses are written before its first step."""
        self.inputs_seen = None

    def inputs_due(self) -> bool:
        """Whether the rows' equality switches and mocap poses lag; they are written now."""
        if self.inputs_seen == self.inputs_version:
            return False
        self.inputs_seen = self.inputs_version
        return True
