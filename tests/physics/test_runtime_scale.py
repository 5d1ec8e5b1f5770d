"""set_actor_scale after the sim is prepared: Isaac Gym scales actors at runtime (its physics
docs; IsaacGymEnvs' scale randomization without setup_only), geometry, mass properties, joint
positions and prismatic limits, as set_actor_scale before prepare_sim does."""

import numpy as np
import pytest

from conftest import SLIDER_URDF, make_sim, options, pose, write
from gymlike import gymapi

DT = 1.0 / 120.0

# a tetrahedron: a mesh collision shape
TETRA = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
MESHY = """
<robot name="meshy"><link name="body"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><mesh filename="tetra.obj"/></geometry></collision></link></robot>"""


def _z(gym, env, actor, body=0):
    return float(gym.get_actor_rigid_body_states(env, actor, gymapi.STATE_POS)[body]["pose"]["p"]["z"])


@pytest.mark.parametrize("engine", ["physx", "flex"])
def test_a_falling_box_scaled_in_flight_lands_at_its_new_size_beside_an_unscaled_one(gym, engine):
    sim = make_sim(gym, engine, dt=DT, substeps=2)
    box = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, box, pose(z=0.6), "box", 0, 0)
        envs.append(env)
    m0 = gym.get_actor_rigid_body_properties(envs[1], 0)[0]
    for _ in range(5):
        gym.simulate(sim)                   # (prepared and in flight)
    z = _z(gym, envs[1], 0)
    assert z < 0.6 - 1e-3
    assert gym.set_actor_scale(envs[1], 0, 2.0)
    assert _z(gym, envs[1], 0) == pytest.approx(z, abs=1e-6)       # (scaled about its own origin)
    assert gym.get_actor_scale(envs[1], 0) == 2.0 and gym.get_actor_scale(envs[0], 0) == 1.0
    m1 = gym.get_actor_rigid_body_properties(envs[1], 0)[0]
    assert m1.mass == pytest.approx(8 * m0.mass)
    assert m1.inertia.x.x == pytest.approx(32 * m0.inertia.x.x)
    assert gym.get_actor_rigid_body_properties(envs[0], 0)[0].mass == pytest.approx(m0.mass)
    for _ in range(180):
        gym.simulate(sim)
    assert _z(gym, envs[0], 0) == pytest.approx(0.1, abs=4e-3)
    assert _z(gym, envs[1], 0) == pytest.approx(0.2, abs=4e-3)      # rests on a face twice as far out
    gym.set_actor_scale(envs[1], 0, 1.0)                            # and back
    for _ in range(120):
        gym.simulate(sim)
    assert _z(gym, envs[1], 0) == pytest.approx(0.1, abs=4e-3)
    assert gym.get_actor_rigid_body_properties(envs[1], 0)[0].mass == pytest.approx(m0.mass)


def test_runtime_scale_moves_joints_and_prismatic_limits(gym, tmp_path, backend):
    write(tmp_path, "slider.urdf", SLIDER_URDF)
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=DT, substeps=1)
    asset = gym.load_asset(sim, str(tmp_path), "slider.urdf", options(fix_base_link=True))
    env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 1)
    h = gym.create_actor(env, asset, pose(z=1.0), "s", 0, 0)
    gym.simulate(sim)
    assert _z(gym, env, h, 2) == pytest.approx(1.05, abs=1e-5)          # the hinge 0.05 m over the cart
    gym.set_actor_scale(env, h, 2.0)
    p = gym.get_actor_dof_properties(env, h)
    assert (p["lower"][0], p["upper"][0]) == pytest.approx((-1.0, 0.5))   # prismatic: scaled
    assert (p["lower"][1], p["upper"][1]) == pytest.approx((-1.0, 1.0))   # revolute: unchanged
    assert _z(gym, env, h, 2) == pytest.approx(1.1, abs=1e-5)            # read at once: the bodies follow
    assert _z(gym, env, h, 0) == pytest.approx(1.0, abs=1e-5)            # the base stays where it was put
    p["driveMode"] = [gymapi.DOF_MODE_VEL, gymapi.DOF_MODE_NONE]
    p["stiffness"], p["damping"] = [0.0, 0.0], [50.0, 0.0]
    gym.set_actor_dof_properties(env, h, p)
    gym.set_actor_dof_velocity_targets(env, h, np.array([0.5, 0.0], np.float32))
    for _ in range(240):
        gym.simulate(sim)
    assert _z(gym, env, h, 2) == pytest.approx(1.1, abs=1e-4)
    # the cart slid past the unscaled limit 0.25 and stops at the scaled one
    assert gym.get_dof_position(env, 0) == pytest.approx(0.5, abs=0.02)


def test_runtime_scale_of_a_mesh_actor_on_mujoco_is_refused_and_changes_nothing(gym, tmp_path):
    write(tmp_path, "tetra.obj", TETRA)
    write(tmp_path, "meshy.urdf", MESHY)
    sim = make_sim(gym, "physx", dt=DT)
    asset = gym.load_asset(sim, str(tmp_path), "meshy.urdf", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=0.5), "m", 0, 0)
    gym.simulate(sim)
    mass = gym.get_actor_rigid_body_properties(env, h)[0].mass
    with pytest.raises(NotImplementedError, match="mesh.*before prepare_sim"):
        gym.set_actor_scale(env, h, 2.0)
    assert gym.get_actor_scale(env, h) == 1.0
    assert gym.get_actor_rigid_body_properties(env, h)[0].mass == pytest.approx(mass)
    gym.simulate(sim)                                                  # (and the sim still steps)


def test_runtime_scale_of_a_soft_body_is_refused_and_changes_nothing(gym):
    sim = make_sim(gym, "flex", dt=DT)
    m = gymapi.SoftMaterial()
    m.youngs, m.poissons = 1e5, 0.3
    grid = gym.create_tet_grid(sim, m, 1, 1, 1, 0.1, 0.1, 0.1, 1000.0, False, False, False, False)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, grid, pose(z=0.2), "cube", 0, 0)
    gym.prepare_sim(sim)
    with pytest.raises(NotImplementedError, match="soft body.*cannot be scaled"):
        gym.set_actor_scale(env, h, 2.0)
    assert gym.get_actor_scale(env, h) == 1.0


def test_a_box_with_a_visual_mesh_scales_at_runtime_with_its_visual(gym, tmp_path):
    write(tmp_path, "tetra.obj", TETRA)
    write(tmp_path, "boxy.urdf", """
<robot name="boxy"><link name="body"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
  <visual><geometry><mesh filename="tetra.obj"/></geometry></visual>
  <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>""")
    sim = make_sim(gym, "physx", dt=DT, substeps=2, graphics=0)     # (a graphics device: visuals loaded)
    asset = gym.load_asset(sim, str(tmp_path), "boxy.urdf", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=0.6), "b", 0, 0)
    gym.simulate(sim)
    import newton
    from gymlike.core import handles
    model = handles.sim_of(sim).model
    visual = np.flatnonzero(model.shape_type.numpy() == int(newton.GeoType.MESH))
    assert len(visual) == 1
    before = model.shape_scale.numpy()[visual[0]].copy()
    gym.set_actor_scale(env, h, 2.0)
    assert np.allclose(model.shape_scale.numpy()[visual[0]], 2 * before)
    for _ in range(150):
        gym.simulate(sim)
    assert _z(gym, env, h) == pytest.approx(0.2, abs=4e-3)


CHAIN = """<mujoco><worldbody>
  <body name="a" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .1"/>
    <body name="b" pos="0.3 0 0"><joint name="h1" type="hinge" axis="0 1 0"/><geom type="capsule" size=".05 .1"/>
      <body name="c" pos="0.3 0 0"><joint name="h2" type="hinge" axis="0 1 0"/><geom type="sphere" size=".1"/>
  </body></body></body></worldbody>{}</mujoco>"""


def test_runtime_scale_of_an_mjcf_chain_moves_its_bodies(gym, tmp_path):
    write(tmp_path, "chain.xml", CHAIN.format(""))
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=DT)
    asset = gym.load_asset(sim, str(tmp_path), "chain.xml", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(z=1.0), "chain", 0, 0)
    gym.simulate(sim)

    def x(body):
        return float(gym.get_actor_rigid_body_states(env, h, gymapi.STATE_POS)[body]["pose"]["p"]["x"])
    assert x(2) - x(0) == pytest.approx(0.6, abs=1e-4)
    gym.set_actor_scale(env, h, 2.0)
    assert x(2) - x(0) == pytest.approx(1.2, abs=1e-4)
    for _ in range(10):
        gym.simulate(sim)
    assert x(2) - x(0) == pytest.approx(1.2, abs=1e-3)


def test_runtime_scale_of_an_mjcf_actor_with_an_equality_constraint_is_refused(gym, tmp_path):
    write(tmp_path, "linked.xml", CHAIN.format('<equality><joint joint1="h2" joint2="h1"/></equality>'))
    sim = make_sim(gym, "physx", dt=DT)
    asset = gym.load_asset(sim, str(tmp_path), "linked.xml", options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    h = gym.create_actor(env, asset, pose(), "linked", 0, 0)
    gym.simulate(sim)
    with pytest.raises(NotImplementedError, match="equality constraints"):
        gym.set_actor_scale(env, h, 1.5)
    assert gym.get_actor_scale(env, h) == 1.0
