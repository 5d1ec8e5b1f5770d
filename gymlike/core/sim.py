"""The simulation: envs and actors recorded in Python, one Newton world per env, finalized into a
Newton Model on first need, stepped by SolverMuJoCo (SIM_PHYSX) or SolverXPBD (SIM_FLEX).

Lifecycle: create_env/create_actor only record (asset, pose, options); `ensure_ready()` (called
by prepare_sim, simulate, tensor acquires and state access) builds the Newton model once,
applies every property set so far, creates the solver, and from then on creation is an error.

Sim is the record: building and stepping are done by `sim.engine` (core/engine.py, given by
gymapi.create_sim), reads and writes of the state by `sim.backend` (core/backend.py, made by the
build), so this module imports nothing that reads a Sim.
"""

from __future__ import annotations

import copy
import time
from typing import TYPE_CHECKING

import numpy as np

from .assets.record import Asset
from .assets.tendons import copy_props
from .enums import SimType, UpAxis
from .errors import GymlikeIndexError, GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError
from .params import device_ids, plane_params, sim_params
from .types import PlaneParams, SimParams, Transform, Vec3, as_int, coerce, number, require_finite

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    import newton
    import warp as wp

    from .errors import GymlikeError

    T = TypeVar("T")

_warned_gpu = False


from .runtime import newton as _newton, wp as _wp  # noqa: E402

from .errors import warn


def select_device(compute_device_id: int, params: SimParams) -> str:
    """cuda:<id> for the GPU pipeline when CUDA exists, else cpu (one warning if GPU was asked)."""
    global _warned_gpu
    wp = _wp()
    if params.use_gpu_pipeline:
        if wp.is_cuda_available() and compute_device_id < wp.get_cuda_device_count():
            return f"cuda:{compute_device_id}"
        if not _warned_gpu:
            warn("gymlike: use_gpu_pipeline=True but no CUDA device is available; "
                 "running the whole pipeline on the CPU", RuntimeWarning)
            _warned_gpu = True
    return "cpu"


# ============================================================================ handles
class Env:
    """An Isaac Gym env: one Newton world."""

    def __init__(self, sim, index, origin, lower, upper):
        self.sim = sim
        self.index = index
        self.origin = np.asarray(origin, np.float64)
        self.lower, self.upper = lower, upper
        self.actors: list[Actor] = []
        self.body_count = self.dof_count = self.joint_count = self.shape_count = 0
        self.aggregate = None            # (max_bodies, max_shapes, self_collisions) while open


    # aggregates are PhysX broad-phase groups: validated and recorded, nothing else
    def begin_aggregate(self, max_bodies: int, max_shapes: int, self_collisions: bool) -> None:
        """Open an aggregate of the actors created next (Isaac Gym's grouping; its limits are only
        checked at end_aggregate)."""
        if self.aggregate is not None:
            raise GymlikeValueError(f"begin_aggregate: env {self.index} already has an open aggregate")
        for name, v in (("max_bodies", max_bodies), ("max_shapes", max_shapes)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise GymlikeValueError(f"begin_aggregate: {name} must be a non-negative int, got {v!r}")
        self.aggregate = dict(max_bodies=int(max_bodies), max_shapes=int(max_shapes),
                              self_collisions=bool(self_collisions), actors=0,
                              bodies0=self.body_count, shapes0=self.shape_count)

    def end_aggregate(self) -> None:
        """Close the open aggregate; warns when it holds more bodies or shapes than declared."""
        if self.aggregate is None:
            raise GymlikeValueError(f"end_aggregate: env {self.index} has no open aggregate "
                                    "(call begin_aggregate first)")
        agg, self.aggregate = self.aggregate, None
        nb, ns = self.body_count - agg["bodies0"], self.shape_count - agg["shapes0"]
        if nb > agg["max_bodies"] or ns > agg["max_shapes"]:
            warn(f"end_aggregate: env {self.index} aggregate holds {nb} bodies / {ns} shapes, more than "
                 f"the declared maximum {agg['max_bodies']} / {agg['max_shapes']} (Isaac Gym would fail)",
                 RuntimeWarning)
    def actor(self, handle: int, what: str = "actor handle") -> "Actor":
        """The actor with this handle (its index in the env; any int Isaac Gym takes, see
        types.as_int), checked."""
        k = as_int(handle)
        if k is None:
            raise GymlikeTypeError(f"{what}: expected an int actor handle, got {type(handle).__name__}")
        handle = k
        if not 0 <= handle < len(self.actors):
            raise GymlikeIndexError(f"{what} {handle} out of range: env {self.index} has "
                                    f"{len(self.actors)} actor(s)")
        return self.actors[handle]

    def __repr__(self):
        return f"<gymlike Env {self.index} of sim {self.sim.id}: {len(self.actors)} actors>"


class Actor:
    """An actor: an asset placed in an env. Indices here are DOMAIN_ENV (offsets in the env)."""

    def __init__(self, env, handle, asset, pose, name, group, filter_, seg_id):
        self.env, self.handle, self.asset = env, handle, asset
        self.pose = Transform(pose.p, pose.r)
        self.name, self.group, self.filter, self.segmentation_id = name, group, filter_, seg_id
        self.scale = 1.0
        self.body0 = env.body_count        # env-domain offsets
        self.dof0 = env.dof_count
        self.joint0 = env.joint_count
        self.shape0 = env.shape_count
        # Isaac Gym properties of this actor (copies of the asset's, edited by the setters)
        self.dof_props = asset.dof_props.copy()
        self.shape_props = asset.shape_props.copy()
        self.body_mass = asset.body_mass.copy()
        self.body_com = asset.body_com.copy()
        self.body_inertia = asset.body_inertia.copy()
        self.body_flags = asset.body_flags.copy()
        if asset.tendons is not None:      # fixed tendons (core/tendons.py)
            self.tendon_props = copy_props(asset.tendons.props)
            self.tendon_offsets = np.zeros(len(asset.tendons), np.float64)
        self.body_colors = {}
        self.body_segmentation = {}
        self.pending_dof_state = None      # DOF state set before the model existed
        self.pending_body_states = None    # body states set before the model existed
        self.replays = 0                   # entries of sim.replay made for this actor
        # controls recorded before the model exists (core/drives.py applies them at finalize)
        self.pos_targets = np.zeros(asset.dof_count, np.float32)
        self.vel_targets = np.zeros(asset.dof_count, np.float32)
        self.pending_efforts = None

    @property
    def sim_index(self) -> int:
        """The actor's DOMAIN_SIM index."""
        return self.env.sim.actor_start(self.env) + self.handle

    def __repr__(self):
        return f"<gymlike Actor '{self.name}' ({self.asset.name}) handle {self.handle} in env {self.env.index}>"


# What build_model (core/build.py) makes, attached with Sim.attach; None until the model is
# built, and None again when a build fails.
_BUILT = {
    "model": "newton.Model: one world per env (or one for all, see one_world)",
    "host": "tables.HostTables: index maps on the host",
    "dev": "tables.DeviceTables: index maps, per-entity arrays and step flags on the sim device",
    "solver": "Newton solver: SolverMuJoCo (SIM_PHYSX) or SolverXPBD (SIM_FLEX)",
    "backend": "backend.NewtonState, MuJoCoWarpRows or MuJoCoRows: states, writes, the step's questions",
    "pipeline": "newton.CollisionPipeline when gymlike runs collision itself (XPBD; MuJoCo with static meshes)",
    "contacts": "newton.Contacts the solver steps with (pipeline's, or the observables' buffer)",
    "step_kwargs": "dict: extra keyword arguments of solver.step (observables)",
    "state": "newton.State: the current state",
    "state_next": "newton.State: the substep's output (swapped with state)",
    "control": "newton.Control: drive targets, joint forces",
    "one_world": "bool: all envs share one Newton world, isolated by collision groups (build.one_world)",
    "visuals": "bool: the actors carry the files' visual-only geometry (Sim.wants_visuals)",
    "check_nan": "bool: run the NaN guard after each simulate",
    "deformables": "deformables.Deformables: particle, tetrahedron and triangle tables (SIM_FLEX sims)",
}

# Parts made on first use by the module named, through Sim.component (None until then).
_COMPONENTS = {
    "tensor_api": "tensors.TensorAPI: buffers of acquired tensors",
    "observed": "observables.Observed: what the solver reports (contact forces...)",
    "contact_forces": "contacts.ContactForces", "force_sensors": "contacts.ForceSensors",
    "dof_forces": "dynamics.DofForces", "dynamics": "dynamics.Dynamics (Jacobians, mass matrices)",
    "xpbd_joint_forces": "dynamics.XpbdJointForces: joint forces on XPBD",
    "attractors": "attractors.Attractors", "cameras": "render.cameras.CameraSystem",
    "render_cache": "render.cameras: per-model render data",
    "stepper": "step.Stepper: the step path (substeps, wrenches, clamps, NaN guard)",
}


# ============================================================================ sim
class Sim:
    _next_id = 0

    def __init__(self, gym, compute_device_id, graphics_device_id, sim_type, params, engine, step_limit=None,
                 headless=False):
        if not isinstance(params, SimParams):
            raise GymlikeTypeError(f"create_sim: params must be gymapi.SimParams, got {type(params).__name__}")
        try:
            sim_type = SimType(int(sim_type))
        except (ValueError, TypeError):
            raise GymlikeValueError(f"create_sim: unknown physics engine {sim_type!r}; "
                                    "expected gymapi.SIM_PHYSX or gymapi.SIM_FLEX") from None
        _check_params(params)
        compute_device_id, graphics_device_id = device_ids(compute_device_id, graphics_device_id)
        if sim_type == SimType.SIM_FLEX:
            _warn_flex_substep(params)
        self.gym = gym
        self.id = Sim._next_id
        Sim._next_id += 1
        self.type = sim_type
        self.params = copy.deepcopy(params)
        self.compute_device_id = compute_device_id
        self.graphics_device_id = graphics_device_id
        self.device = select_device(compute_device_id, params)
        self.envs: list[Env] = []
        self.assets: list[Asset] = []
        self.planes: list[PlaneParams] = []
        self.static_meshes = []          # core/terrain.py's callables adding each piece at build time
        for name in _BUILT:
            setattr(self, name, None)
        for name in _COMPONENTS:
            setattr(self, name, None)
        # gymlike-only option, set before prepare_sim: MuJoCo solver options (e.g. {"cone":
        # "pyramidal"}) over gymlike's defaults; gymlike.envs tasks set it from `sim.mujoco:`
        self.mujoco_options = None
        self.time = 0.0
        self.frame = 0
        self.start_wall = time.perf_counter()
        self.physics_seconds = 0.0       # wall time spent in simulate (performance timers)
        self.timers = {}                 # performance timers handle -> (wall, physics_seconds) at creation
        self._next_timer = 0
        self.destroyed = False
        self.model_changes = 0           # newton.ModelFlags the solver is told of at the next step (props.notify)
        self._actor_starts = None
        self.listeners = []              # objects with on_simulate() (tensor API)
        # Before the model exists, a write is recorded on the record it changes (targets, props,
        # colors, DOF state: reads see the latest value) and, where order matters (body-state
        # writes, DOF-state writes after them, body forces), also here, replayed in call order
        # once the model exists (build_model -> replay_deferred)
        self.replay = []
        self.step_limit = step_limit    # gymlike.run --max-frames (core/session.StepLimit), else None
        self.engine = engine            # build, step, params_changed (core/engine.py)
        self.headless = headless        # a headless run that records nothing (core/session.py)

    # ------------------------------------------------------------------ creation
    def check_alive(self) -> None:
        """Raise GymlikeRuntimeError if the sim was destroyed."""
        if self.destroyed:
            raise GymlikeRuntimeError(f"sim {self.id} was destroyed")

    def check_building(self, what: str) -> None:
        """Raise GymlikeRuntimeError unless envs and actors may still be added (no model yet)."""
        self.check_alive()
        if self.model is not None:
            raise GymlikeRuntimeError(
                f"{what}: the simulation is already finalized (prepare_sim, simulate, a tensor "
                "acquire or a state access happened); Isaac Gym does not allow adding envs or "
                "actors after that. Create all envs and actors first.")

    def add_ground(self, params: PlaneParams) -> None:
        """Add a ground plane (checked PlaneParams, copied)."""
        self.check_building("add_ground")
        if not isinstance(params, PlaneParams):
            raise GymlikeTypeError(f"add_ground: expected gymapi.PlaneParams, got {type(params).__name__}")
        n = np.array(params.normal.to_tuple(), np.float64)
        if not np.isfinite(n).all() or np.linalg.norm(n) < 1e-9:
            raise GymlikeValueError(f"add_ground: plane normal must be a non-zero vector, got {params.normal}")
        plane_params(params, "add_ground")
        seg = params.segmentation_id
        if isinstance(seg, bool) or not isinstance(seg, (int, np.integer)) or seg < 0:
            raise GymlikeValueError(f"add_ground: segmentation_id must be an int >= 0, got {seg!r}")
        self.planes.append(copy.deepcopy(params))

    def create_env(self, lower: Vec3, upper: Vec3, num_per_row: int) -> Env:
        """A new env, its origin on a grid of num_per_row envs per row spaced by upper - lower (m)."""
        self.check_building("create_env")
        lower = require_finite(coerce(Vec3, lower, "create_env: lower"), "create_env: lower")
        upper = require_finite(coerce(Vec3, upper, "create_env: upper"), "create_env: upper")
        if isinstance(num_per_row, bool) or number(num_per_row, "create_env: num_per_row", integer=True) < 1:
            raise GymlikeValueError(f"create_env: num_per_row must be a positive int, got {num_per_row!r}")
        num_per_row = number(num_per_row, "create_env: num_per_row", integer=True)
        i = len(self.envs)
        col, row = i % num_per_row, i // num_per_row
        span = upper - lower
        if self.params.up_axis == UpAxis.UP_AXIS_Y:
            origin = (col * span.x, 0.0, row * span.z)
        else:
            origin = (col * span.x, row * span.y, 0.0)
        env = Env(self, i, origin, Vec3(lower), Vec3(upper))
        self.envs.append(env)
        self._actor_starts = None
        return env

    def create_actor(self, env: Env, asset: Asset, pose: Transform, name: str | None, group: int,
                     filter_: int, seg_id: int) -> int:
        """Create an actor of `asset` in `env` at `pose` (m, unit quaternion); returns its handle."""
        self.check_building("create_actor")
        if not isinstance(asset, Asset):
            raise GymlikeTypeError(f"create_actor: asset must be a gymlike Asset, got {type(asset).__name__}")
        if asset.sim is not self:
            raise GymlikeValueError("create_actor: the asset was loaded for another sim")
        pose = coerce(Transform, pose, "create_actor: pose")
        if name is not None and not isinstance(name, str):
            raise GymlikeTypeError(f"create_actor: name must be a str (or None), got {type(name).__name__} {name!r}")
        group, filter_, seg_id = (number(v, f"create_actor: {nm}", integer=True) for nm, v in
                                  (("group", group), ("filter", filter_), ("segmentationId", seg_id)))
        vals = [pose.p.x, pose.p.y, pose.p.z, pose.r.x, pose.r.y, pose.r.z, pose.r.w]
        if not np.isfinite(vals).all():
            raise GymlikeValueError(f"create_actor: pose contains non-finite values: {pose}")
        if abs(np.linalg.norm(vals[3:]) - 1.0) > 1e-3:
            raise GymlikeValueError(f"create_actor: pose.r is not a unit quaternion (norm "
                                    f"{np.linalg.norm(vals[3:]):.4f}): {pose.r}")
        if env.aggregate is not None:
            env.aggregate["actors"] += 1
        a = Actor(env, len(env.actors), asset, pose, name if name is not None else f"actor{len(env.actors)}",
                  int(group), int(filter_), int(seg_id))
        a.shape_props["filter"] = a.filter   # Isaac Gym: the actor's filter is every shape's filter
        env.actors.append(a)
        env.body_count += asset.body_count
        env.dof_count += asset.dof_count
        env.joint_count += asset.joint_count
        env.shape_count += asset.shape_count
        self._actor_starts = None
        return a.handle

    # ------------------------------------------------------------------ indices
    def actor_start(self, env: Env) -> int:
        """DOMAIN_SIM index of the env's first actor (and body/dof/joint/shape starts)."""
        if self._actor_starts is None:
            counts = np.array([[len(e.actors), e.body_count, e.dof_count, e.joint_count, e.shape_count]
                               for e in self.envs], np.int64).reshape(-1, 5)
            starts = np.zeros_like(counts)
            if len(counts):
                starts[1:] = np.cumsum(counts, 0)[:-1]
            self._actor_starts = starts
            self._totals = counts.sum(0) if len(counts) else np.zeros(5, np.int64)
        return int(self._actor_starts[env.index, 0])

    def env_start(self, env: Env, kind: str) -> int:
        """DOMAIN_SIM index of the env's first actor, body, dof, joint or shape (`kind`)."""
        self.actor_start(env)
        return int(self._actor_starts[env.index, {"actor": 0, "body": 1, "dof": 2, "joint": 3, "shape": 4}[kind]])

    def total(self, kind: str) -> int:
        """Number of actors, bodies, dofs, joints or shapes (`kind`) in the sim."""
        if not self.envs:
            return 0
        self.actor_start(self.envs[0])
        return int(self._totals[{"actor": 0, "body": 1, "dof": 2, "joint": 3, "shape": 4}[kind]])

    def all_actors(self) -> list[Actor]:
        """Every actor, in DOMAIN_SIM order."""
        return [a for e in self.envs for a in e.actors]

    # ------------------------------------------------------------------ finalize
    @property
    def finalized(self) -> bool:
        """Whether the Newton model exists (creation is closed)."""
        return self.model is not None

    def ensure_ready(self, what: str = "this call") -> None:
        """Build the Newton model and solver once (the point after which creation is closed)."""
        self.check_alive()
        if self.solver is not None:
            return
        if not self.envs:
            # (envs without actors do build: a static scene, e.g. cameras over the ground)
            raise GymlikeRuntimeError(f"{what}: the sim has no actors yet; create envs and actors first")
        try:
            self.engine.build(self)
        except BaseException:
            # a failed build leaves the sim as before the call: still open for creation, and
            # the same script continues once the cause is removed
            for name in _BUILT:
                setattr(self, name, None)
            raise

    def prepare_sim(self) -> bool:
        """Build the model and solver now (prepare_sim); returns True."""
        self.ensure_ready("prepare_sim")
        return True

    # ------------------------------------------------------------------ performance timers
    def create_timers(self) -> int:
        """Start performance timers; returns their handle."""
        handle = self._next_timer        # never reused, so a stale handle cannot read a live timer
        self._next_timer += 1
        self.timers[handle] = (time.perf_counter(), self.physics_seconds)
        return handle

    def _timer(self, handle, what):
        if isinstance(handle, bool) or not isinstance(handle, (int, np.integer)) or int(handle) not in self.timers:
            raise GymlikeIndexError(f"{what}: unknown timers handle {handle!r}")
        return int(handle)

    def destroy_timers(self, handle: int) -> None:
        """Forget the timers `handle`."""
        del self.timers[self._timer(handle, "destroy_performance_timers")]

    def read_timers(self, handle: int) -> tuple[float, float]:
        """-> (seconds spent in simulate, wall seconds) since the timers were created."""
        wall0, physics0 = self.timers[self._timer(handle, "get_performance_timers")]
        return self.physics_seconds - physics0, time.perf_counter() - wall0

    # ------------------------------------------------------------------ stepping
    def simulate(self) -> None:
        """Advance the sim by one step of params.dt s (building it first if needed)."""
        t0 = time.perf_counter()
        self.ensure_ready("simulate")
        if self.step_limit is not None:
            self.step_limit(self)
        self.engine.step(self)
        self.physics_seconds += time.perf_counter() - t0

    # NaN check: read back every `nan_check_interval` simulate calls (core/step.py)
    nan_check_interval = 1

    def defer(self, actor: Actor | None, fn: Callable[[], object], what: str) -> None:
        """Replay `fn()` once the model exists, after the writes deferred before it (`what`: the
        call that made it, for an error at the replay)."""
        self.replay.append((fn, actor, what))
        if actor is not None:
            actor.replays += 1

    def replay_deferred(self) -> None:
        """Apply the deferred writes in call order. They stay recorded until all applied: when
        one fails, the build fails naming it, that write is dropped and the others are kept for
        the next prepare_sim (each was validated when it was made, so this is rare)."""
        for k, (fn, actor, what) in enumerate(self.replay):
            try:
                fn()
            except Exception as e:
                del self.replay[k]
                if actor is not None:
                    actor.replays -= 1
                raise deferred_write_failed(e, what, actor, k, len(self.replay)) from e
        self.replay.clear()
        for a in self.all_actors():
            a.replays = 0

    # The current state. Whether Newton's State is current is recorded in core/currency.py and
    # acted on by the backend (core/backend.py: MuJoCo C leaves it behind its rows and converts
    # on the first read, joint writes defer forward kinematics, XPBD leaves joint coordinates
    # behind its bodies): every reader comes through `state`, while the step path reads
    # `stepping_state` when it needs no current joint or body state. Before the build there is
    # no backend and nothing pending.
    @property
    def state(self) -> newton.State:
        """The current Newton state (any deferred conversion run first)."""
        b = self.backend
        return self._state if b is None else b.current()

    def sync_state(self) -> None:
        """Run the deferred conversion into the current state, if any."""
        if self.backend is not None:
            self.backend.sync()

    @state.setter
    def state(self, value: newton.State | None) -> None:
        """Replace the current Newton state."""
        self._state = value

    @property
    def joint_state(self) -> newton.State:
        """`state` for code that reads or writes joint coordinates only: a pending forward
        kinematics (the bodies following written joints) stays pending, so a reset that writes
        root states, then DOF states, then reads DOF states runs it once, when bodies are read."""
        b = self.backend
        return self._state if b is None else b.joints_current()

    @property
    def stepping_state(self) -> newton.State:
        """The Newton state as it is, without running a deferred conversion (for the stepper)."""
        return self._state

    def defer_state_sync(self, sync: Callable[[], None] | None) -> None:
        """`sync()` makes `state` current; it runs when `state` is next read (None: cancel)."""
        self.backend.defer(sync)

    def attach(self, **parts: Any) -> None:
        """Set what build_model made (the names of _BUILT)."""
        unknown = set(parts) - set(_BUILT)
        if unknown:
            raise AttributeError(f"Sim.attach: {sorted(unknown)} are not declared in core/sim.py _BUILT")
        if self.backend is not None:
            self.backend.defer(None)     # (a pending conversion was into the parts replaced)
        for name, part in parts.items():
            setattr(self, name, part)
        if "solver" in parts:
            self.model_changes = 0       # (a new solver converted the model as it is)

    def model_changed(self, flags: int, now: bool = False) -> None:
        """Model properties changed (newton.ModelFlags bits): the solver is told at the next step
        (Stepper.simulate -> apply_model_changes), all at once. Its response can cost more than
        the change: tendon, inertia and armature changes recompute MuJoCo's constants of every
        world (0.15 s at 64 ShadowHand worlds), and domain randomization sets properties env by
        env (IsaacGymEnvs' ShadowHand: 64 recomputations, 10 s, per re-randomization of 64 envs).
        What is read before that step comes from Newton's model, written at once. `now`: tell
        the solver at once, with whatever else is pending."""
        if self.solver is not None:
            self.model_changes |= int(flags)
            if now:
                self.apply_model_changes()

    def apply_model_changes(self) -> None:
        """Tell the solver of the model changes since it last heard (one call)."""
        if self.model_changes and self.solver is not None:
            flags, self.model_changes = self.model_changes, 0
            self.solver.notify_model_changed(flags)   # (ModelFlags is an IntEnum: combined flags as int)

    def wants_visuals(self) -> bool:
        """Whether the sim's actors are imported with their visual-only geometry (URDF
        `<visual>`, MJCF geoms that collide with nothing). Not where nothing can draw them:
        graphics_device_id -1 (Isaac Gym then creates no graphics context: no viewer, no camera
        images) or a headless run (`gymlike.run --headless`, GYMLIKE_VIEWER=headless) that records
        nothing and has no camera sensor. Visual meshes (COLLADA files above all) are most of an
        asset's load time (Franka's: ~5 s of IsaacGymEnvs' FrankaCabinet build) and the physics
        never reads them. Decided for good when the model is built (`visuals`)."""
        if self.visuals is not None:
            return self.visuals
        if self.graphics_device_id < 0:
            return False
        if self.headless:
            return bool(self.cameras is not None and any(self.cameras.cams.values()))
        return True

    def component(self, name: str, make: Callable[[], T]) -> T:
        """The sim's `name` part (contact forces, DOF forces, sensors...: the names of
        _COMPONENTS), made by `make()` on first use so that sims which never ask for it never
        pay for it."""
        if name not in _COMPONENTS:
            raise AttributeError(f"Sim.component: {name!r} is not declared in core/sim.py _COMPONENTS")
        part = getattr(self, name)
        if part is None:
            part = make()
            setattr(self, name, part)
        return part

    def state_written(self, actors: Sequence[int] | np.ndarray | None = None) -> None:
        """Called after any write into the simulated state of `actors` (host sim indices; None:
        all): the solver forgets what it carried over for their worlds (backend.invalidate)."""
        if self.backend is not None:
            self.backend.invalidate(actors)

    def defer_kinematics(self, arts: wp.array | np.ndarray | None = None, n: int = 0) -> None:
        """After a write of joint coordinates: the bodies follow when `state` is next read
        (backend.NewtonState.defer_kinematics)."""
        self.backend.defer_kinematics(arts, n)

    def sync_joint_state(self) -> None:
        """Make joint_q/joint_qd current (XPBD only writes body_q/body_qd)."""
        if self.backend is not None:
            self.backend.sync_joints()

    # ------------------------------------------------------------------ params
    def set_params(self, params: SimParams) -> None:
        """Replace the sim parameters (checked, copied); on a built sim, gravity and drive gains follow at once."""
        if not isinstance(params, SimParams):
            raise GymlikeTypeError(f"set_sim_params: expected gymapi.SimParams, got {type(params).__name__}")
        _check_params(params)
        if params.up_axis != self.params.up_axis and self.finalized:
            raise GymlikeValueError("set_sim_params: up_axis cannot change after the sim is finalized")
        step_changed = (params.dt, params.substeps) != (self.params.dt, self.params.substeps)
        self.params = copy.deepcopy(params)
        if self.finalized:
            self.engine.params_changed(self, step_changed)

    def apply_gravity(self) -> None:
        """Write params.gravity (m/s^2) into the model and tell the solver."""
        newton = _newton()
        g = self.params.gravity
        self.model.set_gravity((g.x, g.y, g.z))
        self.model_changed(newton.ModelFlags.MODEL_PROPERTIES, now=True)

    def destroy(self) -> None:
        """Mark the sim destroyed and drop its Newton model, solver and states."""
        self.destroyed = True
        self.model = self.solver = self.backend = self.state = self.state_next = self.control = None


# Longest XPBD substep measured stable for effort-driven articulations (16 ants at their gear
# torque, random actions, 300 frames: 1/240 s stable, 1/180 s and 1/120 s diverge by frame 8).
FLEX_STABLE_SUBSTEP = 1.0 / 240.0


def _warn_flex_substep(p):
    h = float(p.dt) / max(1, int(p.substeps))
    if h > FLEX_STABLE_SUBSTEP * 1.001:
        need = int(np.ceil(float(p.dt) / FLEX_STABLE_SUBSTEP - 1e-6))
        warn(f"create_sim: SIM_FLEX steps rigid bodies on Newton's XPBD (VBD when the sim holds soft bodies) "
             f"in substeps of {h:.4g} s (dt / substeps); "
             f"articulations driven by efforts stay stable up to {FLEX_STABLE_SUBSTEP:.4g} s: use "
             f"substeps >= {need} for dt {p.dt:.4g}, or SIM_PHYSX")


def deferred_write_failed(e: Exception, what: str, actor: Actor | None, k: int, kept: int) -> GymlikeError:
    """The error of a deferred write that failed at its replay: the builtin type it had."""
    from .runtime import call_name
    cls = next((c for b, c in ((IndexError, GymlikeIndexError), (TypeError, GymlikeTypeError),
                               (ValueError, GymlikeValueError)) if isinstance(e, b)), GymlikeRuntimeError)
    where = f" for actor '{actor.name}' in env {actor.env.index}" if actor is not None else ""
    return cls(f"{call_name()}: the {what} call made before the sim was prepared{where} (deferred write "
               f"{k + 1}) could not be applied: {e}. That write was dropped; the other {kept} deferred "
               f"write(s) are kept for the next prepare_sim")


def _check_params(p):
    if not (isinstance(p.dt, (int, float)) and p.dt > 0 and np.isfinite(p.dt)):
        raise GymlikeValueError(f"SimParams.dt must be a positive number, got {p.dt!r}")
    if isinstance(p.substeps, bool) or not isinstance(p.substeps, (int, np.integer)) or p.substeps < 1:
        raise GymlikeValueError(f"SimParams.substeps must be an int >= 1, got {p.substeps!r}")
    if not isinstance(p.gravity, Vec3):
        raise GymlikeTypeError(f"SimParams.gravity must be gymapi.Vec3, got {type(p.gravity).__name__}")
    require_finite(p.gravity, "SimParams.gravity")
    try:
        UpAxis(int(p.up_axis))
    except (ValueError, TypeError):
        raise GymlikeValueError(f"SimParams.up_axis must be UP_AXIS_Y or UP_AXIS_Z, got {p.up_axis!r}") from None
    sim_params(p)
