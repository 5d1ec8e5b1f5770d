"""DOF drives and controls, measured: POS/VEL/EFFORT/NONE drive modes, efforts lasting one
simulate, position/velocity/effort limits, joint friction and armature, against the
analytic motion of a hinge of known inertia."""

import math

import numpy as np
import pytest
import torch

from conftest import ASSETS, make_sim, options, pose, sim_params, write
from gymlike import gymapi, gymtorch

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

DT = 1.0 / 240.0

# A blade spinning about the vertical z axis through its centre of mass: gravity exerts no
# torque, inertia about the hinge I = izz.
I_PROP = 0.02
PROP_URDF = """\
<robot name="prop">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="blade">
    <inertial><mass value="1"/><inertia ixx="1e-3" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.5 0.05 0.05"/></geometry></collision>
  </link>
  <joint name="hinge" type="{jtype}"><parent link="base"/><child link="blade"/><axis xyz="0 0 1"/>{extra}</joint>
</robot>
"""

# An arm whose centre of mass is 0.25 m off a vertical hinge: I = izz + m d^2.
I_ARM = 0.01 + 0.25 ** 2
ARM_URDF = """\
<robot name="arm">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm">
    <inertial><origin xyz="0.25 0 0"/><mass value="1"/>\
<inertia ixx="1e-3" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.05 0.05"/></geometry></collision>
  </link>
  <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 {axis_z}"/></joint>
</robot>
"""

# A pendulum swinging about a horizontal axis (gravity acts).
SWING_URDF = ARM_URDF.replace('<axis xyz="0 0 {axis_z}"/>', '<axis xyz="0 1 0"/>')


def _hinge_sim(gym, tmp_path, engine, n_envs=1, urdf=None, gravity=-9.81, **asset_kw):
    write(tmp_path, "hinge.urdf", urdf or PROP_URDF.format(jtype="continuous", extra=""))
    sim = make_sim(gym, engine, ground=False, dt=DT, substeps=1, gravity=gravity)
    asset = gym.load_asset(sim, str(tmp_path), "hinge.urdf", options(fix_base_link=True, **asset_kw))
    envs = []
    for _ in range(n_envs):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), n_envs)
        gym.create_actor(env, asset, pose(z=1.0), "hinge", 0, 0)
        envs.append(env)
    return sim, asset, envs


def _set(gym, env, **fields):
    p = gym.get_actor_dof_properties(env, 0)
    for k, v in fields.items():
        p[k][0] = v
    gym.set_actor_dof_properties(env, 0, p)


def _q(gym, env):
    s = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    return float(s["pos"][0]), float(s["vel"][0])


def _settle_time(t, q, target, tol):
    out = np.nonzero(np.abs(q - target) > tol)[0]
    return float(t[out[-1] + 1]) if len(out) else 0.0


def _analytic_settle(ke, kd, inertia, target, tol):
    """Last time the step response of I q'' + kd q' + ke q = ke target leaves the tolerance."""
    wn = math.sqrt(ke / inertia)
    z = kd / (2 * math.sqrt(ke * inertia))
    wd = wn * math.sqrt(1 - z * z)
    t = np.linspace(0, 5, 200001)
    q = target * (1 - np.exp(-z * wn * t) * (np.cos(wd * t) + z / math.sqrt(1 - z * z) * np.sin(wd * t)))
    return _settle_time(t, q, target, tol)


@pytest.mark.parametrize("engine", ["physx", pytest.param("flex", marks=pytest.mark.slow)])
def test_pos_mode_settles_on_target_and_stiffer_is_faster(gym, tmp_path, engine):
    target, zeta = 0.5, 0.7
    gains = [5.0, 20.0]
    sim, _, envs = _hinge_sim(gym, tmp_path, engine, n_envs=2)
    for env, ke in zip(envs, gains):
        _set(gym, env, driveMode=gymapi.DOF_MODE_POS, stiffness=ke, damping=2 * zeta * math.sqrt(ke * I_PROP))
        gym.set_actor_dof_position_targets(env, 0, np.array([target], np.float32))
    gym.prepare_sim(sim)
    q = []
    for _ in range(480):
        gym.simulate(sim)
        q.append([_q(gym, e)[0] for e in envs])
    q = np.array(q)
    t = np.arange(1, len(q) + 1) * DT
    settle = [_settle_time(t, q[:, k], target, 0.01 * target) for k in range(2)]
    for k in range(2):
        assert q[-1, k] == pytest.approx(target, rel=0.01)
        assert settle[k] < 1.9   # settled within 1% before the end
    assert settle[1] < settle[0]
    if engine == "physx":   # MuJoCo realises Isaac Gym's PD law: the analytic settle time
        for k, ke in enumerate(gains):
            expect = _analytic_settle(ke, 2 * zeta * math.sqrt(ke * I_PROP), I_PROP, target, 0.01 * target)
            assert settle[k] == pytest.approx(expect, rel=0.1)
        assert settle[0] / settle[1] == pytest.approx(2.0, rel=0.1)   # settle ~ 1/wn
    assert gym.get_actor_dof_position_targets(envs[0], 0)[0] == pytest.approx(target)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_vel_mode_reaches_target_velocity(gym, tmp_path, engine):
    kd, wt = 0.2, 2.0
    sim, _, (env,) = _hinge_sim(gym, tmp_path, engine)
    _set(gym, env, driveMode=gymapi.DOF_MODE_VEL, stiffness=0.0, damping=kd)    # (Isaac Gym's docs: stiffness 0)
    gym.set_actor_dof_velocity_targets(env, 0, np.array([wt], np.float32))
    w = []
    for _ in range(240):
        gym.simulate(sim)
        w.append(_q(gym, env)[1])
    assert w[-1] == pytest.approx(wt, rel=0.01)
    if engine == "physx":   # w(t) = wt (1 - exp(-kd t / I))
        t = 0.25
        assert w[int(t / DT) - 1] == pytest.approx(wt * (1 - math.exp(-kd * t / I_PROP)), rel=0.02)
    assert gym.get_actor_dof_velocity_targets(env, 0)[0] == pytest.approx(wt)
    assert gym.get_dof_target_velocity(env, 0) == pytest.approx(wt)


@pytest.mark.parametrize("engine", ["physx", pytest.param("flex", marks=pytest.mark.slow)])     # (flex: 8 s)
def test_drive_gains_act_in_every_drive_mode(gym, tmp_path, engine):
    """PhysX's joint drive acts whatever the drive mode: a DOF's stiffness and damping pull it
    toward its targets (zero unless set) under DOF_MODE_NONE and DOF_MODE_EFFORT too (Isaac
    Gym's examples zero both for effort control and for free joints), and a DOF_MODE_VEL drive
    with stiffness holds where the two terms balance, ke (0 - q) + kd (w* - 0) = 0. Zero gains
    leave the DOF free."""
    ke, kd, q0, wt = 2.0, 0.1, 0.5, 2.0
    sim, _, envs = _hinge_sim(gym, tmp_path, engine, n_envs=5)
    modes = [gymapi.DOF_MODE_NONE, gymapi.DOF_MODE_EFFORT, gymapi.DOF_MODE_VEL, gymapi.DOF_MODE_NONE,
             gymapi.DOF_MODE_EFFORT]
    for i, (env, mode) in enumerate(zip(envs, modes)):
        gains = (ke, kd) if i < 3 else (0.0, 0.0)
        _set(gym, env, driveMode=mode, stiffness=gains[0], damping=gains[1])
        st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        st["pos"][0], st["vel"][0] = q0, 1.0
        gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
    gym.set_actor_dof_velocity_targets(envs[2], 0, np.array([wt], np.float32))
    wn, zeta = math.sqrt(ke / I_PROP), kd / (2 * math.sqrt(ke * I_PROP))
    t_half = math.pi / (wn * math.sqrt(1 - zeta ** 2))     # half a damped period: q swings to the other side
    n_half = round(t_half / DT)
    q = {i: [] for i in range(5)}
    for _ in range(1200):      # 5 s: ~13 damping time constants
        gym.simulate(sim)
        for i, env in enumerate(envs):
            q[i].append(_q(gym, env))
    for i in (0, 1):           # NONE, EFFORT: a damped spring toward 0, at the analytic frequency
        pos = np.array([p for p, _ in q[i]])
        assert pos[n_half - 1] < 0 and pos[2 * n_half - 1] > 0
        assert abs(pos[-1]) < 0.01 and abs(q[i][-1][1]) < 0.05
    # VEL with stiffness: balanced, at rest (XPBD's velocity drive is a compliant constraint, not
    # the force kd (w* - w): its balance lies within a factor of two)
    if engine == "physx":
        assert q[2][-1][0] == pytest.approx(kd * wt / ke, abs=0.01)
    else:
        assert 0.5 * kd * wt / ke < q[2][-1][0] < 2 * kd * wt / ke
    assert abs(q[2][-1][1]) < 0.05
    for i in (3, 4):           # no gains: the blade keeps spinning at 1 rad/s
        assert q[i][-1][1] == pytest.approx(1.0, rel=0.01)
        assert q[i][-1][0] == pytest.approx(q0 + 1200 * DT, rel=0.01)


def test_targets_reach_only_the_dofs_whose_mode_takes_them(gym, tmp_path):
    """Isaac Gym applies a position target only to DOF_MODE_POS DOFs and a velocity target only
    where the mode uses it (gymlike's POS law takes both): through the handle API, the tensor
    API's all-DOF setter (numpy on the CPU) and its indexed setter (a kernel)."""
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=4)
    modes = (gymapi.DOF_MODE_NONE, gymapi.DOF_MODE_POS, gymapi.DOF_MODE_VEL, gymapi.DOF_MODE_EFFORT)
    for env, mode in zip(envs, modes):
        _set(gym, env, driveMode=mode, stiffness=0.0, damping=0.0)
        gym.set_actor_dof_position_targets(env, 0, np.array([0.2], np.float32))     # (before prepare_sim)
    # (set before the modes, as creation loops do: the modes the sim is prepared with decide)
    gym.set_actor_dof_position_targets(envs[0], 0, np.array([0.2], np.float32))
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_POS)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_NONE)
    gym.prepare_sim(sim)

    def targets():
        return ([float(gym.get_actor_dof_position_targets(e, 0)[0]) for e in envs],
                [float(gym.get_actor_dof_velocity_targets(e, 0)[0]) for e in envs])
    assert targets()[0] == pytest.approx([0.0, 0.2, 0.0, 0.0])
    v = torch.full((4,), 0.7)
    gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(v))
    gym.set_dof_velocity_target_tensor(sim, gymtorch.unwrap_tensor(2 * v))
    assert targets() == (pytest.approx([0.0, 0.7, 0.0, 0.0]), pytest.approx([0.0, 1.4, 1.4, 0.0]))
    ids = torch.arange(4, dtype=torch.int32)
    gym.set_dof_position_target_tensor_indexed(sim, gymtorch.unwrap_tensor(torch.full((4,), 0.3)),
                                               gymtorch.unwrap_tensor(ids), 4)
    assert targets()[0] == pytest.approx([0.0, 0.3, 0.0, 0.0])
    for env in envs:
        gym.set_actor_dof_velocity_targets(env, 0, np.array([-1.0], np.float32))
    assert targets()[1] == pytest.approx([0.0, -1.0, -1.0, 0.0])
    # a mode changed on the prepared sim: the all-DOF setter follows it (drives.write_all_host
    # keeps the taken DOFs with the modes, tables.HostTables.dof_takes)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_POS)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_EFFORT)
    gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(torch.full((4,), 0.9)))
    gym.set_dof_velocity_target_tensor(sim, gymtorch.unwrap_tensor(torch.full((4,), 0.5)))
    assert targets() == (pytest.approx([0.9, 0.3, 0.0, 0.0]), pytest.approx([0.5, -1.0, 0.5, 0.0]))


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_effort_mode_gives_analytic_acceleration_for_one_simulate(gym, tmp_path, engine):
    tau = 0.5
    sim, _, envs = _hinge_sim(gym, tmp_path, engine, n_envs=2)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_EFFORT)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_POS, stiffness=0.0, damping=0.0)
    n = 120
    w = []
    for _ in range(n):
        for env in envs:   # two calls within one simulate add up
            gym.apply_actor_dof_efforts(env, 0, np.array([0.3], np.float32))
            gym.apply_dof_effort(env, 0, tau - 0.3)
        gym.simulate(sim)
        w.append(_blade_wz(gym, envs[0]))
    assert _q(gym, envs[0])[1] / (n * DT) == pytest.approx(tau / I_PROP, rel=0.02)
    assert _q(gym, envs[1])[1] == pytest.approx(0.0, abs=1e-6)   # efforts act only in DOF_MODE_EFFORT
    gym.simulate(sim)                                              # not re-applied: gone
    w.append(_blade_wz(gym, envs[0]))
    kick = tau / I_PROP * DT                 # what one step of effort adds
    assert w[-2] - w[-3] == pytest.approx(kick, rel=0.02)
    assert abs(w[-1] - w[-2]) < 1e-3 * kick


def _blade_wz(gym, env):
    # the world angular velocity of the blade, read from the body itself (before fixed bases
    # were kinematic on XPBD, the base wobbled after the effort's reaction torque stopped,
    # which showed in the joint velocity)
    return float(gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)["vel"]["angular"]["z"][1])


def test_effort_on_offset_hinge_matches_analytic_physx(gym, tmp_path):
    """MuJoCo: torque on an arm whose COM is off the axis (I = Icom + m d^2)."""
    sim, _, (env,) = _hinge_sim(gym, tmp_path, "physx", urdf=ARM_URDF.format(axis_z=1))
    _set(gym, env, driveMode=gymapi.DOF_MODE_EFFORT)
    for _ in range(120):
        gym.apply_actor_dof_efforts(env, 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    assert _q(gym, env)[1] / (120 * DT) == pytest.approx(0.5 / I_ARM, rel=0.02)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_none_mode_swings_freely_pos_mode_holds(gym, tmp_path, engine):
    """NONE without gains swings freely; NONE with gains is held by its drive toward the drive
    target it had, zero, because a position target reaches only DOF_MODE_POS DOFs (Isaac Gym
    ignores it elsewhere); POS holds the target."""
    q0 = 0.4
    sim, _, envs = _hinge_sim(gym, tmp_path, engine, n_envs=3, urdf=SWING_URDF)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_NONE, stiffness=0.0, damping=0.0)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_NONE, stiffness=1000.0, damping=5.0)
    _set(gym, envs[2], driveMode=gymapi.DOF_MODE_POS, stiffness=1000.0, damping=5.0)
    for env in envs:
        st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        st["pos"][0] = q0
        gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
        gym.set_actor_dof_position_targets(env, 0, np.array([q0], np.float32))
    q = []
    for _ in range(240):
        gym.simulate(sim)
        q.append([gym.get_joint_position(e, 0) for e in envs])
    assert gym.get_actor_dof_position_targets(envs[1], 0)[0] == 0.0     # (not taken in NONE mode)
    q = np.array(q)
    # free: released near horizontal, the arm swings down through q = pi/2 (hanging) up to the
    # mirror angle pi - q0 (energy is conserved)
    assert q[:, 0].max() == pytest.approx(math.pi - q0, rel=0.01 if engine == "physx" else 0.05)
    assert np.abs(q[-60:, 1]).max() < 0.05                   # drawn to its drive target, 0
    assert np.abs(q[:, 2] - q0).max() < 0.1                  # held by the PD drive


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_driven_joint_stops_at_upper_limit(gym, tmp_path, engine):
    urdf = PROP_URDF.format(jtype="revolute", extra='<limit lower="-1" upper="0.5" effort="100" velocity="100"/>')
    sim, asset, (env,) = _hinge_sim(gym, tmp_path, engine, urdf=urdf)
    p = gym.get_asset_dof_properties(asset)
    assert bool(p["hasLimits"][0]) and p["upper"][0] == pytest.approx(0.5)
    _set(gym, env, driveMode=gymapi.DOF_MODE_VEL, damping=0.5)
    gym.set_actor_dof_velocity_targets(env, 0, np.array([2.0], np.float32))
    qs = []
    for _ in range(240):
        gym.simulate(sim)
        qs.append(_q(gym, env))
    q, w = np.array(qs[-60:]).T                  # the last 0.25 s, resting against the limit
    assert np.abs(q - 0.5).max() < 0.01
    assert abs(w.mean()) < 0.01                  # (MuJoCo's stiff limit leaves a small ripple)


LIGHT_LINK_URDF = """\
<robot name="finger">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link"><inertial><mass value="0.1"/>\
<inertia ixx="2.5e-3" iyy="2.5e-3" izz="2.5e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="link"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="100" velocity="1000"/></joint>
</robot>
"""


@pytest.mark.parametrize("speed", [5.0, 20.0])
def test_a_light_link_stops_at_its_limit_without_bouncing_physx(gym, tmp_path, speed):
    """A link of 2.5e-3 kg m^2 about its hinge (a finger's) sent into its limit at `speed`, no
    drive, no gravity, 1/120 s steps: it stops within about a step's travel past the limit and
    comes back at under a quarter of its speed (PhysX's limits are hard, without restitution).
    With Newton's limit stiffness and damping as MuJoCo's refsafe leaves them (damping ratio
    0.22 at twice the step) it came back faster than it arrived, at 20 rad/s without bound."""
    write(tmp_path, "finger.urdf", LIGHT_LINK_URDF)
    sim = make_sim(gym, ground=False, dt=1.0 / 120.0, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "finger.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=1.0), "finger", 0, 0)
    _set(gym, env, driveMode=gymapi.DOF_MODE_NONE, stiffness=0.0, damping=0.0)
    gym.prepare_sim(sim)
    st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
    st["pos"][0], st["vel"][0] = -0.9, -speed
    gym.set_actor_dof_states(env, 0, st, gymapi.STATE_ALL)
    qs = []
    for _ in range(60):
        gym.simulate(sim)
        qs.append(_q(gym, env))
    q, w = np.array(qs).T
    assert -1.0 - q.min() < 1.5 * speed / 120.0
    assert w.max() < 0.25 * speed


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_limits_switched_on_after_prepare_sim(gym, tmp_path, engine):
    sim, _, (env,) = _hinge_sim(gym, tmp_path, engine)   # continuous joint: no limits
    gym.prepare_sim(sim)
    _set(gym, env, driveMode=gymapi.DOF_MODE_VEL, damping=0.5, hasLimits=True, lower=-0.2, upper=0.3)
    gym.set_actor_dof_velocity_targets(env, 0, np.array([2.0], np.float32))
    for _ in range(240):
        gym.simulate(sim)
    assert _q(gym, env)[0] == pytest.approx(0.3, abs=0.01)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_effort_limit_caps_applied_effort(gym, tmp_path, engine):
    limit = 0.1
    sim, _, (env,) = _hinge_sim(gym, tmp_path, engine)
    _set(gym, env, driveMode=gymapi.DOF_MODE_EFFORT, effort=limit)
    gym.prepare_sim(sim)
    gym.acquire_dof_force_tensor(sim)                  # DOF forces are captured from now on
    for _ in range(60):
        gym.apply_actor_dof_efforts(env, 0, np.array([1.0], np.float32))
        gym.simulate(sim)
    assert _q(gym, env)[1] / (60 * DT) == pytest.approx(limit / I_PROP, rel=0.02)
    assert gym.get_actor_dof_forces(env, 0)[0] == pytest.approx(limit, rel=1e-3)


def test_effort_limit_caps_pd_drive_physx(gym, tmp_path):
    """MuJoCo: a stiff POS drive towards a far target delivers at most the effort limit."""
    limit = 0.1
    sim, _, (env,) = _hinge_sim(gym, tmp_path, "physx")
    _set(gym, env, driveMode=gymapi.DOF_MODE_POS, stiffness=1000.0, damping=0.0, effort=limit)
    gym.set_actor_dof_position_targets(env, 0, np.array([3.0], np.float32))
    for _ in range(24):
        gym.simulate(sim)
    assert _q(gym, env)[1] / (24 * DT) == pytest.approx(limit / I_PROP, rel=0.02)


def _capped_travel(cap, accel, t):
    """Angle turned in t from rest at constant acceleration under a speed cap applied after each
    step: after the ramp to the cap, every step integrates cap + accel * DT before the clamp."""
    ramp = cap / accel
    return cap * ramp / 2 + (cap + accel * DT) * (t - ramp)


def _limited_travel(cap, accel, steps):
    """Angle turned from rest at constant acceleration under PhysX's joint velocity limit, which
    acts in the step: each step's velocity min(v + accel * DT, cap) is what the angle integrates."""
    q = v = 0.0
    for _ in range(steps):
        v = min(v + accel * DT, cap)
        q += v * DT
    return q


def test_velocity_limit_clamps_physx(gym, tmp_path):
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=2)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_EFFORT, velocity=3.0)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_EFFORT)
    for _ in range(240):
        for env in envs:
            gym.apply_actor_dof_efforts(env, 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    assert gym.get_dof_velocity(envs[0], 0) == pytest.approx(3.0, rel=1e-3)
    assert gym.get_dof_velocity(envs[1], 0) == pytest.approx(0.5 / I_PROP, rel=0.02)   # unlimited
    # the limit acts on the motion, not only on the reading (unlimited, the blade turns 12.5 rad),
    # and inside the step: the angle integrates the limited velocity
    assert _q(gym, envs[0])[0] == pytest.approx(_limited_travel(3.0, 0.5 / I_PROP, 240), rel=1e-3)
    w = gym.get_actor_rigid_body_states(envs[0], 0, gymapi.STATE_VEL)["vel"]["angular"]["z"][1]
    assert w == pytest.approx(3.0, rel=1e-3)   # the body velocity follows the clamp


@pytest.mark.parametrize("api", ["tensor", "handle"])
def test_position_targets_changed_between_frames_are_followed(gym, tmp_path, api):
    """A new target given mid-run reaches the drive on the next simulate (MuJoCo's controls
    are recomputed only after targets change on the C pipeline)."""
    ke = 20.0
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=2)
    for env in envs:
        _set(gym, env, driveMode=gymapi.DOF_MODE_POS, stiffness=ke, damping=2 * math.sqrt(ke * I_PROP))
    gym.prepare_sim(sim)
    for target in (0.5, -0.3, 0.2):
        if api == "tensor":
            t = torch.tensor([target, -target])
            gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(t))
        else:
            gym.set_actor_dof_position_targets(envs[0], 0, np.array([target], np.float32))
            gym.set_actor_dof_position_targets(envs[1], 0, np.array([-target], np.float32))
        for _ in range(240):
            gym.simulate(sim)
        assert _q(gym, envs[0])[0] == pytest.approx(target, abs=2e-3)
        assert _q(gym, envs[1])[0] == pytest.approx(-target, abs=2e-3)


@pytest.mark.parametrize("driven", [0, 2])
def test_body_speed_cap_limits_a_spinning_blade_physx(gym, tmp_path, driven):
    """max_angular_velocity caps the blade's spin (PhysX's body speed cap) where an effort would
    spin it to 25 rad/s; the others stay at rest. On the C pipeline the caps run once MuJoCo's
    velocities could reach them, with exact speeds computed for the worlds that could."""
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=3, max_angular_velocity=2.0)
    for env in envs:
        _set(gym, env, driveMode=gymapi.DOF_MODE_EFFORT)
    for _ in range(240):
        gym.apply_actor_dof_efforts(envs[driven], 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    w = gym.get_actor_rigid_body_states(envs[driven], 0, gymapi.STATE_VEL)["vel"]["angular"]["z"][1]
    assert w == pytest.approx(2.0, rel=1e-3)
    assert _q(gym, envs[driven])[1] == pytest.approx(2.0, rel=1e-3)
    assert _q(gym, envs[driven])[0] == pytest.approx(_capped_travel(2.0, 0.5 / I_PROP, 240 * DT), rel=0.01)
    for i in range(3):
        if i != driven:
            assert _q(gym, envs[i]) == (0.0, 0.0)


def _capped_scene(gym, tmp_path, engine="physx"):
    """3 envs of three actors: an arm whose COM (0.25 m off its hinge) is capped at 0.5 m/s
    (max_linear_velocity: the arm turns at most 2 rad/s), a blade capped at 3 rad/s, a box
    falling under gravity capped at 1 m/s. Env 0 drives the arm and the blade, env 1 the arm,
    env 2 neither."""
    tmp_path.mkdir()
    write(tmp_path, "arm.urdf", ARM_URDF.format(axis_z=1))
    write(tmp_path, "prop.urdf", PROP_URDF.format(jtype="continuous", extra=""))
    sim = make_sim(gym, engine, ground=False, dt=DT, substeps=1)
    eff = gymapi.DOF_MODE_EFFORT
    arm = gym.load_asset(sim, str(tmp_path), "arm.urdf", options(fix_base_link=True, max_linear_velocity=0.5,
                                                                 default_dof_drive_mode=eff))
    prop = gym.load_asset(sim, str(tmp_path), "prop.urdf", options(fix_base_link=True, max_angular_velocity=3.0,
                                                                   default_dof_drive_mode=eff))
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options(max_linear_velocity=1.0))
    envs = []
    for _ in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        gym.create_actor(env, arm, pose(z=1.0), "arm", 0, 0)
        gym.create_actor(env, prop, pose(x=1.0, z=1.0), "prop", 0, 0)
        gym.create_actor(env, box, pose(y=1.0, z=1.0), "box", 0, 0)
        envs.append(env)
    gym.prepare_sim(sim)
    efforts = torch.tensor([[0.5, 0.5], [0.5, 0.0], [0.0, 0.0]]).reshape(-1)
    for _ in range(150):
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
        gym.simulate(sim)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    return dofs.clone(), bodies.clone()


def test_speed_caps_on_rows_equal_the_caps_through_newtons_state_physx(gym, tmp_path, monkeypatch):
    """On the C pipeline the caps scale MuJoCo's rows from exact body speeds (row_speed_caps);
    the same run capped through Newton's converted state (body_speed_scale) gives the same
    states, and each capped body moves at its cap: angular, linear on a lever, linear of a
    free body (whose fall follows the capped ramp), the other actors and envs untouched."""
    from gymlike.core import mjc
    dofs, bodies = _capped_scene(gym, tmp_path / "rows")
    monkeypatch.setattr(mjc.SolverMuJoCoC, "cap_speeds", lambda self, dev: False)
    dofs_n, bodies_n = _capped_scene(gym, tmp_path / "newton")
    assert torch.allclose(dofs, dofs_n, rtol=1e-5, atol=1e-6)
    assert torch.allclose(bodies, bodies_n, rtol=1e-5, atol=1e-6)
    q, v = dofs[:, 0].reshape(3, 2), dofs[:, 1].reshape(3, 2)
    t = 150 * DT
    assert v[0, 0] == pytest.approx(2.0, rel=1e-4) and v[1, 0] == pytest.approx(2.0, rel=1e-4)
    assert q[0, 0] == pytest.approx(_capped_travel(2.0, 0.5 / I_ARM, t), rel=0.01)
    assert v[0, 1] == pytest.approx(3.0, rel=1e-4)
    assert q[0, 1] == pytest.approx(_capped_travel(3.0, 0.5 / I_PROP, t), rel=0.01)
    assert (q[1:, 1] == 0).all() and (v[1:, 1] == 0).all() and (q[2] == 0).all()
    b = bodies.reshape(3, 5, 13)          # (arm base, arm, prop base, blade, box) per env
    assert b[:2, 1, 7:10].norm(dim=1) == pytest.approx([0.5, 0.5], rel=1e-4)
    assert b[:, 4, 7:10].norm(dim=1) == pytest.approx([1.0] * 3, rel=1e-4)
    assert 1.0 - b[:, 4, 2] == pytest.approx([_capped_travel(1.0, 9.81, t)] * 3, rel=0.01)


def test_body_speed_caps_on_flex(gym, tmp_path):
    """Isaac Gym documents max_linear/angular_velocity for both engines (it marks gyroscopic forces
    and V-HACD "PhysX only"): on SIM_FLEX, XPBD's bodies keep to the caps too. Each capped body
    moves at its cap (the arm's COM at 0.5 m/s, the blade at 3 rad/s, the falling box at 1 m/s),
    the arm's link and base scaled alike, the actors nobody drives untouched."""
    dofs, bodies = _capped_scene(gym, tmp_path / "flex", "flex")
    q, v = dofs[:, 0].reshape(3, 2), dofs[:, 1].reshape(3, 2)
    t = 150 * DT
    assert v[:2, 0] == pytest.approx([2.0, 2.0], rel=1e-3)
    assert q[0, 0] == pytest.approx(_capped_travel(2.0, 0.5 / I_ARM, t), rel=0.02)
    assert v[0, 1] == pytest.approx(3.0, rel=1e-3)
    assert q[0, 1] == pytest.approx(_capped_travel(3.0, 0.5 / I_PROP, t), rel=0.02)
    assert q[1:, 1].abs().max() < 1e-4 and q[2].abs().max() < 1e-4
    b = bodies.reshape(3, 5, 13)          # (arm base, arm, prop base, blade, box) per env
    assert b[:2, 1, 7:10].norm(dim=1) == pytest.approx([0.5, 0.5], rel=1e-3)
    assert b[:, 4, 7:10].norm(dim=1) == pytest.approx([1.0] * 3, rel=1e-3)
    assert 1.0 - b[:, 4, 2] == pytest.approx([_capped_travel(1.0, 9.81, t)] * 3, rel=0.02)
    # uncapped (Isaac Gym's defaults, 64 rad/s and 1000 m/s) the box falls freely
    uncapped = _box_fall(gym, "flex", 150)
    assert uncapped == pytest.approx(9.81 * t, rel=0.01)


def _box_fall(gym, engine, frames):
    sim = make_sim(gym, engine, ground=False, dt=DT, substeps=1)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, gym.create_box(sim, 0.1, 0.1, 0.1, options()), pose(z=1.0), "box", 0, 0)
    for _ in range(frames):
        gym.simulate(sim)
    return -float(gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)["vel"]["linear"]["z"][0])


def test_body_speed_cap_with_several_solver_calls_per_simulate_physx(gym, tmp_path):
    """A sim with an attractor steps each substep in its own solver call: a cap applied after the
    first substep leaves the second one's step length and the capped speed as they should be."""
    write(tmp_path, "hinge.urdf", PROP_URDF.format(jtype="continuous", extra=""))
    sim = make_sim(gym, "physx", ground=False, dt=DT, substeps=2, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "hinge.urdf", options(fix_base_link=True, max_angular_velocity=2.0))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, pose(z=1.0), "hinge", 0, 0)
    gym.create_actor(env, gym.create_box(sim, 0.1, 0.1, 0.1, options()), pose(x=0.8, z=1.0), "box", 0, 0)
    props = gymapi.AttractorProperties()
    props.rigid_handle = gym.get_actor_rigid_body_handle(env, 1, 0)
    props.axes = gymapi.AXIS_ALL
    props.stiffness, props.damping = 50.0, 10.0
    props.target = gymapi.Transform(gymapi.Vec3(0.8, 0.0, 1.2))
    gym.create_rigid_body_attractor(env, props)
    _set(gym, env, driveMode=gymapi.DOF_MODE_EFFORT)
    for _ in range(120):
        gym.apply_actor_dof_efforts(env, 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    assert _q(gym, env)[1] == pytest.approx(2.0, rel=1e-3)
    assert gym.get_sim_time(sim) == pytest.approx(120 * DT)
    assert gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)[0]["pose"]["p"]["z"] > 1.05   # pulled up


def test_joint_friction_and_armature_physx(gym, tmp_path):
    """MuJoCo with PhysX's joint friction: the hinge carries the blade's weight (9.81 N), so a
    friction coefficient of 0.2 resists up to ~2 N m and holds the blade under 0.1 and 0.5 N m
    (a constant 0.2 N m friction would have let 0.5 N m turn it; tests/physics/test_joint_rows.py has
    the law itself); armature adds to the inertia."""
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=3)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_EFFORT, friction=0.2)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_EFFORT, friction=0.2)
    _set(gym, envs[2], driveMode=gymapi.DOF_MODE_EFFORT, armature=0.02)
    taus = [0.1, 0.5, 0.5]
    for _ in range(120):
        for env, tau in zip(envs, taus):
            gym.apply_actor_dof_efforts(env, 0, np.array([tau], np.float32))
        gym.simulate(sim)
    free = 0.5 * 0.5 / I_PROP * (120 * DT) ** 2          # 3.1 rad turned without friction
    # (held: MuJoCo's friction row lets a few percent of each step's change through)
    assert abs(_q(gym, envs[0])[0]) < 1e-2 * free and abs(_q(gym, envs[1])[0]) < 1e-2 * free
    assert _q(gym, envs[2])[1] / (120 * DT) == pytest.approx(0.5 / (I_PROP + 0.02), rel=0.02)


def test_armature_slows_efforts_on_flex(gym, tmp_path):
    """XPBD has no armature: gymlike scales the effort by I / (I + armature), which gives a
    single link MuJoCo's (and the analytic) acceleration tau / (I + armature)."""
    sim, _, envs = _hinge_sim(gym, tmp_path, "flex", n_envs=2, gravity=0.0)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_EFFORT, armature=0.02)
    _set(gym, envs[1], driveMode=gymapi.DOF_MODE_EFFORT)
    for _ in range(60):
        for env in envs:
            gym.apply_actor_dof_efforts(env, 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    assert _q(gym, envs[0])[1] / (60 * DT) == pytest.approx(0.5 / (I_PROP + 0.02), rel=0.03)
    assert _q(gym, envs[1])[1] / (60 * DT) == pytest.approx(0.5 / I_PROP, rel=0.03)
    _set(gym, envs[0], driveMode=gymapi.DOF_MODE_EFFORT, armature=0.06)    # changed after prepare_sim
    w0 = _q(gym, envs[0])[1]
    for _ in range(60):
        gym.apply_actor_dof_efforts(envs[0], 0, np.array([0.5], np.float32))
        gym.simulate(sim)
    assert (_q(gym, envs[0])[1] - w0) / (60 * DT) == pytest.approx(0.5 / (I_PROP + 0.06), rel=0.03)


def test_flex_ants_at_gear_torque_stay_finite_and_long_substeps_warn(gym):
    """16 ants under random efforts at their gear (15 N m) on SIM_FLEX: finite at 1/240 s
    substeps (without the armature stand-in 2 of 16 diverged by frame 5); longer substeps warn."""
    p = sim_params(dt=1 / 60, substeps=2)
    with pytest.warns(UserWarning, match=r"SIM_FLEX .* use substeps >= 4 for dt 0.01667") as caught:
        gym.create_sim(0, -1, gymapi.SIM_FLEX, p)
    # attributed to the caller, not to gymlike (other warnings the block may record, e.g. of
    # objects another test left to the garbage collector, are not this test's)
    mine = [w for w in caught if "use substeps >= 4" in str(w.message)]
    assert [w.filename for w in mine] == [__file__], [(w.filename, w.lineno, str(w.message)[:120]) for w in caught]
    sim = make_sim(gym, "flex", dt=1 / 60, substeps=4)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    for i in range(16):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 4)
        gym.create_actor(env, ant, pose(z=0.75), "ant", i, 1)
    gym.prepare_sim(sim)
    rng = np.random.default_rng(0)
    for _ in range(60):
        efforts = torch.from_numpy(rng.uniform(-15.0, 15.0, 16 * 8).astype(np.float32))
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
        gym.simulate(sim)      # raises SimulationNaNError on divergence
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    assert torch.isfinite(root).all() and float(root[:, 2].max()) < 2.0


def test_targets_set_before_prepare_sim_persist(gym, tmp_path):
    sim, _, (env,) = _hinge_sim(gym, tmp_path, "physx")
    _set(gym, env, driveMode=gymapi.DOF_MODE_POS, stiffness=20.0, damping=1.0)
    gym.set_dof_target_position(env, 0, 0.3)
    gym.set_joint_target_velocity(env, 0, 0.0)
    assert gym.get_dof_target_position(env, 0) == pytest.approx(0.3)
    assert gym.get_joint_target_position(env, 0) == pytest.approx(0.3)
    gym.apply_dof_effort(env, 0, 5.0)   # stored for the first simulate; ignored in POS mode
    for _ in range(480):
        gym.simulate(sim)
    assert gym.get_dof_position(env, 0) == pytest.approx(0.3, rel=0.01)
    assert gym.get_joint_velocity(env, 0) == pytest.approx(0.0, abs=1e-3)
    assert gym.get_actor_dof_position_targets(env, 0).dtype == np.float32
    gym.set_joint_target_position(env, 0, -0.2)
    assert gym.get_actor_dof_position_targets(env, 0)[0] == pytest.approx(-0.2)
    for _ in range(480):
        gym.simulate(sim)
    assert gym.get_dof_position(env, 0) == pytest.approx(-0.2, rel=0.01)


def test_asset_dof_properties_come_from_file_and_options(gym, tmp_path):
    urdf = PROP_URDF.format(jtype="revolute", extra='<limit lower="-1" upper="1.5" effort="7" velocity="3"/>'
                            '<dynamics damping="0.3" friction="0.2"/>')
    write(tmp_path, "j.urdf", urdf)
    sim = make_sim(gym, "physx", ground=False)
    o = options(fix_base_link=True, armature=0.01, default_dof_drive_mode=int(gymapi.DOF_MODE_POS))
    p = gym.get_asset_dof_properties(gym.load_asset(sim, str(tmp_path), "j.urdf", o))
    assert p.dtype.names == ("hasLimits", "lower", "upper", "driveMode", "velocity", "effort",
                             "stiffness", "damping", "friction", "armature")
    row = p[0]
    assert bool(row["hasLimits"]) and row["driveMode"] == gymapi.DOF_MODE_POS
    assert (row["lower"], row["upper"], row["effort"], row["velocity"]) == pytest.approx((-1, 1.5, 7, 3))
    assert (row["damping"], row["friction"], row["armature"]) == pytest.approx((0.3, 0.2, 0.01))
    m = gym.get_asset_dof_properties(gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options()))
    assert len(m) == 8 and m["hasLimits"].all()           # MJCF ranges and armature
    assert (m["lower"][0], m["upper"][0]) == pytest.approx((-math.radians(40), math.radians(40)), rel=1e-5)
    assert m["armature"] == pytest.approx(np.full(8, 0.01))


ROTOR_URDF = """<robot name="rotorcraft">
  <link name="frame"><inertial><mass value="0.5"/>\
<inertia ixx="2e-3" iyy="2e-3" izz="4e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.3 0.3 0.05"/></geometry></collision></link>
  <link name="rotor"><inertial><mass value="0.005"/>\
<inertia ixx="1e-6" iyy="1e-6" izz="2e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="spin" type="continuous"><parent link="frame"/>\
<child link="rotor"/><origin xyz="0 0 0.05"/><axis xyz="0 0 1"/></joint>
</robot>
"""


def test_stiff_position_drive_on_a_tiny_rotor_stays_stable(gym, tmp_path):
    """IsaacGymEnvs' quadcopter drives light rotors with stiffness 1000 at dt 0.01: explicit in
    stiffness, MuJoCo diverges within steps; PhysX's implicit drive (what gymlike gives) settles."""
    write(tmp_path, "rotor.urdf", ROTOR_URDF)
    sp = gymapi.SimParams()
    sp.up_axis, sp.gravity, sp.dt, sp.substeps = gymapi.UP_AXIS_Z, gymapi.Vec3(0, 0, -9.81), 0.01, 2
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, sp)
    asset = gym.load_asset(sim, str(tmp_path), "rotor.urdf", options(fix_base_link=True))
    envs = []
    for i in range(16):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 4)
        gym.create_actor(env, asset, pose(z=1.0), "r", i, 0)
        props = gym.get_actor_dof_properties(env, 0)
        props["driveMode"], props["stiffness"], props["damping"] = gymapi.DOF_MODE_POS, 1000.0, 0.0
        gym.set_actor_dof_properties(env, 0, props)
        envs.append(env)
    gym.prepare_sim(sim)
    rng = np.random.default_rng(0)
    targets = rng.uniform(-1.0, 1.0, (16,)).astype(np.float32)
    for _ in range(300):
        targets = np.clip(targets + rng.normal(0, 0.2, 16), -1, 1).astype(np.float32)
        for env, t in zip(envs, targets):
            gym.set_actor_dof_position_targets(env, 0, np.array([t], np.float32))
        gym.simulate(sim)
    for env, t in zip(envs, targets):
        st = gym.get_actor_dof_states(env, 0, gymapi.STATE_ALL)
        assert abs(st["vel"][0]) < 1e3 and np.isfinite(st["pos"][0])
    # and a held target is reached (the drive still drives)
    for env in envs:
        gym.set_actor_dof_position_targets(env, 0, np.array([0.5], np.float32))
    for _ in range(100):
        gym.simulate(sim)
    pos = np.array([gym.get_actor_dof_states(env, 0, gymapi.STATE_POS)["pos"][0] for env in envs])
    assert pos == pytest.approx(0.5, abs=1e-3)


@pytest.mark.slow
def test_body_speed_caps_keep_a_randomly_driven_humanoid_finite(gym):
    """IsaacGymEnvs' humanoid setting: full-scale random efforts every frame, dt 1/60 in 2
    substeps, max_angular_velocity 100. PhysX caps every body's speed; gymlike scales the
    actor's joint velocities so its fastest body moves at the cap (without: NaN in ~30 frames)."""
    import torch
    from gymlike import gymtorch
    sp = gymapi.SimParams()
    sp.up_axis, sp.gravity, sp.dt, sp.substeps = gymapi.UP_AXIS_Z, gymapi.Vec3(0, 0, -9.81), 1 / 60, 2
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, sp)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, pp)
    o = options(angular_damping=0.01, max_angular_velocity=100.0, default_dof_drive_mode=gymapi.DOF_MODE_EFFORT)
    asset = gym.load_asset(sim, ASSETS, "mjcf/humanoid.xml", o)
    effort = torch.tensor([p.motor_effort for p in gym.get_asset_actuator_properties(asset)])
    n = 16
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 4)
        gym.create_actor(env, asset, pose(z=1.31), "h", i, 0)
    gym.prepare_sim(sim)
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gen = torch.Generator().manual_seed(0)
    top = 0.0
    for _ in range(300):
        f = (torch.rand((n, len(effort)), generator=gen) * 2 - 1) * effort
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f.flatten().contiguous()))
        gym.simulate(sim)                                   # raises on NaN/divergence
        gym.refresh_rigid_body_state_tensor(sim)
        top = max(top, float(bodies[:, 10:13].norm(dim=1).max()))
    assert torch.isfinite(bodies).all()
    assert top < 100.0 * 1.5       # capped each substep (a body may exceed it within one substep)


TWO_BLADES_URDF = """\
<robot name="props">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="a"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="ha" type="continuous"><parent link="base"/>\
<child link="a"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="hb" type="continuous"><parent link="base"/>\
<child link="b"/><origin xyz="-0.5 0 0"/><axis xyz="0 0 1"/></joint>
</robot>
"""


def test_velocity_limit_of_one_dof_among_several_physx(gym, tmp_path):
    """A limit on one DOF of a multi-DOF actor caps that DOF only, in the env that has it (on the
    C pipeline the clamp writes MuJoCo's strided per-world rows)."""
    sim, _, envs = _hinge_sim(gym, tmp_path, "physx", n_envs=3, urdf=TWO_BLADES_URDF)
    for env in envs:
        p = gym.get_actor_dof_properties(env, 0)
        p["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        gym.set_actor_dof_properties(env, 0, p)
    p = gym.get_actor_dof_properties(envs[1], 0)
    p["velocity"][1] = 3.0
    gym.set_actor_dof_properties(envs[1], 0, p)
    for _ in range(240):
        for env in envs:
            gym.apply_actor_dof_efforts(env, 0, np.array([0.5, 0.5], np.float32))
        gym.simulate(sim)
    free = 0.5 / I_PROP                       # 240 steps of 1/240 s from rest: 1 s at 25 rad/s^2
    v = np.array([gym.get_actor_dof_states(env, 0, gymapi.STATE_VEL)["vel"] for env in envs])
    assert v[1, 1] == pytest.approx(3.0, rel=1e-3)
    assert v[1, 0] == pytest.approx(free, rel=0.02)
    assert v[0] == pytest.approx([free, free], rel=0.02)
    assert v[2] == pytest.approx([free, free], rel=0.02)
    # a limit changed between steps acts from the next step on
    p["velocity"][1] = 1.5
    gym.set_actor_dof_properties(envs[1], 0, p)
    for _ in range(5):
        gym.apply_actor_dof_efforts(envs[1], 0, np.array([0.5, 0.5], np.float32))
        gym.simulate(sim)
    assert gym.get_actor_dof_states(envs[1], 0, gymapi.STATE_VEL)["vel"][1] == pytest.approx(1.5, rel=1e-3)
