"""Parameter structs checked where they enter: `SimParams` (with its `physx` and `flex` blocks) at
create_sim / set_sim_params, `PlaneParams` at add_ground, `AssetOptions` at load_asset and
create_box/sphere/capsule, and create_sim's device ids. Isaac Gym takes any of these values
without a word (a negative armature, a drive mode of 99, `fix_base_link = 'no'`, which is
truthy); here each field has one rule, and a value that breaks it is a GymlikeTypeError (not
the field's type) or GymlikeValueError (out of range) naming the struct and field:

    load_asset: AssetOptions.armature must be finite and >= 0, got -1.0

The structs themselves convert numpy scalars and one-element tensors on assignment (types.py);
what they hold is judged here, when a call uses it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .enums import ContactCollection, DofDriveMode, MeshNormalMode
from .errors import GymlikeTypeError, GymlikeValueError
from .runtime import call_name
from .types import AssetOptions, FlexParams, PhysXParams, PlaneParams, SimParams, VhacdParams

if TYPE_CHECKING:
    from enum import IntEnum
    from typing import Any


# ============================================================================ rules
# A rule is (kind, lo, hi): kind 'real' (finite, in [lo, hi]), 'real>0', 'int', 'bool' or an IntEnum class.
def real(lo: float = -math.inf, hi: float = math.inf) -> tuple:
    """A rule: a finite float in [lo, hi]."""
    return ("real", lo, hi)


def integer(lo: int = -(2 ** 63), hi: int = 2 ** 63 - 1) -> tuple:
    """A rule: an int in [lo, hi]."""
    return ("int", lo, hi)


def enum(cls: type[IntEnum]) -> tuple:
    """A rule: a member of the IntEnum `cls`."""
    return (cls, None, None)


BOOL = ("bool", None, None)
NONNEG = real(0.0)
POSITIVE_OR_INF = ("real>0", 0.0, math.inf)      # a speed cap: > 0, inf means none


def _range(lo, hi):
    """'>= 0', 'in [0, 1]' ... ('' when unbounded)."""
    if lo <= -(2 ** 62) and hi >= 2 ** 62:
        return ""
    if hi >= 2 ** 62:
        return f">= {lo:g}"
    if lo <= -(2 ** 62):
        return f"<= {hi:g}"
    return f"in [{lo:g}, {hi:g}]"


def check_value(value: Any, rule: tuple, where: str) -> Any:
    """`value` judged by `rule`; `where` is the message prefix ('load_asset: AssetOptions.armature')."""
    kind, lo, hi = rule
    if kind == "bool":
        # Isaac Gym's pybind11 bools take True/False and 0/1; anything else (a string such as
        # 'no' is truthy) would silently mean True or False
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
            return bool(value)
        raise GymlikeTypeError(f"{where} must be a bool (True or False), got {type(value).__name__} {value!r}")
    if isinstance(kind, type):                     # an IntEnum
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise GymlikeTypeError(f"{where} must be a gymapi.{kind.__name__}, got {type(value).__name__} {value!r}")
        if int(value) not in {int(m) for m in kind}:
            raise GymlikeValueError(f"{where} must be one of "
                                    f"{', '.join(f'{m.name} ({int(m)})' for m in kind)}, got {value!r}")
        return kind(int(value))
    if kind == "int":
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise GymlikeTypeError(f"{where} must be an int, got {type(value).__name__} {value!r}")
        if not lo <= value <= hi:
            raise GymlikeValueError(f"{where} must be an int {_range(lo, hi)}, got {value}")
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise GymlikeTypeError(f"{where} must be a number, got {type(value).__name__} {value!r}")
    v = float(value)
    if kind == "real>0":
        if not (v > 0.0):                          # (NaN fails too)
            raise GymlikeValueError(f"{where} must be > 0 (inf: no limit), got {value!r}")
        return v
    if not math.isfinite(v) or not lo <= v <= hi:
        bounds = _range(lo, hi)
        raise GymlikeValueError(f"{where} must be finite{' and ' + bounds if bounds else ''}, got {value!r}")
    return v


def check_struct(struct: Any, rules: dict, where: str) -> Any:
    """Every field of `struct` that has a rule; nested structs checked by their own table."""
    for field, rule in rules.items():
        value = getattr(struct, field)
        path = f"{where}.{field}"
        if isinstance(rule, dict):
            cls = _NESTED[field]
            if not isinstance(value, cls):
                raise GymlikeTypeError(f"{path} must be gymapi.{cls.__name__}, got {type(value).__name__}")
            check_struct(value, rule, path)
        else:
            check_value(value, rule, path)
    return struct


# ============================================================================ tables
VHACD = dict(resolution=integer(1), concavity=NONNEG, alpha=NONNEG, beta=NONNEG, mode=integer(0, 1),
             pca=integer(0, 1), plane_downsampling=integer(1), convex_hull_downsampling=integer(1),
             convex_hull_approximation=BOOL, max_convex_hulls=integer(1), max_num_vertices_per_ch=integer(4),
             min_volume_per_ch=NONNEG, ocl_acceleration=BOOL, project_hull_vertices=BOOL)

ASSET_OPTIONS = dict(
    angular_damping=NONNEG, linear_damping=NONNEG, armature=NONNEG, density=NONNEG, thickness=NONNEG,
    max_angular_velocity=POSITIVE_OR_INF, max_linear_velocity=POSITIVE_OR_INF, min_particle_mass=NONNEG,
    tendon_limit_stiffness=NONNEG, slices_per_cylinder=integer(3),
    default_dof_drive_mode=enum(DofDriveMode), mesh_normal_mode=enum(MeshNormalMode),
    collapse_fixed_joints=BOOL, convex_decomposition_from_submeshes=BOOL, disable_gravity=BOOL,
    enable_gyroscopic_forces=BOOL, fix_base_link=BOOL, flip_visual_attachments=BOOL, override_com=BOOL,
    override_inertia=BOOL, replace_cylinder_with_capsule=BOOL, use_mesh_materials=BOOL,
    use_physx_armature=BOOL, vhacd_enabled=BOOL, vhacd_params=VHACD)

# (normal and segmentation_id: Sim.add_ground)
PLANE = dict(distance=real(), static_friction=NONNEG, dynamic_friction=NONNEG, restitution=real(0.0, 1.0))

PHYSX = dict(
    num_threads=integer(0), solver_type=integer(0, 1), num_position_iterations=integer(1, 255),
    num_velocity_iterations=integer(0, 255), contact_offset=NONNEG, rest_offset=real(),
    bounce_threshold_velocity=NONNEG, max_depenetration_velocity=NONNEG,
    default_buffer_size_multiplier=NONNEG, max_gpu_contact_pairs=integer(0), num_subscenes=integer(0),
    use_gpu=BOOL, always_use_articulations=BOOL, friction_offset_threshold=NONNEG,
    friction_correlation_distance=NONNEG, contact_collection=enum(ContactCollection))

FLEX = dict(
    solver_type=integer(0), num_outer_iterations=integer(1), num_inner_iterations=integer(1),
    relaxation=NONNEG, warm_start=real(0.0, 1.0), contact_regularization=NONNEG, deterministic_mode=BOOL,
    dynamic_friction=NONNEG, static_friction=NONNEG, particle_friction=NONNEG, friction_mode=integer(0),
    geometric_stiffness=NONNEG, max_rigid_contacts=integer(0), max_soft_contacts=integer(0),
    return_contacts=BOOL, shape_collision_distance=NONNEG, shape_collision_margin=NONNEG)

# (dt, substeps, gravity and up_axis: sim._check_params)
SIM = dict(use_gpu_pipeline=BOOL, num_client_threads=integer(0), enable_actor_creation_warning=BOOL,
           stress_visualization=BOOL, stress_visualization_min=real(), stress_visualization_max=real(),
           physx=PHYSX, flex=FLEX)

_NESTED = {"vhacd_params": VhacdParams, "physx": PhysXParams, "flex": FlexParams}


# ============================================================================ entry points
def asset_options(options: AssetOptions | None, what: str | None = None) -> AssetOptions:
    """`options` (None: the defaults) checked for load_asset / create_box ...; returns them."""
    what = what or call_name()
    if options is None:
        return AssetOptions()
    if not isinstance(options, AssetOptions):
        raise GymlikeTypeError(f"{what}: options must be gymapi.AssetOptions, got {type(options).__name__}")
    return check_struct(options, ASSET_OPTIONS, f"{what}: AssetOptions")


def plane_params(params: PlaneParams, what: str | None = None) -> PlaneParams:
    """`params` checked field by field for add_ground; returns them."""
    what = what or call_name()
    return check_struct(params, PLANE, f"{what}: PlaneParams")


def sim_params(params: SimParams, what: str | None = None) -> SimParams:
    """`params` checked field by field, nested PhysX / Flex params included; returns them."""
    what = what or call_name()
    return check_struct(params, SIM, f"{what}: SimParams")


def device_ids(compute_device: int, graphics_device: int, what: str | None = None) -> tuple[int, int]:
    """create_sim's device indices: a CUDA device index >= 0, and a graphics device (-1: none)."""
    what = what or call_name()
    return (check_value(compute_device, integer(0), f"{what}: compute_device"),
            check_value(graphics_device, integer(-1), f"{what}: graphics_device"))
