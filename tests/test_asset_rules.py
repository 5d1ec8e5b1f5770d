"""Assets as Isaac Gym's importer takes them: which URDF `filename=`s are meshes, where meshes are
searched, missing visual vs collision meshes, dont_collapse, MJCF includes, locked hinges,
unphysical inertias and unsupported joint types (all with assets authored here)."""

import os
import warnings

import numpy as np
import pytest

from gymlike import gymapi
from gymlike.core.errors import AssetParseError

from conftest import make_sim, options, pose, write

# a unit tetrahedron (OBJ)
TETRA = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def _link(name, mesh_visual=None, mesh_collision=None):
    vis = f'<visual><geometry><mesh filename="{mesh_visual}"/></geometry></visual>' if mesh_visual else ""
    col = f'<collision><geometry><mesh filename="{mesh_collision}"/></geometry></collision>' if mesh_collision \
        else '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'
    return (f'<link name="{name}">{vis}{col}<inertial><mass value="1"/>'
            '<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>')


def _tree(tmp_path):
    """assets/urdf/robot_description/{robot.urdf, meshes/a.obj}, assets/urdf/robot_description/meshes/sub/b.obj,
    assets/urdf/shared/c.obj"""
    root = tmp_path / "assets"
    desc = root / "urdf" / "robot_description"
    (desc / "meshes" / "sub").mkdir(parents=True)
    (root / "urdf" / "shared").mkdir(parents=True)
    for p in (desc / "meshes" / "a.obj", desc / "meshes" / "sub" / "b.obj", root / "urdf" / "shared" / "c.obj"):
        p.write_text(TETRA)
    return root, desc


def test_only_visual_and_collision_meshes_count_and_are_searched_up_the_tree(gym, tmp_path):
    root, desc = _tree(tmp_path)
    urdf = f"""<?xml version="1.0"?>
<robot name="r">
  <!-- a commented-out sensor: <mesh filename="meshes/sensor_not_here.dae"/> -->
  {_link("base", "meshes/a.obj", "meshes/a.obj")}
  {_link("l1", "robot_description/meshes/sub/b.obj", "package://robot_description/meshes/sub/b.obj")}
  {_link("l2", "../shared/c.obj", "shared/c.obj")}
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="fixed"><parent link="l1"/><child link="l2"/></joint>
  <gazebo><plugin name="control" filename="libgazebo_ros_control.so"/></gazebo>
</robot>"""
    (desc / "robot.urdf").write_text(urdf)
    sim = make_sim(gym)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # nothing is missing: no warning either
        asset = gym.load_asset(sim, str(root), "urdf/robot_description/robot.urdf", options())
    assert gym.get_asset_rigid_body_count(asset) == 3
    assert gym.get_asset_rigid_shape_count(asset) == 3      # one collision mesh per link


def test_missing_visual_mesh_warns_and_missing_collision_mesh_names_line_and_folders(gym, tmp_path):
    root, desc = _tree(tmp_path)
    (desc / "vis.urdf").write_text(f"""<robot name="r">
{_link("base", "meshes/nowhere.obj", "meshes/a.obj")}
</robot>""")
    sim = make_sim(gym)
    with pytest.warns(UserWarning, match=r"vis.urdf', line 2: visual mesh 'meshes/nowhere.obj' not found"):
        asset = gym.load_asset(sim, str(root), "urdf/robot_description/vis.urdf", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=1.0), "a", 0, 0)
    for _ in range(5):
        gym.simulate(sim)                        # the actor loads and simulates
    assert gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"][0] < 1.0
    (desc / "col.urdf").write_text(f"""<robot name="r">

{_link("base", "meshes/a.obj", "meshes/gone.obj")}
</robot>""")
    with pytest.raises(FileNotFoundError, match=r"col.urdf', line 3: collision mesh 'meshes/gone.obj' not found; "
                                                r"searched '.*robot_description', '.*urdf', "):
        gym.load_asset(sim, str(root), "urdf/robot_description/col.urdf", options())


def test_dont_collapse_keeps_the_fixed_child_body(gym, tmp_path):
    urdf = f"""<robot name="leg">
  {_link("shank")}{_link("foot")}{_link("toe")}
  <joint name="foot_fixed" type="fixed" dont_collapse="true"><parent link="shank"/><child link="foot"/>
    <origin xyz="0 0 -0.3"/></joint>
  <joint name="toe_fixed" type="fixed"><parent link="foot"/><child link="toe"/><origin xyz="0.1 0 0"/></joint>
</robot>"""
    write(tmp_path, "leg.urdf", urdf)
    sim = make_sim(gym)
    asset = gym.load_asset(sim, str(tmp_path), "leg.urdf", options(collapse_fixed_joints=True))
    assert gym.get_asset_rigid_body_names(asset) == ["shank", "foot"]      # toe merged into foot
    assert gym.get_asset_rigid_shape_count(asset) == 3
    plain = gym.load_asset(sim, str(tmp_path), "leg.urdf", options())
    assert gym.get_asset_rigid_body_count(plain) == 3


def test_unsupported_urdf_joint_type_is_rejected_at_load_with_line(gym, tmp_path):
    write(tmp_path, "h2.urdf", f"""<robot name="r">
  {_link("a")}{_link("b")}
  <joint name="j" type="hinge2"><parent link="a"/><child link="b"/></joint>
</robot>""")
    sim = make_sim(gym)
    with pytest.raises(NotImplementedError, match=r"h2.urdf', line 3: joint type 'hinge2' is not supported"):
        gym.load_asset(sim, str(tmp_path), "h2.urdf", options())
    write(tmp_path, "empty.urdf", "<robot name='nothing'></robot>")
    with pytest.raises(AssetParseError, match="empty.urdf"):
        gym.load_asset(sim, str(tmp_path), "empty.urdf", options())


MJCF_MAIN = """<mujoco model="m">
  <include file="parts/defaults.xml"/>
  <worldbody>
    <body name="base" pos="0 0 1">
      <joint name="slider" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="arm" pos="0 0 0.2">
        <joint name="locked" type="hinge" axis="0 1 0" limited="true" range="0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.03" mass="0.5"/>
        <body name="flat" pos="0 0 0.3">
          <joint name="finger" class="finger" axis="1 0 0"/>
          <inertial pos="0 0 0" mass="0.1" diaginertia="0.001 0.001 0.01"/>
          <geom type="sphere" size="0.04" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
MJCF_PARTS = """<mujoco>
  <default><default class="finger"><joint type="hinge" limited="true" range="-30 30" damping="0.2"/></default></default>
  <actuator><motor name="finger_motor" joint="finger" gear="2" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
"""


def test_mjcf_include_locked_hinge_and_unbalanced_inertia(gym, tmp_path):
    (tmp_path / "parts").mkdir()
    write(tmp_path, "parts/defaults.xml", MJCF_PARTS)
    write(tmp_path, "m.xml", MJCF_MAIN)
    sim = make_sim(gym, ground=False, gravity=0.0)
    with pytest.warns(UserWarning, match="inertia of flat breaks the triangle inequality"):
        asset = gym.load_asset(sim, str(tmp_path), "m.xml", options())
    # the include's actuator and default class are read
    assert gym.get_asset_actuator_count(asset) == 1
    assert gym.get_asset_actuator_name(asset, 0) == "finger_motor"
    props = gym.get_asset_dof_properties(asset)
    assert gym.get_asset_dof_names(asset) == ["slider", "locked", "finger"]
    assert props["driveMode"][2] == gymapi.DOF_MODE_EFFORT                  # motor -> effort, as Isaac Gym
    assert props["damping"][2] == pytest.approx(0.2)
    assert props["upper"][2] == pytest.approx(np.radians(30), rel=1e-5)
    assert props["lower"][1] == props["upper"][1] == 0.0                  # reported as authored
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(), "m", 0, 0)
    gym.prepare_sim(sim)
    states = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    states["vel"][1] = 3.0                                                # try to swing the locked hinge
    gym.set_actor_dof_states(env, 0, states, gymapi.STATE_ALL)
    for _ in range(60):
        gym.simulate(sim)
    states = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    assert abs(states["pos"][1]) < 2e-3                                   # it stays locked
    assert np.isfinite(states["pos"]).all()


def test_unsupported_ball_joint_in_urdf_is_a_clear_error(gym, tmp_path):
    write(tmp_path, "s.urdf", f"""<robot name="r">
  {_link("a")}{_link("b")}
  <joint name="ball" type="spherical"><parent link="a"/><child link="b"/></joint>
</robot>""")
    sim = make_sim(gym)
    with pytest.raises(NotImplementedError, match=r"line 3: joint type 'spherical'"):
        gym.load_asset(sim, str(tmp_path), "s.urdf", options())
