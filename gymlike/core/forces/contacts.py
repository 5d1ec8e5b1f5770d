"""Contact forces and force sensors, from the solver's per-contact forces (`contact_f`).

Definitions (documented in python_bindings_docs/tensor_api.md):

* **Net contact force** of a body: the sum of the contact forces acting on it, world frame, N.
  It is the force of the contacts of the *last substep* of the last `simulate` call (the
  solvers report the contact impulses of one step; gymlike does not average over substeps).
  A box of mass m resting on the ground reads (0, 0, m g); in free fall it reads zero.
* **Force sensor** (`create_asset_force_sensor`): the contact wrench received by the sensor's
  body and by every body below it in its actor's kinematic tree (a foot: its ground reaction;
  a wrist: what the gripper touches), force and torque about the sensor origin, in the sensor
  frame (or world axes with `use_world_frame`). Gravity, inertia and the actor's own joint
  forces are not part of the reading: a sensor on a resting body reads its support force.
  Isaac Gym documents its PhysX sensors as the body's *net* force (zero at rest); that
  quantity is `m a`, which the rigid body state tensor already gives.

Contact capture costs solver work (MuJoCo exports its contacts, the observable kernels run),
so it is switched on the first time one of these is acquired or read (core/observables.py);
readings cover the simulate calls from then on.

Every refresh is a fixed number of kernel launches over all contacts / bodies / sensors."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import warp as wp

from .. import math3d
from . import observables as OBS
from ..launch import Launcher
from ..enums import SimType
from ..errors import GymlikeIndexError, GymlikeRuntimeError, GymlikeTypeError, GymlikeValueError
from ..types import (ForceSensorProperties, RIGID_CONTACT_DTYPE, SpatialForce, Transform, Vec3, as_int, coerce,
                    require_finite)
from ..errors import warn
from ..runtime import call_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..assets.record import Asset
    from ..sim import Actor, Env, Sim
    from ..gym_tensor import GymTensor


# ============================================================================ kernels
@wp.kernel
def _accumulate_contacts(count: wp.array(dtype=wp.int32), shape0: wp.array(dtype=wp.int32),
                         shape1: wp.array(dtype=wp.int32), point0: wp.array(dtype=wp.vec3),
                         point1: wp.array(dtype=wp.vec3), offset0: wp.array(dtype=wp.vec3),
                         offset1: wp.array(dtype=wp.vec3), contact_f: wp.array(dtype=wp.spatial_vector),
                         shape_body: wp.array(dtype=wp.int32), body_q: wp.array(dtype=wp.transform),
                         body_com: wp.array(dtype=wp.vec3),
                         force: wp.array(dtype=wp.vec3), torque: wp.array(dtype=wp.vec3)):
    """Per body: sum of contact forces and of their moments about the body's COM (world frame).
    contact_f row i is the force on shape0's body by shape1 (Newton's convention); only its
    linear part is used (the solvers disagree on the reference point of the torque part)."""
    i = wp.tid()
    if i >= count[0]:
        return
    f = wp.spatial_top(contact_f[i])
    b0 = shape_body[shape0[i]]
    b1 = shape_body[shape1[i]]
    if b0 >= 0:
        X = body_q[b0]
        p = wp.transform_point(X, point0[i] + offset0[i])
        wp.atomic_add(force, b0, f)
        wp.atomic_add(torque, b0, wp.cross(p - wp.transform_point(X, body_com[b0]), f))
    if b1 >= 0:
        X = body_q[b1]
        p = wp.transform_point(X, point1[i] + offset1[i])
        wp.atomic_add(force, b1, -f)
        wp.atomic_add(torque, b1, wp.cross(p - wp.transform_point(X, body_com[b1]), -f))


@wp.kernel
def _sensor_wrenches(force: wp.array(dtype=wp.vec3), torque: wp.array(dtype=wp.vec3),
                     body_q: wp.array(dtype=wp.transform), body_com: wp.array(dtype=wp.vec3),
                     sensor_body: wp.array(dtype=wp.int32), sensor_pose: wp.array(dtype=wp.transform),
                     sensor_flags: wp.array(dtype=wp.int32), tree_start: wp.array(dtype=wp.int32),
                     tree_bodies: wp.array(dtype=wp.int32), out: wp.array2d(dtype=wp.float32)):
    """flags: bit 0 world frame, bit 1 contact (constraint solver) forces enabled."""
    s = wp.tid()
    Xs = body_q[sensor_body[s]] * sensor_pose[s]
    ps = wp.transform_get_translation(Xs)
    F = wp.vec3(0.0)
    M = wp.vec3(0.0)
    flags = sensor_flags[s]
    if (flags & 2) != 0:
        for k in range(tree_start[s], tree_start[s + 1]):
            b = tree_bodies[k]
            fb = force[b]
            com = wp.transform_point(body_q[b], body_com[b])
            F = F + fb
            M = M + torque[b] + wp.cross(com - ps, fb)
    if (flags & 1) == 0:
        r = wp.transform_get_rotation(Xs)
        F = wp.quat_rotate_inv(r, F)
        M = wp.quat_rotate_inv(r, M)
    for k in range(3):
        out[s, k] = F[k]
        out[s, 3 + k] = M[k]


# ============================================================================ per-sim contact data
class ContactForces:
    """Per-body contact force/torque accumulation of the last simulate (device arrays)."""

    def __init__(self, sim, what):
        self.sim = sim
        self.observed = OBS.require(sim, {OBS.CONTACT_F}, what)
        n = max(1, sim.host.num_bodies)
        self.force = wp.zeros(n, dtype=wp.vec3, device=sim.device)
        self.torque = wp.zeros(n, dtype=wp.vec3, device=sim.device)
        # on MuJoCo C, the poses of the bodies in the substep the forces act in (`posed`: pose
        # holds them for the bodies update was given; else the force sensors read Newton's state)
        self.pose = wp.zeros(n, dtype=wp.transform, device=sim.device)
        self.posed = False
        self._stamp = self._part_stamp = None
        self._ids = {}                  # Warp int32 copies of the body lists update is given (C step)

    def update(self, bodies: np.ndarray | None = None) -> None:
        """Accumulate the contact forces and torques of the last step (once per simulate).
        `bodies` (sorted Newton body indices): on MuJoCo C only those are needed (force
        sensors' subtrees: an eighth of a humanoid's bodies); the others may be left stale."""
        o = self.observed
        stamp = (id(o.obs), o.steps, self.sim.frame)
        if stamp == self._stamp:
            return
        self.posed = False
        if o.c is not None:               # MuJoCo C: per-body contact wrenches of the last step
            if o.steps == 0:
                self.force.zero_()
                self.torque.zero_()
                self._stamp = stamp
                return
            part = bodies is not None
            self.posed = True
            if part and self._part_stamp == (stamp, id(bodies)):
                return
            key = id(bodies) if part else None
            ids = self._ids.get(key)
            if ids is None or (part and ids[0] is not bodies):
                listed = bodies if part else np.arange(self.sim.host.num_bodies)
                ids = self._ids[key] = (bodies, wp.array(np.asarray(listed, np.int32), dtype=wp.int32,
                                                         device=self.sim.device))
            if ids[1].shape[0]:
                o.c.write_contact_wrenches(self.force, self.torque, self.pose, ids[1])
            if part:
                self._part_stamp = (stamp, id(bodies))
            else:
                self._stamp = stamp
            return
        self._stamp = stamp
        self.force.zero_()
        self.torque.zero_()
        if o.steps == 0:
            return
        c, m = o.contacts, self.sim.model
        if c.rigid_contact_max == 0:
            return
        wp.launch(_accumulate_contacts, dim=c.rigid_contact_max, device=self.sim.device,
                  inputs=[c.rigid_contact_count, c.rigid_contact_shape0, c.rigid_contact_shape1,
                          c.rigid_contact_point0, c.rigid_contact_point1, c.rigid_contact_offset0,
                          c.rigid_contact_offset1, o.obs.contact_f, m.shape_body, self.sim.state.body_q,
                          m.body_com, self.force, self.torque])


def contact_forces(sim: Sim, what: str) -> ContactForces:
    """The sim's ContactForces accumulator (made, with contact-force capture, on first use)."""
    return sim.component("contact_forces", lambda: ContactForces(sim, what))


def _announce(sim, what):
    """Handle-API readers switch contact capture on at their first call: say so once."""
    if sim.contact_forces is None:
        warn(f"gymlike: {what} switched contact-force capture on; readings start with the "
             "next simulate call (acquire_net_contact_force_tensor before the loop avoids this)",
             RuntimeWarning)


# ============================================================================ tensor API
def refresh_net_contact_forces(sim: Sim, buf: GymTensor) -> None:
    """Copy the net contact force (N) on every body, of the last simulate, into `buf` (bodies, 3) float32."""
    cf = contact_forces(sim, "refresh_net_contact_force_tensor")
    cf.update()
    if sim.host.num_bodies:
        wp.copy(wp.from_torch(buf._torch, dtype=wp.vec3), cf.force, count=sim.host.num_bodies)


# ============================================================================ handle API
def body_forces_host(sim: Sim, what: str) -> np.ndarray:
    """(num_bodies, 3) float32 net contact forces of the last simulate (numpy)."""
    sim.ensure_ready(what)
    _announce(sim, what)
    cf = contact_forces(sim, what)
    cf.update()
    return cf.force.numpy()[: sim.host.num_bodies].astype(np.float32)


def _as_vec3(a):
    out = np.zeros(len(a), Vec3.dtype)
    out.view(np.float32).reshape(-1, 3)[:] = a
    return out


def env_contact_forces(env: Env, what: str | None = None) -> np.ndarray:
    """Net contact forces (N) on the env's bodies: (bodies,) array of Vec3.dtype."""
    what = what or call_name()
    sim = env.sim
    f = body_forces_host(sim, what)
    b0 = sim.env_start(env, "body")
    return _as_vec3(f[b0:b0 + env.body_count])


def sim_contact_forces(sim: Sim, what: str | None = None) -> np.ndarray:
    """Net contact forces (N) on every body of the sim: (bodies,) array of Vec3.dtype."""
    what = what or call_name()
    return _as_vec3(body_forces_host(sim, what))


def vec_env_contact_forces(envs: Sequence[Env], what: str | None = None) -> np.ndarray:
    """Net contact forces (N) on the bodies of `envs`, concatenated: (bodies,) array of Vec3.dtype."""
    what = what or call_name()
    if not envs:
        return np.zeros(0, Vec3.dtype)
    sim = envs[0].sim
    f = body_forces_host(sim, what)
    rows = [f[sim.env_start(e, "body"):sim.env_start(e, "body") + e.body_count] for e in envs]
    return _as_vec3(np.concatenate(rows))


def rigid_contacts(sim: Sim, env: Env | None, what: str | None = None) -> np.ndarray:
    """Isaac Gym RigidContact records of the last simulate's contacts (all envs, or one env).
    body0/body1 are env-domain body indices, body0 the body of the larger sim index (-1, the
    ground and other static shapes, is always body1),
    env0/env1 the envs (-1 for static shapes); localPos0/1 the contact points in the bodies'
    frames (world frame for static shapes); normal Newton's contact normal (from body0 to
    body1); lambda the normal force magnitude, lambdaFriction its tangential components along
    two axes orthogonal to the normal; minDist the signed separation (negative: penetration)."""
    what = what or call_name()
    sim.ensure_ready(what)
    _announce(sim, what)
    cf = contact_forces(sim, what)
    o = cf.observed
    out_empty = np.zeros(0, RIGID_CONTACT_DTYPE)
    if o.steps == 0:
        return out_empty
    m, h = sim.model, sim.host
    body_q = sim.state.body_q.numpy().astype(np.float64)
    if o.c is not None:
        # (a one world holds every env: its contacts are kept per env below)
        worlds = [0] if sim.one_world else range(len(sim.envs)) if env is None else [env.index]
        rows = _contacts_c(o.c, m, body_q, worlds)
    else:
        rows = _contacts_newton(o, m)
    if rows is None:
        return out_empty
    s0, s1, p0, p1, off0, off1, nrm, f = rows
    n = len(s0)
    shape_body = m.shape_body.numpy()
    # Isaac Gym's pair order (undocumented; code trained on it relies on it): body0 is the body
    # of the larger index, so the ground and other static shapes (-1) are always body1 (hora's
    # grasp generator counts contacts (object 17, fingertip 4/8/12/16) of a hand created before
    # the object; contact-drawing code takes body1 == -1 for the ground). MuJoCo and Newton
    # order a pair by geom type and index: swapped where needed, the normal and force with it.
    swap = shape_body[s0] < shape_body[s1]
    if swap.any():
        def sw(a, b):
            w = swap.reshape(-1, *([1] * (a.ndim - 1)))
            return np.where(w, b, a), np.where(w, a, b)
        s0, s1 = sw(s0, s1)
        p0, p1 = sw(p0, p1)
        off0, off1 = sw(off0, off1)
        nrm = np.where(swap[:, None], -nrm, nrm)         # (from the new body0 to the new body1)
        f = np.where(swap[:, None], -f, f)               # (the force on the new body0)
    b0, b1 = shape_body[s0], shape_body[s1]
    world = h.body_env                       # env of each body (one world may hold every env)
    w0 = np.where(b0 >= 0, world[np.maximum(b0, 0)], -1)
    w1 = np.where(b1 >= 0, world[np.maximum(b1, 0)], -1)
    if env is not None:
        keep = (w0 == env.index) | (w1 == env.index)
        if not keep.any():
            return out_empty
    else:
        keep = np.ones(n, bool)
    env_body0 = np.array([sim.env_start(e, "body") for e in sim.envs], np.int64)
    p0, p1 = p0 + off0, p1 + off1

    def world_point(b, p):
        out = p.astype(np.float64).copy()
        dyn = b >= 0
        if dyn.any():
            q = body_q[b[dyn]]
            out[dyn] = q[:, 0:3] + math3d.quat_rotate(q[:, 3:7], out[dyn])
        return out

    pw0, pw1 = world_point(b0, p0), world_point(b1, p1)
    lam = -np.einsum("ij,ij->i", f, nrm)                 # f acts on body0; the normal points to body1
    t1, t2 = _tangents(nrm)
    mu = m.shape_material_mu.numpy()
    mt = m.shape_material_mu_torsional.numpy()
    mr = m.shape_material_mu_rolling.numpy()
    comb = (np.maximum if sim.type == SimType.SIM_PHYSX else (lambda a, b: 0.5 * (a + b)))
    out = np.zeros(n, RIGID_CONTACT_DTYPE)
    out["env0"], out["env1"] = w0, w1
    out["body0"] = np.where(b0 >= 0, b0 - env_body0[np.maximum(w0, 0)], -1)
    out["body1"] = np.where(b1 >= 0, b1 - env_body0[np.maximum(w1, 0)], -1)
    for name, arr in (("localPos0", p0), ("localPos1", p1), ("normal", nrm), ("offset0", off0), ("offset1", off1)):
        for k, axis in enumerate("xyz"):
            out[name][axis] = arr[:, k]
    out["minDist"] = np.einsum("ij,ij->i", pw1 - pw0, nrm)
    out["lambda"] = lam
    out["lambdaFriction"]["x"] = np.einsum("ij,ij->i", f, t1)
    out["lambdaFriction"]["y"] = np.einsum("ij,ij->i", f, t2)
    out["friction"] = comb(mu[s0], mu[s1])
    out["torsionFriction"] = comb(mt[s0], mt[s1])
    out["rollingFriction"] = comb(mr[s0], mr[s1])
    return out[keep]


def _contacts_newton(o, m):
    """(shape0, shape1, point0, point1 (body frames), offset0, offset1, normal, force on
    shape0's body) of the contacts a MuJoCo-Warp / XPBD step reported, or None."""
    c = o.contacts
    n = min(int(c.rigid_contact_count.numpy()[0]), c.rigid_contact_max)
    if n == 0:
        return None
    return (c.rigid_contact_shape0.numpy()[:n], c.rigid_contact_shape1.numpy()[:n],
            c.rigid_contact_point0.numpy()[:n], c.rigid_contact_point1.numpy()[:n],
            c.rigid_contact_offset0.numpy()[:n], c.rigid_contact_offset1.numpy()[:n],
            c.rigid_contact_normal.numpy()[:n].astype(np.float64), o.obs.contact_f.numpy()[:n, 0:3].astype(np.float64))


def _contacts_c(cs, m, body_q, worlds):
    """The same from MuJoCo C: the contacts of `worlds` at their current state (SolverMuJoCoC.
    contacts_now). MuJoCo's contact normal points from its first geom to its second, its force
    (contact frame) acts on the second: Newton's shape0 is MuJoCo's first geom."""
    found = cs.contacts_now(worlds)
    if not found:
        return None
    g2s = cs.mjc_geom_to_newton_shape.numpy()
    shape_body = m.shape_body.numpy()
    s0 = np.array([g2s[w, g[0]] for w, g, *_ in found], np.int64)
    s1 = np.array([g2s[w, g[1]] for w, g, *_ in found], np.int64)
    pos = np.array([c[2] for c in found])
    frame = np.array([c[3] for c in found])
    dist = np.array([c[4] for c in found])
    nrm = frame[:, 0]
    f = -np.einsum("ni,nij->nj", np.array([c[5][0:3] for c in found]), frame)    # on the first geom
    pw0, pw1 = pos - 0.5 * dist[:, None] * nrm, pos + 0.5 * dist[:, None] * nrm

    def local(s, pw):
        b = shape_body[s]
        out = pw.copy()
        dyn = b >= 0
        if dyn.any():
            q = body_q[b[dyn]]
            out[dyn] = math3d.quat_rotate_inverse(q[:, 3:7], pw[dyn] - q[:, 0:3])
        return out
    zero = np.zeros_like(pos)
    return s0, s1, local(s0, pw0), local(s1, pw1), zero, zero, nrm, f


def _tangents(n):
    a = np.where(np.abs(n[:, 0:1]) < 0.9, np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
    t1 = np.cross(n, a)
    t1 /= np.maximum(np.linalg.norm(t1, axis=1, keepdims=True), 1e-12)
    return t1, np.cross(n, t1)


# ============================================================================ force sensors
class _SensorDef:
    __slots__ = ("body", "pose", "props", "excluded")

    def __init__(self, body, pose, props, excluded):
        self.body, self.pose, self.props, self.excluded = body, pose, props, excluded


def create_asset_force_sensor(asset: Asset, body_idx: int, local_pose: Transform | None,
                              props: ForceSensorProperties | None, what: str = "create_asset_force_sensor") -> int:
    """Define a sensor on an asset (every actor created from the asset afterwards gets it);
    returns its index within the asset."""
    sim = asset.sim
    sim.check_alive()
    if as_int(body_idx) is None:
        raise GymlikeTypeError(f"{what}: body_idx must be an int, got {type(body_idx).__name__}")
    body_idx = as_int(body_idx)
    if not 0 <= body_idx < asset.body_count:
        raise GymlikeIndexError(f"{what}: body_idx {body_idx} out of range [0, {asset.body_count}) "
                                f"for asset {asset.name}")
    if local_pose is None:
        local_pose = Transform()
    local_pose = require_finite(coerce(Transform, local_pose, f"{what}: local_pose"), f"{what}: local_pose")
    if props is None:
        props = ForceSensorProperties()
    if not isinstance(props, ForceSensorProperties):
        raise GymlikeTypeError(f"{what}: props must be gymapi.ForceSensorProperties, got {type(props).__name__}")
    if sim.finalized:
        raise GymlikeRuntimeError(f"{what}: the sim is already finalized (prepare_sim, simulate or a "
                                  "tensor acquire happened); create force sensors before that")
    r = local_pose.r
    qn = float(np.linalg.norm([r.x, r.y, r.z, r.w]))
    if not np.isfinite(qn) or qn < 1e-6:
        raise GymlikeValueError(f"{what}: local_pose.r is not a valid rotation: {r}")
    excluded = frozenset(id(a) for a in sim.all_actors() if a.asset is asset)  # created before the sensor
    sensors = asset.__dict__.setdefault("force_sensors", [])
    sensors.append(_SensorDef(int(body_idx), Transform(local_pose.p, local_pose.r), props.copy(), excluded))
    return len(sensors) - 1


def actor_sensors(actor: Actor) -> list:
    """The asset sensors this actor carries (in asset order)."""
    return [s for s in actor.asset.__dict__.get("force_sensors", []) if id(actor) not in s.excluded]


class ForceSensors:
    """Sensor tables (one row per sensor, ordered by actor then asset sensor index)."""

    def __init__(self, sim):
        self.sim = sim
        h, m = sim.host, sim.model
        joint_parent = m.joint_parent.numpy()
        joint_child = m.joint_child.numpy()
        body_rows, poses, flags, starts, tree = [], [], [], [0], []
        self.actor_first = np.zeros(h.num_actors, np.int64)
        self.actor_count = np.zeros(h.num_actors, np.int64)
        for ai, actor in enumerate(sim.all_actors()):
            defs = actor_sensors(actor)
            self.actor_first[ai], self.actor_count[ai] = len(body_rows), len(defs)
            if not defs:
                continue
            b0, nb = int(h.actor_body0[ai]), int(h.actor_nbody[ai])
            j0, nj = int(h.actor_joint0[ai]), actor.asset.newton_joint_count
            children = {}
            for j in range(j0, j0 + nj):
                p = int(joint_parent[j])
                if p >= 0:
                    children.setdefault(p, []).append(int(joint_child[j]))
            for s in defs:
                b = b0 + s.body
                sub, stack = [], [b]
                while stack:
                    x = stack.pop()
                    if b0 <= x < b0 + nb:
                        sub.append(x)
                        stack.extend(children.get(x, []))
                body_rows.append(b)
                p, r = s.pose.p, s.pose.r
                qn = np.linalg.norm([r.x, r.y, r.z, r.w])
                poses.append([p.x, p.y, p.z, r.x / qn, r.y / qn, r.z / qn, r.w / qn])
                flags.append(int(bool(s.props.use_world_frame))
                             | (2 * int(bool(s.props.enable_constraint_solver_forces))))
                tree.extend(sorted(sub))
                starts.append(len(tree))
        self.count = len(body_rows)
        dev = sim.device
        i32 = lambda a: wp.array(np.asarray(a, np.int32).reshape(-1), dtype=wp.int32, device=dev)  # noqa: E731
        self.body = i32(body_rows or [0])
        self.pose = wp.array(np.asarray(poses or [[0, 0, 0, 0, 0, 0, 1]], np.float32), dtype=wp.transform, device=dev)
        self.flags = i32(flags or [0])
        self.tree_start = i32(starts)
        self.tree = i32(tree or [0])
        self.tree_bodies = np.unique(np.asarray(tree, np.int64))    # (the bodies whose contacts they sum)
        self._stamp = None
        self._out = None
        self.launch = Launcher(dev)       # (one recorded launch per state, re-launched every refresh)

    def refresh(self, out: wp.array) -> None:
        """Fill out (num_sensors, 6) (a Warp float32 2-D array)."""
        if self.count == 0:
            return
        cf = contact_forces(self.sim, "refresh_force_sensor_tensor")
        cf.update(bodies=self.tree_bodies)
        # (on MuJoCo C the bodies' poses where the forces acted, with no Newton conversion)
        body_q = cf.pose if cf.posed else self.sim.state.body_q
        self.launch(("sensors", id(body_q)), _sensor_wrenches, self.count,
                    (cf.force, cf.torque, body_q, self.sim.model.body_com, self.body, self.pose, self.flags,
                     self.tree_start, self.tree, out))


def sensors(sim: Sim) -> ForceSensors:
    """The sim's ForceSensors (made on first use)."""
    return sim.component("force_sensors", lambda: ForceSensors(sim))


def sim_force_sensor_count(sim: Sim) -> int:
    """Number of force sensors in the sim (all actors')."""
    if sim.finalized:
        return sensors(sim).count
    return sum(len(actor_sensors(a)) for a in sim.all_actors())


class ForceSensor:
    """Isaac Gym's ForceSensor: one sensor of one actor."""

    def __init__(self, sim, index):
        self._sim = sim
        self._index = index

    def get_global_index(self) -> int:
        """The sensor's index in the sim's force sensor tensor."""
        return self._index

    def get_forces(self) -> SpatialForce:
        """The sensor's latest reading (refreshes every sensor of the sim: one kernel launch)."""
        sim = self._sim
        sim.ensure_ready("ForceSensor.get_forces")
        _announce(sim, "ForceSensor.get_forces")
        fs = sensors(sim)
        if fs._out is None:
            fs._out = wp.zeros((max(1, fs.count), 6), dtype=wp.float32, device=sim.device)
        fs.refresh(fs._out)
        row = fs._out[self._index:self._index + 1].numpy()[0].astype(np.float64)
        return SpatialForce(force=Vec3(*row[0:3]), torque=Vec3(*row[3:6]))

    def __repr__(self):
        return f"<gymlike ForceSensor {self._index} of sim {self._sim.id}>"


def actor_force_sensor(actor: Actor, index: int, what: str | None = None) -> ForceSensor:
    """The actor's force sensor `index` (its order on the actor), checked."""
    what = what or call_name()
    sim = actor.env.sim
    n = len(actor_sensors(actor))
    if as_int(index) is None:
        raise GymlikeTypeError(f"{what}: sensor index must be an int, got {type(index).__name__}")
    index = as_int(index)
    if not 0 <= index < n:
        raise GymlikeIndexError(f"{what}: force sensor index {index} out of range [0, {n}) for actor "
                                f"'{actor.name}'")
    # global index: sensors of every actor before this one (sim order), then this one's index
    first = 0
    for a in sim.all_actors():
        if a is actor:
            break
        first += len(actor_sensors(a))
    return ForceSensor(sim, first + int(index))
