"""Lazy, quiet access to Warp and Newton (importing gymlike.gymapi stays fast; Warp's
per-module compile messages are hidden unless GYMLIKE_VERBOSE is set)."""

import functools
import os
import threading

_ready = False

# One lock for every Gym call: Warp's kernel loading and Newton's solvers are not thread-safe
# (two threads stepping sims crashed the process in Warp), and Isaac Gym code never relies on
# calls running in parallel. Reentrant, since Gym methods call each other.
LOCK = threading.RLock()


def serialized(cls):
    """Class decorator: each public method of `cls` runs holding LOCK."""
    def locked(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            with LOCK:
                return fn(*args, **kwargs)
        return call
    for name, fn in list(vars(cls).items()):
        if callable(fn) and not name.startswith("_"):
            setattr(cls, name, locked(fn))
    return cls


def wp():
    global _ready
    import warp
    if not _ready:
        if not os.environ.get("GYMLIKE_VERBOSE"):
            warp.config.log_level = warp.LOG_WARNING
        warp.init()
        _ready = True
    return warp


def newton():
    wp()
    import newton as nt
    return nt
