"""Assets as Isaac Gym's importer takes them: which URDF `filename=`s are meshes, where meshes are
searched, missing visual vs collision meshes, dont_collapse, MJCF includes, locked hinges,
unphysical inertias and unsupported joint types (all with assets authored here)."""

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
    with pytest.raises(NotImplementedError,
                       match=r"h2.urdf', line 3, <joint name=\"j\">: joint type 'hinge2' is not supported"):
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


def test_urdf_spherical_joint_is_one_ball_joint_of_three_hinges_below_a_massless_link(gym, tmp_path):
    """Isaac Gym's spherical-joint example: a URDF `spherical` joint below an empty (massless)
    prismatic link. The ball is one JOINT_BALL with three rotation DOFs about the joint frame's
    x, y, z; the massless moving link gets a small mass with a warning; a PD target on the z
    DOF turns the child about z."""
    write(tmp_path, "s.urdf", f"""<robot name="r">
  <link name="base"/><link name="mid"/>{_link("b")}
  <joint name="slide" type="prismatic"><parent link="base"/><child link="mid"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <joint name="ball" type="spherical"><parent link="mid"/><child link="b"/></joint>
</robot>""")
    sim = make_sim(gym, ground=False, gravity=0.0, dt=1 / 120)
    with pytest.warns(UserWarning, match=r"without mass or rotational inertia \(mid\)"):
        asset = gym.load_asset(sim, str(tmp_path), "s.urdf", options(fix_base_link=True))
    assert gym.get_asset_dof_names(asset) == ["slide", "ball_x", "ball_y", "ball_z"]
    assert gym.get_asset_joint_type(asset, gym.find_asset_joint_index(asset, "ball")) == gymapi.JOINT_BALL
    assert [gym.get_asset_dof_type(asset, i) for i in range(1, 4)] == [gymapi.DOF_ROTATION] * 3
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=1.0), "r", 0, 0)
    props = gym.get_actor_dof_properties(env, h)
    props["driveMode"][:] = gymapi.DOF_MODE_POS
    props["stiffness"][:], props["damping"][:] = (20.0, 5.0, 5.0, 5.0), (10.0, 1.0, 1.0, 1.0)
    gym.set_actor_dof_properties(env, h, props)
    gym.set_actor_dof_position_targets(env, h, np.array([0.2, 0.0, 0.0, 0.5], np.float32))
    for _ in range(480):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
    q = gym.get_actor_dof_states(env, h, gymapi.STATE_POS)["pos"]
    assert np.allclose(q, [0.2, 0.0, 0.0, 0.5], atol=2e-3)
    r = gym.get_actor_rigid_body_states(env, h, gymapi.STATE_POS)["pose"]["r"][2]
    yaw = 2 * np.arctan2(r["z"], r["w"])
    assert abs(yaw - 0.5) < 2e-3 and abs(r["x"]) < 1e-3 and abs(r["y"]) < 1e-3


def _bin_obj(path, w=0.3, h=0.2, t=0.02):
    """A thin-walled open bin (bottom + 4 walls) as one OBJ of five boxes."""
    boxes = [((-w / 2, -w / 2, 0), (w / 2, w / 2, t)), ((-w / 2, -w / 2, 0), (-w / 2 + t, w / 2, h)),
             ((w / 2 - t, -w / 2, 0), (w / 2, w / 2, h)), ((-w / 2, -w / 2, 0), (w / 2, -w / 2 + t, h)),
             ((-w / 2, w / 2 - t, 0), (w / 2, w / 2, h))]
    lines, faces = [], []
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    for k, (lo, hi) in enumerate(boxes):
        for i in range(8):
            lines.append("v %g %g %g" % (hi[0] if i & 4 else lo[0], hi[1] if i & 2 else lo[1],
                                         hi[2] if i & 1 else lo[2]))
        for a, b_, c, d in quads:
            o = 8 * k + 1
            faces += ["f %d %d %d" % (a + o, b_ + o, c + o), "f %d %d %d" % (a + o, c + o, d + o)]
    path.write_text("\n".join(lines + faces) + "\n")


@pytest.mark.parametrize("decompose", [False, True])
def test_vhacd_lets_a_ball_into_a_bin_its_convex_hull_would_fill(gym, tmp_path, decompose):
    _bin_obj(tmp_path / "bin.obj")
    write(tmp_path, "bin.urdf", """<robot name="bin"><link name="bin">
      <collision><geometry><mesh filename="bin.obj"/></geometry></collision>
      <inertial><mass value="1"/><inertia ixx="1e-2" iyy="1e-2" izz="1e-2" ixy="0" ixz="0" iyz="0"/></inertial>
    </link></robot>""")
    sim = make_sim(gym, dt=1.0 / 120.0)
    o = options(fix_base_link=True, vhacd_enabled=decompose)
    o.vhacd_params.max_convex_hulls = 16
    bin_asset = gym.load_asset(sim, str(tmp_path), "bin.urdf", o)
    ball = gym.create_sphere(sim, 0.04, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, bin_asset, pose(), "bin", 0, 0)
    gym.create_actor(env, ball, pose(z=0.4), "ball", 0, 0)
    if decompose:
        assert gym.get_asset_rigid_shape_count(bin_asset) >= 5      # walls and bottom, each convex
    for _ in range(120):
        gym.simulate(sim)
    z = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)["pose"]["p"]["z"][0]
    if decompose:
        assert z == pytest.approx(0.02 + 0.04, abs=0.01)              # on the bin's bottom, inside
    else:
        assert z == pytest.approx(0.2 + 0.04, abs=0.01)               # on the convex hull's lid


BALL_MJCF = """<mujoco model="ball">
  <default><default class="sph"><joint type="ball" damping="0.05" armature="0.01"/></default></default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <body name="arm" pos="0 0 -0.05">
        <joint name="shoulder" class="sph" range="0 60"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" mass="0.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_mjcf_ball_joint_is_one_joint_with_three_rotation_dofs(gym, tmp_path):
    write(tmp_path, "ball.xml", BALL_MJCF)
    sim = make_sim(gym, ground=False)
    asset = gym.load_asset(sim, str(tmp_path), "ball.xml", options(fix_base_link=True))
    assert gym.get_asset_joint_count(asset) == 1
    assert gym.get_asset_joint_type(asset, 0) == gymapi.JOINT_BALL
    assert gym.get_asset_dof_count(asset) == 3
    assert gym.get_asset_dof_names(asset) == ["shoulder_x", "shoulder_y", "shoulder_z"]
    assert all(gym.get_asset_dof_type(asset, i) == gymapi.DOF_ROTATION for i in range(3))
    props = gym.get_asset_dof_properties(asset)
    assert props["upper"] == pytest.approx(np.radians(60)) and props["armature"] == pytest.approx(0.01)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(), "b", 0, 0)
    props["driveMode"], props["stiffness"], props["damping"] = gymapi.DOF_MODE_POS, 50.0, 5.0
    gym.set_actor_dof_properties(env, 0, props)
    gym.set_actor_dof_position_targets(env, 0, np.array([0.3, -0.2, 0.5], np.float32))
    for _ in range(480):
        gym.simulate(sim)
    pos = gym.get_actor_dof_states(env, 0, gymapi.STATE_POS)["pos"]
    # gravity pulls the swinging arm; the stiff drive holds each axis near its target
    assert pos == pytest.approx([0.3, -0.2, 0.5], abs=0.05)


def test_mjcf_locked_root_joint_is_not_a_dof_and_the_root_floats(gym, tmp_path):
    """IsaacGymEnvs' ingenuity: a locked hinge (range 0 0) on the chassis, hinges on its rotors;
    Isaac Gym reports only the rotor DOFs and the chassis floats (fix_base_link=False)."""
    write(tmp_path, "heli.xml", """<mujoco model="heli"><worldbody>
      <body name="chassis" pos="0 0 0">
        <geom type="box" size="0.1 0.1 0.05" mass="1"/>
        <joint name="root_joint" type="hinge" limited="true" range="0 0"/>
        <body name="rotor"><joint name="spin" type="hinge" axis="0 0 1"/>
          <geom type="cylinder" size="0.2 0.005" mass="0.05"/></body>
      </body></worldbody></mujoco>""")
    sim = make_sim(gym, ground=False)
    asset = gym.load_asset(sim, str(tmp_path), "heli.xml", options())
    assert gym.get_asset_dof_names(asset) == ["spin"]
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=2.0), "h", 0, 0)
    for _ in range(30):
        gym.simulate(sim)
    z = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"][0]
    assert z == pytest.approx(2.0 - 0.5 * 9.81 * (30 / 240) ** 2, abs=0.01)      # free fall
    fixed = gym.load_asset(sim, str(tmp_path), "heli.xml", options(fix_base_link=True))
    assert gym.get_asset_dof_names(fixed) == ["spin"]


def _ring_obj(r_in=0.1, r_out=0.2, h=0.05, n=24):
    """An annulus (a washer) as an OBJ: a mesh with a hole through it."""
    a = 2 * np.pi * np.arange(n) / n
    v = [(r * np.cos(t), r * np.sin(t), z) for r, z in ((r_out, 0), (r_out, h), (r_in, 0), (r_in, h)) for t in a]
    f = []
    for i in range(n):
        j = (i + 1) % n
        for ring0, ring1 in ((0, 1), (1, 3), (3, 2), (2, 0)):      # outer wall, top, inner wall, bottom
            p, q = ring0 * n, ring1 * n
            f += [(p + i, p + j, q + j), (p + i, q + j, q + i)]
    return "".join(f"v {x:.6f} {y:.6f} {z:.6f}\n" for x, y, z in v) + \
        "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f)


def test_sdf_collision_warns_and_the_mesh_collides_as_its_convex_hull(gym, tmp_path):
    """Isaac Gym's URDF <sdf> collision (PhysX's SDF mesh contact: a washer's hole stays open) is
    not available: load_asset says so, naming the line, and the washer collides as its hull."""
    (tmp_path / "washer.obj").write_text(_ring_obj())
    write(tmp_path, "washer.urdf", """\
        <robot name="washer">
          <link name="base">
            <collision>
              <geometry><mesh filename="washer.obj"/></geometry>
              <sdf resolution="64"/>
            </collision>
            <inertial><mass value="1"/><inertia ixx="1e-2" iyy="1e-2" izz="1e-2" ixy="0" ixz="0" iyz="0"/></inertial>
          </link>
        </robot>""")
    write(tmp_path, "ball.urdf", """\
        <robot name="ball"><link name="b">
          <collision><geometry><sphere radius="0.03"/></geometry></collision>
          <inertial><mass value="0.1"/><inertia ixx="4e-5" iyy="4e-5" izz="4e-5" ixy="0" ixz="0" iyz="0"/></inertial>
        </link></robot>""")
    sim = make_sim(gym, ground=False, dt=1 / 120, substeps=2)
    with pytest.warns(UserWarning, match=r"washer.urdf', line 5: <sdf> collision .* not available; the mesh "
                                         r"collides as its convex hull"):
        washer = gym.load_asset(sim, str(tmp_path), "washer.urdf", options(fix_base_link=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # only <sdf> in a <collision> warns
        ball = gym.load_asset(sim, str(tmp_path), "ball.urdf", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, washer, pose(), "washer", 0, 0)
    gym.create_actor(env, ball, pose(z=0.2), "ball", 0, 0)
    for _ in range(90):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
    z = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)["pose"]["p"]["z"][0]
    assert z == pytest.approx(0.05 + 0.03, abs=3e-3)     # on the hull's top, not through the hole


def test_mimic_tags_are_ignored_as_isaac_gym_ignores_them(gym, tmp_path):
    """Isaac Gym's URDF importer ignores <mimic>: a hand whose finger joints mimic each other
    (unitree_rl_gym's H1-2 also puts mimic on fixed joints, which Newton refuses) loads, every
    mimic joint is a DOF of its own, and driving the leader leaves the follower where it is."""
    link = ('<link name="{}"><collision><origin xyz="0 0 -0.05"/><geometry><box size="0.02 0.02 0.1"/></geometry>'
            '</collision><inertial><origin xyz="0 0 -0.05"/><mass value="0.1"/>'
            '<inertia ixx="1e-4" iyy="1e-4" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>')
    write(tmp_path, "hand.urdf", f"""\
        <robot name="hand">
          {link.format("palm")}{link.format("leader")}{link.format("follower")}{link.format("tip")}
          <joint name="a_lead" type="revolute"><parent link="palm"/><child link="leader"/>
            <origin xyz="0.05 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="10"/></joint>
          <joint name="b_follow" type="revolute"><parent link="palm"/><child link="follower"/>
            <origin xyz="-0.05 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="10"/>
            <mimic joint="a_lead" multiplier="2" offset="0.1"/></joint>
          <joint name="weld" type="fixed"><parent link="follower"/><child link="tip"/>
            <origin xyz="0 0 -0.1"/><mimic joint="a_lead" multiplier="1.5"></mimic></joint>
        </robot>""")
    sim = make_sim(gym, ground=False, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "hand.urdf", options(fix_base_link=True))
    assert gym.get_asset_dof_count(asset) == 2
    assert gym.get_asset_dof_names(asset) == ["a_lead", "b_follow"]
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    a = gym.create_actor(env, asset, pose(z=1.0), "hand", 0, 0)
    props = gym.get_actor_dof_properties(env, a)
    props["driveMode"][0] = gymapi.DOF_MODE_POS
    props["stiffness"][0], props["damping"][0] = 5.0, 0.5
    gym.set_actor_dof_properties(env, a, props)
    gym.set_actor_dof_position_targets(env, a, np.array([0.5, 0.0], np.float32))
    for _ in range(120):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
    pos = gym.get_actor_dof_states(env, a, gymapi.STATE_POS)["pos"]
    assert pos[0] == pytest.approx(0.5, abs=0.02)          # the leader reached its target
    assert abs(pos[1]) < 0.02                              # no coupling: not 2 * 0.5 + 0.1
