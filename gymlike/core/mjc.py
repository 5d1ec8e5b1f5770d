"""The CPU pipeline on MuJoCo's C library: `SolverMuJoCoC`, Newton's SolverMuJoCo whose worlds
step in MuJoCo C (`mujoco.batch`: C++, all cores, no GIL, no Python loop over worlds) instead of
MuJoCo-Warp on Warp's CPU backend. gymlike builds it for SIM_PHYSX sims on the CPU.

The solver moves the three copies of the simulated state; which of them is current is kept in
its `cur` (core/currency.py), the record the sim's backend shares:

* MuJoCo's state, one float64 row per world in the batch (qpos, qvel, act, warm start, and the
  inputs of the next step: ctrl, qfrc_applied, xfrc_applied, equality switches, mocap poses):
  the truth, carried from step to step.
* Newton's MuJoCo data (`mjw_data`, float32 Warp arrays): where Newton's conversions read and
  write; copied to and from the rows.
* Newton's `State` (joint and body states, what gymlike's API reads): converted from MuJoCo's
  rows when first read after a step (`defer`, Sim.state), and pushed into the rows only for the
  worlds something wrote (`reset(state, world_mask)` after gymlike's state writes: `rows_stale`).

Newton's conversions (upstream.py names them) run as Warp CPU graphs (`wp.ScopedCapture`):
captured at their second use, replayed in C++ afterwards.

Observables (contact forces, force sensors, DOF forces) come from MuJoCo C too: on request
the worlds step a copy of the model compiled from the same MjSpec plus one force sensor, which
makes MuJoCo compute its body interaction and external forces (cfrc_int, cfrc_ext) every
step; the batch copies them out and `contact_wrenches` / `dof_forces` read them (readings of
the last substep, as MuJoCo-Warp's). Per-contact listings (get_env_rigid_contacts) run
MuJoCo's forward dynamics of the asked worlds at their current state (`contacts_now`).

Per-world model parameters (masses, gains, friction, limits set through the API) live in
`mjw_model`'s per-world arrays; a world whose values differ from the template steps its own
copy of it (made after a property change, never per step).

Switch: GYMLIKE_CPU_PIPELINE=mujoco-c (the default) or warp (MuJoCo-Warp on Warp's CPU backend
for every step); see python_bindings_docs/cpu_pipeline.md.
"""

from __future__ import annotations

import copy
import os
import re
from typing import TYPE_CHECKING

import numpy as np

from . import joint_rows, mjw, upstream
from .currency import Currency
from .host import f64, ints, view
from .math3d import quat_to_matrix
from .tables import spans
from .launch import Graphs, Launcher, Memo
from .errors import GymlikeValueError, listed, warn
from .runtime import kernels as _kernels, newton as _newton, tensor_kernels as _tensor_kernels, wp as _wp

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    import newton
    import warp as wp

    from .sim import Sim
    from .tables import DeviceTables

CHOICES = ("mujoco-c", "warp")


def choice() -> str:
    """The CPU pipeline GYMLIKE_CPU_PIPELINE asks for: 'mujoco-c' (default) or 'warp'."""
    v = os.environ.get("GYMLIKE_CPU_PIPELINE", "mujoco-c").strip().lower() or "mujoco-c"
    if v not in CHOICES:
        raise GymlikeValueError(f"GYMLIKE_CPU_PIPELINE must be one of {', '.join(CHOICES)}, got {v!r}")
    return v


def applies(device: str) -> bool:
    """Whether a SIM_PHYSX sim on `device` steps on MuJoCo C."""
    return device.startswith("cpu") and choice() == "mujoco-c"


def c_step(solver: object) -> SolverMuJoCoC | None:
    """The solver when it steps on MuJoCo C, else None."""
    return solver if isinstance(solver, SolverMuJoCoC) else None


def _on_rows(sim: Sim, tables: Callable[[SolverMuJoCoC], Any]) -> tuple[SolverMuJoCoC, Any] | None:
    """(C solver, tables(solver)) when the sim steps on MuJoCo C, its rows hold the state now
    (Currency.rows_current) and the tables exist, else None."""
    cs = c_step(sim.solver)
    if cs is None or not cs.cur.rows_current(sim.stepping_state):
        return None
    t = tables(cs)
    return None if t is None else (cs, t)


def root_rows(sim: Sim) -> tuple[SolverMuJoCoC, tuple] | None:
    """(C solver, its root_tables) when the sim's root states can be read on MuJoCo's rows now,
    and written there for floating actors, else None."""
    return _on_rows(sim, lambda cs: cs.root_tables(sim.dev))


def body_rows(sim: Sim) -> tuple[SolverMuJoCoC, tuple] | None:
    """(C solver, its body_tables) when the sim's rigid body states can be read on MuJoCo's
    rows now, else None."""
    return _on_rows(sim, lambda cs: cs.body_tables(sim.dev))


def dof_rows(sim: Sim) -> tuple[SolverMuJoCoC, DofCells] | None:
    """(C solver, its dof_cells) when the sim's DOF states can be read and written on MuJoCo's
    rows now, else None."""
    return _on_rows(sim, lambda cs: cs.dof_cells(sim.dev.dof_qd))


SolverMuJoCo = _newton().solvers.SolverMuJoCo

# MuJoCo warnings that mean the step lost contacts or constraints (arena too small)
_CAPACITY_WARNINGS = ("mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL")


class MuJoCoWarnings:
    """MuJoCo C's own warnings during a sim's calls into it, given as Python warnings, each kind
    (the message without its numbers) once per sim. MuJoCo's default handler prints every one
    to stdout and appends it to a MUJOCO_LOG.TXT in the working folder: a hand's grasps made
    thousands of lines and a megabyte file in a client's folder. The handler is installed only
    for the sim's calls (`with solver.mj_warnings:`, its build included) and only where the
    client installed none of its own, which then keeps receiving them. MuJoCo calls it on the
    batch's threads, holding the GIL."""

    _NUMBERS = re.compile(r"[-+]?[0-9][0-9.eE+-]*")

    def __init__(self):
        import mujoco
        self.mujoco = mujoco
        self.got = []            # (the messages of the current call)
        self.shown = set()       # (the kinds given so far)
        self.installed = False
        self.depth = 0           # (calls within calls: the outermost installs and reports)

    def __enter__(self):
        if not self.depth and self.mujoco.get_mju_user_warning() is None:
            self.mujoco.set_mju_user_warning(self.got.append)
            self.installed = True
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth:
            return False
        if self.installed:
            self.mujoco.set_mju_user_warning(None)
            self.installed = False
        if self.got:
            got, self.got[:] = list(self.got), []
            kinds = [self._NUMBERS.sub("#", m) for m in got]
            for message, kind in zip(got, kinds):
                if kind not in self.shown:
                    self.shown.add(kind)
                    warn(f"MuJoCo warned: {message.strip()} ({kinds.count(kind)} in this call; gymlike gives "
                         "each kind of MuJoCo's warnings once per sim)", RuntimeWarning)
        return False


@upstream.constants_on_c
@upstream.excludes_in_one_pass
@upstream.keeping_spec
class SolverMuJoCoC(SolverMuJoCo):
    """SolverMuJoCo stepping its worlds with MuJoCo's C library (see the module docstring).

    `defer(fn)`: called after each step with the function that brings Newton's state up to date
    (gymlike's Sim runs it on the next read of `sim.state`); None converts after every step.
    `nthread`: MuJoCo threads (default: one per core, at most one per world). `arena_kib`:
    MuJoCo's arena per thread (contacts and constraints of one world's step), KiB; default
    MuJoCo's own sizing (megabytes for gymlike's robots). `mj_warnings`: the sim's
    MuJoCoWarnings (the one its build ran in; default a new one)."""

    def __init__(self, model, *, defer=None, nthread=None, arena_kib=None, mj_warnings=None, **kwargs):
        import mujoco
        from mujoco import batch as mj_batch
        self.mj_spec = None
        self.graphs = None           # (SolverMuJoCo's construction notifies model changes)
        self.cur = Currency()        # which of the rows, their inputs and Newton's State are current
        # tables derived from the model, the batch and gymlike's tables, by name: "check" (of
        # check_rows), "limits" (_guard_tables), "efforts" (write_efforts), "roots" (root_tables),
        # "bodies" (body_tables), "dof_cells", "set_dofs" (write_dofs_of), "forget"
        # (_forget_ranges), "dof_forces", "contact_wrenches", "body_f" (_body_f_rows), "wrenches"
        # (_wrench_tables), "caps" (_speed_bound_tables), "setconst" (_scratch_model),
        # "joint_structure" (_joint_tables), "check_structure" (_build_check_tables)
        self.mj_warnings = MuJoCoWarnings() if mj_warnings is None else mj_warnings
        self.memo = Memo()
        self.check_dev = None        # the DeviceTables check_rows last read
        # one world holding every env (envs of different actors): its MuJoCo exclusions keep the
        # envs apart, too many for Newton's per-pair loop (upstream.excludes_in_one_pass)
        self.exclude_later = not kwargs.get("separate_worlds", True)
        super().__init__(model, use_mujoco_contacts=True, **kwargs)
        mjw.fixed_child_frames(self)
        mjw.floor_contact_weights(self)
        self.mujoco, self._batch_mod = mujoco, mj_batch
        self.defer = defer
        self.nworld = int(self.mjw_data.nworld)
        self.nthread = nthread or max(1, min(os.cpu_count() or 1, self.nworld))
        m = self.mj_model
        # Newton writes inertial frames (body_ipos/iquat) per world after MuJoCo compiled the
        # template; the compiler's "inertial frame == body frame" shortcut would skip them
        m.body_sameframe[:] = 0
        # a NaN must reach gymlike's NaN guard (which names the env), not be reset silently
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
        self.arena_kib = arena_kib
        self.hull_meshes = self._meshes_without_hulls()
        if arena_kib is not None or self.hull_meshes:
            m = self._compiled(sensor=False)
            m.body_sameframe[:] = 0
        self.template = m            # the model the worlds step (Newton's, or compiled again: arena, sensor)
        dev = str(model.device)
        self.graphs = Graphs(dev)
        self.launch_rows = Launcher(dev, self.nthread)    # (kernels on the rows, on MuJoCo's threads)
        # the count of an indexed write's list, read by its kernel from memory (graph replays)
        self.count = _wp().zeros(1, dtype=_wp().int32, device=dev)
        self.count_host = self.count.numpy()
        self.mask = _wp().zeros(self.nworld + 1, dtype=_wp().bool, device=dev)   # reloaded worlds
        self.mask_np = self.mask.numpy()
        self.cur.track_rows(self.nworld)
        self.fields = self.base = None
        self.sync_mode = None        # (friction rows, observing) the last sync read the fields with
        self.const_worlds = np.ones(self.nworld, bool)   # worlds whose parameters changed since set_constants
        self.failed = None           # (worlds, message) MuJoCo raised an error in, last step
        # callable(state rows, substeps) run before each batch step: benchmarks record the steps
        # they replay in a raw rollout (benchmarks/raw_mujoco.py)
        self.before_step = None
        # Newton's conversion of efforts on BALL joints reads joint_q (the joint's rotation):
        # those inputs need Newton's state current before each step (gymlike builds ball joints
        # as three hinges today, so this guards a future mapping)
        newton = _newton()
        self.inputs_read_state = bool((model.joint_type.numpy() == int(newton.JointType.BALL)).any())
        self.dt = None
        self.views = {}
        self.observing = False       # the worlds step the model with the force sensor
        self.dof_rows = None         # Newton DOF -> flat qvel row (_newton_dof_rows)
        # actors welded to the world are MuJoCo mocap bodies: a new root pose reaches MuJoCo
        # through the reload of its world (no model notification needed)
        newton = _newton()
        jt, jp, jc = (a.numpy() for a in (model.joint_type, model.joint_parent, model.joint_child))
        roots = jc[(jt == int(newton.JointType.FIXED)) & (jp < 0)]
        b2n = self.mjc_body_to_newton.numpy()
        mocap = np.asarray(m.body_mocapid)[np.nonzero(np.isin(b2n, roots))[1]]
        self.fixed_roots_are_mocap = bool(len(mocap) >= len(roots) and (mocap >= 0).all())
        self.obs_tables = None
        self.capacity_seen = None
        self.per_world_keys = frozenset()    # model fields the batch gives per-world values (_sync_params)
        self.joint = None            # PhysX's joint rows: tables and views (_joint_tables), None: off or stale
        self.joint_fields = ()       # the fields the batch binds for the joint rows (joint_rows.fields)
        self.friction_rows = False   # MuJoCo's dof_frictionloss holds PhysX's joint friction bounds, per world
        self._make_batch(m)

    @staticmethod
    def one_world_filters(model: newton.Model, shapes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo's filters of a one world's colliding `shapes`: (contype = conaffinity of each
        shape, body pairs (n, 2) to exclude). Each env's collision group gets one of 31 mask
        bits in turn (negative groups, the ground's and group -1 actors', every bit), so that
        MuJoCo's masks keep envs of different bits apart before any exclusion is read; a body
        pair none of whose shapes may touch (Newton's groups: envs sharing a bit; filter pairs:
        actors without self-collisions) and whose masks meet becomes an exclusion. Both matter
        for speed: MuJoCo scans its sorted exclusions from the start for every body pair its
        masks let through (a one world of 64 envs with every cross-env body pair excluded,
        340,480 exclusions, spent 4.5 of its 7 ms per step there). Newton's conversion keeps
        groups apart with masks exact up to 256 colliding shapes (beyond, a colouring that lets
        shapes of different colours meet) and excludes only filtered pairs, visiting every body
        pair of the world in Python."""
        shapes = np.asarray(shapes, np.int64)
        sb = model.shape_body.numpy()[shapes]
        sg = model.shape_collision_group.numpy()[shapes].astype(np.int64)
        masks = _group_masks(sg)
        bg = np.unique(np.stack([sb, sg], 1), axis=0)             # (body, group), by body
        body, first, count = np.unique(bg[:, 0], return_index=True, return_counts=True)
        bmask = np.zeros(len(body), np.int64)
        np.bitwise_or.at(bmask, np.searchsorted(body, sb), masks)
        a, b = _pairs_sharing_bits(bmask)
        g, single = bg[first, 1], count == 1
        # body pairs whose groups may meet (or whose shapes span groups): decided shape by shape
        maybe = _groups_meet(g[a], g[b]) | ~single[a] | ~single[b]
        out = [np.stack([body[a[~maybe]], body[b[~maybe]]], 1)]
        per_body = np.unique(sb, return_counts=True)[1]             # (same bodies, same order)
        shapes_of = dict(zip(body.tolist(), np.split(np.argsort(sb, kind="stable"), np.cumsum(per_body)[:-1])))
        ca, cb = body[a[maybe]].tolist(), body[b[maybe]].tolist()
        if ca:
            grid = [np.stack(np.meshgrid(shapes_of[x], shapes_of[y], indexing="ij"), -1).reshape(-1, 2)
                    for x, y in zip(ca, cb)]
            local = np.concatenate(grid)
            allowed = (_groups_meet(sg[local[:, 0]], sg[local[:, 1]])
                       & ~np.asarray(model.shape_collision_filter_mask(shapes[local]), bool))
            ends = np.cumsum([len(x) for x in grid])
            none = np.add.reduceat(allowed.astype(np.int64), ends - [len(x) for x in grid]) == 0
            out.append(np.stack([np.asarray(ca)[none], np.asarray(cb)[none]], 1))
        return masks, np.concatenate(out)

    # ------------------------------------------------------------------ the batch
    def _make_batch(self, model, state=None):
        # Newton's contact gap (Isaac Gym's contact_offset: physx.contact_offset on SIM_PHYSX,
        # core/collision.py; 0.1 m for Newton's own shapes) becomes MuJoCo's
        # geom gap, within which MuJoCo makes contacts its solver ignores: wasted work, and on a
        # fine heightfield they fill the 50 contacts MuJoCo keeps per geom pair so that the real
        # one is lost (quadrupeds fell through terrain). The C step collides without it (here
        # and in _sync_params: Newton writes the gap back into its template on model changes).
        model.geom_gap[:] = 0.0
        b = self._batch_mod.Batch(model, nsim=self.nworld, nthread=self.nthread)
        if state is not None:
            b.state[:] = state
        self.batch = b
        self.expanded = set()             # model fields this batch holds per world (_expand)
        # the rows as one Warp array (a view: no copy), read and written by the row kernels
        self.state_rows = _wp().array(ptr=b.state.ctypes.data, dtype=_wp().float64, shape=b.state.shape,
                                      device="cpu")
        self.memo.drop("wrenches", "check", "efforts")   # (views of the old batch's rows and fields)
        self.rows = {name: b.bind(name) for name in
                     ("time", "qpos", "qvel", "act", "qacc_warmstart", "ctrl", "qfrc_applied",
                      "xfrc_applied", "eq_active", "mocap_pos", "mocap_quat")}
        # the same as (worlds, values) views (reshaping a view of the rows keeps a view)
        self.flat = {name: v.reshape(self.nworld, -1) for name, v in self.rows.items()}
        base = b.state.ctypes.data
        self.row_at = {name: (v.ctypes.data - base) // b.state.itemsize if v.size else 0
                       for name, v in self.rows.items()}
        assert all(v.size == 0 or np.shares_memory(v, b.state) for v in self.flat.values())
        if self.observing:
            self.out = {name: b.bind(name) for name in ("cfrc_ext", "cfrc_int", "cdof", "subtree_com", "xipos",
                                                         "xpos", "xquat")}
        self.joint = None
        if self.joint_fields:
            self.frame_out = {name: b.bind(name) for name in self.joint_fields}
            self.qvel0 = np.zeros((self.nworld, max(1, model.nv)))
            # the worlds whose bound fields are of their current state and parameters (the
            # friction rows run mj_forward on the others first), and the forces of their last step
            self.joint_valid = np.zeros(self.nworld, bool)
            self.qfrc_prev = np.zeros((self.nworld, max(1, model.nv)))
        self.cur.batch_made()
        W = self.mujoco.mjtWarning
        self.capacity_idx = [int(getattr(W, n)) for n in _CAPACITY_WARNINGS]
        self.capacity_seen = np.zeros((self.nworld, len(self.capacity_idx)), np.int64)
        self.warn_counts = b.warning[:, :, 1]         # (a view: the batch's warning counters)
        self.warn_total = int(self.warn_counts.sum())

    def _expand(self, name: str) -> np.ndarray:
        """The batch's per-world values of a model field (Batch.expand), noting that it has them."""
        self.expanded.add(name)
        return self.batch.expand(name)

    def _mjw(self, name):
        """`mjw_data.<name>` as a (worlds, values) numpy view, kept while the array is the same."""
        arr = getattr(self.mjw_data, name)
        c = self.views.get(name)
        if c is None or c[0] is not arr:
            c = self.views[name] = (arr, arr.numpy().reshape(self.nworld, -1))
        return c[1]

    def _row(self, name):
        """A state field of every world's row as (worlds, values): a view of the batch's rows."""
        return self.flat[name]

    # ------------------------------------------------------------------ what others tell it
    def invalidate(self, worlds: np.ndarray | None = None, forget: bool = False) -> None:
        """Newton's state of `worlds` (a bool mask over worlds; None: all) was written outside
        the C step: those rows reload from it before the next step (the others keep their
        float64 state, so a reset of some envs leaves the others' trajectories as they were).
        `forget`: the written state does not continue the old one (warm start, activations)."""
        self.cur.newton_written(worlds, forget)

    def reset(self, state: newton.State, world_mask: wp.array | None = None,
              flags: int | None = None) -> None:
        """SolverMuJoCo.reset; the worlds reset reload from Newton's state before the next step,
        without the warm start and activations they carried."""
        newton = _newton()
        worlds = None if world_mask is None else world_mask.numpy()[:self.nworld]
        if flags is not None and int(flags) == int(newton.StateFlags.NONE):
            # (Newton's reset would clear MuJoCo-Warp's copies of the inputs and warm start: the
            # C step keeps both in its rows, the inputs rewritten whenever they change)
            self.sync()
            self.invalidate(worlds, forget=True)
            return
        self.sync()
        super().reset(state, world_mask, flags=flags)
        self.invalidate(worlds, forget=True)
        self.cur.solver_reset()            # (Newton cleared MuJoCo-Warp's inputs: copy them again)

    def targets_written(self) -> None:
        """Position or velocity targets changed (MuJoCo's ctrl follows them at the next step)."""
        self.cur.targets_written()

    def notify_model_changed(self, flags: int) -> None:
        """SolverMuJoCo.notify_model_changed, then drop what the C step derived from the model."""
        self.notifying = int(flags)              # (read by set_constants)
        try:
            super().notify_model_changed(flags)      # (may pose mocap bodies, switch equalities)
        finally:
            self.notifying = 0
        self.model_changed()

    def model_changed(self) -> None:
        """Drop the caches, bounds and recorded graphs that depend on the model's parameters."""
        self.cur.model_changed()         # (gains and actuators may change what ctrl means)
        # (the row kernels' model views, "wrenches", follow the batch's values; the chain
        # geometry of the speed bounds, "caps", is dropped by the sync that finds it changed)
        self.memo.drop("check", "limits", "efforts")     # (DOF limits and modes may change)
        self.memo.drop("body_f")         # (body flags may change)
        self.joint = None                # (limits, friction, armature and gravity may change)
        if self.graphs is not None:      # (arrays Newton replaced must not be replayed)
            self.graphs.clear()

    # ------------------------------------------------------------------ MuJoCo's constants
    # what set_const_0 computes that Newton and the step read (mjw_model arrays of these names)
    CONSTANTS = ("dof_invweight0", "body_invweight0", "tendon_length0", "tendon_invweight0", "actuator_acc0")
    # ... and what Newton's notification derives from them afterwards (limit stiffness from the
    # inverse weights), half-written while set_constants runs
    FROM_CONSTANTS = frozenset(CONSTANTS) | {"jnt_solref", "tendon_solref_lim", "tendon_range"}

    def set_constants(self) -> bool:
        """Newton's _set_const_0 on MuJoCo C (upstream.constants_on_c): MuJoCo's qpos0-dependent
        constants by mj_setConst on the model of each world whose parameters changed since the
        last call (domain randomization changes the few envs that reset: 0.15 ms per
        ShadowHand world, where MuJoCo-Warp's launches over every world take 70 ms at 64), from
        the parameters Newton has just written into mjw_model, then written back into
        mjw_model, where the rest of Newton's notification (limit gains from the inverse
        weights) and the next parameter sync read them. False, and Newton computes them,
        before the batch exists and where Newton's call does more than that
        (upstream.plain_set_const)."""
        if getattr(self, "batch", None) is None or not upstream.plain_set_const(self):
            return False
        flags = _newton().ModelFlags
        if self.template.neq and getattr(self, "notifying", 0) & int(flags.JOINT_DOF_PROPERTIES
                                                                     | flags.JOINT_REFERENCE_POSE_PROPERTIES):
            return False     # (a new reference pose moves the equalities' anchors: Newton's path redoes those)
        out = []
        for name in self.CONSTANTS:
            dst = getattr(self.mjw_model, name, None)
            if dst is None or dst.size == 0:
                continue
            a = dst.numpy()          # (a view of the CPU array)
            if a.shape[0] != self.nworld or a[0].size != np.asarray(getattr(self.template, name)).size:
                return False         # (a layout gymlike does not know: Newton computes them)
            out.append((name, a))
        # (the batch steps Newton's new masses, inertias, armatures; what Newton derives from the
        # constants after this call, in between, is read at the next sync)
        self._sync_params(defer=self.FROM_CONSTANTS)
        m, d = self.memo.get("setconst", (self.batch,), self._scratch_model)
        with self.mj_warnings:
            for w in np.flatnonzero(self.const_worlds):
                self.batch.get_model(int(w), m)
                self.mujoco.mj_setConst(m, d)
                for name, a in out:
                    a[w] = np.asarray(getattr(m, name)).reshape(a[w].shape)
        self.const_worlds[:] = False
        return True

    def constants_set(self) -> None:
        """After MuJoCo's constants were computed (upstream.constants_on_c)."""
        mjw.floor_contact_weights(self)

    def _scratch_model(self):
        """A copy of world 0's model and its MjData, to run MuJoCo functions on one world's model
        (Batch.get_model writes a world's values into it)."""
        m = self.batch.get_model(0)
        return m, self.mujoco.MjData(m)

    # ------------------------------------------------------------------ per-world parameters
    def _fields(self):
        """(batch field name, mjw_model array) of the mjw_model arrays that mirror MjModel
        fields the batch can give per-world values (model and option fields)."""
        mw, m = self.mjw_model, self.template
        out = []
        for owner in ("", "opt"):
            src_w, src_m = (mw, m) if not owner else (mw.opt, m.opt)
            for name in dir(src_w):
                key = name if not owner else f"opt.{name}"
                if name.startswith("_") or key not in self._batch_mod.MODEL_FIELDS:
                    continue
                if self.hull_meshes and name.startswith(_STRUCTURE):
                    continue                 # (the template's own: it has the hull carriers)
                arr, ref = getattr(src_w, name, None), getattr(src_m, name, None)
                if ref is None or not hasattr(arr, "numpy") or not hasattr(arr, "shape") or callable(ref):
                    continue
                ref = np.asarray(ref)
                if ref.dtype.kind not in "fiu" or ref.size == 0:
                    continue
                shape = ref.shape
                if name.startswith("geom_") and not owner and len(ref) > self.mj_model.ngeom:
                    shape = (int(self.mj_model.ngeom), *ref.shape[1:])     # (Newton's geoms: the hull carriers follow)
                size = int(np.prod(tuple(arr.numpy().shape)))     # (vector dtypes: their components count)
                if size in (np.prod(shape), self.nworld * np.prod(shape)):
                    out.append((key, arr, shape))
        return out

    # the fields whose values decide the inertial frames and the bodies' BVH boxes (_inertial_frames)
    FRAME_INPUTS = frozenset({"body_iquat", "body_inertia", "body_ipos", "geom_aabb", "geom_pos", "geom_quat"})
    # ... and the chain geometry of the speed bounds (_make_speed_bound_tables)
    GEOMETRY = frozenset({"body_pos", "body_quat", "body_ipos", "jnt_pos", "jnt_axis", "qpos0"})

    def _sync_params(self, defer: frozenset = frozenset()):
        """Every world steps the parameters Newton holds for it in mjw_model (masses, gains,
        friction, limits, options set through the API): values all worlds share go into the
        template (the batch is remade from it when one changes), fields whose values differ
        between worlds become per-world values (`Batch.expand`: the batch copies those into
        each world's model every step, so only real differences are made per-world). Only
        the fields Newton wrote since the last sync are worked on again: a notification
        rewrites a few of ~150 (domain randomization at every reset). Fields in `defer` are
        left for the next sync."""
        mode = (self.friction_rows, self.observing)      # (they change how some fields are read)
        if self.fields is None or mode != self.sync_mode:
            self.fields = [(key, arr.numpy(), shape) for key, arr, shape in self._fields()]   # (views)
            self.base = {key: self._base_value(key) for key, _, _ in self.fields}
            self.synced, self.shared, self.frames, self.sync_mode = {}, {}, None, mode
        n = self.nworld
        dirty, frame_worlds = set(), np.zeros(n, bool)
        for key, raw, shape in self.fields:
            if key in defer:
                continue
            now = raw.tobytes()          # (a copy to compare with: 1 us for most fields)
            last = self.synced.get(key)
            if last is None or last[0] != now:
                v = self._world_values(key, raw, shape)
                self.synced[key] = (now, v)
                dirty.add(key)
                worlds = np.ones(n, bool) if last is None or last[1].shape != v.shape else (last[1] != v).any(1)
                if key in self.FRAME_INPUTS:
                    frame_worlds |= worlds
                if key not in self.FROM_CONSTANTS:       # (the worlds whose constants set_constants redoes)
                    self.const_worlds |= worlds
                if self.joint_fields:                    # (their bound fields are of the old parameters)
                    self.joint_valid[worlds] = False
        values = {key: v for key, (_, v) in self.synced.items()}
        if self.frames is None or frame_worlds.all():
            self.frames = self._inertial_frames(values)
            dirty |= set(self.frames)
        elif frame_worlds.any():             # (the worlds whose mass properties or geoms changed)
            w = np.flatnonzero(frame_worlds)
            part = self._inertial_frames({k: values[k][w] for k in self.FRAME_INPUTS & set(values)})
            for key, v in part.items():
                self.frames[key][w] = v
            dirty |= set(part)
        values.update(self.frames)
        frames_broken = bool(dirty & (self.FRAME_INPUTS | set(self.frames))) and self._break_same_frames(values)
        owned = {"dof_frictionloss"} & set(values) if self.friction_rows else set()
        for key in dirty:
            v = values[key]
            self.shared[key] = key not in owned and bool((v == v[:1]).all())
        per_world = {key for key in values if not self.shared.get(key, False)}
        remake = self.expanded != per_world or frames_broken
        if not (dirty or remake):
            self.cur.params_synced()
            return
        for key in dirty:
            if self.shared[key] and self._to_template(key, values[key][0]):
                remake = True
        if remake:
            for key in owned:
                # (the friction rows write each step's bounds there, per world: keep what they wrote)
                values[key] = (self._expand(key).reshape(n, -1).copy() if key in self.per_world_keys
                               else np.zeros_like(values[key]))
            self._make_batch(self.template, self.batch.state)
        for key in per_world if remake else (per_world & dirty) - owned:
            cur = self._expand(key)
            if not np.array_equal(cur.reshape(n, -1), values[key]):
                cur[...] = values[key].reshape(cur.shape)
        if frozenset(per_world) != self.per_world_keys:
            self.per_world_keys = frozenset(per_world)
            self.memo.drop("wrenches")
        if dirty & self.GEOMETRY:
            self.memo.drop("caps")
        self.cur.params_synced()

    def _break_same_frames(self, values: dict) -> bool:
        """MuJoCo's compiler marks a geom whose frame is its body's frame or its body's inertial
        frame, in position and rotation or in rotation alone (geom_sameframe), and kinematics
        then copies that frame instead of applying the geom's pos / quat. The per-world values
        can break the mark in other worlds than the one it was compiled from (another asset's
        geom frame or mesh orientation, a centre of mass moved per env): those geoms lose it
        in the template, for good (a mark is never given back). True where one did (the batch
        is then made again)."""
        m, ng = self.template, int(self.mj_model.ngeom)
        code = np.asarray(m.geom_sameframe)[:ng]
        live = np.flatnonzero(code != 0)
        if not len(live):
            return False
        n, nb = self.nworld, int(m.nbody)

        def per_world(key, base, width, count):
            v = values.get(key)
            v = np.asarray(base, np.float64).reshape(1, -1) if v is None else v
            v = v.reshape(len(v), -1, width)[:, :count]
            return np.broadcast_to(v, (n, count, width))
        pos = per_world("geom_pos", m.geom_pos, 3, ng)
        quat = per_world("geom_quat", m.geom_quat, 4, ng)
        ipos = per_world("body_ipos", m.body_ipos, 3, nb)
        iquat = per_world("body_iquat", m.body_iquat, 4, nb)
        F = self.mujoco.mjtSameFrame
        one = np.array([1.0, 0.0, 0.0, 0.0])
        tol = 1e-6      # (float32 rounding of Newton's values: the frame is that one)

        def same_rot(q, r):
            return np.minimum(np.abs(q - r).max(-1), np.abs(q + r).max(-1)) <= tol
        broken = []
        for g in live:
            c, b = int(code[g]), int(m.geom_bodyid[g])
            if c in (int(F.mjSAMEFRAME_BODY), int(F.mjSAMEFRAME_BODYROT)):
                ok = same_rot(quat[:, g], one)
                if c == int(F.mjSAMEFRAME_BODY):
                    ok &= np.abs(pos[:, g]).max(-1) <= tol
            else:
                ok = same_rot(quat[:, g], iquat[:, b])
                if c == int(F.mjSAMEFRAME_INERTIA):
                    ok &= np.abs(pos[:, g] - ipos[:, b]).max(-1) <= tol
            if not ok.all():
                broken.append(g)
        if not broken:
            return False
        m.geom_sameframe[broken] = int(F.mjSAMEFRAME_NONE)
        return True

    def _world_values(self, key: str, raw: np.ndarray, shape: tuple) -> np.ndarray:
        """(worlds, n) float64: Newton's values of a field (`raw`, mjw_model's array) as each world
        steps them."""
        n = self.nworld
        v = raw.reshape(-1, *shape) if shape else raw.reshape(-1)
        if key == "geom_gap":
            v = np.zeros_like(v)
        elif key == "opt.disableflags":
            # a NaN must reach gymlike's NaN guard (which names the env), not be reset silently
            flags = self.mujoco.mjtDisableBit
            v = (v.astype(np.int64) | int(flags.mjDSBL_AUTORESET)) & ~(int(flags.mjDSBL_SENSOR)
                                                                        if self.observing else 0)
        v = np.broadcast_to(v, (n, *v.shape[1:])).reshape(n, -1) if len(v) == 1 else v.reshape(n, -1)
        base = self.base[key].reshape(1, -1)
        if v.shape[1] < base.shape[1]:      # (the hull carriers keep the template's values)
            v = np.concatenate([v, np.broadcast_to(base[:, v.shape[1]:], (n, base.shape[1] - v.shape[1]))], 1)
        if v.dtype == np.float32:
            # Newton's float32 copy of the compiled float64 value stands for that value
            v = np.where(v == base.astype(np.float32), base, v)
        v = v.astype(np.float64)
        if key == "dof_solimp" and self.friction_rows:
            # PhysX's friction rows are hard constraints: MuJoCo's friction loss, soft by
            # default (it removes 90% of a step's velocity change), made stiff enough that an
            # explicit PD loop 100x over its stable gain stays bounded (joint_rows.py)
            v = v.reshape(n, -1, 5)
            v[:, :, :2] = joint_rows.FRICTION_IMPEDANCE
            v = v.reshape(n, -1)
        return v

    def _to_template(self, key: str, value: np.ndarray) -> bool:
        """Write a value all worlds share into the template; True when it changed."""
        target, name = (self.template.opt, key[4:]) if key.startswith("opt.") else (self.template, key)
        cur = getattr(target, name)
        if isinstance(cur, np.ndarray) and cur.size != value.size:    # (bvh_aabb: the bodies' rows lead)
            cur = cur.reshape(-1)[:value.size]
        if np.array_equal(np.asarray(cur, np.float64).reshape(-1), value):
            return False
        if isinstance(cur, np.ndarray):
            cur[...] = value.reshape(cur.shape)
        else:
            setattr(target, name, type(cur)(value[0]))
        return True

    def _base_value(self, key):
        """The batch model's own value of a field (before any per-world values), float64."""
        owner = self.template.opt if key.startswith("opt.") else self.template
        return np.asarray(getattr(owner, key.split(".")[-1]), np.float64).copy()

    # MuJoCo's compiler picks each body's inertial frame (principal axes) and builds the body's
    # collision BVH (midphase boxes, bvh_aabb) in that frame. Newton writes the inertia again as
    # its own eigendecomposition, whose axes may be the compiled ones flipped or permuted: the
    # boxes would then be read in the wrong frame and MuJoCo would drop contacts (a foot of four
    # spheres fell through the ground). So the compiled frame is kept wherever its axes are still
    # principal axes of Newton's inertia, and the boxes follow a frame that really changed.
    def _inertial_frames(self, values: dict) -> dict:
        """From `values` (field -> (worlds, n) float64, Newton's per-world values), the values
        that replace them: each body's body_iquat / body_inertia expressed in the compiled
        inertial frame when that frame diagonalizes Newton's inertia tensor, and 'bvh_aabb'
        (the bodies' rows) re-expressed in the inertial frames that differ from the compiled ones."""
        if "body_iquat" not in values or "body_inertia" not in values:
            return {}
        m, n = self.template, len(values["body_iquat"])       # (n: the worlds given)
        if "bvh_aabb" not in self.base:
            rows = int(max((m.body_bvhadr + m.body_bvhnum).max(initial=0), 0))
            self.base["bvh_aabb"] = np.asarray(m.bvh_aabb[:rows], np.float64).copy()
        q0 = self.base["body_iquat"].reshape(-1, 4)            # compiled, MuJoCo's (w, x, y, z)
        d0 = self.base["body_inertia"].reshape(-1, 3)
        nb = len(q0)
        q = values["body_iquat"].reshape(n, nb, 4)
        d = values["body_inertia"].reshape(n, nb, 3)
        R0 = _wxyz_matrix(q0)
        R = _wxyz_matrix(q)
        tensor = np.einsum("wbij,wbj,wbkj->wbik", R, d, R)          # Newton's inertia, body frame
        D = np.einsum("bji,wbjk,bkl->wbil", R0, tensor, R0)         # ... in the compiled axes
        diag = np.einsum("wbii->wbi", D)
        scale = np.maximum(np.abs(diag).max(-1, keepdims=True), 1e-30)
        off = np.abs(D - diag[..., None] * np.eye(3)).max((-2, -1))
        keep = off <= 1e-5 * scale[..., 0]
        same = keep[..., None] & (np.abs(diag - d0) <= 1e-5 * scale)
        q = np.where(keep[..., None], q0, q)
        d = np.where(keep[..., None], np.where(same, d0, diag), d)
        out = {"body_iquat": q.reshape(n, -1), "body_inertia": d.reshape(n, -1)}
        aabb0 = self.base["bvh_aabb"]
        if not len(aabb0):
            return out
        ipos0 = self.base["body_ipos"].reshape(-1, 3)
        ipos = values["body_ipos"].reshape(n, nb, 3) if "body_ipos" in values else np.broadcast_to(ipos0, (n, nb, 3))
        moved = ((q != q0).any(-1) | (ipos != ipos0).any(-1)) & (np.asarray(m.body_bvhnum) > 0)
        aabb = np.broadcast_to(aabb0, (n, *aabb0.shape)).copy()
        for w, b in zip(*np.nonzero(moved)):
            # compiled inertial frame -> this one: rotated boxes grow into the boxes enclosing them
            # (exact for the flips and permutations of equivalent axes)
            rel = R[w, b].T @ R0[b]
            shift = R[w, b].T @ (ipos0[b] - ipos[w, b])
            rows = slice(int(m.body_bvhadr[b]), int(m.body_bvhadr[b] + m.body_bvhnum[b]))
            box = aabb0[rows]
            aabb[w, rows] = np.hstack((box[:, :3] @ rel.T + shift, box[:, 3:] @ np.abs(rel).T))
        self._reshaped_boxes(values, aabb, _wxyz_matrix(q), ipos)   # (the frames kept above)
        out["bvh_aabb"] = aabb.reshape(n, -1)
        return out

    def _reshaped_boxes(self, values: dict, aabb: np.ndarray, R: np.ndarray, ipos: np.ndarray) -> None:
        """The BVH boxes (aabb: (worlds, nodes, 6), edited in place) of the bodies whose geoms
        differ from the template's in some world (envs whose actors have different scales, each
        in its own world: geom sizes and positions per world), built again as MuJoCo's compiler
        builds them: a leaf encloses its geom's box in the body's inertial frame (R, ipos: per
        world), an inner node its two children (stored after it)."""
        m, n = self.template, len(aabb)
        ng = int(m.ngeom)
        keys = [k for k in ("geom_aabb", "geom_pos", "geom_quat") if k in values]
        if not ng or not keys:
            return
        g = {k: values[k].reshape(n, ng, -1) for k in keys}
        g.update({k: np.broadcast_to(self.base[k].reshape(1, ng, -1), (n, ng, self.base[k].size // ng))
                  for k in ("geom_aabb", "geom_pos", "geom_quat") if k not in g})
        changed = np.zeros((n, ng), bool)
        for k in keys:
            changed |= (g[k] != self.base[k].reshape(1, ng, -1)).any(-1)
        if not changed.any():
            return
        corners = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)
        gbody = np.asarray(m.geom_bodyid)
        for b in np.unique(gbody[changed.any(0)]):
            adr, num = int(m.body_bvhadr[b]), int(m.body_bvhnum[b])
            if num <= 0 or b == 0:
                continue
            worlds = np.flatnonzero(changed[:, gbody == b].any(1))
            Rw, pw = R[worlds, b], ipos[worlds, b]                          # (k, 3, 3), (k, 3)
            for node in range(num - 1, -1, -1):                             # children first
                geom = int(m.bvh_nodeid[adr + node])
                if geom >= 0:
                    box = g["geom_aabb"][worlds, geom]
                    pts = box[:, None, :3] + box[:, None, 3:] * corners              # geom frame
                    pts = np.einsum("kij,kcj->kci", _wxyz_matrix(g["geom_quat"][worlds, geom]), pts)
                    pts = np.einsum("kji,kcj->kci", Rw, pts + (g["geom_pos"][worlds, geom] - pw)[:, None])
                    lo, hi = pts.min(1), pts.max(1)
                else:
                    kids = [adr + int(c) for c in m.bvh_child[adr + node] if c >= 0]
                    lo = np.min([aabb[worlds, c, :3] - aabb[worlds, c, 3:] for c in kids], 0)
                    hi = np.max([aabb[worlds, c, :3] + aabb[worlds, c, 3:] for c in kids], 0)
                aabb[worlds, adr + node] = np.hstack(((lo + hi) / 2, (hi - lo) / 2))

    # ------------------------------------------------------------------ the step
    def step(self, state_in: newton.State, state_out: newton.State, control: newton.Control,
             contacts: newton.Contacts | None, dt: float, *, observables: Any = None, substeps: int = 1,
             efforts: bool = True, body_forces: bool = True, efforts_on_rows: bool = False,
             wrenches: DeviceTables | None = None, **kw: Any) -> None:
        """SolverMuJoCo.step on MuJoCo C for `substeps` steps of `dt` each (the same inputs in
        each): Newton's control -> MuJoCo's inputs, Newton's state -> MuJoCo only for written
        worlds, the batch steps, MuJoCo -> Newton's state deferred (`defer`). `efforts` /
        `body_forces` False: control.joint_f / state_in.body_f hold zeros (the caller knows;
        their conversion is then skipped once MuJoCo's inputs hold those zeros);
        `efforts_on_rows`: the qfrc_applied rows hold this step's efforts (write_efforts).
        `wrenches`: gymlike's body wrench inputs (user forces, gravity switches, damping; the
        caller checked row_wrenches_ok), computed on the rows for the step (state_in.body_f is
        then not read). A step that fills Newton's solver observables (arrays of MuJoCo-Warp)
        runs Newton's own step once."""
        cur = self.cur
        cur.rows_checked(None)   # (MuJoCo's velocities change: check_rows again)
        if observables is not None:
            if substeps != 1:
                raise GymlikeValueError("SolverMuJoCoC.step: Newton's observables are filled one step at a time")
            self.sync()                  # (Newton's step starts from Newton's state)
            mjw.stable_limits(self, dt)  # (as _prepare gives the batch's steps)
            super().step(state_in, state_out, control, contacts, dt, observables=observables, **kw)
            cur.newton_stepped(state_out)    # (the rows reload from the result)
            return
        if self.inputs_read_state:
            self.sync()
        # Newton's control -> MuJoCo-Warp's copies of the inputs, then into the rows: only what
        # can have changed since the rows were last written
        ctrl = not cur.ctrl_current
        qfrc = (efforts or cur.qfrc_nonzero) and not efforts_on_rows
        xfrc = (body_forces or cur.xfrc_nonzero) and wrenches is None
        # body wrenches alone: Newton's body_f is MuJoCo's xfrc_applied (force, torque at the COM,
        # world frame), copied into the rows below without Newton's conversion
        direct = xfrc and not (ctrl or qfrc) and self._body_f_rows() is not None
        if ctrl or qfrc or (xfrc and not direct):
            self.graphs(("in", id(state_in), id(control)), upstream.apply_control, self, self.model, state_in,
                        control, self.mjw_data)
        if state_in is not cur.rows_of:
            cur.newton_written()
        if cur.any_rows_stale:
            self._reload(state_in)
        self._prepare(dt)
        self._write_inputs(ctrl, qfrc, xfrc and not direct)
        if direct:
            self._write_body_f(state_in.body_f)
        limited = self.joint is not None and not self.friction_rows and substeps > 1
        if wrenches is not None and not limited:      # (_step_within_limits writes its own)
            self._write_row_wrenches(wrenches, float(dt) * int(substeps))
        cur.inputs_written(efforts or efforts_on_rows, body_forces or wrenches is not None)
        if self.before_step is not None:
            self.before_step(self.batch.state, int(substeps))
        with self.mj_warnings:
            if self.joint is not None:
                self._joint_rows_before_step()
            try:
                if limited:
                    self._step_within_limits(int(substeps), float(dt), wrenches)
                else:
                    self.batch.step(nstep=int(substeps))
            except self._batch_mod.SimulationError as e:
                # (those worlds kept their state; gymlike's NaN guard names them after the step)
                self.failed = ([int(i) for i in e.ids], self.batch.error(int(e.ids[0])))
        self._check_capacity()
        cur.rows_stepped(state_out)
        self._convert_later()            # MuJoCo -> Newton's state when next read

    def _convert_later(self) -> None:
        """Newton's state lags the rows: it is converted when next read (`defer`), or now."""
        if self.defer is not None:
            self.defer(self.sync)
        else:
            self.sync()

    def sync(self) -> None:
        """MuJoCo's rows -> Newton's joint and body states (Newton's conversion and forward
        kinematics) of the last step's output state, when they lag."""
        if not self.cur.newton_caught_up():
            return
        self._mjw("qpos")[:] = self.rows["qpos"]
        self._mjw("qvel")[:] = self.rows["qvel"]
        if self.mj_model.na:
            self._mjw("act")[:] = self.rows["act"]
        self._mjw("time")[:, 0] = self.rows["time"]
        s = self.cur.rows_of
        self.graphs(("out", id(s)), upstream.newton_state_from_mujoco, self, self.model, s, self.mjw_data)

    def _reload(self, state):
        """Newton's state -> MuJoCo's rows of the stale worlds."""
        stale = self.cur.rows_stale
        self.mask_np[:self.nworld] = stale
        self.graphs(("load", id(state)), upstream.mujoco_from_newton_state, self, self.model, state,
                    self.mjw_data, self.mask)
        r = self.rows
        r["qpos"][stale] = self._mjw("qpos")[stale]
        r["qvel"][stale] = self._mjw("qvel")[stale]
        gone = stale & self.cur.rows_forget
        if self.mj_model.na:
            r["act"][stale] = self._mjw("act")[stale]
            r["act"][gone] = 0.0
        r["qacc_warmstart"][gone] = 0.0
        if self.joint_fields:            # (the joint rows' fields of these worlds are of the old state)
            self.joint_valid[stale] = False
        self.cur.rows_reloaded()     # (mocap poses follow the pushed state)

    def _prepare(self, dt):
        dt = float(dt)
        if dt != self.dt:
            self.dt = dt
            self.mjw_model.opt.timestep.fill_(dt)     # (MuJoCo-Warp's, and the batch's through _sync_params)
            self.cur.params_stale()
        if not self.cur.params_current:
            mjw.stable_limits(self, dt)      # (the limits Newton wrote, for this time step)
            self._sync_params()

    def _write_inputs(self, ctrl=True, qfrc=True, xfrc=True):
        r = self.rows
        if ctrl and self.mj_model.nu:
            self._row("ctrl")[:] = self._mjw("ctrl")
        if qfrc:
            self._row("qfrc_applied")[:] = self._mjw("qfrc_applied")
        if xfrc:
            self._row("xfrc_applied")[:] = self._mjw("xfrc_applied")
        if self.cur.inputs_due():    # equality switches and mocap poses
            if self.mj_model.neq:
                r["eq_active"][:] = self._mjw("eq_active")
            if self.mj_model.nmocap:
                self._row("mocap_pos")[:] = self._mjw("mocap_pos")
                self._row("mocap_quat")[:] = self._mjw("mocap_quat")

    def _body_f_rows(self):
        """(worlds, MuJoCo bodies, Newton bodies, columns) where Newton's conversion copies
        body_f into xfrc_applied unchanged (every body of a world in its own world, none
        kinematic), else None."""
        return self.memo.get("body_f", (), self._make_body_f_rows)

    def _make_body_f_rows(self):
        b2n = self.mjc_body_to_newton.numpy()
        w, mb = np.nonzero(b2n >= 0)
        nb = b2n[w, mb]
        m = self.model
        kinematic = (m.body_flags.numpy()[nb] & int(_newton().BodyFlags.KINEMATIC)) != 0
        ok = (m.body_world.numpy()[nb] == w).all() and not kinematic.any()
        order = np.argsort(nb, kind="stable")
        w, mb, nb = w[order], mb[order], nb[order]
        cols = _world_columns(w, mb, self.nworld) if (nb == np.arange(len(nb))).all() else None
        return (w, mb, nb, cols) if ok else None

    def _write_body_f(self, body_f):
        w, mb, nb, cols = self._body_f_rows()
        views = self.views
        v = views.get(("body_f", id(body_f)))
        if v is None or v[0] is not body_f:
            v = views[("body_f", id(body_f))] = (body_f, body_f.numpy())
        f = v[1]
        xfrc = self.flat["xfrc_applied"].reshape(self.nworld, -1, 6)     # (a view of the rows)
        if cols is not None:
            xfrc[:, cols] = f.reshape(self.nworld, -1, 6)
        else:
            xfrc[w, mb] = f[nb]

    # ------------------------------------------------------------------ body wrenches on the rows
    # Body wrenches need the bodies' poses and velocities. From MuJoCo's rows, one kernel
    # (kernels.row_body_wrenches) runs the forward kinematics it needs and writes xfrc_applied:
    # a damped robot then steps without Newton's state conversion (Cartpole: its only reader).
    def row_wrenches_ok(self) -> bool:
        """Whether body wrenches (and exact body speeds) can be computed on the rows: a CPU model
        whose MuJoCo joints are hinges, slides and free joints."""
        if not self.cur.params_current:      # (which fields are per-world decides the views)
            self._sync_params()
        return self._wrench_tables() is not None

    def _wrench_tables(self):
        return self.memo.get("wrenches", (), self._build_wrench_tables)

    def _build_wrench_tables(self):
        """(kernels.RowModel, the numpy arrays it views): zero-copy Warp views of the rows and of the model fields
        the batch steps (the template's, or the per-world values); None when the row kernels
        cannot follow the model."""
        wp = _wp()
        m, J = self.template, self.mujoco.mjtJoint
        jt = np.asarray(m.jnt_type)
        if not np.isin(jt, (int(J.mjJNT_FREE), int(J.mjJNT_SLIDE), int(J.mjJNT_HINGE))).all():
            return None
        if str(self.model.device) != "cpu":
            return None
        keep = []

        def field(name, dtype):
            a = self._expand(name) if name in self.per_world_keys else np.asarray(getattr(m, name))[None]
            if a.dtype != np.float64 or not a.flags.c_contiguous:
                return None
            keep.append(a)
            width = {wp.vec3d: 3, wp.vec4d: 4, wp.float64: 1}[dtype]
            return wp.array(ptr=a.ctypes.data, dtype=dtype, shape=(a.shape[0], a[0].size // width), device="cpu")

        body = [field("body_pos", wp.vec3d), field("body_quat", wp.vec4d), field("body_ipos", wp.vec3d),
                field("body_iquat", wp.vec4d), field("body_mass", wp.float64), field("body_inertia", wp.vec3d)]
        joint = [field("jnt_pos", wp.vec3d), field("jnt_axis", wp.vec3d), field("qpos0", wp.float64)]
        if any(f is None for f in body + joint):
            return None
        state = self.batch.state
        keep.append(state)

        M = _kernels().RowModel()
        M.rows = self.state_rows
        M.qpos_at, M.qvel_at, M.xfrc_at = (self._row_at(k) for k in ("qpos", "qvel", "xfrc_applied"))
        M.mocap_pos_at, M.mocap_quat_at = self._row_at("mocap_pos"), self._row_at("mocap_quat")
        M.parent, M.mocap, M.jnt_first, M.jnt_count = (ints(a) for a in (m.body_parentid, m.body_mocapid,
                                                                         m.body_jntadr, m.body_jntnum))
        M.jnt_type, M.jnt_qadr, M.jnt_vadr = ints(jt), ints(m.jnt_qposadr), ints(m.jnt_dofadr)
        M.jnt_pos, M.jnt_axis, M.qpos0 = joint
        M.body_pos, M.body_quat, M.body_ipos, M.body_iquat, M.body_mass, M.body_inertia = body
        M.newton_body = self.mjc_body_to_newton
        M.pos, M.rot, M.lin, M.ang = (wp.zeros((self.nworld, m.nbody), dtype=t, device="cpu")
                                      for t in (wp.vec3d, wp.quatd, wp.vec3d, wp.vec3d))
        return M, keep

    def _write_row_wrenches(self, d, span):
        """kernels.row_body_wrenches over every world (`d`: gymlike's DeviceTables; `span`: the
        step's seconds, for damping's stable form)."""
        M = self._wrench_tables()[0]
        m = self.model
        # one call site per span: a merged call (the step's seconds) and the substeps of a
        # velocity-limit redo (a substep's) alternate, and a site whose scalar changes from
        # call to call never gets its CPU graph (launch.Launcher)
        self.launch_rows(("row_wrenches", span), _kernels().row_body_wrenches, self.nworld,
                         (M, d.body_force, d.no_gravity, d.lin_damp, d.ang_damp, m.body_world, m.gravity, span,
                          self.memo.get("linear", (d.lin_damp,), lambda: int(d.lin_damp.numpy().any()))),
                         split=True)

    def _check_capacity(self):
        """MuJoCo drops contacts or constraints when its arena is full: say so once per sim,
        with the count and the setting that raises it (never silently)."""
        total = int(self.warn_counts.sum())          # (every warning kind: one cheap sum per step)
        if total == self.warn_total:
            return
        self.warn_total = total
        counts = self.batch.warning[:, self.capacity_idx, 1]
        grown = counts > self.capacity_seen
        if not grown.any():
            return
        first = not self.capacity_seen.any()
        self.capacity_seen = np.maximum(self.capacity_seen, counts)
        if first:
            envs = np.nonzero(grown.any(1))[0]
            had = int(self.batch.warning[:, self.capacity_idx, 0].max())     # (MuJoCo's count when it overflowed)
            warn(f"simulate: MuJoCo's arena ({self.template.narena // 1024} KiB per world) was too small for the "
                 f"contacts or constraints of {len(envs)} env(s) ({listed(envs, 10)}; {had} when it overflowed): "
                 "the rest were dropped in that step. "
                 "Raise it with sim.mujoco_options = {'arena_kib': N} before prepare_sim (gymlike.envs tasks: "
                 "sim.mujoco.arena_kib); this warning is given once per sim",
                 RuntimeWarning)

    def write_efforts(self, dev: DeviceTables) -> bool:
        """Isaac Gym's pending efforts (`dev` = sim.dev: dof_effort, dof_mode, dof_effort_limit,
        dof_effort_scale) straight into the qfrc_applied rows, as kernels.apply_dof_efforts and
        Newton's conversion give them for hinge and slide DOFs (the effort of DOF_MODE_EFFORT
        DOFs clamped to its limit, times the scale, in float32), consuming dof_effort: no
        joint_f, no conversion (kernels.row_efforts). False (nothing written) when a DOF is not
        a hinge or slide of MuJoCo."""
        cells = self.dof_cells(dev.dof_qd)
        if cells is None:
            return False
        args = self.memo.get("efforts", (dev.dof_effort,), lambda: self._effort_args(dev, cells))
        self.launch_rows("efforts", _kernels().row_efforts, len(cells.w), args)
        return True

    def _effort_args(self, dev, cells):
        wp = _wp()
        scale = dev.dof_effort_scale.numpy() * (dev.dof_mode.numpy() == int(_kernels().DOF_MODE_EFFORT))

        def f32(a):
            return wp.array(np.ascontiguousarray(a, np.float32), device="cpu")
        return (dev.dof_effort, f32(dev.dof_effort_limit.numpy()), f32(scale), ints(cells.w),
                ints(self._row_at("qfrc_applied") + cells.vc), self.state_rows)

    # ------------------------------------------------------------------ PhysX's joint rows
    # DOF velocity limits and DOF friction as PhysX enforces them (core/joint_rows.py): after
    # each MuJoCo step, from the fields of that step the batch binds while they are on.
    def begin_joint_rows(self, dev: DeviceTables, h: float, friction_scale: float) -> None:
        """Before a step of `h` s with joint rows on (dev.velocity_clamp or dev.joint_friction):
        the tables and bound fields they read (made once, remade after model changes);
        `friction_scale`: the friction bound per unit of mu |W| (PhysX's iterations)."""
        self.friction_rows = bool(dev.joint_friction)
        want = joint_rows.fields(self.friction_rows)
        if want != self.joint_fields:    # (the batch copies what it binds out of every step: only those)
            self.joint_fields = want
            self._make_batch(self.template, self.batch.state)
            self.cur.params_stale()      # (the new batch gives the per-world values again)
        self._prepare(h)                 # (a parameter change may remake the batch)
        if self.joint is None:
            self.joint = self._joint_tables(dev)
        self.joint["scale"] = float(friction_scale)

    def _joint_rows_before_step(self):
        """The friction bounds of this step into MuJoCo's per-world dof_frictionloss (from the
        last step's fields and this step's applied forces; worlds with no last step, or whose
        state was reloaded, compute this state's fields first), then what the next call reads:
        the applied forces and the velocities this step starts from."""
        t = self.joint
        if self.friction_rows:
            fresh = np.nonzero(~t["valid"])[0]
            if len(fresh):
                self.batch.forward(ids=fresh)        # (mj_forward: this state's fields, these inputs)
                t["qfrc_prev_np"][fresh] = self.flat["qfrc_applied"][fresh]
                self.qvel0[fresh] = self.flat["qvel"][fresh]
                t["valid"][fresh] = True
            self.launch_rows("friction", joint_rows.friction_bounds, self.nworld,
                             (self.state_rows, t["frames"], t["tree"], t["scratch"], t["armature"], t["mu"],
                              t["gravity"], t["qfrc_prev"], float(t["scale"]), t["frictionloss"]), split=True)
            np.copyto(t["qfrc_prev_np"], self.flat["qfrc_applied"])
        np.copyto(self.qvel0, self.flat["qvel"])

    def apply_joint_rows(self, h: float) -> bool:
        """joint_rows.velocity_limits on every world after a step of `h` s (begin_joint_rows made
        the tables before it). True where some world got an impulse."""
        t = self.joint
        t["hits_np"][0] = 0      # (a memory write: Warp's zero_ costs a launch)
        self.launch_rows("vlimits", joint_rows.velocity_limits, self.nworld,
                         (self.state_rows, t["frames"], t["tree"], t["scratch"], t["armature"], t["vmax"],
                          float(h), t["hits"]), split=True)
        if not t["hits_np"][0]:
            return False
        if self.cur.rows_ahead():        # (converted before the impulses: convert again)
            self._convert_later()
        return True

    LIMIT_BACKOFF = 5

    def _step_within_limits(self, nstep: int, h: float, wrenches: DeviceTables | None) -> None:
        """`nstep` substeps of `h` s with PhysX's DOF velocity limits after each (the caller
        applies those of the last). Speculatively, one batch call records every substep's
        velocities; the worlds where a DOF went over its limit before the last substep (or
        where MuJoCo warned, which stops a world in a recorded call) step again from their
        saved rows one substep at a time, the limits applied between. Where limits are rarely
        reached (a walking robot) a simulate costs one batch call, as without limits; where
        every call needed a redo (a spinning pole), the next calls step substep by substep
        (backing off to one attempt in 2 ** LIMIT_BACKOFF calls). Either way the result is that of
        substep-by-substep steps. Body wrenches on the rows are evaluated once for the call's
        `nstep` substeps, as in every merged C call, and kept through a redo: a world moves
        alike whichever path its substeps took, so other worlds reaching their limits do not
        change its motion."""
        t, b = self.joint, self.batch
        ids = None
        if wrenches is not None:         # (in the saved rows: a redo steps with them)
            self._write_row_wrenches(wrenches, h * nstep)
        if t["skip"] > 0:
            t["skip"] -= 1
        else:
            n, nv = self.nworld, int(self.template.nv)
            saved = t.get("saved")
            if saved is None or saved.shape != b.state.shape:
                saved = t["saved"] = np.empty_like(b.state)
            np.copyto(saved, b.state)
            rec = t.get("record")
            if rec is None or rec["qvel"].shape != (n, nstep, nv):
                rec = t["record"] = {"qvel": np.empty((n, nstep, nv))}
            warned = self.warn_counts.sum(1)
            b.rollout(nstep, record=("qvel",), out=rec)
            over = np.abs(rec["qvel"][:, :-1]) > t["vmax_np"][:, None, :nv]
            ids = t["redo"] = np.flatnonzero(over.any((1, 2)) | (self.warn_counts.sum(1) != warned))
            if not len(ids):
                t["misses"] = 0
                return
            t["misses"] = min(t["misses"] + 1, self.LIMIT_BACKOFF)
            t["skip"] = 2 ** t["misses"] - 1
            b.state[ids] = saved[ids]
        for k in range(nstep):
            b.step(ids=ids, nstep=1)
            if k < nstep - 1:
                self.apply_joint_rows(h)

    def _joint_tables(self, dev):
        wp = _wp()
        m, n = self.template, self.nworld
        nv = m.nv
        w, k, ok = self._dof_cells(dev.dof_qd)
        vmax, mu = np.full((n, max(1, nv)), np.inf), np.zeros((n, max(1, nv)))
        lim, fr = dev.dof_velocity_limit.numpy(), dev.dof_friction.numpy()
        on = ok & (lim > 0)
        vmax[w[on], k[on]] = lim[on]
        on = ok & (fr > 0)
        mu[w[on], k[on]] = fr[on]

        def per_world(key, value):
            return self._expand(key) if key in self.per_world_keys else np.asarray(value)[None]
        hits = wp.zeros(1, dtype=wp.int32, device="cpu")
        qfrc_prev = self.qfrc_prev
        loss = self._expand("dof_frictionloss") if self.friction_rows else np.zeros((n, max(1, nv)))
        frames, tree, scratch = self.memo.get("joint_structure", (self.batch,), lambda: (
            joint_rows.frames(self.frame_out, self.qvel0), joint_rows.tree(m, self.row_at, mj_ld=True),
            joint_rows.scratch(n, nv, m.nbody)))       # (the batch's: kept through parameter changes)
        return dict(frames=frames, tree=tree, scratch=scratch, vmax=f64(vmax), vmax_np=vmax, mu=f64(mu),
                    armature=f64(per_world("dof_armature", m.dof_armature)),
                    gravity=f64(per_world("opt.gravity", m.opt.gravity)), hits=hits, hits_np=hits.numpy(),
                    qfrc_prev_np=qfrc_prev, qfrc_prev=view(qfrc_prev), frictionloss=view(loss), keep=(loss,),
                    scale=1.0, valid=self.joint_valid, misses=0, skip=0)

    # ------------------------------------------------------------------ checks on the rows
    # After each step one kernel pass over the rows (kernels.row_checks) bounds every body's
    # angular and COM speed from MuJoCo's velocities: the speed caps and the divergence guard then need neither
    # Newton's state nor their own passes when no body can reach them (the usual step).
    def check_rows(self, dev: DeviceTables) -> None:
        """kernels.row_checks on every world's row (`dev` = sim.dev: the body speed caps, the
        DOFs' guard margins): keeps the flags read by surely_sound and cap_speeds."""
        t = self._check_tables(dev)
        t["flags"][:] = 0
        self.launch_rows("checks", _kernels().row_checks, self.nworld, t["args"], split=True)
        self.cur.rows_checked(t["flags"])
        self.check_dev = dev

    def _check_tables(self, dev):
        m = self.model
        return self.memo.get("check", (dev.dof_qd, dev.body_ang_cap, dev.body_lin_cap, m.joint_limit_lower,
                                       m.joint_limit_upper), lambda: self._build_check_tables(dev))

    def _build_check_tables(self, dev):
        """row_checks' arguments (float64 Warp arrays on the CPU; empty tables switch a check
        off) and numpy views of its outputs, rebuilt when the model or the batch changes (the
        parts made from the batch and the chain geometry only when those change)."""
        wp = _wp()
        nv = self.template.nv

        none = wp.zeros((0, max(nv, 1)), dtype=wp.float64, device="cpu")
        guard = self._guard_tables(dev.dof_qd, self.model)
        lo, hi = (none, none) if guard is None else (f64(guard[0]), f64(guard[1]))
        b2n = self.mjc_body_to_newton.numpy()
        ok = b2n >= 0
        caps = np.full((2, *b2n.shape), np.inf)
        caps[0][ok] = dev.body_ang_cap.numpy()[b2n[ok]]
        caps[1][ok] = dev.body_lin_cap.numpy()[b2n[ok]]
        cap_arrays = (f64(caps[0]), f64(caps[1]))
        geometry = self._speed_bound_tables()
        tree, out, over, flags = self.memo.get("check_structure", (self.batch, geometry),
                                               lambda: self._check_structure(geometry))
        args = (self.state_rows, self._row_at("qpos"), self._row_at("qvel"), lo, hi, *tree, *cap_arrays, *out,
                over, flags)
        return dict(args=args, caps=caps, cap_arrays=cap_arrays, bounds=(out[0].numpy(), out[3].numpy()),
                    over_mask=over, flags=flags.numpy(), cap_args=None)

    def _check_structure(self, geometry):
        """row_checks' body tree and chain geometry (from the speed bound tables `geometry`) and
        its outputs, on the CPU."""
        wp = _wp()
        m = self.template
        angular, dof_reach, bp, ip = geometry[:4]

        tree = (ints(m.body_parentid), ints(m.body_dofadr), ints(m.body_dofnum), ints(angular), f64(dof_reach),
                f64(bp), f64(ip))
        out = [wp.zeros((self.nworld, m.nbody), dtype=wp.float64, device="cpu") for _ in range(4)]
        return (tree, out, wp.zeros(self.nworld, dtype=wp.int32, device="cpu"),
                wp.zeros(2, dtype=wp.int32, device="cpu"))

    def _row_at(self, name):
        """Where field `name` starts in each world's row of the batch state (a column)."""
        return self.row_at[name]

    def scale_velocities(self, newton_qd: np.ndarray, factors: np.ndarray) -> None:
        """The velocities of the Newton joint DOFs `newton_qd` (int array) times `factors` on
        MuJoCo's rows (the speed caps scale whole actors: MuJoCo's velocities of an actor are
        linear in Newton's joint velocities, so they scale alike). `factors` < 1: the bounds and
        flags of check_rows stay true of the slower state (kept; the guard reads them next)."""
        rows = self._newton_dof_rows()[newton_qd]
        ok = rows >= 0
        r, nv = rows[ok], self.mj_model.nv
        self.flat["qvel"][r // nv, r % nv] *= factors[ok]

    def _dof_cells(self, dof_qd):
        """(world, MuJoCo DOF, valid) of the Newton DOFs `dof_qd` (Warp int32) in the qvel rows."""
        rows = self._newton_dof_rows()[dof_qd.numpy()]
        ok = rows >= 0
        r = np.maximum(rows, 0)
        return r // self.mj_model.nv, r % self.mj_model.nv, ok

    # ------------------------------------------------------------------ DOF states on the rows
    # Isaac Gym's DOF states of hinge and slide joints are single coordinates of MuJoCo's rows:
    # the tensor API reads and writes them there, and Newton's state follows only when read
    # (a training loop that reads DOF states and resets some envs then never converts).
    def dof_cells(self, dof_qd: wp.array) -> DofCells | None:
        """Where Isaac Gym's DOFs (Newton DOF indices `dof_qd`, Warp int32) lie in the rows
        (DofCells), or None when one is not a hinge or slide coordinate of MuJoCo."""
        return self.memo.get("dof_cells", (dof_qd,), lambda: self._make_dof_cells(dof_qd))

    def _make_dof_cells(self, dof_qd):
        w, k, ok = self._dof_cells(dof_qd)
        m, J = self.template, self.mujoco.mjtJoint
        jnt = np.asarray(m.dof_jntid)[k]
        scalar = np.isin(np.asarray(m.jnt_type)[jnt], (int(J.mjJNT_HINGE), int(J.mjJNT_SLIDE)))
        return DofCells(w, np.asarray(m.jnt_qposadr)[jnt], k, self.nworld) if (ok & scalar).all() else None

    def read_dofs(self, cells: DofCells, out: wp.array) -> None:
        """Every DOF state (dofs, 2) into `out` (float32 Warp) from the rows: one launch
        (tensor_kernels.row_dofs), replayed as a graph."""
        w, qc, vc = self._cell_arrays(cells)
        self.launch_rows("dofs", _tensor_kernels().row_dofs, len(cells.w),
                         (self.state_rows, self._row_at("qpos"), self._row_at("qvel"), w, qc, vc, out))

    def write_dofs_of(self, cells: DofCells, src: wp.array, ids: wp.array, n: int, dev: DeviceTables) -> None:
        """The DOF states `src` (dofs, 2) float32 of the actors ids[:n] (`dev` = sim.dev: their DOF
        spans) into the rows, as a new state of their worlds (warm start and activations
        forgotten): one launch (tensor_kernels.scatter_dofs_on_rows)."""
        args = self.memo.get("set_dofs", (self.batch, cells, dev), lambda: (
            dev.actor_dof0, dev.actor_ndof, *self._cell_arrays(cells), self.state_rows, self._row_at("qpos"),
            self._row_at("qvel"), *self._forget_ranges()))
        self.count_host[0] = n
        self.launch_rows("set_dofs", _tensor_kernels().scatter_dofs_on_rows, 1, (src, ids, self.count, *args))
        self._rows_changed()

    def _cell_arrays(self, cells):
        if cells.wp is None:
            cells.wp = tuple(ints(a) for a in (cells.w, cells.qc, cells.vc))
        return cells.wp

    def write_dofs(self, cells: DofCells, src: np.ndarray) -> None:
        """Every DOF state `src` ((dofs, 2) numpy, Isaac Gym's DOF order) into the rows, as a new
        state of every world: warm start and activations are forgotten and Newton's state
        follows when next read."""
        if cells.cols is not None:
            s = src.reshape(self.nworld, -1, 2)
            self.flat["qpos"][:, cells.cols[0]] = s[:, :, 0]
            self.flat["qvel"][:, cells.cols[1]] = s[:, :, 1]
        else:
            self.flat["qpos"][cells.w, cells.qc] = src[:, 0]
            self.flat["qvel"][cells.w, cells.vc] = src[:, 1]
        self._rows_written(slice(None))

    def _rows_written(self, worlds: np.ndarray | slice) -> None:
        """A new state was written into the rows of `worlds` (bool mask or slice): their warm
        start and activations are forgotten, the row checks rerun, Newton's state follows them
        when next read."""
        self.flat["qacc_warmstart"][worlds] = 0.0
        if self.mj_model.na:
            self.flat["act"][worlds] = 0.0
        self._rows_changed()

    def _rows_changed(self) -> None:
        """The rows hold a written state: the row checks rerun, Newton's state follows them when
        next read."""
        if self.cur.rows_ahead(checked=False):
            self._convert_later()

    # ------------------------------------------------------------------ root states on the rows
    # Where every actor's root is a MuJoCo free joint (Ant, Humanoid, quadrupeds), root states
    # are read from and written into the rows by one launch, with no Newton conversion.
    def root_tables(self, dev: DeviceTables) -> tuple | None:
        """The arguments of tensor_kernels.row_roots but `out` (the rows, each actor's world, qpos
        and qvel address of its free joint or -1 for a base welded to the world, MuJoCo body,
        root body, body origins, the RowModel); None when an actor's root is neither a MuJoCo
        free joint nor a body welded to MuJoCo's world, or the row kernels do not follow the model."""
        M = self._row_model()
        return None if M is None else self.memo.get("roots", (M, dev.actor_qd0),
                                                    lambda: self._build_root_tables(dev, M))

    def _build_root_tables(self, dev, M):
        m, nv = self.template, self.mj_model.nv
        body0, floating = dev.actor_body0.numpy(), dev.actor_floating.numpy() != 0
        if not len(body0) or (body0 < 0).any():
            return None
        # floating roots: the MuJoCo free joint of the actor's first DOF
        rows = self._newton_dof_rows()[dev.actor_qd0.numpy()[floating]] if floating.any() else np.zeros(0, int)
        if (rows < 0).any():
            return None
        k = rows % max(nv, 1)
        jnt = np.asarray(m.dof_jntid)[k]
        if not ((np.asarray(m.jnt_type)[jnt] == int(self.mujoco.mjtJoint.mjJNT_FREE)).all()
                and (np.asarray(m.jnt_dofadr)[jnt] == k).all()):
            return None
        n = len(body0)
        world, qadr, vadr, mj_body = (np.full(n, -1, np.int64) for _ in range(4))
        world[floating], vadr[floating] = rows // max(nv, 1), k
        qadr[floating], mj_body[floating] = np.asarray(m.jnt_qposadr)[jnt], np.asarray(m.jnt_bodyid)[jnt]
        # fixed bases: a MuJoCo body without joints whose parent is the world (its pose is the
        # mocap pose in the rows, or the model's)
        fixed = np.nonzero(~floating)[0]
        if len(fixed):
            b2n = self.mjc_body_to_newton.numpy()
            w, mb = np.nonzero(b2n >= 0)
            at = {int(nb): (int(wi), int(bi)) for wi, bi, nb in zip(w, mb, b2n[w, mb])}
            for a in fixed:
                wb = at.get(int(body0[a]))
                if wb is None or m.body_jntnum[wb[1]] != 0 or m.body_parentid[wb[1]] != 0:
                    return None
                world[a], mj_body[a] = wb

        return (self.state_rows, self._row_at("qpos"), self._row_at("qvel"), M.body_ipos, ints(world),
                ints(qadr), ints(vadr), ints(mj_body), dev.actor_body0, dev.body_origin, M)

    def read_roots(self, tables: tuple, out: wp.array) -> None:
        """Every actor's root state (actors, 13) float32 into `out` from the rows (root_tables)."""
        self.launch_rows("roots", _tensor_kernels().row_roots, len(tables[4]), (*tables, out))

    def write_roots(self, tables: tuple, src: wp.array, ids: wp.array, n: int, refused: wp.array) -> None:
        """The root states `src` (actors, 13) float32 of the floating actors ids[:n] into the
        rows, as a new state of their worlds; nothing when a listed row's quaternion is zero (its
        index in the list goes to refused[0], which the caller set to NO_ROW). (A fixed base's
        pose is Newton's model: the caller writes those through Newton.)"""
        self.count_host[0] = n
        self.launch_rows("set_roots", _tensor_kernels().scatter_roots_on_rows, 1,
                         (src, ids, self.count, *tables[:-1], *self._forget_ranges(), refused))
        self._rows_changed()

    def body_tables(self, dev: DeviceTables) -> tuple | None:
        """The arguments of tensor_kernels.row_bodies but `out` (the RowModel, body origins);
        None when a Newton body has no MuJoCo body or the row kernels do not follow the model."""
        M = self._row_model()
        return None if M is None else self.memo.get("bodies", (M, dev.body_origin),
                                                    lambda: self._build_body_tables(dev, M))

    def _row_model(self):
        """The RowModel of the row kernels (_wrench_tables) while the batch's parameters are
        current, else None."""
        tables = self._wrench_tables() if self.cur.params_current else None
        return None if tables is None else tables[0]

    def _build_body_tables(self, dev, M):
        b2n = self.mjc_body_to_newton.numpy()
        if not np.isin(np.arange(self.model.body_count), b2n[b2n >= 0]).all():
            return None
        return (M, dev.body_origin)

    def read_bodies(self, tables: tuple, out: wp.array) -> None:
        """Every Newton body's state (bodies, 13) float32 into `out` from the rows (body_tables)."""
        self.launch_rows("bodies", _tensor_kernels().row_bodies, self.nworld, (*tables, out), split=True)

    def _forget_ranges(self):
        """(starts, lengths) Warp int32 arrays of the row ranges a world written anew forgets
        (warm start, activations), read by the indexed write kernels."""
        return self.memo.get("forget", (self.batch,), self._make_forget_ranges)

    def _make_forget_ranges(self):
        m = self.mj_model
        spans_ = [(self._row_at("qacc_warmstart"), m.nv)] + ([(self._row_at("act"), m.na)] if m.na else [])
        return tuple(ints(a) for a in zip(*spans_))

    def _newton_dof_rows(self):
        """Newton joint DOF -> its (world * nv + MuJoCo DOF) in the flattened qvel rows (-1:
        none, e.g. DOFs of world -1)."""
        if self.dof_rows is not None:
            return self.dof_rows
        model, nv = self.model, self.mj_model.nv
        qd_start = model.joint_qd_start.numpy()
        jworld = model.joint_world.numpy()
        jstart = model.joint_world_start.numpy()
        mj_qd = self.mj_qd_start.numpy()
        dof_row = np.full(model.joint_dof_count, -1, np.int64)
        for j in range(model.joint_count):
            w = int(jworld[j])
            if w < 0:
                continue
            t = j - int(jstart[w])
            if t >= len(mj_qd) or mj_qd[t] < 0:
                continue
            k0, k1 = int(qd_start[j]), int(qd_start[j + 1])
            dof_row[k0:k1] = w * nv + int(mj_qd[t]) + np.arange(k1 - k0)
        self.dof_rows = dof_row
        return dof_row

    # ------------------------------------------------------------------ observables in C
    def observe(self) -> bool:
        """Step the model with the force sensor from now on (so `contact_wrenches` and
        `dof_forces` have data after the next step); False when the model cannot get it."""
        if self.observing:
            return True
        if self.mj_spec is None:
            return False
        mujoco = self.mujoco
        try:
            model = self._compiled(sensor=True)
        except Exception as e:   # (MuJoCo's compiler; the MuJoCo-Warp observables remain)
            warn(f"gymlike: MuJoCo could not compile the sim's model with a force sensor ({e}); contact "
                 "and joint forces come from MuJoCo-Warp steps", RuntimeWarning)
            return False
        if (model.nq, model.nv, model.na, model.nbody, model.nu) != \
                (self.mj_model.nq, self.mj_model.nv, self.mj_model.na, self.mj_model.nbody, self.mj_model.nu):
            return False
        model.body_sameframe[:] = 0
        model.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
        self.template = model
        self.fields = None
        self.observing = True
        self._make_batch(model, self.batch.state)
        self.cur.params_stale()
        self._observation_tables()
        return True

    def _observation_tables(self):
        """Newton body -> (world, MuJoCo body) rows, Newton DOF -> (world, MuJoCo DOF) rows."""
        m, n = self.mj_model, self.nworld
        nb = m.nbody
        b2n = self.mjc_body_to_newton.numpy()            # (worlds, MuJoCo bodies) -> Newton body
        nbody = self.model.body_count
        body_row = np.full(nbody, -1, np.int64)
        w, mb = np.nonzero(b2n >= 0)
        body_row[b2n[w, mb]] = w * nb + mb
        root_row = np.where(body_row >= 0, (body_row // nb) * nb + np.asarray(m.body_rootid)[body_row % nb], -1)
        dof_row = self._newton_dof_rows()
        ok = body_row >= 0
        # (MuJoCo bodies of every world, when Newton's are the same in each, world by world)
        cols = _world_columns(body_row // nb, body_row % nb, n) if ok.all() else None
        self.obs_tables = dict(body_rows=np.where(ok, body_row, 0), root_rows=np.where(ok, root_row, 0),
                               no_row=np.nonzero(~ok)[0], has_row=ok, body_cols=cols, dof_row=dof_row,
                               dof_body=np.asarray(m.dof_bodyid, np.int64))

    def write_contact_wrenches(self, force: wp.array, torque: wp.array, pose: wp.array, bodies: wp.array) -> None:
        """The force and torque about the COM of the contacts on the Newton bodies `bodies` (Warp
        int32) in the last substep, world frame, into `force` / `torque` (Warp vec3 arrays over
        Newton bodies): MuJoCo's external body wrench less the applied one (xfrc_applied), and
        each body's pose in that substep into `pose` (transforms over Newton bodies), one
        launch of kernels.row_contact_wrenches."""
        args = self.memo.get("contact_wrenches", (self.batch,), self._contact_wrench_args)[0]
        self.launch_rows("contact_wrenches", _kernels().row_contact_wrenches, bodies.shape[0],
                         (bodies, *args, int(self.cur.xfrc_nonzero), force, torque, pose))

    def _contact_wrench_args(self):
        """(arguments of row_contact_wrenches, the arrays they view: kept alive with them)."""
        t, m = self.obs_tables, self.mj_model
        args = (ints(t["body_rows"]), ints(t["root_rows"]), ints(t["has_row"]), view(self.out["cfrc_ext"], 6),
                view(self.out["subtree_com"], 3), view(self.out["xipos"], 3), view(self.out["xpos"], 3),
                view(self.out["xquat"], 4), self.state_rows,
                self._row_at("xfrc_applied"), m.nbody)
        return args, dict(self.out)

    def write_dof_forces(self, newton_dofs: wp.array, out: wp.array) -> None:
        """Generalized force each joint transmits along its DOFs in the last substep (the
        joint's drive, effort, passive and limit forces) for the Newton DOFs `newton_dofs` (Warp
        int32) into `out` (float32): one launch of kernels.row_dof_forces, replayed as a graph."""
        args = self.memo.get("dof_forces", (self.batch, newton_dofs), lambda: self._dof_force_args(newton_dofs))[0]
        self.launch_rows("dof_forces", _kernels().row_dof_forces, newton_dofs.shape[0], (*args, out))

    def _dof_force_args(self, newton_dofs):
        """(arguments of row_dof_forces but `out`, the arrays they view: kept alive with them)."""
        t, m = self.obs_tables, self.mj_model
        args = (ints(t["dof_row"][newton_dofs.numpy()]), ints(t["dof_body"]), m.nv, m.nbody,
                view(self.out["cdof"], 6), view(self.out["cfrc_int"], 6))
        return args, dict(self.out)

    def contacts_now(self, worlds: Iterable[int]) -> list[tuple]:
        """The contacts of `worlds` at their current state (MuJoCo's forward dynamics of each):
        (world, MuJoCo geom pair (n, 2), position (n, 3), frame (n, 3, 3), distance (n,),
        force in the contact frame (n, 6)) per contact, world frame."""
        mujoco = self.mujoco
        out = []
        data = mujoco.MjData(self.template)
        own = copy.copy(self.template) if self.expanded else None    # (a world's parameters go here)
        with self.mj_warnings:
            for w in worlds:
                self.batch.get_data(int(w), data)
                model = self.template if own is None else self.batch.get_model(int(w), own)
                mujoco.mj_forward(model, data)
                for i in range(data.ncon):
                    c = data.contact[i]
                    f = np.zeros(6)
                    mujoco.mj_contactForce(model, data, i, f)
                    out.append((int(w), tuple(c.geom), c.pos.copy(), c.frame.reshape(3, 3).copy(), float(c.dist), f))
        return out

    # ------------------------------------------------------------------ checks on MuJoCo's state
    def surely_sound(self, dev: DeviceTables) -> bool:
        """True when MuJoCo's state is finite, no coordinate is beyond the divergence guard's
        distance, no body can move faster than its speed (the bounds of check_rows) and every
        DOF is within its limits' margin (`dev` = sim.dev): the guard's checks on the Newton
        states can then be skipped. (False while rows wait to be reloaded: they are not the state.)"""
        if self.cur.any_rows_stale:
            return False
        if self.cur.rows_checks is None:
            self.check_rows(dev)
        return not self.cur.rows_checks[0]

    def _guard_tables(self, dof_qd, model):
        """(lower, upper) (worlds, nq) bounds on every qpos coordinate: within 1e5 (below the
        guard's 1e6 m) and, for the DOFs with limits, within the divergence margin of them; None
        when a DOF is not a hinge or slide of MuJoCo (kernels.find_dofs_past_limits then checks).
        Rebuilt when the model changes (set_*_dof_properties notifies it)."""
        return self.memo.get("limits", (dof_qd, model.joint_limit_lower, model.joint_limit_upper),
                             lambda: self._make_guard_tables(dof_qd, model))

    def _make_guard_tables(self, dof_qd, model):
        cells = self.dof_cells(dof_qd)
        if cells is None:
            return None
        qd = dof_qd.numpy()
        margin = float(_kernels().DIVERGED_PAST_LIMIT)
        lo = np.full(self.flat["qpos"].shape, -1.0e5)
        hi = np.full(self.flat["qpos"].shape, 1.0e5)
        lo[cells.w, cells.qc] = np.maximum(model.joint_limit_lower.numpy()[qd] - margin, -1.0e5)
        hi[cells.w, cells.qc] = np.minimum(model.joint_limit_upper.numpy()[qd] + margin, 1.0e5)
        return lo, hi

    def cap_speeds(self, dev: DeviceTables) -> bool:
        """Isaac Gym's body speed caps applied on the rows (`dev` = sim.dev: body_ang_cap,
        body_lin_cap, body_actor, actor_qd0, actor_nqd). The bounds of check_rows first; for the
        worlds where a body may reach its caps, kernels.row_speed_caps computes the exact speeds
        and scales the velocities of each actor with a body above them, so that body moves at
        its cap (no Newton state). True: the caps hold on the rows; False: the row kernels do
        not follow the model and some body may reach its caps (the caller caps through
        Newton's state)."""
        if self.cur.rows_checks is None:
            self.check_rows(dev)
        if not self.cur.rows_checks[1]:
            return True
        t = self._check_tables(dev)
        tables = self._wrench_tables() if self.cur.params_current else None
        if tables is None:
            return not self._bounds_reach_caps(t["caps"])
        c = t["cap_args"]
        if c is None:
            c = t["cap_args"] = self._cap_tables(dev, tables[0], t)
        flag = c[1]
        flag[0] = 0
        self.launch_rows("speed_caps", _kernels().row_speed_caps, self.nworld, c[0])
        if flag[0] and self.cur.rows_ahead():   # (Newton's state was read since the step)
            self._convert_later()
        return True

    def _cap_tables(self, dev, M, t):
        """row_speed_caps' arguments and a numpy view of its flag: the actor of each (world,
        MuJoCo DOF) from the actors' Newton DOF spans."""
        wp = _wp()
        qd0, nqd = dev.actor_qd0.numpy(), dev.actor_nqd.numpy()
        actor = np.repeat(np.arange(len(qd0), dtype=np.int32), nqd)
        rows = self._newton_dof_rows()[spans(qd0, nqd)]
        ok = rows >= 0
        table = np.full(self.flat["qvel"].size, -1, np.int32)
        table[rows[ok]] = actor[ok]
        flag = wp.zeros(1, dtype=int, device="cpu")
        return ((M, t["over_mask"], *t["cap_arrays"],
                 ints(dev.body_actor.numpy()),
                 wp.array(table.reshape(self.flat["qvel"].shape), dtype=wp.int32, device="cpu"),
                 wp.zeros(len(qd0), dtype=wp.float64, device="cpu"), flag), flag.numpy())

    def _bounds_reach_caps(self, caps):
        """Whether some body may reach its caps by the bounds of check_rows, with the tighter
        angular form (_angular_bound) where the sum is not enough."""
        ang_cap, lin_cap = caps
        w, v = self._body_bounds()
        if (v > lin_cap).any():
            return True
        over = ~(w <= ang_cap)
        for b in np.nonzero(over.any(0))[0]:          # (bodies of the model: a handful)
            worlds = np.nonzero(over[:, b])[0]
            if not (self._angular_bound(worlds, b) <= ang_cap[worlds, b]).all():
                return True
        return False

    def speed_bounds(self, tight: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Per world: (a bound on every body's angular speed, on every body's COM speed), from
        MuJoCo's velocities after the last step (check_rows); `tight`: the angular one from
        `_angular_bound` (every body)."""
        w, v = self._body_bounds()
        if tight:
            every = np.arange(w.shape[0])
            w = np.stack([self._angular_bound(every, b) for b in range(w.shape[1])], 1)
        return w.max(1, initial=0.0), v.max(1, initial=0.0)

    def _body_bounds(self):
        """(worlds, MuJoCo bodies) bounds of check_rows on each body's angular speed, |w_b| <= sum
        of |angular qvel| of the joints from the root down to b, and COM speed, |v_b| <= the
        same sum for linear qvel + each angular |qvel| times the length of the chain from its
        joint's anchor to b's COM (body offsets, inertial offset and anchor offset: longer
        than that distance in any configuration)."""
        if self.cur.rows_checks is None:
            if self.check_dev is None:
                raise GymlikeValueError("speed bounds: no step has run yet")
            self.check_rows(self.check_dev)
        return self._check_tables(self.check_dev)["bounds"]

    def _angular_bound(self, worlds, body):
        """A tighter bound on the angular speed of MuJoCo body `body` in `worlds` (costlier than
        the sum: computed where that is not enough). w_b is the sum of a_d qvel_d over the
        angular DOFs d from the root down to b (unit axes a_d), so |w_b|^2 <= sum_de |qvel_d|
        |qvel_e| C_de with C_de = |a_d . a_e| for two axes fixed in one frame (a constant: two
        hinges of one body, a hinge and the next, the three axes of a ball), else 1."""
        dofs, C = self._speed_bound_tables()[4][body]
        v = np.abs(self.flat["qvel"][worlds[:, None], dofs])
        return np.sqrt(((v @ C) * v).sum(1))

    def _speed_bound_tables(self):
        if not self.cur.params_current:      # (the sync says whether the geometry changed)
            self._sync_params()
        return self.memo.get("caps", (), self._make_speed_bound_tables)

    def _make_speed_bound_tables(self):
        """The chain geometry of the speed bounds (row_checks; bodies come after their parents
        in MuJoCo): which DOFs are angular, per DOF the length of its joint's anchor offset,
        per body the lengths of its offset from the parent and of its COM offset (one row, or
        one per world where the batch steps per-world values), and for _angular_bound each
        body's angular DOFs from the root down with their axis dots."""
        m, mj = self.template, self.mujoco
        J = mj.mjtJoint
        nv, nb = m.nv, m.nbody
        angular = np.zeros(nv, bool)
        for j in range(m.njnt):
            a, t = int(m.jnt_dofadr[j]), int(m.jnt_type[j])
            if t == J.mjJNT_FREE:
                angular[a + 3:a + 6] = True
            elif t in (J.mjJNT_BALL, J.mjJNT_HINGE):
                angular[a:a + (3 if t == J.mjJNT_BALL else 1)] = True

        def per_world(name):
            return self._expand(name) if name in self.expanded else np.asarray(getattr(m, name))[None]
        body_pos, body_ipos, jnt_pos = per_world("body_pos"), per_world("body_ipos"), per_world("jnt_pos")
        bp = np.linalg.norm(body_pos.reshape(len(body_pos), nb, 3), axis=2)
        ip = np.linalg.norm(body_ipos.reshape(len(body_ipos), nb, 3), axis=2)
        jp = np.linalg.norm(jnt_pos.reshape(len(jnt_pos), m.njnt, 3), axis=2)
        dof_reach = np.where(angular, jp[:, np.asarray(m.dof_jntid)], 0.0)
        parent, dof_body = np.asarray(m.body_parentid), np.asarray(m.dof_bodyid)
        ang = np.zeros((nv, nb), bool)             # angular DOF d moves body b
        for b in range(1, nb):
            ang[:, b] = ang[:, parent[b]] | (angular & (dof_body == b))
        C = self._axis_dots(angular)
        form = [(np.nonzero(ang[:, b])[0], C[np.ix_(ang[:, b], ang[:, b])]) for b in range(nb)]
        return angular, dof_reach, bp, ip, form

    def _axis_dots(self, angular):
        """(nv, nv) C_de = |a_d . a_e| for angular DOFs whose axes are fixed in a common frame
        (then the value is the same in every configuration: taken at qpos0), 1 for the other
        pairs of angular DOFs, 0 where one is not angular. Frames: body b after its first k
        joints, (b, 0) being its parent's final frame; a hinge's axis is fixed in the frames
        before and after its rotation, a ball's or free joint's (its body's last joint) in the
        body's final frame. Per-world body rotations or axes: 1 for every pair."""
        m, mj = self.template, self.mujoco
        J = mj.mjtJoint
        nv = m.nv
        C = np.outer(angular, angular).astype(np.float64)
        if self.expanded & {"body_quat", "jnt_axis"}:
            return C
        data = mj.MjData(m)
        data.qpos[:] = m.qpos0
        mj.mj_kinematics(m, data)
        jnt_body, parent = np.asarray(m.jnt_bodyid), np.asarray(m.body_parentid)
        nj = np.bincount(jnt_body, minlength=m.nbody)
        first = np.asarray(m.body_jntadr)

        def frame(b, k):             # (b, 0) is the parent's final frame
            while k == 0 and b > 0:
                b = int(parent[b])
                k = int(nj[b])
            return (b, k)
        axes, frames = np.zeros((nv, 3)), [set() for _ in range(nv)]
        for j in range(m.njnt):
            b, t, a = int(jnt_body[j]), int(m.jnt_type[j]), int(m.jnt_dofadr[j])
            k = j - int(first[b])
            if t == J.mjJNT_HINGE:
                axes[a] = data.xaxis[j]
                frames[a] = {frame(b, k), frame(b, k + 1)}
            elif t in (J.mjJNT_BALL, J.mjJNT_FREE) and k == nj[b] - 1:
                r = data.xmat[b].reshape(3, 3)
                a0 = a + (3 if t == J.mjJNT_FREE else 0)
                for i in range(3):
                    axes[a0 + i] = r[:, i]
                    frames[a0 + i] = {frame(b, k + 1)}
        for d in range(nv):
            for e in range(nv):
                if angular[d] and angular[e] and frames[d] & frames[e]:
                    C[d, e] = abs(float(axes[d] @ axes[e]))
        np.fill_diagonal(C, angular.astype(np.float64))
        return C

    def _meshes_without_hulls(self) -> list[str]:
        """Names of the mesh assets some world collides with (Newton's per-world geom_dataid:
        envs whose mesh colliders have different scales each use their own assets) for which
        the template has no convex hull: MuJoCo's compiler builds hulls only for meshes a
        colliding geom of the compiled model uses, i.e. world 0's."""
        m = self.mj_model
        dataid = np.asarray(self.mjw_model.geom_dataid.numpy())
        if dataid.ndim < 2 or len(dataid) < 2 or not m.nmesh:
            return []
        mesh = np.asarray(m.geom_type) == int(self.mujoco.mjtGeom.mjGEOM_MESH)
        used = np.unique(dataid[:, mesh])
        used = used[used >= 0]
        return [m.mesh(int(i)).name for i in used if m.mesh_graphadr[int(i)] < 0]

    def _compiled(self, sensor):
        """Newton's MjSpec compiled again (the spec itself is left as it was), with the arena
        size asked for; with `sensor`, one force sensor on a new site of its last body (sites
        and sensors are numbered last there, so no other index moves): MuJoCo then runs
        mj_rnePostConstraint every step; with `hull_meshes`, one geom per such mesh on the last
        body (numbered after every other geom), so that MuJoCo builds its convex hull for the
        worlds that use it, then made unable to collide. Values follow Newton's template
        (_copy_values)."""
        mujoco = self.mujoco
        s = self.mj_spec.copy()
        if self.arena_kib is not None:
            s.memory = int(self.arena_kib) * 1024
        if sensor:
            s.bodies[-1].add_site(name="gymlike_force_probe")
            s.add_sensor(name="gymlike_force_probe", type=mujoco.mjtSensor.mjSENS_FORCE,
                         objtype=mujoco.mjtObj.mjOBJ_SITE, objname="gymlike_force_probe")
        for name in self.hull_meshes:
            s.bodies[-1].add_geom(type=mujoco.mjtGeom.mjGEOM_MESH, meshname=name, contype=1, conaffinity=1,
                                  mass=0.0, group=5)
        model = s.compile()
        carriers = slice(int(self.mj_model.ngeom), int(model.ngeom))
        model.geom_contype[carriers] = 0
        model.geom_conaffinity[carriers] = 0
        _copy_values(self.mj_model, model)
        return model


# MjModel fields that describe the added site and sensor, or names, and the gap the C step drops:
# not copied between models
_OWN = ("name", "names_map", "sensor_", "site_", "signature", "geom_gap")
# MjModel fields the compiler derives from the geoms and meshes (which geoms a body has, its
# collision BVH, the meshes' hulls): a model compiled again keeps its own
_STRUCTURE = ("mesh_", "bvh_", "body_bvh", "body_geom")


# MuJoCo's contype / conaffinity bits a one world's env groups take in turn (bit 31, the sign, unused)
MASK_BITS = 31


def _group_masks(groups: np.ndarray) -> np.ndarray:
    """contype = conaffinity of shapes in Newton's collision `groups` (SolverMuJoCoC.
    one_world_filters): group g > 0 bit (g - 1) % MASK_BITS, negative groups every bit, 0 none."""
    g = np.asarray(groups, np.int64)
    bit = np.left_shift(np.int64(1), np.maximum(g - 1, 0) % MASK_BITS)
    return np.where(g > 0, bit, np.where(g < 0, (1 << MASK_BITS) - 1, 0))


def _pairs_sharing_bits(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with a < b: every pair of indices whose `masks` share a bit (MuJoCo's masks let
    them meet), bit by bit rather than over all pairs (a one world of 512 envs has ~8,000
    bodies)."""
    codes = []
    n = np.int64(len(masks))
    for bit in range(MASK_BITS):
        idx = np.flatnonzero(masks & (1 << bit))
        if len(idx) > 1:
            i, j = np.triu_indices(len(idx), k=1)
            codes.append(idx[i] * n + idx[j])
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    c = np.unique(np.concatenate(codes))
    return c // n, c % n


def _groups_meet(ga: np.ndarray, gb: np.ndarray) -> np.ndarray:
    """Newton's collision-group rule: g > 0 meets its own group and the negatives, g < 0 every
    group but itself, 0 nothing."""
    return (ga != 0) & (gb != 0) & (((ga > 0) & ((ga == gb) | (gb < 0))) | ((ga < 0) & (ga != gb)))


class DofCells:
    """Where Isaac Gym's DOFs lie in MuJoCo's rows: world `w`, qpos column `qc` and qvel column
    `vc` of each (int arrays in Isaac Gym's DOF order); `cols` = (qpos columns, qvel columns)
    when every world holds the same DOFs in the same columns, world after world (one asset per
    env): whole-tensor reads and writes are then column slices of the (worlds, n) rows."""
    __slots__ = ("w", "qc", "vc", "cols", "wp")

    def __init__(self, w, qc, vc, nworld):
        self.w, self.qc, self.vc = w, qc, vc
        self.wp = None               # (the same as Warp int32 arrays, SolverMuJoCoC._cell_arrays)
        q, v = _world_columns(w, qc, nworld), _world_columns(w, vc, nworld)
        self.cols = None if q is None or v is None else (q, v)


def _world_columns(w, c, nworld):
    """The columns `c` of items in worlds `w` (int arrays) as one set shared by every world
    (a slice when consecutive), when the items are world after world, the same columns in each
    (one asset per env): then a (worlds, n) array holds them as a column slice. Else None."""
    if not nworld or len(w) == 0 or len(w) % nworld:
        return None
    W, C = w.reshape(nworld, -1), c.reshape(nworld, -1)
    if (W == np.arange(nworld)[:, None]).all() and (C == C[:1]).all():
        return _columns(C[0])
    return None


def _columns(c):
    """Column indices `c` as a slice when they are consecutive (a view instead of a gather)."""
    if len(c) and (np.diff(c) == 1).all():
        return slice(int(c[0]), int(c[-1]) + 1)
    return c


def _wxyz_matrix(q):
    """Rotation matrices (..., 3, 3) of MuJoCo's (w, x, y, z) quaternions (..., 4)."""
    q = np.asarray(q, np.float64)
    return quat_to_matrix(np.concatenate([q[..., 1:], q[..., :1]], -1))


def _copy_values(src, dst):
    """Every numeric array of `src` into the same-shaped array of `dst` (and the options): the
    model with the force sensor follows Newton's template exactly. Geom arrays go into the
    leading rows where `dst` has more geoms (the hull carriers of SolverMuJoCoC._compiled);
    mesh arrays stay `dst`'s own (compiled from the same meshes, with those hulls)."""
    for name in dir(src):
        if name.startswith("_") or name.startswith(_OWN) or name.startswith(_STRUCTURE):
            continue
        a = getattr(src, name, None)
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiub":
            continue
        b = getattr(dst, name, None)
        if not isinstance(b, np.ndarray) or b.dtype != a.dtype or not b.flags.writeable:
            continue
        if b.shape == a.shape:
            b[...] = a
        elif name.startswith("geom_") and b.ndim and b.shape[1:] == a.shape[1:] and len(b) > len(a):
            b[:len(a)] = a
    for name in dir(src.opt):
        if name.startswith("_"):
            continue
        v = getattr(src.opt, name)
        if callable(v):
            continue
        try:
            if isinstance(v, np.ndarray):
                getattr(dst.opt, name)[...] = v
            else:
                setattr(dst.opt, name, v)
        except (AttributeError, TypeError):
            pass
