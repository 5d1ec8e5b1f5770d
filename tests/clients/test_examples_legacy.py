"""The Isaac Gym-style examples run headless through `python -m gymlike.run` with a frame limit,
exit 0, and did what they are for."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT as REPO

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)

EXAMPLES = os.path.join(REPO, "examples")


def run_example(name, *script_args, runner=(), frames=None, timeout=300):
    cmd = [sys.executable, "-m", "gymlike.run", "--headless", *runner]
    if frames is not None:
        cmd += ["--max-frames", str(frames)]
    cmd += [os.path.join(EXAMPLES, name), "--pipeline", "cpu", *script_args]
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("GYMLIKE_VIEWER", None)
    r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (f"{name} exited {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n"
                               f"--- stderr\n{r.stderr[-3000:]}")
    return r.stdout


def rows(out, tag):
    return [ln.split()[1:] for ln in out.splitlines() if ln.startswith(tag + " ")]


def test_examples_have_docstrings():
    for name in ("joint_monkey.py", "projectiles.py", "1080_balls_of_solitude.py", "transforms.py",
                 "apply_forces.py", "asset_info.py", "camera_sensors.py"):
        with open(os.path.join(EXAMPLES, name)) as f:
            src = f.read()
        assert src.startswith('"""') and "Shows:" in src, name
        assert "gymutil.parse_arguments" in src and "from isaacgym import" in src, name


def test_joint_monkey_visits_every_dof_range():
    out = run_example("joint_monkey.py", "--speed_scale", "4", "--num_envs", "2", "--show_axis", frames=140)
    visited = rows(out, "VISITED")
    assert len(visited) == 8                                     # the ant's 8 DOFs
    for idx, name, lo, hi, _, rlo, rhi in visited:
        assert abs(float(lo) - float(rlo)) < 1e-3 and abs(float(hi) - float(rhi)) < 1e-3, \
            f"DOF {name} visited [{lo}, {hi}] of [{rlo}, {rhi}]"
    assert "Finished cycle 1" in out


def test_projectiles_hit_ants_and_restore_state():
    out = run_example("projectiles.py", "--num_envs", "4", "--fire_every", "40",
                      runner=("--keys", "50:S,90:R"), frames=130)
    hits = int(re.search(r"HIT (\d+) of 4", out).group(1))
    assert hits >= 1, out
    assert "restored the state saved at frame 5" in out           # key S at viewer frame 50, R at 90
    err = float(re.search(r"RESTORE max position error (\S+)", out).group(1))
    assert err < 1e-4
    assert len(re.findall(r"fired ball", out)) == 3


def test_balls_pyramids_collapse_inside_their_env():
    out = run_example("1080_balls_of_solitude.py", "--num_envs", "4", "--levels", "3", frames=240)
    top = float(re.search(r"pyramid top was at (\S+) m", out).group(1))
    envs = rows(out, "ENV")
    assert len(envs) == 4
    for e, _, max_z, _, min_z, _, mean_z, _, inside in envs:
        assert inside == "True", f"env {e}: a ball left its env"
        assert float(max_z) < 0.6 * top and float(mean_z) < 0.13 and float(min_z) > 0.09, envs


def test_transforms_identities_hold():
    out = run_example("transforms.py", "--num_envs", "2", frames=90)
    checks = {name: float(err) for name, _, _, err in rows(out, "CHECK")}
    assert set(checks) == {"rigid_transform", "sim_frame", "transform_point", "transform_points", "fixed_joint",
                           "revolute_angle"}
    assert max(checks.values()) < 1e-4, checks
    assert float(re.search(r"travelled (\S+) m", out).group(1)) > 0.1


@pytest.mark.parametrize("engine", ["--physx", "--flex"])
def test_apply_forces(engine):
    out = run_example("apply_forces.py", "--num_envs", "5", engine, frames=90)
    boxes = {r[1]: dict(zip(r[2::2], map(float, r[3::2]))) for r in rows(out, "BOX")}
    assert abs(boxes["falls"]["z"] - 0.1) < 0.01                 # landed
    assert abs(boxes["hovers"]["z"] - 1.0) < 0.02 and boxes["hovers"]["travel"] < 0.01
    t = 1.5                                                       # 90 frames at 60 Hz
    assert boxes["hovers+spins"]["spin_z"] == pytest.approx(0.2 / (1.0 * 0.08 / 12) * t, rel=0.05)
    assert boxes["tumbles"]["tilt_rate"] > 1.0
    assert boxes["pushed"]["travel"] == pytest.approx(0.5 * 2.0 * t * t, rel=0.05)


def test_asset_info_prints_assets():
    out = run_example("asset_info.py")
    counts = rows(out, "COUNTS")
    assert ["bodies", "3", "shapes", "3", "joints", "2", "dofs", "2"] in counts        # cartpole
    assert ["bodies", "9", "shapes", "13", "joints", "8", "dofs", "8"] in counts       # ant
    masses = [float(m[1]) for m in rows(out, "MASS")]
    assert masses[0] == pytest.approx(3.1) and pytest.approx(20.0) in masses
    assert "slider_to_cart" in out and "Prismatic" in out and "Translation" in out


def test_camera_sensors_example_writes_checked_images(tmp_path):
    out = run_example("camera_sensors.py", "--num_envs", "2", "--num_frames", "45", "--out", str(tmp_path))
    assert "ALL OK" in out, out
    assert len(re.findall(r"RESULT frame", out)) == 3
    from PIL import Image
    import numpy as np
    a = np.asarray(Image.open(tmp_path / "rgb_env0_fixed_frame0015.png"))
    b = np.asarray(Image.open(tmp_path / "rgb_env0_fixed_frame0030.png"))
    assert a.shape == (96, 96, 4) and len(np.unique(a.reshape(-1, 4), axis=0)) > 20   # a real picture
    assert not np.array_equal(a, b)                                                   # the ball moved
