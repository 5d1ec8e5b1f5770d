"""`python -m gymlike.run`: unmodified Isaac Gym scripts (import isaacgym ...) run through the
runner; argv/__file__/cwd are what a direct run gives; --max-frames, --timeout and exit codes."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT as REPO

# An Isaac Gym script in the old style, unchanged: isaacgym imports, star import of torch_utils,
# gymutil.parse_arguments, a relative asset path and the usual viewer loop.
LEGACY_SCRIPT = '''\
"""legacy script"""
import os
import sys
import isaacgym
from isaacgym import gymapi, gymtorch, gymutil
from isaacgym.torch_utils import *
import torch

args = gymutil.parse_arguments(description="legacy", headless=True,
                               custom_parameters=[{"name": "--num_envs", "type": int, "default": 2}])
print("ARGV", sys.argv)
print("FILE", __file__, __name__)
print("CWD", os.getcwd())
print("ENGINE", args.physics_engine == gymapi.SIM_PHYSX, args.num_envs, args.headless)

q = quat_from_euler_xyz(torch.tensor([0.0]), torch.tensor([0.0]), torch.tensor([1.0]))
print("YAW", round(float(get_euler_xyz(q)[2][0]), 4))

gym = gymapi.acquire_gym()
sp = gymapi.SimParams()
sp.up_axis = gymapi.UP_AXIS_Z
sp.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
sp.use_gpu_pipeline = args.use_gpu_pipeline
sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sp)
plane = gymapi.PlaneParams()
plane.normal = gymapi.Vec3(0, 0, 1)
gym.add_ground(sim, plane)
asset = gym.load_asset(sim, "assets", "ball.urdf", gymapi.AssetOptions())   # relative to the cwd
envs = []
for i in range(args.num_envs):
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
    gym.create_actor(env, asset, gymapi.Transform(gymapi.Vec3(0, 0, 1)), "ball", i, 0)
    envs.append(env)
viewer = None if args.headless else gym.create_viewer(sim, gymapi.CameraProperties())
if viewer is None and not args.headless:
    print("*** Failed to create viewer")
    quit()
frames = 0
while viewer is None or not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    if viewer is not None:
        gym.step_graphics(sim)
        gym.draw_viewer(viewer, sim, True)
        gym.sync_frame_time(sim)
    frames += 1
print("FRAMES", frames, "Z", \
round(float(gym.get_actor_rigid_body_states(envs[0], 0, gymapi.STATE_POS)["pose"]["p"]["z"][0]), 3))
if viewer is not None:
    gym.destroy_viewer(viewer)
gym.destroy_sim(sim)
'''

BALL_URDF = """<robot name="ball"><link name="ball">
  <collision><geometry><sphere radius="0.1"/></geometry></collision>
  <inertial><mass value="1"/><inertia ixx="0.004" iyy="0.004" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial>
</link></robot>
"""


def run(args, cwd, timeout=240):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("GYMLIKE_VIEWER", None)
    return subprocess.run([sys.executable, "-m", "gymlike.run", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "ball.urdf").write_text(BALL_URDF)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "legacy.py").write_text(LEGACY_SCRIPT)
    return tmp_path


def lines(out, tag):
    return [ln.split(" ", 1)[1] for ln in out.splitlines() if ln.startswith(tag + " ")]


@pytest.mark.slow
def test_legacy_script_runs_unmodified_with_viewer_loop(project):
    r = run(["--headless", "--max-frames", "25", "scripts/legacy.py", "--num_envs", "3", "--pipeline", "cpu"],
            cwd=project)
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout, "ARGV") == [str(["scripts/legacy.py", "--num_envs", "3", "--pipeline", "cpu"])]
    assert lines(r.stdout, "FILE") == [f"{project / 'scripts' / 'legacy.py'} __main__"]
    assert lines(r.stdout, "CWD") == [str(project)]
    assert lines(r.stdout, "ENGINE") == ["True 3 False"]
    assert lines(r.stdout, "YAW") == ["1.0"]
    frames, z = lines(r.stdout, "FRAMES")[0].split(" Z ")
    assert int(frames) == 25                        # the headless viewer closed after 25 frames
    assert float(z) < 1.0                           # and the ball fell


@pytest.mark.slow
def test_frame_limit_ends_a_loop_without_viewer(project):
    script = project / "scripts" / "forever.py"
    script.write_text(textwrap.dedent('''\
        import atexit
        from isaacgym import gymapi
        gym = gymapi.acquire_gym()
        sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams())
        asset = gym.create_sphere(sim, 0.1, gymapi.AssetOptions())
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
        gym.create_actor(env, asset, gymapi.Transform(), "s", 0, 0)
        atexit.register(lambda: print("SIMULATED", gym.get_frame_count(sim)))
        while True:
            try:
                gym.simulate(sim)
            except Exception:            # a frame limit is not an Exception
                print("SWALLOWED")
                raise
        '''))
    r = run(["--max-frames", "7", str(script)], cwd=project)
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout, "SIMULATED") == ["7"] and "SWALLOWED" not in r.stdout
    assert "frame limit 7" in r.stderr


def test_errors_exit_codes_and_timeout(project):
    boom = project / "scripts" / "boom.py"
    boom.write_text("from isaacgym import gymapi\n\ndef f():\n    raise KeyError('no such thing')\n\nf()\n")
    r = run([str(boom)], cwd=project)
    assert r.returncode == 1
    assert "Traceback" in r.stderr and f'File "{boom}", line 4' in r.stderr and "KeyError" in r.stderr
    assert "gymlike/run.py" not in r.stderr                    # runner frames are not shown

    code = project / "scripts" / "code.py"
    code.write_text("import sys\nsys.exit(3)\n")
    assert run([str(code)], cwd=project).returncode == 3

    slow = project / "scripts" / "slow.py"
    slow.write_text("import time\nwhile True:\n    time.sleep(0.05)\n")
    r = run(["--timeout", "1.5", str(slow)], cwd=project)
    assert r.returncode == 124 and "timeout" in r.stderr

    assert run(["--max-frames", "0", str(code)], cwd=project).returncode == 2
    assert run(["--bogus", str(code)], cwd=project).returncode == 2
    assert run([], cwd=project).returncode == 2
    assert run(["missing.py"], cwd=project).returncode == 2


def test_alias_in_process():
    import gymlike
    from gymlike import gymapi as g_api, gymutil as g_util, terrain_utils as g_terrain
    pkg = gymlike.install_isaacgym_alias()
    assert gymlike.install_isaacgym_alias() is pkg                      # idempotent
    from isaacgym import gymapi, gymutil, terrain_utils
    import isaacgym.torch_utils as tu
    from gymlike import torch_utils as g_tu
    assert gymapi is g_api and gymutil is g_util and terrain_utils is g_terrain and tu is g_tu
    import isaacgym
    assert isaacgym.gymapi is g_api
    with pytest.raises(ImportError):
        import isaacgym.not_a_module  # noqa: F401
    from isaacgym import rlgpu, gymdeps  # noqa: F401  (Preview 4's other modules)
    assert isaacgym.rlgpu is rlgpu
    import importlib.metadata
    assert importlib.metadata.version("isaacgym") == "1.0rc4"


# The modules of Isaac Gym Preview 4's package (python/isaacgym/*.py) and what code uses of the
# package itself: its file (asset roots are computed from it), its submodules, its version record.
PACKAGE_SCRIPT = """\
import importlib.metadata, os, sys
import torch                                   # before isaacgym: Isaac Gym's gymdeps refused this
import isaacgym
from isaacgym import gymapi, gymtorch, gymutil, torch_utils, terrain_utils, rlgpu, gymdeps
print("FILE", os.path.isfile(isaacgym.__file__), os.path.basename(os.path.dirname(isaacgym.__file__)))
print("ASSETS", os.path.realpath(os.path.join(os.path.dirname(isaacgym.__file__), "../../assets")))
print("ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(isaacgym.__file__)))))
print("SUBMODULES", all(os.path.dirname(m.__file__) == os.path.dirname(isaacgym.__file__) for m in (rlgpu, gymdeps)))
print("SAME", gymapi is sys.modules["gymlike.gymapi"], isaacgym.rlgpu is rlgpu)
print("VERSION", importlib.metadata.version("isaacgym"))
from packaging.version import Version
print("PREVIEW4", Version(importlib.metadata.version("isaacgym")) == Version("1.0.preview4"))
try:
    import pkg_resources                      # (setuptools < 81 only)
    print("PKG_RESOURCES", pkg_resources.get_distribution("isaacgym").version)
except ImportError:
    print("PKG_RESOURCES", "1.0rc4")
try:
    rlgpu.create_task_gpu("Cartpole", "{}")
except NotImplementedError as e:
    print("RLGPU", "native C++ RL tasks" in str(e))
"""


def test_isaacgym_package_surface(tmp_path):
    script = tmp_path / "surface.py"
    script.write_text(PACKAGE_SCRIPT)
    r = run([str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout, "FILE") == ["True isaacgym"]
    # isaacgym.__file__ sits where Isaac Gym's tree has it (<root>/python/isaacgym/__init__.py):
    # <root> is the gymlike checkout, so <root>/assets is its assets folder
    assert lines(r.stdout, "ASSETS") == [os.path.join(REPO, "assets")]
    assert lines(r.stdout, "ROOT") == [REPO]
    assert lines(r.stdout, "SUBMODULES") == ["True"] and lines(r.stdout, "SAME") == ["True True"]
    assert lines(r.stdout, "VERSION") == ["1.0rc4"] and lines(r.stdout, "PREVIEW4") == ["True"]
    assert lines(r.stdout, "PKG_RESOURCES") == ["1.0rc4"] and lines(r.stdout, "RLGPU") == ["True"]


CHILDREN_SCRIPT = '''\
"""starts Python processes as a Ray- or multiprocessing-based client does"""
import multiprocessing
import subprocess
import sys
import isaacgym

PROBE = ("import os, isaacgym, gymlike\\nfrom isaacgym import gymapi\\nfrom gymlike.core import session\\n"
         "print(isaacgym.__file__ == os.path.join(os.path.dirname(gymlike.__file__), 'isaacgym', '__init__.py'),"
         " gymapi is gymlike.gymapi, session.max_frames, os.environ.get('GYMLIKE_VIEWER'))")


def probe(queue):
    import os
    import gymlike
    from isaacgym import gymapi
    queue.put(f"{gymapi is gymlike.gymapi} {os.getpid() != PARENT}")


PARENT = int(sys.argv[1]) if len(sys.argv) > 1 else None
if __name__ == "__main__":
    import os
    PARENT = os.getpid()
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    print("SUBPROCESS", out.stdout.strip(), out.stderr.strip()[-300:] if out.returncode else "")
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    p = ctx.Process(target=probe, args=(queue,))
    p.start()
    print("SPAWN", queue.get(timeout=120))
    p.join()
'''


def test_processes_the_script_starts_import_isaacgym_too(tmp_path):
    """A pip-installed Isaac Gym imports in every process; under the runner the script's child
    Python processes (subprocess, multiprocessing spawn: what Ray workers are) get the alias,
    with the run's --headless and --max-frames."""
    script = tmp_path / "children.py"
    script.write_text(CHILDREN_SCRIPT)
    r = run(["--headless", "--max-frames", "4", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout, "SUBPROCESS") == ["True True 4 headless "]
    assert lines(r.stdout, "SPAWN") == ["True True"]
    # the same script without the runner: its children have no isaacgym (nor has the script)
    plain = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=REPO), timeout=120)
    assert "No module named 'isaacgym'" in plain.stderr


def test_runner_restores_the_environment_it_gives_children(tmp_path):
    from gymlike import run as R
    script = tmp_path / "env.py"
    script.write_text("import os\nprint('SEEN', os.environ['PYTHONPATH'].split(os.pathsep)[0], "
                      "os.environ.get('GYMLIKE_MAX_FRAMES'))\n")
    before = {k: os.environ.get(k) for k in ("PYTHONPATH", "GYMLIKE_VIEWER", "GYMLIKE_MAX_FRAMES")}
    import sys as _sys
    from gymlike.core import session
    saved_main, saved_argv, saved_path0 = _sys.modules["__main__"], list(_sys.argv), _sys.path[0]
    # (run_script sets the session's runner options for the process it owns: this test runs it
    # inside a pytest worker, whose later tests must not inherit a 3-frame limit)
    fields = ("headless", "runner", "max_frames", "key_events", "record")
    saved_session = {f: getattr(session, f) for f in fields}
    try:
        assert R.run_script(str(script), max_frames=3) == 0
    finally:
        _sys.modules["__main__"], _sys.argv, _sys.path[0] = saved_main, saved_argv, saved_path0
        for f, v in saved_session.items():
            setattr(session, f, v)
    assert {k: os.environ.get(k) for k in before} == before and R.CHILD_PATH not in _sys.path
    assert os.path.isfile(os.path.join(R.CHILD_PATH, "isaacgym.py"))
    assert sorted(os.listdir(R.CHILD_PATH)) in (["isaacgym.py"], ["__pycache__", "isaacgym.py"])


def _python(code, extra_path=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO] + ([extra_path] if extra_path else [])))
    return subprocess.run([sys.executable, "-W", "always", "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_no_isaacgym_distribution_without_the_alias():
    r = _python("import importlib.metadata as m, gymlike\ntry:\n    m.version('isaacgym')\n"
                "except m.PackageNotFoundError:\n    print('NONE')")
    assert r.stdout.strip() == "NONE", r.stderr


@pytest.mark.parametrize("imported_first", [False, True])
def test_a_real_isaacgym_is_not_shadowed_silently(tmp_path, imported_first):
    """A stand-in for a real installation (package + dist-info, as pip leaves them): the alias
    still wins for imports, says so naming the real one, and leaves its metadata alone."""
    site = tmp_path / "site"
    (site / "isaacgym").mkdir(parents=True)
    (site / "isaacgym" / "__init__.py").write_text("REAL = True\n")
    (site / "isaacgym-1.0rc3.dist-info").mkdir()
    (site / "isaacgym-1.0rc3.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: isaacgym\nVersion: 1.0rc3\n")
    code = ("import importlib.metadata, sys\n" + ("import isaacgym\n" if imported_first else "") +
            "import gymlike\ngymlike.install_isaacgym_alias()\nimport isaacgym\n"
            "from gymlike.alias import DIST_DIR\n"
            "print(hasattr(isaacgym, 'REAL'), isaacgym.gymapi is sys.modules['gymlike.gymapi'])\n"
            "print(importlib.metadata.version('isaacgym'), DIST_DIR in sys.path)")
    r = _python(code, extra_path=str(site))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["False True", "1.0rc3 False"]
    assert "a real Isaac Gym is installed" in r.stderr
    assert str(site) in r.stderr


def test_numpy_names_numpy2_removed_come_back_with_the_alias():
    code = ("import numpy as np, gymlike\n"
            "missing = [n for n in ('infty', 'product', 'round_', 'NaN') if n not in np.__dict__]\n"
            "gymlike.install_isaacgym_alias(legacy_numpy_names={flag})\n"
            "ok = [np.infty == np.inf, np.product([2, 3]) == 6, np.cumproduct([2, 3]).tolist() == [2, 6],\n"
            "      bool(np.alltrue([1, 1])) and not np.sometrue([0, 0]), np.round_(1.26, 1) == 1.3,\n"
            "      np.NINF == -np.inf, np.isnan(np.NaN), np.cfloat is np.complex128, np.float is float]\n"
            "print('MISSING', missing, 'OK', all(ok))")
    r = _python(code.format(flag=True))
    assert r.returncode == 0, r.stderr
    if "[]" not in r.stdout:          # NumPy 2: the names were gone before the alias
        assert r.stdout.strip().endswith("OK True"), r.stdout
    r = _python(code.format(flag=False))
    assert "AttributeError" in r.stderr or "[]" in r.stdout      # left alone


def test_parse_command_line():
    from gymlike import run as R
    opts, script, args = R.parse_command_line(["--headless", "--max-frames=5", "--keys", "3:R,4:space",
                                                "s.py", "--headless", "--max-frames", "9"])
    assert opts["headless"] and opts["max_frames"] == 5 and script == "s.py"
    assert args == ["--headless", "--max-frames", "9"]               # script args untouched
    from gymlike.core.enums import KeyboardInput
    assert opts["keys"] == {3: [KeyboardInput.KEY_R], 4: [KeyboardInput.KEY_SPACE]}
    with pytest.raises(R.UsageError, match="unknown key"):
        R.parse_command_line(["--keys", "3:NOPE", "s.py"])


RECORDED = """
from isaacgym import gymapi
gym = gymapi.acquire_gym()
p = gymapi.SimParams()
p.up_axis = gymapi.UP_AXIS_Z
p.gravity = gymapi.Vec3(0, 0, -9.81)
p.dt = 1.0 / 30.0
sim = gym.create_sim(0, 0, gymapi.SIM_PHYSX, p)
pp = gymapi.PlaneParams()
pp.normal = gymapi.Vec3(0, 0, 1)
gym.add_ground(sim, pp)
box = gym.create_box(sim, 0.3, 0.3, 0.3, gymapi.AssetOptions())
for i in range(2):
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
    a = gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0, 0, 1.0 + i)), "box", i, 0)
    gym.set_rigid_body_color(env, a, 0, gymapi.MESH_VISUAL, gymapi.Vec3(0.9, 0.2 * i, 0.1))
cp = gymapi.CameraProperties()
cp.width, cp.height = 160, 120
viewer = gym.create_viewer(sim, cp)
gym.viewer_camera_look_at(viewer, None, gymapi.Vec3(-3, -3, 2), gymapi.Vec3(1, 0, 0.5))
while not gym.query_viewer_has_closed(viewer):
    gym.simulate(sim)
    gym.fetch_results(sim, True)
    gym.step_graphics(sim)
    gym.draw_viewer(viewer, sim, True)
gym.write_viewer_image_to_file(viewer, "last.png")
"""


@pytest.mark.slow
def test_record_writes_a_video_and_viewer_images(tmp_path):
    import numpy as np
    from PIL import Image
    (tmp_path / "rec.py").write_text(RECORDED)
    r = run(["--max-frames", "12", "--record", "out.mp4", "rec.py"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "recorded 12 frame(s)" in r.stderr
    import imageio.v2 as imageio
    frames = [f for f in imageio.get_reader(str(tmp_path / "out.mp4"))]
    assert len(frames) == 12 and frames[0].shape == (120, 160, 3)
    assert np.abs(frames[0].astype(int) - frames[-1].astype(int)).mean() > 0.5     # the boxes fell
    red = (frames[0][..., 0] > 150) & (frames[0][..., 2] < 80)
    assert red.sum() > 20                                                             # both boxes show
    last = np.asarray(Image.open(tmp_path / "last.png"))
    assert last.shape == (120, 160, 4)
    # a folder: numbered PNG frames
    r = run(["--max-frames", "3", "--record", "frames", "rec.py"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path / "frames")) == ["frame_00000.png", "frame_00001.png", "frame_00002.png"]
