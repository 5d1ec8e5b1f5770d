"""Soft bodies as an asset records them (the record half of core/deformables.py, which runs
them): tetrahedral meshes read from URDF `<fem>` links and `.tet` files, the grids of
create_tet_grid and create_cloth_grid, and their particles, tetrahedra and triangles added to the
asset's Newton sub-builder after its rigid part (so every actor of it carries a copy in its env's
world)."""

from __future__ import annotations

import copy
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..enums import SimType, SoftMaterialType
from ..errors import (AssetParseError, GymlikeFileNotFoundError, GymlikeNotImplementedError, GymlikeTypeError,
                      GymlikeValueError)
from ..math3d import quat_rotate
from ..runtime import wp as _wp
from ..types import SoftMaterial, number

if TYPE_CHECKING:
    from collections.abc import Sequence

    import newton
    import warp as wp

    from ..types import AssetOptions

CLOTH_THICKNESS = 0.01     # m: cloth particles' mass = density * cell area * this
REFUSED_ON_PHYSX = ("soft bodies, cloth and particles need a SIM_FLEX sim (Newton's VBD solver); SIM_PHYSX sims "
                    "step on Newton's MuJoCo solver, which has no deformables")


def refuse_physx(sim_type: SimType, what: str) -> None:
    """Raise GymlikeNotImplementedError on SIM_PHYSX (soft bodies run on SIM_FLEX only)."""
    if sim_type == SimType.SIM_PHYSX:
        raise GymlikeNotImplementedError(f"{what}: {REFUSED_ON_PHYSX}")


@dataclass
class SoftBody:
    """One soft body of an asset, in the asset frame."""
    name: str
    vertices: np.ndarray                  # (n, 3) rest positions, asset frame
    tets: np.ndarray                      # (m, 4) local particle indices (positive volume)
    tris: np.ndarray                      # (k, 3) surface (or cloth) triangles, local particle indices
    tri_parent: np.ndarray                # (k,) local parent tetrahedron, -1 for cloth
    material: SoftMaterial
    density: float
    masses: np.ndarray                    # (n,) kg (0: pinned)
    link: str | None = None               # URDF link the body belongs to (its frame), or None
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))   # link frame -> mesh frame


# ============================================================================ materials
def lame(youngs: float, poissons: float) -> tuple[float, float]:
    """(mu, lambda): Lame parameters of Young's modulus E and Poisson ratio nu."""
    e, nu = float(youngs), float(poissons)
    return e / (2.0 * (1.0 + nu)), e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))


def check_material(m: SoftMaterial, what: str) -> SoftMaterial:
    """`m` checked (youngs > 0 Pa, poissons in [0, 0.5), damping >= 0); returns it."""
    if not isinstance(m, SoftMaterial):
        raise GymlikeTypeError(f"{what}: expected a gymapi.SoftMaterial, got {type(m).__name__}")
    e = number(m.youngs, f"{what}: youngs")
    nu = number(m.poissons, f"{what}: poissons")
    d = number(m.damping, f"{what}: damping")
    if not (np.isfinite(e) and e > 0):
        raise GymlikeValueError(f"{what}: youngs must be a positive, finite modulus (Pa), got {m.youngs!r}")
    if not (np.isfinite(nu) and 0.0 <= nu < 0.5):
        raise GymlikeValueError(f"{what}: poissons must be in [0, 0.5), got {m.poissons!r}")
    if not (np.isfinite(d) and d >= 0):
        raise GymlikeValueError(f"{what}: damping must be finite and >= 0, got {m.damping!r}")
    try:
        SoftMaterialType(int(m.model))
    except (ValueError, TypeError):
        raise GymlikeValueError(f"{what}: model must be a gymapi.SoftMaterialType, got {m.model!r}") from None
    return m


def _material(youngs, poissons, damping):
    return SoftMaterial(youngs=float(youngs), poissons=float(poissons), damping=float(damping),
                        model=SoftMaterialType.MAT_NEOHOOKEAN)


# ============================================================================ meshes
def _orient(vertices, tets):
    """Tetrahedra with positive volume (two indices swapped where negative); degenerate ones refused."""
    tets = np.array(tets, np.int64).reshape(-1, 4)
    x = vertices[tets]
    vol = np.einsum("ij,ij->i", np.cross(x[:, 1] - x[:, 0], x[:, 2] - x[:, 0]), x[:, 3] - x[:, 0]) / 6.0
    neg = vol < 0
    tets[neg] = tets[neg][:, [0, 2, 1, 3]]
    return tets, np.abs(vol)


def surface(tets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boundary triangles of a tetrahedral mesh, outward wound, with their parent tetrahedra."""
    faces = np.concatenate([tets[:, [1, 2, 3]], tets[:, [0, 3, 2]], tets[:, [0, 1, 3]], tets[:, [0, 2, 1]]])
    parent = np.tile(np.arange(len(tets)), 4)
    key = np.sort(faces, axis=1)
    _, inv, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    once = counts[inv.reshape(-1)] == 1
    order = np.argsort(parent[once], kind="stable")
    return faces[once][order], parent[once][order]


def tet_body(name: str, vertices: np.ndarray, tets: np.ndarray, material: SoftMaterial, density: float,
             link: str | None = None, origin: np.ndarray | None = None, what: str = "soft body") -> SoftBody:
    """A SoftBody of a tetrahedral mesh: vertices (n, 3) m, tets (m, 4) vertex indices (reoriented
    to positive volume), particle masses from `density` (kg/m^3)."""
    vertices = np.asarray(vertices, np.float64).reshape(-1, 3)
    if len(vertices) == 0 or len(tets) == 0:
        raise AssetParseError(f"{what}: no vertices or no tetrahedra")
    tets = np.asarray(tets, np.int64).reshape(-1, 4)
    if tets.min() < 0 or tets.max() >= len(vertices):
        raise AssetParseError(f"{what}: a tetrahedron refers to vertex {int(tets.max())} of {len(vertices)}")
    tets, vol = _orient(vertices, tets)
    if (vol <= 1e-15).any():
        raise AssetParseError(f"{what}: tetrahedron {int(np.argmax(vol <= 1e-15))} has no volume")
    masses = np.zeros(len(vertices))
    np.add.at(masses, tets.reshape(-1), np.repeat(vol * density / 4.0, 4))
    tris, parent = surface(tets)
    return SoftBody(name, vertices, tets, tris, parent, material, float(density), masses, link,
                    np.eye(4) if origin is None else origin)


def read_tet_file(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, tetrahedra) of a .tet file: `v x y z` and `t i j k l` (0-based) lines."""
    if not os.path.isfile(path):
        raise GymlikeFileNotFoundError(f"load_asset: tetrahedral mesh file not found: '{path}'")
    verts, tets = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            try:
                if parts[0] == "v" and len(parts) >= 4:
                    verts.append([float(p) for p in parts[1:4]])
                    continue
                if parts[0] == "t" and len(parts) >= 5:
                    tets.append([int(p) for p in parts[1:5]])
                    continue
            except ValueError:
                pass
            raise AssetParseError(f"{path}:{n}: expected 'v x y z' or 't i j k l', got {line.strip()[:60]!r}")
    v = np.asarray(verts, np.float64).reshape(-1, 3)
    if not np.isfinite(v).all():
        raise AssetParseError(f"{path}: non-finite vertex coordinates")
    return v, np.asarray(tets, np.int64).reshape(-1, 4)


def _rpy_matrix(r, p, y):
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def urdf_soft_bodies(xml_text: str, path: str) -> list[SoftBody]:
    """The URDF links with a <fem> element, as SoftBody records in their link frame."""
    root = ET.fromstring(xml_text)
    out = []
    for link in root.iter("link"):
        fem = link.find("fem")
        if fem is None:
            continue
        name = link.get("name", "")
        what = f"{path}: link '{name}' <fem>"

        def val(tag, default):
            el = fem.find(tag)
            if el is None:
                return default
            try:
                return float(el.get("value"))
            except (TypeError, ValueError):
                raise AssetParseError(f"{what}: <{tag} value=...> must be a number, got {el.get('value')!r}") from None
        mesh = fem.find("tetmesh")
        if mesh is None or not mesh.get("filename"):
            raise AssetParseError(f"{what}: needs <tetmesh filename=...>")
        mpath = mesh.get("filename")
        if not os.path.isabs(mpath):
            mpath = os.path.join(os.path.dirname(path), mpath)
        verts, tets = read_tet_file(mpath)
        origin = np.eye(4)
        o = fem.find("origin")
        if o is not None:
            try:
                xyz = [float(v) for v in o.get("xyz", "0 0 0").split()]
                rpy = [float(v) for v in o.get("rpy", "0 0 0").split()]
            except ValueError:
                raise AssetParseError(f"{what}: <origin> needs numbers in xyz and rpy") from None
            origin[:3, :3] = _rpy_matrix(*rpy)
            origin[:3, 3] = xyz
        material = _material(val("youngs", 1e5), val("poissons", 0.3), val("damping", 0.0))
        check_material(material, what)
        density = val("density", 1000.0)
        if not density > 0:
            raise AssetParseError(f"{what}: density must be > 0, got {density}")
        out.append(tet_body(name, verts, tets, material, density, link=name, origin=origin, what=what))
    return out


def grid_tets(nx: int, ny: int, nz: int, sx: float, sy: float, sz: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and tetrahedra of a box of nx*ny*nz cells (six tetrahedra per cell)."""
    ii, jj, kk = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij")
    verts = np.stack([ii.ravel() * sx, jj.ravel() * sy, kk.ravel() * sz], 1).astype(np.float64)
    vid = lambda i, j, k: (i * (ny + 1) + j) * (nz + 1) + k  # noqa: E731
    cells = np.stack(np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), -1).reshape(-1, 3)
    i, j, k = cells[:, 0], cells[:, 1], cells[:, 2]
    c = [vid(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)) for b in range(8)]
    # Kuhn's split of a cube along its 0-7 diagonal: six tetrahedra per cell, conforming
    paths = [(1, 3), (1, 5), (2, 3), (2, 6), (4, 5), (4, 6)]
    tets = np.concatenate([np.stack([c[0], c[a], c[b], c[7]], 1) for a, b in paths])
    return verts, tets


# ============================================================================ assets
def create_tet_grid(up_axis: int, material: SoftMaterial, dims: Sequence[int], spacing: Sequence[float],
                    density: float, fixes: Sequence[bool], what: str = "create_tet_grid") -> SoftBody:
    """A SoftBody of a box of tetrahedra (the asset of create_tet_grid). `fixes`: (base, top,
    left, right): pin the particles of the box's bottom (along the up axis), top, -x and +x faces."""
    check_material(material, what)
    nx, ny, nz = (number(v, f"{what}: dim{a}", integer=True) for v, a in zip(dims, "xyz"))
    if min(nx, ny, nz) < 1 or nx * ny * nz > 100_000:
        raise GymlikeValueError(f"{what}: dimx, dimy, dimz must be ints >= 1 (at most 100,000 cells), got {dims}")
    sp = [number(v, f"{what}: spacing{a}") for v, a in zip(spacing, "xyz")]
    if not all(np.isfinite(s) and s > 0 for s in sp):
        raise GymlikeValueError(f"{what}: spacings must be positive and finite, got {spacing}")
    density = number(density, f"{what}: density")
    if not (np.isfinite(density) and density > 0):
        raise GymlikeValueError(f"{what}: density must be positive and finite, got {density!r}")
    for n, f in zip(("fix_base", "fix_top", "fix_left", "fix_right"), fixes):
        if not isinstance(f, (bool, np.bool_)):
            raise GymlikeTypeError(f"{what}: {n} must be a bool, got {type(f).__name__}")
    verts, tets = grid_tets(nx, ny, nz, *sp)
    body = tet_body("tet_grid", verts, tets, copy.deepcopy(material), density, what=what)
    up = 1 if int(up_axis) == 0 else 2          # UP_AXIS_Y = 0, UP_AXIS_Z = 1
    tol = 1e-9
    pin = np.zeros(len(verts), bool)
    ext = verts.max(0)
    base, top, left, right = (bool(f) for f in fixes)
    pin |= base & (verts[:, up] < tol)
    pin |= top & (verts[:, up] > ext[up] - tol)
    pin |= left & (verts[:, 0] < tol)
    pin |= right & (verts[:, 0] > ext[0] - tol)
    body.masses[pin] = 0.0
    return body


def create_cloth_grid(width: int, length: int, spacing_x: float, spacing_y: float,
                      options: AssetOptions, what: str = "create_cloth_grid") -> SoftBody:
    """A SoftBody of a cloth: width x length particles in the asset's x-y plane."""
    w, ln = (number(v, f"{what}: {n}", integer=True) for v, n in ((width, "width"), (length, "length")))
    if w < 2 or ln < 2 or w * ln > 1_000_000:
        raise GymlikeValueError(f"{what}: width and length are particle counts, ints >= 2, got {width!r}, {length!r}")
    sx, sy = number(spacing_x, f"{what}: spacing x"), number(spacing_y, f"{what}: spacing y")
    if not (np.isfinite(sx) and np.isfinite(sy) and sx > 0 and sy > 0):
        raise GymlikeValueError(f"{what}: spacings must be positive and finite, got {spacing_x!r}, {spacing_y!r}")
    ii, jj = np.meshgrid(np.arange(w), np.arange(ln), indexing="ij")
    verts = np.stack([ii.ravel() * sx, jj.ravel() * sy, np.zeros(w * ln)], 1)
    vid = (ii * ln + jj)
    a, b, c, d = vid[:-1, :-1].ravel(), vid[1:, :-1].ravel(), vid[1:, 1:].ravel(), vid[:-1, 1:].ravel()
    tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    density = float(options.density) if options is not None else 1000.0
    masses = np.full(w * ln, density * sx * sy * CLOTH_THICKNESS)
    return SoftBody("cloth", verts, np.zeros((0, 4), np.int64), tris, np.full(len(tris), -1, np.int64),
                    _material(0.0, 0.0, 0.0), density, masses)


def add_to_builder(b: newton.ModelBuilder, bodies: list[SoftBody], scale: float = 1.0) -> newton.ModelBuilder:
    """Add an asset's soft bodies (asset frame, after its rigid part) to its Newton sub-builder."""
    if not bodies:
        return b
    wp = _wp()
    labels = list(b.body_label)
    short = [s.rsplit("/", 1)[-1] for s in labels]
    for sb in bodies:
        x = sb.vertices * scale
        x = x @ sb.origin[:3, :3].T + sb.origin[:3, 3] * scale
        if sb.link is not None and sb.link in short:      # the link's rest pose in the asset frame
            X = b.body_q[short.index(sb.link)]
            p, q = np.array(X[:3], np.float64), np.array(X[3:7], np.float64)
            x = quat_rotate(q, x) + p
        p0 = len(b.particle_q)
        radius = _particle_radius(sb, scale)
        b.add_particles([wp.vec3(*v) for v in x], [wp.vec3(0.0, 0.0, 0.0)] * len(x),
                        [float(m) * scale ** 3 for m in sb.masses], radius=[radius] * len(x))
        if len(sb.tets):
            mu, lam = lame(sb.material.youngs, sb.material.poissons)
            kd = float(sb.material.damping)
            for t in sb.tets + p0:
                b.add_tetrahedron(int(t[0]), int(t[1]), int(t[2]), int(t[3]), k_mu=mu, k_lambda=lam, k_damp=kd)
            for t in sb.tris + p0:
                b.add_triangle(int(t[0]), int(t[1]), int(t[2]), tri_ke=0.0, tri_ka=0.0, tri_kd=0.0)
        else:     # cloth: Newton's default membrane and bending stiffness
            for t in sb.tris + p0:
                b.add_triangle(int(t[0]), int(t[1]), int(t[2]))
    return b


def place_particles(b: newton.ModelBuilder, p0: int, xf: wp.transform) -> None:
    """Rotate the particles an actor added (from p0 on) about its position: Newton's add_builder
    translates particles by the actor pose but does not rotate them."""
    q = np.array([xf.q[0], xf.q[1], xf.q[2], xf.q[3]], np.float64)
    if np.allclose(q, (0.0, 0.0, 0.0, 1.0)):
        return
    wp = _wp()
    p = np.array([xf.p[0], xf.p[1], xf.p[2]], np.float64)
    x = np.asarray([tuple(v) for v in b.particle_q[p0:]], np.float64) - p
    x = quat_rotate(q, x) + p
    b.particle_q[p0:] = [wp.vec3(*v) for v in x]


def _particle_radius(sb, scale):
    """Half the shortest rest edge (the contact radius of each particle), at most 1 cm."""
    idx = sb.tris
    x = sb.vertices
    e = np.concatenate([x[idx[:, 0]] - x[idx[:, 1]], x[idx[:, 1]] - x[idx[:, 2]], x[idx[:, 2]] - x[idx[:, 0]]])
    shortest = float(np.linalg.norm(e, axis=1).min()) * scale
    return min(0.01, 0.5 * shortest)
