"""Tensor API, forces and dynamics: net contact forces, DOF forces, Jacobians and mass matrices
(against finite differences, kinetic energy and MuJoCo's C library as an independent oracle)."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, make_sim, options, pose
from gymlike import gymapi, gymtorch

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

G = 9.81
ARM_Q = np.array([0.3, 0.6, -0.2, -1.2, 0.4, 1.0, 0.2, 0.02, 0.03], np.float32)


def _arm_sim(gym, engine, n_envs=2, pd=False, gravity=-G, stiffness=2000.0, **kw):
    sim = make_sim(gym, engine, ground=False, gravity=gravity, **kw)
    arm = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf", options(fix_base_link=True))
    envs = []
    for i in range(n_envs):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 2), 2)
        a = gym.create_actor(env, arm, pose(), "arm", i, 0)
        if pd:
            dp = gym.get_actor_dof_properties(env, a)
            dp["driveMode"][:] = gymapi.DOF_MODE_POS
            dp["stiffness"][:] = stiffness
            dp["damping"][:] = 100.0
            gym.set_actor_dof_properties(env, a, dp)
            gym.set_actor_dof_position_targets(env, a, ARM_Q)
        st = np.zeros(9, gymapi.DofState.dtype)
        st["pos"] = ARM_Q
        gym.set_actor_dof_states(env, a, st, gymapi.STATE_ALL)
        envs.append(env)
    gym.prepare_sim(sim)
    return sim, envs


def _mujoco_arm():
    """MuJoCo's own URDF import of the same arm: the independent oracle."""
    import mujoco
    txt = open(f"{ASSETS}/urdf/arm7/arm7.urdf").read()
    txt = txt.replace('<robot name="arm7">', '<robot name="arm7"><mujoco><compiler fusestatic="false" '
                      'discardvisual="true" balanceinertia="false"/></mujoco>', 1)
    m = mujoco.MjModel.from_xml_string(txt)
    return mujoco, m, mujoco.MjData(m)


# ---------------------------------------------------------------------------- contact forces
@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_net_contact_force_resting_box_and_free_fall(gym, engine):
    sim = make_sim(gym, engine, dt=1 / 120, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=250.0))   # 2 kg
    envs = []
    for i, z in enumerate((0.1, 20.0)):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(z=z), "box", i, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    t = gym.acquire_net_contact_force_tensor(sim)
    f = gymtorch.wrap_tensor(t)
    assert tuple(f.shape) == (2, 3) and f.data_ptr() == t.data_ptr
    for _ in range(60):
        gym.simulate(sim)
    before = f.clone()
    assert torch.equal(f, before) and not f.any()          # stale until refresh
    gym.refresh_net_contact_force_tensor(sim)
    mg = 2.0 * G
    np.testing.assert_allclose(f[0].numpy(), [0, 0, mg], atol=0.02 * mg)
    assert f[1].abs().max() == 0.0                          # free fall: no contact at all
    # the handle API reads the same data
    hv = gym.get_env_rigid_contact_forces(envs[0])
    np.testing.assert_allclose([hv[0]["x"], hv[0]["y"], hv[0]["z"]], f[0].numpy(), atol=1e-5)
    allf = gym.get_rigid_contact_forces(sim).view(np.float32).reshape(-1, 3)
    np.testing.assert_allclose(allf, f.numpy(), atol=1e-5)
    vec = gym.get_vec_env_rigid_contact_forces(envs[::-1]).view(np.float32).reshape(-1, 3)
    np.testing.assert_allclose(vec, f.numpy()[::-1], atol=1e-5)
    # contact records: box (env body 0) against the ground (-1), normal forces sum to m g
    rc = gym.get_env_rigid_contacts(envs[0])
    assert len(rc) >= 4 and not len(gym.get_env_rigid_contacts(envs[1]))
    assert set(rc["env0"]) | set(rc["env1"]) == {-1, 0}
    assert set(rc["body0"]) | set(rc["body1"]) == {-1, 0}
    assert rc["lambda"].sum() == pytest.approx(mg, rel=0.02)
    assert (rc["friction"] > 0).all()
    assert len(gym.get_rigid_contacts(sim)) == len(rc)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_contact_pairs_list_the_body_of_the_larger_index_first(gym, engine):
    """Isaac Gym's pair order, which code trained on it relies on (hora's grasp generator counts
    (object, fingertip) pairs of a hand created before the object; contact drawing code takes
    body1 == -1 for the ground): body0 is the body of the larger index, static shapes are body1,
    the normal points from body0 to body1 and lambda is the normal force. A ball (env body 1)
    rests on a box (env body 0), the box on the ground; another ball (body 2) on the ground. On
    MuJoCo a sphere comes before a box in a pair, and a ground plane first."""
    sim = make_sim(gym, engine, dt=1 / 120, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=250.0))    # 2 kg
    ball = gym.create_sphere(sim, 0.05, options(density=1000.0))        # 0.52 kg
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.1), "box", 0, 0)
    gym.create_actor(env, ball, pose(z=0.25), "ball_on_box", 0, 0)
    gym.create_actor(env, ball, pose(x=0.5, z=0.05), "ball_on_ground", 0, 0)
    gym.prepare_sim(sim)
    gym.acquire_net_contact_force_tensor(sim)           # (contact forces from the first step)
    for _ in range(60):
        gym.simulate(sim)
    rc = gym.get_env_rigid_contacts(env)
    rc = rc[rc["lambda"] > 1e-6]          # (Flex also lists pairs within its contact offset)
    pairs = {(int(a), int(b)) for a, b in zip(rc["body0"], rc["body1"])}
    assert pairs == {(0, -1), (1, 0), (2, -1)}
    assert (rc["normal"]["z"] < -0.99).all()            # every body0 lies above its body1
    if engine == "physx":                 # (XPBD's contact forces are approximate)
        m_ball = 1000.0 * 4 / 3 * np.pi * 0.05 ** 3
        on = lambda a, b: rc["lambda"][(rc["body0"] == a) & (rc["body1"] == b)].sum()   # noqa: E731
        assert on(1, 0) == pytest.approx(m_ball * G, rel=0.03)
        assert on(2, -1) == pytest.approx(m_ball * G, rel=0.03)
        assert on(0, -1) == pytest.approx((2.0 + m_ball) * G, rel=0.03)
    gym.destroy_sim(sim)


# ---------------------------------------------------------------------------- DOF forces
@pytest.mark.slow
def test_dof_force_of_pd_held_arm_is_the_gravity_torque(gym):
    sim, envs = _arm_sim(gym, "physx", n_envs=2, pd=True, dt=1 / 240)
    t = gym.acquire_dof_force_tensor(sim)
    forces = gymtorch.wrap_tensor(t)
    assert tuple(forces.shape) == (18,)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    for _ in range(240):
        gym.simulate(sim)
    gym.refresh_dof_force_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    mujoco, m, d = _mujoco_arm()
    d.qpos[:] = dofs[0:9, 0].numpy()
    mujoco.mj_forward(m, d)                # at rest: the holding torque is the gravity torque
    tau = d.qfrc_bias.copy()
    big = np.abs(tau) > 1.0
    np.testing.assert_allclose(forces[0:9].numpy()[big], tau[big], rtol=0.01)
    np.testing.assert_allclose(forces[0:9].numpy(), tau, atol=0.02)
    np.testing.assert_allclose(gym.get_actor_dof_forces(envs[1], 0), forces[9:18].numpy(), atol=1e-5)
    assert gym.enable_actor_dof_force_sensors(envs[0], 0) is True


def test_dof_force_of_an_effort_accelerating_a_free_link(gym):
    """Zero gravity, no drive: the joint transmits exactly the applied effort (MuJoCo)."""
    sim, envs = _arm_sim(gym, "physx", n_envs=1, gravity=0.0, dt=1 / 240)
    dp = gym.get_actor_dof_properties(envs[0], 0)
    dp["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    dp["stiffness"][:] = dp["damping"][:] = 0.0
    gym.set_actor_dof_properties(envs[0], 0, dp)
    forces = gymtorch.wrap_tensor(gym.acquire_dof_force_tensor(sim))
    effort = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0])
    gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(effort))
    gym.simulate(sim)
    gym.refresh_dof_force_tensor(sim)
    np.testing.assert_allclose(forces.numpy(), effort.numpy(), atol=2e-3)
    gym.simulate(sim)                                 # efforts last one simulate
    gym.refresh_dof_force_tensor(sim)
    assert forces.abs().max() < 2e-3


def test_dof_force_flex_is_approximate(gym):
    """XPBD's incoming joint wrenches come from its position corrections: per-step values are
    noisy and low on average (documented); check the sign and the magnitude of the mean."""
    sim, envs = _arm_sim(gym, "flex", n_envs=1, pd=True, stiffness=20000.0, dt=1 / 240)
    forces = gymtorch.wrap_tensor(gym.acquire_dof_force_tensor(sim))
    for _ in range(60):
        gym.simulate(sim)
    acc = []
    for _ in range(240):
        gym.simulate(sim)
        gym.refresh_dof_force_tensor(sim)
        acc.append(forces[1].item())
    mujoco, m, d = _mujoco_arm()
    d.qpos[:] = gym.get_actor_dof_states(envs[0], 0, gymapi.STATE_POS)["pos"]
    mujoco.mj_forward(m, d)
    assert np.sign(np.mean(acc)) == np.sign(d.qfrc_bias[1])
    assert 0.2 < np.mean(acc) / d.qfrc_bias[1] < 1.5


# ---------------------------------------------------------------------------- Jacobians
@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_arm_jacobian_matches_finite_differences(gym, engine):
    sim, envs = _arm_sim(gym, engine, n_envs=2)
    jt = gym.acquire_jacobian_tensor(sim, "arm")
    J = gymtorch.wrap_tensor(jt)
    assert tuple(J.shape) == (2, 10, 6, 9)                # fixed base: 11 links - base, 9 DOFs
    dofs_t = gym.acquire_dof_state_tensor(sim)
    dofs = gymtorch.wrap_tensor(dofs_t)
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_jacobian_tensors(sim)
    gym.refresh_dof_state_tensor(sim)
    hand = gym.find_actor_rigid_body_index(envs[0], 0, "hand", gymapi.DOMAIN_ACTOR)
    props = gym.get_actor_rigid_body_properties(envs[0], 0)
    com = np.array([props[hand].com.x, props[hand].com.y, props[hand].com.z])

    def hand_com_pose():
        gym.refresh_rigid_body_state_tensor(sim)
        x = bodies[hand].numpy().astype(np.float64)       # env 0's hand
        from scipy.spatial.transform import Rotation as R
        r = R.from_quat(x[3:7])
        return x[0:3] + r.apply(com), r

    rng = np.random.default_rng(3)
    qd = rng.uniform(-1, 1, 9) * np.array([1, 1, 1, 1, 1, 1, 1, 0.05, 0.05])
    h = 1e-3
    q0 = dofs[:, 0].clone()
    p0, r0 = hand_com_pose()
    new = dofs.clone()
    new[0:9, 0] = q0[0:9] + torch.tensor(h * qd, dtype=torch.float32)
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(new))
    p1, r1 = hand_com_pose()
    v_fd = (p1 - p0) / h
    w_fd = (r1 * r0.inv()).as_rotvec() / h
    Jh = J[0, hand - 1].numpy().astype(np.float64)        # Isaac Gym idiom: link index - 1
    v = Jh @ qd
    assert np.linalg.norm(v_fd) > 0.2
    np.testing.assert_allclose(v[0:3], v_fd, atol=5e-3 * max(1.0, np.linalg.norm(v_fd)))
    np.testing.assert_allclose(v[3:6], w_fd, atol=5e-3 * max(1.0, np.linalg.norm(w_fd)))
    # env 1 (not moved) keeps its own Jacobian
    gym.refresh_jacobian_tensors(sim)
    assert not torch.allclose(J[0], J[1])


def test_arm_jacobian_and_mass_matrix_match_mujoco(gym):
    sim, envs = _arm_sim(gym, "physx", n_envs=1)
    J = gymtorch.wrap_tensor(gym.acquire_jacobian_tensor(sim, "arm"))
    M = gymtorch.wrap_tensor(gym.acquire_mass_matrix_tensor(sim, "arm"))
    assert tuple(M.shape) == (1, 9, 9)
    gym.refresh_jacobian_tensors(sim)
    gym.refresh_mass_matrix_tensors(sim)
    mujoco, m, d = _mujoco_arm()
    d.qpos[:] = ARM_Q
    mujoco.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    np.testing.assert_allclose(M[0].numpy(), full, atol=1e-4 * np.abs(full).max())
    names = gym.get_actor_rigid_body_names(envs[0], 0)
    for link in range(1, len(names)):
        b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, names[link])
        jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jac(m, d, jp, jr, d.xipos[b], b)          # at the link's COM
        np.testing.assert_allclose(J[0, link - 1, 0:3].numpy(), jp, atol=1e-4, err_msg=names[link])
        np.testing.assert_allclose(J[0, link - 1, 3:6].numpy(), jr, atol=1e-4, err_msg=names[link])


def _kinetic_energy(gym, sim, envs, actor, bodies):
    """0.5 sum(m v.v + w.I_w w) from the body state tensor and the body properties."""
    from scipy.spatial.transform import Rotation as R
    ke = 0.0
    n = gym.get_actor_rigid_body_count(envs[0], actor)
    props = gym.get_actor_rigid_body_properties(envs[0], actor)
    for k in range(n):
        ib = gym.get_actor_rigid_body_index(envs[0], actor, k, gymapi.DOMAIN_SIM)
        x = bodies[ib].numpy().astype(np.float64)
        p = props[k]
        I = np.array([[p.inertia.x.x, p.inertia.x.y, p.inertia.x.z], [p.inertia.y.x, p.inertia.y.y, p.inertia.y.z],
                      [p.inertia.z.x, p.inertia.z.y, p.inertia.z.z]])
        Rm = R.from_quat(x[3:7]).as_matrix()
        w = x[10:13]
        ke += 0.5 * p.mass * x[7:10] @ x[7:10] + 0.5 * w @ (Rm @ I @ Rm.T) @ w
    return ke


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_floating_base_jacobian_and_mass_matrix(gym, engine):
    """Ant (free root): shapes, J [root vel; qd] == body velocities, M SPD with 0.5 v'Mv == KE."""
    sim = make_sim(gym, engine, ground=False, gravity=0.0)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options(armature=0.0))
    cube = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, cube, pose(1, 0, 1), "cube", i, 0)
        gym.create_actor(env, ant, pose(0, 0, 1), "ant", i, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    J = gymtorch.wrap_tensor(gym.acquire_jacobian_tensor(sim, "ant"))
    M = gymtorch.wrap_tensor(gym.acquire_mass_matrix_tensor(sim, "ant"))
    assert tuple(J.shape) == (2, 9, 6, 14) and tuple(M.shape) == (2, 14, 14)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    rng = np.random.default_rng(7)
    new_root, new_dofs = root.clone(), dofs.clone()
    ant0 = gym.get_actor_index(envs[0], 1, gymapi.DOMAIN_SIM)
    new_root[ant0, 7:13] = torch.tensor(rng.uniform(-1, 1, 6), dtype=torch.float32)
    new_dofs[0:8, 0] = torch.tensor(rng.uniform(-0.3, 0.3, 8), dtype=torch.float32)
    new_dofs[0:8, 1] = torch.tensor(rng.uniform(-2, 2, 8), dtype=torch.float32)
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(new_dofs))
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(new_root))
    for fn in (gym.refresh_jacobian_tensors, gym.refresh_mass_matrix_tensors, gym.refresh_rigid_body_state_tensor,
               gym.refresh_actor_root_state_tensor, gym.refresh_dof_state_tensor):
        fn(sim)
    u = torch.cat([root[ant0, 7:13], dofs[0:8, 1]]).numpy().astype(np.float64)
    for k in range(9):
        ib = gym.get_actor_rigid_body_index(envs[0], 1, k, gymapi.DOMAIN_SIM)
        np.testing.assert_allclose(J[0, k].numpy() @ u, bodies[ib, 7:13].numpy(), atol=2e-4)
    np.testing.assert_allclose(J[0, 0, :, 0:6].numpy(), np.eye(6), atol=1e-6)   # root block
    Mk = M[0].numpy().astype(np.float64)
    np.testing.assert_allclose(Mk, Mk.T, atol=1e-6)
    assert np.linalg.eigvalsh(Mk).min() > 0
    armature = gym.get_actor_dof_properties(envs[0], 1)["armature"]   # the rotor inertia H includes
    ke = _kinetic_energy(gym, sim, envs, 1, bodies) + 0.5 * np.sum(armature * u[6:] ** 2)
    assert 0.5 * u @ Mk @ u == pytest.approx(ke, rel=1e-4)
    total = sum(p.mass for p in gym.get_actor_rigid_body_properties(envs[0], 1))
    np.testing.assert_allclose(np.diag(Mk)[0:3], total, rtol=1e-5)


def test_fixed_base_mass_matrix_kinetic_energy(gym):
    sim, envs = _arm_sim(gym, "physx", n_envs=1, gravity=0.0)
    M = gymtorch.wrap_tensor(gym.acquire_mass_matrix_tensor(sim, "arm"))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    new = dofs.clone()
    new[:, 1] = torch.tensor([0.5, -0.4, 0.3, 0.8, -0.6, 0.2, 1.0, 0.05, -0.05])
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(new))
    gym.refresh_mass_matrix_tensors(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    Mk = M[0].numpy().astype(np.float64)
    qd = new[:, 1].numpy().astype(np.float64)
    assert np.allclose(Mk, Mk.T, atol=1e-6) and np.linalg.eigvalsh(Mk).min() > 0
    assert 0.5 * qd @ Mk @ qd == pytest.approx(_kinetic_energy(gym, sim, envs, 0, bodies), rel=1e-4)


# ---------------------------------------------------------------------------- errors
def test_dynamics_tensor_errors(gym):
    sim = make_sim(gym, "physx")
    with pytest.raises(RuntimeError, match="no actors yet"):
        gym.acquire_jacobian_tensor(sim, "arm")
    with pytest.raises(RuntimeError, match="no actors yet"):
        gym.acquire_net_contact_force_tensor(sim)
    sim, envs = _arm_sim(gym, "physx", n_envs=1)
    with pytest.raises(ValueError, match="no actor named 'robot'.*'arm'"):
        gym.acquire_jacobian_tensor(sim, "robot")
    with pytest.raises(TypeError, match="name"):
        gym.acquire_mass_matrix_tensor(sim, 3)
    assert gym.acquire_jacobian_tensor(sim, "arm") is gym.acquire_jacobian_tensor(sim, "arm")


def test_force_and_torque_tensors_of_one_call_act_each_as_given(gym):
    """A force tensor and a torque tensor given in one call each act as given (the setter's
    inputs are staged per argument: one may not stand in for the other), and a second call
    in the same frame adds to the first: a 1 kg box in zero gravity with (2, 0, 0) N and
    (0, 0, 0.01) N m accelerates at 2 m/s^2 and spins up at 0.01 / I rad/s^2."""
    sim = make_sim(gym, ground=False, gravity=0.0, dt=1 / 100)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=125.0))        # 1 kg
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=1.0), "box", 0, 0)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    f = torch.tensor([[2.0, 0.0, 0.0]])
    t = torch.tensor([[0.0, 0.0, 0.01]])
    for _ in range(50):
        gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(f), gymtorch.unwrap_tensor(t),
                                           gymapi.GLOBAL_SPACE)
        gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(f), None, gymapi.GLOBAL_SPACE)
        gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    inertia = 1.0 * (0.2 ** 2 + 0.2 ** 2) / 12
    assert root[0, 7].item() == pytest.approx(4.0 * 0.5, rel=1e-3)         # (2 + 2) N for 0.5 s
    assert root[0, 8:10].abs().max().item() < 1e-6
    assert root[0, 12].item() == pytest.approx(0.01 / inertia * 0.5, rel=1e-3)
