"""Rigid body attractors: a spring-damper that pulls a point of a body (the `offset` frame) to a
target pose (given in the env frame, as Isaac Gym's examples use it), on the selected axes
(AXIS_X/Y/Z for translation, any rotation bit for rotation).
Isaac Gym drives a PhysX D6 joint to a kinematic target; here the same law
    F = k (x* - x) - d v,   tau = k rotvec(q* q^-1) - d w
is added to the body's external wrench every substep, one launch for all attractors. Like the
PhysX drive it is integrated implicitly (backward Euler on the attached point's effective mass
and the body's smallest principal inertia), so stiff, heavily damped attractors on light bodies stay stable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import warp as wp

from .enums import AXIS_ROTATION, AXIS_X, AXIS_Y, AXIS_Z
from .errors import GymlikeIndexError, GymlikeTypeError, GymlikeValueError
from .runtime import wp as _wp, call_name
from .types import AttractorProperties, Transform, coerce, number, require_finite

if TYPE_CHECKING:
    import newton

    from .sim import Env, Sim


@wp.func
def implicit_spring(e: wp.vec3, v: wp.vec3, k: float, d: float, m: float, h: float):
    """Force of k e - d v integrated by backward Euler on mass m: m (v' - v) / h with
    v' = (v + h k e / m) / (1 + h d / m + h^2 k / m)."""
    if m <= 0.0:
        return k * e - d * v
    v_next = (v + (h * k / m) * e) / (1.0 + h * d / m + h * h * k / m)
    return (m / h) * (v_next - v)


@wp.kernel
def attractor_wrenches(body: wp.array(dtype=wp.int32), target: wp.array(dtype=wp.transform),
                       offset: wp.array(dtype=wp.transform), axes: wp.array(dtype=wp.int32),
                       ke: wp.array(dtype=wp.float32), kd: wp.array(dtype=wp.float32),
                       body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                       body_com: wp.array(dtype=wp.vec3), body_mass: wp.array(dtype=wp.float32),
                       body_inertia: wp.array(dtype=wp.mat33), h: float,
                       body_f: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    b = body[i]
    X = body_q[b]
    v = body_qd[b]
    w = wp.spatial_bottom(v)
    com = wp.transform_point(X, body_com[b])
    Xo = wp.transform_multiply(X, offset[i])
    x = wp.transform_get_translation(Xo)
    T = target[i]
    m = axes[i]
    vx = wp.spatial_top(v) + wp.cross(w, x - com)          # velocity of the attached point
    e = wp.transform_get_translation(T) - x
    # the point's effective mass: a force off the COM also spins the body, so the point moves
    # as if lighter (1/m_eff = 1/m + r^2/I); integrating on m alone overshoots stiff attractors
    I = body_inertia[b]
    i_min = wp.min(I[0, 0], wp.min(I[1, 1], I[2, 2]))
    r = x - com
    m_eff = body_mass[b]
    if m_eff > 0.0 and i_min > 0.0:
        m_eff = 1.0 / (1.0 / m_eff + wp.dot(r, r) / i_min)
    f = implicit_spring(e, vx, ke[i], kd[i], m_eff, h)
    if (m & 1) == 0:
        f = wp.vec3(0.0, f[1], f[2])
    if (m & 2) == 0:
        f = wp.vec3(f[0], 0.0, f[2])
    if (m & 4) == 0:
        f = wp.vec3(f[0], f[1], 0.0)
    t = wp.cross(x - com, f)
    if (m & 56) != 0:
        qe = wp.transform_get_rotation(T) * wp.quat_inverse(wp.transform_get_rotation(Xo))
        if qe[3] < 0.0:
            qe = -qe
        u = wp.vec3(qe[0], qe[1], qe[2])
        s = wp.length(u)
        rotvec = 2.0 * u                                   # small-angle limit
        if s > 1.0e-8:
            rotvec = (2.0 * wp.atan2(s, qe[3]) / s) * u
        t = t + implicit_spring(rotvec, w, ke[i], kd[i], i_min, h)
    wp.atomic_add(body_f, b, wp.spatial_vector(f, t))


class Attractors:
    """The attractors of one sim (recorded per env before the model exists)."""

    def __init__(self, sim):
        self.sim = sim
        self.items = []           # [env, env-domain body handle, AttractorProperties]
        self.arrays = None

    def create(self, env: Env, props: AttractorProperties, what: str = "create_rigid_body_attractor") -> int:
        """Add an attractor in `env`; returns its handle (an index into the sim's attractors)."""
        self._check(env, props, what)
        self.items.append([env, int(props.rigid_handle), props.copy()])
        self.arrays = None
        return len(self.items) - 1

    def _check(self, env, props, what):
        if not isinstance(props, AttractorProperties):
            raise GymlikeTypeError(f"{what}: expected gymapi.AttractorProperties, got {type(props).__name__}")
        handle = props.rigid_handle
        if isinstance(handle, bool) or not isinstance(handle, (int, np.integer)):
            raise GymlikeTypeError(f"{what}: props.rigid_handle must be an int rigid body handle, "
                                   f"got {type(handle).__name__} {handle!r}")
        if not 0 <= handle < env.body_count:
            raise GymlikeIndexError(f"{what}: rigid_handle {handle} out of range: env {env.index} "
                                    f"has {env.body_count} bodies")
        for nm in ("target", "offset"):
            if not isinstance(getattr(props, nm), Transform):
                raise GymlikeTypeError(f"{what}: {nm} must be gymapi.Transform")
            require_finite(getattr(props, nm), f"{what}: props.{nm}")
        for nm in ("stiffness", "damping"):
            if not number(getattr(props, nm), f"{what}: props.{nm}") >= 0:
                raise GymlikeValueError(f"{what}: stiffness and damping must be >= 0, "
                                        f"got {props.stiffness}, {props.damping}")
        valid = AXIS_X | AXIS_Y | AXIS_Z | AXIS_ROTATION
        if number(props.axes, f"{what}: props.axes", integer=True) & ~valid:
            raise GymlikeValueError(f"{what}: axes {props.axes} has bits outside AXIS_ALL")

    def item(self, env: Env, handle: int, what: str | None = None) -> list:
        """The attractor `handle` of `env` as [env, body handle, AttractorProperties], checked."""
        what = what or call_name()
        if isinstance(handle, bool) or not isinstance(handle, (int, np.integer)) or not 0 <= handle < len(self.items):
            raise GymlikeIndexError(f"{what}: attractor handle {handle!r} out of range [0, {len(self.items)})")
        it = self.items[handle]
        if it[0] is not env:
            raise GymlikeValueError(f"{what}: attractor {handle} belongs to env {it[0].index}, not env {env.index}")
        return it

    def set_properties(self, env: Env, handle: int, props: AttractorProperties,
                       what: str = "set_attractor_properties") -> None:
        """Replace the properties (body, target, gains, axes) of attractor `handle`."""
        it = self.item(env, handle, what)
        self._check(env, props, what)
        it[1], it[2] = int(props.rigid_handle), props.copy()
        self.arrays = None

    def set_target(self, env: Env, handle: int, target: Transform,
                   what: str = "set_attractor_target") -> None:
        """Move the target pose (m, unit quaternion) of attractor `handle`."""
        it = self.item(env, handle, what)
        target = coerce(Transform, target, what)
        it[2].target = Transform(target.p, target.r)
        self.arrays = None

    def launch(self, state: newton.State, h: float) -> None:
        """Add every attractor's wrench to state.body_f (called each substep of length h)."""
        if not self.items:
            return
        wp_ = _wp()
        if self.arrays is None:
            self.arrays = self._upload(wp_)
        a = self.arrays
        wp_.launch(attractor_wrenches, dim=len(self.items), device=self.sim.device,
                   inputs=[a["body"], a["target"], a["offset"], a["axes"], a["ke"], a["kd"],
                           state.body_q, state.body_qd, self.sim.model.body_com, self.sim.model.body_mass,
                           self.sim.model.body_inertia, float(h), state.body_f])

    def _upload(self, wp_):
        sim, dev = self.sim, self.sim.device
        tr = lambda t: [t.p.x, t.p.y, t.p.z, t.r.x, t.r.y, t.r.z, t.r.w]  # noqa: E731
        body = [sim.env_start(env, "body") + h for env, h, _ in self.items]
        target = np.array([tr(p.target) for _, _, p in self.items], np.float32)
        target[:, 0:3] += np.array([env.origin for env, _, _ in self.items], np.float32)  # env frame -> world
        return dict(
            body=wp_.array(np.array(body, np.int32), dtype=wp_.int32, device=dev),
            target=wp_.array(target, dtype=wp_.transform, device=dev),
            offset=wp_.array(np.array([tr(p.offset) for _, _, p in self.items], np.float32), dtype=wp_.transform,
                             device=dev),
            axes=wp_.array(np.array([int(p.axes) for _, _, p in self.items], np.int32), dtype=wp_.int32, device=dev),
            ke=wp_.array(np.array([p.stiffness for _, _, p in self.items], np.float32), dtype=wp_.float32, device=dev),
            kd=wp_.array(np.array([p.damping for _, _, p in self.items], np.float32), dtype=wp_.float32, device=dev))


def of(sim: Sim) -> Attractors:
    """The sim's attractors (made on first use)."""
    return sim.component("attractors", lambda: Attractors(sim))
