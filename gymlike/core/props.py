"""Writing Isaac Gym properties (DOF, rigid body, rigid shape) into the Newton model.

The same writers serve the finalize step (all actors at once) and the per-actor setters;
each is a fixed number of scatter launches followed by one `notify_model_changed`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import kernels
from .assets.record import UNLIMITED
from .enums import RIGID_BODY_DISABLE_GRAVITY, SimType
from .runtime import newton as _newton, wp as _wp, call_name
from .types import number

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import warp as wp

    from .sim import Actor, Sim
    from .types import RigidBodyProperties, RigidShapeProperties

OPEN_LIMIT = 0.5 * UNLIMITED      # the range written for DOFs without limits
NO_VELOCITY_LIMIT = 1e6           # Newton's default velocity limit: no limit


def scatter(sim: Sim, dst: wp.array, idx: np.ndarray, values: np.ndarray, dtype: Any = None) -> None:
    """dst[idx] = values on the sim device (values: numpy). On the CPU a numpy write into the
    array's memory (a Warp CPU array's numpy() is a view): a per-env setter makes a few dozen of
    these, and two Warp arrays plus a launch cost ~0.2 ms each, most of IsaacGymEnvs'
    randomization at reset."""
    wp = _wp()
    idx = np.ascontiguousarray(idx, np.int32)
    if idx.size == 0:
        return
    if dst.device.is_cpu and dst.is_contiguous:
        view = dst.numpy()
        view[idx] = np.asarray(values, view.dtype).reshape((idx.size, *view.shape[1:]))
        return
    src = wp.array(np.ascontiguousarray(values), dtype=dtype or dst.dtype, device=sim.device)
    wi = wp.array(idx, dtype=wp.int32, device=sim.device)
    wp.launch(kernels.scatter, dim=idx.size, inputs=[src, wi, dst], device=sim.device)


def _modes_taken(h, ig_dofs, modes):
    """Keep h.dof_mode and h.dof_takes (which DOFs take a position / velocity target, and how
    many) with the modes written: the written DOFs only, so a loop over actors stays linear."""
    from .drives import targets_taken
    h.dof_mode[ig_dofs] = modes
    for kind, (taken, count) in h.dof_takes.items():
        new = targets_taken(modes, kind)
        count += int(new.sum()) - int(taken[ig_dofs].sum())
        taken[ig_dofs] = new
        h.dof_takes[kind] = (taken, count)


def notify(sim: Sim, *flags: str, now: bool = False) -> None:
    """Tell the solver (if one exists) which model properties changed: newton.ModelFlags names,
    at the next step unless `now` (Sim.model_changed)."""
    newton = _newton()
    f = 0
    for name in flags:
        f |= int(getattr(newton.ModelFlags, name))
    sim.model_changed(f, now)


# ---------------------------------------------------------------------------- DOF properties
def write_dof_props(sim: Sim, ig_dofs: np.ndarray, props: np.ndarray, armature_changed: bool = True) -> None:
    """ig_dofs: DOMAIN_SIM DOF indices; props: DOF_PROPERTIES_DTYPE array of the same length.

    DOFs without limits get the finite range +-OPEN_LIMIT rather than Newton's "unlimited"
    value, so that MuJoCo compiles every joint as limited and `hasLimits` can be switched on
    after the solver exists (MuJoCo decides limited/unlimited once, at construction)."""
    if len(ig_dofs) == 0:
        return
    m, d, h = sim.model, sim.dev, sim.host
    ig_dofs = np.asarray(ig_dofs, np.int64)
    qd = h.dof_qd[ig_dofs]
    has = props["hasLimits"].astype(bool)
    lower = np.where(has, np.clip(props["lower"], -OPEN_LIMIT, OPEN_LIMIT), -OPEN_LIMIT).astype(np.float32)
    upper = np.where(has, np.clip(props["upper"], -OPEN_LIMIT, OPEN_LIMIT), OPEN_LIMIT).astype(np.float32)
    # a locked DOF (lower == upper, which PhysX accepts) gets a 1e-5 wide range: MuJoCo needs lower < upper
    upper = np.where(upper <= lower, lower + np.maximum(1e-5, 1e-5 * np.abs(lower)), upper).astype(np.float32)
    scatter(sim, m.joint_limit_lower, qd, lower)
    scatter(sim, m.joint_limit_upper, qd, upper)
    effort = np.minimum(props["effort"].astype(np.float64), UNLIMITED).astype(np.float32)
    velocity = props["velocity"].astype(np.float64)
    scatter(sim, m.joint_effort_limit, qd, effort)
    scatter(sim, m.joint_velocity_limit, qd, np.minimum(velocity, UNLIMITED).astype(np.float32))
    friction = np.maximum(props["friction"].astype(np.float32), 0.0)
    physx = sim.type == SimType.SIM_PHYSX
    # SIM_PHYSX: PhysX's joint friction is a coefficient of the force the joint transmits
    # (core/joint_rows.py), not MuJoCo's constant friction loss, which stays 0
    scatter(sim, m.joint_friction, qd, np.zeros_like(friction) if physx else friction)
    scatter(sim, d.dof_friction, ig_dofs, friction if physx else np.zeros_like(friction))
    scatter(sim, m.joint_armature, qd, props["armature"].astype(np.float32))
    modes = props["driveMode"].astype(np.int32)
    scatter(sim, d.dof_mode, ig_dofs, modes)
    _modes_taken(h, ig_dofs, modes)
    scatter(sim, d.dof_stiffness, ig_dofs, props["stiffness"].astype(np.float32))
    scatter(sim, d.dof_damping, ig_dofs, props["damping"].astype(np.float32))
    scatter(sim, d.dof_effort_limit, ig_dofs, effort)
    if sim.type == SimType.SIM_FLEX and not d.xpbd_articulated:     # (XPBD: armature exact, in H)
        scatter(sim, d.dof_effort_scale, ig_dofs, effort_scale(h.dof_axis_inertia[ig_dofs], props["armature"]))
    # velocity limits: gymlike clamps them itself on SIM_PHYSX (0 = none: Newton's 1e6 default
    # and a 0 written by some URDFs both mean "no limit")
    vlim = np.where((velocity > 0) & (velocity < NO_VELOCITY_LIMIT), velocity, 0.0).astype(np.float32)
    scatter(sim, d.dof_velocity_limit, ig_dofs, vlim)
    if not hasattr(h, "dof_velocity_limit"):
        h.dof_velocity_limit = np.zeros(h.num_dofs, np.float32)
    h.dof_velocity_limit[ig_dofs] = vlim
    d.velocity_clamp = bool(physx and h.dof_velocity_limit.any())
    h.dof_friction[ig_dofs] = friction if physx else 0.0
    d.joint_friction = bool(physx and h.dof_friction.any())
    write_drive_gains(sim, notify_solver=False)
    # (the inertial notify makes MuJoCo recompute its constants: ~20 ms, only when needed)
    notify(sim, "JOINT_DOF_FORCE_PROPERTIES", *(["JOINT_DOF_INERTIAL_PROPERTIES"] if armature_changed else []))


def effort_scale(axis_inertia: np.ndarray, armature: np.ndarray) -> np.ndarray:
    """SIM_FLEX: Newton's XPBD has no joint armature, and without it an effort on a light link
    (an ant's leg: 8e-4 kg m^2 about its hip, armature 0.01) spins it ~13x faster than PhysX
    or MuJoCo would, which diverged 2 of 16 ants at their own gear torque in the first frame.
    Scaling the effort by I / (I + armature), I the child's moment about the axis, gives the
    DOF the acceleration the armature allows (exact for a single link)."""
    axis_inertia = np.asarray(axis_inertia, np.float64)
    total = axis_inertia + np.maximum(np.asarray(armature, np.float64), 0.0)
    return np.where(total > 0, axis_inertia / np.where(total > 0, total, 1.0), 1.0).astype(np.float32)


def write_drive_gains(sim: Sim, notify_solver: bool = True) -> None:
    """Newton drive gains from the Isaac Gym DOF modes, stiffness and damping (and the substep)."""
    wp, m, d = _wp(), sim.model, sim.dev
    # (XPBD only: with soft bodies SIM_FLEX steps on VBD, whose drives stay as they are)
    xpbd = sim.type == SimType.SIM_FLEX and not m.particle_count
    flex_h = float(sim.params.dt) / max(1, int(sim.params.substeps)) if xpbd else 0.0
    wp.launch(kernels.drive_gains, dim=d.num_dofs, device=sim.device,
              inputs=[d.dof_stiffness, d.dof_damping, d.dof_qd, implicit_drive_step(sim),
                      d.dof_axis_inertia, m.joint_armature, flex_h, d.dof_pair_inertia,
                      m.joint_target_ke, m.joint_target_kd, d.dof_explicit])
    if flex_h > 0.0:
        # (a property write, not the step path: the flag tells simulate whether to run the
        # per-substep drive forces; when they stop, the forces they left in joint_f go)
        explicit = bool(d.num_dofs and d.dof_explicit.numpy().any())
        if d.explicit_drives and not explicit:
            sim.control.joint_f.zero_()
        d.explicit_drives = explicit
    if notify_solver:
        notify(sim, "JOINT_DOF_FORCE_PROPERTIES")


def implicit_drive_step(sim: Sim) -> float:
    """Substep length that turns PhysX's implicit drive stiffness into damping on SIM_PHYSX
    (kernels.drive_gains); 0 on SIM_FLEX, whose XPBD drives are already implicit."""
    if sim.type != SimType.SIM_PHYSX:
        return 0.0
    return float(sim.params.dt) / max(1, int(sim.params.substeps))


# ---------------------------------------------------------------------------- rigid bodies
def write_body_props(sim: Sim, bodies: np.ndarray, mass: np.ndarray, com: np.ndarray, inertia: np.ndarray,
                     flags: np.ndarray, inertial_changed: bool = True) -> None:
    """bodies: DOMAIN_SIM body indices (== Newton body indices)."""
    if len(bodies) == 0:
        return
    wp = _wp()
    m, d = sim.model, sim.dev
    mass = np.asarray(mass, np.float32)
    inertia = np.asarray(inertia, np.float32).reshape(-1, 3, 3)
    inv_mass = np.where(mass > 0, 1.0 / np.maximum(mass, 1e-30), 0.0).astype(np.float32)
    inv_inertia = np.zeros_like(inertia)
    ok = mass > 0
    if ok.any():   # (pinv: a welded link may carry mass with a singular inertia; pinv == inv otherwise)
        inv_inertia[ok] = np.linalg.pinv(inertia[ok].astype(np.float64)).astype(np.float32)
    scatter(sim, m.body_mass, bodies, mass)
    scatter(sim, m.body_inv_mass, bodies, inv_mass)
    scatter(sim, m.body_com, bodies, np.asarray(com, np.float32).reshape(-1, 3), wp.vec3)
    scatter(sim, m.body_inertia, bodies, inertia, wp.mat33)
    scatter(sim, m.body_inv_inertia, bodies, inv_inertia, wp.mat33)
    nog = ((np.asarray(flags) & RIGID_BODY_DISABLE_GRAVITY) != 0).astype(np.int32)
    scatter(sim, d.no_gravity, bodies, nog)
    d.passive_forces = bool(d.passive_forces or nog.any())
    if inertial_changed:
        notify(sim, "BODY_INERTIAL_PROPERTIES")


# ---------------------------------------------------------------------------- rigid shapes
def write_shape_props(sim: Sim, newton_shapes: np.ndarray, props: np.ndarray) -> None:
    """friction, rolling/torsion friction, restitution, contact_offset (Newton's detection gap)
    and rest_offset (Newton's contact margin, SIM_FLEX only). compliance and thickness have no
    Newton counterpart (they are stored only); filter is handled at finalize (build._plan_collisions)."""
    if len(newton_shapes) == 0:
        return
    m = sim.model
    scatter(sim, m.shape_material_mu, newton_shapes, props["friction"].astype(np.float32))
    scatter(sim, m.shape_material_restitution, newton_shapes, props["restitution"].astype(np.float32))
    scatter(sim, m.shape_material_mu_rolling, newton_shapes, props["rolling_friction"].astype(np.float32))
    scatter(sim, m.shape_material_mu_torsional, newton_shapes, props["torsion_friction"].astype(np.float32))
    scatter(sim, m.shape_gap, newton_shapes, props["contact_offset"].astype(np.float32))
    if sim.type == SimType.SIM_FLEX:   # MuJoCo's own collision zeroes (and warns about) margins
        scatter(sim, m.shape_margin, newton_shapes, props["rest_offset"].astype(np.float32))
    notify(sim, "SHAPE_PROPERTIES")


# ---------------------------------------------------------------------------- finalize
def write_all(sim: Sim) -> None:
    """Push every actor's properties (asset defaults or values set before finalize)."""
    h, d = sim.host, sim.dev
    actors = sim.all_actors()
    if h.num_dofs:
        write_dof_props(sim, np.arange(h.num_dofs), np.concatenate([a.dof_props for a in actors]))
    if h.num_bodies:
        write_body_props(sim, np.arange(h.num_bodies),
                         np.concatenate([a.body_mass for a in actors]),
                         np.concatenate([a.body_com for a in actors]),
                         np.concatenate([a.body_inertia for a in actors]),
                         np.concatenate([a.body_flags for a in actors]))
    if len(h.shape_newton):
        write_shape_props(sim, h.shape_newton, np.concatenate([a.shape_props for a in actors]))
    d.passive_forces = bool(d.passive_forces or d.lin_damp.numpy().any() or d.ang_damp.numpy().any())


# ============================================================================ handle-API properties
# Getters return the actor's copies, which every setter keeps equal to what the model uses;
# setters validate everything first, then write the actor copy and (after finalize) the model.
DOF_FIELDS = ("hasLimits", "lower", "upper", "driveMode", "velocity", "effort", "stiffness",
              "damping", "friction", "armature")


def check_dof_props(props: np.ndarray, n: int, what: str | None = None) -> np.ndarray:
    """A structured array with Isaac Gym's DOF property fields, n rows -> a clean copy."""
    what = what or call_name()
    from .errors import GymlikeTypeError, GymlikeValueError
    from .types import DOF_PROPERTIES_DTYPE
    if not isinstance(props, np.ndarray) or props.dtype.names is None:
        raise GymlikeTypeError(f"{what}: props must be the structured numpy array returned by "
                               f"get_actor_dof_properties (fields {', '.join(DOF_FIELDS)}), got "
                               f"{type(props).__name__}"
                               + (f" of dtype {props.dtype}" if isinstance(props, np.ndarray) else ""))
    missing = [f for f in DOF_FIELDS if f not in props.dtype.names]
    if missing:
        raise GymlikeTypeError(f"{what}: props has dtype {props.dtype}, which lacks the DOF property "
                               f"field(s) {', '.join(missing)}")
    if props.shape != (n,):
        raise GymlikeValueError(f"{what}: props must have one entry per DOF of the actor ({n}), "
                                f"got shape {props.shape}")
    out = np.zeros(n, DOF_PROPERTIES_DTYPE)
    for f in DOF_FIELDS:
        try:
            out[f] = props[f]
        except (ValueError, TypeError):
            raise GymlikeTypeError(f"{what}: props['{f}'] has dtype {props.dtype[f]}, not a number") from None
    modes = np.asarray(props["driveMode"])
    bad = np.nonzero(~np.isin(modes, (0, 1, 2, 3)) | (modes != out["driveMode"]))[0]
    if len(bad):
        i = int(bad[0])
        raise GymlikeValueError(f"{what}: props[{i}]['driveMode'] = "
                                f"{int(modes[i]) if np.isfinite(modes[i]) else modes[i]} is not a drive mode; expected "
                                "DOF_MODE_NONE (0), DOF_MODE_POS (1), DOF_MODE_VEL (2) or DOF_MODE_EFFORT (3)")
    for f in ("lower", "upper", "velocity", "effort", "stiffness", "damping", "friction", "armature"):
        v = out[f]
        nan = np.isnan(v)
        if nan.any():
            raise GymlikeValueError(f"{what}: props[{int(np.argmax(nan))}]['{f}'] is NaN")
        if f in ("stiffness", "damping", "friction", "armature") and not np.isfinite(v).all():
            i = int(np.argmax(~np.isfinite(v)))
            raise GymlikeValueError(f"{what}: props[{i}]['{f}'] must be finite, got {v[i]}")
        if f not in ("lower", "upper") and (v < 0).any():
            i = int(np.argmax(v < 0))
            raise GymlikeValueError(f"{what}: props[{i}]['{f}'] must be >= 0, got {v[i]}")
    has = out["hasLimits"]
    inverted = has & (out["lower"] > out["upper"])
    if inverted.any():
        i = int(np.argmax(inverted))
        raise GymlikeValueError(f"{what}: props[{i}] has lower limit {out['lower'][i]} > upper limit "
                                f"{out['upper'][i]}")
    return out


def set_actor_dof_props(actor: Actor, props: np.ndarray) -> None:
    """Set the actor's DOF properties (a checked DOF_PROPERTIES_DTYPE array, one row per DOF),
    in the model too once it exists."""
    sim = actor.env.sim
    if sim.finalized and len(props):
        d0 = int(sim.host.actor_dof0[actor.sim_index])
        write_dof_props(sim, np.arange(d0, d0 + len(props)), props,
                        armature_changed=bool((props["armature"] != actor.dof_props["armature"]).any()))
    actor.dof_props[:] = props


# ---------------------------------------------------------------------------- rigid bodies
_KNOWN_BODY_FLAGS = 1 | 2 | 4   # DISABLE_GRAVITY, DISABLE_SIMULATION, ENABLE_GYROSCOPIC_FORCES


def body_props_list(actor: Actor) -> list[RigidBodyProperties]:
    """The actor's bodies as RigidBodyProperties (mass kg, com m, inertia kg m^2)."""
    from .types import Mat33, RigidBodyProperties, Vec3
    n = actor.asset.body_count
    inertia = np.asarray(actor.body_inertia[:n], np.float64)
    inv = np.zeros((n, 3, 3))
    det = np.linalg.det(inertia) if n else np.zeros(0)
    ok = (np.asarray(actor.body_mass[:n]) > 0) & np.isfinite(det) & (det != 0)
    if ok.any():
        inv[ok] = np.linalg.inv(inertia[ok])
    out = []
    for i, (m, com, f) in enumerate(zip(actor.body_mass[:n].tolist(), actor.body_com[:n].tolist(),
                                        actor.body_flags[:n].tolist())):
        out.append(RigidBodyProperties._trusted(
            mass=m, invMass=1.0 / m if m > 0 else 0.0, com=Vec3._of(*com), inertia=Mat33.from_numpy(inertia[i]),
            invInertia=Mat33.from_numpy(inv[i]), flags=int(f)))
    return out


def check_body_props(actor: Actor, props: Sequence[RigidBodyProperties], recompute_inertia: bool,
                     what: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """-> (mass, com, inertia, flags) arrays for the actor's bodies, fully validated."""
    what = what or call_name()
    from .errors import GymlikeNotImplementedError, GymlikeTypeError, GymlikeValueError
    from .types import Mat33, RigidBodyProperties, Vec3
    n = actor.asset.body_count
    if not isinstance(props, (list, tuple)):
        raise GymlikeTypeError(f"{what}: props must be a list of gymapi.RigidBodyProperties, "
                               f"got {type(props).__name__}")
    if len(props) != n:
        raise GymlikeValueError(f"{what}: props must have one entry per rigid body of the actor ({n}), "
                                f"got {len(props)}")
    mass = np.zeros(n)
    com = np.zeros((n, 3))
    inertia = np.zeros((n, 3, 3))
    flags = np.zeros(n, np.int32)
    for i, p in enumerate(props):
        if not isinstance(p, RigidBodyProperties):
            raise GymlikeTypeError(f"{what}: props[{i}] must be gymapi.RigidBodyProperties, got {type(p).__name__}")
        try:
            m = float(p.mass)
        except (TypeError, ValueError):
            raise GymlikeTypeError(f"{what}: props[{i}].mass must be a number, got {p.mass!r}") from None
        if not np.isfinite(m) or m < 0:
            raise GymlikeValueError(f"{what}: props[{i}].mass must be a finite number >= 0, got {m}")
        if m == 0 and actor.body_mass[i] > 0:
            raise GymlikeValueError(f"{what}: props[{i}].mass is 0; a simulated body needs a positive mass")
        if not isinstance(p.com, Vec3):
            raise GymlikeTypeError(f"{what}: props[{i}].com must be gymapi.Vec3, got {type(p.com).__name__}")
        if not isinstance(p.inertia, Mat33):
            raise GymlikeTypeError(f"{what}: props[{i}].inertia must be gymapi.Mat33, got {type(p.inertia).__name__}")
        c = p.com.to_tuple()
        I = p.inertia.to_numpy()
        if not np.isfinite(c).all():
            raise GymlikeValueError(f"{what}: props[{i}].com must be finite, got {p.com}")
        if not np.isfinite(I).all():
            raise GymlikeValueError(f"{what}: props[{i}].inertia must be finite")
        f = p.flags
        if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or f < 0 or f & ~_KNOWN_BODY_FLAGS:
            raise GymlikeValueError(f"{what}: props[{i}].flags must be a combination of RIGID_BODY_NONE, "
                                    f"RIGID_BODY_DISABLE_GRAVITY and RIGID_BODY_ENABLE_GYROSCOPIC_FORCES, got {f!r}")
        if f & 2:
            raise GymlikeNotImplementedError(
                f"{what}: props[{i}].flags has RIGID_BODY_DISABLE_SIMULATION, which gymlike does not "
                "support (Newton cannot take a single body out of the simulation)")
        if recompute_inertia and actor.body_mass[i] > 0 and m != actor.body_mass[i]:
            I = I * (m / actor.body_mass[i])   # same shape, uniform density
        mass[i], com[i], inertia[i], flags[i] = m, c, I, int(f)
    # symmetric (as np.allclose(I, I.T, rtol=1e-4, atol=1e-9 + 1e-6 max|I|)) and, with mass,
    # positive definite: all bodies at once, the first failing one named
    tol = 1e-9 + 1e-6 * np.abs(inertia).max((1, 2), initial=0.0)[:, None, None] + 1e-4 * np.abs(inertia)
    asym = (np.abs(inertia - inertia.transpose(0, 2, 1)) > tol).any((1, 2))
    if asym.any():
        i = int(np.flatnonzero(asym)[0])
        raise GymlikeValueError(f"{what}: props[{i}].inertia must be symmetric, got {inertia[i].tolist()}")
    if n:
        notpd = (mass > 0) & (np.linalg.eigvalsh(inertia).min(1) <= 0)
        if notpd.any():
            i = int(np.flatnonzero(notpd)[0])
            raise GymlikeValueError(f"{what}: props[{i}].inertia must be positive definite, got {inertia[i].tolist()}")
    return mass, com, inertia, flags


def set_actor_body_props(actor: Actor, mass: np.ndarray, com: np.ndarray, inertia: np.ndarray,
                         flags: np.ndarray) -> None:
    """Set the actor's body mass (bodies,) kg, COM (bodies, 3) m, inertia (bodies, 3, 3) kg m^2
    and flags, in the model too once it exists."""
    sim = actor.env.sim
    if sim.finalized:
        b0 = int(sim.host.actor_body0[actor.sim_index])
        changed = not (np.array_equal(mass, actor.body_mass) and np.array_equal(com, actor.body_com)
                       and np.array_equal(inertia, actor.body_inertia))
        write_body_props(sim, np.arange(b0, b0 + len(mass)), mass, com, inertia, flags, inertial_changed=changed)
    actor.body_mass[:] = mass
    actor.body_com[:] = com
    actor.body_inertia[:] = inertia
    actor.body_flags[:] = flags


# ---------------------------------------------------------------------------- rigid shapes
SHAPE_FIELDS = ("friction", "rolling_friction", "torsion_friction", "restitution", "compliance",
                "thickness", "contact_offset", "rest_offset", "filter")


def shape_props_list(arr: np.ndarray) -> list[RigidShapeProperties]:
    """The rows of a SHAPE_PROPS_DTYPE array as RigidShapeProperties."""
    from .types import RigidShapeProperties
    cols = [arr[f].astype(np.int64 if f == "filter" else np.float64).tolist() for f in SHAPE_FIELDS]
    return [RigidShapeProperties._trusted(**dict(zip(SHAPE_FIELDS, row))) for row in zip(*cols)]


def check_shape_props(props: Sequence[RigidShapeProperties], n: int, what: str | None = None) -> np.ndarray:
    """A list of RigidShapeProperties, one per shape -> SHAPE_PROPS_DTYPE array."""
    what = what or call_name()
    from .assets.record import SHAPE_PROPS_DTYPE
    from .errors import GymlikeTypeError, GymlikeValueError
    from .types import RigidShapeProperties
    if not isinstance(props, (list, tuple)):
        raise GymlikeTypeError(f"{what}: props must be a list of gymapi.RigidShapeProperties, "
                               f"got {type(props).__name__}")
    if len(props) != n:
        raise GymlikeValueError(f"{what}: props must have one entry per rigid shape ({n}), got {len(props)}")
    fields = SHAPE_FIELDS[:-1]
    values = np.zeros((n, len(fields)))
    filters = np.zeros(n, np.int64)
    for i, p in enumerate(props):
        if not isinstance(p, RigidShapeProperties):
            raise GymlikeTypeError(f"{what}: props[{i}] must be gymapi.RigidShapeProperties, got {type(p).__name__}")
        values[i] = [number(getattr(p, f), f"{what}: props[{i}].{f}") for f in fields]
        flt = p.filter
        if isinstance(flt, bool) or not isinstance(flt, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: props[{i}].filter must be an int bit mask, got {flt!r}")
        filters[i] = int(flt)
    # (all shapes at once; the first bad value in shape, then field, order is named)
    k = fields.index("restitution")
    bad = ~np.isfinite(values) | (values < 0)
    bad[:, k] |= values[:, k] > 1
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        v, f = values[i, j], fields[j]
        if f == "restitution" and np.isfinite(v) and v > 1:
            raise GymlikeValueError(f"{what}: props[{i}].restitution must be in [0, 1], got {v}")
        raise GymlikeValueError(f"{what}: props[{i}].{f} must be a finite number >= 0, got {v}")
    out = np.zeros(n, SHAPE_PROPS_DTYPE)
    for j, f in enumerate(fields):
        out[f] = values[:, j]
    out["filter"] = filters
    return out


def set_actor_shape_props(actor: Actor, props: np.ndarray, what: str | None = None) -> None:
    """Set the actor's shape properties (a SHAPE_PROPS_DTYPE array, one row per shape), in the
    model too once it exists; filters may not change after that."""
    what = what or call_name()
    from .errors import GymlikeRuntimeError
    sim = actor.env.sim
    if sim.finalized:
        changed = np.nonzero(props["filter"] != actor.shape_props["filter"])[0]
        if len(changed):
            i = int(changed[0])
            raise GymlikeRuntimeError(
                f"{what}: props[{i}].filter changes from {int(actor.shape_props['filter'][i])} to "
                f"{int(props['filter'][i])}, but collision filtering is fixed once the sim is prepared "
                "(prepare_sim, simulate, a tensor acquire or a state access); set filters before that")
        s0 = int(sim.host.actor_shape0[actor.sim_index])
        write_shape_props(sim, s0 + actor.asset.shape_newton, props)
    actor.shape_props[:] = props


# ---------------------------------------------------------------------------- scale
def set_actor_scale(actor: Actor, scale: float, what: str | None = None) -> None:
    """Scale an actor by `scale` (relative to the asset): mass *s^3, inertia *s^5, COM *s,
    prismatic limits *s, geometry and joint positions *s. Before the sim is finalized from the
    asset's variant at that scale (Asset.builder: a scaled copy, or the file imported again at
    that scale); afterwards in the built model (_scale_built_actor), as Isaac Gym scales at
    runtime."""
    what = what or call_name()
    from .enums import DofType
    from .errors import GymlikeValueError
    scale = number(scale, f"{what}: scale")
    if not np.isfinite(scale) or scale <= 0:
        raise GymlikeValueError(f"{what}: scale must be a finite number > 0, got {scale}")
    if scale == actor.scale:
        return
    sim = actor.env.sim
    r = scale / actor.scale
    if sim.finalized:
        _check_scalable(actor, what)      # (before anything changes)
    else:
        actor.asset.builder(scale, True)   # the variant at this scale now: unsupported assets fail here
    mass, com, inertia = actor.body_mass * r ** 3, actor.body_com * r, actor.body_inertia * r ** 5
    dofs = actor.dof_props.copy()
    lin = np.array([t == DofType.DOF_TRANSLATION for t in actor.asset.dof_types], bool)
    if lin.any():
        for f in ("lower", "upper"):
            dofs[f][lin & dofs["hasLimits"]] *= r
    if sim.finalized:
        _scale_built_actor(actor, r)
        set_actor_body_props(actor, mass, com, inertia, actor.body_flags.copy())
        if lin.any():
            set_actor_dof_props(actor, dofs)
    else:
        actor.body_mass[:], actor.body_com[:], actor.body_inertia[:] = mass, com, inertia
        actor.dof_props[:] = dofs
    actor.scale = scale


# Newton shape types whose MuJoCo geoms hold compiled data (meshes, hulls, tessellated cones,
# height fields), which MuJoCo cannot resize after compiling
_MESH_TYPES = ("MESH", "CONVEX_MESH", "CONE", "HFIELD", "GAUSSIAN")


def _actor_shapes(actor: Actor) -> np.ndarray:
    """The Newton shapes (collision and visual) on the actor's bodies."""
    sim = actor.env.sim
    b0 = int(sim.host.actor_body0[actor.sim_index])
    body = sim.model.shape_body.numpy()
    return np.flatnonzero((body >= b0) & (body < b0 + actor.asset.body_count))


def _check_scalable(actor: Actor, what: str) -> None:
    """Refuse (changing nothing) a scale change after finalize that gymlike or the solver cannot
    take: an asset that cannot be scaled at all (Asset.scalable); on MuJoCo (SIM_PHYSX) a mesh,
    convex hull or cone shape, and an MJCF asset's equality constraints or tendons, whose anchors
    and lengths the file gives."""
    sim = actor.env.sim
    if not actor.asset.scalable:
        raise NotImplementedError(f"{what}: actor {actor.name!r} is a soft body, a USD asset's or a scene's; "
                                  "those cannot be scaled")
    if sim.type == SimType.SIM_FLEX:
        return
    newton = _newton()
    shapes = _actor_shapes(actor)
    # (visual-only shapes are no MuJoCo geoms: the renderers read their scale, which may change)
    collide = (sim.model.shape_flags.numpy()[shapes] & int(newton.ShapeFlags.COLLIDE_SHAPES)) != 0
    types = sim.model.shape_type.numpy()[shapes]
    meshes = collide & np.isin(types, [int(getattr(newton.GeoType, k)) for k in _MESH_TYPES
                                       if hasattr(newton.GeoType, k)])
    if meshes.any():
        raise NotImplementedError(
            f"{what}: actor {actor.name!r} has {int(meshes.sum())} mesh, convex-hull or cone shape(s); MuJoCo cannot "
            "resize those once the sim is prepared (primitive shapes can be); call set_actor_scale before prepare_sim")
    if actor.asset.has_tendons or actor.asset.has_equalities:
        raise NotImplementedError(
            f"{what}: actor {actor.name!r} has tendons or equality constraints, whose lengths and anchors are the "
            "file's; call set_actor_scale before prepare_sim")


def _scale_built_actor(actor: Actor, r: float) -> None:
    """Lengths of a built actor times r in Newton's model: its shapes' sizes and placements on
    their bodies, its joints' frames (the root joint's placement in the world excepted); the
    bodies follow their joints when the state is next read. Mass properties and limits: the
    caller, through the property writers."""
    sim = actor.env.sim
    sim.sync_joint_state()        # (XPBD steps bodies: their joint coordinates under the old frames)
    m = sim.model
    shapes = _actor_shapes(actor)
    b0 = int(sim.host.actor_body0[actor.sim_index])
    child = m.joint_child.numpy()
    joints = np.flatnonzero((child >= b0) & (child < b0 + actor.asset.body_count))
    inner = joints[m.joint_parent.numpy()[joints] >= 0]

    def lengths(arr, idx):         # (sizes, or a transform's position: the first three values)
        v = arr.numpy()[idx].copy()
        v[:, :3] *= r
        scatter(sim, arr, idx, v)
    lengths(m.shape_scale, shapes)
    lengths(m.shape_transform, shapes)
    scatter(sim, m.shape_collision_radius, shapes, m.shape_collision_radius.numpy()[shapes] * r)
    lengths(m.joint_X_c, joints)
    lengths(m.joint_X_p, inner)
    notify(sim, "SHAPE_PROPERTIES", "JOINT_PROPERTIES")
    sim.defer_kinematics(np.asarray([sim.host.actor_articulation[actor.sim_index]], np.int32), 1)


# ---------------------------------------------------------------------------- rendering attributes

