"""Process-wide run settings, set by `python -m gymlike.run` before the script starts.

* `headless`: every viewer is headless, even where a display exists.
* `max_frames`: a viewer reports closed after this many `draw_viewer` frames; a sim that keeps
  calling `simulate` is ended (FrameLimitReached, exit code 0) after this many calls when it has
  no open viewer, or on the first call after all its viewers closed at the limit.
* `key_events`: scripted key presses for headless viewers ({frame: [KeyboardInput, ...]}).
* `record`: a path; every viewer frame is ray traced from the viewer camera and written there
  (a video for .mp4/.gif/..., numbered PNG files in a folder otherwise). Implies headless viewers.

Library users never need this module; without the runner nothing is limited. Under the runner,
the environment variable GYMLIKE_MAX_FRAMES=N is the default of --max-frames."""

from __future__ import annotations

import os
import sys
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from .sim import Sim


def env_max_frames() -> int | None:
    """GYMLIKE_MAX_FRAMES as a positive int, or None."""
    value = os.environ.get("GYMLIKE_MAX_FRAMES", "").strip()
    try:
        n = int(value)
    except ValueError:
        return None
    return n if n > 0 else None


headless = False
max_frames: int | None = None
runner = False                              # set by gymlike.run
key_events: dict = {}
record: str | None = None
recorders: list = []                        # open Recorders (closed when the script ends)

_viewers = weakref.WeakKeyDictionary()      # sim -> list of viewers created for it


class FrameLimitReached(SystemExit):
    """Raised by simulate() when the runner's frame limit is reached. A SystemExit with code 0, so
    `except Exception` in a script does not swallow it and an uncaught one exits cleanly."""

    def __init__(self, message):
        super().__init__(0)
        self.message = message

    def __str__(self):
        return self.message


def close_recorders() -> list[tuple[str, int]]:
    """Finish every recording; returns [(path, frames)]."""
    done = []
    while recorders:
        r = recorders.pop(0)
        r.close()
        done.append((r.path, r.frames))
    return done


_noted_headless = False


def note_headless_viewer(reason: str) -> None:
    """One stderr line, once per process, when a viewer runs headless and nothing limits the frames:
    a `while not query_viewer_has_closed(viewer)` loop would otherwise run silently forever."""
    global _noted_headless
    if _noted_headless or max_frames is not None:
        return
    _noted_headless = True
    how = ("pass --max-frames N to gymlike.run before the script path (or set GYMLIKE_MAX_FRAMES=N)" if runner
           else "run the script with `python -m gymlike.run --max-frames N script.py`")
    sys.stderr.write(f"gymlike: the viewer is headless ({reason}): no window opens and a viewer loop runs until "
                     f"Ctrl-C; to end it after N frames, {how}\n")
    sys.stderr.flush()


def register_viewer(sim: Sim, viewer: Any) -> None:
    """Remember `viewer` (a gymlike.render viewer) as showing `sim`."""
    _viewers.setdefault(sim, []).append(viewer)


def viewers_of(sim: Sim) -> list:
    """The viewers of `sim` not destroyed yet."""
    return [v for v in _viewers.get(sim, []) if not v.destroyed]


class StepLimit:
    """The callable stored in Sim.step_limit (invoked at the start of every simulate)."""

    def __init__(self, limit):
        self.limit = int(limit)
        self.calls = 0

    def __call__(self, sim):
        open_viewers = [v for v in viewers_of(sim) if not v.limit_reached()]
        if not open_viewers and (self.calls >= self.limit or viewers_of(sim)):
            raise FrameLimitReached(f"gymlike.run: frame limit {self.limit} reached after "
                                    f"{self.calls} simulate() calls; ending the script")
        self.calls += 1


def draws_nothing_but_cameras() -> bool:
    """Whether a new sim is in a headless run that records nothing (`gymlike.run --headless`,
    GYMLIKE_VIEWER=headless): only its camera sensors could draw (Sim.wants_visuals)."""
    return not record and (headless or os.environ.get("GYMLIKE_VIEWER", "").strip().lower() == "headless")


def step_limit_for_new_sim() -> StepLimit | None:
    """A StepLimit of max_frames simulate calls for a new sim, or None when nothing limits them."""
    return StepLimit(max_frames) if max_frames is not None else None
