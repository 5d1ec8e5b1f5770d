"""Loading an asset: the format picked from the file name (URDF, MJCF, USD) or a primitive
(box, sphere, capsule), made into an Asset record."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import GymlikeFileNotFoundError, GymlikeNotImplementedError, GymlikeTypeError, GymlikeValueError, warn
from ..params import asset_options
from ..runtime import wp as _wp
from ..enums import SimType
from ..types import AssetOptions, number
from . import mjcf, urdf
from .check import MAX_LENGTH
from .fixes import collapse
from .importer import guarded, new_builder, up_axis
from .record import Asset
from .soft import refuse_physx

if TYPE_CHECKING:
    from .soft import SoftBody
    from ..sim import Sim

_URDF_EXT = (".urdf",)
_MJCF_EXT = (".xml", ".mjcf")
_USD_EXT = (".usd", ".usda", ".usdc", ".usdz")


def load_asset_file(sim: Sim, root: str, filename: str, options: AssetOptions | None,
                    kind: str | None = None) -> Asset:
    """The Asset of a URDF or MJCF file (root/filename; `kind` 'urdf' or 'mjcf', else from the
    extension), checked and imported with `options`."""
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
    up = up_axis(sim)
    if kind == "urdf":
        make, info = urdf.importer(path, root, options, up, floating)
    elif kind == "mjcf":
        make, info = mjcf.importer(path, options, up, floating)
    else:
        make, info = _usd_importer(path, options, up, floating), None
    if getattr(info, "soft", None):
        refuse_physx(sim.type, f"load_asset: '{path}' has soft links (<fem>)")
    return Asset(sim, kind, path, options, make, info)


def create_soft_asset(sim: Sim, body: SoftBody, options: AssetOptions | None, kind: str) -> Asset:
    """The asset of create_tet_grid / create_cloth_grid: one soft body, no rigid part."""
    from .record import FileInfo
    options = asset_options(options, f"create_{kind}")
    up = up_axis(sim)
    return Asset(sim, kind, None, options, lambda scale, self_collisions: new_builder(options, up),
                 FileInfo(soft=[body]))


def _usd_importer(path, options, up, floating):
    def make(scale, self_collisions):
        if scale != 1.0:
            raise GymlikeNotImplementedError("set_actor_scale on USD assets is not supported yet")
        b = new_builder(options, up)
        guarded(path, lambda: b.add_usd(
            path, floating=floating, enable_self_collisions=self_collisions,
            collapse_fixed_joints=False, joint_ordering="dfs",
            bodies_follow_joint_ordering=True))
        return collapse(b, options)
    make.scales = False                # (Asset.scalable)
    return make


MIN_LENGTH = 1e-6      # m: the thinnest primitive extent (see _primitive_size)
# m: the thinnest extent of a zero-size primitive on SIM_FLEX: XPBD's resting contacts sink about
# 1 mm, so a thinner slab lets a body resting on it jitter (2 mm) or sink through (0.1 mm)
THIN_XPBD = 5e-3
_THIN_WARNED: set[str] = set()


def _primitive_size(sim: Sim, what: str, kind: str, name: str, value: object) -> float:
    """A primitive's size in m. Isaac Gym accepts zero extents (a task trained on a zero-thickness
    box table; release PhysX builds the degenerate box as a flat slab): sizes below MIN_LENGTH
    become a thin collider, MIN_LENGTH thick (THIN_XPBD on SIM_FLEX), with one warning per call
    name; a capsule's width (its cylinder part) may be 0, a sphere-like capsule as in PhysX. A
    negative size (negative volume and mass), an infinite one (the inertia computation fails) or
    one beyond MAX_LENGTH (Newton's finalize never ends; asset files have the same bound) is a
    ValueError."""
    size = number(value, f"{what}: {name}")
    if not 0.0 <= size <= MAX_LENGTH:
        raise GymlikeValueError(f"{what}: {name} must be a finite length in [0, {MAX_LENGTH:g}] m, got {value!r}")
    if kind == "capsule" and name == "width" or size >= MIN_LENGTH:
        return size
    thin = THIN_XPBD if sim.type == SimType.SIM_FLEX else MIN_LENGTH
    if what not in _THIN_WARNED:
        _THIN_WARNED.add(what)
        warn(f"{what}: {name} {size:g} m is below {MIN_LENGTH:g} m; the shape is made {thin:g} m thick "
             "(a thin collider, as Isaac Gym accepts a zero-size primitive); warned once")
    return thin


def create_primitive(sim: Sim, kind: str, dims: dict[str, float], options: AssetOptions | None) -> Asset:
    """The Asset of one primitive shape (create_box, create_sphere, create_capsule): `kind` and
    its sizes in m (dims: name -> length)."""
    what = f"create_{kind}"
    dims = {k: _primitive_size(sim, what, kind, k, v) for k, v in dims.items()}
    options = asset_options(options, what)
    wp = _wp()
    up = up_axis(sim)

    def make(scale, self_collisions):
        b = new_builder(options, up)
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
