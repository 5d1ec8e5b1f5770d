"""gymlike/core/math3d.py, the one place for host-side quaternion and transform maths, checked
against scipy's rotations (an independent implementation: scipy's quaternions are also scalar
last), against identities (round trips, compositions) and against gymlike.torch_utils (the
torch side, TorchScript-compiled). A source scan keeps the formulas from being written again."""

import ast
import os

import numpy as np
import pytest
from scipy.spatial.transform import Rotation as R

from conftest import ROOT
from gymlike.core import math3d as m3

PKG = os.path.join(ROOT, "gymlike")


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def rots(rng, n=64):
    return R.random(n, random_state=int(rng.integers(1 << 31)))


def same_rotation(q1, q2, atol=1e-12):
    """q and -q are the same rotation."""
    q1, q2 = np.atleast_2d(q1), np.atleast_2d(q2)
    err = np.minimum(np.abs(q1 - q2).max(-1), np.abs(q1 + q2).max(-1))
    assert err.max() < atol, err.max()


def test_products_rotations_and_matrices_match_scipy(rng):
    a, b = rots(rng), rots(rng)
    v = rng.normal(size=(64, 3))
    same_rotation(m3.quat_mul(a.as_quat(), b.as_quat()), (a * b).as_quat())
    np.testing.assert_allclose(m3.quat_rotate(a.as_quat(), v), a.apply(v), atol=1e-12)
    np.testing.assert_allclose(m3.quat_rotate_inverse(a.as_quat(), v), a.inv().apply(v), atol=1e-12)
    np.testing.assert_allclose(m3.quat_to_matrix(a.as_quat()), a.as_matrix(), atol=1e-12)
    same_rotation(m3.quat_conjugate(a.as_quat()), a.inv().as_quat())
    # a non-unit quaternion's inverse undoes it: q * q^-1 = identity
    q = 3.0 * a.as_quat()
    np.testing.assert_allclose(m3.quat_mul(q, m3.quat_inverse(q)), np.tile(m3.IDENTITY, (64, 1)), atol=1e-12)
    # broadcasting: one rotation applied to many vectors
    np.testing.assert_allclose(m3.quat_rotate(a.as_quat()[0], v), a[0].apply(v), atol=1e-12)


def test_axis_angle_and_euler_match_scipy(rng):
    axis = rng.normal(size=(64, 3))
    angle = rng.uniform(-np.pi, np.pi, 64)
    unit = axis / np.linalg.norm(axis, axis=1, keepdims=True)
    same_rotation(m3.quat_from_axis_angle(axis, angle), R.from_rotvec(unit * angle[:, None]).as_quat())
    assert np.allclose(m3.quat_from_axis_angle([0.0, 0.0, 0.0], 1.0), [0, 0, 0, np.cos(0.5)])
    e = np.stack([rng.uniform(-np.pi, np.pi, 64), rng.uniform(-1.5, 1.5, 64), rng.uniform(-np.pi, np.pi, 64)], 1)
    q = m3.quat_from_euler_zyx(e[:, 0], e[:, 1], e[:, 2])
    # lowercase "xyz" in scipy: about the fixed x, then fixed y, then fixed z
    same_rotation(q, R.from_euler("xyz", e).as_quat())
    np.testing.assert_allclose(m3.quat_to_euler_zyx(q), e, atol=1e-9)
    # gimbal lock: pitch +-pi/2 comes back exactly (the sine is clamped, no NaN)
    for sign in (1.0, -1.0):
        r, p, y = m3.quat_to_euler_zyx(m3.quat_from_euler_zyx(0.3, sign * np.pi / 2, -0.2))
        assert p == pytest.approx(sign * np.pi / 2) and np.isfinite([r, y]).all()


@pytest.mark.parametrize("rotation", [
    R.from_rotvec([0.3, -0.2, 0.1]),              # trace > 0
    R.from_rotvec([np.pi, 0.0, 0.0]),             # half turns: each diagonal element largest
    R.from_rotvec([0.0, np.pi, 0.0]),
    R.from_rotvec([0.0, 0.0, np.pi]),
    R.from_rotvec(np.pi * np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)),
    R.from_rotvec([2.9, 0.4, -0.3]),
])
def test_matrix_to_quaternion_every_branch(rotation):
    q = m3.quat_from_matrix(rotation.as_matrix())
    assert np.linalg.norm(q) == pytest.approx(1.0)
    same_rotation(q, rotation.as_quat(), atol=1e-12)
    np.testing.assert_allclose(m3.quat_to_matrix(q), rotation.as_matrix(), atol=1e-12)


def test_quaternion_between_directions_and_look_along(rng):
    for a, b in list(rng.normal(size=(20, 2, 3))) + [([1.0, 0, 0], [-1.0, 0, 0]), ([0, 1.0, 0], [0, -2.0, 0]),
                                                     ([0, 0, 1.0], [0, 0, 1.0])]:
        a, b = np.asarray(a, float), np.asarray(b, float)
        q = m3.quat_between(a, b)
        np.testing.assert_allclose(m3.quat_rotate(q, a / np.linalg.norm(a)), b / np.linalg.norm(b), atol=1e-12)
        if np.dot(a, b) > -0.99 * np.linalg.norm(a) * np.linalg.norm(b):
            # shortest arc: the angle turned is the angle between the directions
            cos = np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b)
            assert 2.0 * np.arccos(min(abs(q[3]), 1.0)) == pytest.approx(np.arccos(np.clip(cos, -1, 1)), abs=1e-9)
    up = np.array([0.0, 0.0, 1.0])
    for forward in list(rng.normal(size=(20, 3))) + [up, -up]:
        M = m3.quat_to_matrix(m3.quat_look_along(forward, up))
        np.testing.assert_allclose(M[:, 0], forward / np.linalg.norm(forward), atol=1e-12)
        np.testing.assert_allclose(M.T @ M, np.eye(3), atol=1e-12)
        assert np.linalg.det(M) == pytest.approx(1.0)
        if abs(forward @ up) < 0.99 * np.linalg.norm(forward):
            assert M[:, 2] @ up > 0 and abs(M[:, 1] @ up) < 1e-12     # level camera: y horizontal


def test_transforms_compose_and_invert(rng):
    a, b = rots(rng, 16), rots(rng, 16)
    pa, pb, v = rng.normal(size=(3, 16, 3))
    p, q = m3.transform_mul(pa, a.as_quat(), pb, b.as_quat())
    direct = m3.transform_point(pa, a.as_quat(), m3.transform_point(pb, b.as_quat(), v))
    np.testing.assert_allclose(m3.transform_point(p, q, v), direct, atol=1e-12)
    np.testing.assert_allclose(direct, a.apply(b.apply(v) + pb) + pa, atol=1e-12)
    pi, qi = m3.transform_inverse(pa, a.as_quat())
    p1, q1 = m3.transform_mul(pa, a.as_quat(), pi, qi)
    np.testing.assert_allclose(p1, 0.0, atol=1e-12)
    same_rotation(q1, np.tile(m3.IDENTITY, (16, 1)))


def test_component_forms_serve_floats_and_arrays(rng):
    a, b = rots(rng, 8).as_quat(), rots(rng, 8).as_quat()
    v = rng.normal(size=(8, 3))
    for i in range(8):
        s = m3.quat_mul_c(*map(float, a[i]), *map(float, b[i]))
        assert all(type(c) is float for c in s)
        np.testing.assert_allclose(s, m3.quat_mul(a, b)[i], rtol=0, atol=1e-15)
        np.testing.assert_allclose(m3.quat_rotate_c(*map(float, a[i]), *map(float, v[i])),
                                   m3.quat_rotate(a, v)[i], rtol=0, atol=1e-15)


def test_gymapi_types_and_numpy_helpers_use_it(rng):
    from gymlike import gymapi
    a, b = rots(rng, 2)
    qa, qb = gymapi.Quat(*a.as_quat()), gymapi.Quat(*b.as_quat())
    same_rotation(np.array((qa * qb).to_tuple()), (a * b).as_quat())
    v = gymapi.Vec3(0.3, -1.0, 2.0)
    np.testing.assert_allclose(qa.rotate(v).to_tuple(), a.apply([0.3, -1.0, 2.0]), atol=1e-6)
    t = gymapi.Transform(gymapi.Vec3(1, 2, 3), qa)
    ti = t.inverse()
    np.testing.assert_allclose((t * ti).p.to_tuple(), 0.0, atol=1e-6)
    e = qa.to_euler_zyx()
    np.testing.assert_allclose(e, a.as_euler("xyz"), atol=1e-6)
    arr = np.zeros(3, gymapi.Quat.dtype)
    arr["x"], arr["y"], arr["z"], arr["w"] = rots(rng, 3).as_quat().T
    vecs = np.zeros(3, gymapi.Vec3.dtype)
    vecs["x"] = 1.0
    out = gymapi.rotate(arr, vecs)
    q = np.stack([arr[k] for k in "xyzw"], -1).astype(float)
    np.testing.assert_allclose(np.stack([out[k] for k in "xyz"], -1),
                               R.from_quat(q).apply([1.0, 0.0, 0.0]), atol=1e-6)


def test_torch_utils_agree_with_math3d(rng):
    torch = pytest.importorskip("torch")
    from gymlike import torch_utils as tu
    a, b = rots(rng).as_quat(), rots(rng).as_quat()
    v = rng.normal(size=(64, 3))
    T = lambda x: torch.tensor(x, dtype=torch.float64)     # noqa: E731
    pairs = [
        (tu.quat_mul(T(a), T(b)), m3.quat_mul(a, b)),
        (tu.quat_apply(T(a), T(v)), m3.quat_rotate(a, v)),
        (tu.quat_rotate(T(a), T(v)), m3.quat_rotate(a, v)),
        (tu.quat_rotate_inverse(T(a), T(v)), m3.quat_rotate_inverse(a, v)),
        (tu.quat_conjugate(T(a)), m3.quat_conjugate(a)),
        (tu.quat_to_rot_mats(T(a)), m3.quat_to_matrix(a)),
        (tu.quat_from_euler_xyz(T(v[:, 0]), T(v[:, 1]), T(v[:, 2])), m3.quat_from_euler_zyx(v[:, 0], v[:, 1], v[:, 2])),
        (tu.quat_from_angle_axis(T(v[:, 0]), T(b[:, :3])), m3.quat_from_axis_angle(b[:, :3], v[:, 0])),
        (tu.tf_combine(T(a), T(v), T(b), T(v))[1], m3.transform_mul(v, a, v, b)[0]),
        (tu.tf_inverse(T(a), T(v))[1], m3.transform_inverse(v, a)[0]),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want, atol=1e-12)


# Formula fingerprints of host-side quaternion maths: a Hamilton product's w term, a rotation
# through two cross products, a rotation matrix's first entry.
FINGERPRINTS = ("aw * bw - ax * bx", "np.cross(u, t)", "1 - 2 * (y * y + z * z)", "1.0 - 2.0 * (y * y + z * z)")
# Where they may be: math3d itself and torch_utils (the torch side).
ALLOWED = {"core/math3d.py", "torch_utils.py"}


def test_quaternion_formulas_live_in_math3d_only():
    found = []
    for folder, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, PKG).replace(os.sep, "/")
                text = open(path).read()
                found += [(rel, fp) for fp in FINGERPRINTS if fp in text and rel not in ALLOWED]
    assert found == []
    assert "aw * bw - ax * bx" in open(os.path.join(PKG, "core", "math3d.py")).read()   # the scan sees it
    # math3d stands on numpy alone: it imports nothing of gymlike (any layer may use it)
    tree = ast.parse(open(os.path.join(PKG, "core", "math3d.py")).read())
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"__future__", "numpy"}
