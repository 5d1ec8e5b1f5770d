"""Handle-API state get/set and the three index domains (ACTOR -> ENV -> SIM)."""

import numpy as np
import pytest

from conftest import PENDULUM_URDF, make_sim, options, pose, write
from gymlike import gymapi
from gymlike.core.errors import GymlikeError, GymlikeRuntimeError

TWO_LINK = """\
<robot name="arm2">
  <link name="base"><inertial><mass value="2"/>\
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
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
</robot>
"""


@pytest.fixture
def scene(gym, tmp_path):
    """3 envs x [fixed-base 2-link arm, free box, free 2-link arm]: mixed assets, several actors."""
    write(tmp_path, "arm2.urdf", TWO_LINK)
    sim = make_sim(gym, "physx", dt=1 / 240, substeps=1)
    arm_fixed = gym.load_asset(sim, str(tmp_path), "arm2.urdf", options(fix_base_link=True))
    arm_free = gym.load_asset(sim, str(tmp_path), "arm2.urdf", options())
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = []
    for i in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, arm_fixed, pose(0, 0, 0.05), "arm", i, 1)
        gym.create_actor(env, box, pose(0.7, 0, 0.05), "box", i, 0)
        gym.create_actor(env, arm_free, pose(-0.7, 0, 0.5), "free_arm", i, 1)
        envs.append(env)
    return sim, envs


def test_counts_and_names(gym, scene):
    sim, envs = scene
    env = envs[0]
    assert gym.get_actor_count(env) == 3
    assert gym.get_sim_actor_count(sim) == 9
    assert gym.get_env_rigid_body_count(env) == 3 + 1 + 3
    assert gym.get_env_dof_count(env) == 2 + 0 + 2   # the free root of free_arm is not a DOF
    assert gym.get_sim_rigid_body_count(sim) == 21
    assert gym.get_sim_dof_count(sim) == 12
    assert gym.get_actor_rigid_body_names(env, 0) == ["base", "upper", "lower"]
    assert gym.get_actor_dof_names(env, 2) == ["shoulder", "elbow"]
    assert gym.get_actor_joint_names(env, 0) == ["shoulder", "elbow"]
    assert gym.get_actor_dof_dict(env, 0) == {"shoulder": 0, "elbow": 1}
    assert gym.find_actor_handle(env, "box") == 1
    assert gym.find_actor_handle(env, "nope") == gymapi.INVALID_HANDLE
    assert gym.get_actor_name(env, 2) == "free_arm"
    assert gym.find_actor_rigid_body_handle(env, 2, "lower") == 3 + 1 + 2
    assert gym.get_rigid_name(env, 6) == "lower"
    assert gym.get_dof_type_string(gym.get_asset_dof_type(gym.get_actor_asset(env, 0), 0)) == "Rotation"


def test_domain_translation_agrees_with_state_arrays(gym, scene):
    sim, envs = scene
    for _ in range(5):
        gym.simulate(sim)
    sim_states = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL)
    for e, env in enumerate(envs):
        env_states = gym.get_env_rigid_body_states(env, gymapi.STATE_ALL)
        for a in range(gym.get_actor_count(env)):
            actor_states = gym.get_actor_rigid_body_states(env, a, gymapi.STATE_ALL)
            for b in range(gym.get_actor_rigid_body_count(env, a)):
                ie = gym.get_actor_rigid_body_index(env, a, b, gymapi.DOMAIN_ENV)
                isim = gym.get_actor_rigid_body_index(env, a, b, gymapi.DOMAIN_SIM)
                assert gym.get_actor_rigid_body_index(env, a, b, gymapi.DOMAIN_ACTOR) == b
                assert env_states[ie] == actor_states[b]
                p_sim = sim_states[isim]["pose"]["p"]
                p_env = env_states[ie]["pose"]["p"]
                # sim-level states are in each env's frame too (as the tensors)
                assert (p_sim["x"], p_sim["y"], p_sim["z"]) == \
                    pytest.approx((p_env["x"], p_env["y"], p_env["z"]), abs=1e-5)
            name = gym.get_actor_rigid_body_names(env, a)[-1]
            assert gym.find_actor_rigid_body_index(env, a, name, gymapi.DOMAIN_SIM) == \
                gym.get_actor_rigid_body_index(env, a, gym.get_actor_rigid_body_count(env, a) - 1, gymapi.DOMAIN_SIM)
            assert gym.get_actor_index(env, a, gymapi.DOMAIN_SIM) == 3 * e + a
        # DOF domains: env DOF k of the last actor is sim DOF 4*e + k
        for d in range(gym.get_actor_dof_count(env, 2)):
            assert gym.get_actor_dof_index(env, 2, d, gymapi.DOMAIN_ENV) == 2 + d
            assert gym.get_actor_dof_index(env, 2, d, gymapi.DOMAIN_SIM) == 4 * e + 2 + d
            assert gym.find_actor_dof_index(env, 2, ["shoulder", "elbow"][d], gymapi.DOMAIN_SIM) == 4 * e + 2 + d


def test_dof_state_round_trip_and_fk(gym, scene):
    sim, envs = scene
    env = envs[1]
    ds = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    ds["pos"] = [0.5, -0.7]
    ds["vel"] = [0.1, 0.2]
    gym.set_actor_dof_states(env, 0, ds, gymapi.STATE_ALL)
    back = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    np.testing.assert_allclose(back["pos"], [0.5, -0.7], atol=1e-6)
    np.testing.assert_allclose(back["vel"], [0.1, 0.2], atol=1e-6)
    # the link poses follow the joint angles (forward kinematics), in the env frame
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)
    elbow = np.array([0, 0, 0.05 + 0.05]) + 0.5 * np.array([np.sin(0.5), 0, np.cos(0.5)])
    p = st[2]["pose"]["p"]
    assert (p["x"], p["y"], p["z"]) == pytest.approx(tuple(elbow), abs=1e-5)
    # other envs untouched
    other = gym.get_actor_dof_states(envs[0], 0, gymapi.STATE_ALL)
    np.testing.assert_allclose(other["pos"], 0, atol=1e-6)


def test_root_teleport_and_continue(gym, scene):
    sim, envs = scene
    env = envs[2]
    st = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_ALL)
    st["pose"]["p"] = (0.3, 0.4, 2.0)
    st["vel"]["linear"] = (1.0, 0.0, 0.0)
    gym.set_actor_rigid_body_states(env, 1, st, gymapi.STATE_ALL)
    back = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_ALL)[0]
    assert tuple(back["pose"]["p"].tolist()) == pytest.approx((0.3, 0.4, 2.0), abs=1e-6)
    gym.simulate(sim)
    after = gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_ALL)[0]
    dt = 1 / 240
    assert after["pose"]["p"]["x"] == pytest.approx(0.3 + dt, abs=1e-5)
    assert after["pose"]["p"]["z"] == pytest.approx(2.0 - 9.81 * dt * dt, abs=1e-5)
    # the box in the other envs did not move
    other = gym.get_actor_rigid_body_states(envs[0], 1, gymapi.STATE_POS)[0]
    assert other["pose"]["p"]["z"] < 0.2


def test_floating_articulation_root_moves_with_links(gym, scene):
    sim, envs = scene
    env = envs[0]
    st = gym.get_actor_rigid_body_states(env, 2, gymapi.STATE_ALL)
    delta = np.array([0.0, 0.5, 1.0], np.float32)
    for k in range(3):
        p = st[k]["pose"]["p"]
        st[k]["pose"]["p"] = (p["x"] + delta[0], p["y"] + delta[1], p["z"] + delta[2])
    dof_before = gym.get_actor_dof_states(env, 2, gymapi.STATE_POS)["pos"].copy()
    gym.set_actor_rigid_body_states(env, 2, st, gymapi.STATE_POS)
    back = gym.get_actor_rigid_body_states(env, 2, gymapi.STATE_POS)
    np.testing.assert_allclose(back.view(np.float32).reshape(-1, 13)[:, :3],
                               st.view(np.float32).reshape(-1, 13)[:, :3], atol=1e-5)
    np.testing.assert_allclose(gym.get_actor_dof_states(env, 2, gymapi.STATE_POS)["pos"], dof_before, atol=1e-5)


def test_fixed_base_root_pose_can_be_set(gym, scene):
    sim, envs = scene
    env = envs[1]
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)
    st[0]["pose"]["p"] = (0.0, 1.0, 0.05)
    st[1]["pose"]["p"]["y"] += 1.0
    st[2]["pose"]["p"]["y"] += 1.0
    gym.set_actor_rigid_body_states(env, 0, st, gymapi.STATE_POS)
    for _ in range(3):
        gym.simulate(sim)
    base = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]
    assert (base["x"], base["y"], base["z"]) == pytest.approx((0.0, 1.0, 0.05), abs=1e-4)


def test_sim_state_save_restore(gym, scene):
    sim, envs = scene
    saved = np.copy(gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL))
    for _ in range(60):
        gym.simulate(sim)
    moved = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL)
    assert not np.allclose(moved.view(np.float32), saved.view(np.float32), atol=1e-3)
    gym.set_sim_rigid_body_states(sim, saved, gymapi.STATE_ALL)
    np.testing.assert_allclose(gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL).view(np.float32),
                               saved.view(np.float32), atol=1e-5)


def test_state_set_before_finalize_applies(gym, tmp_path):
    write(tmp_path, "pendulum.urdf", PENDULUM_URDF.format(L=1.0))
    sim = make_sim(gym, "physx", ground=False)
    asset = gym.load_asset(sim, str(tmp_path), "pendulum.urdf", options(fix_base_link=True))
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        h = gym.create_actor(env, asset, pose(z=2), "p", i, 0)
        ds = gym.get_actor_dof_states(env, h, gymapi.STATE_ALL)
        ds["pos"][0] = 0.1 * (i + 1)
        gym.set_actor_dof_states(env, h, ds, gymapi.STATE_ALL)   # the Isaac Gym creation-loop idiom
        envs.append(env)
    gym.prepare_sim(sim)
    for i, env in enumerate(envs):
        assert gym.get_actor_dof_states(env, 0, gymapi.STATE_POS)["pos"][0] == pytest.approx(0.1 * (i + 1))


def test_bad_state_input_is_rejected_and_changes_nothing(gym, scene):
    sim, envs = scene
    env = envs[0]
    before = gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL).copy()
    with pytest.raises(ValueError, match="expected 3 element"):
        gym.set_actor_rigid_body_states(env, 0, np.zeros(2, gymapi.RigidBodyState.dtype), gymapi.STATE_ALL)
    with pytest.raises(TypeError, match="dtype"):
        gym.set_actor_dof_states(env, 0, np.zeros(2, np.float32), gymapi.STATE_ALL)
    with pytest.raises(IndexError, match="out of range"):
        gym.get_actor_dof_states(env, 7, gymapi.STATE_ALL)
    with pytest.raises(ValueError, match="NaN"):
        bad = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        bad["pos"][1] = np.nan
        gym.set_actor_dof_states(env, 0, bad, gymapi.STATE_ALL)
    with pytest.raises(ValueError, match="flags"):
        gym.get_actor_rigid_body_states(env, 0, 7)
    with pytest.raises(GymlikeError):
        gym.get_actor_rigid_body_index(env, 0, 3, gymapi.DOMAIN_SIM)
    np.testing.assert_array_equal(gym.get_sim_rigid_body_states(sim, gymapi.STATE_ALL), before)


def test_creation_after_finalize_is_an_error(gym, scene):
    sim, envs = scene
    gym.prepare_sim(sim)
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    with pytest.raises(GymlikeRuntimeError, match="already finalized"):
        gym.create_actor(envs[0], box, pose(), "late", 0, 0)
    with pytest.raises(RuntimeError, match="already finalized"):
        gym.create_env(sim, gymapi.Vec3(), gymapi.Vec3(1, 1, 1), 1)
    assert gym.get_actor_count(envs[0]) == 3


def test_handles_from_another_sim_are_rejected(gym, scene):
    sim, envs = scene
    other = make_sim(gym, "physx")
    box = gym.create_box(other, 0.1, 0.1, 0.1, options())
    with pytest.raises(ValueError, match="another sim"):
        gym.create_actor(envs[0], box, pose(), "x", 0, 0)
    with pytest.raises(TypeError, match="Env handle"):
        gym.get_actor_count(sim)
    gym.destroy_sim(other)
    with pytest.raises(RuntimeError, match="destroyed"):
        gym.simulate(other)


def test_single_body_getters_setters_and_vec_reads_in_env_frames(gym, scene):
    """get/set_rigid_transform, get/set_rigid_linear/angular_velocity, the get_vec_* reads and
    the joint/DOF frame getters, on envs spaced 4 m apart: every value is in its env's frame."""
    sim, envs = scene
    gym.prepare_sim(sim)
    box = 3                                  # env-domain body handle: arm_fixed has 3 bodies
    for k, env in enumerate(envs):
        gym.set_rigid_transform(env, box, gymapi.Transform(gymapi.Vec3(0.5, 0.1 * k, 0.8), gymapi.Quat(0, 0, 0, 1)))
        gym.set_rigid_linear_velocity(env, box, gymapi.Vec3(0.0, 0.0, 1.0 + k))
        gym.set_rigid_angular_velocity(env, box, gymapi.Vec3(0.0, 0.3, 0.0))
    for k, env in enumerate(envs):
        t = gym.get_rigid_transform(env, box)
        assert (t.p.x, t.p.y, t.p.z) == pytest.approx((0.5, 0.1 * k, 0.8), abs=1e-5)
        assert gym.get_rigid_linear_velocity(env, box).z == pytest.approx(1.0 + k, abs=1e-5)
        assert gym.get_rigid_angular_velocity(env, box).y == pytest.approx(0.3, abs=1e-5)
        # the world position is the env origin plus the env-frame one
        world = gym.get_env_origin(env).x + t.p.x
        assert world == pytest.approx(gym.get_env_origin(env).x + 0.5)
    vec = gym.get_vec_rigid_transform(envs, box)
    np.testing.assert_allclose(vec["p"]["y"], [0.0, 0.1, 0.2], atol=1e-5)
    lin = gym.get_vec_rigid_linear_velocity(envs, [box] * 3)
    np.testing.assert_allclose(lin["z"], [1.0, 2.0, 3.0], atol=1e-5)
    # DOF states of the fixed arm across envs, concatenated in env order
    for k, env in enumerate(envs):
        st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        st["pos"] = [0.1 * (k + 1), -0.2]
        gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
    both = gym.get_vec_actor_dof_states(envs, 0, gymapi.STATE_POS)
    np.testing.assert_allclose(both["pos"], [0.1, -0.2, 0.2, -0.2, 0.3, -0.2], atol=1e-6)
    with pytest.raises(ValueError, match="get_vec_actor_dof_states: 3 envs but 2 handles"):
        gym.get_vec_actor_dof_states(envs, [0, 0], gymapi.STATE_POS)
    # joint frame of the elbow (env-domain joint 1) and its DOF frame agree, in the env frame
    jt = gym.get_joint_transform(envs[1], 1)
    df = gym.get_dof_frame(envs[1], 1)
    assert (jt.p.x, jt.p.y, jt.p.z) == pytest.approx((df.origin.x, df.origin.y, df.origin.z), abs=1e-5)
    assert abs(jt.p.x) < 1.0                 # env frame, not world (the envs are 4 m apart)
    assert (df.axis.x, df.axis.y, df.axis.z) == pytest.approx((0.0, 1.0, 0.0), abs=1e-5)


def test_aggregates_are_validated_and_recorded(gym, tmp_path):
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    with pytest.raises(ValueError, match="end_aggregate: env 0 has no open aggregate"):
        gym.end_aggregate(env)
    with pytest.raises(ValueError, match="begin_aggregate: max_bodies must be a non-negative int"):
        gym.begin_aggregate(env, -1, 4, True)
    assert gym.begin_aggregate(env, 1, 1, True)
    with pytest.raises(ValueError, match="already has an open aggregate"):
        gym.begin_aggregate(env, 1, 1, True)
    gym.create_actor(env, box, pose(0, 0, 0.5), "a", 0, 0)
    gym.create_actor(env, box, pose(0.3, 0, 0.5), "b", 0, 0)
    with pytest.warns(RuntimeWarning,
                      match="aggregate holds 2 bodies / 2 shapes, more than the declared maximum 1 / 1"):
        assert gym.end_aggregate(env)
    gym.prepare_sim(sim)
    gym.simulate(sim)
    assert gym.get_actor_count(env) == 2


def test_debug_print_asset_lists_bodies_joints_and_dofs(gym, tmp_path, capsys):
    write(tmp_path, "arm2.urdf", TWO_LINK)
    sim = make_sim(gym, "physx")
    asset = gym.load_asset(sim, str(tmp_path), "arm2.urdf", options(fix_base_link=True))
    gym.debug_print_asset(asset)
    printed = capsys.readouterr().out
    out = tmp_path / "arm2.txt"
    gym.debug_print_asset(asset, str(out))
    assert out.read_text().strip() == printed.strip()
    assert "1: upper" in printed and "1: elbow (JOINT_REVOLUTE)" in printed and "0: shoulder (DOF_ROTATION)" in printed
