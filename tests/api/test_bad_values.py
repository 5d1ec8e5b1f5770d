"""Bad values caught where they enter: non-finite scene parameters are rejected by the call that
takes them (nothing changes); NaN/inf or absurd (> 1e15) tensor inputs, which the step path cannot
check without a device sync per call, are named by the NaN guard at the next simulate; wrong-typed
arguments are TypeErrors naming the argument."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, PENDULUM_URDF, make_sim, options, pose, sim_params, write
from gymlike import gymapi, gymtorch
from gymlike.core import state as core_state
from gymlike.core import tensors as core_tensors
from gymlike.core.errors import GymlikeError, SimulationNaNError

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

NAN = float("nan")


def test_non_finite_scene_values_are_rejected_and_change_nothing(gym):
    bad = sim_params()
    bad.gravity = gymapi.Vec3(0, 0, NAN)
    with pytest.raises(ValueError, match="SimParams.gravity must be finite"):
        gym.create_sim(0, -1, gymapi.SIM_PHYSX, bad)
    sim = make_sim(gym, ground=False)
    with pytest.raises(ValueError, match="SimParams.gravity must be finite"):
        gym.set_sim_params(sim, bad)
    assert gym.get_sim_params(sim).gravity.z == pytest.approx(-9.81)
    for name in ("distance", "static_friction", "dynamic_friction", "restitution"):
        pp = gymapi.PlaneParams()
        setattr(pp, name, float("inf") if name == "restitution" else NAN)
        with pytest.raises(ValueError, match=f"PlaneParams.{name} must be finite"):
            gym.add_ground(sim, pp)
    with pytest.raises(ValueError, match="create_env: upper must be finite"):
        gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, NAN, 1), 1)
    assert gym.get_env_count(sim) == 0
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    with pytest.raises(ValueError, match="local_pose must be finite"):
        gym.create_asset_force_sensor(box, 0, pose(x=NAN))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=1), "box", 0, 0)
    gym.prepare_sim(sim)
    assert gym.get_sim_force_sensor_count(sim) == 0
    for _ in range(10):      # no ground was added: the box falls freely
        gym.simulate(sim)
    assert gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"][0] < 1.0


@pytest.fixture(params=["physx", "flex"])
def pendulums(gym, tmp_path, request):
    """Three envs, each a position-driven pendulum and a free box."""
    write(tmp_path, "pend.urdf", PENDULUM_URDF.format(L=0.5))
    sim = make_sim(gym, request.param, dt=1 / 120)
    pend = gym.load_asset(sim, str(tmp_path), "pend.urdf", options(fix_base_link=True))
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    for i in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        a = gym.create_actor(env, pend, pose(z=1.0), "pend", i, 0)
        props = gym.get_actor_dof_properties(env, a)
        props["driveMode"][0] = gymapi.DOF_MODE_POS
        props["stiffness"][0], props["damping"][0] = 10.0, 1.0
        gym.set_actor_dof_properties(env, a, props)
        gym.create_actor(env, box, pose(x=0.5, z=0.05), "box", i, 0)
    gym.prepare_sim(sim)
    return sim


@pytest.mark.parametrize("kind", ["position target", "velocity target", "actuation force", "body force"])
def test_non_finite_or_absurd_tensor_inputs_are_named_by_the_guard(gym, pendulums, kind):
    sim = pendulums
    values = torch.zeros(3)
    values[1] = NAN if kind != "body force" else 1e30     # env 1; 1e30 N is absurd, not NaN
    setter = {"position target": gym.set_dof_position_target_tensor,
              "velocity target": gym.set_dof_velocity_target_tensor,
              "actuation force": gym.set_dof_actuation_force_tensor}.get(kind)
    if setter is not None:
        setter(sim, gymtorch.unwrap_tensor(values))
    else:
        forces = torch.zeros(gym.get_sim_rigid_body_count(sim), 3)
        forces[gym.get_actor_rigid_body_index(gym.get_env(sim, 1), 1, 0, gymapi.DOMAIN_SIM), 0] = 1e30
        gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(forces), None, gymapi.ENV_SPACE)
    words = {"position target": "DOF position targets", "velocity target": "DOF velocity targets",
             "actuation force": "DOF actuation forces", "body force": "rigid body forces"}[kind]
    with pytest.raises(SimulationNaNError,
                       match=rf"{words}.* given for env\(s\) 1 hold NaN/inf or values beyond 1e15") as e:
        gym.simulate(sim)
    assert e.value.envs == [1]


def test_indexed_setter_ignores_rows_it_does_not_write(gym, pendulums):
    """Isaac Gym reads only the listed actors' rows: garbage elsewhere is not an input. The
    listed row is written (the pendulum turns to it), the others are not."""
    sim = pendulums
    targets = torch.full((3,), NAN)
    targets[0] = 0.3
    actors = torch.tensor([0], dtype=torch.int32)    # env 0's pendulum
    gym.set_dof_position_target_tensor_indexed(sim, gymtorch.unwrap_tensor(targets), gymtorch.unwrap_tensor(actors), 1)
    envs = [gym.get_env(sim, i) for i in range(3)]
    assert [float(gym.get_actor_dof_position_targets(e, 0)[0]) for e in envs] == [pytest.approx(0.3), 0.0, 0.0]
    for _ in range(60):
        gym.simulate(sim)                            # (no NaN named: the NaN rows were not inputs)
    pos = [float(gym.get_actor_dof_states(e, 0, gymapi.STATE_POS)["pos"][0]) for e in envs]
    # (the written pendulum moves; SIM_FLEX's drive at one 1/120 s substep overshoots, so only
    # that it moved is asserted) and the others hang still
    assert abs(pos[0]) > 0.05 and abs(pos[1]) < 1e-3 and abs(pos[2]) < 1e-3


def test_wrong_typed_arguments_are_type_errors(gym, tmp_path):
    with pytest.raises(ValueError, match="dof_type must be one of DOF_INVALID"):
        gym.get_dof_type_string(42)
    with pytest.raises(TypeError, match="joint_type must be a gymapi.JointType"):
        gym.get_joint_type_string("revolute")
    assert gym.get_dof_type_string(gymapi.DOF_ROTATION) == "Rotation"
    t = gymtorch.unwrap_tensor(torch.zeros(4, 3))
    with pytest.raises(TypeError, match="offsets must be a sequence of ints"):
        gymtorch.wrap_tensor(t, 5)
    with pytest.raises(TypeError, match=r"counts\[1\] must be an integer"):
        gymtorch.wrap_tensor(t, (0, 0), (2, 1.5))
    assert tuple(gymtorch.wrap_tensor(t, (1, 0), (2, 3)).shape) == (2, 3)
    sim = make_sim(gym, ground=False)
    with pytest.raises(TypeError, match="rootpath and filename must be strings, got NoneType"):
        gym.load_asset(sim, None, "robot.urdf")
    with pytest.raises(GymlikeError):
        gym.load_asset(sim, str(tmp_path), 3)


def test_two_threads_stepping_two_sims_match_serial_runs(gym):
    """Gym calls are serialized process-wide (Warp crashed when two threads stepped sims)."""
    import threading

    def run(out, key):
        sim = make_sim(gym, dt=1 / 60)
        ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
        gym.create_actor(env, ant, pose(z=0.75), "ant", 0, 1)
        gym.prepare_sim(sim)
        efforts = torch.linspace(-1.0, 1.0, 8)
        for _ in range(40):
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
            gym.simulate(sim)
        root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        gym.refresh_actor_root_state_tensor(sim)
        out[key] = root.clone()

    out = {}
    run(out, "serial")
    threads = [threading.Thread(target=run, args=(out, k)) for k in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert torch.equal(out["a"], out["serial"]) and torch.equal(out["b"], out["serial"])


# ---------------------------------------------------------------- parameters, where they enter
@pytest.mark.parametrize("field, value, error, expected", [
    ("armature", NAN, ValueError, "finite and >= 0, got nan"),
    ("armature", -1.0, ValueError, "finite and >= 0, got -1.0"),
    ("linear_damping", -1.0, ValueError, "finite and >= 0"),
    ("linear_damping", NAN, ValueError, "finite and >= 0"),
    ("angular_damping", -0.5, ValueError, "finite and >= 0"),
    ("density", -1000.0, ValueError, "finite and >= 0"),
    ("max_linear_velocity", 0.0, ValueError, r"> 0 \(inf: no limit\)"),
    ("default_dof_drive_mode", 99, ValueError, r"one of DOF_MODE_NONE \(0\), .*DOF_MODE_EFFORT \(3\), got 99"),
    ("fix_base_link", "no", TypeError, r"a bool \(True or False\), got str 'no'"),
    ("slices_per_cylinder", 2.5, TypeError, "an int, got float"),
])
def test_bad_asset_options_are_refused_naming_the_field(gym, tmp_path, field, value, error, expected):
    """AssetOptions are judged where they enter (load_asset, create_box ...), not silently used."""
    write(tmp_path, "pend.urdf", PENDULUM_URDF.format(L=0.5))
    sim = make_sim(gym, ground=False)
    o = options()
    setattr(o, field, value)
    for call, name in ((lambda: gym.load_asset(sim, str(tmp_path), "pend.urdf", o), "load_asset"),
                       (lambda: gym.create_box(sim, 0.1, 0.1, 0.1, o), "create_box")):
        with pytest.raises(error, match=rf"^{name}: AssetOptions\.{field} must be {expected}") as e:
            call()
        assert isinstance(e.value, GymlikeError)
    o = options(fix_base_link=1, default_dof_drive_mode=gymapi.DOF_MODE_POS)   # (0/1 are bools, as in Isaac Gym)
    asset = gym.load_asset(sim, str(tmp_path), "pend.urdf", o)
    assert gym.get_asset_dof_properties(asset)["driveMode"][0] == gymapi.DOF_MODE_POS


@pytest.mark.parametrize("field, value, expected", [
    ("static_friction", -1.0, "finite and >= 0, got -1.0"),
    ("dynamic_friction", -0.5, "finite and >= 0"),
    ("restitution", 1.5, r"finite and in \[0, 1\], got 1.5"),
])
def test_bad_plane_params_are_refused_and_add_no_ground(gym, field, value, expected):
    sim = make_sim(gym, ground=False)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(0, 0, 1)
    setattr(pp, field, value)
    with pytest.raises(ValueError, match=rf"^add_ground: PlaneParams\.{field} must be {expected}"):
        gym.add_ground(sim, pp)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.05), "box", 0, 0)
    for _ in range(30):
        gym.simulate(sim)
    assert gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"][0] < 0.0   # no ground


@pytest.mark.parametrize("path, value, error, expected", [
    ("physx.num_position_iterations", 0, ValueError, r"an int in \[1, 255\], got 0"),
    ("physx.contact_collection", 7, ValueError, "one of CC_NEVER"),
    ("physx.bounce_threshold_velocity", -1.0, ValueError, "finite and >= 0"),
    ("flex.warm_start", 2.0, ValueError, r"finite and in \[0, 1\]"),
    ("flex.num_outer_iterations", 0, ValueError, "an int >= 1"),
    ("use_gpu_pipeline", "yes", TypeError, "a bool"),
    ("num_client_threads", -1, ValueError, "an int >= 0"),
])
def test_bad_sim_params_are_refused_naming_the_field(gym, path, value, error, expected):
    bad = sim_params()
    *outer, field = path.split(".")
    setattr(getattr(bad, outer[0]) if outer else bad, field, value)
    with pytest.raises(error, match=rf"^create_sim: SimParams\.{path} must be {expected}"):
        gym.create_sim(0, -1, gymapi.SIM_PHYSX, bad)
    sim = make_sim(gym, ground=False)
    before = gym.get_sim_params(sim)
    with pytest.raises(error, match=rf"^set_sim_params: SimParams\.{path} must be {expected}"):
        gym.set_sim_params(sim, bad)
    assert repr(gym.get_sim_params(sim)) == repr(before)            # nothing changed


def test_bad_create_sim_and_create_actor_arguments_are_named(gym):
    with pytest.raises(TypeError, match=r"^create_sim: compute_device must be an int, got str 'gpu0'"):
        gym.create_sim("gpu0", -1, gymapi.SIM_PHYSX, sim_params())
    with pytest.raises(ValueError, match=r"^create_sim: compute_device must be an int >= 0, got -7"):
        gym.create_sim(-7, -1, gymapi.SIM_PHYSX, sim_params())
    with pytest.raises(ValueError, match=r"^create_sim: graphics_device must be an int >= -1, got -2"):
        gym.create_sim(0, -2, gymapi.SIM_PHYSX, sim_params())
    sim = make_sim(gym, ground=False)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    with pytest.raises(TypeError, match=r"^create_actor: name must be a str \(or None\), got int 123"):
        gym.create_actor(env, box, pose(), 123, 0, 0)
    assert gym.get_actor_count(env) == 0
    assert gym.get_actor_name(env, gym.create_actor(env, box, pose(), None, 0, 0)) == "actor0"


@pytest.mark.parametrize("method, args, arg", [
    ("create_box", (float("inf"), 0.1, 0.1), "width"),
    ("create_box", (0.1, -1e-30, 0.1), "height"),          # negative (zero is a thin slab: test_assets)
    ("create_box", (0.1, 0.1, 1e30), "depth"),
    ("create_sphere", (float("inf"),), "radius"),
    ("create_sphere", (NAN,), "radius"),
    ("create_capsule", (0.05, float("inf")), "width"),
])
def test_infinite_or_negative_primitive_sizes_are_value_errors(gym, method, args, arg):
    """(an infinite box or sphere raised numpy's LinAlgError)"""
    sim = make_sim(gym, ground=False)
    with pytest.raises(GymlikeError, match=rf"^{method}: {arg} must be a finite length in \[0, 100000\] m") as e:
        getattr(gym, method)(sim, *args)
    assert isinstance(e.value, ValueError)


# ---------------------------------------------------------------- empty tensors, None handles
def test_an_empty_gymapi_tensor_is_named_not_an_attribute_error(gym, pendulums):
    """`gymapi.Tensor()` is Isaac Gym's empty placeholder: usable as a value, refused as data."""
    sim = pendulums
    empty = gymapi.Tensor()
    assert empty.shape == () and empty.data_ptr == 0
    ok = gymtorch.unwrap_tensor(torch.zeros(gym.get_sim_actor_count(sim), 13))
    for call, arg in ((lambda: gym.set_actor_root_state_tensor(sim, empty), "root_states"),
                      (lambda: gym.set_actor_root_state_tensor_indexed(sim, ok, empty, 1), "actor indices"),
                      (lambda: gym.set_dof_position_target_tensor(sim, empty), "targets"),
                      (lambda: gym.apply_rigid_body_force_tensors(sim, empty), "forceTensor"),
                      (lambda: gymtorch.wrap_tensor(empty), "gym_tensor")):
        with pytest.raises(ValueError, match=rf": {arg} is an empty gymapi.Tensor") as e:
            call()
        assert isinstance(e.value, GymlikeError)


def test_none_handles_are_named(gym, pendulums):
    sim = pendulums
    env = gym.get_env(sim, 0)
    with pytest.raises(TypeError, match=r"^get_vec_rigid_transform: envs must be a list of Env handles, got NoneType"):
        gym.get_vec_rigid_transform(None, 0)
    with pytest.raises(TypeError, match=r"^get_vec_env_rigid_contact_forces: envs must be a list"):
        gym.get_vec_env_rigid_contact_forces(None)
    props = gymapi.AttractorProperties()
    props.rigid_handle = None
    with pytest.raises(TypeError, match=r"^create_rigid_body_attractor: props\.rigid_handle must be an int"):
        gym.create_rigid_body_attractor(env, props)
    with pytest.raises(IndexError, match=r"^get_actor_tendon_offset: tendon index 0 out of range \[0, 0\)"):
        gym.get_actor_tendon_offset(env, 0, 0)           # (an actor without tendons: AttributeError before)
    poses = gym.get_vec_rigid_transform([env, gym.get_env(sim, 1)], 1)
    assert poses.dtype == gymapi.Transform.dtype and len(poses) == 2


def test_handles_and_indices_take_every_int_isaac_gym_takes(gym, pendulums):
    """pybind11 takes for an int argument anything with __index__: numpy ints, bools and integer
    torch scalars (`env_ids[i]`), not floats. Name lookups that find nothing give -1."""
    sim = pendulums
    env = gym.get_env(sim, torch.tensor(1))
    assert env is gym.get_env(sim, np.int64(1)) is gym.get_env(sim, True)
    ids = torch.tensor([0, 1], dtype=torch.int32)
    assert gym.get_actor_name(env, ids[1]) == "box" and gym.get_actor_handle(env, np.int32(0)) == 0
    assert gym.get_actor_rigid_body_names(env, ids[0]) == gym.get_actor_rigid_body_names(env, 0)
    assert gym.get_actor_dof_handle(env, ids[0], ids[0]) == gym.get_actor_dof_handle(env, 0, 0)
    for bad in (1.0, np.float32(0.0), torch.tensor(0.0), "0", None):
        with pytest.raises(TypeError):
            gym.get_actor_name(env, bad)
    assert gym.find_actor_handle(env, "nobody") == -1
    assert gym.find_actor_rigid_body_handle(env, 0, "nothing") == -1
    assert gym.find_actor_dof_index(env, 0, "nothing", gymapi.DOMAIN_SIM) == -1
    assert gym.find_asset_rigid_body_index(gym.get_actor_asset(env, 0), "nothing") == -1
    assert gym.get_rigid_handle(env, "nobody", "base") == -1
    # numpy-array arguments take what numpy converts (a CPU torch tensor), counts any int
    gym.set_actor_dof_position_targets(env, 0, torch.tensor([0.25]))
    assert gym.get_actor_dof_position_targets(env, 0)[0] == np.float32(0.25)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    z0 = float(root[1, 2])                   # actor 1: env 0's box
    root[1, 2] += 0.5
    gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(root), gymtorch.unwrap_tensor(ids[1:]),
                                            torch.tensor(1))
    root[1, 2] = 0.0
    gym.refresh_actor_root_state_tensor(sim)
    assert float(root[1, 2]) == pytest.approx(z0 + 0.5)


def test_create_sim_defaults_are_isaac_gyms(gym):
    """create_sim(compute_device=0, graphics_device=0, type=SIM_FLEX, params=SimParams()), as
    Isaac Gym Preview 4 documents it."""
    import inspect
    import warnings
    params = list(inspect.signature(gymapi.Gym.create_sim).parameters.values())[1:]
    assert [(p.name, p.default) for p in params[:3]] == [("compute_device", 0), ("graphics_device", 0),
                                                          ("type", gymapi.SIM_FLEX)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = gym.create_sim(0, -1)
    assert sim.type == gymapi.SIM_FLEX
    gym.destroy_sim(sim)


# ---------------------------------------------------------------- writes made before prepare_sim
def _two_boxes(gym):
    sim = make_sim(gym)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = [gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2) for _ in range(2)]
    for env in envs:
        gym.create_actor(env, box, pose(z=0.5), "box", 0, 0)
    return sim, envs


def _lift(gym, env, z):
    s = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)
    s["pose"]["p"]["z"] = z
    gym.set_actor_rigid_body_states(env, 0, s, gymapi.STATE_ALL)


def _z(gym, env):
    return float(gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"][0])


def test_a_bad_state_write_before_prepare_is_refused_when_made(gym):
    """The same rules before and after prepare_sim: a zero quaternion is refused by the call
    (it used to be recorded and fail inside prepare_sim), and the valid writes stand."""
    sim, envs = _two_boxes(gym)
    _lift(gym, envs[1], 2.0)
    bad = gym.get_actor_rigid_body_states(envs[0], 0, gymapi.STATE_ALL)
    bad["pose"]["r"] = (0, 0, 0, 0)
    with pytest.raises(ValueError, match=r"^set_actor_rigid_body_states: states\[0\]\['pose'\]\['r'\] "
                                         r"is a zero quaternion"):
        gym.set_actor_rigid_body_states(envs[0], 0, bad, gymapi.STATE_ALL)
    with pytest.raises(ValueError, match=r"^set_env_rigid_body_states: states\[0\]\['pose'\]\['r'\] "
                                         r"is a zero quaternion"):
        gym.set_env_rigid_body_states(envs[0], bad, gymapi.STATE_ALL)
    with pytest.raises(ValueError, match=r"^set_rigid_transform: the rotation is a zero quaternion"):
        gym.set_rigid_transform(envs[0], 0, gymapi.Transform(gymapi.Vec3(0, 0, 1), gymapi.Quat(0, 0, 0, 0)))
    assert _z(gym, envs[0]) == pytest.approx(0.5)          # (reads before prepare: what was set)
    gym.prepare_sim(sim)
    assert _z(gym, envs[0]) == pytest.approx(0.5) and _z(gym, envs[1]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match=r"^set_actor_rigid_body_states: states\[0\]\['pose'\]\['r'\] "
                                         r"is a zero quaternion"):
        gym.set_actor_rigid_body_states(envs[0], 0, bad, gymapi.STATE_ALL)


def test_a_failed_prepare_keeps_the_valid_deferred_writes_and_names_the_failed_one(gym, tmp_path, monkeypatch):
    """A deferred write that still fails when applied (simulated here: the write of env 0's box
    raises once) fails prepare_sim naming that write; the others (env 1's box at z = 2, its
    pendulum's DOF state) are kept, and the next prepare_sim applies them."""
    write(tmp_path, "pend.urdf", PENDULUM_URDF.format(L=0.5))
    sim = make_sim(gym)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    pend = gym.load_asset(sim, str(tmp_path), "pend.urdf", options(fix_base_link=True))
    envs = [gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2) for _ in range(2)]
    for env in envs:
        gym.create_actor(env, box, pose(z=0.5), "box", 0, 0)
        gym.create_actor(env, pend, pose(x=0.5, z=1.0), "pend", 0, 0)
    _lift(gym, envs[1], 2.0)
    _lift(gym, envs[0], 1.0)
    ds = gym.get_actor_dof_states(envs[1], 1, gymapi.STATE_ALL)
    ds["pos"][0] = 0.4
    gym.set_actor_dof_states(envs[1], 1, ds, gymapi.STATE_ALL)
    real = core_state.set_body_states
    failures = []

    def fail_env0_once(sim_, b0, *args):
        if b0 == 0 and not failures:
            failures.append(b0)
            raise ValueError("the model cannot take it")
        return real(sim_, b0, *args)

    monkeypatch.setattr(core_state, "set_body_states", fail_env0_once)
    with pytest.raises(ValueError, match=r"^prepare_sim: the set_actor_rigid_body_states call made before the sim "
                                         r"was prepared for actor 'box' in env 0 \(deferred write 2\) could not be "
                                         r"applied: the model cannot take it\. That write was dropped; the other 1 "
                                         r"deferred write\(s\) are kept") as e:
        gym.prepare_sim(sim)
    assert isinstance(e.value, GymlikeError)
    gym.prepare_sim(sim)
    assert _z(gym, envs[1]) == pytest.approx(2.0)          # kept
    assert float(gym.get_actor_dof_states(envs[1], 1, gymapi.STATE_POS)["pos"][0]) == pytest.approx(0.4)
    assert _z(gym, envs[0]) == pytest.approx(0.5)          # dropped: the creation pose


# ---------------------------------------------------------------- zero quaternions in state tensors
def _root_rows(gym, sim):
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    return root


def test_zero_quaternion_rows_are_refused_and_nothing_is_written(gym, pendulums):
    """A root or body state row with a zero quaternion (a zero-initialized tensor whose positions
    were set) has no rotation to normalize to: the setter refuses the whole call, so the valid
    rows of that call are not written either."""
    sim = pendulums
    root = _root_rows(gym, sim)
    before = root.clone()
    box1 = gym.get_actor_index(gym.get_env(sim, 1), 1, gymapi.DOMAIN_SIM)
    rows = root.clone()
    rows[0:2, 2] += 1.0                                   # valid edits in env 0
    rows[box1, 3:7] = 0.0                                 # env 1's box: no rotation
    with pytest.raises(ValueError, match=rf"^set_actor_root_state_tensor: root_states row {box1} \(actor {box1}, "
                                         r"env 1\) has a zero quaternion.*nothing was written"):
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(rows))
    idx = torch.tensor([1, box1], dtype=torch.int32)
    with pytest.raises(ValueError, match=rf"^set_actor_root_state_tensor_indexed: root_states row {box1} "):
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(rows), gymtorch.unwrap_tensor(idx), 2)
    gym.refresh_actor_root_state_tensor(sim)
    assert torch.equal(root, before)
    # an indexed call that does not list the bad row writes what it lists
    gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(rows), gymtorch.unwrap_tensor(idx), 1)
    gym.refresh_actor_root_state_tensor(sim)
    assert root[1, 2] == pytest.approx(before[1, 2] + 1.0) and torch.equal(root[0], before[0])
    body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_rigid_body_state_tensor(sim)
    body_before = body.clone()
    rows = body.clone()
    rows[0, 2] += 1.0
    rows[4, 3:7] = 0.0
    with pytest.raises(ValueError, match=r"^set_rigid_body_state_tensor: states row 4 \(rigid body 4, env 1\) has a "
                                         r"zero quaternion"):
        gym.set_rigid_body_state_tensor(sim, gymtorch.unwrap_tensor(rows))
    gym.refresh_rigid_body_state_tensor(sim)
    assert torch.equal(body, body_before)


def test_zero_quaternion_rows_on_the_device_path_are_named_by_the_next_simulate(gym, pendulums):
    """On CUDA the setter does not read its check back (a device sync per call): the call still
    writes nothing, and the NaN guard names the env at the next simulate. Simulated on the CPU
    by turning off the immediate read."""
    sim = pendulums
    root = _root_rows(gym, sim)
    before = root.clone()
    rows = root.clone()
    rows[0, 2] += 1.0
    rows[gym.get_actor_index(gym.get_env(sim, 2), 1, gymapi.DOMAIN_SIM), 3:7] = 0.0
    core_tensors.api(sim).report_now = False
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(rows))      # no error here
    gym.refresh_actor_root_state_tensor(sim)
    assert torch.equal(root, before)
    with pytest.raises(SimulationNaNError, match=r"rows with a zero quaternion: that call wrote nothing\) given for "
                                                 r"env\(s\) 2") as e:
        gym.simulate(sim)
    assert e.value.envs == [2]
    gym.simulate(sim)                                      # named once; nothing else is wrong


LIMITED_HINGE_URDF = """\
<robot name="lever">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1e20" velocity="1e20"/></joint>
</robot>
"""


def _levers(gym, tmp_path):
    """3 envs of a lever (a hinge limited to [-3, 3] rad, effort-driven) and a free cube, no gravity."""
    write(tmp_path, "lever.urdf", LIMITED_HINGE_URDF)
    sim = make_sim(gym, ground=False, dt=1 / 60, gravity=0.0)
    lever = gym.load_asset(sim, str(tmp_path), "lever.urdf", options(fix_base_link=True))
    cube = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    for i in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        gym.create_actor(env, lever, pose(z=1.0), "lever", i, 0)
        gym.create_actor(env, cube, pose(x=0.5, z=1.0), "cube", i, 0)
        props = gym.get_actor_dof_properties(env, 0)
        props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        gym.set_actor_dof_properties(env, 0, props)
    gym.prepare_sim(sim)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_actor_root_state_tensor(sim)
    return sim, dofs, roots


@pytest.mark.parametrize("pipeline,absurd", [
    ("mujoco-c", "effort"), ("mujoco-c", "past limit"), ("mujoco-c", "far away"), ("warp", "effort"),
    pytest.param("warp", "past limit", marks=pytest.mark.slow),
    pytest.param("warp", "far away", marks=pytest.mark.slow)])
def test_absurd_finite_states_are_named_and_one_reset_recovers(gym, tmp_path, monkeypatch, pipeline, absurd):
    """The divergence guard names envs whose finite state is absurd: a 1e14 N m effort through a
    [-3, 3] rad hinge limit, a DOF put 1e5 rad past its limit (its limit row pulls a DOF 1010 rad
    past back below the guard's 1000 in one step), a body 2e6 m away; one reset of
    that env recovers it, and the other envs run on (bit for bit what they do without it, for
    the effort)."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim, dofs, roots = _levers(gym, tmp_path)
    dofs0, roots0 = dofs.clone(), roots.clone()
    if absurd == "past limit":
        bad = dofs0.clone()
        bad[1, 0] = 3.0 + 1.0e5
        gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    elif absurd == "far away":
        bad = roots0.clone()
        bad[3, 0] = 2.0e6                  # (env 1's cube: actors are lever, cube per env)
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    efforts = torch.tensor([0.5, -1.0e14 if absurd == "effort" else 0.0, 0.3])
    steps = 0
    with pytest.raises(SimulationNaNError, match=r"diverged .* in env\(s\) 1 ") as e:
        for _ in range(200):
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
            steps += 1
            gym.simulate(sim)
    assert e.value.envs == [1]
    # one reset of env 1 (its lever and cube) recovers it
    ids = torch.tensor([2, 3], dtype=torch.int32)
    gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(roots0), gymtorch.unwrap_tensor(ids), 2)
    gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(dofs0), gymtorch.unwrap_tensor(ids[:1]), 1)
    efforts[1] = 0.0
    for _ in range(30):
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
        gym.simulate(sim)
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_actor_root_state_tensor(sim)
    assert dofs[:, 0].abs().max() <= 3.0 + 0.02      # (MuJoCo's soft limit: within a step's travel)
    if absurd != "effort":
        return
    # the same run without the absurd effort: envs 0 and 2 are bit for bit the same
    ref, ref_dofs, ref_roots = _levers(gym, tmp_path)
    for _ in range(steps + 30):
        gym.set_dof_actuation_force_tensor(ref, gymtorch.unwrap_tensor(efforts))
        gym.simulate(ref)
    gym.refresh_dof_state_tensor(ref)
    gym.refresh_actor_root_state_tensor(ref)
    assert dofs[0, 0] != dofs0[0, 0]                      # (they moved)
    assert torch.equal(dofs[[0, 2]], ref_dofs[[0, 2]])
    assert torch.equal(roots[[0, 1, 4, 5]], ref_roots[[0, 1, 4, 5]])
