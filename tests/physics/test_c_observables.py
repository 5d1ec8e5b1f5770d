"""Contact forces, force sensors and DOF forces on the MuJoCo C pipeline (core/mjc.py: MuJoCo's own
cfrc_ext / cfrc_int of every step) against MuJoCo-Warp on Warp's CPU backend (Newton's
observables, the path CUDA users get): the same scenes, the same inputs, readings that agree
within the two solvers' tolerance (float64 C vs float32 Warp, each warm-started its own way),
in Isaac Gym's frames and signs. Each scene also checks the physics both must satisfy."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, held_actor, make_sim, options, pose, write
from gymlike import gymapi, gymtorch
from gymlike.core import mjc

G = 9.81
PIPELINES = ("mujoco-c", "warp")


def on(monkeypatch, pipeline):
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)


def check_pipeline(sim, pipeline):
    assert (mjc.c_step(sim.solver) is not None) == (pipeline == "mujoco-c")


# ---------------------------------------------------------------------------- a quadruped
STAND = {"HAA": 0.0, "HFE": 0.7, "KFE": -1.4}
LEGS = ["LF", "RF", "LH", "RH"]


def quadruped_run(gym, pipeline, monkeypatch, push=0.0, frames=300):
    """Two quadrupeds under PD drives in the standing pose; env 0's trunk pushed down by `push`
    newtons (a body force, applied every frame from frame 60). -> (mass, feet forces (envs,
    4, 3), base forces (envs, 3), DOF forces (envs, 12))."""
    on(monkeypatch, pipeline)
    sim = make_sim(gym, dt=1 / 120, substeps=2)
    asset = gym.load_asset(sim, ASSETS, "urdf/quadruped/quadruped.urdf",
                           options(default_dof_drive_mode=int(gymapi.DOF_MODE_POS)))
    target = np.array([STAND[n.split("_")[1]] for n in gym.get_asset_dof_names(asset)], np.float32)
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        held_actor(gym, env, asset, pose(z=0.43), "q", target, 80.0, 2.0, i, 1)
        envs.append(env)
    gym.prepare_sim(sim)
    check_pipeline(sim, pipeline)
    cf = gymtorch.wrap_tensor(gym.acquire_net_contact_force_tensor(sim))
    df = gymtorch.wrap_tensor(gym.acquire_dof_force_tensor(sim))
    feet = [gym.find_actor_rigid_body_index(envs[0], 0, f"{leg}_foot", gymapi.DOMAIN_ENV) for leg in LEGS]
    nb = gym.get_env_rigid_body_count(envs[0])
    force = torch.zeros(2 * nb, 3)
    force[0, 2] = -push                                          # env 0's trunk (its body 0)
    for frame in range(frames):
        if frame >= 60 and push:
            gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(force), None, gymapi.ENV_SPACE)
        gym.simulate(sim)
    gym.refresh_net_contact_force_tensor(sim)
    gym.refresh_dof_force_tensor(sim)
    mass = sum(p.mass for p in gym.get_actor_rigid_body_properties(envs[0], 0))
    f = cf.view(2, nb, 3)
    out = mass, f[:, feet].clone().numpy(), f[:, 0].clone().numpy(), df.view(2, -1).clone().numpy()
    gym.destroy_sim(sim)
    return out


_QUADRUPED_RUNS = {}


def quadruped_runs(gym, monkeypatch):
    """quadruped_run with env 0 pushed by 100 N, once per pipeline for this module: env 1, never
    pushed, is the standing quadruped."""
    for p in PIPELINES:
        if p not in _QUADRUPED_RUNS:
            _QUADRUPED_RUNS[p] = quadruped_run(gym, p, monkeypatch, push=100.0)
    return _QUADRUPED_RUNS


@pytest.mark.slow   # (~16 s with the next: the fast tier compares the pipelines on the ant, gripper, arm)
def test_quadruped_standing_feet_carry_its_weight_on_both_pipelines(gym, monkeypatch):
    runs = {p: (mass, feet[1:], base[1:], dof[1:]) for p, (mass, feet, base, dof) in
            quadruped_runs(gym, monkeypatch).items()}                # env 1: standing, unpushed
    for p, (mass, feet, base, dof) in runs.items():
        total = feet.sum(1)                                       # (envs, 3)
        np.testing.assert_allclose(total[:, 2], mass * G, rtol=0.01, err_msg=p)
        np.testing.assert_allclose(feet[:, 0], feet[:, 1] * [1, -1, 1], atol=1e-3 * mass * G)   # left = right mirrored
        assert (feet[:, :, 2] > 0.15 * mass * G).all(), p         # every foot carries a share
        assert np.abs(base).max() < 1e-3, p                       # the trunk touches nothing
    (_, feet_c, _, dof_c), (_, feet_w, _, dof_w) = runs["mujoco-c"], runs["warp"]
    np.testing.assert_allclose(feet_c, feet_w, atol=0.02 * runs["warp"][0] * G)
    # the knees hold the trunk: the same joint torques (N m) on both
    np.testing.assert_allclose(dof_c, dof_w, atol=0.05 * np.abs(dof_w).max())
    assert np.abs(dof_w).max() > 1.0


@pytest.mark.slow
def test_a_pushed_quadruped_reads_the_push_in_its_feet_not_in_its_trunk(gym, monkeypatch):
    """A 100 N push on env 0's trunk (a body force, MuJoCo's xfrc_applied) is carried by its
    feet; the trunk itself touches nothing, so its contact force stays zero (the applied force
    is not a contact force), and env 1 is untouched."""
    runs = quadruped_runs(gym, monkeypatch)
    for p, (mass, feet, base, dof) in runs.items():
        np.testing.assert_allclose(feet[:, :, 2].sum(1), [mass * G + 100.0, mass * G], rtol=0.01, err_msg=p)
        assert np.abs(base).max() < 1e-3, p
    (mass, feet_c, _, dof_c), (_, feet_w, _, dof_w) = runs["mujoco-c"], runs["warp"]
    np.testing.assert_allclose(feet_c, feet_w, atol=0.02 * mass * G)
    np.testing.assert_allclose(dof_c, dof_w, atol=0.05 * np.abs(dof_w).max())


# ---------------------------------------------------------------------------- an ant with sensors
FEET = ["front_left_foot", "front_right_foot", "left_back_foot", "right_back_foot"]


def ant_sensors(gym, pipeline, monkeypatch, steps=60):
    """Two ants dropped from 0.6 m, at rest after 0.5 s, with world-frame sensors on the feet and
    a tilted one on the torso -> sensor readings (envs, 5, 6)."""
    on(monkeypatch, pipeline)
    sim = make_sim(gym, dt=1 / 120, substeps=2)
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    world = gymapi.ForceSensorProperties()
    world.use_world_frame = True
    for name in FEET:
        gym.create_asset_force_sensor(ant, gym.find_asset_rigid_body_index(ant, name), gymapi.Transform(), world)
    tilted = gymapi.Transform(gymapi.Vec3(0.0, 0.0, 0.05), gymapi.Quat.from_axis_angle(gymapi.Vec3(1, 0, 0), 0.7))
    gym.create_asset_force_sensor(ant, gym.find_asset_rigid_body_index(ant, "torso"), tilted)
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, ant, pose(z=0.6), "ant", i, 1)
    gym.prepare_sim(sim)
    check_pipeline(sim, pipeline)
    fs = gymtorch.wrap_tensor(gym.acquire_force_sensor_tensor(sim))
    for _ in range(steps):
        gym.simulate(sim)
    gym.refresh_force_sensor_tensor(sim)
    out = fs.clone().numpy().reshape(2, 5, 6)
    gym.destroy_sim(sim)
    return out


def test_ant_force_sensors_agree_between_pipelines(gym, monkeypatch):
    c, w = (ant_sensors(gym, p, monkeypatch) for p in PIPELINES)
    weight = w[:, :4, 2].sum(1)
    assert (weight > 8.0).all()
    # the torso sensor covers the whole ant (its subtree): the ground reaction in the sensor's
    # tilted frame, torque about its origin
    for r in (c, w):
        np.testing.assert_allclose(np.linalg.norm(r[:, 4, 0:3], axis=1), r[:, :4, 2].sum(1), rtol=0.01)
    np.testing.assert_allclose(c, w, atol=0.02 * weight.max())


def test_sensed_and_unsensed_bodies_both_read_their_contacts(gym, monkeypatch):
    """Force sensors read only their subtrees' contacts (on MuJoCo C only those are computed);
    a net contact force refresh after them still reads every body: two resting boxes, a
    sensor on the first, each box's support equals its weight in both tensors."""
    sim = make_sim(gym, dt=1 / 120, substeps=2)
    masses = (1.0, 3.0)
    assets = [gym.create_box(sim, 0.2, 0.2, 0.2, options(density=m / 0.008)) for m in masses]
    world = gymapi.ForceSensorProperties()
    world.use_world_frame = True
    gym.create_asset_force_sensor(assets[0], 0, gymapi.Transform(), world)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    for i, a in enumerate(assets):
        gym.create_actor(env, a, pose(x=0.5 * i, z=0.1), f"box{i}", 0, 0)
    gym.prepare_sim(sim)
    assert mjc.c_step(sim.solver) is not None
    fs = gymtorch.wrap_tensor(gym.acquire_force_sensor_tensor(sim))
    cf = gymtorch.wrap_tensor(gym.acquire_net_contact_force_tensor(sim))
    for _ in range(60):
        gym.simulate(sim)
    gym.refresh_force_sensor_tensor(sim)
    gym.refresh_net_contact_force_tensor(sim)
    assert float(fs[0, 2]) == pytest.approx(masses[0] * G, rel=0.01)
    np.testing.assert_allclose(cf[:, 2].numpy(), np.array(masses) * G, rtol=0.01)
    np.testing.assert_allclose(cf[:, :2].numpy(), 0.0, atol=1e-3)


# ---------------------------------------------------------------------------- a gripper holding a box
GRIPPER = """
<mujoco model="gripper">
  <worldbody>
    <body name="palm">
      <geom type="box" size="0.06 0.02 0.02" mass="0.5"/>
      <body name="left" pos="-0.05 0 -0.09">
        <joint name="left_slide" type="slide" axis="1 0 0" range="-0.03 0.06"/>
        <geom type="box" size="0.01 0.02 0.06" mass="0.1" friction="1.5"/>
      </body>
      <body name="right" pos="0.05 0 -0.09">
        <joint name="right_slide" type="slide" axis="-1 0 0" range="-0.03 0.06"/>
        <geom type="box" size="0.01 0.02 0.06" mass="0.1" friction="1.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def gripper_run(gym, pipeline, monkeypatch, tmp_path, steps=120):
    """A fixed gripper squeezes a 0.2 kg box off the ground with two PD-driven fingers for 0.5 s
    (a box it dropped would have fallen 1.2 m by then)."""
    on(monkeypatch, pipeline)
    sim = make_sim(gym, dt=1 / 240, substeps=2)
    path = write(tmp_path, "gripper.xml", GRIPPER)
    gripper = gym.load_asset(sim, str(tmp_path), "gripper.xml",
                             options(fix_base_link=True, default_dof_drive_mode=int(gymapi.DOF_MODE_POS)))
    del path
    box = gym.create_box(sim, 0.06, 0.04, 0.06, options(density=0.2 / (0.06 * 0.04 * 0.06)))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    g = gym.create_actor(env, gripper, pose(z=0.6), "gripper", 0, 0)
    b = gym.create_actor(env, box, pose(z=0.51), "box", 0, 0)
    props = gym.get_actor_dof_properties(env, g)
    props["stiffness"][:] = 400.0
    props["damping"][:] = 10.0
    gym.set_actor_dof_properties(env, g, props)
    gym.set_actor_dof_position_targets(env, g, np.array([0.03, 0.03], np.float32))   # 1 cm past the box
    gym.prepare_sim(sim)
    check_pipeline(sim, pipeline)
    cf = gymtorch.wrap_tensor(gym.acquire_net_contact_force_tensor(sim))
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    for _ in range(steps):
        gym.simulate(sim)
    gym.refresh_net_contact_force_tensor(sim)
    gym.refresh_actor_root_state_tensor(sim)
    fingers = [gym.find_actor_rigid_body_index(env, g, n, gymapi.DOMAIN_SIM) for n in ("left", "right")]
    box_body = gym.get_actor_rigid_body_index(env, b, 0, gymapi.DOMAIN_SIM)
    out = cf[fingers].clone().numpy(), cf[box_body].clone().numpy(), float(root[b, 2])
    gym.destroy_sim(sim)
    return out


def test_gripper_holds_a_box_and_both_pipelines_read_the_same_grip(gym, monkeypatch, tmp_path):
    runs = {p: gripper_run(gym, p, monkeypatch, tmp_path) for p in PIPELINES}
    for p, (fingers, box, z) in runs.items():
        assert z > 0.45, p                                         # held, not dropped
        np.testing.assert_allclose(box, [0, 0, 0.2 * G], atol=0.02 * 0.2 * G, err_msg=p)
        np.testing.assert_allclose(fingers.sum(0), -box, atol=0.02 * 0.2 * G, err_msg=p)   # action = reaction
        assert fingers[0, 0] < -1.0 and fingers[1, 0] > 1.0, p      # the box pushes the fingers apart
    # the squeeze is the same on both; how the box's weight splits between two fingers is
    # statically indeterminate (each solver's warm start picks a split), their sum is not
    c, w = runs["mujoco-c"][0], runs["warp"][0]
    np.testing.assert_allclose(c[:, 0], w[:, 0], rtol=0.02)
    np.testing.assert_allclose(c[:, 2].sum(), w[:, 2].sum(), rtol=0.02)


# ---------------------------------------------------------------------------- DOF forces of an arm
def arm_dof_forces(gym, pipeline, monkeypatch, steps=120):
    """A fixed 7-DOF arm held in a bent pose by stiff PD drives for 0.5 s (within 0.3% of its
    static joint torques by then) -> DOF forces."""
    on(monkeypatch, pipeline)
    sim = make_sim(gym, dt=1 / 240, substeps=1)
    arm = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf",
                         options(fix_base_link=True, default_dof_drive_mode=int(gymapi.DOF_MODE_POS)))
    n = gym.get_asset_dof_count(arm)
    q = np.zeros(n, np.float32)
    q[:7] = [0.0, 0.8, 0.0, -1.0, 0.0, 0.6, 0.0]
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    held_actor(gym, env, arm, pose(), "arm", q, 2000.0, 100.0)
    gym.prepare_sim(sim)
    check_pipeline(sim, pipeline)
    df = gymtorch.wrap_tensor(gym.acquire_dof_force_tensor(sim))
    for _ in range(steps):
        gym.simulate(sim)
    gym.refresh_dof_force_tensor(sim)
    out = df.clone().numpy()
    gym.destroy_sim(sim)
    return out


def test_arm_dof_forces_agree_between_pipelines(gym, monkeypatch):
    c, w = (arm_dof_forces(gym, p, monkeypatch) for p in PIPELINES)
    assert np.abs(w).max() > 1.0                                   # a loaded arm
    np.testing.assert_allclose(c, w, atol=0.01 * np.abs(w).max())
