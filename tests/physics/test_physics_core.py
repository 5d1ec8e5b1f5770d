"""Physics truths of the core: free fall, resting contact, pendulum period, collision isolation
and filtering, and the cartpole against MuJoCo's C library on an equivalent MJCF."""

import math

import numpy as np
import pytest

from conftest import (PENDULUM_URDF, inertia_box, make_sim, options, pose, write,
                      zero_crossing_period)
from gymlike import gymapi

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

G = 9.81


def _z(gym, env, actor=0):
    return float(gym.get_actor_rigid_body_states(env, actor, gymapi.STATE_ALL)["pose"]["p"]["z"][0])


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_free_fall_matches_analytic(gym, engine):
    sim = make_sim(gym, engine, ground=False, dt=1 / 240, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=10.0), "box", 0, 0)
    for _ in range(240):
        gym.simulate(sim)
    t = gym.get_sim_time(sim)
    assert t == pytest.approx(1.0)
    drop = 10.0 - _z(gym, env)
    assert drop == pytest.approx(0.5 * G * t * t, rel=0.01)
    vz = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_VEL)["vel"]["linear"]["z"][0]
    assert vz == pytest.approx(-G * t, rel=1e-3)
    gym.destroy_sim(sim)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_box_resting_on_ground_stays_at_rest(gym, engine):
    sim = make_sim(gym, engine, dt=1 / 240, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.1), "box", 0, 0)
    for _ in range(240):
        gym.simulate(sim)
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)[0]
    assert st["pose"]["p"]["z"] == pytest.approx(0.1, abs=2e-3)
    assert abs(st["pose"]["p"]["x"]) < 1e-3 and abs(st["pose"]["p"]["y"]) < 1e-3
    v = np.array(st["vel"]["linear"].tolist())
    assert np.linalg.norm(v) < 1e-2


def test_frictionless_box_slides_on_without_a_warning(gym, recwarn):
    """Friction 0 (PhysX takes it) on the box and the ground: the box keeps its speed (MuJoCo's
    contacts floor friction at 1e-5), and building the solver says nothing about NaN."""
    sim = make_sim(gym, friction=0.0, dt=1 / 240, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.1), "box", 0, 0)
    props = gym.get_actor_rigid_shape_properties(env, 0)
    props[0].friction = 0.0
    gym.set_actor_rigid_shape_properties(env, 0, props)
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)
    st["vel"]["linear"]["x"] = 1.0
    gym.set_actor_rigid_body_states(env, 0, st, gymapi.STATE_ALL)
    for _ in range(120):
        gym.simulate(sim)
    st = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_ALL)[0]
    assert st["vel"]["linear"]["x"] == pytest.approx(1.0, abs=1e-3)
    assert st["pose"]["p"]["x"] == pytest.approx(0.5, abs=5e-3)
    assert st["pose"]["p"]["z"] == pytest.approx(0.1, abs=2e-3)
    assert [str(w.message) for w in recwarn if "MJ_MINMU" in str(w.message)] == []
    gym.destroy_sim(sim)


@pytest.mark.slow
def test_pendulum_small_angle_period(gym, tmp_path):
    L = 1.0
    write(tmp_path, "pendulum.urdf", PENDULUM_URDF.format(L=L))
    sim = make_sim(gym, "physx", ground=False, dt=1 / 480, substeps=1)
    asset = gym.load_asset(sim, str(tmp_path), "pendulum.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=2.0), "pendulum", 0, 0)
    ds = gym.get_actor_dof_states(env, h, gymapi.STATE_ALL)
    ds["pos"][0] = 0.05
    gym.set_actor_dof_states(env, h, ds, gymapi.STATE_ALL)
    q = []
    for _ in range(480 * 5):
        gym.simulate(sim)
        q.append(gym.get_actor_dof_states(env, h, gymapi.STATE_POS)["pos"][0])
    t = np.arange(1, len(q) + 1) / 480
    period = zero_crossing_period(t, np.array(q))
    assert period == pytest.approx(2 * math.pi * math.sqrt(L / G), rel=0.02)
    assert max(q) == pytest.approx(0.05, rel=0.01)  # frictionless: no amplitude loss


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_envs_never_interact(gym, engine):
    """Two envs at the same origin with overlapping boxes: worlds are separate."""
    sim = make_sim(gym, engine, dt=1 / 240, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(0, 0, 0), gymapi.Vec3(0, 0, 0), 2)  # zero spacing
        gym.create_actor(env, box, pose(x=0.05 * i, z=0.1), "box", 0, 0)
        envs.append(env)
    for _ in range(120):
        gym.simulate(sim)
    for i, env in enumerate(envs):
        p = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]
        assert (p["x"], p["z"]) == pytest.approx((0.05 * i, 0.1), abs=2e-3)


# (collision group of the second box, filter bits of the two boxes): one env each, one sim
PAIRS = [(0, 0, 0), (1, 0, 0), (0, 3, 2), (0, 1, 2)]


def _two_boxes(gym, engine, pairs):
    """x distance of two overlapping boxes after 0.5 s, in one env per `pairs` row (envs never
    interact, so each row is its own experiment)."""
    sim = make_sim(gym, engine, dt=1 / 240, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for group1, filter0, filter1 in pairs:
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(x=-0.05, z=0.1), "a", 0, filter0)
        gym.create_actor(env, box, pose(x=0.05, z=0.1), "b", group1, filter1)
        envs.append(env)
    for _ in range(120):
        gym.simulate(sim)
    return [gym.get_actor_rigid_body_states(env, 1, gymapi.STATE_POS)[0]["pose"]["p"]["x"]
            - gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)[0]["pose"]["p"]["x"] for env in envs]


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_collision_groups_and_filters(gym, engine):
    if engine == "flex":        # one sim, one env per case (XPBD steps are the cost here)
        same_group, other_group, shared_bit, disjoint_bits = _two_boxes(gym, engine, PAIRS)
    else:                       # one sim per case: see the next test
        same_group, other_group, shared_bit, disjoint_bits = [_two_boxes(gym, engine, [p])[0] for p in PAIRS]
    # same group, no common filter bit: the overlapping boxes push each other apart
    assert same_group > 0.18
    # different collision groups: they pass through each other
    assert other_group == pytest.approx(0.1, abs=5e-3)
    # same group, a shared filter bit: no collision
    assert shared_bit == pytest.approx(0.1, abs=5e-3)
    # same group, disjoint filter bits: collide
    assert disjoint_bits > 0.18


def test_collision_groups_that_differ_between_envs_on_physx(gym):
    """Envs that differ only in their actors' collision groups or filters are different MuJoCo
    worlds (once every env got the first env's filtering)."""
    same_group, other_group, shared_bit, disjoint_bits = _two_boxes(gym, "physx", PAIRS)
    assert same_group > 0.18 and disjoint_bits > 0.18
    assert other_group == pytest.approx(0.1, abs=5e-3) and shared_bit == pytest.approx(0.1, abs=5e-3)


CARTPOLE = dict(cart=(1.0, 0.5, 0.3, 0.2), pole=(0.1, 0.04, 0.04, 1.0))


def _cartpole_urdf():
    mc, cx, cy, cz = CARTPOLE["cart"]
    mp, px, py, pz = CARTPOLE["pole"]
    ic, ip = inertia_box(mc, cx, cy, cz), inertia_box(mp, px, py, pz)
    return f"""
    <robot name="cartpole">
      <link name="slider"/>
      <link name="cart">
        <collision><geometry><box size="{cx} {cy} {cz}"/></geometry></collision>
        <inertial><mass value="{mc}"/>\
<inertia ixx="{ic[0]}" iyy="{ic[1]}" izz="{ic[2]}" ixy="0" ixz="0" iyz="0"/></inertial>
      </link>
      <link name="pole">
        <collision><origin xyz="0 0 {pz / 2}"/><geometry><box size="{px} {py} {pz}"/></geometry></collision>
        <inertial><origin xyz="0 0 {pz / 2}"/><mass value="{mp}"/>
          <inertia ixx="{ip[0]}" iyy="{ip[1]}" izz="{ip[2]}" ixy="0" ixz="0" iyz="0"/></inertial>
      </link>
      <joint name="slider_to_cart" type="prismatic"><parent link="slider"/><child link="cart"/>
        <axis xyz="1 0 0"/><limit lower="-4" upper="4" effort="400" velocity="100"/></joint>
      <joint name="cart_to_pole" type="continuous"><parent link="cart"/><child link="pole"/>
        <origin xyz="0 0 {cz / 2}"/><axis xyz="0 1 0"/></joint>
    </robot>"""


def _cartpole_mjcf(dt):
    mc, cx, cy, cz = CARTPOLE["cart"]
    mp, px, py, pz = CARTPOLE["pole"]
    ic, ip = inertia_box(mc, cx, cy, cz), inertia_box(mp, px, py, pz)
    return f"""
    <mujoco model="cartpole">
      <option timestep="{dt}" integrator="implicitfast" gravity="0 0 -{G}"/>
      <worldbody>
        <body name="cart" pos="0 0 2">
          <joint name="slider_to_cart" type="slide" axis="1 0 0" range="-4 4" limited="true"/>
          <inertial pos="0 0 0" mass="{mc}" diaginertia="{ic[0]} {ic[1]} {ic[2]}"/>
          <geom type="box" size="{cx / 2} {cy / 2} {cz / 2}" contype="0" conaffinity="0"/>
          <body name="pole" pos="0 0 {cz / 2}">
            <joint name="cart_to_pole" type="hinge" axis="0 1 0"/>
            <inertial pos="0 0 {pz / 2}" mass="{mp}" diaginertia="{ip[0]} {ip[1]} {ip[2]}"/>
            <geom type="box" pos="0 0 {pz / 2}" size="{px / 2} {py / 2} {pz / 2}" contype="0" conaffinity="0"/>
          </body>
        </body>
      </worldbody>
    </mujoco>"""


def test_cartpole_matches_mujoco_c_library(gym, tmp_path):
    """Passive motion from a tilted start: gymlike (URDF, Newton + MuJoCo-Warp) vs MuJoCo's C
    library stepping an equivalent MJCF written independently of gymlike's importer."""
    mujoco = pytest.importorskip("mujoco")
    dt = 1 / 200
    write(tmp_path, "cartpole.urdf", _cartpole_urdf())
    sim = make_sim(gym, "physx", ground=False, dt=dt, substeps=1)
    asset = gym.load_asset(sim, str(tmp_path), "cartpole.urdf", options(fix_base_link=True))
    assert gym.get_asset_dof_names(asset) == ["slider_to_cart", "cart_to_pole"]
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=2.0), "cartpole", 0, 0)
    q0 = np.array([0.1, 0.3])
    ds = gym.get_actor_dof_states(env, h, gymapi.STATE_ALL)
    ds["pos"] = q0
    gym.set_actor_dof_states(env, h, ds, gymapi.STATE_ALL)

    m = mujoco.MjModel.from_xml_string(_cartpole_mjcf(dt))
    d = mujoco.MjData(m)
    d.qpos[:] = q0
    mujoco.mj_forward(m, d)
    ours, ref = [], []
    for _ in range(200):
        gym.simulate(sim)
        mujoco.mj_step(m, d)
        s = gym.get_actor_dof_states(env, h, gymapi.STATE_ALL)
        ours.append(np.concatenate([s["pos"], s["vel"]]))
        ref.append(np.concatenate([d.qpos, d.qvel]))
    ours, ref = np.array(ours), np.array(ref)
    assert np.abs(ref[:, 1]).max() > 0.3  # the pole really swung
    # float32 (Warp) vs float64 (C); measured agreement is ~1e-6, the bounds leave float headroom
    np.testing.assert_allclose(ours[:, :2], ref[:, :2], atol=1e-4)
    np.testing.assert_allclose(ours[:, 2:], ref[:, 2:], atol=1e-3)
