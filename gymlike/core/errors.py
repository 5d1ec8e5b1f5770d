"""Error types. Every gymlike error is a GymlikeError *and* the builtin a user would expect,
so `except ValueError` in legacy code keeps working while `except GymlikeError` catches all."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable


class GymlikeError(Exception):
    """Base class of every error gymlike raises on purpose."""


class GymlikeValueError(GymlikeError, ValueError):
    pass


class GymlikeIndexError(GymlikeError, IndexError):
    pass


class GymlikeTypeError(GymlikeError, TypeError):
    pass


class GymlikeFileNotFoundError(GymlikeError, FileNotFoundError):
    pass


class GymlikeRuntimeError(GymlikeError, RuntimeError):
    pass


class GymlikeNotImplementedError(GymlikeError, NotImplementedError):
    pass


class AssetParseError(GymlikeValueError):
    """A malformed asset file; the message names the file (and line when the parser knows it)."""


class SimulationNaNError(GymlikeRuntimeError):
    """The simulated state contains NaN; the message names the envs."""


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """warnings.warn attributed to the first caller outside gymlike, whatever the call depth
    (Gym methods go through a lock wrapper and helpers, so a fixed stacklevel would name
    gymlike's own files)."""
    import os
    import sys
    import warnings
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def listed(items: Iterable, most: int = 20) -> str:
    """`items` (env indices, ...) for a message: the first `most`, then ' ...' if there are more."""
    items = list(items)
    return ", ".join(map(str, items[:most])) + (" ..." if len(items) > most else "")
