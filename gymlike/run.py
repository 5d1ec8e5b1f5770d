"""Run an unmodified Isaac Gym script on gymlike.

    python -m gymlike.run [runner options] path/to/script.py [script args...]

`import isaacgym`, `from isaacgym import gymapi, gymtorch, gymutil, torch_utils, terrain_utils`
and `from isaacgym.torch_utils import *` resolve to gymlike's modules. The script sees what it
would see when run directly: `__name__ == "__main__"`, `__file__` (absolute path), `sys.argv`
(the script path as given, then its arguments), `sys.path[0]` (the script's directory) and the
current working directory (unchanged), so relative asset paths keep working.

Runner options (before the script path):

  --headless        viewers never open a window (they accept every call and count frames)
  --max-frames N    viewers report closed after N draw_viewer frames; a script simulating
                    without an open viewer is ended after N simulate() calls (exit code 0);
                    default: $GYMLIKE_MAX_FRAMES when set, else no limit (a headless viewer
                    loop then runs until Ctrl-C; a one-line note says so)
  --timeout S       wall-clock limit in seconds (exit code 124 when exceeded)
  --keys SPEC       gymlike extension: scripted key presses for headless viewers, e.g.
                    "30:R,60:SPACE" presses KEY_R at frame 30 and KEY_SPACE at frame 60
  --record PATH     record every viewer frame, ray traced from the viewer camera (headless):
                    a video for PATH ending .mp4/.gif/.webm/... (needs imageio + imageio-ffmpeg,
                    `pip install -e ".[video]"`), numbered PNG files in folder PATH otherwise

Exit codes: the script's own (0 when it returns), 0 when ended by --max-frames, 1 when it
raises (traceback on stderr), 124 on --timeout, 130 on Ctrl-C, 2 for a bad runner command line.

Python processes the script starts (Ray workers, multiprocessing "spawn" children, subprocesses)
import `isaacgym` as gymlike too, as they would import a pip-installed Isaac Gym: the runner puts
gymlike/child_path (which holds only an `isaacgym` module that installs the alias) first on their
PYTHONPATH, and passes --headless and --max-frames on as GYMLIKE_VIEWER=headless and
GYMLIKE_MAX_FRAMES.
"""

from __future__ import annotations

import builtins
import os
import signal
import sys
import threading
import traceback
import types

USAGE = ("usage: python -m gymlike.run [--headless] [--max-frames N] [--timeout S] [--keys FRAME:KEY,...] "
         "[--record out.mp4] script.py [script args...]")
EXIT_ERROR, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPT = 1, 2, 124, 130


class RunTimeout(BaseException):
    """The --timeout wall-clock limit was reached (BaseException: `except Exception` won't catch it)."""


class UsageError(Exception):
    pass


def _positive(value, option, kind):
    try:
        v = kind(value)
    except (TypeError, ValueError):
        raise UsageError(f"{option} expects a positive {kind.__name__}, got {value!r}") from None
    if v <= 0:
        raise UsageError(f"{option} expects a positive {kind.__name__}, got {value!r}")
    return v


def parse_key_events(spec):
    """'30:R,60:KEY_SPACE' -> {30: [KEY_R], 60: [KEY_SPACE]} (frames are 1-based draw_viewer counts)."""
    from .core.enums import KeyboardInput
    events = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        frame, sep, key = item.partition(":")
        if not sep:
            raise UsageError(f"--keys: expected FRAME:KEY items, got {item!r}")
        frame = _positive(frame, "--keys frame", int)
        name = key.strip().upper()
        name = name if name.startswith("KEY_") else "KEY_" + name
        if name not in KeyboardInput.__members__:
            raise UsageError(f"--keys: unknown key {key!r} (expected a gymapi.KeyboardInput name such as R "
                             "or KEY_SPACE)")
        events.setdefault(frame, []).append(KeyboardInput[name])
    return events


def parse_command_line(argv):
    """Split argv into runner options and (script, script_args)."""
    opts = dict(headless=False, max_frames=None, timeout=None, keys={}, record=None)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, value = arg.partition("=")
        if name in ("-h", "--help"):
            raise UsageError(None)
        if name == "--headless":
            if eq:
                raise UsageError("--headless takes no value")
            opts["headless"] = True
            i += 1
            continue
        if name not in ("--max-frames", "--timeout", "--keys", "--record"):
            raise UsageError(f"unknown runner option {arg!r} (runner options go before the script path)")
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError(f"{name} needs a value")
            value = argv[i + 1]
            i += 1
        i += 1
        if name == "--max-frames":
            opts["max_frames"] = _positive(value, name, int)
        elif name == "--timeout":
            opts["timeout"] = _positive(value, name, float)
        elif name == "--record":
            if not value:
                raise UsageError("--record needs a file (.mp4, .gif, ...) or folder path")
            opts["record"] = value
        else:
            opts["keys"] = parse_key_events(value)
    if i >= len(argv):
        raise UsageError("no script given")
    return opts, argv[i], list(argv[i + 1:])


def _script_traceback(exc):
    """The traceback from the script's first frame on (runner frames dropped)."""
    tb = exc.__traceback__
    here = os.path.abspath(__file__)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == here:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _install_timeout(seconds):
    """SIGALRM raises RunTimeout in the main thread; a watchdog hard-exits 10 s later if the script
    is stuck in native code that never returns to the interpreter."""
    def on_alarm(signum, frame):
        raise RunTimeout()

    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)

    def watchdog():
        sys.stderr.write(f"gymlike.run: timeout: the script did not stop within {seconds:g} s; exiting\n")
        sys.stderr.flush()
        os._exit(EXIT_TIMEOUT)

    grace = 10.0 if hasattr(signal, "setitimer") else 0.0
    timer = threading.Timer(seconds + grace, watchdog)
    timer.daemon = True
    timer.start()
    return timer


CHILD_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child_path")


def _child_environment(headless, max_frames):
    """os.environ for the processes the script starts: `import isaacgym` works there (CHILD_PATH
    first on PYTHONPATH) with this run's viewer settings. Returns the previous values to restore."""
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "GYMLIKE_VIEWER", "GYMLIKE_MAX_FRAMES")}
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != CHILD_PATH]
    os.environ["PYTHONPATH"] = os.pathsep.join([CHILD_PATH, *entries])
    if headless:
        os.environ["GYMLIKE_VIEWER"] = "headless"
    if max_frames is not None:
        os.environ["GYMLIKE_MAX_FRAMES"] = str(max_frames)
    # multiprocessing's spawn and forkserver children take the parent's sys.path, not PYTHONPATH
    if CHILD_PATH not in sys.path:
        sys.path.append(CHILD_PATH)
        saved["sys.path"] = CHILD_PATH
    return saved


def _restore_environment(saved):
    if saved.pop("sys.path", None) in sys.path:
        sys.path.remove(CHILD_PATH)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def run_script(script, args=(), *, headless=False, max_frames=None, timeout=None, keys=None, record=None):
    """Run `script` as __main__ with the isaacgym alias installed. Returns the process exit code."""
    from . import install_isaacgym_alias
    from .core import session

    path = os.path.abspath(script)
    if not os.path.isfile(path):
        sys.stderr.write(f"gymlike.run: script not found: {script!r} (looked at {path})\n")
        return EXIT_USAGE
    with open(path, "rb") as f:
        source = f.read()

    install_isaacgym_alias()
    session.headless = bool(headless)
    session.runner = True
    session.max_frames = max_frames if max_frames is not None else session.env_max_frames()
    session.key_events = dict(keys or {})
    session.record = os.path.abspath(record) if record else None
    saved_environment = _child_environment(session.headless or bool(session.record), session.max_frames)

    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None, __spec__=None,
                         __loader__=None, __package__=None)
    sys.modules["__main__"] = main
    sys.argv = [script] + list(args)
    sys.path[0:1] = [os.path.dirname(os.path.realpath(path))]

    timer = _install_timeout(timeout) if timeout else None
    try:
        code = compile(source, path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
        return 0
    except session.FrameLimitReached as e:
        sys.stdout.flush()
        sys.stderr.write(f"{e.message}\n")
        return 0
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        sys.stderr.write(f"{e.code}\n")
        return EXIT_ERROR
    except RunTimeout:
        sys.stdout.flush()
        sys.stderr.write(f"gymlike.run: timeout: wall-clock limit of {timeout:g} s reached; script ended\n")
        return EXIT_TIMEOUT
    except KeyboardInterrupt:
        sys.stderr.write("gymlike.run: interrupted\n")
        return EXIT_INTERRUPT
    except BaseException as e:  # noqa: BLE001  (report every script error with its traceback)
        sys.stdout.flush()
        sys.stderr.write(_script_traceback(e))
        return EXIT_ERROR
    finally:
        _restore_environment(saved_environment)
        if timer is not None:
            timer.cancel()
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, 0)
        for rec_path, frames in session.close_recorders():
            sys.stderr.write(f"gymlike.run: recorded {frames} frame(s) to {rec_path}\n")
        sys.stdout.flush()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, script, args = parse_command_line(argv)
    except UsageError as e:
        if e.args and e.args[0]:
            sys.stderr.write(f"gymlike.run: {e.args[0]}\n{USAGE}\n")
            return EXIT_USAGE
        print(__doc__)
        return 0
    return run_script(script, args, headless=opts["headless"], max_frames=opts["max_frames"],
                      timeout=opts["timeout"], keys=opts["keys"], record=opts["record"])


if __name__ == "__main__":
    sys.exit(main())
