"""The Asset record: a parsed asset (a cached Newton sub-builder per scale) plus the Isaac Gym
view of it: body/joint/DOF/shape names and order, DOF properties, rigid body and shape properties.

Isaac Gym conventions kept here:
* bodies in Newton's depth-first order (Isaac Gym's order), shapes grouped by body;
* DOFs exclude the free root joint; an MJCF body with several hinges (one Newton D6 joint)
  exposes one Isaac Gym joint and DOF per MJCF `<joint>`, named after it;
* a shape is a *collision* shape (visual-only geometry is not a rigid shape in Isaac Gym).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..enums import DofDriveMode, DofType, JointType
from ..errors import AssetParseError, GymlikeNotImplementedError, GymlikeValueError, warn
from ..runtime import newton as _newton, wp as _wp
from ..types import DOF_PROPERTIES_DTYPE, AssetOptions
from ..collision import as_physx_shapes
from . import fixes
from .importer import BALL_AXES, short_name
from .soft import add_to_builder
from .tendons import AssetTendons

if TYPE_CHECKING:
    import newton

SHAPE_PROPS_DTYPE = np.dtype([
    ("friction", "<f4"), ("rolling_friction", "<f4"), ("torsion_friction", "<f4"),
    ("restitution", "<f4"), ("compliance", "<f4"), ("thickness", "<f4"),
    ("contact_offset", "<f4"), ("rest_offset", "<f4"), ("filter", "<i4"),
])

UNLIMITED = 1e10  # Newton's "no limit" magnitude (newton.MAXVAL)


@dataclass
class FileInfo:
    """What the importer of a format knows beyond Newton's builder (mjcf.Mjcf has these
    fields too): the `<joint>`s of each body as (name, type) in file order, for the DOFs of a Newton
    D6 joint; the file's actuators; whether it has tendons."""
    body_joints: dict = field(default_factory=dict)
    actuators: list = field(default_factory=list)
    has_tendons: bool = False
    soft: list = field(default_factory=list)     # soft.SoftBody records (URDF <fem> links, grids)


class Asset:
    """A parsed asset. `builder(scale)` gives the Newton sub-builder an actor is copied from."""

    _next_id = 0

    def __init__(self, sim, kind: str, path: str | None, options: AssetOptions, make, info=None):
        self.sim = sim
        self.kind = kind                  # 'urdf' | 'mjcf' | 'usd' | 'box' | 'sphere' | 'capsule'
        self.path = path
        self.options = copy.deepcopy(options)
        self._make = make                 # (scale, self_collisions) -> newton.ModelBuilder
        self._info = info if info is not None else FileInfo()   # what the file says beyond the builder
        self._builders = {}
        self.soft_bodies = list(getattr(self._info, "soft", ()))   # (mjcf.Mjcf has none)
        self.id = Asset._next_id
        Asset._next_id += 1
        self._shape_newton = {}           # visuals -> IG shape -> Newton shape (local)
        b = self.builder(1.0, True)
        self._read_metadata(b)

    # ---------------------------------------------------------------- builders (cached)
    def builder(self, scale: float = 1.0, self_collisions: bool = True,
                visuals: bool | None = None) -> newton.ModelBuilder:
        """The asset's Newton sub-builder at `scale`, with the asset options and physics fixes applied
        (cached per (scale, self_collisions, visuals)). `visuals`: with the file's visual-only
        geometry; None: as the sim wants it (Sim.wants_visuals). Both variants have the same
        bodies, joints and collision shapes."""
        key = (float(scale), bool(self_collisions), self._visuals(visuals))
        b = self._builders.get(key)
        if b is None and not key[1] and self._filters_by_copy():
            # the variant with self-collisions off (every actor of a non-zero collision filter)
            # is the one with them on plus a filter pair per two colliding shapes, which is all
            # the importers' enable_self_collisions=False adds: no second import of the file
            b = self._builders[key] = without_self_collisions(self.builder(key[0], True, key[2]))
        if b is None and key[0] != 1.0 and self._scales_by_copy():
            # a copy of the processed base variant with every length scaled: the same shapes,
            # hulls and decompositions as a re-import at that scale, without parsing the file
            # and loading its meshes again per scale (domain randomization of scale gives every
            # env its own; tests/physics/test_scaled_envs.py compares it with the re-import)
            b = self._builders[key] = scaled_builder(self.builder(1.0, key[1], key[2]), key[0])
        if b is None:
            b = self._make(*key[:2], visuals=key[2]) if self.drops_visuals else self._make(*key[:2])
            if self.soft_bodies:
                add_to_builder(b, self.soft_bodies, key[0])
            gains = fixes.apply_options(b, self.options)
            if not self._builders:             # the base variant: its gains are the DOF properties'
                self._file_gains = gains
            if self.options.vhacd_enabled:
                fixes.decompose_meshes(b, self.options.vhacd_params, self.path)
            as_physx_shapes(b, self.sim, self._make)     # PhysX's convex hulls and contact offset
            fixed = fixes.balance_inertias(b)
            massless = fixes.give_mass(b)
            if fixed and not self._builders:     # warn once per asset (the first variant)
                warn(f"asset '{self.path or self.kind}': inertia of {', '.join(fixed)} breaks the "
                     "triangle inequality (A + B >= C); its two smaller principal moments were "
                     "raised to make it physical")
            if massless and not self._builders:
                warn(f"asset '{self.path or self.kind}': moving bodies without mass or rotational inertia "
                     f"({', '.join(massless)}) get {fixes.MASSLESS_MASS} kg and/or {fixes.MASSLESS_INERTIA} kg m^2 "
                     "(PhysX takes massless links; MuJoCo needs mass and inertia on every body that moves, "
                     "and XPBD takes a body without mass for an immovable one)")
            if hasattr(self, "dof_props"):   # variants share the base variant's Isaac Gym view
                self._check_same_layout(b, key)
            self._builders[key] = b
        return b

    @property
    def drops_visuals(self) -> bool:
        """Whether the importer can leave visual-only geometry out (URDF, MJCF: `make.visuals`)."""
        return bool(getattr(self._make, "visuals", False))

    def _visuals(self, visuals: bool | None) -> bool:
        if not self.drops_visuals:
            return True
        return self.sim.wants_visuals() if visuals is None else bool(visuals)

    @property
    def shape_newton(self) -> np.ndarray:
        """Isaac Gym rigid shape -> Newton shape (local) in the variant the sim uses (visual
        shapes come first in a link, so the indices depend on whether they were loaded)."""
        v = self._visuals(None)
        if v not in self._shape_newton:
            self._shape_newton[v] = _collision_shapes(self.builder(1.0, True, v))
        return self._shape_newton[v]

    @property
    def has_mesh_colliders(self) -> bool:
        """Whether the asset collides through mesh shapes (triangle meshes or convex hulls)."""
        newton = _newton()
        b = self.builder(1.0, True)
        kinds = (int(newton.GeoType.MESH), int(newton.GeoType.CONVEX_MESH))
        collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
        return any(int(t) in kinds and int(f) & collide for t, f in zip(b.shape_type, b.shape_flags))

    # the kinds whose builders hold nothing but what scaled_builder scales (MJCF files may carry
    # equality constraints and tendons with anchors and lengths, and are imported at each scale)
    COPY_SCALED_KINDS = ("urdf", "box", "sphere", "capsule")
    REIMPORT_SCALES = False     # tests: every scale re-imported (the oracle for scaled_builder)

    # the kinds whose importers turn self-collisions off by filter pairs alone (USD's importer
    # reads per-articulation settings from the file; soft bodies are added after the import)
    COPY_FILTERED_KINDS = ("urdf", "mjcf", "box", "sphere", "capsule")
    REIMPORT_FILTERS = False    # tests: every self-collision variant imported (the oracle)

    def _filters_by_copy(self) -> bool:
        return not self.REIMPORT_FILTERS and self.kind in self.COPY_FILTERED_KINDS and not self.soft_bodies

    @property
    def scalable(self) -> bool:
        """Whether set_actor_scale can scale this asset's actors once the sim is built (in the
        built model: not soft bodies, USD files or scene pieces, whose importers take no scale)."""
        return getattr(self._make, "scales", True) and not self.soft_bodies

    @property
    def structure(self) -> tuple:
        """What an actor of this asset makes of a MuJoCo world beyond the values Newton's MuJoCo
        solver keeps per world (frames, axes, limits, masses, inertias, geom sizes, meshes,
        gains): the body tree, joint types, DOFs and their actuators, every shape's body, type
        and flags, and the filter pairs. Envs whose actors match in it (and in collisions) keep
        one world each (build._env_signature): the same file loaded twice, boxes of different
        sizes, links of other lengths or meshes. Assets whose files give what MuJoCo shares
        between worlds (tendon coefficients, equality and mimic constraints, MJCF and USD
        files, soft bodies) match only themselves."""
        key = self.__dict__.get("_structure")
        if key is None:
            b = self.builder(1.0, True)
            if (self.kind not in self.COPY_SCALED_KINDS or self.soft_bodies or self.tendons is not None
                    or b.constraint_mimic_joint0
                    or any(len(v.values) for v in b.custom_attributes.values() if hasattr(v.values, "__len__"))):
                key = ("asset", self.id)
            else:
                # (every DOF is limited in MuJoCo, core/props.py: limits are values per world)
                key = (len(b.body_label), tuple(b.joint_parent), tuple(b.joint_child), tuple(b.joint_type),
                       tuple(tuple(d) for d in b.joint_dof_dim), tuple(b.joint_target_mode),
                       tuple(b.shape_body), tuple(int(t) for t in b.shape_type), tuple(int(f) for f in b.shape_flags),
                       tuple(bool(x) for x in b.shape_is_solid),
                       tuple(sorted(tuple(p) for p in b.shape_collision_filter_pairs)))
            self.__dict__["_structure"] = key
        return key

    @property
    def has_equalities(self) -> bool:
        """Whether the file gives equality constraints (MJCF; their anchors are lengths)."""
        eq = self.builder(1.0, True).custom_attributes.get("mujoco:equality_constraint_type")
        return eq is not None and len(eq.values) > 0

    def _scales_by_copy(self) -> bool:
        if self.REIMPORT_SCALES or self.kind not in self.COPY_SCALED_KINDS or self.soft_bodies:
            return False
        return not self.builder(1.0, True).constraint_mimic_joint0    # (a mimic offset is a length)

    def fk_model(self, scale: float = 1.0) -> newton.Model:
        """A single-actor CPU model of this asset, for kinematics before the sim is finalized."""
        cache = self.__dict__.setdefault("_fk_models", {})
        if scale not in cache:
            cache[scale] = self.builder(scale, True).finalize(device="cpu")
        return cache[scale]

    def _check_same_layout(self, b, key):
        if len(b.body_label) != self.body_count or b.joint_dof_count != self._newton_dof_count \
                or len(_collision_shapes(b)) != self.shape_count:
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
        if self.body_count == 0 and self.soft_bodies:
            return self._soft_only_metadata()
        if self.body_count == 0:
            raise AssetParseError(f"asset {self.name}: no rigid bodies found")
        root_types = [b.joint_type[j] for j in range(len(b.joint_type)) if b.joint_parent[j] == -1]
        if len(root_types) != 1:
            raise GymlikeNotImplementedError(
                f"asset {self.name}: {len(root_types)} root bodies; gymlike supports assets with "
                "exactly one kinematic tree")
        self.floating = root_types[0] == JT.FREE
        file_joints = self._info.body_joints

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
                names = file_joints.get(child)
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
        shapes = self._shape_newton[self._visuals(None)] = _collision_shapes(b)
        self.shape_count = len(shapes)
        shape_body = np.asarray([b.shape_body[s] for s in shapes], np.int32)
        self.body_shape_start = np.searchsorted(shape_body, np.arange(self.body_count)).astype(np.int32)
        self.body_shape_count = np.bincount(shape_body, minlength=self.body_count).astype(np.int32)

        self.dof_props = self._default_dof_props(b)
        self.actuators = [a for a in self._info.actuators if a["joint"] in self.dof_names]
        self.has_tendons = bool(self._info.has_tendons)
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
        self.body_inertia = np.asarray([np.array(i, np.float64).reshape(3, 3)
                                        for i in b.body_inertia]).reshape(-1, 3, 3)
        self.body_flags = np.zeros(self.body_count, np.int32)
        if self.options.disable_gravity:
            from ..enums import RIGID_BODY_DISABLE_GRAVITY
            self.body_flags[:] = RIGID_BODY_DISABLE_GRAVITY

    def _soft_only_metadata(self):
        """A tet grid or cloth grid: particles only, no rigid body, joint, DOF or shape."""
        self.floating = False
        self.joint_names, self.joint_types, self.joint_dofs = [], [], []
        self.joint_newton = np.zeros(0, np.int32)
        self.dof_names, self.dof_types = [], []
        self.dof_count = self.joint_count = self.shape_count = 0
        self.dof_qd = self.dof_q = self.dof_joint = np.zeros(0, np.int32)
        self._shape_newton = {False: np.zeros(0, np.int32), True: np.zeros(0, np.int32)}
        self.body_shape_start = self.body_shape_count = np.zeros(0, np.int32)
        self.dof_props = np.zeros(0, DOF_PROPERTIES_DTYPE)
        self.actuators, self.has_tendons, self.tendons = [], False, None
        self.shape_props = np.zeros(0, SHAPE_PROPS_DTYPE)
        self.body_mass = np.zeros(0, np.float64)
        self.body_com = np.zeros((0, 3), np.float64)
        self.body_inertia = np.zeros((0, 3, 3), np.float64)
        self.body_flags = np.zeros(0, np.int32)

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
        # POS/VEL mode only; Newton's passive spring/damper is zeroed in fixes.apply_options.
        stiffness, damping = self._file_gains
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
    def body_index(self, name: str) -> int:
        """Index of the body called `name` in the asset, -1 if none."""
        return self.body_names.index(name) if name in self.body_names else -1

    def dof_index(self, name: str) -> int:
        """Index of the DOF called `name` in the asset, -1 if none."""
        return self.dof_names.index(name) if name in self.dof_names else -1

    def joint_index(self, name: str) -> int:
        """Index of the joint called `name` in the asset, -1 if none."""
        return self.joint_names.index(name) if name in self.joint_names else -1

    def describe(self) -> str:
        """debug_print_asset's text: bodies, joints and DOFs with their types."""
        lines = [repr(self), "bodies:"] + [f"  {i}: {n}" for i, n in enumerate(self.body_names)]
        lines += ["joints:"] + [f"  {i}: {n} ({t.name})"
                                for i, (n, t) in enumerate(zip(self.joint_names, self.joint_types))]
        lines += ["dofs:"] + [f"  {i}: {n} ({t.name})" for i, (n, t) in enumerate(zip(self.dof_names, self.dof_types))]
        return "\n".join(lines)

    def __repr__(self):
        return (f"<gymlike Asset '{self.name}': {self.body_count} bodies, {self.joint_count} joints, "
                f"{self.dof_count} dofs, {self.shape_count} shapes>")


def _copy(base: newton.ModelBuilder) -> newton.ModelBuilder:
    """A shallow copy of a builder whose lists (and filter pairs) are its own; meshes are shared."""
    b = copy.copy(base)
    for k, v in vars(base).items():
        if isinstance(v, list):
            setattr(b, k, list(v))
    b.shape_collision_filter_pairs = list(base.shape_collision_filter_pairs)
    return b


def _collision_shapes(b) -> np.ndarray:
    """The builder's collision shapes of bodies, grouped by body (Isaac Gym's rigid shape order)."""
    collide = int(_newton().ShapeFlags.COLLIDE_SHAPES)
    shapes = [s for s in range(len(b.shape_body)) if b.shape_flags[s] & collide and b.shape_body[s] >= 0]
    shapes.sort(key=lambda s: (b.shape_body[s], s))
    return np.asarray(shapes, np.int32)


def without_self_collisions(base: newton.ModelBuilder) -> newton.ModelBuilder:
    """A copy of an asset's processed builder `base` in which no two of its colliding shapes
    collide: the filter pairs Newton's URDF and MJCF importers add for enable_self_collisions=False
    (one per pair of colliding shapes; here over the processed shapes, so hulls and V-HACD parts
    included, as Newton's mesh approximation carries the importer's pairs over to them)."""
    newton = _newton()
    b = _copy(base)
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    shapes = [i for i, f in enumerate(b.shape_flags) if int(f) & collide]
    have = set(b.shape_collision_filter_pairs)
    for k, i in enumerate(shapes):
        for j in shapes[k + 1:]:
            if (i, j) not in have:
                b.add_shape_collision_filter_pair(i, j)
    return b


def scaled_builder(base: newton.ModelBuilder, s: float) -> newton.ModelBuilder:
    """A copy of an asset's processed builder `base` at uniform scale `s`, as Newton's importers
    scale a file: every length times s (shape and joint frames, body poses and centres of mass,
    shape sizes, mesh scales and collision radii, the limits and speed limits of linear joint
    DOFs other than a free root's), mass times s^3 and inertia times s^5 (the actor records own
    the simulated values: props.write_all). `base` is left unchanged; mesh objects are shared."""
    wp = _wp()
    newton = _newton()
    b = _copy(base)

    def frame(t):
        return wp.transform(wp.vec3(*(np.asarray(t.p if hasattr(t, "p") else t[:3], np.float64) * s)),
                            t.q if hasattr(t, "q") else wp.quat(*t[3:]))

    for k in ("shape_transform", "body_q", "joint_X_p", "joint_X_c"):
        setattr(b, k, [frame(t) for t in getattr(b, k)])
    b.shape_scale = [tuple(float(x) * s for x in v) for v in b.shape_scale]
    b.shape_collision_radius = [float(r) * s for r in b.shape_collision_radius]
    b.body_com = [wp.vec3(*(np.asarray(c, np.float64) * s)) for c in b.body_com]
    b.body_mass = [float(m) * s ** 3 for m in b.body_mass]
    b.body_inv_mass = [float(m) / s ** 3 for m in b.body_inv_mass]
    b.body_inertia = [wp.mat33(*(np.asarray(i, np.float64).reshape(-1) * s ** 5)) for i in b.body_inertia]
    b.body_inv_inertia = [wp.mat33(*(np.asarray(i, np.float64).reshape(-1) / s ** 5)) for i in b.body_inv_inertia]
    free = int(newton.JointType.FREE)
    for j, (lin, _ang) in enumerate(b.joint_dof_dim):
        if not lin or int(b.joint_type[j]) == free:
            continue
        for d in range(b.joint_qd_start[j], b.joint_qd_start[j] + lin):
            for k in ("joint_limit_lower", "joint_limit_upper", "joint_velocity_limit"):
                v = getattr(b, k)
                if abs(v[d]) < UNLIMITED:
                    v[d] = float(v[d]) * s
    return b
