"""Scene files (gymlike.scene), the functional world (gymlike.world), strided rollouts and the
raster (gymlike.rollout), and the bench CLI (gymlike.bench)."""

import copy
import json
import os

import numpy as np
import pytest
import torch

from gymlike.core.sim import Sim
from gymlike.rollout import scene_to_raster, simulate_scene
from gymlike.scene import SceneError, load_scene
from gymlike.world import SceneWorld

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = os.path.join(ROOT, "examples", "scenes")

BOX = {"schema_version": 1, "name": "box", "simulation": {"dt": "1/60", "substeps": 2},
       "bodies": [{"id": "box", "mass": 1.0, "transform": {"p": [0, 0, 1]},
                   "shapes": [{"type": "box", "hx": 0.5, "hy": 0.5, "hz": 0.5}]}],
       "ground": True}

ARM = {"schema_version": 1, "name": "arm", "simulation": {"dt": "1/120", "substeps": 2},
       "bodies": [{"id": "upper", "mass": 1.0, "transform": {"p": [0, 0, 1]},
                   "shapes": [{"type": "sphere", "radius": 0.05, "transform": {"p": [0.25, 0, 0]}}]},
                  {"id": "lower", "mass": 0.5, "transform": {"p": [0.5, 0, 1]},
                   "shapes": [{"type": "sphere", "radius": 0.04, "transform": {"p": [0.25, 0, 0]}}]}],
       "joints": [{"id": "shoulder", "type": "revolute", "parent": "world", "child": "upper", "axis": [0, 1, 0],
                   "drive": {"mode": "position", "stiffness": 200, "damping": 20}},
                  {"id": "elbow", "type": "revolute", "parent": "upper", "child": "lower", "axis": [0, 1, 0],
                   "limits": {"lower": "-pi/2", "upper": "pi/2"},
                   "drive": {"mode": "position", "stiffness": 100, "damping": 10}}],
       "post_build": [{"op": "set_joint_target", "joint": "elbow", "value": 0.5}],
       "replicate": {"num_worlds": 3, "spacing": 2.0}, "ground": False}


def test_minimal_box_settles_on_the_ground_within_a_millimetre():
    scene = load_scene(os.path.join(SCENES, "box.yaml"))
    try:
        t = scene.tensors()
        assert t["root"][0, 0, 2].item() == pytest.approx(1.0)
        scene.step(120)
        scene.refresh()
        assert abs(t["root"][0, 0, 2].item() - 0.5) < 1e-3
        assert scene.unsupported_features == []
    finally:
        scene.close()


def test_replicated_worlds_do_not_interact():
    """Four worlds with zero spacing: the boxes overlap in space, yet each lands on the ground
    on its own (boxes of one world would stack)."""
    doc = copy.deepcopy(BOX)
    doc["replicate"] = {"num_worlds": 4, "spacing": 0.0}
    scene = load_scene(doc)
    try:
        assert scene.num_worlds == 4 and len(scene.envs) == 4
        scene.step(120)
        t = scene.tensors()
        scene.refresh()
        np.testing.assert_allclose(t["root"][:, 0, 2].cpu().numpy(), 0.5, atol=1e-3)
    finally:
        scene.close()


def test_post_build_target_edit_reaches_every_world_and_initial_joint_q_by_name_and_index():
    doc = copy.deepcopy(ARM)
    doc["initial_joint_q"] = {"shoulder": 0.3}
    scene = load_scene(doc)
    try:
        g = scene.gym
        for env, handles in zip(scene.envs, scene.actors):
            assert g.get_actor_dof_position_targets(env, handles[0]).tolist() == pytest.approx([0.0, 0.5])
        t = scene.tensors()
        np.testing.assert_allclose(t["dof"][:, :, 0].cpu().numpy(), [[0.3, 0.0]] * 3, atol=1e-6)
        scene.step(240)
        scene.refresh()
        np.testing.assert_allclose(t["dof"][:, 1, 0].cpu().numpy(), 0.5, atol=0.02)   # the drive got there
    finally:
        scene.close()
    doc["initial_joint_q"] = [0.1, -0.2]                      # by index: the world's DOFs in order
    scene = load_scene(doc, num_worlds=2)
    try:
        np.testing.assert_allclose(scene.tensors()["dof"][:, :, 0].cpu().numpy(), [[0.1, -0.2]] * 2, atol=1e-6)
    finally:
        scene.close()


def test_strict_mode_raises_on_an_unsupported_feature_and_default_mode_lists_it():
    doc = copy.deepcopy(BOX)
    doc["builder"] = {"rigid_gap": 0.01}
    with pytest.raises(NotImplementedError, match=r"builder\.rigid_gap: .*strict"):
        load_scene(doc, strict=True)
    scene = load_scene(doc)
    try:
        assert [f.split(":")[0] for f in scene.unsupported_features] == ["builder.rigid_gap"]
    finally:
        scene.close()


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(schema_version=2), r"^schema_version: expected 1, got 2"),
    (lambda d: d["bodies"][0]["shapes"][0].update(type="torus"), r"^bodies\[0\]\.shapes\[0\]\.type: unknown shape type 'torus'"),
    (lambda d: d["bodies"][0]["shapes"][0].update(hx=-1), r"^bodies\[0\]\.shapes\[0\]\.hx: expected a positive number, got -1"),
    (lambda d: d.update(joints=[{"type": "revolute", "parent": "world", "child": "ghost"}]),
     r"^joints\[0\]\.child: no body with id 'ghost'"),
    (lambda d: d["simulation"].update(dt="1/0"), r"^simulation\.dt: division by zero"),
    (lambda d: d["simulation"].update(dt="__import__('os')"), r"^simulation\.dt: expected a number or an expression"),
    (lambda d: d.update(colour="red"), r"^scene\.colour: unknown key"),
])
def test_bad_documents_name_the_key_path_and_build_nothing(edit, message):
    doc = copy.deepcopy(BOX)
    edit(doc)
    before = Sim._next_id
    with pytest.raises(SceneError, match=message):
        load_scene(doc)
    assert Sim._next_id == before            # no sim was created


def test_scene_files_load_as_yaml_and_json_with_expressions(tmp_path):
    path = tmp_path / "box.json"
    doc = copy.deepcopy(BOX)
    doc["bodies"][0]["transform"] = {"p": [0, 0, "2 * (0.25 + 0.25)"], "q": {"axis_angle": [0, 0, 1, "pi / 2"]}}
    path.write_text(json.dumps(doc))
    scene = load_scene(str(path))
    try:
        root = scene.tensors()["root"][0, 0]
        assert root[2].item() == pytest.approx(1.0)
        assert root[5].item() == pytest.approx(np.sin(np.pi / 4), abs=1e-6)   # 90 degrees about z
    finally:
        scene.close()


def test_reset_with_mask_changes_only_masked_worlds_and_is_deterministic_for_a_seed():
    world = SceneWorld(load_scene(copy.deepcopy(ARM)), reset_noise=0.1)
    try:
        assert world.batch_size == 3 and world.world_timestep == pytest.approx(1 / 120)
        assert world.world_subtimestep == pytest.approx(1 / 240)
        assert world.is_control_timestep_compatible(1 / 60) and not world.is_control_timestep_compatible(1 / 100)
        s = world.initial()
        for _ in range(20):
            s, r = world.step(s)
        assert r.shape == (3,)
        mask = torch.tensor([True, False, True])
        a = world.reset(s, seed=7, mask=mask)
        b = world.reset(s, seed=7, mask=mask)
        assert torch.equal(a["dof"], b["dof"]) and torch.equal(a["root"], b["root"])     # bitwise
        assert torch.equal(a["dof"][1], s["dof"][1]) and a["time"][1] == s["time"][1]     # world 1 untouched
        assert not torch.equal(a["dof"][0], s["dof"][0]) and a["time"][0] == 0
        c = world.reset(s, seed=8, mask=mask)
        assert not torch.equal(a["dof"], c["dof"])
        # the functional step: the same state in gives bitwise the same state out
        n1, _ = world.step(a)
        n2, _ = world.step(a)
        assert torch.equal(n1["dof"], n2["dof"]) and torch.equal(n1["root"], n2["root"])
        with pytest.raises(ValueError, match=r"action must have shape \(3, 2\)"):
            world.step(a, torch.zeros(3, 3))
    finally:
        world.close()


def test_simulate_scene_strided_frames_equal_stepping_by_hand():
    doc = copy.deepcopy(ARM)
    doc["initial_joint_q"] = {"shoulder": 0.4, "elbow": -0.3}
    scene = load_scene(doc)
    try:
        res = simulate_scene(scene, 100, stride=10)
        assert tuple(res.body_q.shape) == (10, 3, 2, 7) and tuple(res.joint_q.shape) == (10, 3, 2)
    finally:
        scene.close()
    scene = load_scene(doc)
    try:
        t = scene.tensors()
        for k in range(10):
            scene.step(10)
            scene.refresh()
            assert torch.equal(res.body_q[k], t["body"][..., 0:7])
            assert torch.equal(res.joint_q[k], t["dof"][..., 0])
    finally:
        scene.close()


def test_raster_shows_the_box_from_above():
    scene = load_scene(copy.deepcopy(BOX))
    try:
        img = scene_to_raster(scene, height=32, width=32, extent=(-2, 2, -2, 2))
        assert img.shape == (32, 32)
        assert img[16, 16] == 1 and img[0, 0] == 0            # box in the middle, nothing in the corner
        assert set(np.unique(img)) == {0, 1}
    finally:
        scene.close()


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(SCENES) if f.endswith((".yaml", ".yml", ".json"))))
def test_bench_cli_runs_every_example_scene(name, capsys):
    from gymlike.bench import main
    assert main([os.path.join(SCENES, name), "--frames", "3", "--warmup", "1", "--num-worlds", "2"]) == 0
    out = capsys.readouterr().out
    assert "env-frames/s" in out and "2 worlds" in out
