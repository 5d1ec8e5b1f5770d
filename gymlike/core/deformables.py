"""FleX's deformables on Newton: soft bodies (tetrahedral meshes with a soft material), cloth
grids and their particles, in SIM_FLEX sims.

Where they come from: URDF links with a `<fem>` element (a `.tet` file of `v x y z` and
`t i j k l` lines, density, Young's modulus, Poisson ratio, damping), `create_tet_grid` and
`create_cloth_grid`, recorded and added to the asset's Newton sub-builder by assets/soft.py
(particles, tetrahedra, surface triangles, after its rigid part, so every actor of it carries a
copy in its env's world); this module serves them once the sim is built. A SIM_FLEX sim holding
particles steps on Newton's SolverVBD (implicit FEM with a stable Neo-Hookean material, rigid
bodies by AVBD, coupled through contacts) instead of SolverXPBD: XPBD's tetrahedral constraints
(tr(F^T F) - 3 and det F - 1) have no shear stiffness at small strain, so a cube under its own
weight sags about 8x what its Young's modulus predicts, where VBD comes within 40%
(tests/physics/test_deformables.py).

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
from typing import TYPE_CHECKING

import numpy as np

from .assets.soft import check_material, lame, refuse_physx
from .errors import GymlikeIndexError, GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError
from .runtime import deformable_kernels as _deformable_kernels, newton as _newton, wp as _wp
from .types import IndexRange, Mat33, SoftMaterial, Vec3

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import newton

    from .sim import Actor, Sim
    from .gym_tensor import GymTensor


PARTICLE_COLS = 7
SOFT_CONTACT_KE = 1e6       # N/m: particle contact stiffness (Newton's default, 1e3, lets a heavy soft body sink)


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
def of(sim: Sim, what: str) -> Deformables:
    """The sim's Deformables (after the build); an error on SIM_PHYSX."""
    refuse_physx(sim.type, what)
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
