#!/usr/bin/env bash
# Install gymlike and its dependencies into ./.venv (created if missing).
# torch: the CPU build where there is no NVIDIA GPU (a plain `pip install torch` on Linux pulls a
# multi-GB CUDA build), the default PyPI build (CUDA) where `nvidia-smi` sees a GPU.
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
VPY=.venv/bin/python
"$VPY" -m pip install --quiet --upgrade pip
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    "$VPY" -m pip install --quiet "torch==2.13.0"
else
    # the CPU wheel alone from PyTorch's CPU index (no retries: where that index is unreachable a
    # local wheel or PyPI serves instead), then its dependencies from the default index
    "$VPY" -m pip install --quiet --retries 0 --timeout 20 --no-deps "torch==2.13.0" \
        --index-url https://download.pytorch.org/whl/cpu 2>/dev/null || true
    "$VPY" -m pip install --quiet "torch==2.13.0"
fi
"$VPY" -m pip install --quiet -e ".[test,rl]"
echo "gymlike installed in $(pwd)/.venv"
