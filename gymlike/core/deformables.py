"""FleX's deformables on Newton: soft bodies (tetrahedral meshes with a soft material), cloth
grids and their particles, in SIM_FLEX sims.

Where they come from: URDF links with a `<fem>` element (a `.tet` file of `v x y z` and
`t i j k l` lines, density, Young's modulus, Poisson ratio, damping), `create_tet_grid` and
`create_cloth_grid`. An asset's soft bodies are added to its Newton sub-builder (particles,
tetrahedra, surface triangles) after its rigid part, so every actor of it carries a copy in its
env's world. A SIM_FLEX sim holding particles steps on Newton's SolverVBD (implicit FEM with a
stable Neo-Hookean material, rigid bodies by AVBD, coupled through contacts) instead of
SolverXPBD: XPBD's tetrahedral constraints (tr(F^T F) - 3 and det F - 1) have no shear stiffness
at small strain, so a cube under its own weight sags about 8x what its Young's modulus predicts,
where VBD comes within 40% (tests/test_deformables.py).

Isaac Gym's views kept here:
* particles, tetrahedra and triangles are numbered sim-wide in actor creation order;
* the particle state tensor is (num_particles, 7): position (env frame) [0:3], inverse mass
  [3] (0: pinned), velocity [4:7] (FleX keeps a particle as position + inverse mass and a
  velocity; Isaac Gym documents only that rows are particles, and its clients read [:, :3]);
* tetrahedra as 4 particle indices each plus a Cauchy stress per tetrahedron; triangles (the
  soft bodies' surfaces and cloth) as 3 particle indices, the parent tetrahedron (-1 for cloth)
  and the face normal.
"""

from __future__ import annotations

import copy
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .enums import SimType, SoftMaterialType
from .errors import (AssetParseError, GymlikeFileNotFoundError, GymlikeIndexError, GymlikeNotImplementedError,
                     GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError)
from .math3d import quat_rotate
from .runtime import deformable_kernels as _deformable_kernels, newton as _newton, wp as _wp
from .types import IndexRange, Mat33, SoftMaterial, Vec3, number

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import newton
    import warp as wp

    from .sim import Actor, Sim
    from .tensors import GymTensor
    from .types import AssetOptions


REFUSED_ON_PHYSX = ("soft bodies, cloth and particles need a SIM_FLEX sim (Newton's VBD solver); SIM_PHYSX sims "
                    "step on Newton's MuJoCo solver, which has no deformables")

PARTICLE_COLS = 7
SOFT_CONTACT_KE = 1e6       # N/m: particle contact stiffness (Newton's default, 1e3, lets a heavy soft body sink)
CLOTH_THICKNESS = 0.01     # m: cloth particles' mass = density * cell area * this


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
def create_tet_grid(sim: Sim, material: SoftMaterial, dims: Sequence[int], spacing: Sequence[float],
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
    up = 1 if sim.params.up_axis == 0 else 2          # UP_AXIS_Y = 0, UP_AXIS_Z = 1
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


def create_cloth_grid(sim: Sim, width: int, length: int, spacing_x: float, spacing_y: float,
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


# ============================================================================ the finalized sim
class Deformables:
    """Per-sim tables: each actor's particle, tetrahedron and triangle ranges (sim-wide), the
    rest state, the Isaac Gym triangle list, and the particle tensor's kernels' tables."""

    def __init__(self, sim, actors, particle0):
        wp = _wp()
        m = sim.model
        self.sim = sim
        n_act = len(actors)
        self.actor_p0 = np.asarray(particle0, np.int64)
        self.actor_np = np.array([sum(len(s.vertices) for s in a.asset.soft_bodies) for a in actors], np.int64)
        self.num_particles = int(m.particle_count)
        if int(self.actor_np.sum()) != self.num_particles:
            raise GymlikeRuntimeError(f"internal: {self.num_particles} Newton particles for "
                                      f"{int(self.actor_np.sum())} soft-body particles")
        tets, tris, parents, body_tet0, body_tri0 = [], [], [], [], []
        nt = ntri = 0
        for a, p0 in zip(actors, self.actor_p0):
            starts_t, starts_tri = [], []
            off = int(p0)
            for sb in a.asset.soft_bodies:
                starts_t.append((nt, len(sb.tets)))
                starts_tri.append((ntri, len(sb.tris)))
                tets.append(sb.tets + off)
                tris.append(sb.tris + off)
                parents.append(np.where(sb.tri_parent >= 0, sb.tri_parent + nt, -1))
                nt += len(sb.tets)
                ntri += len(sb.tris)
                off += len(sb.vertices)
            body_tet0.append(starts_t)
            body_tri0.append(starts_tri)
        self.tets = np.concatenate(tets).astype(np.int64) if tets else np.zeros((0, 4), np.int64)
        self.tris = np.concatenate(tris).astype(np.int64) if tris else np.zeros((0, 3), np.int64)
        self.tri_parent = np.concatenate(parents).astype(np.int64) if parents else np.zeros(0, np.int64)
        self.tet_ranges, self.tri_ranges = body_tet0, body_tri0
        if len(self.tets) != int(m.tet_count):
            raise GymlikeRuntimeError(f"internal: {int(m.tet_count)} Newton tetrahedra for {len(self.tets)}")
        # the first tetrahedron of each actor in Newton's tet arrays (materials are written there)
        self.rest_q = wp.clone(m.particle_q) if self.num_particles else None
        self.rest_poses = m.tet_poses.numpy().astype(np.float64) if m.tet_count else np.zeros((0, 3, 3))
        part_actor = np.repeat(np.arange(n_act), self.actor_np).astype(np.int32)
        origin = np.concatenate([np.repeat(a.env.origin[None], int(n), 0) for a, n in zip(actors, self.actor_np)]
                                or [np.zeros((0, 3))]).astype(np.float32)
        dev = sim.device
        self.particle_actor = wp.array(part_actor, dtype=wp.int32, device=dev)
        self.particle_origin = wp.array(origin.reshape(-1, 3), dtype=wp.vec3, device=dev)
        self.actor_selected = wp.zeros(max(1, n_act), dtype=wp.int32, device=dev)
        self.host_origin = origin.astype(np.float64)

    # ------------------------------------------------------------------ per actor
    def body_range(self, actor: Actor, index: int, kind: str, what: str) -> IndexRange:
        """Where the tetrahedra (kind 'tet') or triangles of the actor's soft body `index` sit in
        the sim's lists: IndexRange(start, count)."""
        a_idx = actor.sim_index
        ranges = (self.tet_ranges if kind == "tet" else self.tri_ranges)[a_idx]
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: soft body index must be an int, got {type(index).__name__}")
        if not 0 <= index < len(ranges):
            raise GymlikeIndexError(f"{what}: soft body index {index} out of range: actor '{actor.name}' has "
                                    f"{len(ranges)} soft bodies")
        s, c = ranges[index]
        return IndexRange(start=int(s), count=int(c))

    def write_materials(self, actor: Actor) -> None:
        """The actor's soft materials into Newton's tetrahedron materials (mu, lambda, damping)."""
        m = self.sim.model
        if not m.tet_count:
            return
        mats = m.tet_materials.numpy()
        for sb, mat, (s, c) in zip(actor.asset.soft_bodies, actor.soft_materials, self.tet_ranges[actor.sim_index]):
            if c:
                mu, lam = lame(mat.youngs, mat.poissons)
                mats[s:s + c] = (mu, lam, float(mat.damping))
        m.tet_materials.assign(mats)

    def reset_to_rest(self, actor: Actor) -> None:
        """Put the actor's particles back at their rest positions, at rest."""
        i = actor.sim_index
        p0, n = int(self.actor_p0[i]), int(self.actor_np[i])
        if n == 0:
            return
        st = self.sim.state
        _wp().launch(_deformable_kernels().reset_particles, n, (p0, self.rest_q, st.particle_q, st.particle_qd),
                     device=self.sim.device)
        self.sim.state_written([i])

    # ------------------------------------------------------------------ particle state tensor
    def acquire(self) -> GymTensor:
        """The particle state tensor: (particles, 7) float32, position (m), inverse mass, velocity (m/s)."""
        from . import tensors
        return tensors.api(self.sim).buffer("particle", (self.num_particles, PARTICLE_COLS), self.refresh)

    def refresh(self, t: GymTensor) -> None:
        """Fill the particle state tensor `t` from the current state."""
        st, m = self.sim.state, self.sim.model
        _wp().launch(_deformable_kernels().gather_particles, self.num_particles,
                     (st.particle_q, st.particle_qd, m.particle_inv_mass, self.particle_origin, t._wp),
                     device=self.sim.device)

    def set_states(self, tensor: Any, indexed: tuple[Any, int] | None, what: str) -> bool:
        """Positions, inverse masses and velocities of every particle (indexed: (actor index
        tensor, count): of the listed actors' particles only). Validated before anything is written."""
        from . import tensors
        api = tensors.api(self.sim, what)
        n = self.num_particles
        t = api.checked(tensor, what, n, PARTICLE_COLS, arg="particle states").reshape(-1, PARTICLE_COLS)
        host_ids = None
        if indexed is not None:
            ids, host_ids = api.actor_ids(indexed[0], indexed[1], what)
            rows = np.isin(np.repeat(np.arange(len(self.actor_np)), self.actor_np), host_ids)
            check = t[api.torch.as_tensor(rows, device=t.device)] if n else t
        else:
            check = t
        if n:
            if not bool(api.torch.isfinite(check).all()):
                raise GymlikeValueError(f"{what}: particle states hold NaN or inf")
            if bool((check[:, 3] < 0).any()):
                raise GymlikeValueError(f"{what}: inverse masses (column 3) must be >= 0 (0 pins a particle)")
        if n == 0 or (host_ids is not None and len(host_ids) == 0):
            return True
        src = api.as_array(tensor, what, n, PARTICLE_COLS, arg="particle states")
        wp = _wp()
        st, m = self.sim.state, self.sim.model
        dev = self.sim.device
        if host_ids is not None:
            self.actor_selected.zero_()
            wp.launch(_deformable_kernels().select_actors, len(host_ids), (ids, self.actor_selected), device=dev)
        wp.launch(_deformable_kernels().scatter_particles, n,
                  (src, self.particle_actor, self.actor_selected, int(host_ids is None), self.particle_origin,
                   st.particle_q, st.particle_qd, m.particle_inv_mass, m.particle_mass), device=dev)
        self.sim.state_written(None if host_ids is None else host_ids)
        return True

    # ------------------------------------------------------------------ queries
    def tetrahedra(self) -> tuple[list[int], list[Mat33]]:
        """(flat index list, Cauchy stress per tetrahedron as Mat33)."""
        if not len(self.tets):
            return [], []
        x = self.sim.state.particle_q.numpy().astype(np.float64)
        t = self.tets
        Ds = np.stack([x[t[:, 1]] - x[t[:, 0]], x[t[:, 2]] - x[t[:, 0]], x[t[:, 3]] - x[t[:, 0]]], -1)
        F = Ds @ self.rest_poses                      # Newton stores inv(Dm)
        mats = self.sim.model.tet_materials.numpy().astype(np.float64)
        mu, lam = mats[:, 0][:, None, None], mats[:, 1][:, None, None]
        J = np.linalg.det(F)
        Jc = np.maximum(J, 1e-6)[:, None, None]
        B = F @ np.transpose(F, (0, 2, 1))
        eye = np.eye(3)[None]
        sigma = (mu * (B - eye) + lam * np.log(Jc) * eye) / Jc     # compressible Neo-Hookean
        return [int(v) for v in t.reshape(-1)], [Mat33.from_numpy(s) for s in sigma]

    def triangles(self) -> tuple[list[int], list[int], list[Vec3]]:
        """(flat index list, parent tetrahedra, current face normals as Vec3)."""
        if not len(self.tris):
            return [], [], []
        x = self.sim.state.particle_q.numpy().astype(np.float64)
        t = self.tris
        n = np.cross(x[t[:, 1]] - x[t[:, 0]], x[t[:, 2]] - x[t[:, 0]])
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-20)
        return ([int(v) for v in t.reshape(-1)], [int(p) for p in self.tri_parent],
                [Vec3(*map(float, v)) for v in n])

    def soft_contacts(self) -> np.ndarray:
        """Isaac Gym's SoftContact records of the particle-shape contacts of the last substep."""
        c = self.sim.contacts
        if c is None or self.num_particles == 0 or getattr(c, "soft_contact_count", None) is None:
            return np.zeros(0, SOFT_CONTACT_DTYPE)
        n = int(c.soft_contact_count.numpy()[0])
        n = min(n, len(c.soft_contact_particle))
        part = c.soft_contact_particle.numpy()[:n]
        shape = c.soft_contact_shape.numpy()[:n]
        normal = c.soft_contact_normal.numpy()[:n]
        out = np.zeros(n, SOFT_CONTACT_DTYPE)
        if n == 0:
            return out
        shape_body = self.sim.model.shape_body.numpy()
        body = shape_body[shape]
        h = self.sim.host
        p_actor = np.repeat(np.arange(len(self.actor_np)), self.actor_np)[part]
        out["env0"] = h.actor_env[p_actor]
        out["env1"] = np.where(body >= 0, h.body_env[np.maximum(body, 0)] if len(h.body_env) else -1, -1)
        out["bodyIndex"] = body
        out["particleIndices"]["x"] = part
        out["particleIndices"]["y"] = -1
        out["particleIndices"]["z"] = -1
        out["particleBarys"]["x"] = 1.0
        for k, ax in enumerate("xyz"):
            out["normal"][ax] = normal[:, k]
        return out


_I3 = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4")])
_F3 = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")])
SOFT_CONTACT_DTYPE = np.dtype([("env0", "<i4"), ("env1", "<i4"), ("bodyIndex", "<i4"),
                               ("particleIndices", _I3), ("particleBarys", _F3), ("normal", _F3),
                               ("lambda", "<f4")])


# ============================================================================ entry points
def refuse_physx(sim: Sim, what: str) -> None:
    """Raise GymlikeNotImplementedError on SIM_PHYSX (soft bodies run on SIM_FLEX only)."""
    if sim.type == SimType.SIM_PHYSX:
        raise GymlikeNotImplementedError(f"{what}: {REFUSED_ON_PHYSX}")


def of(sim: Sim, what: str) -> Deformables:
    """The sim's Deformables (after the build); an error on SIM_PHYSX."""
    refuse_physx(sim, what)
    sim.ensure_ready(what)
    return sim.deformables


def materials_of(actor: Actor) -> list[SoftMaterial]:
    """The actor's soft materials, one per soft body (the asset's until set)."""
    mats = actor.__dict__.get("soft_materials")
    if mats is None:
        mats = actor.soft_materials = [copy.deepcopy(sb.material) for sb in actor.asset.soft_bodies]
    return mats


def set_actor_materials(actor: Actor, materials: Sequence[SoftMaterial],
                        what: str = "set_actor_soft_materials") -> bool:
    """Set the actor's soft materials (one per soft body; a cloth's cannot change); returns True."""
    mats = materials_of(actor)
    if not isinstance(materials, (list, tuple)):
        raise GymlikeTypeError(f"{what}: expected a list of gymapi.SoftMaterial, got {type(materials).__name__}")
    if len(materials) != len(mats):
        raise GymlikeValueError(f"{what}: actor '{actor.name}' has {len(mats)} soft bodies, "
                                f"got {len(materials)} materials")
    checked = []
    for i, (sb, m) in enumerate(zip(actor.asset.soft_bodies, materials)):
        if len(sb.tets):
            checked.append(copy.deepcopy(check_material(m, f"{what}: materials[{i}]")))
            continue
        if not isinstance(m, SoftMaterial):
            raise GymlikeTypeError(f"{what}: materials[{i}]: expected a gymapi.SoftMaterial, got {type(m).__name__}")
        if (m.youngs, m.poissons, m.damping) != (mats[i].youngs, mats[i].poissons, mats[i].damping):
            raise GymlikeValueError(f"{what}: soft body {i} of actor '{actor.name}' is a cloth (no tetrahedra, "
                                    "Newton's membrane stiffness); its material cannot change")
        checked.append(copy.deepcopy(mats[i]))
    actor.soft_materials = checked
    sim = actor.env.sim
    if sim.model is not None:
        sim.deformables.write_materials(actor)
    return True


def on_model(sim: Sim, actors: list[Actor], particle0: Sequence[int]) -> None:
    """After finalize: the tables, and the materials set before it."""
    d = Deformables(sim, actors, particle0)
    sim.attach(deformables=d)
    for a in actors:
        if a.asset.soft_bodies and "soft_materials" in a.__dict__:
            d.write_materials(a)


def make_solver(sim: Sim) -> newton.solvers.SolverVBD:
    """SolverVBD for a SIM_FLEX model with particles (rigid bodies included, coupled)."""
    newton = _newton()
    fp = sim.params.flex
    iterations = max(4, int(fp.num_outer_iterations) * 2)
    sim.model.soft_contact_ke = SOFT_CONTACT_KE
    return newton.solvers.SolverVBD(sim.model, iterations=iterations)
