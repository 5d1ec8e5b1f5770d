"""Value types: the maths Isaac Gym scripts use and the numpy layouts that must match bit for bit."""

import math

import numpy as np
import pytest

from gymlike import gymapi
from gymlike.core.errors import GymlikeError


def rotmat(q):
    x, y, z, w = q.x, q.y, q.z, q.w
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_dtypes_match_isaac_gym():
    f4 = "<f4"
    assert gymapi.Vec3.dtype.descr == [("x", f4), ("y", f4), ("z", f4)]
    assert gymapi.Quat.dtype.descr == [("x", f4), ("y", f4), ("z", f4), ("w", f4)]
    assert gymapi.Transform.dtype.names == ("p", "r")
    assert gymapi.Velocity.dtype.names == ("linear", "angular")
    assert gymapi.RigidBodyState.dtype.names == ("pose", "vel")
    assert gymapi.RigidBodyState.dtype.itemsize == 13 * 4
    assert gymapi.DofState.dtype.descr == [("pos", f4), ("vel", f4)]
    from gymlike.core.types import DOF_PROPERTIES_DTYPE
    assert DOF_PROPERTIES_DTYPE.names == ("hasLimits", "lower", "upper", "driveMode", "velocity",
                                          "effort", "stiffness", "damping", "friction", "armature")
    assert DOF_PROPERTIES_DTYPE["hasLimits"] == np.dtype("?")
    assert DOF_PROPERTIES_DTYPE["driveMode"] == np.dtype("<i4")


def test_vec3_arithmetic():
    a, b = gymapi.Vec3(1, 2, 3), gymapi.Vec3(-2, 0.5, 4)
    assert (a + b).to_tuple() == (-1, 2.5, 7)
    assert (a - b).to_tuple() == (3, 1.5, -1)
    assert (a * 2).to_tuple() == (2, 4, 6)
    assert (a / 2).to_tuple() == (0.5, 1, 1.5)
    assert (-a).to_tuple() == (-1, -2, -3)
    assert a.dot(b) == pytest.approx(np.dot([1, 2, 3], [-2, 0.5, 4]))
    assert a.cross(b).to_tuple() == pytest.approx(tuple(np.cross([1, 2, 3], [-2, 0.5, 4])))
    assert a.length() == pytest.approx(math.sqrt(14))
    assert a.normalize().length() == pytest.approx(1.0)


def test_quat_axis_angle_and_rotation_matrix():
    rng = np.random.default_rng(0)
    for _ in range(20):
        axis = rng.normal(size=3)
        angle = rng.uniform(-math.pi, math.pi)
        q = gymapi.Quat.from_axis_angle(gymapi.Vec3(*axis), angle)
        n = axis / np.linalg.norm(axis)
        K = np.array([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]])
        R = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K  # Rodrigues
        np.testing.assert_allclose(rotmat(q), R, atol=1e-12)
        v = rng.normal(size=3)
        np.testing.assert_allclose(q.rotate(gymapi.Vec3(*v)).to_tuple(), R @ v, atol=1e-12)


def test_quat_composition_and_inverse():
    a = gymapi.Quat.from_axis_angle(gymapi.Vec3(1, 2, 3), 0.7)
    b = gymapi.Quat.from_axis_angle(gymapi.Vec3(-1, 0, 1), -1.3)
    np.testing.assert_allclose(rotmat(a * b), rotmat(a) @ rotmat(b), atol=1e-12)
    i = a * a.inverse()
    assert (i.x, i.y, i.z, i.w) == pytest.approx((0, 0, 0, 1))


def test_euler_zyx_round_trip_and_convention():
    x, y, z = 0.3, -0.4, 1.2
    q = gymapi.Quat.from_euler_zyx(x, y, z)
    Rx = rotmat(gymapi.Quat.from_axis_angle(gymapi.Vec3(1, 0, 0), x))
    Ry = rotmat(gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), y))
    Rz = rotmat(gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), z))
    np.testing.assert_allclose(rotmat(q), Rz @ Ry @ Rx, atol=1e-12)
    assert q.to_euler_zyx() == pytest.approx((x, y, z))
    e = gymapi.quats_to_eulers_zyx(np.array([tuple(q)], gymapi.Quat.dtype))
    assert (e["x"][0], e["y"][0], e["z"][0]) == pytest.approx((x, y, z), abs=1e-6)


def test_transform_maths():
    t = gymapi.Transform(gymapi.Vec3(1, 2, 3), gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), math.pi / 2))
    p = t.transform_point(gymapi.Vec3(1, 0, 0))
    assert p.to_tuple() == pytest.approx((1, 3, 3))
    assert t.transform_vector(gymapi.Vec3(1, 0, 0)).to_tuple() == pytest.approx((0, 1, 0))
    back = t.inverse().transform_point(p)
    assert back.to_tuple() == pytest.approx((1, 0, 0))
    u = gymapi.Transform(gymapi.Vec3(-1, 0, 0.5), gymapi.Quat.from_axis_angle(gymapi.Vec3(1, 0, 0), 0.3))
    v = gymapi.Vec3(0.2, -0.7, 1.1)
    assert (t * u).transform_point(v).to_tuple() == pytest.approx(t.transform_point(u.transform_point(v)).to_tuple())
    pts = np.array([(1, 0, 0), (0, 1, 0)], gymapi.Vec3.dtype)
    out = t.transform_points(pts)
    assert tuple(out[0]) == pytest.approx((1, 3, 3))


def test_param_structs_reject_typos_and_copy_defaults():
    p = gymapi.SimParams()
    with pytest.raises(AttributeError, match="physx"):
        p.phyx = 1
    q = gymapi.SimParams()
    q.gravity.z = -1.0
    assert p.gravity.z == gymapi.SimParams().gravity.z  # no shared mutable default
    assert gymapi.SimParams().up_axis == gymapi.UP_AXIS_Y  # Isaac Gym's default
    o = gymapi.AssetOptions()
    assert o.density == 1000.0 and o.fix_base_link is False


def test_enums_behave_like_ints():
    props = np.zeros(2, [("driveMode", "<i4")])
    props["driveMode"][:] = gymapi.DOF_MODE_POS
    assert props["driveMode"][0] == 1 == gymapi.DOF_MODE_POS
    assert gymapi.STATE_ALL == gymapi.STATE_POS | gymapi.STATE_VEL
    assert gymapi.INVALID_HANDLE == -1


def test_bad_constructor_arguments_raise():
    with pytest.raises(GymlikeError):
        gymapi.Vec3("a", 0, 0)
    with pytest.raises(TypeError):
        gymapi.Transform(p=(1, 2, 3))


def test_from_buffer_and_records_are_accepted_as_isaac_gym_types():
    import numpy as np
    from gymlike import gymapi
    arr = np.zeros(2, gymapi.Transform.dtype)
    arr[1] = ((1.0, 2.0, 3.0), (0.0, 0.0, 0.70710677, 0.70710677))
    t = gymapi.Transform.from_buffer(arr[1])
    assert isinstance(t, gymapi.Transform)
    assert t.transform_point(gymapi.Vec3(1.0, 0.0, 0.0)).to_tuple() == pytest.approx((1.0, 3.0, 3.0), abs=1e-6)
    v = gymapi.Vec3.from_buffer(np.array([(4.0, 5.0, 6.0)], gymapi.Vec3.dtype))
    assert isinstance(v, gymapi.Vec3) and v.to_tuple() == (4.0, 5.0, 6.0)
    ds = gymapi.DofState.from_buffer(np.array([(0.5, -1.0)], gymapi.DofState.dtype)[0])
    assert (ds.pos, ds.vel) == (0.5, -1.0)
    # a record read from a state array goes into a Transform field and stays a Transform
    states = np.zeros(3, gymapi.RigidBodyState.dtype)
    states["pose"]["p"]["z"] = 0.7
    states["pose"]["r"]["w"] = 1.0
    props = gymapi.AttractorProperties()
    props.target = states["pose"][:][2]
    props.target.p.y -= 0.1
    assert isinstance(props.target, gymapi.Transform)
    assert props.target.p.to_tuple() == pytest.approx((0.0, -0.1, 0.7))
    assert states["pose"]["p"]["y"][2] == 0.0                # a copy, as pybind11 makes
    with pytest.raises(ValueError, match="one record"):
        gymapi.Transform.from_buffer(arr)
    with pytest.raises(TypeError, match="must be gymapi.Transform"):
        props.target = (1, 2, 3)


def test_one_element_arrays_and_tensors_are_numbers():
    import numpy as np
    import torch
    from gymlike import gymapi
    sp = gymapi.RigidShapeProperties()
    sp.friction = torch.tensor([1.16])
    sp.filter = np.array([3], np.int64)
    sp.restitution = np.float64(0.25)
    assert (type(sp.friction), type(sp.filter), sp.filter) == (float, int, 3)
    assert sp.friction == pytest.approx(1.16) and sp.restitution == 0.25
    assert gymapi.Vec3(torch.tensor([1.0]), np.array([2.0]), np.float32(3.0)).to_tuple() == (1.0, 2.0, 3.0)
    for bad in ("1.0", np.zeros(3), torch.zeros(2)):
        with pytest.raises(TypeError, match="RigidShapeProperties.friction must be a number"):
            sp.friction = bad
    with pytest.raises(TypeError, match="must be an integer"):
        sp.filter = np.array([1.5])
    assert sp.friction == pytest.approx(1.16) and sp.filter == 3      # unchanged by the failed writes
