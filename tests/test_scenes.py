"""Scene files (schema v1), SceneWorld, simulate_scene, scene_to_raster and the bench CLI.

Physics facts checked: a box settles on the ground at its half-extent; replicated worlds do not
interact; PD drives reach post_build targets in every world. API facts: key-path errors that
build nothing, strict mode, selectors, masked deterministic resets, strided rollouts equal to
stepping by hand."""

from __future__ import annotations

import copy
import glob
import io
import json
import math
import os
import re
import warnings

import numpy as np
import pytest
import torch

from gymlike import gymapi
from gymlike.core.sim import Sim
from gymlike.scene import SceneError, UnsupportedSceneFeature, load_scene
from gymlike.scene.schema import number

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = sorted(glob.glob(os.path.join(ROOT, "examples", "scenes", "*.yaml")))

BOX = {"schema_version": 1, "name": "box", "simulation": {"dt": "1/60", "substeps": 2}, "ground": True,
       "bodies": [{"id": "box", "transform": {"p": [0, 0, 1]}, "shapes": [{"type": "box", "hx": 0.5, "hy": 0.5, "hz": 0.5}]}]}

# a fixed-base two-hinge arm without gravity: PD drives settle exactly on their targets
ARM = {
    "schema_version": 1, "name": "arm",
    "simulation": {"dt": "1/60", "substeps": 2, "gravity": [0, 0, 0]},
    "bodies": [
        {"id": "upper", "transform": {"p": [0, 0, 1.25]}, "shapes": [{"type": "capsule", "radius": 0.05, "half_height": 0.25}]},
        {"id": "lower", "transform": {"p": [0, 0, 0.75]}, "shapes": [{"type": "capsule", "radius": 0.05, "half_height": 0.25}]},
    ],
    "joints": [
        {"label": "shoulder", "type": "revolute", "parent": "world", "child": "upper", "axis": [0, 1, 0],
         "child_frame": {"p": [0, 0, 0.25]}, "drive": {"mode": "position", "stiffness": 50, "damping": 30}},
        {"label": "elbow", "type": "revolute", "parent": "upper", "child": "lower", "axis": [0, 1, 0],
         "child_frame": {"p": [0, 0, 0.25]}, "limits": {"lower": "-pi/2", "upper": "pi/2"},
         "drive": {"mode": "position", "stiffness": 50, "damping": 30}},
    ],
    "articulations": [{"name": "arm", "joints": ["shoulder", "elbow"]}],
}


def doc(base, **changes):
    d = copy.deepcopy(base)
    d.update(changes)
    return d


@pytest.fixture
def sims_made(monkeypatch):
    """Every Sim created during the test (to check that failed loads leave none alive)."""
    made, init = [], Sim.__init__

    def spy(self, *a, **kw):
        init(self, *a, **kw)
        made.append(self)
    monkeypatch.setattr(Sim, "__init__", spy)
    return made


# ---------------------------------------------------------------------------- physics
def test_single_box_settles_at_half_extent():
    scene = load_scene(os.path.join(ROOT, "examples", "scenes", "box.yaml"))
    try:
        g, s = scene.gym, scene.sim
        assert g.get_env_count(s) == 1 and scene.num_worlds == 1
        scene.step(120)                       # 2 s
        z = float(scene.refresh()["root_w"][0, 0, 2])
        assert abs(z - 0.5) < 1e-3, z
    finally:
        scene.close()


def test_replicated_worlds_do_not_interact():
    # spacing 0: all four boxes occupy the same place; only separate worlds keep them apart
    scene = load_scene(doc(BOX, replicate={"num_worlds": 4, "spacing": 0}))
    try:
        g, s = scene.gym, scene.sim
        assert g.get_env_count(s) == 4 and len(scene.envs) == 4 and g.get_sim_actor_count(s) == 4
        from gymlike import gymtorch
        root = scene.refresh()["root"]
        root[1, 7] = 1.0                      # push world 1 sideways through the tensor API
        g.set_actor_root_state_tensor(s, gymtorch.unwrap_tensor(root))
        scene.step(60)
        r = scene.refresh()["root_w"][:, 0]
        for w in (2, 3):
            assert torch.equal(r[w], r[0])    # untouched worlds: bitwise the same motion
        assert float(r[1, 0]) > 0.1 and abs(float(r[0, 0])) < 1e-6
        assert torch.allclose(r[:, 2], torch.full((4,), 0.5), atol=2e-3)
    finally:
        scene.close()


def test_post_build_targets_in_every_world():
    d = doc(ARM, post_build=[{"op": "set_joint_targets", "values": {"shoulder": 0.4, "elbow": "-pi/6"}},
                             {"op": "set_attr", "select": "*", "attr": "stiffness", "value": 80},
                             {"op": "set_attr", "select": "lower", "attr": "mass", "value": 2.0},
                             {"op": "set_attr", "select": "up*", "attr": "mu", "value": 0.3}],
            replicate={"num_worlds": 3, "spacing": 1.0})
    scene = load_scene(d)
    try:
        g = scene.gym
        for env, (h,) in zip(scene.envs, scene.actors):
            assert np.allclose(g.get_actor_dof_position_targets(env, h), [0.4, -math.pi / 6])
            props = g.get_actor_dof_properties(env, h)
            assert np.allclose(props["stiffness"], 80) and np.allclose(props["damping"], 30)
            assert list(props["driveMode"]) == [gymapi.DOF_MODE_POS] * 2
            bodies = g.get_actor_rigid_body_properties(env, h)
            assert bodies[1].mass == pytest.approx(2.0) and bodies[0].mass != pytest.approx(2.0)
            shapes = g.get_actor_rigid_shape_properties(env, h)
            assert shapes[0].friction == pytest.approx(0.3) and shapes[1].friction == pytest.approx(1.0)
        scene.step(180)
        q = scene.refresh()["dof_w"][..., 0]
        assert torch.allclose(q, torch.tensor([0.4, -math.pi / 6]).expand(3, 2), atol=1e-3), q
    finally:
        scene.close()


def test_initial_joint_q_by_name_and_index():
    scene = load_scene(doc(ARM, initial_joint_q=[{"joint": "shoulder", "value": 0.3}, {"index": 1, "value": "-0.2"}]))
    try:
        st = scene.gym.get_actor_dof_states(scene.envs[0], scene.actors[0][0], gymapi.STATE_POS)
        assert np.allclose(st["pos"], [0.3, -0.2])
        # the mapping form means the same; bodies sit where the coordinates put them (forward kinematics)
        lower = scene.refresh()["body_w"][0, 1, :3]
        elbow = np.array([0, 0, 1.5]) + 0.5 * np.array([-math.sin(0.3), 0, -math.cos(0.3)])
        a = 0.3 - 0.2
        expect = elbow + 0.25 * np.array([-math.sin(a), 0, -math.cos(a)])
        assert np.allclose(lower.numpy(), expect, atol=1e-5)
    finally:
        scene.close()


# ---------------------------------------------------------------------------- errors
BAD = [
    (dict(schema_version=2), "schema_version: expected 1, got 2"),
    (dict(bodies=[{"id": "b", "shapes": [{"type": "torus", "radius": 1}]}]), "bodies[0].shapes[0].type: unknown shape type 'torus'"),
    (dict(bodies=[{"id": "a", "shapes": [{"type": "sphere", "radius": 0.1}]},
                  {"id": "b", "shapes": [{"type": "box", "hx": 1, "hy": 1, "hz": 1}]},
                  {"id": "c", "shapes": [{"type": "box", "hx": -1, "hy": 1, "hz": 1}]}]),
     "bodies[2].shapes[0].hx: expected a positive number, got -1"),
    (dict(joints=[{"type": "revolute", "parent": "world", "child": "nope"}]), "joints[0].child: no body with id 'nope'"),
    (dict(ground={"enabled": True, "frction": 1}), "ground.frction: unknown key"),
    (dict(simulation={"dt": "__import__('os').getcwd()"}), "simulation.dt: expected a number or an expression"),
    (dict(simulation={"dt": "2**3"}), "simulation.dt: expected a number or an expression"),
    (dict(bodies=[{"id": "b", "transform": {"q": [0, 0, 0, 0]}, "shapes": [{"type": "sphere", "radius": 1}]}]),
     "bodies[0].transform.q: expected a non-zero quaternion"),
    (dict(post_build=[{"op": "explode", "select": "*", "value": 1}]), "post_build[0].op: unknown op 'explode'"),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_bad_documents_name_the_key_path_and_build_nothing(change, message, sims_made):
    with pytest.raises(SceneError) as e:
        load_scene(doc(BOX, **change))
    assert message in str(e.value)
    assert isinstance(e.value, ValueError) and e.value.path == message.split(":")[0]
    assert sims_made == []


def test_errors_found_after_assets_load_destroy_the_sim(sims_made):
    # DOF names are known only once assets are parsed: the sim made by then is destroyed
    with pytest.raises(SceneError, match=r"initial_joint_q\[0\]\.joint: 'knee' names no DOF"):
        load_scene(doc(ARM, initial_joint_q={"knee": 1.0}))
    with pytest.raises(SceneError, match=r"initial_joint_q\[0\]\.index: DOF index 2 out of range \[0, 2\)"):
        load_scene(doc(ARM, initial_joint_q=[{"index": 2, "value": 0}]))
    with pytest.raises(SceneError, match=r"post_build\[0\]\.select: no DOF matches 'wrist\*'"):
        load_scene(doc(ARM, post_build=[{"op": "set_joint_targets", "select": "wrist*", "value": 0}]))
    with pytest.raises(SceneError, match=r"post_build\[0\]\.values\.hand: no body matches 'hand'"):
        load_scene(doc(ARM, post_build=[{"op": "set_attr", "attr": "mass", "values": {"hand": 2.0}}]))
    assert len(sims_made) == 4 and all(s.destroyed for s in sims_made)


def test_tree_and_articulation_errors():
    loop = doc(ARM, joints=ARM["joints"] + [{"type": "fixed", "parent": "lower", "child": "upper"}])
    with pytest.raises(SceneError, match=r"joints\[2\]\.child: body 'upper' is already the child of joints\[0\]"):
        load_scene(loop)
    split = doc(ARM, articulations=[{"joints": ["shoulder"]}, {"joints": ["elbow"]}])
    with pytest.raises(SceneError, match="split over"):
        load_scene(split)


def test_strict_mode_raises_on_unsupported_feature(sims_made):
    d = doc(BOX, simulation={"dt": 0.01, "solver": "featherstone"},
            post_build=[{"op": "randomize", "select": "*", "attr": "mass"}])
    with pytest.raises(UnsupportedSceneFeature, match=r"simulation\.solver: Newton solver 'featherstone'"):
        load_scene(d, strict=True)
    assert sims_made == []
    with pytest.warns(UserWarning, match="skipped unsupported features"):
        scene = load_scene(d, prepare=False)
    try:
        assert [f.split(":")[0] for f in scene.unsupported_features] == ["simulation.solver", "post_build[0].op"]
    finally:
        scene.close()


def test_git_sources_need_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    src = {"git": "https://example.com/robots.git", "ref": "v1", "path": "box.urdf"}
    d = {"schema_version": 1, "assets": [{"urdf": src}]}
    with pytest.raises(FileNotFoundError, match=r"assets\[0\]\.urdf\.git: git-backed asset sources are not fetched"):
        load_scene(d)
    from gymlike.scene.schema import git_cache_dir
    import hashlib
    entry = os.path.join(git_cache_dir(), hashlib.sha1(b"https://example.com/robots.git@v1").hexdigest()[:16])
    os.makedirs(entry)
    with open(os.path.join(ROOT, "assets", "urdf", "box.urdf")) as f, open(os.path.join(entry, "box.urdf"), "w") as g:
        g.write(f.read())
    scene = load_scene(d, prepare=False)
    assert scene.bodies_per_world == 1
    scene.close()


def test_expressions_and_transforms():
    assert number("pi/2", "x") == math.pi / 2
    assert number("-(1 + 2) * 3 / 4", "x") == -2.25
    for bad in ("pi.real", "abs(-1)", "1 if 1 else 2", "[1]", "1/0"):
        with pytest.raises(SceneError, match="^x: "):
            number(bad, "x")
    d = doc(BOX, ground=False, simulation={"gravity": [0, 0, 0]},
            bodies=[{"id": "b", "transform": {"p": ["1/2", 0, "pi"], "axis_angle": {"axis": [0, 0, 2], "angle": "pi/2"}},
                     "shapes": [{"type": "sphere", "radius": 0.1}]}])
    scene = load_scene(d)
    try:
        r = scene.refresh()["root_w"][0, 0]
        s = math.sqrt(0.5)
        assert np.allclose(r[:7].numpy(), [0.5, 0, math.pi, 0, 0, s, s], atol=1e-6)
    finally:
        scene.close()


def test_json_file_and_inline_urdf(tmp_path):
    urdf = open(os.path.join(ROOT, "assets", "urdf", "pendulum.urdf")).read()
    d = {"schema_version": 1, "name": "inline", "assets": [{"name": "pend", "urdf": urdf, "floating": False}],
         "initial_joint_q": {"hinge": 0.5}}
    p = tmp_path / "scene.json"
    p.write_text(json.dumps(d))
    scene = load_scene(str(p), num_worlds=2, prepare=False)
    try:
        assert scene.source == str(p) and scene.num_worlds == 2
        g = scene.gym
        assert g.get_actor_dof_names(scene.envs[1], scene.actors[1][0]) == ["hinge"]
        assert g.find_actor_handle(scene.envs[1], "pend") == 0
        assert np.allclose(g.get_actor_dof_states(scene.envs[1], 0, gymapi.STATE_POS)["pos"], [0.5])
    finally:
        scene.close()


# ---------------------------------------------------------------------------- SceneWorld
def test_scene_world_masked_reset_is_deterministic():
    from gymlike.world import FuncWorld, SceneWorld
    world = SceneWorld(load_scene(doc(ARM, replicate={"num_worlds": 4})), reset_noise=0.1)
    try:
        assert isinstance(world, FuncWorld) and world.batch_size == 4 and world.device == "cpu"
        assert world.world_timestep == pytest.approx(1 / 60) and world.world_subtimestep == pytest.approx(1 / 120)
        assert world.is_control_timestep_compatible(2 / 60) and not world.is_control_timestep_compatible(1.5 / 60)
        s0 = world.initial(seed=0)
        s = s0
        for _ in range(5):
            s, reward = world.step(s)
        assert reward.shape == (4,)
        mask = torch.tensor([True, False, True, False])

        def run():
            r = world.reset(s_before, seed=7, mask=mask)
            out = r
            for _ in range(3):
                out, _ = world.step(out)
            return r, out
        s_before = {k: v.clone() for k, v in s.items()}
        r1, after1 = run()
        for k in ("root_state", "dof_pos", "dof_vel", "time", "steps"):
            assert torch.equal(r1[k][~mask], s_before[k][~mask]), k    # unmasked worlds unchanged
        assert torch.equal(r1["steps"][mask], torch.zeros(2, dtype=torch.int64))
        assert not torch.equal(r1["dof_pos"][mask], s_before["dof_pos"][mask])
        assert (r1["dof_pos"][mask] - s0["dof_pos"][mask]).abs().max() <= 0.2 + 1e-6
        r2, after2 = run()
        for k in r1:
            assert torch.equal(r1[k], r2[k]) and torch.equal(after1[k], after2[k]), k   # bitwise, same seed
        r3 = world.reset(s_before, seed=8, mask=mask)
        assert not torch.equal(r3["dof_pos"], r1["dof_pos"])
        with pytest.raises(ValueError, match=r"mask must be a bool tensor of shape \(4,\)"):
            world.reset(s_before, mask=torch.ones(3, dtype=torch.bool))
        with pytest.raises(ValueError, match=r"state\['dof_pos'\] must be a tensor of shape \(4, 2\)"):
            world.step(dict(s_before, dof_pos=torch.zeros(4, 3)))
    finally:
        world.close()


# ---------------------------------------------------------------------------- rollouts, raster
def test_simulate_scene_strided_equals_stepping_by_hand():
    from gymlike.rollout import simulate_scene
    d = doc(ARM, initial_joint_q={"shoulder": 0.5}, simulation={"dt": "1/60", "gravity": [0, 0, -9.81]},
            replicate={"num_worlds": 2})
    res = simulate_scene(d, 100, stride=10)
    assert res.body_q.shape == (10, 2, 2, 7) and res.joint_q.shape == (10, 2, 2)
    assert res.steps.tolist() == list(range(10, 101, 10))
    scene = load_scene(d)
    try:
        body = scene.tensors()["body_w"]
        for k in range(10):
            scene.step(10)
            scene.gym.refresh_rigid_body_state_tensor(scene.sim)
            assert torch.equal(res.body_q[k], body[..., :7]), k
            assert torch.equal(res.joint_q[k], scene.joint_q()), k
    finally:
        scene.close()
    with pytest.raises(ValueError, match="stride must be an int >= 1"):
        simulate_scene(d, 10, stride=0)


def test_scene_to_raster_top_down():
    from gymlike.rollout import scene_to_raster
    d = doc(BOX, bodies=[
        {"id": "low", "transform": {"p": [0, 0, 0.5]}, "shapes": [{"type": "box", "hx": 1, "hy": 0.5, "hz": 0.5}]},
        {"id": "high", "transform": {"p": [0, 0, 2]}, "shapes": [{"type": "sphere", "radius": 0.25}]}])
    scene = load_scene(d, prepare=False)
    try:
        ids = scene_to_raster(scene, height=20, width=40, extent=(-2, 2, -1, 1))
        assert ids.shape == (20, 40) and ids.dtype == np.int32
        assert ids[10, 20] == 2                  # the sphere is above the box at the centre
        assert ids[10, 5] == 0 and ids[10, 12] == 1 and ids[2, 20] == 0   # x = -1.5: empty; x = -0.75: box
        assert ((ids == 1).sum() * 0.01) == pytest.approx(2.0 - math.pi * 0.25 ** 2, abs=0.12)   # box area minus disc
        colors = scene_to_raster(scene, height=20, width=40, extent=(-2, 2, -1, 1), values="colors")
        assert colors[10, 5] == 0 and colors[10, 20] != colors[10, 12] != 0
    finally:
        scene.close()


# ---------------------------------------------------------------------------- bench CLI
def test_bench_cli_in_process():
    from gymlike import bench
    out = io.StringIO()
    rate = bench.run([os.path.join(ROOT, "examples", "scenes", "box.yaml"), "--frames", "3", "--num-worlds", "2",
                      "--warmup", "1"], out=out)
    text = out.getvalue()
    assert rate > 0 and "env-frames/s" in text and "2 worlds" in text and re.search(r"SolverMuJoCoC?\.step", text)


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENES, ids=[os.path.basename(p) for p in SCENES])
def test_bench_cli_runs_every_example_scene(path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "gymlike.bench", path, "--frames", "3", "--num-worlds", "2", "--warmup", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    assert "env-frames/s" in r.stdout and "2 worlds" in r.stdout


def test_example_scenes_validate():
    from gymlike.scene.schema import read_document, validate
    assert len(SCENES) >= 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for p in SCENES:
            spec = validate(*read_document(p), strict=True)
            assert spec.unsupported == []
