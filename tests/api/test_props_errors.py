"""Bad input to the property and control API: each is a clear GymlikeError naming the argument,
and nothing is half-applied (the actor's properties and the model are unchanged)."""

import numpy as np
import pytest

from conftest import drive_mode, make_sim, options, pose, write
from gymlike import gymapi
from gymlike.core.errors import GymlikeError

TWO_DOF = """\
<robot name="arm2">
  <link name="base"><inertial><mass value="2"/>\
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0 0 0.25"/><mass value="1"/>\
<inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.25"/><geometry><box size="0.05 0.05 0.5"/></geometry></collision></link>
  <link name="lower"><inertial><origin xyz="0 0 0.2"/><mass value="0.5"/>\
<inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.2"/><geometry><box size="0.04 0.04 0.4"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.05"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="50" velocity="5"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5" effort="20" velocity="5"/></joint>
  <joint name="tool" type="fixed"><parent link="lower"/><child link="tip"/><origin xyz="0 0 0.4"/></joint>
  <link name="tip"><inertial><mass value="0.1"/>\
<inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>
"""


@pytest.fixture
def scene(gym, tmp_path):
    write(tmp_path, "arm2.urdf", TWO_DOF)
    sim = make_sim(gym, "physx", dt=1 / 240, substeps=1)
    arm = gym.load_asset(sim, str(tmp_path), "arm2.urdf", options(fix_base_link=True))
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, arm, pose(z=0.05), "arm", 0, 0)
    gym.create_actor(env, box, pose(x=0.7, z=0.05), "box", 0, 0)
    return sim, env


def _model_dof_arrays(sim):
    m = sim.model
    return [a.numpy().copy() for a in (m.joint_limit_lower, m.joint_limit_upper, m.joint_target_ke,
                                       m.joint_target_kd, m.joint_effort_limit, m.joint_armature)]


@pytest.mark.parametrize("finalized", [False, True])
def test_bad_dof_properties_change_nothing(gym, scene, finalized):
    sim, env = scene
    if finalized:
        gym.prepare_sim(sim)
    before = gym.get_actor_dof_properties(env, 0)
    model_before = _model_dof_arrays(sim) if finalized else None

    def check(bad, err, match):
        with pytest.raises(err, match=match):
            gym.set_actor_dof_properties(env, 0, bad)
        assert gym.get_actor_dof_properties(env, 0).tobytes() == before.tobytes()
        if finalized:
            for a, b in zip(model_before, _model_dof_arrays(sim)):
                np.testing.assert_array_equal(a, b)

    p = before.copy()
    p["stiffness"][0] = 100.0                       # a valid change next to the invalid one
    p["driveMode"][1] = 7
    check(p, ValueError, r"props\[1\]\['driveMode'\] = 7 is not a drive mode")
    p = before.copy()
    p["damping"][0] = -1.0
    check(p, ValueError, r"props\[0\]\['damping'\] must be >= 0")
    p = before.copy()
    p["lower"][1], p["upper"][1] = 1.0, -1.0
    check(p, ValueError, "lower limit 1.0 > upper limit -1.0")
    p = before.copy()
    p["effort"][0] = np.nan
    check(p, ValueError, "NaN")
    check(before[:1], ValueError, r"one entry per DOF of the actor \(2\), got shape \(1,\)")
    check(gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL), TypeError, "lacks the DOF property field")
    check([0.0, 1.0], TypeError, "structured numpy array")
    # another actor's properties (the box has no DOFs)
    check(gym.get_actor_dof_properties(env, 1), ValueError, r"\(2\), got shape \(0,\)")
    assert isinstance(pytest.raises(GymlikeError, gym.set_actor_dof_properties, env, 0, before[:1]).value, ValueError)


def test_bad_targets_and_efforts(gym, scene):
    sim, env = scene
    drive_mode(gym, env, 0, gymapi.DOF_MODE_POS)
    gym.set_actor_dof_position_targets(env, 0, np.array([0.1, 0.2], np.float32))
    for fn in (gym.set_actor_dof_position_targets, gym.set_actor_dof_velocity_targets, gym.apply_actor_dof_efforts):
        name = fn.__name__
        with pytest.raises(ValueError, match=rf"{name}: .* DOF count \(2\) elements, got shape \(3,\)"):
            fn(env, 0, np.zeros(3, np.float32))
        with pytest.raises(TypeError, match=rf"{name}: .* real numbers"):
            fn(env, 0, np.zeros(2, gymapi.DofState.dtype))
        with pytest.raises(ValueError, match=rf"{name}: .*\[1\] is nan"):
            fn(env, 0, np.array([0.0, np.nan], np.float32))
        with pytest.raises(TypeError, match=name):
            fn(env, 0, "fast")
    assert gym.get_actor_dof_position_targets(env, 0) == pytest.approx([0.1, 0.2])
    assert gym.set_actor_dof_position_targets(env, 0, [0.1, 0.2])   # lists and float64 are accepted
    with pytest.raises(IndexError, match="dof"):
        gym.set_dof_target_position(env, 5, 0.0)
    with pytest.raises(TypeError, match="target must be a number"):
        gym.set_dof_target_position(env, 0, "x")
    with pytest.raises(ValueError, match=r"joint 2 \('tool'\) has 0 DOFs"):
        gym.get_joint_position(env, 2)
    with pytest.raises(ValueError, match="space must be"):
        gym.apply_body_forces(env, 0, gymapi.Vec3(1, 0, 0), None, 7)
    with pytest.raises(TypeError, match="force must be gymapi.Vec3"):
        gym.apply_body_forces(env, 0, (1, 0, 0))
    with pytest.raises(IndexError, match="body"):
        gym.apply_body_force_at_pos(env, 99, gymapi.Vec3(1, 0, 0))


@pytest.mark.parametrize("finalized", [False, True])
def test_bad_rigid_body_properties_change_nothing(gym, scene, finalized):
    sim, env = scene
    if finalized:
        gym.prepare_sim(sim)
    before = [(p.mass, p.com.to_tuple(), p.flags) for p in gym.get_actor_rigid_body_properties(env, 0)]
    mass_before = sim.model.body_mass.numpy().copy() if finalized else None

    def check(props, err, match):
        with pytest.raises(err, match=match):
            gym.set_actor_rigid_body_properties(env, 0, props)
        after = [(p.mass, p.com.to_tuple(), p.flags) for p in gym.get_actor_rigid_body_properties(env, 0)]
        assert after == before
        if finalized:
            np.testing.assert_array_equal(sim.model.body_mass.numpy(), mass_before)

    props = gym.get_actor_rigid_body_properties(env, 0)
    props[1].mass = 5.0                                 # valid, before the invalid one
    props[2].mass = -1.0
    check(props, ValueError, r"props\[2\]\.mass must be a finite number >= 0, got -1.0")
    props = gym.get_actor_rigid_body_properties(env, 0)
    props[1].mass = 0.0
    check(props, ValueError, r"props\[1\]\.mass is 0")
    props = gym.get_actor_rigid_body_properties(env, 0)
    props[1].inertia.x = gymapi.Vec3(-1, 0, 0)
    check(props, ValueError, "positive definite")
    props = gym.get_actor_rigid_body_properties(env, 0)
    check(props[:2], ValueError, r"one entry per rigid body of the actor \(4\), got 2")
    check(gym.get_actor_rigid_body_properties(env, 1), ValueError, r"\(4\), got 1")   # another actor's
    props[0].flags = gymapi.RIGID_BODY_DISABLE_SIMULATION
    check(props, NotImplementedError, "RIGID_BODY_DISABLE_SIMULATION")
    props = gym.get_actor_rigid_body_properties(env, 0)
    with pytest.raises(TypeError, match=r"RigidBodyProperties\.com must be gymapi.Vec3"):
        props[0].com = (0, 0, 0)       # rejected at assignment, as by Isaac Gym's pybind11 types
    object.__setattr__(props[0], "com", (0, 0, 0))    # a struct bypassing that check still fails at set
    check(props, TypeError, r"props\[0\]\.com must be gymapi.Vec3")


@pytest.mark.parametrize("finalized", [False, True])
def test_bad_shape_properties_change_nothing(gym, scene, finalized):
    sim, env = scene
    if finalized:
        gym.prepare_sim(sim)
    before = [p.__getstate__() for p in gym.get_actor_rigid_shape_properties(env, 0)]

    def check(props, err, match):
        with pytest.raises(err, match=match):
            gym.set_actor_rigid_shape_properties(env, 0, props)
        assert [p.__getstate__() for p in gym.get_actor_rigid_shape_properties(env, 0)] == before

    props = gym.get_actor_rigid_shape_properties(env, 0)
    props[0].friction = 0.3
    props[1].friction = -0.1
    check(props, ValueError, r"props\[1\]\.friction must be a finite number >= 0")
    props = gym.get_actor_rigid_shape_properties(env, 0)
    props[0].restitution = 1.5
    check(props, ValueError, r"restitution must be in \[0, 1\]")
    check(props[:1], ValueError, r"one entry per rigid shape \(2\), got 1")
    if finalized:
        props = gym.get_actor_rigid_shape_properties(env, 0)
        props[0].filter = 1
        check(props, RuntimeError, "collision filtering is fixed once the sim is prepared")
        props[0].filter = before[0]["filter"]
        props[0].friction = 0.7                             # same filter: fine after prepare_sim
        gym.set_actor_rigid_shape_properties(env, 0, props)
        assert gym.get_actor_rigid_shape_properties(env, 0)[0].friction == pytest.approx(0.7)


def test_bad_scale_colors_and_handles(gym, scene):
    sim, env = scene
    for bad, err in ((0.0, ValueError), (-2.0, ValueError), (float("nan"), ValueError), ("2", TypeError)):
        with pytest.raises(err, match="set_actor_scale: scale must be"):
            gym.set_actor_scale(env, 1, bad)
    assert gym.get_actor_scale(env, 1) == 1.0
    with pytest.raises(ValueError, match="meshType"):
        gym.set_rigid_body_color(env, 0, 0, gymapi.MESH_NONE, gymapi.Vec3(1, 0, 0))
    with pytest.raises(IndexError, match="rigid body index 9 out of range"):
        gym.set_rigid_body_color(env, 0, 9, gymapi.MESH_VISUAL, gymapi.Vec3(1, 0, 0))
    with pytest.raises(TypeError, match="color must be gymapi.Vec3"):
        gym.set_rigid_body_color(env, 0, 0, gymapi.MESH_VISUAL, (1, 0, 0))
    with pytest.raises(ValueError, match="segmentationId"):
        gym.set_rigid_body_segmentation_id(env, 0, 0, -1)
    with pytest.raises(IndexError, match="actor handle 5 out of range"):
        gym.get_actor_dof_properties(env, 5)
    with pytest.raises(TypeError, match="expected an Env handle"):
        gym.get_actor_rigid_body_properties(sim, 0)
