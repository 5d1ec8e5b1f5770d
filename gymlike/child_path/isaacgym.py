"""`import isaacgym` in a Python process that a script run by `python -m gymlike.run` starts
(a Ray worker, a multiprocessing "spawn" child, `subprocess.run([sys.executable, ...])`).

A pip-installed Isaac Gym is importable in every process of its interpreter; gymlike's alias lives
in the runner's process only. So the runner puts this file's folder first on PYTHONPATH for the
processes the script starts: there `import isaacgym` runs this file, which installs the alias
and hands back the alias package itself (this module is never what the importer gets). The
runner's --headless and --max-frames reach those processes as GYMLIKE_VIEWER=headless and
GYMLIKE_MAX_FRAMES. Nothing else is in this folder, so nothing else is shadowed."""

import importlib.util
import os
import sys

del sys.modules[__name__]          # replaced by the alias package below
if importlib.util.find_spec("gymlike") is None:   # the runner found gymlike where this file is
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import gymlike  # noqa: E402
from gymlike.core import session  # noqa: E402

if session.max_frames is None:
    session.max_frames = session.env_max_frames()
sys.modules[__name__] = gymlike.install_isaacgym_alias()
