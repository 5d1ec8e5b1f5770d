"""Tests for gymlike.torch_utils against independent NumPy references."""

import math
import warnings

import numpy as np
import pytest
import torch

import gymlike.torch_utils as tu

N = 64
TOL = 1e-5


# --------------------------------------------------------------------------- #
# NumPy references (float64, written from the textbook formulas)
# --------------------------------------------------------------------------- #

def np_quat_to_mat(q):
    """Rotation matrices of unit quaternions (x, y, z, w)."""
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    m = np.empty((len(q), 3, 3))
    m[:, 0, 0] = 1 - 2 * (y * y + z * z)
    m[:, 0, 1] = 2 * (x * y - z * w)
    m[:, 0, 2] = 2 * (x * z + y * w)
    m[:, 1, 0] = 2 * (x * y + z * w)
    m[:, 1, 1] = 1 - 2 * (x * x + z * z)
    m[:, 1, 2] = 2 * (y * z - x * w)
    m[:, 2, 0] = 2 * (x * z - y * w)
    m[:, 2, 1] = 2 * (y * z + x * w)
    m[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def np_rodrigues(angle, axis):
    """R = I + sin(a) K + (1 - cos(a)) K^2 for unit axis k."""
    k = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    K = np.zeros((len(k), 3, 3))
    K[:, 0, 1], K[:, 0, 2] = -k[:, 2], k[:, 1]
    K[:, 1, 0], K[:, 1, 2] = k[:, 2], -k[:, 0]
    K[:, 2, 0], K[:, 2, 1] = -k[:, 1], k[:, 0]
    s = np.sin(angle)[:, None, None]
    c = np.cos(angle)[:, None, None]
    return np.eye(3)[None] + s * K + (1 - c) * (K @ K)


def np_rot_x(a):
    c, s = np.cos(a), np.sin(a)
    m = np.zeros((len(a), 3, 3))
    m[:, 0, 0] = 1
    m[:, 1, 1], m[:, 1, 2], m[:, 2, 1], m[:, 2, 2] = c, -s, s, c
    return m


def np_rot_y(a):
    c, s = np.cos(a), np.sin(a)
    m = np.zeros((len(a), 3, 3))
    m[:, 1, 1] = 1
    m[:, 0, 0], m[:, 0, 2], m[:, 2, 0], m[:, 2, 2] = c, s, -s, c
    return m


def np_rot_z(a):
    c, s = np.cos(a), np.sin(a)
    m = np.zeros((len(a), 3, 3))
    m[:, 2, 2] = 1
    m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1] = c, -s, s, c
    return m


def np_euler_xyz_to_mat(r, p, y):
    return np_rot_z(y) @ np_rot_y(p) @ np_rot_x(r)


def np_rot_angle(m):
    """Rotation angle in [0, pi] of rotation matrices."""
    return np.arccos(np.clip((np.trace(m, axis1=1, axis2=2) - 1) / 2, -1, 1))


def close(a, b, tol=TOL):
    a = a.detach().cpu().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.detach().cpu().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    np.testing.assert_allclose(a, b, atol=tol, rtol=0)


def same_rotation(q1, q2, tol=TOL):
    """q and -q are the same rotation."""
    q1 = q1.numpy() if isinstance(q1, torch.Tensor) else q1
    q2 = q2.numpy() if isinstance(q2, torch.Tensor) else q2
    sign = np.sign(np.sum(q1 * q2, axis=-1, keepdims=True))
    sign[sign == 0] = 1
    np.testing.assert_allclose(q1, sign * q2, atol=tol, rtol=0)


def wrap_diff(a, b):
    """Smallest signed difference between angles."""
    return (a - b + np.pi) % (2 * np.pi) - np.pi


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def rand_quat(rng, n=N):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def T(a):
    return torch.tensor(a, dtype=torch.float64)


# --------------------------------------------------------------------------- #
# quaternion basics
# --------------------------------------------------------------------------- #

def test_quat_mul_matches_matrix_product(rng):
    a, b = rand_quat(rng), rand_quat(rng)
    ab = tu.quat_mul(T(a), T(b)).numpy()
    close(np_quat_to_mat(ab), np_quat_to_mat(a) @ np_quat_to_mat(b))
    # float32 input keeps float32 and agrees too
    ab32 = tu.quat_mul(T(a).float(), T(b).float())
    assert ab32.dtype == torch.float32
    close(ab32, ab)


def test_quat_mul_extra_dims_and_broadcast(rng):
    a, b = rand_quat(rng, 12), rand_quat(rng, 12)
    flat = tu.quat_mul(T(a), T(b))
    close(tu.quat_mul(T(a).view(3, 4, 4), T(b).view(3, 4, 4)).view(12, 4), flat)
    # several quaternions packed per row, as Isaac Gym's reshape(-1, 4) allows
    close(tu.quat_mul(T(a).view(3, 16), T(b).view(3, 16)).view(12, 4), flat)
    one = T(a[:1])
    close(tu.quat_mul(one, T(b)), tu.quat_mul(one.expand(12, 4), T(b)))


def test_identity_and_conjugate(rng):
    q = T(rand_quat(rng))
    ident = torch.zeros_like(q)
    ident[:, 3] = 1
    close(tu.quat_mul(q, tu.quat_conjugate(q)), ident)
    close(tu.quat_mul(tu.quat_conjugate(q), q), ident)
    close(tu.quat_mul(ident, q), q)
    close(np_quat_to_mat(tu.quat_conjugate(q).numpy()),
          np_quat_to_mat(q.numpy()).transpose(0, 2, 1))


def test_rotate_functions_match_matrix(rng):
    q = rand_quat(rng)
    v = rng.normal(size=(N, 3))
    R = np_quat_to_mat(q)
    expected = np.einsum("nij,nj->ni", R, v)
    expected_inv = np.einsum("nji,nj->ni", R, v)
    close(tu.quat_apply(T(q), T(v)), expected)
    close(tu.quat_rotate(T(q), T(v)), expected)
    close(tu.my_quat_rotate(T(q), T(v)), expected)
    close(tu.get_basis_vector(T(q), T(v)), expected)
    close(tu.tf_vector(T(q), T(v)), expected)
    close(tu.quat_rotate_inverse(T(q), T(v)), expected_inv)
    # float32 path
    close(tu.quat_rotate(T(q).float(), T(v).float()), expected, tol=1e-5 * 10)


def test_quat_apply_packed_rows(rng):
    """legged_gym rotates (N, P, 3) points with quats repeated to (N, 4*P)."""
    n, p = 5, 7
    q = rand_quat(rng, n)
    pts = rng.normal(size=(n, p, 3))
    out = tu.quat_apply(T(q).repeat(1, p), T(pts))
    assert out.shape == (n, p, 3)
    close(out, np.einsum("nij,npj->npi", np_quat_to_mat(q), pts))


def test_normalize_and_unit(rng):
    x = T(rng.normal(size=(N, 4)) * 3)
    close(torch.norm(tu.normalize(x), dim=-1), np.ones(N))
    close(tu.quat_unit(x), tu.normalise_quat(x))
    z = torch.zeros(2, 3)
    assert torch.isfinite(tu.normalize(z)).all()


def test_quat_from_angle_axis_matches_rodrigues(rng):
    angle = rng.uniform(-2 * np.pi, 2 * np.pi, size=N)
    axis = rng.normal(size=(N, 3)) * 2.5  # not unit: must be normalised
    q = tu.quat_from_angle_axis(T(angle), T(axis)).numpy()
    close(np.linalg.norm(q, axis=1), np.ones(N))
    close(np_quat_to_mat(q), np_rodrigues(angle, axis))


def test_quat_to_rot_mats(rng):
    q = rand_quat(rng)
    close(tu.quat_to_rot_mats(T(q)), np_quat_to_mat(q))
    # non-unit quaternions describe the same rotation
    close(tu.quat_to_rot_mats(T(q * 3.0)), np_quat_to_mat(q))


def test_normalize_angle(rng):
    x = rng.uniform(-20, 20, size=N)
    out = tu.normalize_angle(T(x)).numpy()
    assert np.all(out >= -np.pi) and np.all(out <= np.pi)
    close(np.cos(out), np.cos(x))
    close(np.sin(out), np.sin(x))


# --------------------------------------------------------------------------- #
# transforms
# --------------------------------------------------------------------------- #

def test_transforms(rng):
    q1, q2 = rand_quat(rng), rand_quat(rng)
    t1, t2 = rng.normal(size=(N, 3)), rng.normal(size=(N, 3))
    v = rng.normal(size=(N, 3))
    R1, R2 = np_quat_to_mat(q1), np_quat_to_mat(q2)

    close(tu.tf_apply(T(q1), T(t1), T(v)), np.einsum("nij,nj->ni", R1, v) + t1)

    qc, tc = tu.tf_combine(T(q1), T(t1), T(q2), T(t2))
    close(np_quat_to_mat(qc.numpy()), R1 @ R2)
    close(tc, np.einsum("nij,nj->ni", R1, t2) + t1)

    qi, ti = tu.tf_inverse(T(q1), T(t1))
    qid, tid = tu.tf_combine(qi, ti, T(q1), T(t1))
    same_rotation(qid.numpy(), np.tile([0, 0, 0, 1.0], (N, 1)))
    close(tid, np.zeros((N, 3)))
    # the inverse undoes tf_apply
    close(tu.tf_apply(qi, ti, tu.tf_apply(T(q1), T(t1), T(v))), v)


def test_local_to_world_space(rng):
    q = rand_quat(rng)
    pos = rng.normal(size=(N, 3))
    off = rng.normal(size=(N, 3))
    pose = np.concatenate([pos, q], axis=1)
    close(tu.local_to_world_space(T(off), T(pose)),
          np.einsum("nij,nj->ni", np_quat_to_mat(q), off) + pos)


def test_quat_axis_and_tan_norm(rng):
    q = rand_quat(rng)
    R = np_quat_to_mat(q)
    for k in range(3):
        close(tu.quat_axis(T(q), k), R[:, :, k])
    close(tu.quat_axis(T(q)), R[:, :, 0])
    close(tu.quat_to_tan_norm(T(q)), np.concatenate([R[:, :, 0], R[:, :, 2]], axis=1))


def test_quat_diff_rad(rng):
    a, b = rand_quat(rng), rand_quat(rng)
    expected = np_rot_angle(np_quat_to_mat(a) @ np_quat_to_mat(b).transpose(0, 2, 1))
    close(tu.quat_diff_rad(T(a), T(b)), expected)
    close(tu.quat_diff_rad(T(a), T(a)), np.zeros(N), tol=1e-6)
    close(tu.quat_diff_rad(T(a), T(-a)), np.zeros(N), tol=1e-6)


# --------------------------------------------------------------------------- #
# Euler angles
# --------------------------------------------------------------------------- #

def test_quat_from_euler_xyz_matches_rz_ry_rx(rng):
    r, p, y = (rng.uniform(-np.pi, np.pi, size=N) for _ in range(3))
    q = tu.quat_from_euler_xyz(T(r), T(p), T(y)).numpy()
    close(np_quat_to_mat(q), np_euler_xyz_to_mat(r, p, y))


def test_get_euler_xyz_reconstructs_rotation(rng):
    q = rand_quat(rng)
    r, p, y = (a.numpy() for a in tu.get_euler_xyz(T(q)))
    for a in (r, p, y):
        assert np.all(a >= 0) and np.all(a < 2 * np.pi)
    close(np_euler_xyz_to_mat(r, p, y), np_quat_to_mat(q))


def test_euler_round_trip(rng):
    r = rng.uniform(-np.pi, np.pi, size=N)
    p = rng.uniform(-np.pi / 2 + 0.05, np.pi / 2 - 0.05, size=N)  # away from gimbal lock
    y = rng.uniform(-np.pi, np.pi, size=N)
    r2, p2, y2 = (a.numpy() for a in tu.get_euler_xyz(tu.quat_from_euler_xyz(T(r), T(p), T(y))))
    for a, b in ((r, r2), (p, p2), (y, y2)):
        close(wrap_diff(a, b), np.zeros(N))


def test_get_euler_xyz_gimbal_lock():
    q = tu.quat_from_euler_xyz(T([0.0, 0.0]), T([np.pi / 2, -np.pi / 2]), T([0.0, 0.0]))
    _, p, _ = tu.get_euler_xyz(q)
    close(wrap_diff(p.numpy(), np.array([np.pi / 2, -np.pi / 2])), np.zeros(2))
    assert torch.isfinite(p).all()


def test_copysign():
    b = torch.tensor([-2.0, 0.0, 3.0, -0.5])
    close(tu.copysign(1.5, b), [-1.5, 0.0, 1.5, -1.5])
    close(tu.copysign(-1.5, b), [-1.5, 0.0, 1.5, -1.5])


# --------------------------------------------------------------------------- #
# angle-axis / exponential map / heading / slerp
# --------------------------------------------------------------------------- #

def test_quat_to_angle_axis(rng):
    q = rand_quat(rng)
    angle, axis = tu.quat_to_angle_axis(T(q))
    angle, axis = angle.numpy(), axis.numpy()
    assert np.all(np.abs(angle) <= np.pi + 1e-9)
    close(np.linalg.norm(axis, axis=1), np.ones(N))
    close(np_rodrigues(angle, axis), np_quat_to_mat(q))
    # identity: angle 0, axis +z
    a0, ax0 = tu.quat_to_angle_axis(T([[0, 0, 0, 1.0]]))
    close(a0, [0.0])
    close(ax0, [[0, 0, 1.0]])


def test_angle_axis_round_trip(rng):
    angle = rng.uniform(0.01, np.pi - 0.01, size=N)
    axis = rng.normal(size=(N, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    a2, ax2 = tu.quat_to_angle_axis(tu.quat_from_angle_axis(T(angle), T(axis)))
    close(a2, angle)
    close(ax2, axis)


def test_exp_map(rng):
    q = rand_quat(rng)
    e = tu.quat_to_exp_map(T(q))
    angle, axis = tu.quat_to_angle_axis(T(q))
    close(e, tu.angle_axis_to_exp_map(angle, axis))
    same_rotation(tu.exp_map_to_quat(e).numpy(), q)
    # exp map of rotation vector with |v| < pi round-trips exactly
    v = rng.normal(size=(N, 3))
    v *= (rng.uniform(0.01, np.pi - 0.01, size=N) / np.linalg.norm(v, axis=1))[:, None]
    close(tu.quat_to_exp_map(tu.exp_map_to_quat(T(v))), v)
    a, ax = tu.exp_map_to_angle_axis(T(v))
    close(np_rodrigues(a.numpy(), ax.numpy()), np_rodrigues(np.linalg.norm(v, axis=1), v))
    # zero vector -> identity
    same_rotation(tu.exp_map_to_quat(torch.zeros(1, 3, dtype=torch.float64)).numpy(),
                  np.array([[0, 0, 0, 1.0]]))


def test_euler_xyz_to_exp_map(rng):
    r, p, y = (rng.uniform(-1.0, 1.0, size=N) for _ in range(3))
    e = tu.euler_xyz_to_exp_map(T(r), T(p), T(y)).numpy()
    angle = np.linalg.norm(e, axis=1)
    close(np_rodrigues(angle, e), np_euler_xyz_to_mat(r, p, y))


def test_slerp(rng):
    q0, q1 = rand_quat(rng), rand_quat(rng)
    t = rng.uniform(0, 1, size=(N, 1))
    out = tu.slerp(T(q0), T(q1), T(t)).numpy()
    close(np.linalg.norm(out, axis=1), np.ones(N))
    # reference: rotate q0 by fraction t of the short-arc relative rotation
    rel = np_quat_to_mat(q1) @ np_quat_to_mat(q0).transpose(0, 2, 1)
    total = np_rot_angle(rel)
    d_from_0 = np_rot_angle(np_quat_to_mat(out) @ np_quat_to_mat(q0).transpose(0, 2, 1))
    d_to_1 = np_rot_angle(np_quat_to_mat(q1) @ np_quat_to_mat(out).transpose(0, 2, 1))
    close(d_from_0, t[:, 0] * total)
    close(d_to_1, (1 - t[:, 0]) * total)
    same_rotation(tu.slerp(T(q0), T(q1), torch.zeros(N, 1, dtype=torch.float64)).numpy(), q0)
    same_rotation(tu.slerp(T(q0), T(q1), torch.ones(N, 1, dtype=torch.float64)).numpy(), q1)
    # equal inputs (0/0 case) stay finite and equal
    close(tu.slerp(T(q0), T(q0), T(t)), q0)


def test_heading(rng):
    yaw = rng.uniform(-np.pi + 0.01, np.pi - 0.01, size=N)
    small = rng.uniform(-0.3, 0.3, size=(2, N))
    q = tu.quat_from_euler_xyz(T(small[0]), T(small[1]), T(yaw))
    R = np_quat_to_mat(q.numpy())
    close(tu.calc_heading(q), np.arctan2(R[:, 1, 0], R[:, 0, 0]))
    # pure yaw: heading equals yaw
    qy = tu.quat_from_euler_xyz(T(np.zeros(N)), T(np.zeros(N)), T(yaw))
    close(tu.calc_heading(qy), yaw)
    hq = tu.calc_heading_quat(q)
    close(np_quat_to_mat(hq.numpy()), np_rot_z(tu.calc_heading(q).numpy()))
    # removing the heading leaves a rotation with zero heading
    local = tu.quat_mul(tu.calc_heading_quat_inv(q), q)
    close(tu.calc_heading(local), np.zeros(N))
    same_rotation(tu.quat_mul(hq, tu.calc_heading_quat_inv(q)).numpy(), np.tile([0, 0, 0, 1.0], (N, 1)))


# --------------------------------------------------------------------------- #
# sampling, scaling, misc
# --------------------------------------------------------------------------- #

def test_scale_unscale(rng):
    lower = T(rng.uniform(-5, 0, size=(N, 6)))
    upper = lower + T(rng.uniform(0.1, 5, size=(N, 6)))
    x = T(rng.uniform(-1, 1, size=(N, 6)))
    y = tu.scale(x, lower, upper)
    assert torch.all(y >= lower - 1e-12) and torch.all(y <= upper + 1e-12)
    close(tu.unscale(y, lower, upper), x)
    close(tu.scale(-torch.ones_like(x), lower, upper), lower)
    close(tu.scale(torch.ones_like(x), lower, upper), upper)
    close(tu.unscale_np(y.numpy(), lower.numpy(), upper.numpy()), x)


def test_tensor_clamp(rng):
    t = T(rng.normal(size=(N, 5)) * 4)
    lo = T(rng.uniform(-2, 0, size=(N, 5)))
    hi = T(rng.uniform(0, 2, size=(N, 5)))
    out = tu.tensor_clamp(t, lo, hi)
    assert torch.all(out >= lo) and torch.all(out <= hi)
    inside = (t >= lo) & (t <= hi)
    assert torch.equal(out[inside], t[inside])
    # broadcasting a per-dof limit row, as tasks do
    out2 = tu.tensor_clamp(t, lo[0], hi[0])
    assert torch.all(out2 >= lo[0]) and torch.all(out2 <= hi[0])


def test_torch_rand_float():
    torch.manual_seed(0)
    x = tu.torch_rand_float(-0.5, 2.0, (1000, 3), "cpu")
    assert x.shape == (1000, 3) and x.dtype == torch.float32
    assert x.min() >= -0.5 and x.max() < 2.0
    assert x.min() < -0.4 and x.max() > 1.9  # actually spans the range
    y = tu.torch_rand_float(0, 1, (2, 2), device="cpu")  # ints accepted
    assert y.shape == (2, 2)


def test_torch_random_dir_2():
    torch.manual_seed(0)
    d = tu.torch_random_dir_2((500, 1), "cpu")
    assert d.shape == (500, 2)
    close(torch.norm(d, dim=-1), np.ones(500))
    ang = torch.atan2(d[:, 1], d[:, 0])
    assert ang.min() < -3.0 and ang.max() > 3.0


def test_get_axis_params():
    assert tu.get_axis_params(-1.0, 2) == [0.0, 0.0, -1.0]
    assert tu.get_axis_params(9.81, 1, x_value=0.5) == [0.5, 9.81, 0.0]
    assert tu.get_axis_params(2.0, 3, n_dims=4) == [0.0, 0.0, 0.0, 2.0]
    out = tu.get_axis_params(1.0, 2, dtype=np.float32)
    assert all(isinstance(v, np.float32) for v in out)
    with pytest.raises(AssertionError):
        tu.get_axis_params(1.0, 3)


def test_to_torch():
    t = tu.to_torch([1, 2, 3], device="cpu")
    assert t.dtype == torch.float32 and t.device.type == "cpu" and not t.requires_grad
    t = tu.to_torch(np.arange(4), dtype=torch.long, device="cpu")
    assert t.dtype == torch.long
    t = tu.to_torch([1.0, 2.0], device="cpu", requires_grad=True)
    assert t.requires_grad
    src = torch.ones(3)
    t = tu.to_torch(src, device="cpu")
    t += 1
    assert torch.equal(src, torch.ones(3))  # a copy, like torch.tensor


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the no-CUDA fallback")
def test_to_torch_default_device_falls_back_to_cpu(monkeypatch):
    monkeypatch.setattr(tu, "_cuda_fallback_warned", False)
    with pytest.warns(RuntimeWarning, match="CUDA is not available"):
        t = tu.to_torch([1.0, 2.0])
    assert t.device.type == "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # second call must not warn again
        t = tu.to_torch([3.0], device=torch.device("cuda", 0))
    assert t.device.type == "cpu"


# --------------------------------------------------------------------------- #
# TorchScript and star-import compatibility
# --------------------------------------------------------------------------- #

SCRIPTED = [
    "quat_mul", "normalize", "quat_apply", "quat_rotate", "quat_rotate_inverse",
    "quat_conjugate", "quat_unit", "quat_from_angle_axis", "normalize_angle",
    "tf_inverse", "tf_apply", "tf_vector", "tf_combine", "get_basis_vector",
    "copysign", "get_euler_xyz", "quat_from_euler_xyz", "torch_rand_float",
    "torch_random_dir_2", "tensor_clamp", "scale", "unscale",
]


@pytest.mark.parametrize("name", SCRIPTED)
def test_isaacgym_jit_functions_are_scripted(name):
    assert isinstance(getattr(tu, name), torch.jit.ScriptFunction)


def test_callable_from_user_jit_function(rng):
    from gymlike.torch_utils import (quat_mul, quat_conjugate, quat_rotate_inverse, quat_apply,
                                     get_euler_xyz, normalize_angle, torch_rand_float,
                                     tensor_clamp, scale, unscale, quat_from_euler_xyz,
                                     copysign, tf_combine, tf_inverse, quat_axis, calc_heading)

    @torch.jit.script
    def user_fn(q, v, lo, hi, device: str):
        qq = quat_mul(q, quat_conjugate(q))
        local = quat_rotate_inverse(q, v)
        back = quat_apply(q, local)
        r, p, y = get_euler_xyz(q)
        q2 = quat_from_euler_xyz(r, p, y)
        noise = torch_rand_float(-1.0, 1.0, (q.shape[0], 3), device)
        clamped = tensor_clamp(scale(noise, lo, hi), lo, hi)
        u = unscale(clamped, lo, hi)
        s = copysign(1.0, v[:, 0])
        tq, tt = tf_combine(q, v, tf_inverse(q, v)[0], tf_inverse(q, v)[1])
        h = calc_heading(q) + normalize_angle(p) * 0.0
        return qq, back, q2, u, s, tq, tt, quat_axis(q, 2), h

    q = T(rand_quat(rng)).float()
    v = T(rng.normal(size=(N, 3))).float()
    lo = -torch.ones(3)
    hi = torch.ones(3)
    qq, back, q2, u, s, tq, tt, up, h = user_fn(q, v, lo, hi, "cpu")
    close(back, v)
    same_rotation(q2.numpy(), q.numpy())
    assert torch.all(u.abs() <= 1 + 1e-6)
    close(tt, torch.zeros(N, 3))
    close(up, np_quat_to_mat(q.double().numpy())[:, :, 2])


def test_star_import():
    ns = {}
    exec("from gymlike.torch_utils import *", ns)
    for name in ["torch", "np", "to_torch", "quat_mul", "quat_rotate_inverse", "get_euler_xyz",
                 "torch_rand_float", "get_axis_params", "tensor_clamp", "unscale_np",
                 "slerp", "calc_heading_quat_inv", "quat_to_tan_norm", "exp_map_to_quat"]:
        assert name in ns, name
    assert ns["torch"] is torch and ns["np"] is np
    assert not any(k.startswith("_") and k not in ("__builtins__",) for k in ns)
    # use them the way legacy task code does
    q = ns["torch"].tensor([[0.0, 0.0, math.sin(0.25), math.cos(0.25)]])
    out = ns["quat_mul"](q, q)
    close(out, [[0.0, 0.0, math.sin(0.5), math.cos(0.5)]])
