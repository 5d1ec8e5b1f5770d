"""Make `import isaacgym` resolve to gymlike, so Isaac Gym code runs unmodified: the package and
every module of Isaac Gym Preview 4's (`gymapi`, `gymtorch`, `gymutil`, `torch_utils`,
`terrain_utils`, `rlgpu`, `gymdeps`), and an `isaacgym` distribution record for version checks.

    import gymlike
    gymlike.install_isaacgym_alias()
    from isaacgym import gymapi          # -> gymlike.gymapi (the same module object)

`python -m gymlike.run script.py` calls this before running the script.

* `isaacgym` is loaded from gymlike/isaacgym/__init__.py, a real file (`isaacgym.__file__`)
  laid out as in Isaac Gym's tree; `isaacgym.rlgpu` and `isaacgym.gymdeps` are the files beside it.
* The five API modules are gymlike's, loaded lazily (on first use), so `import isaacgym` alone
  stays cheap and does not import torch.
* `importlib.metadata.version("isaacgym")` (and pkg_resources, where installed) answer "1.0rc4":
  Isaac Gym's setup.py says '1.0.preview4', which setuptools records in PEP 440 normal form, as
  pip shows a real installation. The record lives in gymlike/isaacgym_dist, added to the end of
  sys.path by the alias only; nothing is installed into site-packages.
* A real Isaac Gym installation is never shadowed silently: the alias still wins for imports in
  this process (a warning says so, naming the real package), and its distribution record stays
  the one metadata queries find.

Isaac Gym-era code was written for NumPy 1.x and uses names NumPy 2 removed (`np.Inf` in
IsaacGymEnvs' VecTask, `np.float` in legged-robot code): the alias restores those names as the
aliases they were (`legacy_numpy_names=False` leaves NumPy untouched)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import os
import sys

from .core.errors import warn

ALIASED_MODULES = ("gymapi", "gymtorch", "gymutil", "torch_utils", "terrain_utils")
PACKAGE_FILES = ("rlgpu", "gymdeps")            # modules that are files of gymlike/isaacgym/
_PACKAGE = "isaacgym"
_HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.join(_HERE, "isaacgym")
DIST_DIR = os.path.join(_HERE, "isaacgym_dist")  # holds isaacgym-<VERSION>.dist-info
VERSION = "1.0rc4"


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
    if name in ALIASED_MODULES or name in PACKAGE_FILES:
        return importlib.import_module(f"{_PACKAGE}.{name}")
    raise AttributeError(f"module 'isaacgym' (gymlike alias) has no attribute '{name}'; gymlike provides "
                         f"isaacgym.{', isaacgym.'.join(ALIASED_MODULES + PACKAGE_FILES)}")


def _real_isaacgym():
    """Where a real (not gymlike's) Isaac Gym is: its imported package's file, or its installed
    distribution's location; None when there is none."""
    mod = sys.modules.get(_PACKAGE)
    if mod is not None and not getattr(mod, "__gymlike_alias__", False):
        return getattr(mod, "__file__", None) or repr(mod)
    try:
        dist = importlib.metadata.distribution(_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    where = os.path.abspath(str(dist.locate_file("")))
    return None if where == DIST_DIR else f"distribution isaacgym {dist.version} in {where}"


def _provide_distribution():
    """Put gymlike's `isaacgym` record on the metadata search path (end of sys.path; pkg_resources'
    working set too when it is already imported)."""
    if DIST_DIR not in sys.path:
        sys.path.append(DIST_DIR)
    pkg_resources = sys.modules.get("pkg_resources")
    if pkg_resources is not None and DIST_DIR not in pkg_resources.working_set.entries:
        pkg_resources.working_set.add_entry(DIST_DIR)


# NumPy 1.x names removed in NumPy 2 (or 1.24 for the builtin-type aliases), as they were: the
# constants, the type aliases and the functions that were plain synonyms (pyrender, which
# isaacgym-utils' point-cloud example draws with, still uses np.infty)
_NUMPY_LEGACY = {"Inf": "inf", "Infinity": "inf", "PINF": "inf", "NINF": None, "NaN": "nan", "NAN": "nan",
                 "infty": "inf",
                 "float_": "float64", "complex_": "complex128", "unicode_": "str_", "string_": "bytes_",
                 "cfloat": "complex128", "singlecomplex": "complex64", "longfloat": "longdouble",
                 "clongfloat": "clongdouble", "longcomplex": "clongdouble",
                 "product": "prod", "cumproduct": "cumprod", "alltrue": "all", "sometrue": "any",
                 "round_": "round",
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
    real = _real_isaacgym()
    if real is not None:
        warn(f"install_isaacgym_alias: a real Isaac Gym is installed ({real}); in this process "
             "`import isaacgym` now gives gymlike's modules, and metadata queries still describe the "
             "real installation")
    else:
        _provide_distribution()
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    for name in list(sys.modules):   # drop a real isaacgym (and its submodules) imported earlier
        if name == _PACKAGE or name.startswith(_PACKAGE + "."):
            if not getattr(sys.modules[name], "__name__", "").startswith("gymlike."):
                del sys.modules[name]
    spec = importlib.util.spec_from_file_location(_PACKAGE, os.path.join(PACKAGE_DIR, "__init__.py"),
                                                  submodule_search_locations=[PACKAGE_DIR])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[_PACKAGE] = pkg
    spec.loader.exec_module(pkg)
    pkg.__gymlike_alias__ = True
    pkg.__getattr__ = _package_getattr
    pkg.__all__ = list(ALIASED_MODULES)
    from .version import VERSION
    pkg.__version__ = VERSION
    return pkg
