"""Lazy, quiet access to Warp and Newton (importing gymlike.gymapi stays fast).

Unless GYMLIKE_VERBOSE is set, Warp's per-module load messages and its native
"Could not find or load the NVIDIA CUDA driver" warning (printed on every machine without a
GPU) are hidden; instead one status line says when Warp starts compiling kernels that are not
in its cache yet (the first run: about a minute of otherwise silent work on a 2-core CPU).
Warp and Newton are reached one way: modules that define Warp kernels import `warp` at module
level (the decorators need it); everything else calls `wp()` / `newton()` here, which also
initialise them quietly on first use.

Lazy imports, one idiom for the whole project: a module that is heavy (Warp kernels, torch,
pxr, pyglet, the RL libraries) or that would close an import cycle is imported by an `import`
statement inside the function that needs it (or inside a one-line accessor such as `wp()`
and `kernels()` here or gymapi's `_cameras()`). Python caches the module, so the statement costs a dictionary
lookup after the first call, and tests/project/test_layout.py sees every such import when it checks
the layers. No module builds Warp objects at import time unless it is a kernel module (its
name ends in `kernels`, or it is imported only inside functions); no `importlib` and no module
`__getattr__` for laziness (tests/project/test_layout.py checks all three)."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import tempfile
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

_ready = False

# One lock for every Gym call: Warp's kernel loading and Newton's solvers are not thread-safe
# (two threads stepping sims crashed the process in Warp), and Isaac Gym code never relies on
# calls running in parallel. Reentrant, since Gym methods call each other.
LOCK = threading.RLock()


_CALL = threading.local()


def passive_openmp() -> bool:
    """Make torch's OpenMP worker threads sleep when idle, unless the user chose a policy.

    libgomp (torch's OpenMP runtime on Linux) keeps its workers spinning for milliseconds after
    every parallel operation by default. On the CPU those workers spin on the cores MuJoCo's
    threads step the worlds on: with IsaacGymEnvs Cartpole at 512 envs on 2 cores, each env.step
    took 6.3 ms with spinning workers and 3.1 ms with sleeping ones. libgomp reads the policy
    once, when torch loads it, so this runs when gymlike is imported (Isaac Gym code imports
    isaacgym before torch). Sets OMP_WAIT_POLICY=PASSIVE when torch is not loaded yet and
    neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set; returns whether it did."""
    if "torch" in sys.modules or "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return False
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


def call_name() -> str:
    """The Gym method this thread is running (the outermost one: what the user called), for
    error messages; 'gymlike' outside Gym calls."""
    return getattr(_CALL, "name", None) or "gymlike"


def serialized(cls: type) -> type:
    """Class decorator: each public method of `cls` runs holding LOCK, and records its name for
    error messages (call_name)."""
    def locked(fn):
        name = fn.__name__

        @functools.wraps(fn)
        def call(*args, **kwargs):
            with LOCK:
                outer = getattr(_CALL, "name", None)
                if outer is None:
                    _CALL.name = name
                try:
                    return fn(*args, **kwargs)
                finally:
                    if outer is None:
                        _CALL.name = None
        return call
    for name, fn in list(vars(cls).items()):
        if callable(fn) and not name.startswith("_"):
            setattr(cls, name, locked(fn))
    return cls


def verbose() -> bool:
    """Whether GYMLIKE_VERBOSE is set (to anything but '', 0, false, no): Warp's own logging stays on."""
    return os.environ.get("GYMLIKE_VERBOSE", "").strip().lower() not in ("", "0", "false", "no")


_QUIET_NATIVE = ("Could not find or load the NVIDIA CUDA driver",)


def _init_quietly(warp):
    """warp.init() with the native CUDA-driver warning dropped from stderr (other lines kept)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):        # no real fd 2 (embedded interpreters): just initialise
        warp.init()
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            warp.init()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        for line in tmp.read().decode("utf-8", "replace").splitlines(keepends=True):
            if not any(q in line for q in _QUIET_NATIVE):
                sys.stderr.write(line)


def _announce_first_compile(warp):
    """One stderr line when Warp's kernel cache is empty: this process compiles every kernel it
    runs (through Warp's public configuration only; a cache that holds some modules stays
    silent, even if a few new ones compile)."""
    d = warp.config.kernel_cache_dir
    try:
        empty = not d or not os.path.isdir(d) or not any(os.scandir(d))
    except OSError:
        return
    if empty:
        sys.stderr.write(f"gymlike: compiling Warp kernels not in the cache yet (first run: about a minute "
                         f"on a 2-core CPU; cached in {d})\n")
        sys.stderr.flush()


@contextlib.contextmanager
def _frozen_import():
    """Run an import of Warp, Newton, MuJoCo-Warp or torch with Python's cyclic garbage
    collector paused, then move every object that exists into the collector's permanent
    generation.

    The first three create ~0.5 million long-lived objects at import (Warp keeps every kernel's parsed
    source). The collector traverses all of them at each full collection: several times while
    they are made (~3 s of the ~7 s import on a 2-core machine), now and then while a program
    runs, and in the collections of interpreter exit (~5 s at the end of every process that
    imported them). Frozen (gc.freeze), they are skipped. Unreachable cycles made by the import
    itself (~2% of its objects) and any made later out of objects frozen here stay allocated
    until exit; a collector the program paused itself stays paused."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def wp() -> ModuleType:
    """The warp module, initialised once (quietly unless verbose())."""
    global _ready
    if not _ready:
        with LOCK:
            if not _ready:
                with _frozen_import():
                    import warp
                if verbose():
                    warp.init()
                else:
                    warp.config.log_level = warp.LOG_WARNING
                    _init_quietly(warp)
                    _announce_first_compile(warp)
                _ready = True
    import warp
    return warp


def newton() -> ModuleType:
    """The newton module, imported after Warp is initialised."""
    wp()
    if "newton" not in sys.modules:
        with LOCK, _frozen_import():
            import newton
    import newton
    return newton


def mujoco_warp() -> ModuleType:
    """The mujoco_warp module (which Newton's MuJoCo solver imports when it is first built)."""
    wp()
    if "mujoco_warp" not in sys.modules:
        with LOCK, _frozen_import():
            import mujoco_warp
    import mujoco_warp
    return mujoco_warp


def torch() -> ModuleType:
    """The torch module, imported frozen as Warp is where gymlike is first to import it (~1.5 s less)."""
    if "torch" not in sys.modules:
        with LOCK, _frozen_import():
            import torch
    import torch
    return torch


# gymlike's Warp kernel modules, for modules that launch kernels but must not load Warp when
# imported (everything gymapi imports at its own import).
@functools.cache    # (a from-import runs importlib's Python on every call: once here)
def kernels() -> ModuleType:
    """gymlike.core.kernels (the step path's and the setters' Warp kernels), imported on first use."""
    from . import kernels
    return kernels


@functools.cache
def tensor_kernels() -> ModuleType:
    """gymlike.core.tensor_kernels (the tensor API's Warp kernels), imported on first use."""
    from . import tensor_kernels
    return tensor_kernels


@functools.cache
def deformable_kernels() -> ModuleType:
    """gymlike.core.deformable_kernels (soft bodies, cloth, particles), imported on first use."""
    from . import deformable_kernels
    return deformable_kernels
