"""`isaacgym.gymdeps`: in Isaac Gym, preloads the native libraries (CUDA, PhysX, USD) and refuses
to run when torch was imported before isaacgym. gymlike has no native libraries to preload and no
import-order rule, so importing this module does nothing (the same public names: none)."""

import ctypes  # noqa: F401  (names Isaac Gym's module has)
import os  # noqa: F401
import sys  # noqa: F401


def _import_deps():
    """Nothing to preload; torch may be imported before or after isaacgym."""
