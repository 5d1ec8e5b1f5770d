"""Quaternions and rigid transforms on the host, in numpy: the one place gymlike writes them.

Conventions (Isaac Gym's and Newton's): quaternions are (x, y, z, w), scalar last; a rotation
matrix's columns are the rotated x, y, z axes (v' = R @ v); a transform (p, q) maps a point v
to p + rotate(q, v). Every function takes array-likes with the components on the last axis,
broadcasts over the leading axes and returns float64 arrays. Angles are in radians.

The torch side is `gymlike.torch_utils` (Isaac Gym's public names, TorchScript-compiled so
task code can call them from its own scripted functions); tests/values/test_math3d.py checks both
against scipy's rotations. Device code uses Warp's built-ins (wp.quat_rotate, ...)."""

from __future__ import annotations

import numpy as np

# (annotations name np.typing.ArrayLike: math3d imports numpy alone, tests/values/test_math3d.py)
IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


def _f64(a) -> np.ndarray:
    return np.asarray(a, np.float64)


def _parts(a, n: int):
    a = _f64(a)
    return tuple(a[..., i] for i in range(n))


# ----------------------------------------------------------------------------- on components
def quat_mul_c(ax: np.typing.ArrayLike, ay: np.typing.ArrayLike, az: np.typing.ArrayLike,
               aw: np.typing.ArrayLike, bx: np.typing.ArrayLike, by: np.typing.ArrayLike,
               bz: np.typing.ArrayLike, bw: np.typing.ArrayLike) -> tuple:
    """Hamilton product a * b on components (floats or arrays): the rotation b, then a."""
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quat_rotate_c(x: np.typing.ArrayLike, y: np.typing.ArrayLike, z: np.typing.ArrayLike,
                  w: np.typing.ArrayLike, vx: np.typing.ArrayLike, vy: np.typing.ArrayLike,
                  vz: np.typing.ArrayLike) -> tuple:
    """Vector (vx, vy, vz) rotated by the unit quaternion (x, y, z, w), on components:
    v' = v + w t + u x t with u = (x, y, z), t = 2 u x v."""
    tx, ty, tz = 2.0 * (y * vz - z * vy), 2.0 * (z * vx - x * vz), 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


# ----------------------------------------------------------------------------- on arrays
def quat_mul(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> np.ndarray:
    """Hamilton product a * b (..., 4): the rotation b, then a."""
    return np.stack(quat_mul_c(*_parts(a, 4), *_parts(b, 4)), -1)


def quat_conjugate(q: np.typing.ArrayLike) -> np.ndarray:
    """(-x, -y, -z, w): the inverse of a unit quaternion."""
    q = _f64(q).copy()
    q[..., :3] *= -1.0
    return q


def quat_inverse(q: np.typing.ArrayLike) -> np.ndarray:
    """Inverse of any non-zero quaternion: conjugate / |q|^2."""
    q = _f64(q)
    return quat_conjugate(q) / np.sum(q * q, -1, keepdims=True)


def quat_normalize(q: np.typing.ArrayLike, eps: float = 1e-12) -> np.ndarray:
    """q / |q| (norms below eps are clamped to eps)."""
    q = _f64(q)
    return q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), eps)


def quat_rotate(q: np.typing.ArrayLike, v: np.typing.ArrayLike) -> np.ndarray:
    """Rotate vectors v (..., 3) by unit quaternions q (..., 4)."""
    return np.stack(quat_rotate_c(*_parts(q, 4), *_parts(v, 3)), -1)


def quat_rotate_inverse(q: np.typing.ArrayLike, v: np.typing.ArrayLike) -> np.ndarray:
    """Rotate vectors v (..., 3) by the inverse of unit quaternions q (..., 4)."""
    return quat_rotate(quat_conjugate(q), v)


def quat_from_axis_angle(axis: np.typing.ArrayLike, angle: np.typing.ArrayLike) -> np.ndarray:
    """Rotation by `angle` (...,) about `axis` (..., 3; need not be unit; a zero axis gives
    (0, 0, 0, cos(angle / 2)))."""
    axis, angle = _f64(axis), _f64(angle)
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = np.divide(axis, n, out=np.zeros(np.broadcast_shapes(axis.shape, n.shape)), where=n > 0)
    half = 0.5 * angle[..., None]
    return np.concatenate([unit * np.sin(half), np.cos(half)], -1)


def quat_to_matrix(q: np.typing.ArrayLike) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4); columns are the rotated axes."""
    x, y, z, w = _parts(q, 4)
    rows = [[1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
            [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
            [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)]]
    return np.stack([np.stack(r, -1) for r in rows], -2)


def quat_from_matrix(m: np.typing.ArrayLike) -> np.ndarray:
    """Unit quaternion (4,) of one rotation matrix (3, 3) whose columns are the rotated axes
    (the largest of w, x, y, z is computed from the diagonal, the others from it: accurate for
    every rotation, half turns included)."""
    m = _f64(m)
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = np.sqrt(t + 1.0) * 2.0
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2.0
        q = (0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2.0
        q = ((m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2.0
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s)
    return quat_normalize(np.array(q))


def quat_between(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> np.ndarray:
    """The shortest-arc unit quaternion (4,) turning direction a (3,) onto direction b (3,)."""
    a = _f64(a) / max(np.linalg.norm(a), 1e-12)
    b = _f64(b) / max(np.linalg.norm(b), 1e-12)
    d = float(np.dot(a, b))
    if d < -1.0 + 1e-9:                      # opposite: half turn about any perpendicular axis
        axis = np.cross(a, [0.0, 1.0, 0.0]) if abs(a[1]) < 0.9 else np.cross(a, [0.0, 0.0, 1.0])
        return np.array([*(axis / np.linalg.norm(axis)), 0.0])
    return quat_normalize(np.array([*np.cross(a, b), 1.0 + d]))


def quat_look_along(forward: np.typing.ArrayLike, up: np.typing.ArrayLike) -> np.ndarray:
    """Unit quaternion (4,) of the frame whose +x is `forward` (3,) and whose +z is as close to
    `up` (3,) as that allows (+y = up x forward: left of a camera looking along +x); looking
    straight along `up`, the frame's y is taken from up's axes rolled by one."""
    up = _f64(up)
    x = _f64(forward)
    x = x / max(np.linalg.norm(x), 1e-12)
    y = np.cross(up, x)
    if np.linalg.norm(y) < 1e-9:
        y = np.cross(np.roll(up, 1), x)
    y = y / np.linalg.norm(y)
    return quat_from_matrix(np.stack([x, y, np.cross(x, y)], axis=1))


def quat_from_euler_zyx(roll: np.typing.ArrayLike, pitch: np.typing.ArrayLike,
                        yaw: np.typing.ArrayLike) -> np.ndarray:
    """Rotation about the fixed x axis by `roll`, then fixed y by `pitch`, then fixed z by `yaw`
    (q = qz(yaw) qy(pitch) qx(roll)); arrays broadcast."""
    r, p, y = (0.5 * _f64(a) for a in (roll, pitch, yaw))
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.stack([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy], -1)


def quat_to_euler_zyx(q: np.typing.ArrayLike) -> np.ndarray:
    """(roll, pitch, yaw) (..., 3) of unit quaternions, inverse of quat_from_euler_zyx: roll and
    yaw in [-pi, pi], pitch in [-pi/2, pi/2] (+-pi/2 at gimbal lock)."""
    x, y, z, w = _parts(q, 4)
    roll = np.arctan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return np.stack([roll, pitch, yaw], -1)


def transform_point(p: np.typing.ArrayLike, q: np.typing.ArrayLike, v: np.typing.ArrayLike) -> np.ndarray:
    """Points v (..., 3) mapped by the transforms (p (..., 3), q (..., 4)): p + q v."""
    return _f64(p) + quat_rotate(q, v)


def transform_mul(p1: np.typing.ArrayLike, q1: np.typing.ArrayLike, p2: np.typing.ArrayLike,
                  q2: np.typing.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) of the composition (p1, q1) * (p2, q2): apply (p2, q2), then (p1, q1)."""
    return transform_point(p1, q1, p2), quat_mul(q1, q2)


def transform_inverse(p: np.typing.ArrayLike, q: np.typing.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) of the inverse of the rigid transforms (p, q) (q unit)."""
    qi = quat_conjugate(q)
    return -quat_rotate(qi, p), qi
