"""Property-based fuzzing of the URDF and MJCF loaders (hypothesis).

Property: for any document, loading it, creating an actor from it, `prepare_sim` and two
`simulate` calls either work or raise a gymlike error (`gymapi.GymlikeError`): never a raw
Python, NumPy or MuJoCo exception, never a crash; and a `load_asset` that raises adds no asset.

The documents are robots built from random trees of links/bodies whose attributes are drawn from
valid values and from the usual ways files go wrong (NaN, inf, negatives, zeros, text, wrong
arity, missing attributes or elements, unknown types, duplicate names, dangling references), plus
truncation. CI runs a fixed, derandomized set; `GYMLIKE_FUZZ_EXAMPLES=N` runs N random examples
per format (the issue's 10-minute run: GYMLIKE_FUZZ_EXAMPLES=400).
"""

import faulthandler
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gymlike import gymapi  # noqa: E402
from gymlike.core.errors import GymlikeError  # noqa: E402

pytestmark = pytest.mark.slow

LONG = int(os.environ.get("GYMLIKE_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=LONG or 30, deadline=None, derandomize=not LONG, database=None,
                suppress_health_check=list(HealthCheck))

GOOD_SCALAR = ["0.1", "0.5", "1", "0.02", "2"]
BAD_SCALAR = ["nan", "inf", "-1", "0", "", "abc", "1e30", "1e-30", "1 2"]
GOOD_VEC3 = ["0 0 0.2", "0 0 1", "1 0 0", "0.1 0.1 0.1"]
BAD_VEC3 = ["0 0 0", "nan 0 1", "1 2", "a b c", "1 2 3 4", "", "1e30 0 0", "-1 -1 -1"]


class Draw:
    """hypothesis' draw plus this document's error rate (percent of attributes that go bad, so
    that both clean robots, which must simulate, and broken ones are generated)."""

    def __init__(self, draw):
        self.draw = draw
        self.rate = draw(st.sampled_from([0, 1, 4, 15]))

    def __call__(self, strategy):
        return self.draw(strategy)


def attr(draw, name, good, bad):
    """ name="v" (a bad value at the document's rate, sometimes missing)."""
    roll = draw(st.integers(0, 199))
    if roll < draw.rate:
        return ""
    v = draw(st.sampled_from(bad)) if roll < 3 * draw.rate else draw(st.sampled_from(good))
    return f' {name}="{v}"'


@st.composite
def urdf_documents(draw):
    draw = Draw(draw)
    n = draw(st.integers(1, 5))
    names = [f"l{i}" for i in range(n)]
    if draw(st.integers(0, 99)) < draw.rate:
        names[-1] = names[0]                                    # duplicate link name
    parts = []
    for name in names:
        inertial = "" if draw(st.integers(0, 5)) == 0 else (
            f'<inertial><mass{attr(draw, "value", GOOD_SCALAR, BAD_SCALAR)}/>'
            f'<inertia{attr(draw, "ixx", GOOD_SCALAR, BAD_SCALAR)} ixy="0" ixz="0"'
            f'{attr(draw, "iyy", GOOD_SCALAR, BAD_SCALAR)} iyz="0"{attr(draw, "izz", GOOD_SCALAR, BAD_SCALAR)}/>'
            '</inertial>')
        shape = draw(st.sampled_from(["box", "sphere", "cylinder", "capsule"]
                                     + (["torus", "none"] if draw(st.integers(0, 99)) < draw.rate else [])))
        geom = {"box": f'<box{attr(draw, "size", ["0.1 0.1 0.1", "0.2 0.1 0.05"], BAD_VEC3)}/>',
                "sphere": f'<sphere{attr(draw, "radius", GOOD_SCALAR, BAD_SCALAR)}/>',
                "cylinder": f'<cylinder{attr(draw, "radius", GOOD_SCALAR, BAD_SCALAR)}'
                            f'{attr(draw, "length", GOOD_SCALAR, BAD_SCALAR)}/>',
                "capsule": f'<capsule{attr(draw, "radius", GOOD_SCALAR, BAD_SCALAR)}'
                           f'{attr(draw, "length", GOOD_SCALAR, BAD_SCALAR)}/>',
                "torus": '<torus radius="1"/>', "none": ""}[shape]
        collision = "" if draw(st.integers(0, 4)) == 0 else (
            f'<collision><origin{attr(draw, "xyz", GOOD_VEC3, BAD_VEC3)}/><geometry>{geom}</geometry></collision>')
        parts.append(f'<link name="{name}">{inertial}{collision}</link>')
    for i in range(1, n):
        bad = draw(st.integers(0, 99)) < draw.rate
        parent = names[draw(st.integers(0, i - 1))] if not bad else draw(st.sampled_from(names + ["ghost"]))
        child = names[i] if not bad else draw(st.sampled_from(names + ["ghost"]))
        jtype = draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed", "floating", "planar",
                                      "spherical"] + (["hinge2", "ball", ""] if bad else [])))
        parts.append(
            f'<joint name="j{i}" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin{attr(draw, "xyz", GOOD_VEC3, BAD_VEC3)}{attr(draw, "rpy", ["0 0 0", "0.3 0 0"], BAD_VEC3)}/>'
            f'<axis{attr(draw, "xyz", ["0 0 1", "1 0 0", "0 1 0"], BAD_VEC3)}/>'
            f'<limit{attr(draw, "lower", ["-1", "-0.5"], BAD_SCALAR)}{attr(draw, "upper", ["1", "0.5"], BAD_SCALAR)}'
            f'{attr(draw, "effort", ["10", "100"], BAD_SCALAR)}{attr(draw, "velocity", ["5"], BAD_SCALAR)}/>'
            f'<dynamics{attr(draw, "damping", ["0", "0.1"], BAD_SCALAR)}/></joint>')
    text = '<?xml version="1.0"?>\n<robot name="fuzz">\n' + "\n".join(parts) + "\n</robot>\n"
    return truncate(draw, text)


@st.composite
def mjcf_documents(draw):
    draw = Draw(draw)

    def body(depth, k):
        bad = draw(st.integers(0, 99)) < draw.rate
        jtype = draw(st.sampled_from(["hinge", "slide", "ball"] + (["free"] if depth == 0 or bad else [])
                                     + (["hinge2"] if bad else [])))
        joint = "" if draw(st.integers(0, 5)) == 0 else (
            f'<joint name="j{depth}_{k}" type="{jtype}"{attr(draw, "axis", ["0 0 1", "1 0 0"], BAD_VEC3)}'
            f'{attr(draw, "range", ["-1 1", "-30 30"], ["1 -1", "nan 1", "1", "a b"])}/>')
        gtype = draw(st.sampled_from(["sphere", "capsule", "box", "cylinder", "ellipsoid"]
                                     + (["torus"] if bad else [])))
        geom = "" if draw(st.integers(0, 5)) == 0 else (
            f'<geom type="{gtype}"{attr(draw, "size", ["0.1", "0.05 0.1", "0.1 0.1 0.1"], BAD_VEC3 + BAD_SCALAR)}'
            f'{attr(draw, "pos", GOOD_VEC3, BAD_VEC3)}/>')
        inertial = "" if draw(st.integers(0, 2)) else (
            f'<inertial pos="0 0 0"{attr(draw, "mass", GOOD_SCALAR, BAD_SCALAR)}'
            f'{attr(draw, "diaginertia", ["0.01 0.01 0.01", "0.1 0.1 0.1"], BAD_VEC3)}/>')
        kids = "".join(body(depth + 1, i) for i in range(draw(st.integers(0, 2 if depth < 2 else 0))))
        return (f'<body name="b{depth}_{k}"{attr(draw, "pos", GOOD_VEC3, BAD_VEC3)}'
                f'{attr(draw, "quat", ["1 0 0 0", "0.7071 0 0.7071 0"], ["0 0 0 0", "nan 0 0 1", "1 0 0"])}>'
                f"{joint}{geom}{inertial}{kids}</body>")
    actuator = "" if draw(st.integers(0, 2)) else (
        f'<actuator><motor joint="{draw(st.sampled_from(["j1_0", "j0_0", "ghost"]))}" gear="10"/></actuator>')
    # (a reference to a joint the random tree did not make is itself one of the malformed cases)
    text = (f'<mujoco model="fuzz"><worldbody>{body(0, 0)}</worldbody>{actuator}</mujoco>')
    return truncate(draw, text)


def truncate(draw, text):
    if draw(st.integers(0, 399)) < draw.rate:
        return text[:draw(st.integers(0, len(text)))]
    return text


def check_document(tmp_path_factory, text, ext):
    # a document that makes gymlike (or Newton under it) loop forever ends the run with a
    # traceback instead of hanging it (found: a 1e30 m box, see core/assets/check.py MAX_LENGTH)
    faulthandler.dump_traceback_later(600, exit=True)
    try:
        return _check_document(tmp_path_factory, text, ext)
    finally:
        faulthandler.cancel_dump_traceback_later()


def _check_document(tmp_path_factory, text, ext):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / f"robot{ext}").write_text(text)
    gym = gymapi.acquire_gym()
    params = gymapi.SimParams()
    params.up_axis = gymapi.UP_AXIS_Z
    params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, params)
    try:
        try:
            asset = gym.load_asset(sim, str(folder), f"robot{ext}", gymapi.AssetOptions())
        except GymlikeError:
            assert gym.get_sim_actor_count(sim) == 0
            # the sim is still usable after the refused load
            box = gym.create_box(sim, 0.1, 0.1, 0.1, gymapi.AssetOptions())
            assert gym.get_asset_rigid_body_count(box) == 1
            return "refused at load"
        try:
            env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
            gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 1)), "robot", 0, 0)
            gym.prepare_sim(sim)
            for _ in range(2):
                gym.simulate(sim)
            gym.refresh_actor_root_state_tensor(sim)
        except GymlikeError:
            return "refused later"
        return "ran"
    finally:
        gym.destroy_sim(sim)


@FUZZ
@given(text=urdf_documents())
def test_urdf_loader_fuzz(tmp_path_factory, text):
    hypothesis.event(check_document(tmp_path_factory, text, ".urdf"))


@FUZZ
@given(text=mjcf_documents())
def test_mjcf_loader_fuzz(tmp_path_factory, text):
    hypothesis.event(check_document(tmp_path_factory, text, ".xml"))
