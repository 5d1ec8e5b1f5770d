"""Assets: parse a URDF/MJCF/USD file (or build a primitive) once into a Newton sub-builder,
plus the Isaac Gym view of it: body/joint/DOF/shape names and order, DOF properties, rigid
body and shape properties.

Isaac Gym conventions kept here:
* bodies in Newton's depth-first order (Isaac Gym's order), shapes grouped by body;
* DOFs exclude the free root joint; an MJCF body with several hinges (one Newton D6 joint)
  exposes one Isaac Gym joint and DOF per MJCF `<joint>`, named after it;
* a shape is a *collision* shape (visual-only geometry is not a rigid shape in Isaac Gym).
"""

from __future__ import annotations

import copy
import os
import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from .asset_check import MAX_LENGTH, check_mesh_file, check_mjcf, check_urdf
from .collision import as_physx_shapes
from .enums import DofDriveMode, DofType, JointType
from .errors import (AssetParseError, GymlikeError, GymlikeFileNotFoundError, GymlikeNotImplementedError,
                     GymlikeTypeError, GymlikeValueError)
from .params import asset_options
from .types import DOF_PROPERTIES_DTYPE, AssetOptions, number

SHAPE_PROPS_DTYPE = np.dtype([
    ("friction", "<f4"), ("rolling_friction", "<f4"), ("torsion_friction", "<f4"),
    ("restitution", "<f4"), ("compliance", "<f4"), ("thickness", "<f4"),
    ("contact_offset", "<f4"), ("rest_offset", "<f4"), ("filter", "<i4"),
])

_URDF_EXT = (".urdf",)
_MJCF_EXT = (".xml", ".mjcf")
_USD_EXT = (".usd", ".usda", ".usdc", ".usdz")

UNLIMITED = 1e10  # Newton's "no limit" magnitude (newton.MAXVAL)


from .runtime import newton as _newton, wp as _wp  # noqa: E402  (lazy: gymapi imports fast)
from .errors import warn


def short_name(label: str) -> str:
    """Newton labels are paths ('robot/worldbody/torso'); Isaac Gym names are the last part."""
    return label.rsplit("/", 1)[-1]


class Asset:
    """A parsed asset. `builder(scale)` gives the Newton sub-builder an actor is copied from."""

    _next_id = 0

    def __init__(self, sim, kind: str, path: str | None, options: AssetOptions, make):
        self.sim = sim
        self.kind = kind                  # 'urdf' | 'mjcf' | 'usd' | 'box' | 'sphere' | 'capsule'
        self.path = path
        self.options = copy.deepcopy(options)
        self._make = make                 # (scale, self_collisions) -> newton.ModelBuilder
        self._builders = {}
        self.id = Asset._next_id
        Asset._next_id += 1
        b = self.builder(1.0, True)
        self._read_metadata(b)

    # ---------------------------------------------------------------- builders (cached)
    def builder(self, scale: float = 1.0, self_collisions: bool = True):
        key = (float(scale), bool(self_collisions))
        b = self._builders.get(key)
        if b is None:
            b = self._make(*key)
            _apply_options(b, self.options)
            if self.options.vhacd_enabled:
                _decompose_meshes(b, self.options.vhacd_params, self.path)
            as_physx_shapes(b, self.sim, self._make)     # PhysX's convex hulls and contact offset
            fixed = _balance_inertias(b)
            massless = _give_mass(b)
            if fixed and not self._builders:     # warn once per asset (the first variant)
                warn(f"asset '{self.path or self.kind}': inertia of {', '.join(fixed)} breaks the "
                     "triangle inequality (A + B >= C); its two smaller principal moments were "
                     "raised to make it physical")
            if massless and not self._builders:
                warn(f"asset '{self.path or self.kind}': moving bodies without mass or rotational inertia "
                     f"({', '.join(massless)}) get {MASSLESS_MASS} kg and/or {MASSLESS_INERTIA} kg m^2 "
                     "(PhysX takes massless links; MuJoCo needs mass and inertia on every body that moves, "
                     "and XPBD takes a body without mass for an immovable one)")
            if hasattr(self, "dof_props"):   # variants share the base variant's Isaac Gym view
                self._check_same_layout(b, key)
            self._builders[key] = b
        return b

    def fk_model(self, scale=1.0):
        """A single-actor CPU model of this asset, for kinematics before the sim is finalized."""
        cache = self.__dict__.setdefault("_fk_models", {})
        if scale not in cache:
            cache[scale] = self.builder(scale, True).finalize(device="cpu")
        return cache[scale]

    def _check_same_layout(self, b, key):
        if len(b.body_label) != self.body_count or b.joint_dof_count != self._newton_dof_count:
            raise GymlikeValueError(
                f"asset {self.name}: variant {key} has a different layout than the original")

    # ---------------------------------------------------------------- Isaac Gym metadata
    def _read_metadata(self, b):
        newton = _newton()
        JT = newton.JointType
        self.name = os.path.basename(self.path) if self.path else self.kind
        self.body_names = [short_name(s) for s in b.body_label]
        self.body_count = len(self.body_names)
        self._newton_dof_count = b.joint_dof_count
        self.newton_joint_count = len(b.joint_type)
        self.newton_coord_count = b.joint_coord_count
        if self.body_count == 0:
            raise AssetParseError(f"asset {self.name}: no rigid bodies found")
        root_types = [b.joint_type[j] for j in range(len(b.joint_type)) if b.joint_parent[j] == -1]
        if len(root_types) != 1:
            raise GymlikeNotImplementedError(
                f"asset {self.name}: {len(root_types)} root bodies; gymlike supports assets with "
                "exactly one kinematic tree")
        self.floating = root_types[0] == JT.FREE
        mjcf = _Mjcf(self.path) if self.kind == "mjcf" else None
        mjcf_joints = mjcf.body_joints if mjcf else getattr(self._make, "body_joints", {})

        joint_names, joint_types, joint_dofs, joint_newton = [], [], [], []   # Isaac Gym joints
        dof_names, dof_types, dof_qd, dof_q, dof_joint = [], [], [], [], []
        q_start = list(b.joint_q_start) + [b.joint_coord_count]
        qd_start = list(b.joint_qd_start) + [b.joint_dof_count]
        for j, jt in enumerate(b.joint_type):
            if b.joint_parent[j] == -1 and jt in (JT.FIXED, JT.FREE):
                continue                   # a root fixed to the world or free is not an IG joint
            label = short_name(b.joint_label[j])
            nlin, nang = b.joint_dof_dim[j]
            qd0, q0 = qd_start[j], q_start[j]
            if jt == JT.BALL:
                raise GymlikeNotImplementedError(
                    f"asset {self.name}: ball joint '{label}' (DOF positions of ball joints are "
                    "not mapped yet); use three hinges instead")
            if jt == JT.FREE:  # (a free root was skipped above)
                raise GymlikeNotImplementedError(
                    f"asset {self.name}: free joint '{label}' below the root is not supported")
            if jt in (JT.FIXED,):
                joint_names.append(label)
                joint_newton.append(j)
                joint_types.append(JointType.JOINT_FIXED)
                joint_dofs.append([])
                continue
            child = short_name(b.body_label[b.joint_child[j]])
            if jt == JT.D6:
                names = mjcf_joints.get(child)
                # Newton orders a D6 joint's DOFs linear first, then angular.
                if names is not None and len(names) == nlin + nang:
                    lin = [n for n, t in names if t == "slide"]
                    ang = [n for n, t in names if t != "slide"]
                    per_dof = lin + ang
                    if len(lin) != nlin:
                        per_dof = [f"{label}_{k}" for k in range(nlin + nang)]
                else:
                    per_dof = [f"{label}_{k}" for k in range(nlin + nang)]
                kinds = [t for _, t in names] if names is not None and len(names) == nlin + nang else []
                kinds = [t for t in kinds if t == "slide"] + [t for t in kinds if t != "slide"]
                for k in range(nlin + nang):
                    if k < len(kinds) and kinds[k] == "ball":       # an MJCF ball: one joint, 3 DOFs
                        if per_dof[k].endswith(BALL_AXES[0]):
                            joint_names.append(per_dof[k][:-len(BALL_AXES[0])])
                            joint_newton.append(j)
                            joint_types.append(JointType.JOINT_BALL)
                            joint_dofs.append([])
                        joint_dofs[-1].append(len(dof_names))
                    else:
                        joint_names.append(per_dof[k])
                        joint_newton.append(j)
                        joint_types.append(JointType.JOINT_PRISMATIC if k < nlin else JointType.JOINT_REVOLUTE)
                        joint_dofs.append([len(dof_names)])
                    dof_names.append(per_dof[k])
                    dof_types.append(DofType.DOF_TRANSLATION if k < nlin else DofType.DOF_ROTATION)
                    dof_qd.append(qd0 + k)
                    dof_q.append(q0 + k)
                    dof_joint.append(len(joint_names) - 1)
                continue
            if jt == JT.REVOLUTE:
                ig_type, dtype = JointType.JOINT_REVOLUTE, DofType.DOF_ROTATION
            elif jt == JT.PRISMATIC:
                ig_type, dtype = JointType.JOINT_PRISMATIC, DofType.DOF_TRANSLATION
            else:
                raise GymlikeNotImplementedError(
                    f"asset {self.name}: joint '{label}' of Newton type {JT(jt).name} is not supported")
            joint_names.append(label)
            joint_newton.append(j)
            joint_types.append(ig_type)
            joint_dofs.append([len(dof_names)])
            dof_names.append(label)
            dof_types.append(dtype)
            dof_qd.append(qd0)
            dof_q.append(q0)
            dof_joint.append(len(joint_names) - 1)

        self.joint_names, self.joint_types, self.joint_dofs = joint_names, joint_types, joint_dofs
        self.joint_newton = np.asarray(joint_newton, np.int32)  # IG joint -> Newton joint (local)
        self.dof_names, self.dof_types = dof_names, dof_types
        self.dof_count = len(dof_names)
        self.joint_count = len(joint_names)
        self.dof_qd = np.asarray(dof_qd, np.int32)      # Newton DOF index (local to the asset)
        self.dof_q = np.asarray(dof_q, np.int32)        # Newton coordinate index (local)
        self.dof_joint = np.asarray(dof_joint, np.int32)

        # collision shapes, grouped by body (Isaac Gym's rigid shape order)
        collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
        shapes = [s for s in range(len(b.shape_body)) if b.shape_flags[s] & collide and b.shape_body[s] >= 0]
        shapes.sort(key=lambda s: (b.shape_body[s], s))
        self.shape_newton = np.asarray(shapes, np.int32)  # IG shape -> Newton shape (local)
        self.shape_count = len(shapes)
        shape_body = np.asarray([b.shape_body[s] for s in shapes], np.int32)
        self.body_shape_start = np.searchsorted(shape_body, np.arange(self.body_count)).astype(np.int32)
        self.body_shape_count = np.bincount(shape_body, minlength=self.body_count).astype(np.int32)

        self.dof_props = self._default_dof_props(b)
        self.actuators = [a for a in (mjcf.actuators if mjcf else []) if a["joint"] in self.dof_names]
        self.has_tendons = bool(mjcf and mjcf.has_tendons)
        from .tendons import AssetTendons
        self.tendons = (AssetTendons(b, lambda j: short_name(b.joint_label[j]), self.options.tendon_limit_stiffness)
                        if "mujoco:tendon_type" in b.custom_attributes else None)
        if self.options.default_dof_drive_mode == DofDriveMode.DOF_MODE_NONE:
            # Isaac Gym takes the drive mode of MJCF joints with a <motor> from the file: effort
            for act in self.actuators:
                if act["type"] == "motor":
                    self.dof_props["driveMode"][self.dof_names.index(act["joint"])] = DofDriveMode.DOF_MODE_EFFORT
        self.shape_props = self._default_shape_props(b)
        self.body_mass = np.asarray(b.body_mass, np.float64)
        self.body_com = np.asarray([tuple(c) for c in b.body_com], np.float64).reshape(-1, 3)
        self.body_inertia = np.asarray([np.array(i, np.float64).reshape(3, 3) for i in b.body_inertia]).reshape(-1, 3, 3)
        self.body_flags = np.zeros(self.body_count, np.int32)
        if self.options.disable_gravity:
            from .enums import RIGID_BODY_DISABLE_GRAVITY
            self.body_flags[:] = RIGID_BODY_DISABLE_GRAVITY

    def _default_dof_props(self, b):
        p = np.zeros(self.dof_count, DOF_PROPERTIES_DTYPE)
        if self.dof_count == 0:
            return p
        qd = self.dof_qd
        lower = np.asarray(b.joint_limit_lower, np.float64)[qd]
        upper = np.asarray(b.joint_limit_upper, np.float64)[qd]
        limited = (lower > -UNLIMITED * 0.5) | (upper < UNLIMITED * 0.5)
        p["hasLimits"] = limited
        p["lower"] = np.where(limited, lower, -np.finfo(np.float32).max)
        p["upper"] = np.where(limited, upper, np.finfo(np.float32).max)
        p["driveMode"] = int(self.options.default_dof_drive_mode)
        p["velocity"] = np.asarray(b.joint_velocity_limit, np.float64)[qd]
        p["effort"] = np.asarray(b.joint_effort_limit, np.float64)[qd]
        # File stiffness/damping become the drive gains (Isaac Gym semantics): they act in
        # POS/VEL mode only; Newton's passive spring/damper is zeroed in _apply_options.
        stiffness, damping = b._gymlike_passive
        p["stiffness"] = np.asarray(stiffness, np.float64)[qd]
        p["damping"] = np.asarray(damping, np.float64)[qd]
        p["friction"] = np.asarray(b.joint_friction, np.float64)[qd]
        p["armature"] = np.asarray(b.joint_armature, np.float64)[qd]
        return p

    def _default_shape_props(self, b):
        p = np.zeros(self.shape_count, SHAPE_PROPS_DTYPE)
        s = self.shape_newton
        if self.shape_count == 0:
            return p
        p["friction"] = np.asarray(b.shape_material_mu, np.float64)[s]
        p["rolling_friction"] = np.asarray(b.shape_material_mu_rolling, np.float64)[s]
        p["torsion_friction"] = np.asarray(b.shape_material_mu_torsional, np.float64)[s]
        p["restitution"] = np.asarray(b.shape_material_restitution, np.float64)[s]
        p["thickness"] = self.options.thickness        # Flex-only notion, stored
        # the values Newton uses: detection gap and contact margin of each shape
        p["contact_offset"] = np.asarray(b.shape_gap, np.float64)[s]
        p["rest_offset"] = np.asarray(b.shape_margin, np.float64)[s]
        p["filter"] = 0
        return p

    # ---------------------------------------------------------------- look-ups
    def body_index(self, name):
        return self.body_names.index(name) if name in self.body_names else -1

    def dof_index(self, name):
        return self.dof_names.index(name) if name in self.dof_names else -1

    def joint_index(self, name):
        return self.joint_names.index(name) if name in self.joint_names else -1

    def describe(self):
        """debug_print_asset's text: bodies, joints and DOFs with their types."""
        lines = [repr(self), "bodies:"] + [f"  {i}: {n}" for i, n in enumerate(self.body_names)]
        lines += ["joints:"] + [f"  {i}: {n} ({t.name})" for i, (n, t) in enumerate(zip(self.joint_names, self.joint_types))]
        lines += ["dofs:"] + [f"  {i}: {n} ({t.name})" for i, (n, t) in enumerate(zip(self.dof_names, self.dof_types))]
        return "\n".join(lines)

    def __repr__(self):
        return (f"<gymlike Asset '{self.name}': {self.body_count} bodies, {self.joint_count} joints, "
                f"{self.dof_count} dofs, {self.shape_count} shapes>")


# ============================================================================ option handling
def _apply_options(b, options: AssetOptions):
    """Post-process a freshly parsed sub-builder according to AssetOptions."""
    newton = _newton()
    n_dof = b.joint_dof_count
    # Keep the file's passive spring/damper as Isaac Gym drive gains (read by Asset), and
    # zero Newton's passive ones so they act only through the drive (POS/VEL modes).
    b._gymlike_passive = (list(getattr(b, "joint_stiffness", [0.0] * n_dof)),
                          list(getattr(b, "joint_damping", [0.0] * n_dof)))
    if hasattr(b, "joint_damping"):
        b.joint_damping = [0.0] * n_dof
    if hasattr(b, "joint_stiffness"):
        b.joint_stiffness = [0.0] * n_dof
    # Shapes on no body (an MJCF <worldbody> floor, say) are not part of an Isaac Gym actor; kept,
    # they would be placed at every actor's pose (a humanoid's own floor at its hips launches it)
    for s_, body in enumerate(b.shape_body):
        if body < 0:
            b.shape_flags[s_] = 0
    if options.armature:
        b.joint_armature = [a + float(options.armature) for a in b.joint_armature]
    if options.replace_cylinder_with_capsule:
        cyl, cap = newton.GeoType.CYLINDER, newton.GeoType.CAPSULE
        b.shape_type = [cap if t == cyl else t for t in b.shape_type]
    if options.flip_visual_attachments:
        _flip_visual_meshes(b)
    # MuJoCo builds its actuators once, from joint_target_mode, when the solver is created:
    # give every non-free DOF a position+velocity actuator and express Isaac Gym's drive
    # modes through gains (see core/sim.py).
    modes = list(b.joint_target_mode)
    JT = newton.JointType
    for j, jt in enumerate(b.joint_type):
        q0 = b.joint_qd_start[j]
        q1 = b.joint_qd_start[j + 1] if j + 1 < len(b.joint_type) else n_dof
        mode = (int(newton.JointTargetMode.NONE) if jt == JT.FREE
                else int(newton.JointTargetMode.POSITION_VELOCITY))
        for d in range(q0, q1):
            modes[d] = mode
    b.joint_target_mode = modes
    b.joint_target_ke = [0.0] * n_dof
    b.joint_target_kd = [0.0] * n_dof
    # Newton defaults a target to the limit midpoint when 0 is outside the limits; Isaac Gym
    # targets start at 0. gymlike writes targets itself, so start from 0 everywhere.
    b.joint_target_q = [0.0 if i not in _quat_coords(b) else v for i, v in enumerate(b.joint_target_q)]


def _convex_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gymlike", "convex")


def _decompose_meshes(b, params, path):
    """AssetOptions.vhacd_enabled: every collision mesh becomes the convex parts V-HACD finds
    (Newton's approximate_meshes with trimesh + vhacdx, as Isaac Gym's importer runs V-HACD),
    cached on disk by mesh content and parameters; the original mesh stays as the visual."""
    newton = _newton()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    meshes = [s for s, t in enumerate(b.shape_type)
              if t in (newton.GeoType.MESH, newton.GeoType.CONVEX_MESH) and b.shape_flags[s] & collide]
    if not meshes:
        return
    settings = dict(maxConvexHulls=int(params.max_convex_hulls), resolution=int(params.resolution),
                    maxNumVerticesPerCH=int(params.max_num_vertices_per_ch))
    import sys
    import time
    t0 = time.perf_counter()
    try:
        for k, s in enumerate(meshes):   # one at a time (indices stay valid) for the progress line
            b.approximate_meshes(method="vhacd", shape_indices=[s], raise_on_failure=True,
                                 keep_visual_shapes=True, cache_dir=_convex_cache_dir(), **settings)
            took = time.perf_counter() - t0
            if took > 1.0:    # a first run decomposes; later runs read the disk cache at once
                print(f"\rgymlike: V-HACD convex decomposition of '{os.path.basename(path or '')}': "
                      f"{k + 1}/{len(meshes)} meshes, {took:.0f} s (cached for later runs)",
                      end="\n" if k + 1 == len(meshes) else "", file=sys.stderr, flush=True)
    except ImportError as e:
        raise GymlikeNotImplementedError(
            f"asset '{path}': AssetOptions.vhacd_enabled needs the 'vhacdx' and 'trimesh' packages "
            f"(pip install vhacdx trimesh): {e}") from None
    except Exception as e:  # the backend's own failures, with the file named
        raise AssetParseError(f"asset '{path}': convex decomposition failed: {type(e).__name__}: {e}") from None


def _drop_root_position(b):
    """Isaac Gym places an MJCF actor's root body at the actor pose: the position the file gives
    the root body is not added (IsaacGymEnvs creates its ant, torso at z = 0.75 in the file, at
    z = 0.44, and its humanoid, torso at 1.5, at 1.34: standing on the ground). The file's
    orientation of the root body is kept."""
    wp = _wp()
    newton = _newton()
    for j in range(len(b.joint_type)):
        if b.joint_parent[j] != -1:
            continue
        p = np.array(b.body_q[b.joint_child[j]], np.float64)[0:3]
        if not p.any():
            continue
        if b.joint_type[j] == newton.JointType.FREE:
            q0 = b.joint_q_start[j]
            for k in range(3):
                b.joint_q[q0 + k] -= float(p[k])
        else:
            X = np.array(b.joint_X_p[j], np.float64)
            b.joint_X_p[j] = wp.transform(wp.vec3(*(X[0:3] - p)), wp.quat(*X[3:7]))
        for i in range(len(b.body_q)):
            X = np.array(b.body_q[i], np.float64)
            b.body_q[i] = wp.transform(wp.vec3(*(X[0:3] - p)), wp.quat(*X[3:7]))


MASSLESS_MASS, MASSLESS_INERTIA = 1e-3, 1e-6     # given to moving bodies without mass


def _moving_bodies(b):
    """Bodies that move: below a non-fixed joint, or welded to a body that moves (a massless
    frame welded to a moving link moves with it; XPBD takes a body without mass for an
    immovable one, which pinned the whole robot in place)."""
    fixed_type = _newton().JointType.FIXED
    moving, grew = set(), True
    while grew:                    # (one pass in Newton's depth-first joint order)
        grew = False
        for j, jt in enumerate(b.joint_type):
            c = b.joint_child[j]
            if c not in moving and (jt != fixed_type or b.joint_parent[j] in moving):
                moving.add(c)
                grew = True
    return moving


def _give_mass(b):
    """Moving bodies (_moving_bodies) with no mass, e.g. the empty links of a URDF chain of
    prismatic joints or a massless frame welded to a link, get a small mass and inertia; point
    masses (mass, but a singular inertia) get the small inertia added. Returns their labels."""
    moving = _moving_bodies(b)
    out = []
    for i in sorted(moving):
        mass = float(b.body_mass[i])
        inertia = np.array(b.body_inertia[i], np.float64).reshape(3, 3)
        if mass > 0.0 and np.linalg.eigvalsh(0.5 * (inertia + inertia.T))[0] > 0.0:
            continue
        if mass > 0.0:
            inertia = inertia + np.eye(3) * MASSLESS_INERTIA
        else:
            mass, inertia = MASSLESS_MASS, np.eye(3) * MASSLESS_INERTIA
        b.body_mass[i], b.body_inv_mass[i] = mass, 1.0 / mass
        mat = type(b.body_inertia[i])
        b.body_inertia[i] = mat(*inertia.astype(np.float32).ravel())
        b.body_inv_inertia[i] = mat(*np.linalg.inv(inertia).astype(np.float32).ravel())
        out.append(short_name(b.body_label[i]))
    return out


def _balance_inertias(b):
    """Make every body's principal moments satisfy A + B >= C (PhysX accepts such bodies,
    MuJoCo refuses them): raise the two smaller moments by the missing amount. Returns the
    labels of the bodies changed."""
    fixed = []
    for i, inertia in enumerate(b.body_inertia):
        m = np.array(inertia, np.float64).reshape(3, 3)
        if not np.isfinite(m).all() or not m.any():
            continue
        e, R = np.linalg.eigh(0.5 * (m + m.T))
        if e[0] + e[1] >= e[2] * (1.0 - 8.0 * np.finfo(np.float32).eps):   # (float32 round-off tolerated)
            continue
        d = e[2] * (1.0 + 1e-3) - (e[0] + e[1])
        e[0] += 0.5 * d
        e[1] += 0.5 * d
        b.body_inertia[i] = type(inertia)(*(R @ np.diag(e) @ R.T).astype(np.float32).ravel()) \
            if not isinstance(inertia, np.ndarray) else (R @ np.diag(e) @ R.T)
        fixed.append(short_name(b.body_label[i]))
    return fixed


def _quat_coords(b):
    newton = _newton()
    out = set()
    for j, jt in enumerate(b.joint_type):
        if jt == newton.JointType.FREE:
            q0 = b.joint_q_start[j]
            out.update(range(q0 + 3, q0 + 7))
    return out


def _flip_visual_meshes(b):
    """Isaac Gym's flip_visual_attachments: visual meshes authored Y-up are turned Z-up."""
    newton = _newton()
    wp = _wp()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    rot = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), np.pi / 2)
    flip = wp.transform(wp.vec3(0.0, 0.0, 0.0), rot)
    for s, t in enumerate(b.shape_type):
        if t == newton.GeoType.MESH and not (b.shape_flags[s] & collide):
            b.shape_transform[s] = wp.transform_multiply(b.shape_transform[s], flip)


# ============================================================================ loaders
def load_asset_file(sim, root: str, filename: str, options: AssetOptions | None, kind: str | None = None):
    options = asset_options(options)
    if not isinstance(root, str) or not isinstance(filename, str):
        raise GymlikeTypeError(f"load_asset: rootpath and filename must be strings, got "
                               f"{type(root).__name__} and {type(filename).__name__}")
    path = os.path.abspath(os.path.join(root, filename))
    ext = os.path.splitext(path)[1].lower()
    if kind is None:
        if ext in _URDF_EXT:
            kind = "urdf"
        elif ext in _MJCF_EXT:
            kind = "mjcf"
        elif ext in _USD_EXT:
            kind = "usd"
        else:
            raise GymlikeValueError(
                f"load_asset: unknown asset extension '{ext}' for '{path}'; expected .urdf, "
                ".xml/.mjcf (MJCF) or .usd/.usda/.usdc")
    if not os.path.isfile(path):
        raise GymlikeFileNotFoundError(f"load_asset: asset file not found: '{path}' "
                                       f"(root '{root}', filename '{filename}')")
    # fix_base_link welds the root; otherwise URDF roots float, and MJCF/USD keep what the file
    # says (a <freejoint>, an authored root joint, or a free jointless body)
    floating = False if options.fix_base_link else (True if kind == "urdf" else None)
    up = _up_axis(sim)
    keep = []
    if kind == "urdf":
        xml_text = _prepare_urdf(path, root)
        keep = _urdf_dont_collapse(xml_text)
        xml_text, balls = _urdf_spherical(xml_text)

        def make(scale, self_collisions):
            b = _new_builder(options, up)
            _balls_as_three_hinges(b, balls)
            _guarded(path, lambda: b.add_urdf(
                xml_text, floating=floating, scale=scale, enable_self_collisions=self_collisions,
                up_axis=up, collapse_fixed_joints=False,
                ignore_inertial_definitions=bool(options.override_inertia or options.override_com),
                joint_ordering="dfs", bodies_follow_joint_ordering=True))
            return _collapse(b, options, keep)
        make.body_joints = {child: [(f"{j}{sfx}", "ball") for sfx in BALL_AXES] for j, child in balls.items()}
    elif kind == "mjcf":
        check_mjcf(path)
        mjcf_info = _Mjcf(path)
        warned = []

        def make(scale, self_collisions):
            def load(source, **kw):
                b = _new_builder(options, up, tendons=mjcf_info.has_tendons)
                _guarded(path, lambda: b.add_mjcf(
                    source, floating=floating, scale=scale, enable_self_collisions=self_collisions,
                    up_axis=up, collapse_fixed_joints=False,
                    ignore_inertial_definitions=bool(options.override_inertia or options.override_com),
                    parse_mujoco_options=False, **kw))
                return b
            folder = os.path.dirname(path)
            resolver = lambda base, f: (   # noqa: E731  (the text's relative files: the file's folder)
                f if os.path.isabs(f) else os.path.abspath(os.path.join(base or folder, f)))
            try:
                b = (load(_mjcf_source(path, False, options.fix_base_link), path_resolver=resolver)
                     if mjcf_info.has_ball or mjcf_info.root_joints else load(path))
            except AssetParseError as e:
                if "balanceinertia" not in str(e):
                    raise
                # PhysX takes inertias that break A + B >= C; balance them as MuJoCo's
                # balanceinertia does (principal moments -> their mean) and say which bodies
                b = load(_mjcf_source(path, True, options.fix_base_link), path_resolver=resolver)
                if not warned:
                    warned.append(True)
                    names = mjcf_info.unbalanced or ["some bodies"]
                    warn(f"asset '{path}': inertia of {', '.join(names)} breaks the triangle "
                         "inequality (A + B >= C); balanced as MuJoCo's balanceinertia does "
                         "(principal moments set to their mean)")
            _drop_root_position(b)
            return _collapse(b, options)
    else:
        def make(scale, self_collisions):
            if scale != 1.0:
                raise GymlikeNotImplementedError("set_actor_scale on USD assets is not supported yet")
            b = _new_builder(options, up)
            _guarded(path, lambda: b.add_usd(
                path, floating=floating, enable_self_collisions=self_collisions,
                collapse_fixed_joints=False, joint_ordering="dfs",
                bodies_follow_joint_ordering=True))
            return _collapse(b, options)
    return Asset(sim, kind, path, options, make)


def _collapse(b, options, keep_names=()):
    """AssetOptions.collapse_fixed_joints: merge fixed-joint children into their parents, but
    keep the root (Newton would also fold a base welded to the world into the world) and URDF
    fixed joints marked dont_collapse="true" (e.g. feet that must stay bodies)."""
    if options.collapse_fixed_joints:
        keep = [j for j in range(len(b.joint_type))
                if b.joint_parent[j] == -1 or short_name(b.joint_label[j]) in keep_names]
        b.collapse_fixed_joints(joints_to_keep=keep)
    return b


def _urdf_dont_collapse(xml_text):
    """Names of URDF joints with dont_collapse="true"."""
    root = ET.fromstring(xml_text)
    return {j.get("name") for j in root.iter("joint")
            if j.get("dont_collapse", "false").strip().lower() in ("true", "1")}


def _urdf_spherical(xml_text):
    """URDF spherical joints, which Newton's URDF importer does not take: the text with them
    marked as planar (which it takes) and {joint name: child link} for _balls_as_three_hinges."""
    root = ET.fromstring(xml_text)
    balls = {j.get("name"): j.find("child").get("link") for j in root.iter("joint")
             if j.get("type") == "spherical" and j.find("child") is not None}
    if not balls:
        return xml_text, {}
    for j in root.iter("joint"):
        if j.get("name") in balls:
            j.set("type", "planar")
    return ET.tostring(root, encoding="unicode"), balls


def _balls_as_three_hinges(b, balls):
    """Build the joints named in `balls` (imported as planar) as three hinges about the joint
    frame's x, y, z, as gymlike's MJCF ball joints are (one Isaac Gym JOINT_BALL, 3 DOFs)."""
    if not balls:
        return
    add_d6 = b.add_joint_d6
    cfg = _newton().ModelBuilder.JointDofConfig

    def d6(parent, child, *, linear_axes=None, angular_axes=None, label=None, **kw):
        if label is not None and short_name(label) in balls:
            axes = [cfg(axis=a) for a in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
            return add_d6(parent, child, linear_axes=[], angular_axes=axes, label=label, **kw)
        return add_d6(parent, child, linear_axes=linear_axes, angular_axes=angular_axes, label=label, **kw)
    b.add_joint_d6 = d6


def _up_axis(sim):
    """Assets are imported in the sim's up axis without rotation (Isaac Gym never rotates them)."""
    newton = _newton()
    from .enums import UpAxis
    return newton.Axis.Y if sim is not None and sim.params.up_axis == UpAxis.UP_AXIS_Y else newton.Axis.Z


def _new_builder(options, up, tendons=False):
    newton = _newton()
    b = newton.ModelBuilder(up_axis=up)
    if tendons:          # the MJCF importer reads <tendon> only into a builder that can hold them
        from .tendons import register
        register(b)
    b.default_shape_cfg.density = float(options.density)
    return b


def _guarded(path, fn):
    """Run a Newton importer, turning its failures and missing-file warnings into errors."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except ET.ParseError as e:
            line = getattr(e, "position", (None,))[0]
            raise AssetParseError(f"malformed asset '{path}'" + (f", line {line}" if line else "")
                                  + f": {e}") from None
        except FileNotFoundError as e:
            raise GymlikeFileNotFoundError(f"asset '{path}': {e}") from None
        except GymlikeError:
            raise
        except StopIteration:
            raise AssetParseError(f"asset '{path}' could not be imported: the file holds no importable "
                                  "robot (no links, or a file of another format)") from None
        except RecursionError:
            raise AssetParseError(f"asset '{path}' could not be imported: the kinematic tree is too deep") from None
        except Exception as e:   # Newton's importers raise bare Exception for unsupported elements
            raise AssetParseError(f"asset '{path}' could not be imported: {type(e).__name__}: {e}") from None
    for w in caught:
        msg = str(w.message)
        if "does not exist" in msg or "Cannot resolve" in msg or "Could not resolve" in msg:
            raise GymlikeFileNotFoundError(f"asset '{path}': {msg}")
        if not issubclass(w.category, (DeprecationWarning,)):
            warn(w.message, w.category)


# A URDF tag, comment or CDATA block; meshes are only `<mesh>` tags inside <visual>/<collision>.
_TAG_RE = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<(/?)([A-Za-z_][\w:.-]*)([^>]*?)(/?)>", re.S)
_FILENAME_RE = re.compile(r"""(filename\s*=\s*)(["'])(.*?)\2""")


def _prepare_urdf(path, root):
    """Check the URDF parses and resolve every `<mesh filename=...>` of a <visual> or
    <collision> geometry (relative paths, package:// and file:// URIs) to an absolute path, as
    Isaac Gym's importer searches: the URDF's folder, each folder above it, the asset root.
    A missing collision mesh is an error naming file, line and the folders searched; a missing
    visual mesh is a warning and that <visual> is dropped. Comments, plugins and other
    `filename=` attributes are left alone. Returns the URDF text to import (the file has passed
    asset_check.check_urdf)."""
    check_urdf(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    urdf_dir = os.path.dirname(path)
    edits = []          # (start, end, replacement) in text order
    stack = []          # [tag, start offset, missing-visual flag]
    for m in _TAG_RE.finditer(text):
        closing, tag, attrs, selfclose = m.group(1), m.group(2), m.group(3), m.group(4)
        if tag is None:
            continue                                    # comment, CDATA, processing instruction
        if closing:
            while stack:
                open_tag, start, missing = stack.pop()
                if open_tag == tag:
                    break
            if tag == "visual" and missing:
                edits = [e for e in edits if e[0] < start]  # drop edits inside the removed element
                edits.append((start, m.end(), ""))
            continue
        if tag == "mesh" and any(t in ("visual", "collision") for t, _, _ in stack):
            fm = _FILENAME_RE.search(attrs)
            if fm is not None:
                ref = fm.group(3)
                resolved, searched = _resolve_mesh(ref, urdf_dir, root)
                line = text.count("\n", 0, m.start()) + 1
                in_visual = next(t for t, _, _ in reversed(stack) if t in ("visual", "collision")) == "visual"
                if resolved is None and not in_visual:
                    raise GymlikeFileNotFoundError(
                        f"asset '{path}', line {line}: collision mesh '{ref}' not found; searched "
                        + ", ".join(f"'{d}'" for d in searched))
                if resolved is None:
                    warn(f"asset '{path}', line {line}: visual mesh '{ref}' not found "
                         "(the link loads without this visual)")
                    for item in reversed(stack):
                        if item[0] == "visual":
                            item[2] = True
                            break
                else:
                    check_mesh_file(path, line, "<mesh>", resolved)
                    a0 = m.start(3) + fm.start(3)
                    edits.append((a0, a0 + len(ref), resolved))
        if not selfclose:
            stack.append([tag, m.start(), False])
    out, pos = [], 0
    for a, b_, rep in edits:
        out.append(text[pos:a])
        out.append(rep)
        pos = b_
    out.append(text[pos:])
    return "".join(out)


def _resolve_mesh(ref, urdf_dir, root):
    """(absolute path or None, folders searched) for a URDF mesh reference."""
    bases = []
    for d in _ancestors(urdf_dir) + _ancestors(os.path.abspath(root)):
        if d not in bases:
            bases.append(d)
    if ref.startswith("file://"):
        cand, searched = [ref[len("file://"):]], []
    elif ref.startswith("package://"):
        pkg, _, sub = ref[len("package://"):].partition("/")
        cand, searched = [], bases
        # a package is a folder named `pkg` at or above the URDF or the asset root, or inside
        # one of those; paths relative to those folders are accepted too
        for base in bases:
            if os.path.basename(base) == pkg:
                cand.append(os.path.join(base, sub))
            cand.append(os.path.join(base, pkg, sub))
            cand.append(os.path.join(base, sub))
    elif os.path.isabs(ref):
        cand, searched = [ref], []
    else:
        cand, searched = [os.path.join(base, ref) for base in bases], bases
    for c in cand:
        if os.path.isfile(c):
            return os.path.abspath(c), searched
    return None, searched


def _ancestors(d, depth=8):
    out = []
    d = os.path.abspath(d)
    for _ in range(depth):
        out.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return out


BALL_AXES = ("_x", "_y", "_z")


def _locked(joint):
    """An MJCF hinge/slide written with range="0 0" (a DOF that cannot move)."""
    r = (joint.get("range") or "").split()
    try:
        return joint.tag == "joint" and joint.get("type", "hinge") in ("hinge", "slide") and len(r) == 2 \
            and float(r[0]) == float(r[1])
    except ValueError:
        return False


def _mjcf_source(path, balance_inertia, fix_base=False):
    """The MJCF text gymlike imports instead of the file (includes expanded; relative files are
    resolved by the caller): ball joints become three hinges about the joint frame's x, y, z
    (named <joint>_x/_y/_z, one Isaac Gym JOINT_BALL with three rotation DOFs; the cone limit
    `range="0 r"` becomes +-r on each axis); a locked joint (range="0 0") on a root body is not
    a DOF in Isaac Gym and, when it was the root's only joint, the root floats (IsaacGymEnvs'
    ingenuity locks its chassis with one and sets fix_base_link=False); and with balance_inertia,
    <compiler balanceinertia="true">."""
    root = _expand_includes(ET.parse(path).getroot(), os.path.dirname(path))
    for top in (root.find("worldbody") if root.find("worldbody") is not None else []):
        if top.tag != "body":
            continue
        joints = [j for j in top if j.tag in ("joint", "freejoint")]
        locked = [j for j in joints if _locked(j)]
        for j in locked:
            top.remove(j)
        if locked and len(locked) == len(joints) and not fix_base:
            top.insert(0, ET.Element("freejoint", {"name": locked[0].get("name", "root")}))
    info = _Mjcf.__new__(_Mjcf)
    info.defaults = {}
    for top in root.findall("default"):
        info._read_defaults(top, "main", {})

    def walk(node, childclass):
        for body in node.findall("body"):
            cc = body.get("childclass", childclass)
            for k, j in reversed(list(enumerate(list(body)))):
                if j.tag != "joint":
                    continue
                a = info._attrs(j, j.get("class", cc))
                if a.get("type", "hinge") != "ball":
                    continue
                body.remove(j)
                rng = a.get("range")
                for n, (sfx, axis) in enumerate(zip(BALL_AXES, ("1 0 0", "0 1 0", "0 0 1"))):
                    h = ET.Element("joint", {kk: v for kk, v in j.attrib.items() if kk not in ("type", "range")})
                    h.set("type", "hinge")
                    h.set("axis", axis)
                    h.set("name", j.get("name", "ball") + sfx)
                    if rng is not None and len(rng.split()) == 2:
                        r = max(abs(float(v)) for v in rng.split())
                        h.set("range", f"{-r} {r}")
                    body.insert(k + n, h)
            walk(body, cc)
    wb = root.find("worldbody")
    if wb is not None:
        walk(wb, "main")
    if balance_inertia:
        comp = root.find("compiler")
        if comp is None:
            comp = ET.Element("compiler")
            root.insert(0, comp)
        comp.set("balanceinertia", "true")
    return ET.tostring(root, encoding="unicode")


def _expand_includes(root, folder, depth=0):
    """Replace every MJCF <include file=...> by the children of the included file's root, as
    MuJoCo's compiler does (paths relative to the including file's folder)."""
    if depth > 16:
        raise AssetParseError(f"MJCF includes nested deeper than 16 levels under '{folder}'")
    for parent in list(root.iter()):
        for i, child in reversed(list(enumerate(list(parent)))):
            if child.tag != "include" or not child.get("file"):
                continue
            path = os.path.join(folder, child.get("file"))
            if not os.path.isfile(path):
                raise GymlikeFileNotFoundError(f"MJCF include file not found: '{path}'")
            sub = _expand_includes(ET.parse(path).getroot(), os.path.dirname(path), depth + 1)
            parent.remove(child)
            for k, el in enumerate(list(sub)):
                parent.insert(i + k, el)
    return root


class _Mjcf:
    """What gymlike needs from an MJCF file beyond Newton's import, with default classes
    resolved: the `<joint>`s of every body (name, type) in file order, and the actuators."""

    def __init__(self, path):
        self.body_joints, self.actuators, self.has_tendons = {}, [], False
        self.unbalanced = []     # bodies whose authored inertia breaks A + B >= C
        self.has_ball = False
        self.root_joints = False
        try:
            root = _expand_includes(ET.parse(path).getroot(), os.path.dirname(path))
        except (ET.ParseError, OSError):
            return
        self.has_tendons = root.find("tendon") is not None
        self.defaults = {}
        for top in root.findall("default"):
            self._read_defaults(top, "main", {})
        wb = root.find("worldbody")
        if wb is not None:
            self._walk(wb, "main")
            # root bodies with locked joints (dropped on import, see _mjcf_source)
            self.root_joints = any(_locked(j) for top in wb.findall("body") for j in top.findall("joint"))
        act = root.find("actuator")
        for el in (act if act is not None else []):
            a = self._attrs(el, el.get("class", "main"))
            kind = el.tag
            gear = float(a.get("gear", "1").split()[0])
            ctrl = [float(v) for v in a.get("ctrlrange", "0 0").split()]
            force = [float(v) for v in a.get("forcerange", "0 0").split()]
            self.actuators.append(dict(
                name=el.get("name", f"actuator{len(self.actuators)}"), joint=el.get("joint"), type=kind,
                gear=gear, ctrl=ctrl, force=force,
                ctrl_limited=a.get("ctrllimited", "auto") in ("true", "auto") and ctrl[0] < ctrl[1],
                force_limited=a.get("forcelimited", "auto") in ("true", "auto") and force[0] < force[1],
                kp=float(a.get("kp", "0")), kv=float(a.get("kv", "0"))))

    def _read_defaults(self, node, cls, inherited):
        own = {tag: dict(v) for tag, v in inherited.items()}
        for child in node:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrib)
        self.defaults[cls] = own
        for d in node.findall("default"):
            self._read_defaults(d, d.get("class", cls), own)

    def _attrs(self, el, cls):
        a = dict(self.defaults.get(cls, self.defaults.get("main", {})).get(el.tag, {}))
        a.update(el.attrib)
        return a

    def _walk(self, body, childclass):
        for child in body.findall("body"):
            cc = child.get("childclass", childclass)
            joints = []
            for j in child.findall("joint"):
                t = self._attrs(j, j.get("class", cc)).get("type", "hinge")
                if t == "ball":      # simulated as three hinges (see _mjcf_source)
                    self.has_ball = True
                    joints += [(f"{j.get('name', '')}{sfx}", "ball") for sfx in BALL_AXES]
                elif t != "free":
                    joints.append((j.get("name", ""), t))
            if child.get("name"):
                self.body_joints[child.get("name")] = joints
            inertial = child.find("inertial")
            if inertial is not None and inertial.get("diaginertia"):
                try:
                    e = sorted(float(v) for v in inertial.get("diaginertia").split())
                    if len(e) == 3 and e[0] + e[1] < e[2]:
                        self.unbalanced.append(child.get("name", "<unnamed body>"))
                except ValueError:
                    pass
            self._walk(child, cc)


# ============================================================================ primitives
MIN_LENGTH = 1e-6      # m (see create_primitive)


def create_primitive(sim, kind, dims, options):
    what = f"create_{kind}"
    for k, v in dims.items():
        size = number(v, f"{what}: {k}")
        # an infinite size broke the inertia computation (LinAlgError); beyond MAX_LENGTH Newton's
        # finalize never ends (asset files have the same bound); below MIN_LENGTH the shape is
        # degenerate (float32 positions a metre from the origin cannot resolve it)
        if not MIN_LENGTH <= size <= MAX_LENGTH:
            raise GymlikeValueError(f"{what}: {k} must be a positive, finite length in [{MIN_LENGTH:g}, {MAX_LENGTH:g}] m, "
                                    f"got {v!r}")
    options = asset_options(options, what)
    wp = _wp()
    up = _up_axis(sim)

    def make(scale, self_collisions):
        b = _new_builder(options, up)
        if options.fix_base_link:
            body = b.add_link(label=kind)
            b.add_articulation([b.add_joint_fixed(-1, body)])
        else:
            body = b.add_body(label=kind)
        d = {k: float(v) * scale for k, v in dims.items()}
        if kind == "box":
            b.add_shape_box(body, hx=d["width"] / 2, hy=d["height"] / 2, hz=d["depth"] / 2)
        elif kind == "sphere":
            b.add_shape_sphere(body, radius=d["radius"])
        else:
            # Isaac Gym capsules lie along X; Newton's along Z. `width` is the cylinder part.
            rot = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), np.pi / 2)
            b.add_shape_capsule(body, xform=wp.transform(wp.vec3(0.0, 0.0, 0.0), rot),
                                radius=d["radius"], half_height=d["width"] / 2)
        return b

    return Asset(sim, kind, None, options, make)
