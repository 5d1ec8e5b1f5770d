"""The solver path behind one interface (issue 43's backend boundary). The tensor API, the drives
and the handle API read and write root, DOF and rigid body states, and say what they wrote,
through `sim.backend`, which build.py makes for the solver it built; the step path (step.py)
asks it what the solver does itself (steps all substeps in one call, takes efforts and body
wrenches on its rows, runs PhysX's joint rows, caps speeds, checks its state for the NaN
guard). None of them asks which solver that is.

* NewtonState: Newton's State holds the truth (XPBD, VBD, MuJoCo-Warp). States are gathered from
  it and scattered into its joint coordinates (bodies follow by forward kinematics), and a write
  tells the solver to forget what it carried over for the worlds written.
* MuJoCoWarpRows: NewtonState for MuJoCo-Warp with PhysX's joint rows inside its step (core/mjw.py).
* MuJoCoRows: MuJoCo C (core/mjc.py). Between steps MuJoCo's rows hold the truth and Newton's
  State is converted only when read; while the rows are current (mjc.root_rows, mjc.dof_rows,
  mjc.body_rows), roots and DOFs are read and written on them and rigid bodies read from them,
  else as NewtonState does, after which the C solver reloads the worlds written.

Inputs arrive validated (tensors.py: shapes, dtypes, the zero-quaternion check whose result is
`refused`); a backend only moves them. Whether a copy is current is recorded in one place,
core/currency.py, which the backend and the C solver share (`cur`): Newton's State's pending
conversion (MuJoCo C's rows -> State, the deferred forward kinematics of written joints) runs
when Sim.state, which every reader goes through, asks NewtonState.current; MuJoCoRows reads
and writes the rows while Currency.rows_current says they hold the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import mjc, mjw
from .forces import observables
from .currency import Currency
from .enums import SimType
from .launch import Graphs, Launcher
from .runtime import newton as _newton, tensor_kernels as _tensor_kernels, wp as _wp

if TYPE_CHECKING:
    from collections.abc import Callable

    import newton
    import warp as wp

    from .sim import Sim
    from .tables import DeviceTables


class NewtonState:
    """The backend of every solver whose state is Newton's State."""

    def __init__(self, sim: Sim, cur: Currency | None = None):
        self.sim = sim
        self.cur = cur or Currency()    # what Newton's State (and MuJoCo C's rows) lag
        self.launch = Launcher(sim.device)       # recorded launches (CPU graphs) of the row kernels
        # the articulations a write touched (filled by the scatter kernels, read by forward kinematics)
        self.arts = _wp().zeros(max(1, sim.host.num_actors), dtype=_wp().int32, device=sim.device)
        self.kinematics = None          # _Kinematics, made on the first joint write

    # ------------------------------------------------------------------ is Newton's State current?
    # One pending conversion at a time (self.cur.pending): MuJoCo C's rows -> State after a
    # step or a row write (SolverMuJoCoC defers it here through Sim.defer_state_sync), or
    # forward kinematics of the articulations whose joints were written. XPBD writes bodies
    # only: cur.joints_stale.
    def current(self) -> newton.State:
        """Newton's State, any pending conversion run first (Sim.state)."""
        if self.cur.pending is not None:
            self.sync()
        return self.sim.stepping_state

    def joints_current(self) -> newton.State:
        """Newton's State for joint coordinates only: a pending forward kinematics stays pending
        (Sim.joint_state)."""
        if self.cur.pending is not None and not self.cur.pending_fk:
            self.sync()
        return self.sim.stepping_state

    def sync(self) -> None:
        """Run the pending conversion, if any."""
        sync = self.cur.take_pending()
        if sync is not None:
            sync()

    def defer(self, sync: Callable[[], None] | None) -> None:
        """`sync()` makes the State current; it runs when the State is next read (None: cancel)."""
        self.cur.defer(sync)

    def defer_kinematics(self, arts: wp.array | np.ndarray | None = None, n: int = 0) -> None:
        """After a write of joint coordinates: the bodies follow them when the State is next read,
        rather than at each write (a reset writes many); forward kinematics of the articulations
        `arts[:n]` (Warp int32 or a numpy int array, -1 entries skipped) of every such write, of
        all when one gives None."""
        sim = self.sim
        if self.kinematics is None or self.kinematics.model is not sim.model:
            self.kinematics = _Kinematics(sim)
        if not self.cur.pending_fk:          # (one pending pass covers every write)
            self.sync()
            self.cur.defer_kinematics(self._forward_kinematics)
            self.kinematics.start()
        self.kinematics.mark(arts, n)

    def _forward_kinematics(self):
        self.kinematics.run(self.sim.stepping_state)

    def sync_joints(self) -> None:
        """Make joint_q/joint_qd current after XPBD stepped the bodies."""
        if self.cur.joints_stale:
            st = self.current()
            _newton().eval_ik(self.sim.model, st, st.joint_q, st.joint_qd)
            self.cur.joints_synced()

    # ------------------------------------------------------------------ reads
    def read_roots(self, out: wp.array) -> None:
        """Root states (actors, 13) float32 into `out`: position (m, env frame), quaternion,
        linear (m/s) and angular (rad/s) velocity."""
        sim = self.sim
        st = sim.state
        self.launch(("roots", id(st)), _tensor_kernels().gather_roots, sim.host.num_actors,
                    (st.body_q, st.body_qd, sim.dev.actor_body0, sim.dev.body_origin, out))

    def read_bodies(self, out: wp.array) -> None:
        """Rigid body states (bodies, 13) float32 into `out`, laid out as the root states."""
        sim = self.sim
        st = sim.state
        self.launch(("bodies", id(st)), _tensor_kernels().gather_bodies, sim.host.num_bodies,
                    (st.body_q, st.body_qd, sim.dev.body_origin, out))

    def read_dofs(self, out: wp.array) -> None:
        """DOF states (dofs, 2) float32 into `out`: position (m or rad) and velocity."""
        sim = self.sim
        sim.sync_joint_state()
        st, d = sim.joint_state, sim.dev      # (joint coordinates only: pending body kinematics stays pending)
        self.launch(("dofs", id(st)), _tensor_kernels().gather_dofs, sim.host.num_dofs,
                    (st.joint_q, st.joint_qd, d.dof_q, d.dof_qd, out))

    # ------------------------------------------------------------------ writes
    def write_roots(self, src: wp.array, ids: wp.array, host: np.ndarray | None, n: int, refused: wp.array) -> None:
        """Root states (actors, 13; env frame) of the `n` actors `ids` (host: their host indices,
        None for all) into the joint coordinates of free roots and the joint frames of fixed
        ones; nothing when `refused` holds a row."""
        sim = self.sim
        sim.sync_joint_state()
        m, st, d = sim.model, sim.joint_state, sim.dev
        self.launch(("set_roots", id(st)), _tensor_kernels().scatter_roots, n,
                    (src, ids, d.actor_floating, d.actor_q0, d.actor_qd0, d.actor_joint0, d.actor_articulation,
                     m.joint_X_c, d.actor_body0, d.body_origin, st.joint_q, st.joint_qd, m.joint_X_p, self.arts,
                     refused))
        h = sim.host
        if h.any_fixed_root and (host is None or not h.actor_floating[host].all()):
            self.fixed_roots_moved()
        self._joints_written(n, host)

    def write_dofs(self, src: wp.array, ids: wp.array, host: np.ndarray | None, n: int) -> None:
        """DOF states (dofs, 2; Warp `src`, DOMAIN_SIM rows) of the `n` actors `ids` (host: their
        host indices, None for all)."""
        sim = self.sim
        sim.sync_joint_state()
        st, d = sim.joint_state, sim.dev
        self.launch(("set_dofs", id(st)), _tensor_kernels().scatter_actor_dofs, n,
                    (src, ids, d.actor_dof0, d.actor_ndof, d.dof_q, d.dof_qd, d.actor_articulation, st.joint_q,
                     st.joint_qd, self.arts))
        self._joints_written(n, host)

    def write_all_dofs(self, values: np.ndarray) -> bool:
        """Every DOF's state from host memory ((dofs, 2) float32 numpy), where the backend can
        take it without a device copy; False (nothing written): use write_dofs."""
        return False

    def write_bodies(self, src: wp.array, refused: wp.array) -> None:
        """All rigid body states (bodies, 13; env frame) -> bodies, then joints follow (inverse,
        then forward kinematics); no body state is written when `refused` holds a row."""
        newton, wp, sim = _newton(), _wp(), self.sim
        sim.sync_joint_state()
        st = sim.state
        wp.launch(_tensor_kernels().scatter_bodies, dim=sim.host.num_bodies, device=sim.device,
                  inputs=[src, sim.dev.body_origin, st.body_q, st.body_qd, refused])
        newton.eval_ik(sim.model, st, st.joint_q, st.joint_qd)
        newton.eval_fk(sim.model, st.joint_q, st.joint_qd, st)
        sim.state_written()

    def write_tendon_rest_lengths(self, tendons: np.ndarray, rest: np.ndarray) -> None:
        """Rest lengths (m) of Newton tendons `tendons`: MuJoCo compiles them into its per-world
        tendon_lengthspring, written here directly (model notifications do not recompute it)."""
        solver = self.sim.solver
        m2n = getattr(solver, "mjc_tendon_to_newton_tendon", None)
        if m2n is None or not hasattr(solver, "mjw_model"):
            return
        table = m2n.numpy()                               # [world, MuJoCo tendon] -> Newton tendon
        ls = solver.mjw_model.tendon_lengthspring
        vals = ls.numpy()
        lookup = np.full(max(int(table.max()), int(tendons.max())) + 1, np.nan, np.float32)
        lookup[tendons] = rest
        hit = (table >= 0) & np.isfinite(lookup[np.maximum(table, 0)])
        vals[hit] = lookup[table[hit]][:, None]
        ls.assign(vals)

    # ------------------------------------------------------------------ what the step path asks
    # step.py asks these, never which solver runs. Newton's State's answers are the plain ones:
    # one solver call per substep, no rows, Newton's kernels clamp DOF velocities and cap body
    # speeds on the State after each call, the NaN guard reads the State.
    merges_substeps = False     # one solver call may step all of a simulate's substeps
    limits_in_step = False      # PhysX's DOF velocity limits act inside the solver's step

    def step(self, state_in: newton.State, state_out: newton.State, dt: float, kw: dict) -> None:
        """One solver call of `dt` s from `state_in` into `state_out`, with the sim's Control and
        contacts; `kw`: the solver's keyword arguments (Newton's observables, the C step's)."""
        sim = self.sim
        sim.solver.step(state_in, state_out, sim.control, sim.contacts, dt, **kw)

    def on_rows(self, kw: dict) -> bool:
        """Whether a solver call with keyword arguments `kw` steps MuJoCo C's rows (then it takes
        `substeps` and the row inputs: SolverMuJoCoC.step)."""
        return False

    def joint_rows(self, kw: dict) -> bool:
        """Whether PhysX's joint rows (core/joint_rows.py) run with a solver call given `kw`."""
        return False

    def write_efforts(self, dev: DeviceTables) -> bool:
        """The pending DOF efforts straight into the solver's rows (consumed there); False: they go
        through Newton's Control (nothing written)."""
        return False

    def row_wrenches_ok(self) -> bool:
        """Whether body wrenches can be computed on the solver's rows (no Newton State needed)."""
        return False

    def begin_joint_rows(self, dev: DeviceTables, h: float, friction_scale: float) -> None:
        """Before a solver call of `h` s with the joint rows on (joint_rows answered True)."""

    def apply_joint_rows(self, h: float) -> None:
        """The DOF velocity limits after a solver call on the rows (on_rows answered True)."""

    def check_rows(self, dev: DeviceTables) -> None:
        """After a solver call on the rows: the bounds read by cap_speeds and surely_sound."""

    def cap_speeds(self, dev: DeviceTables) -> bool:
        """Isaac Gym's body speed caps applied by the solver path; False: the caller caps them on
        Newton's State."""
        return False

    def scale_velocities(self, newton_qd: np.ndarray, factors: np.ndarray) -> None:
        """The DOF velocities `newton_qd` (Newton DOF indices) times `factors`, in the rows the
        solver steps (Newton's State is scaled by the caller)."""

    def bodies_follow_joints(self) -> None:
        """After DOF velocities were clamped in Newton's State: its bodies follow them."""
        st = self.sim.state
        _newton().eval_fk(self.sim.model, st.joint_q, st.joint_qd, st)

    def surely_sound(self, dev: DeviceTables) -> bool:
        """True when the solver's own state shows nothing for the NaN guard to flag (the guard's
        checks on Newton's State can be skipped); False: check Newton's State."""
        return False

    def check_capacity(self) -> None:
        """Warn once when a buffer of the last steps overflowed (read with the NaN flags)."""
        observables.check_capacity(self.sim)

    def take_failure(self) -> tuple[list[int], str, str] | None:
        """(worlds, the solver's message, what to do) when the solver stopped some worlds in the
        last steps, now forgotten; None: none stopped."""
        return None

    # ------------------------------------------------------------------ what was written
    def targets_written(self) -> None:
        """DOF position or velocity targets were written into Newton's Control (read at each step)."""

    def fixed_roots_moved(self) -> None:
        """The joint frame of a fixed root changed: the solver reads it from the model."""
        self.sim.model_changed(int(_newton().ModelFlags.JOINT_PROPERTIES), now=True)

    def invalidate(self, actors: np.ndarray | None) -> None:
        """The state of `actors` (host sim indices; None: all) was written: the solver forgets
        what it carried over for their worlds. MuJoCo warm-starts each step from the last one's
        accelerations, so a state that went NaN keeps poisoning its world after a reset unless
        that is cleared (SolverMuJoCo.reset with StateFlags.NONE leaves the state alone and zeroes
        warm start, activations and applied forces, which control refills). Newton's VBD keeps
        each body's previous pose to derive its velocity: its reset with no state flags rebases
        that history on the written poses. XPBD carries nothing over."""
        newton, solver = _newton(), self.sim.solver
        if not (hasattr(solver, "mjw_data") or isinstance(solver, newton.solvers.SolverVBD)):
            return
        worlds = self.worlds_of(actors)
        mask = None if worlds is None else _wp().array(worlds, dtype=_wp().bool, device=self.sim.device)
        solver.reset(self.sim.state, mask, flags=newton.StateFlags.NONE)

    def worlds_of(self, actors: np.ndarray | None) -> np.ndarray | None:
        """The worlds of `actors` (host sim indices) as a bool mask over the model's worlds, the
        last entry world -1; None: every world (also when all envs share one world)."""
        sim = self.sim
        if actors is None or sim.one_world:
            return None
        worlds = np.zeros(int(sim.model.world_count) + 1, bool)
        worlds[sim.host.actor_env[np.asarray(actors, np.int64)]] = True
        return worlds

    def _joints_written(self, n: int, host: np.ndarray | None) -> None:
        """Joints -> bodies of the touched articulations, and the solver forgets its warm start.
        On MuJoCo, whose truth is the joint coordinates, the bodies follow when the state is next
        read (forward kinematics of all articulations then: theirs are consistent already); XPBD
        steps the bodies, whose others must stay bit for bit what they are."""
        sim = self.sim
        if sim.type == SimType.SIM_PHYSX:
            sim.state_written(host)
            sim.defer_kinematics(self.arts, n)
            return
        st = sim.state
        _newton().eval_fk(sim.model, st.joint_q, st.joint_qd, st, indices=self.arts[:n])
        sim.state_written(host)


class MuJoCoWarpRows(NewtonState):
    """The backend of mjw.SolverMuJoCoWarp: Newton's State, PhysX's joint rows inside each
    MuJoCo-Warp step (DOF friction bounds before it, velocity limits after it)."""

    limits_in_step = True

    def __init__(self, sim: Sim, solver: mjw.SolverMuJoCoWarp):
        super().__init__(sim)
        self.w = solver

    def joint_rows(self, kw: dict) -> bool:
        """NewtonState.joint_rows: every call."""
        return True

    def begin_joint_rows(self, dev: DeviceTables, h: float, friction_scale: float) -> None:
        """NewtonState.begin_joint_rows: the tables the step's joint rows read."""
        self.w.begin_joint_rows(dev, h, friction_scale)


class MuJoCoRows(NewtonState):
    """The backend of SolverMuJoCoC: MuJoCo's rows while they are current, Newton's State otherwise."""

    merges_substeps = True

    def __init__(self, sim: Sim, solver: mjc.SolverMuJoCoC):
        super().__init__(sim, solver.cur)       # (one record: the rows' flags and Newton's State's)
        self.c = solver

    # ------------------------------------------------------------------ the step path's questions
    def on_rows(self, kw: dict) -> bool:
        """NewtonState.on_rows: every call but one filling Newton's observables (a MuJoCo-Warp step)."""
        return "observables" not in kw

    def joint_rows(self, kw: dict) -> bool:
        """NewtonState.joint_rows: with every call on the rows."""
        return self.on_rows(kw)

    def write_efforts(self, dev: DeviceTables) -> bool:
        """NewtonState.write_efforts: into the qfrc_applied rows (unless a call fills Newton's
        observables: it runs on MuJoCo-Warp from Newton's Control)."""
        return not self.sim.step_kwargs and self.c.write_efforts(dev)

    def row_wrenches_ok(self) -> bool:
        """NewtonState.row_wrenches_ok: SolverMuJoCoC.row_wrenches_ok."""
        return self.c.row_wrenches_ok()

    def begin_joint_rows(self, dev: DeviceTables, h: float, friction_scale: float) -> None:
        """NewtonState.begin_joint_rows: SolverMuJoCoC.begin_joint_rows."""
        self.c.begin_joint_rows(dev, h, friction_scale)

    def apply_joint_rows(self, h: float) -> None:
        """NewtonState.apply_joint_rows: SolverMuJoCoC.apply_joint_rows."""
        self.c.apply_joint_rows(h)

    def check_rows(self, dev: DeviceTables) -> None:
        """NewtonState.check_rows: SolverMuJoCoC.check_rows."""
        self.c.check_rows(dev)

    def cap_speeds(self, dev: DeviceTables) -> bool:
        """NewtonState.cap_speeds: on the rows (SolverMuJoCoC.cap_speeds)."""
        return self.c.cap_speeds(dev)

    def scale_velocities(self, newton_qd: np.ndarray, factors: np.ndarray) -> None:
        """NewtonState.scale_velocities: in the rows."""
        self.c.scale_velocities(newton_qd, factors)

    def bodies_follow_joints(self) -> None:
        """NewtonState.bodies_follow_joints: when the State is next read."""
        self.defer_kinematics()

    def surely_sound(self, dev: DeviceTables) -> bool:
        """NewtonState.surely_sound: from the checks on MuJoCo's rows (SolverMuJoCoC.surely_sound)."""
        return self.c.surely_sound(dev)

    def check_capacity(self) -> None:
        """NewtonState.check_capacity: the C step warns of its own after each step."""

    def take_failure(self) -> tuple[list[int], str, str] | None:
        """NewtonState.take_failure: the worlds MuJoCo C raised an error in."""
        failed, self.c.failed = self.c.failed, None
        if failed is None:
            return None
        if "stackAlloc" in failed[1] or "out of memory" in failed[1]:
            todo = (f"MuJoCo's arena ({self.c.template.narena // 1024} KiB per world) is too small for their "
                    "contacts and constraints: raise it with sim.mujoco_options = {'arena_kib': N} before "
                    "prepare_sim (gymlike.envs tasks: sim.mujoco.arena_kib)")
        else:
            todo = "reset those envs"
        worlds = list(range(len(self.sim.envs))) if self.sim.one_world else failed[0]   # (one world: every env)
        return worlds, failed[1], todo

    # ------------------------------------------------------------------ states on the rows

    def read_roots(self, out: wp.array) -> None:
        """NewtonState.read_roots, from the rows while they are current."""
        rows = mjc.root_rows(self.sim)
        if rows is None:
            super().read_roots(out)
        else:                       # (no Newton conversion)
            rows[0].read_roots(rows[1], out)

    def read_bodies(self, out: wp.array) -> None:
        """NewtonState.read_bodies, from the rows while they are current (forward kinematics of
        MuJoCo's state: no Newton conversion)."""
        rows = mjc.body_rows(self.sim)
        if rows is None:
            super().read_bodies(out)
        else:
            rows[0].read_bodies(rows[1], out)

    def read_dofs(self, out: wp.array) -> None:
        """NewtonState.read_dofs, from the rows while they are current."""
        rows = mjc.dof_rows(self.sim)
        if rows is None:
            super().read_dofs(out)
        else:
            rows[0].read_dofs(rows[1], out)

    def write_roots(self, src: wp.array, ids: wp.array, host: np.ndarray | None, n: int, refused: wp.array) -> None:
        """NewtonState.write_roots, into the rows while they are current and every listed actor
        floats (a fixed base's pose is Newton's model: NewtonState writes it)."""
        h = self.sim.host
        fixed = h.any_fixed_root and (host is None or not h.actor_floating[host].all())
        rows = None if fixed else mjc.root_rows(self.sim)
        if rows is None:
            super().write_roots(src, ids, host, n, refused)
        else:
            rows[0].write_roots(rows[1], src, ids, n, refused)

    def write_dofs(self, src: wp.array, ids: wp.array, host: np.ndarray | None, n: int) -> None:
        """NewtonState.write_dofs, into the rows while they are current."""
        rows = mjc.dof_rows(self.sim)
        if rows is None:
            super().write_dofs(src, ids, host, n)
        else:                       # (the listed actors' DOFs: one launch into the rows)
            rows[0].write_dofs_of(rows[1], src, ids, n, self.sim.dev)

    def write_all_dofs(self, values: np.ndarray) -> bool:
        """NewtonState.write_all_dofs: into the rows while they are current."""
        rows = mjc.dof_rows(self.sim)
        if rows is None:
            return False
        rows[0].write_dofs(rows[1], values)        # (straight from the tensor's memory)
        return True

    def targets_written(self) -> None:
        """The C solver refills its ctrl rows before the next step."""
        self.c.targets_written()

    def fixed_roots_moved(self) -> None:
        """NewtonState.fixed_roots_moved, unless fixed roots are mocap bodies: the reload of the
        written worlds poses them from their joint frames."""
        if not self.c.fixed_roots_are_mocap:
            super().fixed_roots_moved()

    def invalidate(self, actors: np.ndarray | None) -> None:
        """NewtonState.invalidate: the C solver reloads the worlds written and forgets their warm start."""
        self.c.invalidate(self.worlds_of(actors), forget=True)       # (the C solver takes the host mask)


class _Kinematics:
    """Deferred forward kinematics (NewtonState.defer_kinematics): the articulations written since the
    last pass, as a mask Newton's eval_fk takes, replayed from captured graphs."""

    def __init__(self, sim):
        self.model = sim.model
        self.graphs = Graphs(sim.device)
        self.launch = Launcher(sim.device)
        self.mask = _wp().zeros(max(1, int(sim.model.articulation_count)), dtype=_wp().bool, device=sim.device)
        self.host = self.mask.numpy() if sim.device.startswith("cpu") else None
        self.everything = False
        self.marked = False           # the mask may hold marks (a pass replaced by a full conversion leaves them)

    def start(self):
        if self.marked:
            if self.host is not None:
                self.host[:] = False
            else:
                self.mask.zero_()
            self.marked = False
        self.everything = False

    def mark(self, arts, n):
        if arts is None:
            self.everything = True
        elif not self.everything:
            if self.host is not None:        # (CPU: the mask's memory, written in place)
                a = (arts if isinstance(arts, np.ndarray) else arts.numpy())[:n]
                self.host[a[a >= 0]] = True
            else:
                if isinstance(arts, np.ndarray):
                    arts = _wp().array(arts.astype(np.int32), dtype=_wp().int32, device=self.mask.device)
                self.launch("mark", _tensor_kernels().mark_articulations, n, (arts, self.mask))
            self.marked = True

    def run(self, st):
        mask = None if self.everything else self.mask
        self.graphs(("fk", id(st), mask is None), _newton().eval_fk, self.model, st.joint_q, st.joint_qd, st, mask)
        self.start()


def make(sim: Sim, solver: object) -> NewtonState:
    """The backend of `solver`, the sim's (build.py)."""
    cs, ws = mjc.c_step(solver), mjw.rows_step(solver)
    if cs is not None:
        return MuJoCoRows(sim, cs)
    return NewtonState(sim) if ws is None else MuJoCoWarpRows(sim, ws)
