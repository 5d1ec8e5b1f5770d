"""gymutil: Isaac Gym's command-line parser, sim-parameter configs, randomization helpers and
line geometry."""

import sys

import numpy as np
import pytest

from gymlike import gymapi, gymutil

# Every attribute Isaac Gym's parse_arguments() sets for the standard flags.
ISAAC_GYM_ATTRIBUTES = {
    "sim_device", "pipeline", "graphics_device_id", "flex", "physx", "num_threads", "subscenes",
    "slices", "sim_device_type", "compute_device_id", "use_gpu_pipeline", "physics_engine", "use_gpu",
}


def parse(monkeypatch, *argv, cuda=True, **kw):
    """parse_arguments on a machine with (cuda=True) or without CUDA."""
    monkeypatch.setattr(sys, "argv", ["script.py", *argv])
    monkeypatch.setattr(gymutil, "_cuda_available", lambda: cuda)
    return gymutil.parse_arguments(**kw)


def test_without_cuda_the_gpu_defaults_become_the_cpu(monkeypatch):
    with pytest.warns(UserWarning, match="CUDA is not available"):
        args = parse(monkeypatch, cuda=False)
    assert (args.sim_device, args.sim_device_type, args.pipeline) == ("cpu", "cpu", "cpu")
    assert not args.use_gpu_pipeline and not args.use_gpu
    import torch
    torch.zeros(1, device=args.sim_device)      # what scripts do with it works


def test_without_cuda_a_scripts_own_cuda_device_parameters_become_the_cpu(monkeypatch):
    custom = [{"name": "--rl_device", "type": str, "default": "cuda:0"},
              {"name": "--eval-device", "type": str, "default": "cuda"},
              {"name": "--checkpoint", "type": str, "default": "cuda:0"}]     # (not a device)
    with pytest.warns(UserWarning, match=r"--rl_device cuda:0, --eval_device cuda set to 'cpu'"):
        args = parse(monkeypatch, "--sim_device", "cpu", cuda=False, custom_parameters=custom)
    assert (args.rl_device, args.eval_device, args.checkpoint) == ("cpu", "cpu", "cuda:0")
    args = parse(monkeypatch, "--rl_device", "cuda:1", cuda=True, custom_parameters=custom)
    assert (args.rl_device, args.eval_device) == ("cuda:1", "cuda")      # with CUDA: as given
    args = parse(monkeypatch, "--sim_device", "cpu", "--rl_device", "cpu", cuda=False,
                 custom_parameters=custom[:1])
    assert args.rl_device == "cpu"


def test_parse_bool_float_int_bool_and_engine_configs(monkeypatch):
    custom = [{"name": "--pos_control", "type": gymutil.parse_bool, "const": True, "default": True, "help": "x"}]
    args = parse(monkeypatch, "--pos_control", "False", custom_parameters=custom)
    assert args.pos_control is False
    assert gymutil.parse_bool("YES") is True and gymutil.parse_bool("0") is False
    assert gymutil.parse_bool(1) is True and gymutil.parse_bool(np.bool_(False)) is False
    import argparse
    with pytest.warns(UserWarning, match="'maybe' is not a boolean"):
        assert gymutil.parse_bool("maybe") is None        # Isaac Gym's answer for other strings
    for bad in (2, 1.0, None):
        with pytest.raises(argparse.ArgumentTypeError):
            gymutil.parse_bool(bad)
    # Isaac Gym's parse_float_int_bool(cfg, opts, float_int_bool): listed options, converted
    opts = gymapi.PhysXParams()
    cfg = {"contact_offset": "0.01", "num_threads": 6.0, "use_gpu": 1, "contact_collection": 0, "rest_offset": 0.5}
    assert gymutil.parse_float_int_bool(cfg, opts, {"float": ["contact_offset", "bounce_threshold_velocity"],
                                                    "int": ["num_threads", "contact_collection"],
                                                    "bool": ["use_gpu"]}) is opts
    assert (opts.contact_offset, opts.num_threads, opts.use_gpu) == (0.01, 6, True)
    assert opts.contact_collection == gymapi.CC_NEVER
    assert opts.rest_offset == gymapi.PhysXParams().rest_offset           # not listed: untouched
    assert opts.bounce_threshold_velocity == gymapi.PhysXParams().bounce_threshold_velocity   # not in cfg
    with pytest.raises(ValueError, match="num_threads must be an int"):
        gymutil.parse_float_int_bool({"num_threads": "six"}, opts, {"int": ["num_threads"]})
    sp = gymapi.SimParams()
    gymutil.parse_physx_config({"num_position_iterations": 8, "contact_offset": 0.01}, sp)
    gymutil.parse_flex_config({"num_inner_iterations": 30}, sp)
    assert (sp.physx.num_position_iterations, sp.physx.contact_offset, sp.flex.num_inner_iterations) == (8, 0.01, 30)
    with pytest.warns(UserWarning, match="ignored 'physx.no_such'"):
        gymutil.parse_physx_config({"no_such": 1}, sp)


class _Element:
    """An element with the ElementTree interface _indent_xml uses (len, iteration, text, tail),
    not an xml.etree Element (lxml's elements are not either)."""

    def __init__(self, *children):
        self.children, self.text, self.tail = list(children), None, None

    def __len__(self):
        return len(self.children)

    def __iter__(self):
        return iter(self.children)


def test_indent_xml_pretty_prints_in_place():
    import xml.etree.ElementTree as ET
    root = ET.Element("mujoco")
    body = ET.SubElement(ET.SubElement(root, "worldbody"), "body", name="b")
    ET.SubElement(body, "geom", type="sphere", size="0.1")
    assert gymutil._indent_xml(root) is root
    text = ET.tostring(root).decode()
    assert text.splitlines() == ["<mujoco>", "  <worldbody>", '    <body name="b">',
                                 '      <geom type="sphere" size="0.1" />', "    </body>", "  </worldbody>",
                                 "</mujoco>"]
    assert text.endswith("</mujoco>\n")                     # the root's tail, as Isaac Gym sets it
    assert ET.fromstring(text).find("worldbody/body/geom").get("size") == "0.1"
    leaf, mid = _Element(), None
    mid = _Element(leaf)
    top = _Element(mid)
    gymutil._indent_xml(top)
    assert (top.text, mid.text, mid.tail, leaf.tail) == ("\n  ", "\n    ", "\n", "\n  ")


def test_defaults_have_isaac_gym_attribute_set(monkeypatch):
    args = parse(monkeypatch)
    assert set(vars(args)) == ISAAC_GYM_ATTRIBUTES
    assert args.physics_engine == gymapi.SIM_PHYSX
    assert (args.sim_device, args.sim_device_type, args.compute_device_id) == ("cuda:0", "cuda", 0)
    assert args.pipeline == "gpu" and args.use_gpu_pipeline and args.use_gpu
    assert (args.graphics_device_id, args.num_threads, args.subscenes, args.slices) == (0, 0, 0, 0)


def test_headless_and_nographics_flags_only_when_asked(monkeypatch):
    args = parse(monkeypatch, "--headless", headless=True)
    assert args.headless and "nographics" not in vars(args)
    args = parse(monkeypatch, "--nographics", headless=True, no_graphics=True)
    assert args.nographics and args.headless             # --nographics implies --headless
    with pytest.raises(SystemExit):
        parse(monkeypatch, "--headless")                 # not a standard flag unless headless=True


def test_standard_flags(monkeypatch, capsys):
    args = parse(monkeypatch, "--flex", "--sim_device", "cuda:1", "--pipeline", "cpu", "--graphics_device_id", "-1",
                 "--num_threads", "3", "--subscenes", "4")
    assert args.physics_engine == gymapi.SIM_FLEX and args.flex and not args.physx
    assert (args.sim_device_type, args.compute_device_id, args.use_gpu) == ("cuda", 1, True)
    assert not args.use_gpu_pipeline and args.graphics_device_id == -1
    assert (args.num_threads, args.subscenes, args.slices) == (3, 4, 4)   # slices default to subscenes
    # CPU physics forces the CPU pipeline (with Isaac Gym's message)
    args = parse(monkeypatch, "--physx", "--sim_device", "cpu", "--slices", "2")
    assert args.physics_engine == gymapi.SIM_PHYSX and args.sim_device_type == "cpu"
    assert not args.use_gpu and not args.use_gpu_pipeline and args.pipeline == "CPU" and args.slices == 2
    assert "Changing pipeline to 'CPU'" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parse(monkeypatch, "--flex", "--physx")          # mutually exclusive, as in Isaac Gym
    with pytest.raises(SystemExit):
        parse(monkeypatch, "--sim_device", "gpu0")


def test_custom_parameters(monkeypatch, capsys):
    custom = [
        {"name": "--num_envs", "type": int, "default": 16, "help": "envs"},
        {"name": "--asset", "type": str, "default": "a.urdf"},
        {"name": "--show_axis", "action": "store_true"},
        {"name": "--broken"},                                            # skipped with an error message
        # keys Isaac Gym does not read are ignored, as there (honouring them would refuse its command lines)
        {"name": "--task", "type": str, "required": True, "choices": ["Ant"], "help": "task"},
        {"name": "--play", "action": "store_true", "default": True},     # (no default for an action)
    ]
    args = parse(monkeypatch, "--num_envs", "4", "--show_axis", custom_parameters=custom)
    assert (args.num_envs, args.asset, args.show_axis) == (4, "a.urdf", True)
    assert args.task is None and args.play is False
    assert parse(monkeypatch, "--task", "Humanoid", custom_parameters=custom).task == "Humanoid"
    assert "ERROR" in capsys.readouterr().err


def test_parse_device_str():
    assert gymutil.parse_device_str("cpu") == ("cpu", 0)
    assert gymutil.parse_device_str("cuda") == ("cuda", 0)
    assert gymutil.parse_device_str("cuda:3") == ("cuda", 3)
    for bad in ("gpu", "cuda:x", "cuda:", "tpu:0"):
        with pytest.raises(ValueError, match="device"):
            gymutil.parse_device_str(bad)


def test_gpu_pipeline_args_create_a_sim(monkeypatch):
    """--sim_device cuda:0 --pipeline gpu must still give a working sim (CPU fallback without CUDA)."""
    import warnings
    args = parse(monkeypatch, "--sim_device", "cuda:0", "--pipeline", "gpu")
    sp = gymutil.parse_sim_params(args, {"sim": {"dt": 0.01, "up_axis": "z", "gravity": [0, 0, -9.81]}})
    assert sp.use_gpu_pipeline and sp.up_axis == gymapi.UP_AXIS_Z
    gym = gymapi.acquire_gym()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = gym.create_sim(args.compute_device_id, args.graphics_device_id, args.physics_engine, sp)
    assert sim.device in ("cpu", "cuda:0")
    gym.destroy_sim(sim)


def test_parse_sim_config_and_params(monkeypatch):
    sp = gymapi.SimParams()
    cfg = {"dt": 0.005, "substeps": 3, "up_axis": 1, "gravity": [0.0, 0.0, -9.81], "use_gpu_pipeline": False,
           "physx": {"num_position_iterations": 8, "contact_collection": 1, "max_gpu_contact_pairs": 1024},
           "flex": {"num_outer_iterations": 6}}
    assert gymutil.parse_sim_config(cfg, sp) is sp
    assert sp.dt == 0.005 and sp.substeps == 3 and sp.up_axis == gymapi.UP_AXIS_Z
    assert (sp.gravity.x, sp.gravity.y, sp.gravity.z) == (0.0, 0.0, pytest.approx(-9.81))
    assert sp.physx.num_position_iterations == 8 and sp.physx.contact_collection == gymapi.CC_LAST_SUBSTEP
    assert sp.physx.max_gpu_contact_pairs == 1024 and sp.flex.num_outer_iterations == 6


def test_parse_sim_config_gpu_pipeline_without_cuda_is_the_cpu(monkeypatch):
    """A config asking for the GPU pipeline (walk-these-ways: `use_gpu_pipeline = True`, and its
    buffers on `cuda` only when sim_params says so) on a machine without CUDA: False, with one
    warning, as parse_arguments makes Isaac Gym's GPU defaults the CPU; with CUDA, True."""
    monkeypatch.setattr(gymutil, "_cuda_available", lambda: False)
    sp = gymapi.SimParams()
    with pytest.warns(UserWarning, match="CUDA is not available; use_gpu_pipeline True runs on the CPU"):
        gymutil.parse_sim_config({"use_gpu_pipeline": True, "dt": 0.005}, sp)
    assert sp.use_gpu_pipeline is False and sp.dt == 0.005
    monkeypatch.setattr(gymutil, "_cuda_available", lambda: True)
    gymutil.parse_sim_config({"use_gpu_pipeline": True}, sp)
    assert sp.use_gpu_pipeline is True


def test_parse_sim_config_reads_what_isaac_gym_reads():
    """Isaac Gym's parse_sim_config reads dt, substeps, up_axis, gravity, use_gpu_pipeline and the
    physx/flex options it lists, converting with float()/int()/bool(), and ignores other keys (a
    top-level max_gpu_contact_pairs, typos): gymlike does the same, warning once per ignored key."""
    from types import MappingProxyType          # a mapping that is not a dict (OmegaConf's DictConfig is not)
    sp = gymapi.SimParams()
    cfg = MappingProxyType({"dt": "1e-2", "substeps": 2.0, "gravity": np.array([0.0, 0.0, -9.81, 0.0]),
                            "max_gpu_contact_pairs": 2 ** 23, "num_client_threads": 4,
                            "physx": {"num_threads": "4", "num_position_iteration": 8, "use_gpu": 1},
                            "flex": {"max_rigid_contacts": 7}})
    with pytest.warns(UserWarning) as w:
        gymutil.parse_sim_config(cfg, sp)
    text = " ".join(str(x.message) for x in w)
    for key in ("'max_gpu_contact_pairs'", "'num_client_threads'", "'physx.num_position_iteration'",
                "'flex.max_rigid_contacts'"):
        assert key in text
    assert sp.dt == 0.01 and sp.substeps == 2 and isinstance(sp.substeps, int)
    assert (sp.gravity.x, sp.gravity.y, sp.gravity.z) == (0.0, 0.0, pytest.approx(-9.81))
    assert sp.physx.num_threads == 4 and sp.physx.use_gpu is True
    defaults = gymapi.SimParams()
    assert sp.physx.max_gpu_contact_pairs == defaults.physx.max_gpu_contact_pairs      # ignored, as there
    assert sp.num_client_threads == defaults.num_client_threads
    assert sp.physx.num_position_iterations == defaults.physx.num_position_iterations
    assert sp.flex.max_rigid_contacts == defaults.flex.max_rigid_contacts
    with pytest.raises(ValueError, match="parse_sim_config: dt must be a number, got 'fast'"):
        gymutil.parse_sim_config({"dt": "fast"}, sp)


def test_parse_sim_params(monkeypatch):
    args = parse(monkeypatch, "--sim_device", "cpu", "--num_threads", "6", "--subscenes", "2")
    sp = gymutil.parse_sim_params(args, {"sim": {"dt": 0.02}})
    assert sp.dt == 0.02 and not sp.use_gpu_pipeline and not sp.physx.use_gpu
    assert sp.physx.num_threads == 6 and sp.physx.num_subscenes == 2 and sp.num_client_threads == 2


def test_property_maps(gym):
    setters, getters = gymutil.get_property_setter_map(gym), gymutil.get_property_getter_map(gym)
    assert set(setters) == set(getters) == set(gymutil.get_default_setter_args(gym))
    assert setters["dof_properties"] == gym.set_actor_dof_properties
    assert getters["sim_params"] == gym.get_sim_params
    assert gymutil.get_default_setter_args(gym)["rigid_body_properties"] == [True]


def test_random_samples_and_schedules():
    np.random.seed(0)
    p = {"range": [0.5, 1.5], "distribution": "uniform", "operation": "scaling"}
    s = gymutil.generate_random_samples(p, (1000,), 0)
    assert s.shape == (1000,) and 0.5 <= s.min() and s.max() <= 1.5
    lin = dict(p, schedule="linear", schedule_steps=100)
    s = gymutil.generate_random_samples(lin, (1000,), 50)            # halfway: range [0.75, 1.25]
    assert 0.75 <= s.min() and s.max() <= 1.25
    const = dict(p, schedule="constant", schedule_steps=100)
    assert np.allclose(gymutil.generate_random_samples(const, (10,), 10), 1.0)   # identity before the step
    g = gymutil.generate_random_samples({"range": [2.0, 0.1], "distribution": "gaussian", "operation": "additive"},
                                        (20000,), 0)
    assert abs(g.mean() - 2.0) < 0.01 and abs(g.std() - 0.1) < 0.01
    lu = gymutil.generate_random_samples({"range": [0.1, 10.0], "distribution": "loguniform",
                                          "operation": "additive"}, (20000,), 0)
    assert abs(np.log(lu).mean()) < 0.05                            # log-uniform around 1
    with pytest.raises(ValueError, match="distribution"):
        gymutil.generate_random_samples({"range": [0, 1], "distribution": "beta", "operation": "additive"}, 1, 0)


def test_random_samples_follow_isaac_gyms_rules_for_odd_inputs():
    """An external sample is scheduled too; a schedule or operation Isaac Gym does not know leaves
    the samples unscheduled (with a warning) instead of failing."""
    lin = {"range": [0.0, 1.0], "distribution": "uniform", "schedule": "linear", "schedule_steps": 100}
    ext = np.array([3.0, -1.0])
    assert np.allclose(gymutil.generate_random_samples(dict(lin, operation="scaling"), 2, 50, ext), [2.0, 0.0])
    assert np.allclose(gymutil.generate_random_samples(dict(lin, operation="additive"), 2, 50, ext), [1.5, -0.5])
    assert np.allclose(ext, [3.0, -1.0])                                # (the caller's array is not changed)
    np.random.seed(0)
    with pytest.warns(UserWarning, match="unknown schedule 'cosine'"):
        s = gymutil.generate_random_samples({"range": [2.0, 3.0], "distribution": "uniform", "operation": "additive",
                                             "schedule": "cosine"}, (1000,), 0)
    assert 2.0 <= s.min() and s.max() <= 3.0 and s.max() > 2.9            # the full range: no schedule
    with pytest.warns(UserWarning, match="operation 'multiply'"):
        s = gymutil.generate_random_samples({"range": [2.0, 3.0], "distribution": "uniform", "operation": "multiply",
                                             "schedule": "linear", "schedule_steps": 10}, (1000,), 0)
    assert 2.0 <= s.min() and s.max() <= 3.0 and s.max() > 2.9


def test_apply_random_samples():
    np.random.seed(1)
    # structured property array (DOF properties)
    props = np.zeros(4, dtype=[("stiffness", np.float32), ("damping", np.float32)])
    props["stiffness"] = 100.0
    og = {"stiffness": props["stiffness"].copy()}
    gymutil.apply_random_samples(props, og, "stiffness", {"range": [0.5, 2.0], "distribution": "uniform",
                                                          "operation": "scaling"}, 0)
    assert np.all((props["stiffness"] >= 50) & (props["stiffness"] <= 200)) and np.unique(props["stiffness"]).size == 4
    # property struct with buckets
    shape = gymapi.RigidShapeProperties()
    p = {"range": [0.5, 1.5], "distribution": "uniform", "operation": "additive", "num_buckets": 4}
    gymutil.apply_random_samples(shape, {"friction": 0.0}, "friction", p, 0)
    assert shape.friction in (0.5, 0.75, 1.0, 1.25)
    # sim params gravity
    sp = gymapi.SimParams()
    sp.gravity = gymapi.Vec3(0, 0, -10)
    gymutil.apply_random_samples(sp, {"gravity": gymapi.Vec3(0, 0, -10)}, "gravity",
                                 {"range": [0.0, 0.0], "distribution": "gaussian", "operation": "additive"}, 0)
    assert sp.gravity.z == pytest.approx(-10.0)
    assert gymutil.get_bucketed_val(0.99, {"range": [0, 1], "distribution": "uniform", "num_buckets": 10}) == \
        pytest.approx(0.9)
    # below the lowest bucket: Isaac Gym's index bisect - 1 wraps to the highest bucket
    assert gymutil.get_bucketed_val(-0.5, {"range": [0, 1], "distribution": "uniform", "num_buckets": 4}) == 0.75


def test_check_buckets(gym):
    from conftest import make_sim, options, pose
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(z=0.5), "box", i, 0)
        envs.append(env)
    dr = {"actor_params": {"box": {"rigid_shape_properties": {"friction": {"num_buckets": 250},
                                                                "restitution": {"num_buckets": 100}}}}}
    gymutil.check_buckets(gym, envs, dr)
    dr["actor_params"]["box"]["rigid_shape_properties"]["friction"]["num_buckets"] = 1000
    with pytest.raises(ValueError, match="64000"):
        gymutil.check_buckets(gym, envs, dr)
    gym.destroy_sim(sim)


def test_line_geometry():
    axes = gymutil.AxesGeometry(0.5, gymapi.Transform(gymapi.Vec3(1, 2, 3)))
    v = axes.vertices()
    assert v.shape == (3, 2) and v.dtype == gymapi.Vec3.dtype and axes.num_lines() == 3
    assert tuple(v[2][1]) == (1.0, 2.0, 3.5) and tuple(axes.colors()[0]) == (1.0, 0.0, 0.0)
    box = gymutil.WireframeBoxGeometry(1, 2, 3, color=(0, 1, 0))
    bv = box.vertices()
    lengths = sorted(np.round(np.linalg.norm(
        np.stack([bv[:, 1][c] - bv[:, 0][c] for c in "xyz"], -1), axis=1), 6))
    assert box.num_lines() == 12 and lengths == [1.0] * 4 + [2.0] * 4 + [3.0] * 4
    assert tuple(box.colors()[5]) == (0.0, 1.0, 0.0)
    bb = gymutil.WireframeBBoxGeometry(np.array([[0, 0, 0], [1, 1, 1]]))
    assert bb.num_lines() == 12
    with pytest.raises(ValueError, match="bbox"):
        gymutil.WireframeBBoxGeometry([1, 2, 3])
    sphere = gymutil.WireframeSphereGeometry(0.5, 6, 8, color=(0, 0, 1))
    sv = sphere.vertices()
    assert sphere.num_lines() == 2 * 6 * 8 and sphere.verts is sv           # (Isaac Gym's attribute name)
    r = np.sqrt(sv["x"] ** 2 + sv["y"] ** 2 + sv["z"] ** 2)
    assert np.allclose(r, 0.5, atol=1e-6)                             # every vertex on the sphere
    assert tuple(sv[0][0]) == (0.0, 0.5, 0.0)                          # drawn about the y axis, from +y
    assert np.all(sphere.colors() == sphere.colors()[0])              # color2 defaults to color
    moved = sphere.instance_verts(gymapi.Transform(gymapi.Vec3(0, 0, 2)))
    assert np.allclose(moved["z"], sv["z"] + 2)
    copy = sphere.instance_verts()                                    # no pose: a copy
    assert np.array_equal(copy, sv) and copy is not sv
    assert gymutil.WireframeSphereGeometry(1.0, 0, 4).num_lines() == 0


def test_draw_lines_reaches_viewer(gym):
    from conftest import make_sim
    sim = make_sim(gym, "physx")
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    viewer = gym.create_viewer(sim, gymapi.CameraProperties())
    gymutil.draw_lines(gymutil.WireframeBoxGeometry(), gym, viewer, env, gymapi.Transform())
    gymutil.draw_line(gymapi.Vec3(0, 0, 0), gymapi.Vec3(1, 0, 0), gymapi.Vec3(1, 1, 0), gym, viewer, env)
    assert viewer.line_count == 13

    class Segment:                      # not a LineGeometry: Isaac Gym's draw_lines only calls its methods
        def num_lines(self):
            return 1

        def instance_verts(self, pose=None):
            return np.array([[(0, 0, 0), (0, 0, 1)]], gymapi.Vec3.dtype)

        def colors(self):
            return np.array([(1, 0, 0)], gymapi.Vec3.dtype)
    gymutil.draw_lines(Segment(), gym, viewer, env, None)
    assert viewer.line_count == 14
    gym.destroy_viewer(viewer)
    gym.destroy_sim(sim)
