"""Rigid-body layout as Isaac Gym numbers it, for assets authored here that mirror real ones:
every MJCF <body> is a rigid body, jointless ones included, in depth-first file order, whatever
collapse_fixed_joints says (Isaac Gym's Shadow Hand MJCF loaded with the option has 26 bodies,
its jointless forearm at 1, palm at 3: tasks hard-code those indices); URDF links are bodies in
depth-first order and collapse_fixed_joints merges the ones attached by fixed joints into their
parents (a URDF xArm with an Allegro hand: 29 links, 23 bodies collapsed, the hand base merged
into link6 at index 6). MuJoCo's own compiler is the oracle for the MJCF order and poses."""

import mujoco
import numpy as np
import pytest

from gymlike import gymapi, gymtorch

from conftest import make_sim, options, pose, write

# a hand on a jointless mount and forearm; one finger ends in a jointless tip, the thumb base has
# two hinges in one body (two Isaac Gym DOFs), a massless jointless site body hangs off the palm
HAND_MJCF = """<mujoco model="hand">
  <compiler angle="radian"/>
  <default><geom density="500"/></default>
  <worldbody>
    <body name="hand mount" pos="0 0 0">
      <geom type="box" size="0.02 0.02 0.02"/>
      <body name="forearm" pos="0 0.01 0" euler="0.3 0 0.2">
        <geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.03"/>
        <body name="wrist" pos="0 0 0.256">
          <joint name="WRJ1" type="hinge" axis="0 1 0" range="-0.5 0.2"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.03" size="0.01"/>
          <body name="palm" pos="0 0 0.034">
            <joint name="WRJ0" type="hinge" axis="1 0 0" range="-0.7 0.5"/>
            <geom type="box" size="0.03 0.01 0.05" pos="0 0 0.04"/>
            <body name="ffknuckle" pos="0.033 0 0.095">
              <joint name="FFJ3" type="hinge" axis="0 1 0" range="-0.3 0.3"/>
              <geom type="sphere" size="0.008"/>
              <body name="ffproximal">
                <joint name="FFJ2" type="hinge" axis="1 0 0" range="0 1.5"/>
                <geom type="capsule" fromto="0 0 0 0 0 0.045" size="0.009"/>
                <body name="ffdistal" pos="0 0 0.045">
                  <joint name="FFJ1" type="hinge" axis="1 0 0" range="0 1.5"/>
                  <geom type="capsule" fromto="0 0 0 0 0 0.025" size="0.008"/>
                </body>
              </body>
            </body>
            <body name="mfknuckle" pos="0.011 0 0.099">
              <joint name="MFJ3" type="hinge" axis="0 1 0" range="-0.3 0.3"/>
              <geom type="sphere" size="0.008"/>
              <body name="mftip" pos="0 0 0.06">
                <geom type="sphere" size="0.008"/>
              </body>
            </body>
            <body name="palm site" pos="0 -0.02 0.05">
              <inertial pos="0 0 0" mass="0.001" diaginertia="1e-8 1e-8 1e-8"/>
            </body>
            <body name="thbase" pos="0.034 -0.009 0.029" axisangle="0 1 0 0.785">
              <joint name="THJ4" type="hinge" axis="0 0 -1" range="-1 1"/>
              <joint name="THJ3" type="hinge" axis="1 0 0" range="0 1.2"/>
              <geom type="capsule" fromto="0 0 0 0 0 0.038" size="0.01"/>
              <body name="thdistal" pos="0 0 0.038">
                <joint name="THJ0" type="hinge" axis="0 1 0" range="-1.5 0"/>
                <geom type="capsule" fromto="0 0 0 0 0 0.03" size="0.009"/>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _mujoco(text):
    m = mujoco.MjModel.from_xml_string(text)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody)]
    joints = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    return m, d, names, joints


@pytest.mark.parametrize("collapse", [False, True])
def test_every_mjcf_body_is_a_rigid_body_in_depth_first_order(gym, tmp_path, collapse):
    write(tmp_path, "hand.xml", HAND_MJCF)
    m, d, names, joints = _mujoco(HAND_MJCF)
    sim = make_sim(gym, ground=False, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "hand.xml", options(collapse_fixed_joints=collapse))
    assert gym.get_asset_rigid_body_names(asset) == names          # MuJoCo's depth-first order
    assert gym.get_asset_rigid_body_count(asset) == 12
    assert [gym.find_asset_rigid_body_index(asset, n) for n in ("forearm", "palm", "ffdistal", "mftip")] \
        == [1, 3, 6, 8]
    assert gym.get_asset_dof_names(asset) == joints
    assert gym.get_asset_rigid_shape_count(asset) == m.ngeom
    starts = gym.get_asset_rigid_body_shape_indices(asset)
    assert [s.count for s in starts] == [int((m.geom_bodyid == b).sum()) for b in range(1, m.nbody)]

    # the rigid body state tensor: row k of actor a is body k of that actor (the second hand's
    # palm at 12 + 3), at the pose MuJoCo's forward kinematics gives it
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    at = [pose(), pose(x=0.5, z=0.2)]
    for k, p in enumerate(at):
        gym.create_actor(env, asset, p, f"hand{k}", 0, 0)
    gym.prepare_sim(sim)
    rb = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_rigid_body_state_tensor(sim)
    assert rb.shape == (24, 13)
    xpos = d.xpos[1:] - d.xpos[1]               # (the root body stands at the actor pose)
    for k, p in enumerate(at):
        got = rb[12 * k:12 * (k + 1), 0:3].numpy() - np.array([p.p.x, p.p.y, p.p.z])
        np.testing.assert_allclose(got, xpos, atol=1e-5)
        palm = gym.find_actor_rigid_body_index(env, k, "palm", gymapi.DOMAIN_SIM)
        assert palm == 12 * k + 3


ARM_URDF = """<robot name="arm_hand">
  {world}
  {link_base}
  <joint name="world_joint" type="fixed"><parent link="world"/><child link="link_base"/></joint>
  {link1}
  <joint name="joint1" type="revolute"><parent link="link_base"/><child link="link1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  {link2}
  <joint name="joint2" type="revolute"><parent link="link1"/><child link="link2"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
  {hand_base}
  <joint name="joint_eef" type="fixed"><parent link="link2"/><child link="hand_base"/><origin xyz="0 0 0.2"/></joint>
  {camera}
  <joint name="camera_joint" type="fixed"><parent link="hand_base"/>\
<child link="camera"/><origin xyz="0.05 0 0"/></joint>
  {f1}
  <joint name="jf1" type="revolute"><parent link="hand_base"/><child link="f1"/>
    <origin xyz="0 0.02 0.03"/><axis xyz="1 0 0"/><limit lower="0" upper="1.5" effort="5" velocity="3"/></joint>
  {f1_tip}
  <joint name="jf1_tip" type="fixed"><parent link="f1"/><child link="f1_tip"/><origin xyz="0 0 0.04"/></joint>
  {f2}
  <joint name="jf2" type="revolute"><parent link="hand_base"/><child link="f2"/>
    <origin xyz="0 -0.02 0.03"/><axis xyz="1 0 0"/><limit lower="0" upper="1.5" effort="5" velocity="3"/></joint>
  {f2_tip}
  <joint name="jf2_tip" type="fixed"><parent link="f2"/><child link="f2_tip"/><origin xyz="0 0 0.04"/></joint>
</robot>"""


def _link(name, mass=None, box=True):
    col = '<collision><geometry><box size="0.03 0.03 0.03"/></geometry></collision>' if box else ""
    inertial = (f'<inertial><mass value="{mass}"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/>'
                '</inertial>') if mass else ""
    return f'<link name="{name}">{col}{inertial}</link>'


def _arm_urdf():
    links = dict(world=_link("world", box=False), link_base=_link("link_base", 2.0), link1=_link("link1", 1.5),
                 link2=_link("link2", 1.0), hand_base=_link("hand_base", 0.5),
                 camera=_link("camera", box=False),                        # massless, no geometry
                 f1=_link("f1", 0.05), f1_tip=_link("f1_tip", 0.01), f2=_link("f2", 0.05), f2_tip=_link("f2_tip", 0.01))
    return ARM_URDF.format(**links)


def test_urdf_links_are_bodies_and_collapse_merges_fixed_children(gym, tmp_path):
    write(tmp_path, "arm.urdf", _arm_urdf())
    sim = make_sim(gym, ground=False, gravity=0.0)
    plain = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(fix_base_link=True))
    assert gym.get_asset_rigid_body_names(plain) == [
        "world", "link_base", "link1", "link2", "hand_base", "camera", "f1", "f1_tip", "f2", "f2_tip"]
    merged = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(fix_base_link=True, collapse_fixed_joints=True))
    # each fixed child goes into its parent: link_base into world, hand_base (and the camera
    # frame on it) into link2, each tip into its finger
    assert gym.get_asset_rigid_body_names(merged) == ["world", "link1", "link2", "f1", "f2"]
    assert gym.find_asset_rigid_body_index(merged, "link2") == 2
    assert gym.get_asset_dof_names(merged) == gym.get_asset_dof_names(plain) == ["joint1", "joint2", "jf1", "jf2"]
    assert gym.get_asset_rigid_shape_count(merged) == gym.get_asset_rigid_shape_count(plain) == 8
    assert [s.count for s in gym.get_asset_rigid_body_shape_indices(merged)] == [1, 1, 2, 2, 2]
    mass = {n: m for n, m in zip(gym.get_asset_rigid_body_names(merged), merged.body_mass)}
    assert mass["link2"] == pytest.approx(1.5, rel=1e-5)        # link2 + hand_base (the camera has none)
    assert mass["f1"] == pytest.approx(0.06, rel=1e-5)
    assert sum(merged.body_mass) == pytest.approx(sum(plain.body_mass[[1, 2, 3, 4, 6, 7, 8, 9]]), rel=1e-5)
