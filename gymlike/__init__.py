"""gymlike: the Isaac Gym Preview 4 Python API on Warp and Newton."""

from .version import VERSION as __version__  # noqa: F401
from .alias import install_isaacgym_alias  # noqa: F401  (`import isaacgym` -> gymlike)
from .core.runtime import passive_openmp as _passive_openmp

_passive_openmp()    # (before torch loads its OpenMP runtime: see core/runtime.py)
