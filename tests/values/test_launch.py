"""core/launch.Launcher: one recorded launch per call site, replayed as a captured graph on the
CPU while its dimension and arguments stay the same; every change reaches the kernel."""

import numpy as np
import warp as wp

from gymlike.core.launch import Launcher, Memo


@wp.kernel
def _add(out: wp.array(dtype=wp.float32), value: float):
    i = wp.tid()
    out[i] = out[i] + value


def test_replays_run_the_kernel_and_every_change_reaches_it():
    launch = Launcher("cpu")
    a = wp.zeros(4, dtype=wp.float32, device="cpu")
    b = wp.zeros(4, dtype=wp.float32, device="cpu")
    for _ in range(5):                       # recorded, launched, captured, then replayed
        launch("site", _add, 4, (a, 1.0))
    np.testing.assert_array_equal(a.numpy(), [5, 5, 5, 5])
    assert launch._cmds["site"][4] is not None          # (the graph that replayed)
    launch("site", _add, 4, (a, 0.5))                   # another scalar: the recorded launch for good
    launch("site", _add, 4, (a, 0.5))
    np.testing.assert_array_equal(a.numpy(), [6, 6, 6, 6])
    assert launch._cmds["site"][4] is False
    for _ in range(4):
        launch("site", _add, 4, (a, 0.5))
    np.testing.assert_array_equal(a.numpy(), [8, 8, 8, 8])
    launch("site", _add, 2, (a, 0.5))                   # another dimension
    launch("site", _add, 2, (a, 0.5))
    np.testing.assert_array_equal(a.numpy(), [9, 9, 8, 8])
    for _ in range(3):                                  # another array: the old one is left alone
        launch("site", _add, 4, (b, 2.0))
    np.testing.assert_array_equal(b.numpy(), [6, 6, 6, 6])
    np.testing.assert_array_equal(a.numpy(), [9, 9, 8, 8])
    for _ in range(5):                                  # call sites are independent
        launch("other", _add, 4, (a, 1.0))
    assert launch._cmds["other"][4]
    np.testing.assert_array_equal(a.numpy(), [14, 14, 13, 13])
    for _ in range(4):                                  # replays, another array, back to the first:
        launch("back", _add, 4, (a, 1.0))
    launch("back", _add, 4, (b, 1.0))
    launch("back", _add, 4, (a, 2.0 / 2))               # (equal scalars count as the same)
    np.testing.assert_array_equal(a.numpy(), [19, 19, 18, 18])
    np.testing.assert_array_equal(b.numpy(), [7, 7, 7, 7])


def test_a_memo_remakes_a_table_when_a_source_is_another_object_or_dropped():
    memo, made = Memo(), []

    def make(tag):
        made.append(tag)
        return tag
    a, b = np.zeros(3), np.zeros(3)
    assert memo.get("t", (a, b), lambda: make(1)) == 1
    assert memo.get("t", (a, b), lambda: make(2)) == 1            # same objects: kept
    assert memo.get("t", (a, np.zeros(3)), lambda: make(3)) == 3  # an equal but other array: made again
    assert memo.get("u", (), lambda: make(None)) is None          # (a None table is kept too)
    assert memo.get("u", (), lambda: make(4)) is None
    memo.drop("t", "u", "never made")
    assert memo.get("t", (a, np.zeros(3)), lambda: make(5)) == 5
    assert memo.get("u", (), lambda: make(6)) == 6
    assert made == [1, 3, None, 5, 6]
