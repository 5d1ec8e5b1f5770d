"""Fixed tendons (MJCF <tendon><fixed>) through Isaac Gym's tendon methods, with PhysX semantics:
length L = sum(coef * q) + offset, spring stiffness * (rest - L), damping, and an explicit limit
spring of limit_stiffness outside [lower, upper]. Equilibria are checked against statics."""

import numpy as np
import pytest

from gymlike import gymapi
from gymlike.core.errors import GymlikeError

from conftest import make_sim, options, write

# two hinges about z on a welded base, no gravity: only tendon forces and efforts act
HAND = """\
<mujoco model="tendon_pair">
  <worldbody>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <body name="a">
        <joint name="ja" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.1"/>
      </body>
      <body name="b" pos="0 0.2 0">
        <joint name="jb" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.1"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="couple" limited="true" range="-0.001 0.001">
      <joint joint="ja" coef="1"/>
      <joint joint="jb" coef="-2"/>
    </fixed>
    <fixed name="hold" stiffness="2" damping="0.3" springlength="0.6">
      <joint joint="ja" coef="1"/>
    </fixed>
    <fixed name="brake" damping="0.3"><joint joint="jb" coef="1"/></fixed>
  </tendon>
</mujoco>
"""


@pytest.fixture
def hand(gym, tmp_path):
    sim = make_sim(gym, ground=False, gravity=0.0, dt=1 / 120)
    return sim, gym.load_asset(sim, str(tmp_path), write(tmp_path, "hand.xml", HAND).rsplit("/", 1)[1],
                                options(fix_base_link=True))


def _scene(gym, sim, asset, n=2):
    envs = []
    for i in range(n):
        e = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 2), 2)
        envs.append((e, gym.create_actor(e, asset, gymapi.Transform(), "hand", i, 0)))
    return envs


def _settle(gym, sim, envs, steps=360, efforts=None):
    for _ in range(steps):
        if efforts is not None:
            for e, h in envs:
                gym.apply_actor_dof_efforts(e, h, np.asarray(efforts, np.float32))
        gym.simulate(sim)
        gym.fetch_results(sim, True)
    return [gym.get_actor_dof_states(e, h, gymapi.STATE_POS)["pos"].copy() for e, h in envs]


def test_asset_tendons_read_from_mjcf(gym, hand):
    sim, a = hand
    assert gym.get_asset_tendon_count(a) == 3
    assert [gym.get_asset_tendon_name(a, i) for i in range(3)] == ["couple", "hold", "brake"]
    assert gym.find_asset_tendon_index(a, "hold") == 1 and gym.find_asset_tendon_index(a, "nope") == -1
    assert gym.get_asset_fixed_tendon_joint_coefficients(a, 0) == [1.0, -2.0]
    assert [gym.get_asset_fixed_tendon_joint_name(a, 0, j) for j in range(2)] == ["ja", "jb"]
    p = gym.get_asset_tendon_properties(a)
    assert (p[0].is_fixed_limited and np.isclose(p[0].fixed_lower_limit, -0.001)
            and np.isclose(p[0].fixed_upper_limit, 0.001))
    assert not p[1].is_fixed_limited and p[1].stiffness == 2.0 and np.isclose(p[1].damping, 0.3)
    assert np.isclose(p[1].fixed_spring_rest_length, 0.6)
    assert p[0].limit_stiffness == gymapi.AssetOptions().tendon_limit_stiffness   # Isaac Gym's default
    e, h = _scene(gym, sim, a, 1)[0]
    assert gym.get_actor_tendon_count(e, h) == 3 and gym.get_actor_tendon_name(e, h, 2) == "brake"
    assert gym.find_actor_tendon_index(e, h, "couple") == 0
    assert gym.find_actor_fixed_tendon_joint_index(e, h, 0, "jb") == 1
    assert gym.get_actor_fixed_tendon_joint_coefficients(e, h, 0) == [1.0, -2.0]
    assert gym.get_actor_fixed_tendon_joint_name(e, h, 0, 0) == "ja"


def test_coupled_joints_move_with_the_coefficient_ratio(gym, hand):
    """'hold' pulls ja to its rest length 0.6; a stiff 'couple' limit keeps ja - 2 jb in
    [-0.001, 0.001], so the undriven jb follows at half the angle. Without the limit it stays."""
    sim, a = hand
    p = gym.get_asset_tendon_properties(a)
    p[0].limit_stiffness, p[0].damping = 50.0, 0.1
    gym.set_asset_tendon_properties(a, p)
    envs = _scene(gym, sim, a)
    p[0].is_fixed_limited, p[0].damping = False, 0.0
    gym.set_actor_tendon_properties(*envs[1], p)          # env 1 only: the coupling is off there
    q0, q1 = _settle(gym, sim, envs)
    assert abs(q0[0] - 0.6) < 1e-3 and abs(q0[0] - 2 * q0[1]) < 0.0011
    assert abs(q1[0] - 0.6) < 1e-3 and abs(q1[1]) < 1e-6
    assert not gym.get_actor_tendon_properties(*envs[1])[0].is_fixed_limited
    assert gym.get_actor_tendon_properties(*envs[0])[0].is_fixed_limited


def test_limit_spring_and_stiffness_follow_statics_and_change_after_prepare(gym, hand):
    """An effort tau on ja past the limit upper 0.001 settles at upper + tau / limit_stiffness
    (the explicit limit spring) when jb is held; rest length and offset move the equilibrium."""
    sim, a = hand
    p = gym.get_asset_tendon_properties(a)
    p[0].limit_stiffness, p[0].damping = 5.0, 0.3
    p[1].stiffness = 0.0                                   # only the limit acts on ja
    p[2].stiffness, p[2].fixed_spring_rest_length = 50.0, 0.0   # holds jb near 0
    gym.set_asset_tendon_properties(a, p)
    envs = _scene(gym, sim, a)
    for e, h in envs:
        dp = gym.get_actor_dof_properties(e, h)
        dp["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        gym.set_actor_dof_properties(e, h, dp)
    gym.prepare_sim(sim)
    tau = 0.1
    q0, _ = _settle(gym, sim, envs, efforts=[tau, 0.0])
    # statics: ja: tau = k_lim (L - 0.001) with L = ja - 2 jb; jb: 2 k_lim (L - 0.001) = 50 jb
    jb = 2 * tau / 50.0
    assert abs(q0[1] - jb) < 2e-3 and abs(q0[0] - (0.001 + 2 * jb + tau / 5.0)) < 3e-3
    # after prepare_sim: a stiffer limit in env 1 and an offset in env 0
    p1 = gym.get_actor_tendon_properties(*envs[1])
    p1[0].limit_stiffness = 20.0
    gym.set_actor_tendon_properties(*envs[1], p1)
    gym.set_actor_tendon_offset(*envs[0], 0, 0.05)
    assert gym.get_actor_tendon_offset(*envs[0], 0) == pytest.approx(0.05)
    p0 = gym.get_actor_tendon_properties(*envs[0])
    p0[2].fixed_spring_rest_length = 0.1                   # env 0's jb spring now rests at 0.1
    gym.set_actor_tendon_properties(*envs[0], p0)
    q0, q1 = _settle(gym, sim, envs, efforts=[tau, 0.0])
    assert abs(q1[1] - jb) < 2e-3 and abs(q1[0] - (0.001 + 2 * jb + tau / 20.0)) < 3e-3
    jb0 = 0.1 + 2 * tau / 50.0
    assert abs(q0[1] - jb0) < 2e-3 and abs(q0[0] - (0.001 - 0.05 + 2 * jb0 + tau / 5.0)) < 3e-3


def test_bad_tendon_input_is_rejected_and_changes_nothing(gym, hand):
    sim, a = hand
    e, h = _scene(gym, sim, a, 1)[0]
    before = [vars(x) for x in gym.get_actor_tendon_properties(e, h)]
    p = gym.get_actor_tendon_properties(e, h)
    p[1].stiffness = -1.0
    with pytest.raises(GymlikeError, match=r"props\[1\]\.stiffness must be >= 0"):
        gym.set_actor_tendon_properties(e, h, p)
    p = gym.get_actor_tendon_properties(e, h)
    p[0].fixed_lower_limit = float("nan")
    with pytest.raises(GymlikeError, match="finite"):
        gym.set_actor_tendon_properties(e, h, p)
    with pytest.raises(GymlikeError, match="one entry per tendon"):
        gym.set_actor_tendon_properties(e, h, p[:2])
    with pytest.raises(TypeError, match="TendonProperties"):
        gym.set_actor_tendon_properties(e, h, [1, 2, 3])
    with pytest.raises(GymlikeError, match="finite"):
        gym.set_actor_tendon_offset(e, h, 0, float("inf"))
    with pytest.raises(IndexError, match="tendon index 3"):
        gym.get_actor_tendon_name(e, h, 3)
    with pytest.raises(GymlikeError, match="2 joints, got 3"):
        gym.set_asset_fixed_tendon_joint_coefficients(a, 0, [1.0, 2.0, 3.0])
    with pytest.raises(GymlikeError, match="before creating actors"):
        gym.set_asset_fixed_tendon_joint_coefficients(a, 0, [1.0, 2.0])
    with pytest.raises(NotImplementedError, match="set_asset_fixed_tendon_joint_coefficients"):
        gym.set_actor_fixed_tendon_joint_coefficients(e, h, 0, [1.0, 2.0])
    assert [vars(x) for x in gym.get_actor_tendon_properties(e, h)] == before
    assert gym.get_actor_tendon_offset(e, h, 0) == 0.0
    assert gym.get_asset_fixed_tendon_joint_coefficients(a, 0) == [1.0, -2.0]


def _randomized(gym, tmp_path, after_prepare, count=None):
    """4 hands, each env its own tendon and DOF properties (IsaacGymEnvs' domain randomization
    sets them env by env), before or after prepare_sim; DOF positions after 120 steps under an
    effort on ja. `count`: a list that receives the solver's notify_model_changed calls."""
    from gymlike.core.handles import sim_of
    tmp_path.mkdir()
    sim = make_sim(gym, ground=False, gravity=0.0, dt=1 / 120)
    a = gym.load_asset(sim, str(tmp_path), write(tmp_path, "hand.xml", HAND).rsplit("/", 1)[1],
                       options(fix_base_link=True))
    envs = _scene(gym, sim, a, 4)

    def randomize():
        for i, (e, h) in enumerate(envs):
            p = gym.get_actor_tendon_properties(e, h)
            p[0].limit_stiffness, p[1].stiffness, p[2].damping = 5.0 + 5 * i, 1.0 + i, 0.1 * (i + 1)
            gym.set_actor_tendon_properties(e, h, p)
            dp = gym.get_actor_dof_properties(e, h)
            dp["driveMode"][:] = gymapi.DOF_MODE_EFFORT
            dp["damping"][:] = 0.01 * i
            dp["armature"][:] = 0.001 * (i + 1)
            gym.set_actor_dof_properties(e, h, dp)

    if not after_prepare:
        randomize()
    gym.prepare_sim(sim)
    if after_prepare:
        solver = sim_of(sim).solver
        told = solver.notify_model_changed

        def counted(flags):
            count.append(flags)
            told(flags)
        solver.notify_model_changed = counted
        randomize()
        assert count == []              # (nothing told yet: the solver hears at the next step)
    return np.array(_settle(gym, sim, envs, steps=120, efforts=[0.05, 0.0]))


def test_property_changes_env_by_env_reach_the_solver_once_and_act_as_if_built(gym, tmp_path):
    """Tendon, armature and damping changes of 4 envs after prepare_sim are told to the solver in
    one call at the next simulate (each told at once recomputed MuJoCo's constants of every world:
    IsaacGymEnvs' ShadowHand re-randomization took 10 s at 64 envs, 1.3 s since), and the hands
    move exactly as when the same properties are set before prepare_sim."""
    count = []
    after = _randomized(gym, tmp_path / "after", True, count)
    built = _randomized(gym, tmp_path / "built", False)
    assert len(count) == 1
    assert np.allclose(after, built, rtol=0, atol=1e-6)
    assert np.ptp(after[:, 0]) > 0.01        # (the envs do differ)
