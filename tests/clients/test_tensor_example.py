"""examples/interop_torch.py runs headless with a frame limit and reports what it checked."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)


@pytest.mark.parametrize("engine", [[], ["--flex"]], ids=["physx", "flex"])
def test_interop_torch_example(engine):
    cmd = [sys.executable, os.path.join(ROOT, "examples", "interop_torch.py"), "--headless",
           "--num_frames", "120", "--num_envs", "4", "--pipeline", "cpu", *engine]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    text = out.stdout
    results = dict(re.findall(r"^RESULT (\w+) (.*)$", text, re.M))
    for check in ("zero_copy", "stale_until_refresh", "indexed_reset_only_listed", "resting_box_contact_force"):
        assert results.get(check) == "OK", text
    assert int(results["box_drops"]) == 4            # frames 30 and 90, envs 0 and 2
    assert int(results["resets"]) >= 1               # the free poles fall and get reset
    assert "ALL OK" in text
