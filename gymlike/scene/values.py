"""The value checkers of scene documents (numbers, with the arithmetic the schema allows, strings,
vectors, quaternions, transforms, mappings and sequences) and their errors: each names the key
path of the value it refuses. scene/schema.py and scene/sources.py both stand on them."""

from __future__ import annotations

import ast
import math

from ..core.errors import GymlikeValueError
from ..core.math3d import quat_from_axis_angle


class SceneError(GymlikeValueError):
    """A scene document that does not follow schema version 1; `.path` is the key path."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class SapUnsupportedSceneFeature(SceneError):
    """A documented scene feature gymlike cannot build (raised with strict=True)."""


UnsupportedSceneFeature = SapUnsupportedSceneFeature      # gymlike's earlier name


# ---------------------------------------------------------------------------- numbers
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _arith(node, path, text):
    """Evaluate a parsed arithmetic expression: numbers, `pi`, + - * /, unary signs, parentheses.
    Anything else (names, calls, attributes, powers) is refused: the text is data, never code."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _arith(node.operand, path, text)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _arith(node.left, path, text), _arith(node.right, path, text)
        if isinstance(node.op, ast.Div) and b == 0:
            raise SceneError(path, f"division by zero in {text!r}")
        return _BINOPS[type(node.op)](a, b)
    raise SceneError(path, f"expected a number or an expression of numbers, pi, + - * / and "
                           f"parentheses, got {text!r}")


def number(value, path, *, positive=False, nonneg=False):
    if isinstance(value, bool):
        raise SceneError(path, f"expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        v = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text or len(text) > 200:
            raise SceneError(path, f"expected a number or a short expression, got {value!r}")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise SceneError(path, f"expected a number or an expression, got {value!r}") from None
        v = _arith(tree.body, path, value)
    else:
        raise SceneError(path, f"expected a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(v):
        raise SceneError(path, f"expected a finite number, got {value!r}")
    if positive and v <= 0:
        raise SceneError(path, f"expected a positive number, got {value!r}")
    if nonneg and v < 0:
        raise SceneError(path, f"expected a number >= 0, got {value!r}")
    return v


def integer(value, path, minimum=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise SceneError(path, f"expected an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise SceneError(path, f"expected an integer >= {minimum}, got {value!r}")
    return int(value)


def boolean(value, path):
    if not isinstance(value, bool):
        raise SceneError(path, f"expected true or false, got {value!r}")
    return value


def string(value, path):
    if not isinstance(value, str) or not value:
        raise SceneError(path, f"expected a non-empty string, got {value!r}")
    return value


def vector(value, path, n=3):
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise SceneError(path, f"expected a list of {n} numbers, got {value!r}")
    return [number(v, f"{path}[{i}]") for i, v in enumerate(value)]


def mapping(value, path, allowed, required=()):
    """A mapping whose keys are all in `allowed` (an unknown key is most likely a typo)."""
    if not isinstance(value, dict):
        raise SceneError(path, f"expected a mapping, got {type(value).__name__} {value!r}")
    for k in value:
        if k not in allowed:
            raise SceneError(join(path, k), f"unknown key; expected one of {', '.join(sorted(allowed))}")
    for k in required:
        if k not in value:
            raise SceneError(join(path, k), "missing required key")
    return value


def sequence(value, path):
    if value is None:
        return []
    if not isinstance(value, list):
        raise SceneError(path, f"expected a list, got {type(value).__name__}")
    return value


def join(path, key):
    return f"{path}.{key}" if path else str(key)


def exclusive(m, path, keys):
    """The one key of `keys` present in m (None if none); two of them is an error."""
    given = [k for k in keys if k in m]
    if len(given) > 1:
        raise SceneError(join(path, given[1]), f"give only one of {', '.join(keys)}")
    return given[0] if given else None


# ---------------------------------------------------------------------------- transforms
IDENTITY = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def quaternion(value, path):
    """`identity`, [x, y, z, w] (normalized) or {axis_angle: {axis: [x, y, z], angle: a}}."""
    if value is None or value == "identity":
        return IDENTITY[1]
    if isinstance(value, dict):
        aa = mapping(value, path, ("axis_angle",), ("axis_angle",))["axis_angle"]
        m = mapping(aa, join(path, "axis_angle"), ("axis", "angle"), ("axis", "angle"))
        axis = vector(m["axis"], join(path, "axis_angle.axis"))
        n = math.sqrt(sum(a * a for a in axis))
        if n == 0:
            raise SceneError(join(path, "axis_angle.axis"), "expected a non-zero axis")
        angle = number(m["angle"], join(path, "axis_angle.angle"))
        return tuple(map(float, quat_from_axis_angle(axis, angle)))
    if not isinstance(value, (list, tuple)):
        raise SceneError(path, f"expected identity, [x, y, z, w] or {{axis_angle: {{axis, angle}}}}, got {value!r}")
    q = vector(value, path, 4)
    n = math.sqrt(sum(c * c for c in q))
    if n < 1e-9:
        raise SceneError(path, f"expected a non-zero quaternion, got {value!r}")
    return tuple(c / n for c in q)


def transform(value, path):
    """`identity` or {p: [x, y, z], q: quaternion}."""
    if value is None or value == "identity":
        return IDENTITY
    m = mapping(value, path, ("p", "q"))
    p = tuple(vector(m["p"], join(path, "p"))) if "p" in m else IDENTITY[0]
    return (p, quaternion(m.get("q"), join(path, "q")))


def axis(value, path):
    """[x, y, z], a token x / y / z (optionally signed), or Newton's integer axis 0 / 1 / 2."""
    if isinstance(value, str):
        t = value.strip().lower()
        sign = -1.0 if t.startswith("-") else 1.0
        t = t.lstrip("+-")
        if t not in ("x", "y", "z"):
            raise SceneError(path, f"expected [x, y, z], x, y, z or 0, 1, 2, got {value!r}")
        v = [0.0, 0.0, 0.0]
        v["xyz".index(t)] = sign
        return v
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in (0, 1, 2):
            raise SceneError(path, f"expected the axis token 0, 1 or 2, got {value!r}")
        v = [0.0, 0.0, 0.0]
        v[value] = 1.0
        return v
    v = vector(value, path)
    if not any(v):
        raise SceneError(path, "expected a non-zero axis")
    return v
