"""Batched PyTorch math helpers: quaternions, rigid transforms, sampling, scaling.

This is gymlike's counterpart of ``isaacgym.torch_utils``; legacy task code does
``from isaacgym.torch_utils import *`` and expects the same names, argument order
and results. Conventions:

* quaternions are ``(x, y, z, w)`` -- scalar last;
* every function works on batches along the leading dimension(s), the
  quaternion / vector components being the last dimension;
* functions that Isaac Gym compiled with ``@torch.jit.script`` are scripted here
  too, so task code can call them from its own scripted functions.

Besides the Isaac Gym module's functions, this file also provides the helpers
that IsaacGymEnvs-era task code (AMP/ASE style) commonly expects next to them
(``quat_to_angle_axis``, ``exp_map_to_quat``, ``slerp``, ``calc_heading``, ...).

These are the torch side of gymlike's 3-D maths (the numpy side, used by gymapi's value
types, cameras, USD export and scenes, is ``gymlike/core/math3d.py``; tests/values/test_math3d.py
checks that both give the same results). They stay written in torch here, not calling numpy,
so they run on the tensors' device and compile with TorchScript.

No ``__all__`` is defined on purpose: ``import *`` must export every public name,
including the ``torch`` and ``np`` modules, exactly as the original module did.
"""

import math as _math
from typing import Tuple as _Tuple

import numpy as np

from .core.errors import warn as _warn
from .core.runtime import torch as _import_torch

torch = _import_torch()

# --------------------------------------------------------------------------- #
# tensor creation
# --------------------------------------------------------------------------- #

_cuda_fallback_warned = False


def _usable_device(device):
    """Return ``device``, or ``'cpu'`` when it names CUDA on a machine without it."""
    global _cuda_fallback_warned
    if device is None:
        return device
    if torch.device(device).type == "cuda" and not torch.cuda.is_available():
        if not _cuda_fallback_warned:
            _warn(
                  f"to_torch: device {device!r} requested but CUDA is not available; "
                  "using 'cpu' instead (this warning is shown once).",
                  RuntimeWarning,
            )
            _cuda_fallback_warned = True
        return "cpu"
    return device


def to_torch(x, dtype=torch.float, device='cuda:0', requires_grad=False):
    """Make a new tensor from ``x`` (list, numpy array, scalar or tensor)."""
    device = _usable_device(device)
    if isinstance(x, torch.Tensor):
        # torch.tensor(tensor) works but warns; copy explicitly instead.
        out = x.detach().to(device=device, dtype=dtype, copy=True)
        return out.requires_grad_(requires_grad)
    return torch.tensor(x, dtype=dtype, device=device, requires_grad=requires_grad)


# --------------------------------------------------------------------------- #
# quaternion basics
# --------------------------------------------------------------------------- #

@torch.jit.script
def quat_mul(a, b):
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``)."""
    a, b = torch.broadcast_tensors(a, b)
    shape = a.shape
    # Flattening to (-1, 4) lets callers pack several quaternions per row.
    a = a.reshape(-1, 4)
    b = b.reshape(-1, 4)
    ax, ay, az, aw = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bx, by, bz, bw = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    x = aw * bx + ax * bw + ay * bz - az * by
    y = aw * by - ax * bz + ay * bw + az * bx
    z = aw * bz + ax * by - ay * bx + az * bw
    w = aw * bw - ax * bx - ay * by - az * bz
    return torch.stack([x, y, z, w], dim=-1).reshape(shape)


@torch.jit.script
def normalize(x, eps: float = 1e-9):
    """Scale the last dimension to unit length (norms below ``eps`` are clamped)."""
    return x / x.norm(p=2, dim=-1).clamp(min=eps).unsqueeze(-1)


@torch.jit.script
def quat_apply(a, b):
    """Rotate vectors ``b`` by quaternions ``a``.

    Both are flattened to rows of 4 and 3 components, so ``a`` of shape (N, 4*P)
    can rotate ``b`` of shape (N, P, 3); the result has the shape of ``b``.
    """
    shape = b.shape
    a = a.reshape(-1, 4)
    b = b.reshape(-1, 3)
    u = a[:, :3]
    # v' = v + w*t + u x t  with  t = 2 (u x v)
    t = 2.0 * torch.linalg.cross(u, b, dim=-1)
    return (b + a[:, 3:] * t + torch.linalg.cross(u, t, dim=-1)).reshape(shape)


@torch.jit.script
def quat_rotate(q, v):
    """Rotate vectors ``v`` (..., 3) by quaternions ``q`` (..., 4)."""
    w = q[..., 3:]
    u = q[..., :3]
    uv = torch.sum(u * v, dim=-1, keepdim=True)
    return v * (2.0 * w * w - 1.0) + 2.0 * w * torch.linalg.cross(u, v, dim=-1) + 2.0 * uv * u


@torch.jit.script
def quat_rotate_inverse(q, v):
    """Rotate vectors ``v`` by the inverse (conjugate) of unit quaternions ``q``."""
    w = q[..., 3:]
    u = q[..., :3]
    uv = torch.sum(u * v, dim=-1, keepdim=True)
    return v * (2.0 * w * w - 1.0) - 2.0 * w * torch.linalg.cross(u, v, dim=-1) + 2.0 * uv * u


@torch.jit.script
def quat_conjugate(a):
    """Conjugate ``(-x, -y, -z, w)``; the inverse for unit quaternions."""
    shape = a.shape
    a = a.reshape(-1, 4)
    return torch.cat((-a[:, :3], a[:, 3:]), dim=-1).reshape(shape)


@torch.jit.script
def quat_unit(a):
    """Normalise quaternions to unit length."""
    return normalize(a)


@torch.jit.script
def quat_from_angle_axis(angle, axis):
    """Quaternion rotating by ``angle`` (...,) radians about ``axis`` (..., 3)."""
    half = (0.5 * angle).unsqueeze(-1)
    xyz = normalize(axis) * torch.sin(half)
    return quat_unit(torch.cat([xyz, torch.cos(half)], dim=-1))


@torch.jit.script
def normalize_angle(x):
    """Wrap angles to [-pi, pi]."""
    return torch.atan2(torch.sin(x), torch.cos(x))


# --------------------------------------------------------------------------- #
# rigid transforms given as (quaternion, translation)
# --------------------------------------------------------------------------- #

@torch.jit.script
def tf_inverse(q, t):
    """Inverse of the transform ``(q, t)``."""
    q_inv = quat_conjugate(q)
    return q_inv, -quat_apply(q_inv, t)


@torch.jit.script
def tf_apply(q, t, v):
    """Apply the transform ``(q, t)`` to points ``v``."""
    return quat_apply(q, v) + t


@torch.jit.script
def tf_vector(q, v):
    """Apply the rotation part of a transform to direction vectors ``v``."""
    return quat_apply(q, v)


@torch.jit.script
def tf_combine(q1, t1, q2, t2):
    """Compose transforms: the result applies ``(q2, t2)`` then ``(q1, t1)``."""
    return quat_mul(q1, q2), quat_apply(q1, t2) + t1


@torch.jit.script
def get_basis_vector(q, v):
    """Rotate the basis vector(s) ``v`` by ``q``."""
    return quat_rotate(q, v)


def get_axis_params(value, axis_idx, x_value=0., dtype=float, n_dims=3):
    """List of ``n_dims`` numbers with ``value`` at ``axis_idx`` and ``x_value`` at 0.

    Used to build e.g. gravity or up vectors for an arbitrary up axis. As in Isaac
    Gym, ``x_value`` is written last, so it wins when ``axis_idx == 0``.
    """
    assert axis_idx < n_dims, "the axis dim should be within the vector dimensions"
    params = np.zeros((n_dims,))
    params[axis_idx] = value
    params[0] = x_value
    return list(params.astype(dtype))


@torch.jit.script
def copysign(a: float, b):
    """``|a|`` with the sign of each element of ``b`` (0 where ``b`` is 0)."""
    dtype = b.dtype if b.is_floating_point() else torch.float
    return torch.full_like(b, abs(a), dtype=dtype) * torch.sign(b)


# --------------------------------------------------------------------------- #
# Euler angles (extrinsic X, then Y, then Z: R = Rz(yaw) Ry(pitch) Rx(roll))
# --------------------------------------------------------------------------- #

@torch.jit.script
def get_euler_xyz(q):
    """Roll, pitch, yaw of quaternions ``q``, each wrapped to [0, 2*pi)."""
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    # The homogeneous forms (w^2 - x^2 ...) keep atan2 insensitive to |q|.
    roll = torch.atan2(2.0 * (w * x + y * z), w * w - x * x - y * y + z * z)
    # Clamping gives +-pi/2 at gimbal lock, like copysign(pi/2, sinp) would.
    sinp = 2.0 * (w * y - z * x)
    pitch = torch.asin(torch.clamp(sinp, -1.0, 1.0))
    yaw = torch.atan2(2.0 * (w * z + x * y), w * w + x * x - y * y - z * z)
    two_pi = 2.0 * _math.pi
    return roll % two_pi, pitch % two_pi, yaw % two_pi


@torch.jit.script
def quat_from_euler_xyz(roll, pitch, yaw):
    """Quaternion for roll (about x), then pitch (about y), then yaw (about z)."""
    cr = torch.cos(0.5 * roll)
    sr = torch.sin(0.5 * roll)
    cp = torch.cos(0.5 * pitch)
    sp = torch.sin(0.5 * pitch)
    cy = torch.cos(0.5 * yaw)
    sy = torch.sin(0.5 * yaw)
    # q = qz(yaw) * qy(pitch) * qx(roll), expanded
    qx = cy * cp * sr - sy * sp * cr
    qy = cy * sp * cr + sy * cp * sr
    qz = sy * cp * cr - cy * sp * sr
    qw = cy * cp * cr + sy * sp * sr
    return torch.stack([qx, qy, qz, qw], dim=-1)


# --------------------------------------------------------------------------- #
# random sampling, clamping and range scaling
# --------------------------------------------------------------------------- #

@torch.jit.script
def torch_rand_float(lower: float, upper: float, shape: _Tuple[int, int], device: str):
    """Uniform samples in [lower, upper) of the 2-D ``shape``."""
    return (upper - lower) * torch.rand([shape[0], shape[1]], device=device) + lower


@torch.jit.script
def torch_random_dir_2(shape: _Tuple[int, int], device: str):
    """Random unit 2-D directions; ``shape`` is (N, 1) and the result is (N, 2)."""
    angle = torch_rand_float(-_math.pi, _math.pi, shape, device).squeeze(-1)
    return torch.stack([torch.cos(angle), torch.sin(angle)], dim=-1)


@torch.jit.script
def tensor_clamp(t, min_t, max_t):
    """Element-wise clamp of ``t`` between tensors ``min_t`` and ``max_t``."""
    return torch.max(torch.min(t, max_t), min_t)


@torch.jit.script
def scale(x, lower, upper):
    """Map ``x`` from [-1, 1] to [lower, upper]."""
    return 0.5 * (x + 1.0) * (upper - lower) + lower


@torch.jit.script
def unscale(x, lower, upper):
    """Map ``x`` from [lower, upper] to [-1, 1] (inverse of ``scale``)."""
    return (2.0 * x - upper - lower) / (upper - lower)


def unscale_np(x, lower, upper):
    """NumPy version of ``unscale``."""
    return (2.0 * x - upper - lower) / (upper - lower)


# --------------------------------------------------------------------------- #
# helpers commonly used alongside the above (IsaacGymEnvs-era task code)
# --------------------------------------------------------------------------- #

@torch.jit.script
def my_quat_rotate(q, v):
    """Same as ``quat_rotate``; kept under this name for task code that uses it."""
    return quat_rotate(q, v)


@torch.jit.script
def quat_axis(q, axis: int = 0):
    """Basis vector ``axis`` (0=x, 1=y, 2=z) of the frames given by ``q``."""
    basis = torch.zeros_like(q[..., :3])
    basis[..., axis] = 1.0
    return quat_rotate(q, basis)


@torch.jit.script
def normalise_quat(q):
    """Normalise quaternions to unit length."""
    return normalize(q)


@torch.jit.script
def quat_diff_rad(a, b):
    """Rotation angle in [0, pi] between unit quaternions ``a`` and ``b``."""
    d = quat_mul(a, quat_conjugate(b))
    # atan2 form is accurate over the full range (acos/asin lose precision near 0/pi)
    return 2.0 * torch.atan2(torch.norm(d[..., :3], p=2, dim=-1), torch.abs(d[..., 3]))


@torch.jit.script
def local_to_world_space(pos_offset, pose):
    """Points ``pos_offset`` (N, 3) given in frames ``pose`` = [pos(3), quat(4)] to world."""
    return quat_rotate(pose[..., 3:7], pos_offset) + pose[..., 0:3]


@torch.jit.script
def quat_to_rot_mats(q):
    """Rotation matrices (..., 3, 3) of quaternions ``q`` (need not be unit)."""
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    s = 2.0 / torch.sum(q * q, dim=-1)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    rows = [
        torch.stack([1.0 - yy - zz, xy - wz, xz + wy], dim=-1),
        torch.stack([xy + wz, 1.0 - xx - zz, yz - wx], dim=-1),
        torch.stack([xz - wy, yz + wx, 1.0 - xx - yy], dim=-1),
    ]
    return torch.stack(rows, dim=-2)


@torch.jit.script
def quat_to_angle_axis(q):
    """Angle (..., wrapped to [-pi, pi]) and unit axis (..., 3) of unit quaternions.

    Near-identity rotations return angle 0 and axis +z.
    """
    min_theta = 1e-5
    vec = q[..., :3]
    sin_half = torch.norm(vec, p=2, dim=-1)
    angle = normalize_angle(2.0 * torch.atan2(sin_half, q[..., 3]))
    ok = sin_half > min_theta
    safe = torch.where(ok, sin_half, torch.ones_like(sin_half))
    default_axis = torch.zeros_like(vec)
    default_axis[..., 2] = 1.0
    axis = torch.where(ok.unsqueeze(-1), vec / safe.unsqueeze(-1), default_axis)
    angle = torch.where(ok, angle, torch.zeros_like(angle))
    return angle, axis


@torch.jit.script
def angle_axis_to_exp_map(angle, axis):
    """Exponential map (rotation vector) ``angle * axis``."""
    return angle.unsqueeze(-1) * axis


@torch.jit.script
def quat_to_exp_map(q):
    """Exponential map of unit quaternions (rotation angle wrapped to [-pi, pi])."""
    angle, axis = quat_to_angle_axis(q)
    return angle_axis_to_exp_map(angle, axis)


@torch.jit.script
def quat_to_tan_norm(q):
    """6-D rotation encoding: rotated x axis (tangent) and rotated z axis (normal)."""
    tangent = quat_axis(q, 0)
    normal = quat_axis(q, 2)
    return torch.cat([tangent, normal], dim=-1)


@torch.jit.script
def euler_xyz_to_exp_map(roll, pitch, yaw):
    """Exponential map of the rotation given by XYZ Euler angles."""
    return quat_to_exp_map(quat_from_euler_xyz(roll, pitch, yaw))


@torch.jit.script
def exp_map_to_angle_axis(exp_map):
    """Angle (wrapped to [-pi, pi]) and unit axis of rotation vectors.

    Vectors shorter than 1e-5 give angle 0 and axis +z.
    """
    min_theta = 1e-5
    angle = torch.norm(exp_map, p=2, dim=-1)
    ok = angle > min_theta
    safe = torch.where(ok, angle, torch.ones_like(angle))
    default_axis = torch.zeros_like(exp_map)
    default_axis[..., 2] = 1.0
    axis = torch.where(ok.unsqueeze(-1), exp_map / safe.unsqueeze(-1), default_axis)
    angle = torch.where(ok, normalize_angle(angle), torch.zeros_like(angle))
    return angle, axis


@torch.jit.script
def exp_map_to_quat(exp_map):
    """Unit quaternion of a rotation vector."""
    angle, axis = exp_map_to_angle_axis(exp_map)
    return quat_from_angle_axis(angle, axis)


@torch.jit.script
def slerp(q0, q1, t):
    """Spherical linear interpolation along the shortest arc.

    ``t`` broadcasts against the quaternions, normally shape (N, 1);
    t=0 gives ``q0`` and t=1 gives ``q1`` (possibly negated: same rotation).
    """
    cos_half = torch.sum(q0 * q1, dim=-1, keepdim=True)
    # q and -q are the same rotation: flip q1 to take the short way round.
    q1 = torch.where(cos_half < 0.0, -q1, q1)
    cos_half = torch.abs(cos_half).clamp(max=1.0)
    half = torch.acos(cos_half)
    sin_half = torch.sqrt(1.0 - cos_half * cos_half)
    # Nearly equal rotations: the slerp weights are 0/0, fall back to lerp.
    near = sin_half < 1e-3
    safe = torch.where(near, torch.ones_like(sin_half), sin_half)
    w0 = torch.where(near, 1.0 - t, torch.sin((1.0 - t) * half) / safe)
    w1 = torch.where(near, t, torch.sin(t * half) / safe)
    out = w0 * q0 + w1 * q1
    return torch.where(near, normalize(out), out)


@torch.jit.script
def calc_heading(q):
    """Heading (yaw of the rotated x axis, about world z) in [-pi, pi]."""
    d = quat_axis(q, 0)
    return torch.atan2(d[..., 1], d[..., 0])


@torch.jit.script
def calc_heading_quat(q):
    """Quaternion of the pure-yaw rotation with the heading of ``q``."""
    heading = calc_heading(q)
    axis = torch.zeros_like(q[..., :3])
    axis[..., 2] = 1.0
    return quat_from_angle_axis(heading, axis)


@torch.jit.script
def calc_heading_quat_inv(q):
    """Inverse of ``calc_heading_quat(q)``: removes the heading from a rotation."""
    heading = calc_heading(q)
    axis = torch.zeros_like(q[..., :3])
    axis[..., 2] = 1.0
    return quat_from_angle_axis(-heading, axis)
