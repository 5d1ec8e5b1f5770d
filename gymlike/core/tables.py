"""The sim's index maps and per-entity arrays, declared: each field with its shape, type and
units. build.py fills them once, when the model is built; both the handle API and the tensor
API index through these same tables (one index set).

Sizes: A actors, B bodies, D Isaac Gym DOFs (DOMAIN_SIM order), S Newton shapes, E envs.
DOMAIN_SIM body index == Newton body index (actors are added in sim order); a DOF's Newton
coordinate and velocity indices differ from its DOMAIN_SIM index (free roots hold 7/6 Newton
coordinates that Isaac Gym does not count as DOFs), hence dof_q / dof_qd.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:                  # (annotations only: importing tables loads no Warp)
    import warp as wp


class Declared:
    """A record whose fields are its class annotations: writing an undeclared field raises, so
    no module can grow a table with attributes its readers do not know about."""

    _fields: frozenset = frozenset()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._fields = frozenset(k for c in cls.__mro__ for k in getattr(c, "__annotations__", {}))

    def __setattr__(self, name, value):
        if name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no field {name!r} (declare it in core/tables.py)")
        object.__setattr__(self, name, value)


class HostTables(Declared):
    """numpy copies of the index maps, for the handle API (never read in the step path)."""
    num_actors: int
    num_bodies: int
    num_dofs: int
    actor_env: np.ndarray           # (A,) int64: env index
    actor_body0: np.ndarray         # (A,) int64: first body (Newton index == DOMAIN_SIM index)
    actor_nbody: np.ndarray         # (A,) int64: bodies
    actor_joint0: np.ndarray        # (A,) int64: Newton index of the root joint
    actor_q0: np.ndarray            # (A,) int64: first Newton joint coordinate
    actor_nq: np.ndarray            # (A,) int64: Newton joint coordinates
    actor_qd0: np.ndarray           # (A,) int64: first Newton joint DOF (velocity coordinate)
    actor_nqd: np.ndarray           # (A,) int64: Newton joint DOFs (a free root counts 6)
    actor_dof0: np.ndarray          # (A,) int64: first Isaac Gym DOF (DOMAIN_SIM)
    actor_ndof: np.ndarray          # (A,) int64: Isaac Gym DOFs (free roots excluded)
    actor_floating: np.ndarray      # (A,) bool: root joint is free
    any_fixed_root: bool            # some actor's root is fixed (its joint frame moves with root writes)
    actor_articulation: np.ndarray  # (A,) int64: Newton articulation
    actor_shape0: np.ndarray        # (A,) int64: first Newton shape
    actor_tendon0: np.ndarray       # (A,) int64: first Newton (MuJoCo) tendon
    dof_q: np.ndarray               # (D,) int32: Newton joint coordinate of each DOF
    dof_qd: np.ndarray              # (D,) int32: Newton joint DOF of each DOF
    dof_actor: np.ndarray           # (D,) int64: actor of each DOF
    dof_axis_inertia: np.ndarray    # (D,) float32: kg m^2 (rotation) or kg (translation) the drive moves, lower bound
    dof_pair_inertia: np.ndarray    # (D,) float32: child and parent moments in series (SIM_FLEX; else dof_axis_inertia)
    dof_velocity_limit: np.ndarray  # (D,) float32: rad/s or m/s, <= 0: none (props.write_dof_props)
    dof_friction: np.ndarray        # (D,) float32: PhysX joint friction coefficient on SIM_PHYSX
                                    # (props.write_dof_props)
    dof_mode: np.ndarray            # (D,) int32: Isaac Gym DofDriveMode (props.write_dof_props)
    dof_takes: dict                 # 'pos_target' / 'vel_target' -> ((D,) bool: the DOF's drive mode takes
                                    # that target (kernels.target_taken), how many do)
                                    # (props.write_dof_props; drives.write_all_host)
    body_world: np.ndarray          # (B,) int32: Newton world (-1: shared static)
    body_env: np.ndarray            # (B,) int32: env index
    body_origin: np.ndarray         # (B, 3) float32 m: origin of the body's env (API positions are env-local)
    shape_newton: np.ndarray        # (Isaac Gym shapes,) int32: Newton shape of each Isaac Gym rigid shape
    shape_env: np.ndarray           # (S,) int32: env of each Newton shape, -1 for ground/terrain
    static_shape_seg: dict          # Newton shape -> segmentation id of the ground and terrain
    base_shape_color: Any           # (S, 3) float32: shape colours as built, what reset_actor_materials restores
                                    # (render/looks.py)


class DeviceTables(Declared):
    """Warp arrays on the sim device read by the step path and the tensor API (each with its
    shape and Warp dtype in the comment; tests/project/test_layout.py checks them on a built sim), and
    the flags that tell `simulate` which of its optional stages to run."""
    num_actors: int
    num_bodies: int
    num_dofs: int
    # Array fields: "(shape) dtype[ units]: meaning"; D DOFs, B bodies, A actors, E envs, K input kinds,
    # Q Newton joint DOFs (free roots included)
    dof_q: wp.array               # (D,) int32: Newton joint coordinate
    dof_qd: wp.array              # (D,) int32: Newton joint DOF
    dof_mode: wp.array            # (D,) int32: Isaac Gym DofDriveMode
    dof_stiffness: wp.array       # (D,) float32 N m/rad or N/m: drive
    dof_damping: wp.array         # (D,) float32 N m s/rad or N s/m: drive
    dof_effort_limit: wp.array    # (D,) float32 N m or N
    dof_effort_scale: wp.array    # (D,) float32: armature correction of efforts on SIM_FLEX (props.effort_scale)
    dof_effort: wp.array          # (D,) float32 N m or N: applied this simulate (apply_actor_dof_efforts,
                                  # actuation tensor)
    dof_velocity_limit: wp.array  # (D,) float32 rad/s or m/s: <= 0: none
    dof_friction: wp.array        # (D,) float32: PhysX joint friction coefficient (SIM_PHYSX; core/joint_rows.py)
    dof_axis_inertia: wp.array    # (D,) float32: see HostTables
    dof_pair_inertia: wp.array    # (D,) float32: see HostTables
    dof_explicit: wp.array        # (D,) int32: 1 where SIM_FLEX applies the drive stiffness as a joint force
                                  # (kernels.drive_gains)
    dof_identity: wp.array        # (D,) int32: 0 .. D-1 (the index of dof_effort rows)
    effort_f: wp.array            # (Q,) float32 N m or N: SIM_FLEX on XPBD, this substep's efforts by Newton DOF
                                  # (dynamics.XpbdJointForces)
    dof_env: wp.array             # (D,) int32: env of each DOF (the divergence guard)
    body_force: wp.array          # (B,) spatial_vector N, N m: user wrench at the COM, world frame, this simulate
    body_origin: wp.array         # (B,) vec3 m: env origin
    body_env: wp.array            # (B,) int32: env index
    body_actor: wp.array          # (B,) int32: actor index
    no_gravity: wp.array          # (B,) int32: RIGID_BODY_DISABLE_GRAVITY
    lin_damp: wp.array            # (B,) float32 1/s: AssetOptions.linear_damping
    ang_damp: wp.array            # (B,) float32 1/s: AssetOptions.angular_damping
    body_lin_cap: wp.array        # (B,) float32 m/s: AssetOptions.max_linear_velocity
    body_ang_cap: wp.array        # (B,) float32 rad/s: AssetOptions.max_angular_velocity
    # actors: int32 copies of the HostTables index maps of the same name
    actor_env: wp.array           # (A,) int32
    actor_body0: wp.array         # (A,) int32
    actor_joint0: wp.array        # (A,) int32
    actor_q0: wp.array            # (A,) int32
    actor_qd0: wp.array           # (A,) int32
    actor_nqd: wp.array           # (A,) int32
    actor_dof0: wp.array          # (A,) int32
    actor_ndof: wp.array          # (A,) int32
    actor_floating: wp.array      # (A,) int32: 1 where the root joint is free
    actor_articulation: wp.array  # (A,) int32
    actor_all: wp.array           # (A,) int32: 0 .. A-1 (the non-indexed setters' actor list)
    actor_speed_scale: wp.array   # (A,) float32: velocity scale from the speed caps, per substep
    # NaN guard
    nan_worlds: wp.array          # (E,) int32: envs whose state went NaN/inf or diverged
    nan_count: wp.array           # (1,) int32
    bad_input: wp.array           # (K,) int32: non-finite inputs, per kernels.BAD_INPUT_KINDS kind
    # flags steering simulate (each set by the module named)
    efforts_pending: bool      # dof_effort holds efforts to apply (drives.py)
    forces_pending: bool       # body_force holds wrenches to apply (forces/wrenches.py, tensors.py)
    passive_forces: bool       # gravity off or damping on some body: the wrench kernel must run (props.py)
    velocity_clamp: bool       # some DOF has a velocity limit (props.py, SIM_PHYSX)
    joint_friction: bool       # some DOF has PhysX joint friction (props.py, SIM_PHYSX)
    speed_caps: bool           # body speed caps apply through joint velocities (SIM_PHYSX)
    speed_caps_xpbd: bool      # body speed caps apply to XPBD's bodies (SIM_FLEX without soft bodies)
    explicit_drives: bool      # some drive stiffness is a per-substep joint force (props.py, SIM_FLEX)
    xpbd_articulated: bool     # SIM_FLEX on XPBD: joint forces as body wrenches (dynamics.XpbdJointForces)


def spans(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The indices start[i] .. start[i] + count[i] - 1 of every i, in order (int arrays)."""
    if len(count) and (count == count[0]).all():        # (one asset per env: one arange)
        return (start[:, None] + np.arange(int(count[0]))).reshape(-1)
    return np.repeat(start - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
