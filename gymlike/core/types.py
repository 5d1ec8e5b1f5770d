"""Isaac Gym value types (Vec3, Quat, Transform, ...), their numpy dtypes, and parameter structs.

Quaternions are (x, y, z, w), scalar last, as in Isaac Gym and Newton. Parameter structs reject
unknown attribute names (a typo such as `sim_params.phyx` is an error, not a silently ignored
attribute), like Isaac Gym's pybind11 classes."""

from __future__ import annotations

import difflib
import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from . import math3d
from .enums import (ContactCollection, DofDriveMode, MeshNormalMode, SoftMaterialType, UpAxis,
                    UsdMaterialMode)
from .errors import GymlikeTypeError, GymlikeValueError
from .runtime import call_name

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

# ----------------------------------------------------------------------------- numpy dtypes
VEC3_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")])
QUAT_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")])
TRANSFORM_DTYPE = np.dtype([("p", VEC3_DTYPE), ("r", QUAT_DTYPE)])
VELOCITY_DTYPE = np.dtype([("linear", VEC3_DTYPE), ("angular", VEC3_DTYPE)])
RIGID_BODY_STATE_DTYPE = np.dtype([("pose", TRANSFORM_DTYPE), ("vel", VELOCITY_DTYPE)])
DOF_STATE_DTYPE = np.dtype([("pos", "<f4"), ("vel", "<f4")])
DOF_FRAME_DTYPE = np.dtype([("origin", VEC3_DTYPE), ("axis", VEC3_DTYPE)])
DOF_PROPERTIES_DTYPE = np.dtype([
    ("hasLimits", "?"), ("lower", "<f4"), ("upper", "<f4"), ("driveMode", "<i4"),
    ("velocity", "<f4"), ("effort", "<f4"), ("stiffness", "<f4"), ("damping", "<f4"),
    ("friction", "<f4"), ("armature", "<f4"),
])
VEC2_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4")])
INT2_DTYPE = np.dtype([("x", "<i4"), ("y", "<i4")])
INT3_DTYPE = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4")])
RIGID_CONTACT_DTYPE = np.dtype([
    ("env0", "<i4"), ("env1", "<i4"), ("body0", "<i4"), ("body1", "<i4"),
    ("localPos0", VEC3_DTYPE), ("localPos1", VEC3_DTYPE), ("minDist", "<f4"),
    ("initialOverlap", "<f4"), ("normal", VEC3_DTYPE), ("offset0", VEC3_DTYPE),
    ("offset1", VEC3_DTYPE), ("lambda", "<f4"), ("lambdaFriction", VEC2_DTYPE),
    ("friction", "<f4"), ("torsionFriction", "<f4"), ("rollingFriction", "<f4"),
])
PARTICLE_STATE_DTYPE = np.dtype([("position", QUAT_DTYPE), ("velocity", VEC3_DTYPE),
                                 ("normal", QUAT_DTYPE)])


def number(v: Any, what: str, integer: bool = False) -> float | int:
    """A Python float (or int) from what pybind11 takes as one: numbers, numpy scalars, and any
    one-element array or tensor (IsaacGymEnvs passes `tensor([1.16])` and shape-(1,) arrays).
    bool, strings and larger arrays are a clear TypeError."""
    t = type(v)
    if t is float and not integer:      # (the usual case, first: property objects make thousands)
        return v
    if t is int:
        return v if integer else float(v)
    if isinstance(v, (bool, np.bool_, str, bytes)) or v is None:
        raise GymlikeTypeError(f"{what} must be a number, got {type(v).__name__} {v!r}")
    if not isinstance(v, (int, float, np.integer, np.floating)):
        size = getattr(v, "size", None)
        size = size() if callable(size) and hasattr(v, "numel") else size
        if size is not None and hasattr(v, "item"):
            if int(np.prod(size)) != 1:
                raise GymlikeTypeError(f"{what} must be a number, got an array of shape {tuple(np.shape(v))}")
            v = v.item()
        elif hasattr(v, "__index__"):
            v = v.__index__()
        elif hasattr(v, "__float__") and not integer:
            v = float(v)
        else:
            raise GymlikeTypeError(f"{what} must be a number, got {type(v).__name__}")
    if integer:
        if isinstance(v, (float, np.floating)):
            if not float(v).is_integer():
                raise GymlikeTypeError(f"{what} must be an integer, got {v!r}")
        return int(v)
    return float(v)


def as_int(v: Any) -> int | None:
    """`v` as the int pybind11 makes of it for an int argument (a handle, an index): ints, bools,
    numpy integers and anything with __index__ (an integer torch scalar such as `env_ids[i]`);
    None for what it refuses (floats, strings, None, other objects)."""
    if v is None or isinstance(v, (float, np.floating, str, bytes)):
        return None
    if isinstance(v, np.bool_):
        return int(v)
    try:
        return operator.index(v)
    except TypeError:
        return None


def require_finite(value: T, what: str) -> T:
    """Raise a ValueError naming `what` unless every number of a float, Vec3, Quat or Transform
    is finite (a NaN pose, plane or gravity otherwise fails much later under another name)."""
    parts = (value.p, value.r) if isinstance(value, Transform) else (value,)
    nums = [float(x) for part in parts for x in (part.to_tuple() if hasattr(part, "to_tuple") else (part,))]
    if not np.isfinite(nums).all():
        raise GymlikeValueError(f"{what} must be finite, got {value}")
    return value


def _num(v, what):
    return number(v, what)


def _record(buf, dtype, what):
    """A numpy record / one-element array of `dtype` (or raw bytes of one), as a 0-d array."""
    if isinstance(buf, np.void) or isinstance(buf, np.ndarray):
        a = np.asarray(buf)
        if a.dtype != dtype:     # same bytes, another view (e.g. 7 float32 for a Transform)
            if a.nbytes != dtype.itemsize:
                raise GymlikeTypeError(f"{what}: expected a record of dtype {dtype}, got {a.dtype} "
                                       f"with shape {a.shape}")
            a = np.ascontiguousarray(a).reshape(-1).view(dtype)
    else:
        try:
            a = np.frombuffer(buf, dtype=dtype)
        except (TypeError, ValueError) as e:
            raise GymlikeTypeError(f"{what}: expected a buffer of {dtype.itemsize} bytes: {e}") from None
    if a.size != 1:
        raise GymlikeValueError(f"{what}: expected one record, got {a.size}")
    return a.reshape(())


@classmethod
def _from_buffer(cls, buf):
    """Isaac Gym's `X.from_buffer(record)`: a value of type X from a numpy record of X.dtype
    (e.g. `Transform.from_buffer(states['pose'][i])`)."""
    return cls._from_record(_record(buf, cls.dtype, f"{cls.__name__}.from_buffer"))


def finite_vec3(v: Any, what: str) -> np.ndarray:
    """`v` (a Vec3, or a record of one) as a float64 (3,) array; refused unless finite (`what`
    names the argument in the error)."""
    vec = coerce(Vec3, v, what)
    out = np.array([vec.x, vec.y, vec.z], np.float64)
    if not np.isfinite(out).all():
        raise GymlikeValueError(f"{what} must be finite, got {vec}")
    return out


def coerce(cls: type[T], v: Any, what: str | None = None) -> T:
    """`v` as a value of type cls (Vec3, Quat, Transform, ...): the value itself, or a numpy
    record of cls.dtype read from a state array (Isaac Gym's pybind11 types accept both)."""
    what = what or call_name()
    if isinstance(v, cls):
        return v
    if isinstance(v, (np.void, np.ndarray)) and np.asarray(v).dtype == cls.dtype:
        return cls._from_record(_record(v, cls.dtype, what))
    raise GymlikeTypeError(f"{what} must be gymapi.{cls.__name__}, got {type(v).__name__}")


# ----------------------------------------------------------------------------- vectors
class Vec2:
    __slots__ = ("x", "y")
    dtype = VEC2_DTYPE
    from_buffer = _from_buffer

    def __init__(self, x=0.0, y=0.0):
        self.x = _num(x, "Vec2.x")
        self.y = _num(y, "Vec2.y")

    @classmethod
    def _from_record(cls, r):
        return cls(r["x"], r["y"])

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec2(self.x - o.x, self.y - o.y)

    def __mul__(self, s):
        return Vec2(self.x * s, self.y * s)

    __rmul__ = __mul__

    def __truediv__(self, s):
        return Vec2(self.x / s, self.y / s)

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __getstate__(self):
        return (self.x, self.y)

    def __setstate__(self, s):
        self.x, self.y = s

    def __repr__(self):
        return f"Vec2({self.x:g}, {self.y:g})"


class Vec3:
    """3-vector with the arithmetic Isaac Gym scripts use."""
    __slots__ = ("x", "y", "z")
    dtype = VEC3_DTYPE
    from_buffer = _from_buffer

    def __init__(self, x=0.0, y=0.0, z=0.0):
        if isinstance(x, Vec3):  # copy constructor, convenient and harmless
            x, y, z = x.x, x.y, x.z
        self.x = _num(x, "Vec3.x")
        self.y = _num(y, "Vec3.y")
        self.z = _num(z, "Vec3.z")

    @classmethod
    def _from_record(cls, r):
        return cls(r["x"], r["y"], r["z"])

    @classmethod
    def _of(cls, x: float, y: float, z: float) -> Vec3:
        """A Vec3 of three Python floats, unchecked (gymlike's own values)."""
        v = object.__new__(cls)
        v.x, v.y, v.z = x, y, z
        return v

    def __add__(self, o):
        return Vec3(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return Vec3(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, s):
        if isinstance(s, Vec3):
            return Vec3(self.x * s.x, self.y * s.y, self.z * s.z)
        return Vec3(self.x * s, self.y * s, self.z * s)

    __rmul__ = __mul__

    def __truediv__(self, s):
        return Vec3(self.x / s, self.y / s, self.z / s)

    def __neg__(self):
        return Vec3(-self.x, -self.y, -self.z)

    def __eq__(self, o):
        return isinstance(o, Vec3) and (self.x, self.y, self.z) == (o.x, o.y, o.z)

    __hash__ = None

    def dot(self, o: Vec3) -> float:
        """Dot product with `o`."""
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o: Vec3) -> Vec3:
        """Cross product self x o."""
        return Vec3(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z,
                    self.x * o.y - self.y * o.x)

    def length_sq(self) -> float:
        """Squared length."""
        return self.dot(self)

    def length(self) -> float:
        """Euclidean length."""
        return math.sqrt(self.dot(self))

    def normalize(self) -> Vec3:
        """This vector scaled to unit length (a zero vector stays zero)."""
        n = self.length()
        return Vec3(self) if n == 0.0 else self / n

    def to_tuple(self) -> tuple[float, float, float]:
        """(x, y, z)."""
        return (self.x, self.y, self.z)

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __getstate__(self):
        return (self.x, self.y, self.z)

    def __setstate__(self, s):
        self.x, self.y, self.z = s

    def __repr__(self):
        return f"Vec3({self.x:g}, {self.y:g}, {self.z:g})"


class Quat:
    """Unit quaternion (x, y, z, w)."""
    __slots__ = ("x", "y", "z", "w")
    dtype = QUAT_DTYPE
    from_buffer = _from_buffer

    def __init__(self, x=0.0, y=0.0, z=0.0, w=1.0):
        self.x = _num(x, "Quat.x")
        self.y = _num(y, "Quat.y")
        self.z = _num(z, "Quat.z")
        self.w = _num(w, "Quat.w")

    @classmethod
    def _from_record(cls, r):
        return cls(r["x"], r["y"], r["z"], r["w"])

    @staticmethod
    def from_axis_angle(axis: Vec3, angle: float) -> Quat:
        """Rotation by `angle` rad about `axis` (normalised)."""
        a = Vec3(axis)
        return Quat(*math3d.quat_from_axis_angle((a.x, a.y, a.z), angle))

    @staticmethod
    def from_euler_zyx(x: float, y: float, z: float) -> Quat:
        """Rotation about X by `x`, then Y by `y`, then Z by `z` (all in the fixed frame)."""
        return Quat(*math3d.quat_from_euler_zyx(x, y, z))

    def to_euler_zyx(self) -> tuple[float, float, float]:
        """Inverse of from_euler_zyx: returns (x, y, z) angles."""
        return tuple(float(a) for a in math3d.quat_to_euler_zyx(self.to_tuple()))

    def __mul__(self, q):
        if not isinstance(q, Quat):
            raise GymlikeTypeError(f"Quat * expects a Quat, got {type(q).__name__}")
        return Quat(*math3d.quat_mul_c(self.x, self.y, self.z, self.w, q.x, q.y, q.z, q.w))

    def __eq__(self, o):
        return isinstance(o, Quat) and (self.x, self.y, self.z, self.w) == (o.x, o.y, o.z, o.w)

    __hash__ = None

    def inverse(self) -> Quat:
        """The inverse rotation (conjugate / squared norm)."""
        return Quat(*math3d.quat_inverse(self.to_tuple()))

    def normalize(self) -> Quat:
        """This quaternion scaled to unit norm."""
        n = math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w)
        return Quat(self.x / n, self.y / n, self.z / n, self.w / n)

    def rotate(self, v: Vec3) -> Vec3:
        """`v` rotated by this quaternion."""
        return Vec3(*math3d.quat_rotate_c(self.x, self.y, self.z, self.w, v.x, v.y, v.z))

    def to_tuple(self) -> tuple[float, float, float, float]:
        """(x, y, z, w)."""
        return (self.x, self.y, self.z, self.w)

    def __iter__(self):
        return iter((self.x, self.y, self.z, self.w))

    def __getstate__(self):
        return (self.x, self.y, self.z, self.w)

    def __setstate__(self, s):
        self.x, self.y, self.z, self.w = s

    def __repr__(self):
        return f"Quat({self.x:g}, {self.y:g}, {self.z:g}, {self.w:g})"


class Transform:
    """Rigid transform: rotation `r` then translation `p`."""
    __slots__ = ("p", "r")
    dtype = TRANSFORM_DTYPE
    from_buffer = _from_buffer

    def __init__(self, p=None, r=None):
        p = coerce(Vec3, p, "Transform.p") if p is not None else None
        r = coerce(Quat, r, "Transform.r") if r is not None else None
        self.p = Vec3(p) if p is not None else Vec3()
        self.r = Quat(*r) if r is not None else Quat()

    @classmethod
    def _from_record(cls, r):
        return cls(Vec3._from_record(r["p"]), Quat._from_record(r["r"]))

    def __setattr__(self, name, value):
        if name == "p":
            value = coerce(Vec3, value, "Transform.p")
        elif name == "r":
            value = coerce(Quat, value, "Transform.r")
        object.__setattr__(self, name, value)

    def __mul__(self, o):
        return Transform(self.p + self.r.rotate(o.p), self.r * o.r)

    def inverse(self) -> Transform:
        """The inverse transform."""
        ri = self.r.inverse()
        return Transform(-ri.rotate(self.p), ri)

    def transform_point(self, v: Vec3) -> Vec3:
        """Point `v` mapped by this transform: p + r.rotate(v)."""
        return self.p + self.r.rotate(v)

    def transform_vector(self, v: Vec3) -> Vec3:
        """Vector `v` rotated by this transform (no translation)."""
        return self.r.rotate(v)

    def transform_points(self, pts: np.ndarray) -> np.ndarray:
        """Points (a Vec3.dtype array of any shape) mapped by this transform, same shape."""
        return transform(np.broadcast_to(self.to_numpy(), np.shape(pts)), pts)

    def transform_vectors(self, vecs: np.ndarray) -> np.ndarray:
        """Vectors (a Vec3.dtype array of any shape) rotated by this transform, same shape."""
        r = np.empty(np.shape(vecs), QUAT_DTYPE)
        r[...] = self.r.to_tuple()
        return rotate(r, vecs)

    def to_numpy(self) -> np.ndarray:
        """This transform as a 0-d Transform.dtype record (p, r: float32 fields)."""
        a = np.zeros((), TRANSFORM_DTYPE)
        a["p"] = self.p.to_tuple()
        a["r"] = self.r.to_tuple()
        return a

    def __getstate__(self):
        return (self.p.__getstate__(), self.r.__getstate__())

    def __setstate__(self, s):
        object.__setattr__(self, "p", Vec3(*s[0]))
        object.__setattr__(self, "r", Quat(*s[1]))

    def __repr__(self):
        return f"Transform(p={self.p!r}, r={self.r!r})"


class Velocity:
    __slots__ = ("linear", "angular")
    dtype = VELOCITY_DTYPE
    from_buffer = _from_buffer

    def __init__(self, p=None, q=None):
        self.linear = Vec3(p) if p is not None else Vec3()
        self.angular = Vec3(q) if q is not None else Vec3()

    @classmethod
    def _from_record(cls, r):
        return cls(Vec3._from_record(r["linear"]), Vec3._from_record(r["angular"]))

    def __repr__(self):
        return f"Velocity(linear={self.linear!r}, angular={self.angular!r})"


class RigidBodyState:
    __slots__ = ("pose", "vel")
    dtype = RIGID_BODY_STATE_DTYPE
    from_buffer = _from_buffer

    def __init__(self):
        self.pose = Transform()
        self.vel = Velocity()

    @classmethod
    def _from_record(cls, r):
        out = cls()
        out.pose, out.vel = Transform._from_record(r["pose"]), Velocity._from_record(r["vel"])
        return out


class DofState:
    __slots__ = ("pos", "vel")
    dtype = DOF_STATE_DTYPE
    from_buffer = _from_buffer

    def __init__(self, pos=0.0, vel=0.0):
        self.pos = _num(pos, "DofState.pos")
        self.vel = _num(vel, "DofState.vel")

    @classmethod
    def _from_record(cls, r):
        return cls(r["pos"], r["vel"])


class DofFrame:
    __slots__ = ("origin", "axis")
    dtype = DOF_FRAME_DTYPE
    from_buffer = _from_buffer

    def __init__(self, origin=None, axis=None):
        self.origin = Vec3(origin) if origin is not None else Vec3()
        self.axis = Vec3(axis) if axis is not None else Vec3()

    @classmethod
    def _from_record(cls, r):
        return cls(Vec3._from_record(r["origin"]), Vec3._from_record(r["axis"]))

    def __repr__(self):
        return f"DofFrame(origin={self.origin!r}, axis={self.axis!r})"


class Int2:
    __slots__ = ("x", "y")
    dtype = INT2_DTYPE

    def __init__(self, x=0, y=0):
        self.x, self.y = int(x), int(y)

    def __repr__(self):
        return f"Int2({self.x}, {self.y})"


class Int3:
    __slots__ = ("x", "y", "z")
    dtype = INT3_DTYPE

    def __init__(self, x=0, y=0, z=0):
        self.x, self.y, self.z = int(x), int(y), int(z)


class Mat33:
    __slots__ = ("x", "y", "z")

    def __init__(self):
        self.x, self.y, self.z = Vec3(), Vec3(), Vec3()

    @staticmethod
    def from_numpy(m: np.ndarray) -> Mat33:
        """A Mat33 with rows x, y, z of the (3, 3) array `m`."""
        out = object.__new__(Mat33)
        (a, b, c), (d, e, f), (g, h, i) = np.asarray(m, np.float64).tolist()
        out.x, out.y, out.z = Vec3._of(a, b, c), Vec3._of(d, e, f), Vec3._of(g, h, i)
        return out

    def to_numpy(self) -> np.ndarray:
        """Rows x, y, z as a (3, 3) float64 array."""
        return np.array([self.x.to_tuple(), self.y.to_tuple(), self.z.to_tuple()], np.float64)

    def __repr__(self):
        return f"Mat33({self.x!r}, {self.y!r}, {self.z!r})"


class Mat44:
    __slots__ = ("x", "y", "z", "w")

    def __init__(self):
        self.x, self.y, self.z, self.w = Quat(0, 0, 0, 0), Quat(0, 0, 0, 0), Quat(0, 0, 0, 0), Quat(0, 0, 0, 0)


# ----------------------------------------------------------------------------- numpy helpers
# Vectorised versions of the maths above, on structured arrays (gymapi.rotate, gymapi.transform...).
def _q(a):
    return np.stack([a["x"], a["y"], a["z"], a["w"]], -1).astype(np.float64)


def _v(a):
    return np.stack([a["x"], a["y"], a["z"]], -1).astype(np.float64)


def _to_vec3_array(v):
    out = np.empty(v.shape[:-1], VEC3_DTYPE)
    out["x"], out["y"], out["z"] = v[..., 0], v[..., 1], v[..., 2]
    return out


def _to_quat_array(q):
    out = np.empty(q.shape[:-1], QUAT_DTYPE)
    out["x"], out["y"], out["z"], out["w"] = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return out


def rotate(quats: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Vec3.dtype array: each vector rotated by its quaternion (Quat.dtype array), broadcast."""
    return _to_vec3_array(math3d.quat_rotate(_q(quats), _v(vecs)))


def rotate_inverse(quats: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Vec3.dtype array: each vector rotated by the inverse of its quaternion, broadcast."""
    return _to_vec3_array(math3d.quat_rotate_inverse(_q(quats), _v(vecs)))


def transform(transforms: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Vec3.dtype array: each point mapped by its transform (Transform.dtype array), broadcast."""
    return _to_vec3_array(math3d.transform_point(_v(transforms["p"]), _q(transforms["r"]), _v(vecs)))


def transform_inverse(transforms: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Vec3.dtype array: each point mapped by the inverse of its transform, broadcast."""
    return _to_vec3_array(math3d.quat_rotate_inverse(_q(transforms["r"]), _v(vecs) - _v(transforms["p"])))


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot products of two Vec3.dtype arrays, float32, broadcast."""
    return np.sum(_v(a) * _v(b), -1).astype(np.float32)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products a x b of two Vec3.dtype arrays, as a Vec3.dtype array."""
    return _to_vec3_array(np.cross(_v(a), _v(b)))


def quats_to_eulers_zyx(quats: np.ndarray) -> np.ndarray:
    """Vec3.dtype array of (x, y, z) angles in rad (as Quat.to_euler_zyx) of a Quat.dtype array."""
    return _to_vec3_array(math3d.quat_to_euler_zyx(_q(quats)))


def eulers_to_quats_zyx(eulers: np.ndarray) -> np.ndarray:
    """Quat.dtype array of the rotations (as Quat.from_euler_zyx) of a Vec3.dtype array of angles in rad."""
    e = _v(eulers)
    return _to_quat_array(math3d.quat_from_euler_zyx(e[..., 0], e[..., 1], e[..., 2]))


# ----------------------------------------------------------------------------- parameter structs
class _Struct:
    """Attribute bag with fixed field names and per-instance defaults.

    Subclasses define `_defaults` (name -> default value or zero-arg factory)."""
    _defaults: dict = {}

    def __init__(self, **kwargs):
        for name, default in self._defaults.items():
            # classes and lambdas are factories, so mutable defaults are never shared
            object.__setattr__(self, name, default() if callable(default) else default)
        for k, v in kwargs.items():
            setattr(self, k, v)

    @classmethod
    def _trusted(cls, **values):
        """An instance with `values` set as they are, unchecked: gymlike's own values, already of
        the fields' types (getters build thousands of these)."""
        obj = object.__new__(cls)
        d = obj.__dict__
        for name, default in cls._defaults.items():
            d[name] = values[name] if name in values else (default() if callable(default) else default)
        return obj

    def __setattr__(self, name, value):
        if name not in self._defaults:
            close = difflib.get_close_matches(name, self._defaults, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise AttributeError(f"{type(self).__name__} has no attribute '{name}'{hint}")
        object.__setattr__(self, name, self._coerce(name, value))

    def _coerce(self, name, value):
        """Convert as pybind11 does for the field's type: numpy records into Vec3/Quat/Transform
        fields, one-element arrays/tensors and numpy scalars into numeric fields."""
        cur = self.__dict__.get(name)
        what = f"{type(self).__name__}.{name}"
        if isinstance(cur, (Vec3, Quat, Transform)):
            return coerce(type(cur), value, what)
        if isinstance(value, (str, bytes)) and isinstance(cur, (int, float)) and not isinstance(cur, bool):
            raise GymlikeTypeError(f"{what} must be a number, got {type(value).__name__} {value!r}")
        if value is None or isinstance(value, (bool, int, float, str)) or cur is None:
            return value            # plain values are checked where they are used
        if isinstance(cur, bool):
            if isinstance(value, np.bool_) or getattr(value, "dtype", None) is not None and np.size(value) == 1:
                return bool(value.item() if hasattr(value, "item") else value)
            return value
        if isinstance(cur, float):
            return number(value, what)
        if isinstance(cur, int):
            return number(value, what, integer=True)
        return value

    def __getstate__(self):
        return {k: getattr(self, k) for k in self._defaults}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._defaults)
        return f"{type(self).__name__}({fields})"

    def copy(self):
        import copy
        return copy.deepcopy(self)


class PhysXParams(_Struct):
    _defaults = dict(
        num_threads=4, solver_type=1, num_position_iterations=4, num_velocity_iterations=1,
        contact_offset=0.02, rest_offset=0.001, bounce_threshold_velocity=0.2,
        max_depenetration_velocity=100.0, default_buffer_size_multiplier=2.0,
        max_gpu_contact_pairs=1024 * 1024, num_subscenes=0, use_gpu=False,
        always_use_articulations=False, friction_offset_threshold=0.04,
        friction_correlation_distance=0.025, contact_collection=ContactCollection.CC_ALL_SUBSTEPS,
    )


class FlexParams(_Struct):
    _defaults = dict(
        solver_type=5, num_outer_iterations=4, num_inner_iterations=15, relaxation=0.75,
        warm_start=0.4, contact_regularization=1e-7, deterministic_mode=False,
        dynamic_friction=0.0, static_friction=0.0, particle_friction=0.0, friction_mode=2,
        geometric_stiffness=1.0, max_rigid_contacts=1024 * 1024, max_soft_contacts=1024 * 1024,
        return_contacts=False, shape_collision_distance=0.001, shape_collision_margin=0.001,
    )


class SimParams(_Struct):
    _defaults = dict(
        dt=1.0 / 60.0, substeps=2, gravity=lambda: Vec3(0.0, -9.8, 0.0),
        up_axis=UpAxis.UP_AXIS_Y, use_gpu_pipeline=False, num_client_threads=0,
        enable_actor_creation_warning=False, stress_visualization=False,
        stress_visualization_min=0.0, stress_visualization_max=1e5,
        physx=PhysXParams, flex=FlexParams,
    )


class PlaneParams(_Struct):
    _defaults = dict(normal=lambda: Vec3(0.0, 1.0, 0.0), distance=0.0, static_friction=1.0,
                     dynamic_friction=1.0, restitution=0.0, segmentation_id=0)


class VhacdParams(_Struct):
    _defaults = dict(
        resolution=100000, concavity=0.0, alpha=0.05, beta=0.05, mode=0, pca=0,
        plane_downsampling=4, convex_hull_downsampling=4, convex_hull_approximation=True,
        max_convex_hulls=64, max_num_vertices_per_ch=64, min_volume_per_ch=0.0001,
        ocl_acceleration=True, project_hull_vertices=True,
    )


class AssetOptions(_Struct):
    _defaults = dict(
        angular_damping=0.5, armature=0.0, collapse_fixed_joints=False,
        convex_decomposition_from_submeshes=False,
        default_dof_drive_mode=int(DofDriveMode.DOF_MODE_NONE), density=1000.0,
        disable_gravity=False, enable_gyroscopic_forces=True, fix_base_link=False,
        flip_visual_attachments=False, linear_damping=0.0, max_angular_velocity=64.0,
        max_linear_velocity=1000.0, mesh_normal_mode=MeshNormalMode.FROM_ASSET,
        min_particle_mass=1e-9, override_com=False, override_inertia=False,
        replace_cylinder_with_capsule=False, slices_per_cylinder=20, tendon_limit_stiffness=1.0,
        thickness=0.02, use_mesh_materials=False, use_physx_armature=True, vhacd_enabled=False,
        vhacd_params=VhacdParams,
    )


class CameraProperties(_Struct):
    _defaults = dict(width=1920, height=1080, horizontal_fov=90.0, near_plane=0.01,
                     far_plane=2000000.0, enable_tensors=False, supersampling_horizontal=1,
                     supersampling_vertical=1, use_collision_geometry=False)


class RigidShapeProperties(_Struct):
    _defaults = dict(friction=1.0, rolling_friction=0.0, torsion_friction=0.0, restitution=0.0,
                     compliance=0.0, thickness=0.0, contact_offset=0.02, rest_offset=0.0,
                     filter=0)


class RigidBodyProperties(_Struct):
    _defaults = dict(mass=0.0, invMass=0.0, com=Vec3, inertia=Mat33, invInertia=Mat33, flags=0)


class ForceSensorProperties(_Struct):
    _defaults = dict(enable_forward_dynamics_forces=True, enable_constraint_solver_forces=True,
                     use_world_frame=False)


class AttractorProperties(_Struct):
    _defaults = dict(axes=0, damping=0.0, offset=Transform, rigid_handle=-1, stiffness=0.0,
                     target=Transform)


class HeightFieldParams(_Struct):
    _defaults = dict(column_scale=1.0, row_scale=1.0, vertical_scale=1.0, nbColumns=0, nbRows=0,
                     transform=Transform, static_friction=1.0, dynamic_friction=1.0,
                     restitution=0.0, segmentation_id=0)


class TriangleMeshParams(_Struct):
    _defaults = dict(nb_vertices=0, nb_triangles=0, transform=Transform, static_friction=1.0,
                     dynamic_friction=1.0, restitution=0.0, segmentation_id=0)


class ActuatorProperties(_Struct):
    _defaults = dict(control_limited=False, force_limited=False, kp=0.0, kv=0.0,
                     lower_control_limit=0.0, upper_control_limit=0.0, lower_force_limit=0.0,
                     upper_force_limit=0.0, motor_effort=0.0)


class TendonProperties(_Struct):
    _defaults = dict(damping=0.0, fixed_lower_limit=0.0, fixed_upper_limit=0.0,
                     fixed_spring_rest_length=0.0, is_fixed_limited=False, limit_stiffness=0.0,
                     stiffness=0.0)


class SoftMaterial(_Struct):
    _defaults = dict(activation=0.0, activationMax=0.0, damping=0.0,
                     model=SoftMaterialType.MAT_COROTATIONAL, poissons=0.0, youngs=0.0)


class IndexRange(_Struct):
    _defaults = dict(start=0, count=0)


class Version(_Struct):
    _defaults = dict(major=1, minor=0)


class SpatialForce(_Struct):
    _defaults = dict(force=Vec3, torque=Vec3)


class UsdExportOptions(_Struct):
    _defaults = dict(export_physics=False, material_mode=UsdMaterialMode.USD_MATERIAL_DISPLAY_COLOR,
                     scale=1.0, single_file=True, use_geom_subsets=True, use_physics_visuals=False)


class OmniConnectionParams(_Struct):
    _defaults = dict(enable_cache=False, enable_debug_output=False, password="", server="",
                     username="")


class PerformanceTimers(_Struct):
    _defaults = dict(frame_idling=0.0, graphics_image_retrieval=0.0,
                     graphics_sensor_rendering=0.0, graphics_viewer_rendering=0.0,
                     physics_data_movement=0.0, physics_sim=0.0, total_time=0.0)


class ActionEvent:
    """A viewer action event: `action` is the name given to subscribe_viewer_*_event."""
    __slots__ = ("action", "value")

    def __init__(self, action="", value=0.0):
        self.action = action
        self.value = float(value)

    def __repr__(self):
        return f"ActionEvent(action={self.action!r}, value={self.value})"


class RigidContact:
    dtype = RIGID_CONTACT_DTYPE


class ParticleState:
    dtype = PARTICLE_STATE_DTYPE
