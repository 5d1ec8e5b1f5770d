"""Lazy, quiet access to Warp and Newton (importing gymlike.gymapi stays fast; Warp's
per-module compile messages are hidden unless GYMLIKE_VERBOSE is set)."""

import os

_ready = False


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
