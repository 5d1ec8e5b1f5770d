"""Cheap repeated kernel launches for the step path.

`wp.launch` packs every argument on every call (about 15 us of Python per launch on this CPU);
a recorded `wp.Launch` re-launches in 3-10 us (it packs its arguments into a new ctypes
structure each time), and a captured graph (Warp's public capture API) replays in C++ in
about 1.5 us. `Launcher` keeps one recorded launch per call site, re-packs only the arguments
that changed since the last call (another array object, such as a new user tensor, or another
scalar value) and on the CPU replays a captured graph while nothing changes; `Graphs` captures
whole functions of launches (Newton's conversions). The tensor API's fixed per-step launches
cost a few microseconds each instead of tens."""

from __future__ import annotations

import functools
import os
import queue
import threading
import time
from typing import TYPE_CHECKING

import warp as wp

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Launcher:
    """One recorded launch per call site (`key`). On the CPU a call site launched STEADY times in
    a row with the same dimension and arguments is captured into a one-launch graph and
    replayed from then on: re-launching a recorded launch packs every argument into a new
    ctypes structure (~0.5 us per argument: 9 us for the 20 of kernels.row_checks), a graph
    replays in ~1.5 us. A capture costs ~0.5 ms, so a call site whose dimension or arguments
    change after its capture (an indexed setter's count, a list of worlds) goes back to its
    recorded launch for good.

    Warp runs a CPU kernel on one thread. A call site launched with `split=True` (a kernel of
    one thread per world whose last parameter is the first world, `w0`, and whose threads
    write nothing another world's thread reads) runs on up to `parts` threads once its replays
    are seen to take over SPLIT_SECONDS (one part per half of it: on many cores a short kernel
    is not handed to every thread): one contiguous range of worlds per thread, each its own
    recorded launch and graph (Warp releases the GIL inside a launch). MuJoCo C steps the
    worlds on that many threads; without this the row kernels of a hand (ShadowHand: joint
    friction, damping, the checks) ran on one core of several."""
    __slots__ = ("device", "cpu", "parts", "_cmds", "_cost", "_replays")
    STEADY = 3
    # (handing a part to a sleeping worker thread and back cost ~40 us with the worker busy and
    # ~150 us between steps on this 2-core VM: ShadowHand at 64 envs gained on its 600 us friction
    # kernel and lost on its 300 us ones; at 256 envs the four split kernels took 6.3 ms
    # instead of 10.5 per env.step)
    SPLIT_SECONDS = 400e-6

    def __init__(self, device, parts: int = 1):
        self.device = device
        self.cpu = str(device).startswith("cpu")
        self.parts = max(1, int(parts))
        self._cmds = {}
        # call sites replaying a graph: (kernel, dimension, arguments, (replay, True)), checked
        # first by one tuple comparison (C speed: identity, then value for scalars); any call
        # that goes the long way drops its entry, so a hit is a graph of these very arguments
        self._replays = {}
        self._cost = {}          # split call sites: [dimension, seconds of its graph replays, parts]

    def __call__(self, key, kernel, dim, args, split=False):
        """Launch `kernel` over `dim` with `args` (positional inputs); `key` names the call site.
        `split`: the kernel takes the first world as one more, last, argument (class doc)."""
        if not dim:                     # nothing to launch over (wp.launch records no command)
            return
        if not split:
            self._prepare(key, kernel, dim, args)[0]()
            return
        if self.parts < 2 or not self.cpu or dim < 4:
            self._prepare(key, kernel, dim, (*args, 0))[0]()
            return
        cost = self._cost.get(key)
        if cost is None or cost[0] != dim:
            cost = self._cost[key] = [dim, [], 1]      # [dimension, replay seconds, parts]
        seen = cost[1]
        k = cost[2]
        if k > 1:
            cut = [dim * i // k for i in range(k + 1)]
            workers(k - 1).run([self._prepare((key, i), kernel, cut[i + 1] - cut[i], (*args, cut[i]))[0]
                                for i in range(k)])
            return
        run, replay = self._prepare(key, kernel, dim, (*args, 0))
        if not replay or len(seen) >= self.STEADY:
            run()
            return
        t0 = time.perf_counter()
        run()
        seen.append(time.perf_counter() - t0)
        if len(seen) == self.STEADY:
            cost[2] = self._parts_for(min(seen), dim)

    def _parts_for(self, seconds: float, dim: int) -> int:
        """How many parts a launch of `seconds` over `dim` worlds runs in: 1 up to SPLIT_SECONDS,
        then one per half of it (a part must outweigh its hand-off), at most `parts` and half
        the worlds."""
        if seconds <= self.SPLIT_SECONDS:
            return 1
        k = self.parts if self.SPLIT_SECONDS <= 0 else int(2 * seconds / self.SPLIT_SECONDS)
        return max(2, min(k, self.parts, dim // 2))

    def _prepare(self, key, kernel, dim, args):
        """(a callable that runs the call site's launch, whether that is a graph replay)."""
        r = self._replays.get(key)
        if r is not None:
            if r[0] is kernel and r[1] == dim and r[2] == args:
                return r[3]
            del self._replays[key]
        e = self._cmds.get(key)
        if e is None or e[3] is not kernel:
            cmd = wp.launch(kernel, dim=dim, inputs=list(args), device=self.device, record_cmd=True)
            # [recorded launch, its arguments, dimension, kernel, graph (None: none yet, False:
            # never), calls in a row with nothing changed]
            e = self._cmds[key] = [cmd, list(args), dim, kernel, None, 0]
            changed = True
        else:
            cmd, old = e[0], e[1]
            changed = False
            if e[2] != dim:                  # (an indexed setter's count changes from call to call)
                cmd.set_dim(dim)
                e[2] = dim
                changed = True
            for i, a in enumerate(args):
                o = old[i]
                if o is not a and (isinstance(a, wp.array) or o != a):
                    cmd.set_param_at_index(i, a)
                    old[i] = a
                    changed = True
        g = e[4]
        if changed or not self.cpu or g is False:
            if g:
                e[4] = False
            e[5] = 0
            return e[0].launch, False
        if g is None:
            e[5] += 1
            if e[5] < self.STEADY:
                return e[0].launch, False
            with wp.ScopedCapture(device=self.device) as cap:
                e[0].launch()
            g = e[4] = cap.graph                # (a CPU capture records without running)
        out = functools.partial(wp.capture_launch, g), True
        self._replays[key] = (kernel, dim, tuple(args), out)
        return out


class _Workers:
    """Threads that each run a function handed to them and report back (Launcher's parts):
    `run(fns)` runs fns[1:] on the threads and fns[0] on the caller, and returns once all have
    finished, raising the first error. The threads wait on a queue (no spinning between
    steps), are daemons, and are made again in a forked child. One run at a time; a report of
    an earlier run that was interrupted (Ctrl-C while waiting) is told apart by its number."""

    def __init__(self):
        self.pid = os.getpid()
        self.inboxes = []
        self.done = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.runs = 0

    def grow(self, n: int) -> None:
        while len(self.inboxes) < n:
            box = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(box,), name="gymlike-rows", daemon=True).start()
            self.inboxes.append(box)

    def _serve(self, box):
        while True:
            run, fn = box.get()
            try:
                fn()
                self.done.put((run, None))
            except BaseException as e:       # (handed back to the caller, which raises it)
                self.done.put((run, e))

    def run(self, fns) -> None:
        with self.lock:
            self.runs += 1
            run = self.runs
            for box, fn in zip(self.inboxes, fns[1:]):
                box.put((run, fn))
            error = None
            try:
                fns[0]()
            except BaseException as e:
                error = e
            left = len(fns) - 1
            while left:
                r, e = self.done.get()
                if r == run:
                    left -= 1
                    error = error or e
            if error is not None:
                raise error


_WORKERS = None


def workers(n: int) -> _Workers:
    """The process's row-kernel worker threads, at least `n` of them."""
    global _WORKERS
    if _WORKERS is None or _WORKERS.pid != os.getpid():
        _WORKERS = _Workers()
    _WORKERS.grow(n)
    return _WORKERS


class Graphs:
    """Warp CPU graphs of functions that only launch kernels (Newton's conversions, forward
    kinematics), one per key (the arrays a call uses): the first call of a key runs the
    function, the second captures it into a graph, later ones replay the graph in C++ (a few
    microseconds instead of tens per kernel launch). On CUDA the function is called directly
    (a CUDA capture must not allocate or synchronise, which these functions do not promise)."""

    def __init__(self, device):
        self.device = device
        self.cpu = str(device).startswith("cpu")
        self.graphs = {}

    def clear(self) -> None:
        """Forget every captured graph (the next calls run and capture again)."""
        self.graphs.clear()

    def __call__(self, key, fn, *args):
        if not self.cpu:
            fn(*args)
            return
        g = self.graphs.get(key)
        if g is None:
            self.graphs[key] = False         # (run once: kernels load, results are needed now)
            fn(*args)
        elif g is False:
            try:
                with wp.ScopedCapture(device=self.device) as cap:
                    fn(*args)
            except Exception:                 # (not capturable: called directly from now on)
                self.graphs[key] = "direct"
                fn(*args)
                return
            self.graphs[key] = cap.graph
            wp.capture_launch(cap.graph)      # (a CPU capture records without running)
        elif isinstance(g, str):
            fn(*args)
        else:
            wp.capture_launch(g)


class Memo:
    """Tables derived from arrays and models (kernel arguments, index maps), each kept under a
    name with the objects it was made from, compared by identity: a replaced array, batch or
    table makes it again; `drop` forgets tables whose source changed in place (the model's
    parameters). The C solver keeps its row-kernel tables here (core/mjc.py)."""

    __slots__ = ("kept",)

    def __init__(self):
        self.kept = {}

    def get(self, name: str, of: tuple, make: Callable[[], Any]) -> Any:
        """The table `name` made by `make()` from the objects `of`, made again when one of them
        is another object than last time."""
        c = self.kept.get(name)
        if c is not None:
            old = c[0]
            if len(old) == len(of):
                for a, b in zip(old, of):
                    if a is not b:
                        break
                else:
                    return c[1]
        value = make()
        self.kept[name] = (of, value)
        return value

    def drop(self, *names: str) -> None:
        """Forget the tables `names` (made again on their next use)."""
        for name in names:
            self.kept.pop(name, None)
