"""Every command line in README.md and python_bindings_docs/*.md runs as written.

Command lines are the lines of ```bash blocks and inline `python ...`, `.venv/bin/python ...`,
`bash ...`, `pip ...` spans. Each one is listed in PLAN below, either to be run or with the
reason it is not; the fast test fails when a doc gains, changes or loses a command line that
PLAN does not account for. The slow tests run each runnable line exactly as written, through
`bash -c "source .venv/bin/activate && <line>"` (what README says to do after install.sh), in
a scratch directory that mirrors the repository (symlinks; run outputs stay there), without a
display, with GYMLIKE_MAX_ITERATIONS=2 (training stops after 2 iterations) and
GYMLIKE_MAX_FRAMES=300 (scripts under `python -m gymlike.run` end after 300 frames unless the
line says --max-frames; the humanoid of joint_monkey went NaN at frame 143 before).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "python_bindings_docs", "*.md")))
INLINE = re.compile(r"(?<!`)`((?:\.venv/bin/)?python [^`]+|bash [^`]+|pip [^`]+|source [^`]+|gymlike-run [^`]+)`")

TEMPLATE = ("a template (placeholder script path), not a runnable line; the runner itself is tested in "
            "tests/clients/test_run.py")
SUITE = "the test suite itself (this test is part of it); run it directly"
PIP = "installs packages into the shared .venv over the network; install.sh is checked with `bash -n` below"

# command line -> dict(run=bool, expect=[substrings of stdout+stderr], reason=str, needs=command, timeout=s)
EXTERNAL = ("needs an IsaacGymEnvs checkout fetched separately (never copied here) and its own "
            "dependencies; runs for minutes to an hour")
LEGGED = ("needs a legged_gym checkout and rsl_rl 1.0.2 fetched separately (never copied here); "
          "runs for minutes")
PLAN = {
    "python benchmarks/bench_real_tasks.py /path/to/IsaacGymEnvs": dict(run=False, reason=EXTERNAL),
    "python benchmarks/bench_real_tasks.py /path/to/legged_gym": dict(run=False, reason=LEGGED),
    "python tools/real_clients.py legged /path/to/legged_gym": dict(run=False, reason=LEGGED),
    "python tools/play_policies.py xbot g1 h1 --envs 16": dict(
        run=False, reason="needs humanoid-gym and unitree_rl_gym checkouts, rsl_rl 1.0.2 and wandb fetched "
                          "separately (never copied here); runs for ~5 minutes"),
    "python -m gymlike.run legged_gym/scripts/train.py --task=anymal_c_flat --headless --num_envs 512":
        dict(run=False, reason=LEGGED),
    "python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Ant --envs 512 --minutes 15":
        dict(run=False, reason=EXTERNAL),
    # python_bindings_docs/learning.md
    "pip install --target /path/to/deps --no-deps hydra-core omegaconf antlr4-python3-runtime==4.9.3 gym==0.23.1 "
    "gym-notices termcolor urdfpy lxml six": dict(run=False, reason=PIP + "; a placeholder target folder"),
    "CPLUS_INCLUDE_PATH=/usr/include/eigen3 pip install --target /path/to/deps --no-deps pysdf":
        dict(run=False, reason=PIP + "; a placeholder target folder"),
    "PYTHONPATH=/path/to/deps python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Ant --max-steps 11100000":
        dict(run=False, reason=EXTERNAL),
    ("PYTHONPATH=/path/to/deps python benchmarks/train_real_tasks.py /path/to/IsaacGymEnvs Humanoid "
     "--max-steps 48000000"):
        dict(run=False, reason=EXTERNAL + " (Humanoid to 48 M env steps: hours on 2 cores)"),
    "PYTHONPATH=/path/to/rsl_rl python benchmarks/train_real_tasks.py /path/to/legged_gym anymal_c_flat --envs 2048":
        dict(run=False, reason=LEGGED + " (300 iterations at 2048 envs: hours on 2 cores)"),
    # README.md
    "bash install.sh": dict(run=False, reason="creates/updates .venv over the network; checked with `bash -n`"),
    "source .venv/bin/activate": dict(run=False, reason="every run below starts with it"),
    "python examples/train.py task=Cartpole": dict(
        run=True, expect=["done (max_iterations): 2 iterations", "TensorBoard: tensorboard --logdir runs/Cartpole_"]),
    "python -m pytest tests -q -n 2 -m \"not slow\"": dict(run=False, reason=SUITE),
    "python -m pytest tests -q -n 2": dict(run=False, reason=SUITE),
    "python examples/train.py task=Cartpole --play": dict(
        run=True, needs="python examples/train.py task=Cartpole",
        expect=["(deterministic actions)", "mean episode length"]),
    "python -m gymlike.run path/to/your_isaacgym_script.py --your --script --args": dict(run=False, reason=TEMPLATE),
    "python -m gymlike.run examples/joint_monkey.py --asset_id 1 --show_axis": dict(
        run=True, expect=["Animating DOF 4", "Done after 300 frames"]),     # the humanoid went NaN at frame 143
    "python -m gymlike.run --headless --max-frames 200 examples/projectiles.py --num_envs 4": dict(
        run=True, expect=["Done"]),
    "python -m gymlike.run --headless examples/camera_sensors.py --out camera_images": dict(run=True, expect=[]),
    "python python_bindings_docs/generate.py": dict(run=True, expect=[]),
    # python_bindings_docs/deformables.md
    "python -m gymlike.run --headless --max-frames 120 examples/soft_bodies.py --num_envs 2": dict(
        run=True, expect=["env 1: E", "soft contacts"]),
    "python -m gymlike.run script.py": dict(run=False, reason=TEMPLATE),
    "python -m gymlike.run": dict(run=False, reason=TEMPLATE),
    "pip install -e \".[test,rl]\"": dict(run=False, reason=PIP),
    "pip install -e \".[viewer]\"": dict(run=False, reason=PIP),
    # python_bindings_docs/rl.md
    "bash install.sh && .venv/bin/python examples/train.py task=Cartpole": dict(
        run=False, reason="install.sh reinstalls into the shared .venv over the network (checked with `bash -n`); "
                          "the rest is README's `python examples/train.py task=Cartpole` with the venv's python "
                          "spelled out, which runs above"),
    ".venv/bin/python examples/train.py task=Cartpole --play": dict(
        run=True, needs="python examples/train.py task=Cartpole", expect=["(deterministic actions)"]),
    ".venv/bin/python examples/train.py task=Ant max_iterations=1500": dict(
        run=True, expect=["done (max_iterations): 2 iterations", "no episode finished yet"], timeout=900),
    ".venv/bin/python examples/train.py task=Cartpole algo=rl_games": dict(
        run=True, expect=["done (max_iterations): 2 iterations", "model_final.pth"]),
    ".venv/bin/python examples/train.py task=Cartpole algo=rl_games --play": dict(
        run=True, needs=".venv/bin/python examples/train.py task=Cartpole algo=rl_games",
        expect=["(deterministic actions)", "nn/model_final.pth"]),
    ".venv/bin/python examples/train.py task=Cartpole": dict(
        run=False, reason="the same line runs after `bash install.sh &&` in rl.md (entry above)"),
    "python benchmarks/train_benchmark.py Ant": dict(run=True, expect=["Ant"], timeout=900),
    "python benchmarks/bench_tasks.py": dict(
        run=False, reason="the full benchmark (6 tasks x 3 sizes, minutes of CPU); "
                          "tests/clients/test_benchmarks_run.py runs it with tiny settings"),
    # README.md, scenes.md
    "python -m gymlike.bench --scene examples/scenes/ant64.yaml --frames 200": dict(
        run=True, expect=["64 worlds", "env-frames/s", "where time goes"]),
    "python -m gymlike.bench --scene examples/scenes/single_box.yaml --frames 100 --num-worlds 16": dict(
        run=True, expect=["16 worlds", "env-frames/s"]),
    "python -m gymlike.bench --help": dict(run=True, expect=["--num-worlds", "--engine"]),
    # cameras.md, real_clients.md, run.md, viewer.md
    "python -m gymlike.run --record out.mp4 script.py": dict(run=False, reason=TEMPLATE),
    "pip install -e \".[video]\"": dict(run=False, reason=PIP),
    "python -m gymlike.run --headless --max-frames 60 <script>": dict(run=False, reason=TEMPLATE),
    "python -m gymlike.run path/to/script.py [script args...]": dict(run=False, reason=TEMPLATE),
    "pip install \"gymlike[viewer]\"": dict(run=False, reason=PIP),
    # cpu_pipeline.md
    "GYMLIKE_CPU_PIPELINE=warp python examples/train.py task=Cartpole": dict(
        run=False, reason="a whole training run on the slower path (minutes of CPU); the Warp path is tested by "
                          "tests/physics/test_cpu_pipeline.py"),
    "python benchmarks/bench_cpu_pipeline.py --n 16 64 256 1024": dict(
        run=False, reason="the full benchmark (3 sizes x 3 variants, minutes of CPU); "
                          "tests/clients/test_benchmarks_run.py runs it with tiny settings"),
}


def _split_install(line):
    return line.split("&&", 1)[1].strip() if line.startswith("bash install.sh &&") else line


def doc_command_lines():
    """[(doc, line)] in document order: ```bash lines (comments stripped) and inline commands."""
    found = []
    for doc in DOCS:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"```(bash|sh|console)\n(.*?)```", text, re.S):
            for line in m.group(2).splitlines():
                line = re.sub(r"\s+#.*$", "", line).strip()
                if line:
                    found.append((doc, line))
        for m in INLINE.finditer(text):
            found.append((doc, m.group(1)))
    return found


def test_every_doc_command_line_is_planned():
    lines = doc_command_lines()
    unplanned = sorted({line for _, line in lines if line not in PLAN})
    assert not unplanned, f"doc command lines without an entry in PLAN (run or reason): {unplanned}"
    stale = sorted(set(PLAN) - {line for _, line in lines})
    assert not stale, f"PLAN entries no doc contains any more: {stale}"
    for line, plan in PLAN.items():
        assert plan.get("run") or plan.get("reason"), line
        if plan.get("run"):
            for word in _split_install(line).split():
                if word.endswith(".py") and not word.startswith("path/"):
                    assert os.path.exists(os.path.join(ROOT, word)), (line, word)


def test_install_script_parses():
    r = subprocess.run(["bash", "-n", os.path.join(ROOT, "install.sh")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------- running them
@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A directory that looks like the repository root (symlinks), where outputs (runs/,
    camera_images/, benchmarks/results/, regenerated docs) stay."""
    box = tmp_path_factory.mktemp("docs_commands")
    for name in (".venv", "assets", "examples", "gymlike", "install.sh", "setup.py"):
        os.symlink(os.path.join(ROOT, name), box / name)
    for sub, pattern in (("benchmarks", "*.py"), ("python_bindings_docs", "*.py")):
        (box / sub).mkdir()
        for p in glob.glob(os.path.join(ROOT, sub, pattern)):
            os.symlink(p, box / sub / os.path.basename(p))
    for p in glob.glob(os.path.join(ROOT, "python_bindings_docs", "*.md")):     # generate.py rewrites one
        shutil.copy(p, box / "python_bindings_docs")
    return box


def _run(box, line, timeout):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "GYMLIKE_VIEWER")}
    env.update(GYMLIKE_MAX_ITERATIONS="2", GYMLIKE_MAX_FRAMES="300")
    return subprocess.run(["bash", "-c", f"source .venv/bin/activate && {line}"], cwd=box, env=env,
                          capture_output=True, text=True, timeout=timeout)


_done = set()


def _run_checked(box, line):
    plan = PLAN[line]
    if plan.get("needs") and plan["needs"] not in _done:
        _run_checked(box, plan["needs"])
    r = _run(box, _split_install(line), plan.get("timeout", 600))
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"{line!r} exited {r.returncode}:\n{out[-4000:]}"
    assert "Traceback" not in out, out[-4000:]
    for s in plan.get("expect", []):
        assert s in out, f"{line!r}: {s!r} not in output:\n{out[-4000:]}"
    _done.add(line)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("line", list(PLAN))
def test_doc_command_line_runs(sandbox, line):
    if not PLAN[line].get("run"):
        pytest.skip(PLAN[line]["reason"])
    out = _run_checked(sandbox, line)
    if "examples/train.py" in line and "--play" not in line:
        # no third-party noise (model dumps, rl_games' per-epoch lines, Warp's CUDA warning)
        for noise in ("Actor Model", "fps step:", "Could not find or load the NVIDIA CUDA driver", "=>"):
            assert noise not in out, noise
        tb = re.search(r"TensorBoard: (.+?) --logdir", out).group(1)
        assert _run(sandbox, f"command -v {tb.split()[0]}", 30).returncode == 0, tb   # the hint runs as printed
    if "camera_sensors" in line:
        assert glob.glob(str(sandbox / "camera_images" / "*.png"))
    if "generate.py" in line:
        with open(sandbox / "python_bindings_docs" / "COMPATIBILITY.md") as a, \
                open(os.path.join(ROOT, "python_bindings_docs", "COMPATIBILITY.md")) as b:
            assert a.read() == b.read(), "COMPATIBILITY.md is stale: run python python_bindings_docs/generate.py"
    if "joint_monkey" in line:
        assert "NaN" not in out


def test_skipped_lines_say_why():
    for line, plan in PLAN.items():
        if not plan.get("run"):
            assert len(plan.get("reason", "")) > 10, line
