"""Rigid body and shape properties, body forces and actor scale, measured: mass halves the
acceleration, gravity switched off per body, friction on a slope, restitution of a dropped
ball, force spaces and points of application, scaled actors."""

import math

import numpy as np
import pytest

from conftest import make_sim, options, pose, sim_params
from gymlike import gymapi

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

DT = 1.0 / 240.0
G = 9.81


def _body(gym, env, actor=0, body=0):
    return gym.get_actor_rigid_body_states(env, actor, gymapi.STATE_ALL)[body]


def _p(st):
    return np.array(st["pose"]["p"].tolist())


def _v(st):
    return np.array(st["vel"]["linear"].tolist())


def _w(st):
    return np.array(st["vel"]["angular"].tolist())


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_doubling_mass_halves_acceleration(gym, engine):
    sim = make_sim(gym, engine, ground=False, gravity=0.0, dt=DT, substeps=1)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())        # 8 kg at density 1000
    envs = []
    for _ in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        gym.create_actor(env, box, pose(z=1.0), "box", 0, 0)
        envs.append(env)
    props = gym.get_actor_rigid_body_properties(envs[1], 0)
    assert props[0].mass == pytest.approx(8.0) and props[0].invMass == pytest.approx(1 / 8)
    assert props[0].inertia.x.x == pytest.approx(8 * 0.08 / 12)
    props[0].mass = 16.0                                         # before prepare_sim
    gym.set_actor_rigid_body_properties(envs[1], 0, props, recomputeInertia=True)
    got = gym.get_actor_rigid_body_properties(envs[1], 0)[0]
    assert got.inertia.z.z == pytest.approx(2 * 8 * 0.08 / 12, rel=1e-5)
    gym.prepare_sim(sim)
    props = gym.get_actor_rigid_body_properties(envs[2], 0)
    props[0].mass = 16.0                                         # after prepare_sim: the solver is told
    gym.set_actor_rigid_body_properties(envs[2], 0, props, True)
    F, n = 8.0, 120
    for _ in range(n):
        for env in envs:
            gym.apply_body_forces(env, 0, gymapi.Vec3(F, 0, 0), None, gymapi.ENV_SPACE)
        gym.simulate(sim)
    ax = [_v(_body(gym, e))[0] / (n * DT) for e in envs]
    assert ax[0] == pytest.approx(F / 8.0, rel=0.01)
    assert ax[1] / ax[0] == pytest.approx(0.5, rel=0.01)
    assert ax[2] / ax[0] == pytest.approx(0.5, rel=0.01)
    gym.simulate(sim)                                            # forces last one simulate
    assert _v(_body(gym, envs[0]))[0] == pytest.approx(ax[0] * n * DT, rel=1e-4)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_gravity_disabled_on_one_body_floats_while_neighbour_falls(gym, engine):
    sim = make_sim(gym, engine, ground=False, dt=DT, substeps=1)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(x=-0.5, z=2.0), "falls", 0, 0)
    gym.create_actor(env, box, pose(x=0.5, z=2.0), "floats", 0, 0)
    props = gym.get_actor_rigid_body_properties(env, 1)
    props[0].flags = gymapi.RIGID_BODY_DISABLE_GRAVITY
    gym.set_actor_rigid_body_properties(env, 1, props)
    assert gym.get_actor_rigid_body_properties(env, 1)[0].flags == gymapi.RIGID_BODY_DISABLE_GRAVITY
    for _ in range(120):
        gym.simulate(sim)
    t = 120 * DT
    assert _p(_body(gym, env, 0))[2] == pytest.approx(2.0 - 0.5 * G * t * t, abs=0.02)
    assert _p(_body(gym, env, 1))[2] == pytest.approx(2.0, abs=1e-4)
    props[0].flags = gymapi.RIGID_BODY_NONE                      # switched back on at run time
    gym.set_actor_rigid_body_properties(env, 1, props)
    for _ in range(60):
        gym.simulate(sim)
    assert _v(_body(gym, env, 1))[2] == pytest.approx(-G * 60 * DT, rel=0.01)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_body_force_spaces_and_point_of_application(gym, engine):
    sim = make_sim(gym, engine, ground=False, gravity=0.0, dt=DT, substeps=1)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())         # m = 8, Izz = 8 * 0.08 / 12
    izz = 8 * 0.08 / 12
    yaw90 = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 0, 1), math.pi / 2)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    for k in range(4):
        gym.create_actor(env, box, pose(x=k - 1.5, z=1.0, q=yaw90), f"box{k}", k, 0)
    n = 24
    for _ in range(n):
        gym.apply_body_forces(env, 0, gymapi.Vec3(8, 0, 0), None, gymapi.LOCAL_SPACE)   # body x = world y
        gym.apply_body_forces(env, 1, None, gymapi.Vec3(0, 0, 0.1), gymapi.GLOBAL_SPACE)
        x2 = _p(_body(gym, env, 2))[0]                              # env frame
        gym.apply_body_force_at_pos(env, 2, gymapi.Vec3(0, 8, 0), gymapi.Vec3(x2 + 0.1, 0, 1.0), gymapi.ENV_SPACE)
        gym.apply_body_force_at_pos(env, 3, gymapi.Vec3(0, 8, 0), gymapi.Vec3(0, -0.1, 0), gymapi.LOCAL_SPACE)
        gym.simulate(sim)
    t = n * DT
    v0, w1 = _v(_body(gym, env, 0)), _w(_body(gym, env, 1))
    assert v0 == pytest.approx([0, t, 0], abs=1e-4)               # a = 1 m/s^2 along world y
    assert w1[2] == pytest.approx(0.1 / izz * t, rel=0.01)
    # 8 N along y applied 0.1 m off the COM along x: a = 1 along y and torque 0.8 about z
    v2, w2 = _v(_body(gym, env, 2)), _w(_body(gym, env, 2))
    assert v2[1] == pytest.approx(t, rel=0.01) and w2[2] == pytest.approx(0.8 / izz * t, rel=0.02)
    # local force (0, 8, 0) = world (-8, 0, 0) at local point (0, -0.1, 0) = world (0.1, 0, 0) off the COM
    v3, w3 = _v(_body(gym, env, 3)), _w(_body(gym, env, 3))
    assert v3[0] == pytest.approx(-t, rel=0.01) and w3[2] == pytest.approx(0.0, abs=1e-3)


def _slope_scene(gym, engine, mus, angle):
    """A fixed slope box tilted by `angle` and a 0.2 m cube resting on it, one env per mu."""
    sim = make_sim(gym, engine, ground=False, dt=DT, substeps=2)
    slope = gym.create_box(sim, 3.0, 1.0, 0.2, options(fix_base_link=True))
    cube = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    q = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), angle)   # +x end goes down
    n = gymapi.Vec3(math.sin(angle), 0, math.cos(angle))
    envs = []
    for mu in mus:
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), len(mus))
        gym.create_actor(env, slope, pose(z=1.0, q=q), "slope", 0, 0)
        c = gymapi.Vec3(0, 0, 1.0) + n * 0.2
        gym.create_actor(env, cube, pose(c.x, c.y, c.z, q), "cube", 0, 0)
        for actor in (0, 1):
            sp = gym.get_actor_rigid_shape_properties(env, actor)
            sp[0].friction = mu
            gym.set_actor_rigid_shape_properties(env, actor, sp)
        envs.append(env)
    return sim, envs


@pytest.mark.parametrize("engine", ["physx", pytest.param("flex", marks=pytest.mark.slow)])
def test_box_on_20_degree_slope_sticks_with_mu_06_and_slides_with_mu_01(gym, engine):
    angle = math.radians(20)
    sim, envs = _slope_scene(gym, engine, [0.6, 0.1, 0.6], angle)
    gym.prepare_sim(sim)
    sp = gym.get_actor_rigid_shape_properties(envs[2], 1)        # env 2: mu changed at run time
    sp[0].friction = 0.1
    gym.set_actor_rigid_shape_properties(envs[2], 1, sp)
    gym.set_actor_rigid_shape_properties(envs[2], 0, sp)
    assert gym.get_actor_rigid_shape_properties(envs[2], 1)[0].friction == pytest.approx(0.1)
    down = np.array([math.cos(angle), 0, -math.sin(angle)])
    p0 = [_p(_body(gym, e, 1)) for e in envs]
    speed = {}
    for k in range(240):
        gym.simulate(sim)
        if k + 1 in (120, 240):
            speed[k + 1] = [float(_v(_body(gym, e, 1)) @ down) for e in envs]
    moved = [float((_p(_body(gym, e, 1)) - p) @ down) for e, p in zip(envs, p0)]
    # tan(20 deg) = 0.36 < 0.6: sticks (XPBD's positional friction lets it creep ~7 mm/s)
    assert abs(moved[0]) < (0.002 if engine == "physx" else 0.015)
    a_expect = G * (math.sin(angle) - 0.1 * math.cos(angle))    # 2.43 m/s^2
    for k in (1, 2):
        a = (speed[240][k] - speed[120][k]) / (120 * DT)
        assert a == pytest.approx(a_expect, rel=0.05)
        assert moved[k] > 0.5


def _incline_creep(gym, monkeypatch, pipeline, degrees, mujoco_options=None):
    """A 0.2 m box set at rest on a ground plane tilted by `degrees` (mu 1), then 5 s of
    simulation: -> how far it moved (m) along the plane."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, sim_params(dt=1 / 60, substeps=2))
    if mujoco_options is not None:
        sim.mujoco_options = mujoco_options           # (gymlike-only, before prepare_sim)
    a = math.radians(degrees)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(math.sin(a), 0.0, math.cos(a))
    pp.static_friction = pp.dynamic_friction = 1.0
    gym.add_ground(sim, pp)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(0.1 * math.sin(a), 0.0, 0.1 * math.cos(a),
                                    gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), a)), "box", 0, 0)
    for _ in range(30):                         # (contact settled)
        gym.simulate(sim)
    p0 = _p(_body(gym, env))
    for _ in range(300):
        gym.simulate(sim)
    moved = float(np.linalg.norm(_p(_body(gym, env)) - p0))
    gym.destroy_sim(sim)
    return moved


# (MuJoCo-Warp's three 5 s runs take ~28 s on a CPU worker: the full suite's, not the fast tier's)
@pytest.mark.parametrize("pipeline", ["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def test_static_friction_holds_a_box_on_a_40_degree_incline_physx(gym, monkeypatch, pipeline):
    """tan(40 deg) = 0.84 < mu 1: PhysX's static friction holds the box. MuJoCo's friction is a
    soft constraint that creeps under a steady tangential load (15 mm in these 5 s with its
    default impratio 1, which sim.mujoco_options brings back here); gymlike's default friction-to-
    normal impedance ratio (10) cuts the creep tenfold, and 100 (Menagerie's) further."""
    loose = _incline_creep(gym, monkeypatch, pipeline, 40.0, {"impratio": 1.0})
    held = _incline_creep(gym, monkeypatch, pipeline, 40.0)
    stiff = _incline_creep(gym, monkeypatch, pipeline, 40.0, {"impratio": 100.0})
    assert loose > 0.01 and held < 0.15 * loose and stiff < 0.05 * loose, (loose, held, stiff)


def test_restitution_ball_rebounds_flex(gym):
    """XPBD: rebound height = e^2 * drop height, e the mean of the two shapes' restitutions
    (PhysX's default 'average' combine mode); MuJoCo has no restitution."""
    sim = make_sim(gym, "flex", restitution=0.9, dt=1 / 480, substeps=1)
    ball = gym.create_sphere(sim, 0.05, options())
    envs = []
    for e in (0.9, 0.0):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, ball, pose(z=1.05), "ball", 0, 0)
        sp = gym.get_actor_rigid_shape_properties(env, 0)
        sp[0].restitution = e
        gym.set_actor_rigid_shape_properties(env, 0, sp)
        envs.append(env)
    z = []
    for _ in range(int(1.2 * 480)):
        gym.simulate(sim)
        z.append([_p(_body(gym, e))[2] - 0.05 for e in envs])
    z = np.array(z)
    first = int(np.argmin(z[:, 0][: int(0.6 * 480)]))            # first impact (t ~ 0.45 s)
    rebound = z[first:].max(0)
    h = 1.0
    assert rebound[0] > 3 * rebound[1]
    assert rebound[0] == pytest.approx(0.9 ** 2 * h, rel=0.1)
    assert rebound[1] == pytest.approx(0.45 ** 2 * h, rel=0.2)


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_scaled_actor_has_8x_mass_and_twice_the_extent(gym, engine):
    sim = make_sim(gym, engine, dt=DT, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 1)
    gym.create_actor(env, box, pose(x=-0.5, z=0.1), "small", 0, 0)
    big = gym.create_actor(env, box, pose(x=0.5, z=0.2), "big", 0, 0)
    assert gym.set_actor_scale(env, big, 2.0)
    assert gym.get_actor_scale(env, big) == 2.0 and gym.get_actor_scale(env, 0) == 1.0
    m_small = gym.get_actor_rigid_body_properties(env, 0)[0]
    m_big = gym.get_actor_rigid_body_properties(env, big)[0]
    assert m_big.mass == pytest.approx(8 * m_small.mass)
    assert m_big.inertia.x.x == pytest.approx(32 * m_small.inertia.x.x)
    for _ in range(240):
        gym.simulate(sim)
    assert _p(_body(gym, env, 0))[2] == pytest.approx(0.1, abs=3e-3)
    assert _p(_body(gym, env, big))[2] == pytest.approx(0.2, abs=3e-3)   # resting height doubles
    # the simulated mass is 8x: the same lift force 1.5 * 64 kg * g accelerates it at g/2
    lift = 1.5 * m_big.mass * G
    v0 = _v(_body(gym, env, big))[2]
    for _ in range(24):
        gym.apply_body_forces(env, gym.get_actor_rigid_body_handle(env, big, 0), gymapi.Vec3(0, 0, lift), None)
        gym.simulate(sim)
    assert (_v(_body(gym, env, big))[2] - v0) / (24 * DT) == pytest.approx(0.5 * G, rel=0.03)
    # (scaling after prepare_sim: tests/physics/test_runtime_scale.py)


def test_scaling_a_urdf_scales_prismatic_limits_and_joint_positions(gym, tmp_path):
    from conftest import SLIDER_URDF, write
    write(tmp_path, "slider.urdf", SLIDER_URDF)
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=DT, substeps=1)
    asset = gym.load_asset(sim, str(tmp_path), "slider.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 1)
    h = gym.create_actor(env, asset, pose(z=1.0), "s", 0, 0)
    gym.set_actor_scale(env, h, 2.0)
    p = gym.get_actor_dof_properties(env, h)
    assert (p["lower"][0], p["upper"][0]) == pytest.approx((-1.0, 0.5))   # prismatic: scaled
    assert (p["lower"][1], p["upper"][1]) == pytest.approx((-1.0, 1.0))   # revolute: unchanged
    p["driveMode"] = [gymapi.DOF_MODE_VEL, gymapi.DOF_MODE_POS]   # the pole held upright
    p["stiffness"], p["damping"] = [0.0, 1000.0], [50.0, 100.0]
    gym.set_actor_dof_properties(env, h, p)
    st = gym.get_actor_dof_states(env, h, gymapi.STATE_ALL)
    st["pos"][0] = 0.4                                         # beyond the unscaled limit 0.25
    gym.set_actor_dof_states(env, h, st, gymapi.STATE_ALL)
    gym.set_actor_dof_velocity_targets(env, h, np.array([0.3, 0.0], np.float32))
    x = []
    for _ in range(240):
        gym.simulate(sim)
        x.append(gym.get_dof_position(env, 0))
    # stops at the scaled limit (MuJoCo's limit is a stiff spring: a short overshoot on impact)
    assert x[-1] == pytest.approx(0.5, abs=0.01) and max(x) < 0.55
    z = [float(_p(_body(gym, env, h, b))[2]) for b in range(3)]
    assert z[2] - z[1] == pytest.approx(0.1, abs=1e-4)           # joint origin 0.05 m -> 0.1 m


def test_shape_properties_and_shape_indices(gym):
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    sp = gym.get_asset_rigid_shape_properties(box)
    assert len(sp) == 1 and isinstance(sp[0], gymapi.RigidShapeProperties)
    sp[0].friction, sp[0].restitution, sp[0].rolling_friction = 0.3, 0.2, 0.01
    assert gym.set_asset_rigid_shape_properties(box, sp)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.1), "a", 0, 0)
    gym.create_actor(env, box, pose(x=1, z=0.1), "b", 0, 5)
    got = gym.get_actor_rigid_shape_properties(env, 1)[0]
    assert (got.friction, got.restitution, got.rolling_friction) == pytest.approx((0.3, 0.2, 0.01))
    assert got.filter == 5                                        # the actor's collision filter
    assert gym.get_actor_rigid_shape_count(env, 1) == 1
    r = gym.get_actor_rigid_body_shape_indices(env, 1)
    assert (r[0].start, r[0].count) == (1, 1)
    ra = gym.get_asset_rigid_body_shape_indices(box)
    assert (ra[0].start, ra[0].count) == (0, 1)
    gym.prepare_sim(sim)
    mu = sim.model.shape_material_mu.numpy()[sim.host.shape_newton]
    assert mu == pytest.approx([0.3, 0.3])                      # what the model uses


def test_colors_segmentation_and_dicts(gym, tmp_path):
    sim = make_sim(gym, "physx")
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, box, pose(z=0.1), "a", 0, 0, 7)
    assert gym.get_actor_asset(env, h) is box
    gym.set_rigid_body_color(env, h, 0, gymapi.MESH_VISUAL_AND_COLLISION, gymapi.Vec3(1, 0, 0))
    gym.set_rigid_body_color(env, h, 0, gymapi.MESH_VISUAL, gymapi.Vec3(0, 1, 0))
    c, cc = (gym.get_rigid_body_color(env, h, 0, gymapi.MESH_VISUAL),
             gym.get_rigid_body_color(env, h, 0, gymapi.MESH_COLLISION))
    assert (c.x, c.y, c.z) == (0, 1, 0) and (cc.x, cc.y, cc.z) == (1, 0, 0)
    gym.reset_actor_materials(env, h, gymapi.MESH_VISUAL)      # visual back to the asset's color
    c, cc = (gym.get_rigid_body_color(env, h, 0, gymapi.MESH_VISUAL),
             gym.get_rigid_body_color(env, h, 0, gymapi.MESH_COLLISION))
    assert (c.x, c.y, c.z) != (0, 1, 0) and (cc.x, cc.y, cc.z) == (1, 0, 0)
    assert gym.get_rigid_body_segmentation_id(env, h, 0) == 7      # the actor's by default
    gym.set_rigid_body_segmentation_id(env, h, 0, 3)
    assert gym.get_rigid_body_segmentation_id(env, h, 0) == 3
    assert gym.get_actor_rigid_body_dict(env, h) == {"box": 0}
    assert gym.get_actor_dof_dict(env, h) == {} and gym.get_actor_joint_dict(env, h) == {}
    assert gym.get_joint_type_string(gymapi.JOINT_REVOLUTE) == "Revolute"
    assert gym.get_dof_type_string(gymapi.DOF_TRANSLATION) == "Translation"


def test_rest_offset_is_the_contact_margin_flex(gym):
    """XPBD: a shape's rest_offset keeps it that far above what it rests on."""
    sim = make_sim(gym, "flex", dt=DT, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, box, pose(z=0.2), "box", 0, 0)
    sp = gym.get_actor_rigid_shape_properties(env, 0)
    assert sp[0].contact_offset > 0 and sp[0].rest_offset == 0.0     # Newton's gap and margin
    sp[0].rest_offset = 0.05
    gym.set_actor_rigid_shape_properties(env, 0, sp)
    for _ in range(240):
        gym.simulate(sim)
    assert _p(_body(gym, env))[2] == pytest.approx(0.15, abs=2e-3)
