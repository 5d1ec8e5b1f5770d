"""Warp CPU arrays made from numpy for the MuJoCo C row kernels (core/mjc.py, core/joint_rows.py):
copies for the tables they read, and views (no copy) of the float64 fields MuJoCo writes."""

from __future__ import annotations

from typing import Any

import numpy as np
import warp as wp


def f64(a: Any, device: str = "cpu") -> wp.array:
    """A float64 copy of `a`, of its shape."""
    return wp.array(np.ascontiguousarray(a, np.float64), dtype=wp.float64, device=device)


def ints(a: Any, device: str = "cpu") -> wp.array:
    """An int32 copy of `a`, flattened."""
    return wp.array(np.ascontiguousarray(a, np.int32).reshape(-1), dtype=wp.int32, device=device)


def view(a: np.ndarray, width: int | None = None) -> wp.array:
    """A float64 (rows, width) view of the contiguous float64 `a` (width: what follows the first
    axis when None); the caller keeps `a` alive as long as the view."""
    assert a.dtype == np.float64 and a.flags.c_contiguous
    width = a[0].size if width is None else width
    return wp.array(ptr=a.ctypes.data, dtype=wp.float64, shape=(a.size // width, width), device="cpu")
