"""Scene files as seed 001 documents them: each of the seed's examples, completed into a whole
document with the seed's keys and spellings, loads, simulates and shows the effect the seed
states. Physics facts: the box rests on the default ground at its half extent with the body
mass added to the shapes' (1001 kg), a hinge stays within its limits, PD drives reach the
post_build targets, replicated worlds sit on Newton's centred grid or line and never interact."""

from __future__ import annotations

import copy
import glob
import io
import math
import os
import re
import subprocess
import warnings

import numpy as np
import pytest
import torch

from conftest import ROOT
from gymlike import gymapi
from gymlike.core.sim import Sim
from gymlike.scene import SapUnsupportedSceneFeature, SceneError, load_sap_scene

SCENES = sorted(glob.glob(os.path.join(ROOT, "examples", "scenes", "*.yaml")))

# seed 001's "Minimal Inline Scene", as written
SINGLE_BOX = {
    "schema_version": 1, "name": "single_box",
    "simulation": {"dt": 0.003, "num_worlds": 1, "max_rigid_contact": 64,
                   "solver": {"contact_preset_variant": "approx32", "line_search_variant": "monotone_decay"}},
    "builder": {"rigid_gap": 0.002,
                "defaults": {"shape": {"density": 1000.0, "ke": 1000000.0, "tau": 0.01, "mu": 0.5}}},
    "ground": {"enabled": True, "label": "DEFAULT_GROUND"},
    "bodies": [{"id": "box", "mass": 1.0, "transform": {"p": [0.0, 0.0, 1.0], "q": "identity"},
                "shapes": [{"type": "box", "hx": 0.5, "hy": 0.5, "hz": 0.5}]}],
    "joints": [{"id": "box_free", "type": "free", "parent": "world", "child": "box"}],
    "articulations": [{"id": "box_articulation", "joints": ["box_free"]}],
}
SAP_FEATURES = ["simulation.solver.contact_preset_variant", "simulation.solver.line_search_variant"]

# seed 001's hinge ("Inline Joints and Articulations"), completed: a rod pivoting about z
HINGE = {
    "schema_version": 1, "name": "hinge", "simulation": {"dt": 1 / 240},
    "bodies": [{"id": "link", "transform": {"p": [0.5, 0.0, 1.0]},
                "shapes": [{"type": "box", "hx": 0.5, "hy": 0.05, "hz": 0.05}]}],
    "joints": [{"id": "hinge", "type": "revolute", "parent": "world", "child": "link", "axis": [0.0, 0.0, 1.0],
                "parent_xform": {"p": [0.0, 0.0, 1.0]}, "child_xform": {"p": [-0.5, 0.0, 0.0]},
                "limit_lower": -1.57, "limit_upper": 1.57,
                # Newton's default limit gains (ke 1e4, kd 10) make a soft MuJoCo limit (0.2 s time constant)
                "limit_ke": 1e5, "limit_kd": 1e3}],
    "articulations": [{"id": "hinge_articulation", "joints": ["hinge"]}],
}

# seed 001's initial_joint_q example, completed: bodies a and b joined by revolute_a_b, and box_free
TWO_TREES = {
    "schema_version": 1, "name": "two_trees", "ground": False, "simulation": {"dt": 1 / 120},
    "builder": {"defaults": {"joint": {"armature": 0.1}}},
    "bodies": [
        {"id": "a", "transform": {"p": [0, 0, 2]},
         "shapes": [{"type": "capsule", "radius": 0.05, "half_height": 0.25}]},
        {"id": "b", "transform": {"p": [0, 0, 1.5]},
         "shapes": [{"type": "capsule", "radius": 0.05, "half_height": 0.25}]},
        {"id": "box", "transform": {"p": [2, 0, 1]}, "shapes": [{"type": "box", "hx": 0.1, "hy": 0.1, "hz": 0.1}]},
    ],
    "joints": [
        {"id": "weld_a", "type": "fixed", "parent": "world", "child": "a"},
        {"id": "revolute_a_b", "type": "revolute", "parent": "a", "child": "b", "axis": "y",
         "parent_xform": {"p": [0, 0, -0.25]}, "child_xform": {"p": [0, 0, 0.25]}},
        {"id": "box_free", "type": "free", "parent": "world", "child": "box"},
    ],
    "initial_joint_q": [{"joint": "revolute_a_b", "value": "pi * 0.5"},
                        {"joint": "box_free", "offset": 2, "value": 1.25}],
}


def doc(base, **changes):
    d = copy.deepcopy(base)
    d.update(changes)
    return d


def quiet_load(d, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return load_sap_scene(d, **kw)


@pytest.fixture
def sims_made(monkeypatch):
    """Every Sim created during the test (to check that failed loads leave none alive)."""
    made, init = [], Sim.__init__

    def spy(self, *a, **kw):
        init(self, *a, **kw)
        made.append(self)
    monkeypatch.setattr(Sim, "__init__", spy)
    return made


# ---------------------------------------------------------------------------- the minimal scene
def test_single_box_rests_on_the_default_ground_with_its_documented_mass():
    with pytest.warns(UserWarning, match="unsupported features not applied"):
        scene = load_sap_scene(SINGLE_BOX)
    try:
        assert [f.split(":")[0] for f in scene.unsupported_features] == SAP_FEATURES
        g, env = scene.gym, scene.envs[0]
        assert g.get_actor_rigid_body_properties(env, 0)[0].mass == pytest.approx(1001.0)   # 1 kg + 1 m^3 x 1000
        assert scene.shape_labels[-1] == "DEFAULT_GROUND" and scene.body_labels == ["box"]
        m = scene.sap_model
        ground = scene.shape_labels.index("DEFAULT_GROUND")
        # builder defaults reach the ground (added last) and the box: ke, kd = tau * ke, gap
        assert np.allclose(m.shape_material_ke.numpy(), 1e6) and np.allclose(m.shape_material_kd.numpy(), 1e4)
        assert np.allclose(m.shape_gap.numpy(), 0.002) and m.shape_material_mu.numpy()[ground] == pytest.approx(0.5)
        assert np.allclose(scene.sap_state.body_q.numpy()[0], [0, 0, 1, 0, 0, 0, 1])
        scene.step(700)                          # 2.1 s
        z = float(scene.refresh()["root_w"][0, 0, 2])
        assert abs(z - 0.5) < 2e-3, z
        assert np.allclose(scene.sap_state.body_q.numpy()[0], [0, 0, 1, 0, 0, 0, 1])   # the initial state stays
        c = scene.control()
        assert c is not scene.sap_control and c.joint_f.shape == scene.sap_control.joint_f.shape
    finally:
        scene.close()
    with pytest.raises(SapUnsupportedSceneFeature, match=r"^simulation\.solver\.contact_preset_variant: .*strict=True"):
        load_sap_scene(SINGLE_BOX, strict=True)


@pytest.mark.parametrize("ground,falls", [(None, False), (False, True), ({"enabled": False}, True)])
def test_ground_is_on_unless_disabled(ground, falls):
    d = doc(SINGLE_BOX, simulation={"dt": 0.01})
    d.pop("ground")
    if ground is not None:
        d["ground"] = ground
    scene = load_sap_scene(d)
    try:
        assert (scene.shape_labels[-1] == "ground_plane") == (not falls)
        scene.step(150)
        z = float(scene.refresh()["root_w"][0, 0, 2])
        assert (z < 0.0) == falls and (falls or abs(z - 0.5) < 0.02), z
    finally:
        scene.close()


# ---------------------------------------------------------------------------- joints
@pytest.mark.parametrize("axis", [[0.0, 0.0, 1.0], "z", 2])
def test_hinge_respects_its_limits(axis):
    # a spin of 2 rad/s about z (gravity is along the axis: nothing else moves it) ends at the limit
    d = doc(HINGE, post_build=[{"op": "set_array", "array": "joint_qd", "index": 0, "value": 2.0}])
    d["joints"][0]["axis"] = axis
    scene = load_sap_scene(d)
    try:
        props = scene.gym.get_actor_dof_properties(scene.envs[0], 0)
        assert (props["hasLimits"][0] and props["lower"][0] == pytest.approx(-1.57)
                and props["upper"][0] == pytest.approx(1.57))
        qs = []
        for _ in range(240):
            scene.step(1)
            qs.append(float(scene.refresh()["dof_w"][0, 0, 0]))
        assert max(qs) > 1.5 and max(qs) < 1.57 + 0.04, max(qs)
        tip = scene.refresh()["body_w"][0, 0, :3].numpy()    # the link's centre, 0.5 from the pivot at (0, 0, 1)
        assert np.hypot(tip[0], tip[1]) == pytest.approx(0.5, abs=1e-3) and tip[2] == pytest.approx(1.0, abs=1e-3)
    finally:
        scene.close()


def test_initial_joint_q_sets_the_documented_coordinates():
    scene = load_sap_scene(TWO_TREES)
    try:
        q = scene.sap_state.joint_q.numpy()
        # the authored world's joint_q: weld_a (0), revolute_a_b (1), box_free (7)
        assert q[0] == pytest.approx(math.pi / 2) and np.allclose(q[1:8], [2, 0, 1.25, 0, 0, 0, 1])
        assert (scene.gym.get_actor_dof_states(scene.envs[0], 0, gymapi.STATE_POS)["pos"][0]
                == pytest.approx(math.pi / 2))
        body = scene.sap_state.body_q.numpy()
        # b hangs from a's lower end (z = 1.75), rotated 90 degrees about y: its centre is 0.25 along +-x
        assert np.allclose(np.abs(body[1, :3]), [0.25, 0, 1.75], atol=1e-5)
        assert np.allclose(body[2, :3], [2, 0, 1.25])
        # builder.defaults.joint.armature applies once
        assert scene.gym.get_actor_dof_properties(scene.envs[0], 0)["armature"][0] == pytest.approx(0.1)
    finally:
        scene.close()
    d = doc(TWO_TREES, initial_joint_q=[{"index": -5, "value": 3.0},
                                        {"joint_label": "box_free", "offset": 0, "value": -1}])
    scene = load_sap_scene(d, prepare=False)
    try:
        q = scene.sap_state.joint_q.numpy()
        assert q[3] == pytest.approx(3.0) and q[1] == pytest.approx(-1.0)     # index -5: box_free's z
    finally:
        scene.close()


# ---------------------------------------------------------------------------- post_build
def test_every_post_build_op_changes_what_it_names():
    mesh = {"type": "mesh", "vertices": [[-0.1, -0.2, -0.05], [0.1, -0.2, -0.05], [0.1, 0.2, -0.05], [-0.1, 0.2, -0.05],
                                         [0.0, 0.0, 0.05]],
            "indices": [[0, 2, 1], [0, 3, 2], [0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]}
    d = doc(TWO_TREES, bodies=TWO_TREES["bodies"] + [
        {"id": "ball", "transform": {"p": [4, 0, 1]}, "shapes": [{"type": "sphere", "radius": 0.1}]},
        {"id": "rock", "transform": {"p": [6, 0, 1]}, "shapes": [mesh]}])
    d["post_build"] = [
        {"op": "add_shape", "body": "box", "shape": {"type": "sphere", "radius": 0.05, "label": "knob",
                                                     "transform": {"p": [0, 0, 0.1]}}},
        {"op": "set_array", "array": "shape_material_mu", "range": "all", "value": 0.3},
        {"op": "set_array", "array": "shape_material_mu", "index": -1, "value": 0.9},            # the knob
        {"op": "set_array", "array": "shape_material_restitution", "range": "head:2", "values": [0.0, 0.0]},
        {"op": "set_array", "array": "shape_gap", "range": [1, 3], "from_array": "shape_material_mu"},
        {"op": "copy_array", "array": "shape_material_mu_rolling", "from_array": "shape_material_mu", "range": "tail:2",
         "from_range": "head:2"},
        {"op": "scale_sphere_shapes", "factor": 2.0},
        {"op": "approximate_meshes", "method": "bounding_box"},
        {"op": "set_attr", "attr": "gravity", "value": [0.0, 0.0, -3.0]},
        {"op": "set_joint_targets", "joint": "revolute_a_b", "mode": "position", "ke": 50.0, "kd": 5.0},
        {"op": "set_joint_q", "joint": "revolute_a_b", "value": 0.25},
        {"op": "copy_joint_q_to_joint_targets", "joints": ["revolute_a_b"]},
        {"op": "set_joint_armature", "range": "all", "value": 0.02},
    ]
    scene = load_sap_scene(d)
    try:
        g, env, m = scene.gym, scene.envs[0], scene.sap_model
        labels = scene.shape_labels
        knob = labels.index("knob")
        assert m.shape_body.numpy()[knob] == scene.body_labels.index("box")       # add_shape on body box
        mu = m.shape_material_mu.numpy()
        ball, rock = scene.body_labels.index("ball"), scene.body_labels.index("rock")
        shapes_of = lambda b: [i for i in range(len(labels)) if m.shape_body.numpy()[i] == b]  # noqa: E731
        assert mu[knob] == pytest.approx(0.9) and mu[shapes_of(ball)[0]] == pytest.approx(0.3)
        # authored shape order: a, b, box, ball, rock, then the knob; gap of a..box's shapes [1, 3) = their mu
        gap = m.shape_gap.numpy()
        assert gap[shapes_of(1)[0]] == pytest.approx(0.3) and gap[shapes_of(2)[0]] == pytest.approx(0.3)
        assert m.shape_material_mu_rolling.numpy()[knob] == pytest.approx(0.3)
        assert m.shape_scale.numpy()[shapes_of(ball)[0]][0] == pytest.approx(0.2)          # radius 0.1 x 2
        assert m.shape_scale.numpy()[knob][0] == pytest.approx(0.1)
        assert int(m.shape_type.numpy()[shapes_of(rock)[0]]) == int(gymlike_geo().BOX)      # mesh -> bounding box
        assert scene.gravity == (0.0, 0.0, -3.0) and g.get_sim_params(scene.sim).gravity.z == pytest.approx(-3.0)
        props = g.get_actor_dof_properties(env, 0)
        assert props["driveMode"][0] == gymapi.DOF_MODE_POS and props["stiffness"][0] == 50 and props["damping"][0] == 5
        assert props["armature"][0] == pytest.approx(0.02)
        assert g.get_actor_dof_position_targets(env, 0)[0] == pytest.approx(0.25)
        assert scene.sap_state.joint_q.numpy()[0] == pytest.approx(0.25)
        scene.step(240)
        assert float(scene.refresh()["dof_w"][0, 0, 0]) == pytest.approx(0.25, abs=0.03)   # the drive holds it
    finally:
        scene.close()


def gymlike_geo():
    from gymlike.core.runtime import newton
    return newton().GeoType


def test_joint_selectors_and_pd_targets_in_every_world():
    # the seed's set_joint_targets examples: a DOF range, a label prefix (an imported asset's labels
    # are '<asset id>/<name>'), a substring; the targets reach every replicated world
    d = {"schema_version": 1, "name": "arm", "simulation": {"dt": 1 / 60, "substeps": 2},
         "assets": [{"id": "robot", "type": "urdf",
                     "source": os.path.join(ROOT, "assets", "urdf", "arm7", "arm7.urdf"), "floating": False}],
         "post_build": [{"op": "set_attr", "attr": "gravity", "value": 0.0},
                        {"op": "set_joint_targets", "range": "from:0", "mode": "position", "ke": 400.0, "kd": 40.0},
                        {"op": "set_joint_targets", "label_prefix": "robot/finger", "mode": "position",
                         "ke": 100.0, "kd": 10.0},
                        {"op": "set_joint_targets", "match": "joint4", "target_pos": -1.0},
                        {"op": "set_array", "array": "joint_target_pos", "index": 1, "value": 0.5}],
         "replicate": {"num_worlds": 2}}
    scene = load_sap_scene(d)
    try:
        g = scene.gym
        names = g.get_actor_dof_names(scene.envs[0], 0)
        for env in scene.envs:
            p = g.get_actor_dof_properties(env, 0)
            fingers = [i for i, n in enumerate(names) if n.startswith("finger")]
            assert list(p["stiffness"][fingers]) == [100, 100] and p["stiffness"][0] == 400
        scene.step(120)
        q = scene.refresh()["dof_w"][..., 0]
        assert (torch.allclose(q[:, 1], torch.tensor(0.5), atol=0.02)
                and torch.allclose(q[:, 3], torch.tensor(-1.0), atol=0.02))
        with pytest.raises(SceneError, match=r"post_build\[0\]: no joint label starts with 'nope'"):
            load_sap_scene(doc(d, post_build=[{"op": "set_joint_targets", "label_prefix": "nope", "ke": 1.0}]))
    finally:
        scene.close()


# ---------------------------------------------------------------------------- replication
def test_replication_is_centred_and_lines_up():
    from gymlike.world import world_arrays
    grid = load_sap_scene(doc(SINGLE_BOX, simulation={"num_worlds": 4, "dt": 0.01},
                              replicate={"spacing": [2.0, 2.0, 0.0]}))
    line = load_sap_scene(doc(SINGLE_BOX, simulation={"dt": 0.01},
                              replicate={"num_worlds": 3, "spacing": [3.0, 0.0, 0.0]}),
                          num_worlds=5)
    try:
        o = grid.world_offsets
        assert np.allclose(o.mean(0), 0) and sorted(map(tuple, o[:, :2])) == [(-1, -1), (-1, 1), (1, -1), (1, 1)]
        origins = [grid.gym.get_env_origin(e) for e in grid.envs]
        assert np.allclose([(v.x, v.y, v.z) for v in origins], o)            # env origins are the world offsets
        assert line.num_worlds == 5 and np.allclose(line.world_offsets[:, 0], [-6, -3, 0, 3, 6])
        assert np.allclose(line.world_offsets[:, 1:], 0)
        # worlds: one per env, the ground shared (world -1); positions in the world frame carry the offset
        wa = world_arrays(line.sim)
        assert wa["world_count"] == 5 and list(wa["body_world"]) == [0, 1, 2, 3, 4]
        assert list(wa["body_world_start"]) == [0, 1, 2, 3, 4, 5, 5] and wa["shape_world"][-1] == -1
        assert np.allclose(line.sap_state.body_q.numpy()[:, 0], [-6, -3, 0, 3, 6])
        line.step(100)
        r = line.refresh()["root_w"][:, 0]
        assert torch.allclose(r[:, 2], torch.full((5,), 0.5), atol=0.015) and torch.equal(r[1], r[0])
    finally:
        grid.close()
        line.close()


# ---------------------------------------------------------------------------- assets
URDF = """<robot name="bot">
  <link name="base"><inertial><mass value="2"/>\
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="arm"><inertial><origin xyz="0 0 0.2"/><mass value="0.5"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.2"/><geometry><sphere radius="0.05"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="5"/></joint>
</robot>"""


def test_asset_sources_and_options(tmp_path):
    (tmp_path / "bot.urdf").write_text(URDF)
    base = {"schema_version": 1, "name": "assets", "ground": False}
    sources = [str(tmp_path / "bot.urdf"), {"path": "bot.urdf"}, URDF]
    for src in sources:
        d = doc(base, assets=[{"id": "robot", "type": "urdf", "source": src, "floating": True,
                               "xform": {"p": [0, 0, 1], "q": {"axis_angle": {"axis": [0, 0, 1], "angle": "pi * 0.5"}}},
                               "cfg": {"mu": 0.7}, "shape": {"shape_ke": 5000.0}, "hide_collision_shapes": True}])
        (tmp_path / "s.yaml").write_text(__import__("yaml").safe_dump(d))
        scene = load_sap_scene(str(tmp_path / "s.yaml"), prepare=False)
        try:
            m, s = scene.sap_model, scene.sap_state
            assert (scene.body_labels == ["robot/base", "robot/arm"]
                    and scene.gym.get_actor_dof_names(scene.envs[0], 0) == ["shoulder"])
            assert np.allclose(s.body_q.numpy()[0], [0, 0, 1, 0, 0, math.sqrt(0.5), math.sqrt(0.5)], atol=1e-6)
            assert np.allclose(m.shape_material_mu.numpy(), 0.7) and np.allclose(m.shape_material_ke.numpy(), 5000.0)
            assert not (m.shape_flags.numpy() & 1).any()         # hidden, still colliding
            assert (m.shape_flags.numpy() & 2).all()
        finally:
            scene.close()


def test_git_sources_fetch_sparse_and_use_the_cache_offline(tmp_path, monkeypatch):
    repo = tmp_path / "robots"
    (repo / "bots").mkdir(parents=True)
    (repo / "bots" / "bot.urdf").write_text(URDF)
    (repo / "other").mkdir()
    (repo / "other" / "big.txt").write_text("not wanted")
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True,  # noqa: E731
                                    capture_output=True, text=True)
    run("init", "-q")
    run("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "bots")
    rev = run("rev-parse", "HEAD").stdout.strip()
    cache = tmp_path / "cache"
    monkeypatch.setenv("SAP_WARP_ASSET_CACHE", str(cache))
    monkeypatch.delenv("SAP_WARP_ASSET_OFFLINE", raising=False)
    git = {"repo": f"file://{repo}", "rev": rev, "sparse": ["bots"], "path": "bots/bot.urdf"}
    d = {"schema_version": 1, "assets": [{"id": "robot", "type": "urdf", "source": {"git": git}}]}
    scene = load_sap_scene(d, prepare=False)
    scene.close()
    (entry,) = [p for p in cache.iterdir()]
    assert (entry / "bots" / "bot.urdf").is_file() and not (entry / "other").exists()     # sparse
    monkeypatch.setenv("SAP_WARP_ASSET_OFFLINE", "1")
    load_sap_scene(d, prepare=False).close()            # offline: served from the cache
    monkeypatch.setenv("SAP_WARP_ASSET_CACHE", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError,
                       match=r"assets\[0\]\.source\.git: SAP_WARP_ASSET_OFFLINE is set .* does not exist"):
        load_sap_scene(d)
    monkeypatch.delenv("SAP_WARP_ASSET_OFFLINE")
    bad = dict(git, repo=f"file://{tmp_path}/nothing")
    with pytest.raises(FileNotFoundError, match=r"assets\[0\]\.source\.git: could not fetch .* cache entry"):
        load_sap_scene({"schema_version": 1, "assets": [{"id": "r", "type": "urdf", "source": {"git": bad}}]})


# ---------------------------------------------------------------------------- errors, strict
BAD = [
    (dict(schema_version=2), "schema_version: expected 1, got 2"),
    (dict(bodies=[{"id": "b", "shapes": [{"type": "torus", "radius": 1}]}]),
     "bodies[0].shapes[0].type: unknown shape type 'torus'"),
    (dict(bodies=[{"id": "b", "shapes": [{"type": "ellipsoid", "a": 1, "b": 1, "c": -1}]}]),
     "bodies[0].shapes[0].c: expected a positive number, got -1"),
    (dict(joints=[{"id": "j", "type": "revolute", "parent": "world", "child": "nope"}]),
     "joints[0].child: no body with id 'nope'"),
    (dict(joints=[{"id": "j", "type": "revolute", "child": "box", "axis": "w"}]),
     "joints[0].axis: expected [x, y, z], x, y, z"),
    (dict(ground={"enabled": True, "lable": "g"}), "ground.lable: unknown key"),
    (dict(simulation={"dt": "__import__('os').getcwd()"}), "simulation.dt: expected a number or an expression"),
    (dict(simulation={"solver": "mujoco"}), "simulation.solver: expected a mapping"),
    (dict(bodies=[{"id": "b", "transform": {"q": {"axis_angle": {"axis": [0, 0, 0], "angle": 1}}}}]),
     "bodies[0].transform.q.axis_angle.axis: expected a non-zero axis"),
    (dict(post_build=[{"op": "explode"}]), "post_build[0].op: unknown op 'explode'"),
    (dict(post_build=[{"op": "set_array", "array": "body_mass", "value": 1}]),
     "post_build[0].array: unsupported array 'body_mass'"),
    (dict(post_build=[{"op": "set_array", "array": "joint_q", "range": "middle", "value": 1}]),
     "post_build[0].range: expected all, head:N, tail:N, from:N or [start, end]"),
    (dict(initial_joint_q=[{"index": 0, "offset": 1, "value": 0}]),
     "initial_joint_q[0].offset: offset goes with joint"),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_bad_documents_name_the_key_path_and_build_nothing(change, message, sims_made):
    with pytest.raises(SceneError) as e:
        load_sap_scene(doc(SINGLE_BOX, **change))
    assert message in str(e.value)
    assert isinstance(e.value, ValueError) and e.value.path == message.split(":")[0]
    assert sims_made == []


def test_errors_found_against_the_authored_world_build_nothing(sims_made):
    cases = [
        ({"initial_joint_q": [{"joint": "knee", "value": 1.0}]},
         r"initial_joint_q\[0\]\.joint: no joint labelled 'knee'"),
        ({"initial_joint_q": [{"joint": "revolute_a_b", "offset": 1, "value": 1.0}]},
         r"initial_joint_q\[0\]\.offset: offset 1 is outside joint 'revolute_a_b'"),
        ({"initial_joint_q": [{"index": 8, "value": 0}]},
         r"initial_joint_q\[0\]\.index: index 8 out of range for an array of length 8"),
        ({"post_build": [{"op": "set_array", "array": "shape_gap", "range": [0, 9], "value": 0}]},
         r"post_build\[0\]\.range: range \[0, 9\] is outside an array of length 3"),
        ({"post_build": [{"op": "set_array", "array": "joint_qd", "range": "all", "values": [1, 2]}]},
         r"post_build\[0\]\.values: expected 7 values"),
        ({"post_build": [{"op": "add_shape", "body": "hand", "shape": {"type": "sphere", "radius": 1}}]},
         r"post_build\[0\]\.body: 'hand' names no body"),
    ]
    for change, message in cases:
        with pytest.raises(SceneError, match=message):
            load_sap_scene(doc(TWO_TREES, **change))
    assert sims_made == []


def test_strict_mode_raises_on_unsupported_features(sims_made):
    d = doc(TWO_TREES, post_build=[{"op": "add_shape", "body": "world",
                                    "shape": {"type": "box", "hx": 1, "hy": 1, "hz": 1}},
                                   {"op": "set_array", "array": "shape_collision_group", "index": 0, "value": 3}])
    d["bodies"][0]["kh"] = 1e9
    with pytest.raises(SapUnsupportedSceneFeature, match=r"^bodies\[0\]\.kh: hydroelastic"):
        load_sap_scene(d, strict=True)
    assert sims_made == []
    with pytest.warns(UserWarning, match="unsupported features not applied"):
        scene = load_sap_scene(d, prepare=False)
    try:
        assert ([f.split(":")[0] for f in scene.unsupported_features]
                == ["bodies[0].kh", "post_build[0].body", "post_build[1]"])
        assert scene.sap_model.shape_collision_group.numpy()[0] != 3
    finally:
        scene.close()


# ---------------------------------------------------------------------------- seed 002
def test_funcworld_interface_is_seed_002s():
    import inspect
    import typing
    from gymlike.world import FuncWorld, SceneWorld
    assert [str(p) for p in typing.get_args(FuncWorld.__orig_bases__[1])] == \
        ["~WorldStateT", "~BArrayType", "~BDeviceType", "~BDtypeType", "~BRNGType"]
    assert FuncWorld.world_subtimestep is None and FuncWorld.batch_size is None
    assert set(FuncWorld.__abstractmethods__) == {"initial", "step", "reset"}
    sig = lambda f: str(inspect.signature(f))  # noqa: E731
    assert sig(FuncWorld.initial) == "(self, *, seed: Optional[int] = None, **kwargs) -> ~WorldStateT"
    assert sig(FuncWorld.step) == "(self, state: ~WorldStateT) -> Tuple[~WorldStateT, Union[float, ~BArrayType]]"
    for name in ("reset", "after_reset", "after_reload"):
        assert sig(getattr(FuncWorld, name)) == ("(self, state: ~WorldStateT, *, seed: Optional[int] = None, "
                                                 "mask: Optional[~BArrayType] = None, **kwargs) -> ~WorldStateT")
    assert sig(FuncWorld.reload) == ("(self, state: ~WorldStateT, *, seed: Optional[int] = None, "
                                     "**kwargs) -> ~WorldStateT")
    assert sig(FuncWorld.close) == "(self, state: ~WorldStateT) -> None"
    assert sig(FuncWorld.is_control_timestep_compatible) == "(self, control_timestep: Optional[float]) -> bool"
    assert issubclass(SceneWorld, FuncWorld)

    class Counter(FuncWorld):           # the defaults: reload calls initial, the hooks return the state
        world_timestep = 0.5

        def initial(self, *, seed=None, **kwargs):
            return {"n": 0, "seed": seed, **kwargs}

        def step(self, state):
            return dict(state, n=state["n"] + 1), self.world_timestep

        def reset(self, state, *, seed=None, mask=None, **kwargs):
            return self.initial(seed=seed)
    c = Counter()
    s, dt = c.step(c.initial(seed=3))
    assert s["n"] == 1 and dt == 0.5 and c.reload(s, seed=4, extra=1) == {"n": 0, "seed": 4, "extra": 1}
    assert c.after_reset(s, seed=1, mask=None) is s and c.after_reload(s) is s and c.close(s) is None
    assert c.is_control_timestep_compatible(1.0) and not c.is_control_timestep_compatible(0.75)
    assert c.is_control_timestep_compatible(None)


def test_scene_world_steps_resets_and_reloads():
    from gymlike.world import SceneWorld
    d = doc(TWO_TREES, replicate={"num_worlds": 3},
            post_build=[{"op": "set_joint_targets", "joint": "revolute_a_b", "mode": "position",
                         "ke": 500.0, "kd": 50.0}])
    world = SceneWorld(quiet_load(d), reset_noise=0.1)
    state = world.initial(seed=0)
    try:
        assert world.batch_size == 3 and world.device == torch.device("cpu") and world.backend.name == "torch"
        assert world.world_timestep == pytest.approx(1 / 120) and world.world_subtimestep == pytest.approx(1 / 120)
        s0 = {k: v.clone() for k, v in state.items()}
        for _ in range(4):
            state, dt = world.step(state)
        assert dt == pytest.approx(1 / 120) and state["steps"].tolist() == [4, 4, 4]
        assert float(state["root_state"][0, 1, 2]) < 1.25                # the free box falls
        mask = torch.tensor([True, False, True])
        r1 = world.reset(state, seed=7, mask=mask)
        r1 = world.after_reset(r1, seed=7, mask=mask)
        for k in r1:
            assert torch.equal(r1[k][~mask], state[k][~mask]), k        # unmasked worlds unchanged
        assert torch.equal(r1["root_state"][mask], s0["root_state"][mask])
        r2 = world.reset(state, seed=7, mask=mask)
        assert torch.equal(r1["dof_pos"], r2["dof_pos"])                # same seed, bitwise
        # targets in the state drive the next steps
        r2["dof_targets"][:] = 1.0
        for _ in range(240):
            r2, _ = world.step(r2)
        assert torch.allclose(r2["dof_pos"], torch.tensor(1.0), atol=0.05), r2["dof_pos"]
        # reload: a fresh, open sim (nodes add entities), compiled by after_reload
        pending = world.reload(r2, seed=1)
        g = world.scene.gym
        ball = g.create_sphere(world.scene.sim, 0.1, gymapi.AssetOptions())
        for env in world.scene.envs:
            g.create_actor(env, ball, gymapi.Transform(gymapi.Vec3(0, 1, 1)), "ball", 0, 0)
        state = world.after_reload(pending, seed=1)
        assert state["root_state"].shape == (3, 3, 13) and state["steps"].tolist() == [0, 0, 0]
    finally:
        world.close(state)
    assert world.scene.sim.destroyed


# ---------------------------------------------------------------------------- seed 003
def test_simulate_scene_is_pure_and_returns_scenes():
    from gymlike.rollout import DEFAULT_MAX_STEPS, SceneFrame, scene_to_raster, simulate_scene
    scene = quiet_load(doc(SINGLE_BOX, simulation={"dt": 0.01}))
    try:
        before = scene.refresh()["root"].clone()
        frames = simulate_scene(scene)                     # DEFAULT_MAX_STEPS steps
        assert DEFAULT_MAX_STEPS == 1000 and len(frames) == 1000 and all(isinstance(f, SceneFrame) for f in frames)
        assert torch.equal(scene.refresh()["root"], before)             # the scene passed in did not move
        assert frames[0].step == 1 and frames[-1].time == pytest.approx(10.0)
        assert frames[-1].root_state[0, 0, 2] == pytest.approx(0.5, abs=3e-3)
        again = simulate_scene(frames[99], steps=5)          # a scene in, scenes out: continues from step 100
        assert [f.step for f in again] == [101, 102, 103, 104, 105]
        assert np.allclose(again[0].root_state, frames[100].root_state, atol=1e-4)
        # raster: color codes from the bodies' color (default 1), 0 where no body
        ras = scene_to_raster(frames[-1])
        assert ras.dtype == np.int32 and ras.shape == (64, 64) and set(np.unique(ras)) == {0, 1}
    finally:
        scene.close()


def test_user_input_raster_and_task():
    from gymlike.rollout import Task, TaskSimulation, add_user_input_to_scene, scene_to_raster, simulate_task
    d = doc(SINGLE_BOX, simulation={"dt": 0.01})
    d.pop("joints")
    d.pop("articulations")
    d["bodies"][0]["color"] = 2
    ball = {"id": "ball", "color": 5, "transform": {"p": [0.0, 0.0, 1.8]},
            "shapes": [{"type": "sphere", "radius": 0.1}]}
    inside = dict(ball, id="ghost", transform={"p": [0.0, 0.0, 1.0]})
    scene = add_user_input_to_scene(d, [ball, inside])
    assert [b["id"] for b in scene.user_input_bodies] == ["ball"]             # the occluding one is left out
    assert [b["id"] for b in add_user_input_to_scene(d, [inside], allow_occlusions=True).user_input_bodies] == ["ghost"]
    ras = scene_to_raster(scene, height=40, width=40, extent=(-1, 1, -1, 1))
    assert ras[20, 20] == 5 and ras[20, 12] == 2 and ras[1, 1] == 0          # ball on top at the centre, box around
    sim = simulate_task(Task("ball_on_box", scene, "ball", "box", ("touching", "above")), steps=500, stride=50)
    assert isinstance(sim, TaskSimulation) and sim.is_solution
    assert sim.steps_simulated < 500 and sim.solved_state_list[:1] == [False] and sim.solved_state_list[-1]
    assert abs(sim.scene_list[-1].body_state[0, 1, 2] - 1.1) < 0.015         # resting on the box top
    miss = simulate_task(Task("no", scene, "ball", "box", ("not_touching",)), steps=100, stride=50)
    assert not miss.is_solution and len(miss.scene_list) == 2 and miss.steps_simulated == 100


# ---------------------------------------------------------------------------- bench, examples
def test_bench_cli_takes_the_seed_flags():
    from gymlike import bench
    out = io.StringIO()
    rate = bench.run(["--scene", os.path.join(ROOT, "examples", "scenes", "single_box.yaml"), "--frames", "3",
                      "--num-worlds", "2", "--dt", "0.005", "--warmup", "1"], out=out)
    text = out.getvalue()
    assert rate > 0 and "env-frames/s" in text and "2 worlds" in text and "dt 0.005" in text
    assert re.search(r"SolverMuJoCoC?\.step", text)


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENES, ids=[os.path.basename(p) for p in SCENES])
def test_bench_cli_runs_every_example_scene(path):
    import sys
    r = subprocess.run([sys.executable, "-m", "gymlike.bench", "--scene", path, "--frames", "3", "--num-worlds", "2",
                        "--warmup", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    assert "env-frames/s" in r.stdout and "2 worlds" in r.stdout


def test_example_scenes_validate_strictly():
    from gymlike.scene.schema import read_document, validate
    assert len(SCENES) >= 4
    for p in SCENES:
        spec = validate(*read_document(p), strict=True)
        assert spec.unsupported == []
