"""The benchmark scripts stay runnable (tiny settings; speed is measured by running them, not here)."""

import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow      # integration tier: run scripts/tasks end to end (pytest -m 'not slow' skips)


def _run(args, tmp_path):
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r.stdout


def test_tensor_api_benchmark_runs(tmp_path):
    out = _run(["benchmarks/bench_tensor_api.py", "--n", "16", "--robots", "cartpole", "--steps", "3"], tmp_path)
    assert "ratio" in out and "max |joint_q gymlike - newton| 0.0e+00" in out   # same trajectory


def test_task_benchmark_runs(tmp_path):
    out = _run(["benchmarks/bench_tasks.py", "Cartpole", "--envs", "16", "--steps", "5", "--warmup", "1",
                "--out", str(tmp_path / "bench.json")], tmp_path)
    assert "Cartpole" in out and (tmp_path / "bench.json").exists()


def test_camera_benchmark_runs(tmp_path):
    out = _run(["benchmarks/bench_cameras.py", "--n", "2", "--size", "16", "--frames", "2"], tmp_path)
    assert "ns/pixel" in out and "ratio render/physics" in out


def test_cpu_pipeline_benchmark_runs(tmp_path):
    out = _run(["benchmarks/bench_cpu_pipeline.py", "--n", "2", "--frames", "2"], tmp_path)
    assert "| 2 |" in out and "C / raw" in out


def test_fidelity_benchmark_runs(tmp_path):
    out = _run(["benchmarks/bench_fidelity.py", "--n", "2", "--seconds", "0.3"], tmp_path)
    assert "| dropped |" in out and "| hung |" in out
