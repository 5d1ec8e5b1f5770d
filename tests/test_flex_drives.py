"""SIM_FLEX (Newton's XPBD) articulations against what PhysX does: a base welded to the world
stays put."""

import numpy as np
import pytest

from gymlike import gymapi

from conftest import make_sim, options, pose, write


def test_flex_welded_base_stays_put(gym, tmp_path):
    """A fixed base is immovable on XPBD (a Newton kinematic body), as in PhysX: a hinge driven
    by an effort does not shake it, and it takes no contact from the ground it stands in."""
    write(tmp_path, "hinge.urdf", """<robot name="h">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="arm"><inertial><origin xyz="0.25 0 0"/><mass value="1"/><inertia ixx="1e-3" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.3"/><axis xyz="0 0 1"/></joint>
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
        assert (s["pose"]["p"]["x"], s["pose"]["p"]["y"], s["pose"]["p"]["z"]) == (0.0, 0.0, pytest.approx(0.05, abs=1e-7))
        assert s["vel"]["angular"]["z"] == 0.0 and s["vel"]["linear"]["z"] == 0.0
        spin = max(spin, abs(float(gym.get_actor_dof_states(env, 0, gymapi.STATE_VEL)["vel"][0])))
    assert spin > 5.0          # the arm did spin (2 N m for 0.25 s on 0.0725 kg m^2: 6.9 rad/s)
