"""SIM_FLEX (Newton's XPBD) position drives on an articulated arm, against MuJoCo (SIM_PHYSX)
on the same asset: a Franka-like arm authored here (fixed base, 7 revolute joints with a
Franka's link masses, two 15 g prismatic fingers) holds its targets under gravity and settles
after a step, where XPBD's own compliant drive let it sag twice as far and, at 4 substeps,
collapse. And a base welded to the world stays put on XPBD, as PhysX keeps it."""

import numpy as np
import pytest

from gymlike import gymapi

from conftest import ASSETS, make_sim, options, pose, write


def _inertial(m, xyz, i):
    return (f'<inertial><origin xyz="{xyz}"/><mass value="{m}"/>'
            f'<inertia ixx="{i[0]}" iyy="{i[1]}" izz="{i[2]}" ixy="0" ixz="0" iyz="0"/></inertial>')


def _link(name, m, xyz, i, size):
    return (f'<link name="{name}">{_inertial(m, xyz, i)}'
            f'<collision><geometry><box size="{size}"/></geometry></collision></link>')


def _hinge(name, parent, child, xyz, axis, lo, hi, effort, rpy="0 0 0"):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'<limit lower="{lo}" upper="{hi}" effort="{effort}" velocity="2.6"/><dynamics damping="10"/></joint>')


def _finger(name, side):
    return (f'<joint name="{name}" type="prismatic"><parent link="hand"/><child link="{side}finger"/>'
            f'<origin xyz="0 0 0.0584"/><axis xyz="0 {1 if side == "left" else -1} 0"/>'
            '<limit lower="0" upper="0.04" effort="20" velocity="0.2"/><dynamics damping="10"/></joint>')


SEG = "0.06 0.06 0.1"
ARM_URDF = "\n".join([
    '<robot name="arm">',
    _link("link0", 3.0, "0 0 0.07", (0.01, 0.01, 0.01), "0.12 0.12 0.14"),
    _link("link1", 3.0, "0 -0.03 -0.07", (0.02, 0.02, 0.008), SEG),
    _link("link2", 3.0, "0 0.03 0.07", (0.02, 0.02, 0.008), SEG),
    _link("link3", 2.3, "0.04 0.02 -0.03", (0.01, 0.01, 0.005), SEG),
    _link("link4", 2.4, "-0.04 0.04 0.06", (0.01, 0.01, 0.005), SEG),
    _link("link5", 3.4, "0 0.04 -0.1", (0.03, 0.03, 0.005), SEG),
    _link("link6", 1.4, "0.06 0.01 0", (0.004, 0.004, 0.004), "0.06 0.06 0.06"),
    _link("link7", 0.45, "0 0 0.05", (0.001, 0.001, 0.001), "0.05 0.05 0.05"),
    _link("hand", 0.7, "0 0 0.03", (0.002, 0.001, 0.002), "0.05 0.18 0.06"),
    _link("leftfinger", 0.015, "0 0.01 0.02", (2e-6, 2e-6, 1e-6), "0.02 0.01 0.04"),
    _link("rightfinger", 0.015, "0 -0.01 0.02", (2e-6, 2e-6, 1e-6), "0.02 0.01 0.04"),
    _hinge("joint1", "link0", "link1", "0 0 0.333", "0 0 1", -2.9, 2.9, 300),
    _hinge("joint2", "link1", "link2", "0 0 0", "0 1 0", -1.76, 1.76, 300),
    _hinge("joint3", "link2", "link3", "0 0 0.316", "0 0 1", -2.9, 2.9, 300),
    _hinge("joint4", "link3", "link4", "0.0825 0 0", "0 -1 0", -3.07, -0.07, 300),
    _hinge("joint5", "link4", "link5", "-0.0825 0 0.384", "0 0 1", -2.9, 2.9, 12),
    _hinge("joint6", "link5", "link6", "0 0 0", "0 -1 0", -0.0175, 3.75, 12),
    _hinge("joint7", "link6", "link7", "0.088 0 0", "0 0 1", -2.9, 2.9, 12, rpy="3.14159 0 0"),
    '<joint name="hand_joint" type="fixed"><parent link="link7"/><child link="hand"/>'
    '<origin xyz="0 0 0.107" rpy="0 0 -0.785"/></joint>',
    _finger("finger_joint1", "left"), _finger("finger_joint2", "right"),
    '</robot>'])

Q0 = np.array([0, -0.3, 0, -2.2, 0, 2.0, 0.78, 0.02, 0.02], np.float32)
STEP_FRAME, STEP = 60, 0.3          # env 1: joint4's target steps by STEP at STEP_FRAME


def _run_arm(gym, tmp_path, engine, frames):
    """Two arms on their targets under gravity (stiffness 400, damping 40; fingers 800, 40) for
    `frames` frames of 1/60 s; arm 1's joint4 target steps at STEP_FRAME. -> (hand positions
    (frames, 2, 3), final DOF positions (2, 9))."""
    write(tmp_path, "arm.urdf", ARM_URDF)
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0, 0, -9.81)
    p.dt, p.substeps = 1 / 60, 8
    p.flex.num_outer_iterations = 8
    sim = gym.create_sim(0, -1, {"flex": gymapi.SIM_FLEX, "physx": gymapi.SIM_PHYSX}[engine], p)
    plane = gymapi.PlaneParams()
    plane.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, plane)
    asset = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(fix_base_link=True, armature=0.01))
    envs = []
    for _ in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, asset, pose(), "arm", 0, 1)
        props = gym.get_actor_dof_properties(env, 0)
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:7], props["damping"][:7] = 400.0, 40.0
        props["stiffness"][7:], props["damping"][7:] = 800.0, 40.0
        gym.set_actor_dof_properties(env, 0, props)
        st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        st["pos"] = Q0
        gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
        gym.set_actor_dof_position_targets(env, 0, Q0)
        envs.append(env)
    hand = gym.find_asset_rigid_body_index(asset, "hand")
    out = []
    for f in range(frames):
        if f == STEP_FRAME:
            q1 = Q0.copy()
            q1[3] += STEP
            gym.set_actor_dof_position_targets(envs[1], 0, q1)
        gym.simulate(sim)
        out.append([[float(gym.get_actor_rigid_body_states(e, 0, gymapi.STATE_POS)["pose"]["p"][hand][k])
                     for k in "xyz"] for e in envs])
    q = np.array([gym.get_actor_dof_states(e, 0, gymapi.STATE_POS)["pos"] for e in envs])
    return np.array(out), q


@pytest.mark.slow      # ~40 s: 1200 XPBD frames at 8 substeps and MuJoCo's reference run
def test_flex_arm_holds_its_targets_under_gravity_and_settles_after_a_step(gym, tmp_path):
    frames = 600
    ref, q_ref = _run_arm(gym, tmp_path, "physx", frames)       # MuJoCo: the PD law exactly
    got, q = _run_arm(gym, tmp_path, "flex", frames)
    assert np.isfinite(got).all()
    # held: the hand's sag under gravity is MuJoCo's (54 mm here; XPBD's own drive sagged 102 mm),
    # and over the last 300 frames it moves less than 1 mm
    sag = got[-1, 0] - got[0, 0]
    assert np.linalg.norm(ref[-1, 0] - ref[0, 0]) > 0.04                # (a real load on the drives)
    assert np.linalg.norm(got[-1, 0] - ref[-1, 0]) < 0.005, sag
    assert np.ptp(got[-300:, 0], axis=0).max() < 0.001
    np.testing.assert_allclose(q[0, :7], q_ref[0, :7], atol=0.012)
    # the step: settled 2.5 s after it (within 1 mm of where it ends), where MuJoCo ends
    after = got[STEP_FRAME + 150:, 1]
    assert np.linalg.norm(after - got[-1, 1], axis=1).max() < 0.001
    assert np.linalg.norm(got[-1, 1] - ref[-1, 1]) < 0.005
    assert q[1, 3] == pytest.approx(q_ref[1, 3], abs=0.01)
    assert q[1, 3] - q[0, 3] == pytest.approx(STEP, abs=0.01)


def test_flex_welded_base_stays_put(gym, tmp_path):
    """A fixed base is immovable on XPBD (a Newton kinematic body), as in PhysX: a hinge driven
    by an effort does not shake it, and it takes no contact from the ground it stands in."""
    write(tmp_path, "hinge.urdf", """<robot name="h">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="arm"><inertial><origin xyz="0.25 0 0"/><mass value="1"/>\
<inertia ixx="1e-3" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="base"/>\
<child link="arm"/><origin xyz="0 0 0.3"/><axis xyz="0 0 1"/></joint>
</robot>""")
    sim = make_sim(gym, "flex", dt=1 / 240)
    asset = gym.load_asset(sim, str(tmp_path), "hinge.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=0.05), "h", 0, 0)      # the base's box reaches 5 cm into the ground
    props = gym.get_actor_dof_properties(env, 0)
    props["driveMode"][0] = gymapi.DOF_MODE_EFFORT
    gym.set_actor_dof_properties(env, 0, props)
    spin = 0.0
    for f in range(120):
        gym.apply_actor_dof_efforts(env, 0, np.array([2.0 if f < 60 else -2.0], np.float32))
        gym.simulate(sim)
        s = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)[0]
        assert ((s["pose"]["p"]["x"], s["pose"]["p"]["y"], s["pose"]["p"]["z"])
                == (0.0, 0.0, pytest.approx(0.05, abs=1e-7)))
        assert s["vel"]["angular"]["z"] == 0.0 and s["vel"]["linear"]["z"] == 0.0
        spin = max(spin, abs(float(gym.get_actor_dof_states(env, 0, gymapi.STATE_VEL)["vel"][0])))
    assert spin > 5.0          # the arm did spin (2 N m for 0.25 s on 0.0725 kg m^2: 6.9 rad/s)


def test_flex_pole_drive_is_stable_at_every_stiffness(gym):
    """A cart-pole's pole (hinge on a cart that slides on a welded rail) on position targets at
    2 substeps of 1/120 s: XPBD spins a body about its centre of mass, so an explicit drive force
    is stable only for stiffness well under what the moment about the hinge suggests (it diverged
    from stiffness 50 here when the bound was that moment). Every stiffness holds the pole on its
    target, the explicit ones and the stiffer ones left to XPBD's compliant drive alike."""
    stiffness = [20.0, 40.0, 60.0, 100.0, 200.0, 1000.0]
    sim = make_sim(gym, "flex", ground=False, dt=1 / 60, substeps=2)
    asset = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", options(fix_base_link=True))
    envs = []
    for k in stiffness:
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 4)
        gym.create_actor(env, asset, pose(z=1.5), "cartpole", 0, 1)
        props = gym.get_actor_dof_properties(env, 0)
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:] = (100.0, k)
        props["damping"][:] = (20.0, 10.0)
        gym.set_actor_dof_properties(env, 0, props)
        gym.set_actor_dof_position_targets(env, 0, np.array([0.0, 0.3], np.float32))
        envs.append(env)
    for _ in range(150):
        gym.simulate(sim)
    pole = np.array([gym.get_actor_dof_states(e, 0, gymapi.STATE_ALL)[1] for e in envs])
    # gravity's 0.15 N m at 0.3 rad leaves 0.007 rad at stiffness 20
    np.testing.assert_allclose(pole["pos"], 0.3, atol=0.02)
    np.testing.assert_allclose(pole["vel"], 0.0, atol=0.05)


def _arm_response(gym, tmp_path, engine, dof, tau=1.0):
    """Joint velocities of the arm (gravity off, at Q0) after one 1/100 s frame with `tau` on
    DOF `dof` and no other force."""
    write(tmp_path, "arm.urdf", ARM_URDF)
    sim = make_sim(gym, engine, ground=False, dt=0.01, substeps=2, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(fix_base_link=True, armature=0.01))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(), "arm", 0, 1)
    props = gym.get_actor_dof_properties(env, 0)
    props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    props["stiffness"][:] = props["damping"][:] = 0.0
    gym.set_actor_dof_properties(env, 0, props)
    st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    st["pos"] = Q0
    gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
    efforts = np.zeros(len(Q0), np.float32)
    efforts[dof] = tau
    gym.apply_actor_dof_efforts(env, 0, efforts)
    gym.simulate(sim)
    return gym.get_actor_dof_states(env, 0, gymapi.STATE_VEL)["vel"].copy()


@pytest.mark.parametrize("dof", [0, 2, 5])
def test_flex_effort_moves_the_chain_as_its_joint_space_inertia_says(gym, tmp_path, dof):
    """An effort on SIM_FLEX accelerates the arm as its joint-space inertia (with armature)
    says, as MuJoCo does on SIM_PHYSX: XPBD on its own turned it into a torque on the child link
    alone, and joint 3 of a Franka moved 63x faster than it should (an impedance controller's
    torques then diverged in 30 frames)."""
    ref = _arm_response(gym, tmp_path, "physx", dof)
    got = _arm_response(gym, tmp_path, "flex", dof)
    assert abs(ref[dof]) > 1e-3
    np.testing.assert_allclose(got, ref, rtol=0.05, atol=0.02 * abs(ref[dof]))


def test_flex_efforts_keep_a_floating_robots_momentum(gym, tmp_path):
    """Efforts are internal forces: a free-floating arm whose joints are driven by efforts in
    zero gravity keeps its centre of mass where it was (to within what XPBD's position
    corrections leave)."""
    write(tmp_path, "arm.urdf", ARM_URDF)
    sim = make_sim(gym, "flex", ground=False, dt=1 / 60, substeps=4, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(armature=0.01))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=1.0), "arm", 0, 1)
    props = gym.get_actor_dof_properties(env, 0)
    props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    props["stiffness"][:] = props["damping"][:] = 0.0
    gym.set_actor_dof_properties(env, 0, props)
    body_props = gym.get_actor_rigid_body_properties(env, 0)
    masses = np.array([p.mass for p in body_props])
    local = np.array([[p.com.x, p.com.y, p.com.z] for p in body_props])

    def com():
        pose_ = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]
        p, q = pose_["p"], pose_["r"]
        x = np.stack([p["x"], p["y"], p["z"]], 1)
        w, v = q["w"][:, None], np.stack([q["x"], q["y"], q["z"]], 1)
        t = 2.0 * np.cross(v, local)                       # the body-frame COM rotated to the world
        return (masses[:, None] * (x + local + w * t + np.cross(v, t))).sum(0) / masses.sum()

    c0 = com()
    moved = 0.0
    for f in range(60):
        gym.apply_actor_dof_efforts(env, 0, np.array([2, -3, 2, 3, 1, -1, 0.5, 0, 0], np.float32))
        gym.simulate(sim)
        moved = max(moved, float(np.abs(gym.get_actor_dof_states(env, 0, gymapi.STATE_VEL)["vel"]).max()))
    assert moved > 1.0                                   # the joints did move
    assert np.linalg.norm(com() - c0) < 0.002      # (0.4 mm at 27 rad/s)
