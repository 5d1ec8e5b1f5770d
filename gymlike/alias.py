"""Make `import isaacgym` (and `isaacgym.gymapi`, `gymtorch`, `gymutil`, `torch_utils`,
`terrain_utils`) resolve to gymlike's modules, so Isaac Gym code runs unmodified.

    import gymlike
    gymlike.install_isaacgym_alias()
    from isaacgym import gymapi          # -> gymlike.gymapi (the same module object)

`python -m gymlike.run script.py` calls this before running the script. Submodules are imported
lazily (on first use), so `import isaacgym` alone stays cheap and does not import torch.

Isaac Gym-era code was written for NumPy 1.x and uses names NumPy 2 removed (`np.Inf` in
IsaacGymEnvs' VecTask, `np.float` in legged-robot code): the alias restores those names as the
aliases they were (`legacy_numpy_names=False` leaves NumPy untouched)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

ALIASED_MODULES = ("gymapi", "gymtorch", "gymutil", "torch_utils", "terrain_utils")
_PACKAGE = "isaacgym"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)   # the gymlike module itself, not a copy

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds `isaacgym.<name>` for the aliased names before any real isaacgym on sys.path."""

    def find_spec(self, fullname, path=None, target=None):
        head, _, name = fullname.partition(".")
        if head != _PACKAGE or name not in ALIASED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(f"gymlike.{name}"))


def _package_getattr(name):
    if name in ALIASED_MODULES:
        return importlib.import_module(f"{_PACKAGE}.{name}")
    raise AttributeError(f"module 'isaacgym' (gymlike alias) has no attribute '{name}'; gymlike provides "
                         f"isaacgym.{', isaacgym.'.join(ALIASED_MODULES)}")


# NumPy 1.x names removed in NumPy 2 (or 1.24 for the builtin-type aliases), as they were
_NUMPY_LEGACY = {"Inf": "inf", "Infinity": "inf", "PINF": "inf", "NINF": None, "NaN": "nan", "NAN": "nan",
                 "float_": "float64", "complex_": "complex128", "unicode_": "str_", "string_": "bytes_",
                 "float": float, "int": int, "bool": bool, "object": object, "complex": complex, "str": str}


def restore_legacy_numpy_names():
    """Define the removed NumPy 1.x names that Isaac Gym-era code uses (only those missing)."""
    import numpy as np
    for name, value in _NUMPY_LEGACY.items():
        if name in np.__dict__:
            continue
        if value is None:
            value = -np.inf
        elif isinstance(value, str):
            value = getattr(np, value)
        setattr(np, name, value)


def install_isaacgym_alias(legacy_numpy_names=True):
    """Register the `isaacgym` alias package in this process (idempotent). Returns the package."""
    if legacy_numpy_names:
        restore_legacy_numpy_names()
    existing = sys.modules.get(_PACKAGE)
    if existing is not None and getattr(existing, "__gymlike_alias__", False):
        return existing
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    pkg = types.ModuleType(_PACKAGE, "Isaac Gym API provided by gymlike (Warp + Newton).")
    pkg.__path__ = []              # a package: submodules come from _AliasFinder
    pkg.__gymlike_alias__ = True
    pkg.__getattr__ = _package_getattr
    pkg.__all__ = list(ALIASED_MODULES)
    from . import __version__
    pkg.__version__ = __version__
    pkg.__spec__ = importlib.util.spec_from_loader(_PACKAGE, loader=None, is_package=True)
    sys.modules[_PACKAGE] = pkg
    for name in ALIASED_MODULES:   # drop submodules of a real isaacgym imported earlier
        mod = sys.modules.get(f"{_PACKAGE}.{name}")
        if mod is not None and not mod.__name__.startswith("gymlike."):
            del sys.modules[f"{_PACKAGE}.{name}"]
    return pkg
