"""The CPU pipeline on MuJoCo's C library (core/mjc.py, the default on the CPU) steps the same
scenes as the MuJoCo-Warp path (GYMLIKE_CPU_PIPELINE=warp) to within solver tolerance. (The
physics test files run on both pipelines through conftest's `backend` fixture.)"""

import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from conftest import (ASSETS, PENDULUM_URDF, TESTS, humanoid_sim, make_sim, options, pose, simulate_random_efforts,
                      write)
from gymlike import gymapi
from gymlike.core import mjc


@pytest.mark.parametrize("pipeline", ["mujoco-c", "warp"])
def test_fixed_slopes_in_spaced_envs_with_per_env_friction(gym, monkeypatch, pipeline):
    """Actors welded to the world are MuJoCo mocap bodies posed per env, and friction differs per
    env: a cube on a 20 degree slope sticks at mu 0.6 and slides at g (sin - 0.1 cos) at mu 0.1
    in every env of a spaced grid (on the C path the slopes once stayed at the first env's pose
    and the cubes of the other envs fell through)."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    angle, dt = math.radians(20), 1 / 240
    sim = make_sim(gym, ground=False, dt=dt, substeps=2)
    slope = gym.create_box(sim, 3.0, 1.0, 0.2, options(fix_base_link=True))
    cube = gym.create_box(sim, 0.2, 0.2, 0.2, options())
    q = gymapi.Quat.from_axis_angle(gymapi.Vec3(0, 1, 0), angle)
    c = gymapi.Vec3(0, 0, 1.0) + gymapi.Vec3(math.sin(angle), 0, math.cos(angle)) * 0.2
    envs = []
    for mu in (0.1, 0.6, 0.1, 0.6):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        for actor, asset, p in ((0, slope, pose(z=1.0, q=q)), (1, cube, pose(c.x, c.y, c.z, q))):
            gym.create_actor(env, asset, p, "a", 0, 0)
            sp = gym.get_actor_rigid_shape_properties(env, actor)
            sp[0].friction = mu
            gym.set_actor_rigid_shape_properties(env, actor, sp)
        envs.append(env)
    gym.prepare_sim(sim)
    assert (mjc.c_step(sim.solver) is not None) == (pipeline == "mujoco-c")
    down = np.array([math.cos(angle), 0, -math.sin(angle)])

    def speeds():
        return [float(np.array(gym.get_actor_rigid_body_states(e, 1, gymapi.STATE_VEL)["vel"]["linear"][0].tolist())
                      @ down) for e in envs]
    for _ in range(30):                 # contacts settled: the sliding cubes accelerate uniformly
        gym.simulate(sim)
    v0 = speeds()
    for _ in range(30):
        gym.simulate(sim)
    a = [(v1 - v) / (30 * dt) for v, v1 in zip(v0, speeds())]
    slide = 9.81 * (math.sin(angle) - 0.1 * math.cos(angle))
    assert a == pytest.approx([slide, 0.0, slide, 0.0], abs=0.05 * slide)

SCRIPT = r"""
import math, sys, numpy as np
sys.path.insert(0, %(tests)r)
from conftest import PENDULUM_URDF, make_sim, options, pose, write
from gymlike import gymapi
import pathlib, tempfile
gym = gymapi.acquire_gym()
tmp = pathlib.Path(tempfile.mkdtemp())
write(tmp, "p.urdf", PENDULUM_URDF.format(L=0.5))
sim = make_sim(gym, "physx", ground=False, dt=1 / 240, substeps=1)
pend = gym.load_asset(sim, str(tmp), "p.urdf", options(fix_base_link=True))
box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
envs = []
for i in range(3):
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
    gym.create_actor(env, pend, pose(0, 0, 2), "pend", i, 0)
    gym.create_actor(env, box, pose(0.5, 0, 3), "box", i, 0)
    envs.append(env)
gym.prepare_sim(sim)
# env 1: a PD drive to 0.5 rad; env 2: heavier bob (per-world mass); env 0: free swing from 0.3
st = gym.get_actor_dof_states(envs[0], 0, gymapi.STATE_ALL); st["pos"] = 0.3
gym.set_actor_dof_states(envs[0], 0, st, gymapi.STATE_ALL)
pr = gym.get_actor_dof_properties(envs[1], 0)
pr["driveMode"][0] = gymapi.DOF_MODE_POS; pr["stiffness"][0] = 50.0; pr["damping"][0] = 5.0
gym.set_actor_dof_properties(envs[1], 0, pr)
gym.set_actor_dof_position_targets(envs[1], 0, np.array([0.5], np.float32))
bp = gym.get_actor_rigid_body_properties(envs[2], 0); bp[1].mass = 3.0
gym.set_actor_rigid_body_properties(envs[2], 0, bp, True)
st = gym.get_actor_dof_states(envs[2], 0, gymapi.STATE_ALL); st["pos"] = -0.4
gym.set_actor_dof_states(envs[2], 0, st, gymapi.STATE_ALL)
for _ in range(240):
    gym.simulate(sim)
q = [float(gym.get_actor_dof_states(e, 0, gymapi.STATE_POS)["pos"][0]) for e in envs]
z = [float(gym.get_actor_rigid_body_states(e, 1, gymapi.STATE_POS)["pose"]["p"]["z"][0]) for e in envs]
from gymlike.core import mjc
print("RESULT", q, z, type(sim.solver).__name__)
"""


def run(pipeline):
    env = dict(os.environ, GYMLIKE_CPU_PIPELINE=pipeline)
    out = subprocess.run([sys.executable, "-c", SCRIPT % {"tests": TESTS}], env=env, capture_output=True,
                         text=True, timeout=600)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
    assert line, out.stderr[-2000:]
    body, kind = line[0][len("RESULT "):].rsplit(" ", 1)
    q, z = body.split("] [")
    return ([float(v) for v in q.strip("[]").split(",")], [float(v) for v in z.strip("[]").split(",")]), kind


@pytest.mark.slow
def test_c_pipeline_matches_mujoco_warp_on_pendulums_drives_per_world_masses_and_free_fall():
    (q_c, z_c), kind_c = run("mujoco-c")
    (q_w, z_w), kind_w = run("warp")
    assert kind_c == "SolverMuJoCoC" and kind_w == "SolverMuJoCoWarp"
    np.testing.assert_allclose(q_c, q_w, atol=2e-3)       # same pendulum angles after 1 s
    # the PD drive settled where it balances gravity: k (0.5 - q) = m g L sin(q)
    assert 50.0 * (0.5 - q_c[1]) == pytest.approx(1.0 * 9.81 * 0.5 * np.sin(q_c[1]), rel=0.05)
    # free fall for 240 steps of 1/240 s from z = 3: semi-implicit Euler's z0 - g h^2 n (n + 1) / 2
    # (the discrete form of z0 - g t^2 / 2) on both paths
    np.testing.assert_allclose(z_c, 3.0 - 9.81 * (1 / 240) ** 2 * 240 * 241 / 2, atol=1e-4)
    np.testing.assert_allclose(z_c, z_w, atol=1e-3)


@pytest.mark.slow
def test_bad_pipeline_name_is_an_error():
    env = dict(os.environ, GYMLIKE_CPU_PIPELINE="fast")
    code = ("from gymlike import gymapi; from conftest import make_sim; import sys; "
            "gym = gymapi.acquire_gym(); sim = make_sim(gym); "
            "b = gym.create_box(sim, .1, .1, .1, gymapi.AssetOptions()); "
            "e = gym.create_env(sim, gymapi.Vec3(-1,-1,0), gymapi.Vec3(1,1,1), 1); "
            "gym.create_actor(e, b, gymapi.Transform(p=gymapi.Vec3(0,0,1)), 'b', 0, 0); gym.prepare_sim(sim)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, cwd=TESTS)
    assert out.returncode != 0 and "GYMLIKE_CPU_PIPELINE must be one of mujoco-c, warp, got 'fast'" in out.stderr


def test_c_pipeline_results_do_not_depend_on_the_thread_count(gym, monkeypatch):
    """Worlds are spread over MuJoCo's batch threads, each thread reusing one MjData for many
    worlds: nothing may leak from one world to the next (warm start, contacts), so one thread and
    two give bitwise the same trajectories of ants kicked by large random efforts."""
    import torch
    from gymlike import gymtorch
    finals = []
    for threads in (1, 2):
        monkeypatch.setattr(os, "cpu_count", lambda: threads)
        sim = make_sim(gym, dt=1 / 60, substeps=2)
        ant = gym.load_asset(sim, os.path.join(os.path.dirname(TESTS), "assets"), "mjcf/nv_ant.xml",
                             gymapi.AssetOptions())
        for i in range(4):
            env = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), 2)
            gym.create_actor(env, ant, pose(z=0.75), "ant", i, 0)
        gym.prepare_sim(sim)
        assert mjc.c_step(sim.solver).batch.nthread == threads
        g = torch.Generator().manual_seed(0)
        f = torch.zeros(gym.get_sim_dof_count(sim))
        for _ in range(40):
            f.uniform_(-15, 15, generator=g)
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
            gym.simulate(sim)
        finals.append(sim.state.joint_q.numpy().copy())
        gym.destroy_sim(sim)
    assert np.abs(finals[0][:7] - np.array([0, 0, 0.75, 0, 0, 0, 1])).max() > 0.01    # they moved
    np.testing.assert_array_equal(finals[0], finals[1])


def _ants(gym, n, asset="mjcf/nv_ant.xml", z=0.75, **opts):
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    o = gymapi.AssetOptions()
    for k, v in opts.items():
        setattr(o, k, v)
    ant = gym.load_asset(sim, os.path.join(os.path.dirname(TESTS), "assets"), asset, o)
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1.5, -1.5, 0), gymapi.Vec3(1.5, 1.5, 1.5), 2)
        gym.create_actor(env, ant, pose(z=z), "ant", i, 0)
    gym.prepare_sim(sim)
    return sim


def test_efforts_written_on_mujocos_rows_equal_newtons_conversion(gym, monkeypatch):
    """On the C pipeline efforts go straight into MuJoCo's qfrc_applied rows: the motion is bit
    for bit that of the path through Newton's joint_f and its conversion, with efforts beyond
    the effort limits (clamped), DOFs in position mode (efforts ignored), a handle-API effort,
    and steps without efforts after them (they act for one simulate only)."""
    import torch
    from gymlike import gymtorch
    got = []
    for on_rows in (True, False):
        if not on_rows:
            monkeypatch.setattr(mjc.SolverMuJoCoC, "write_efforts", lambda self, dev: False)
        sim = _ants(gym, 3)
        env1 = gym.get_env(sim, 1)
        p = gym.get_actor_dof_properties(env1, 0)
        p["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        p["driveMode"][2] = gymapi.DOF_MODE_POS
        p["stiffness"][2] = 20.0
        p["effort"][:] = 5.0
        gym.set_actor_dof_properties(env1, 0, p)
        cs = mjc.c_step(sim.solver)
        calls = []
        monkeypatch.setattr(cs, "write_efforts", lambda dev, _f=cs.write_efforts: calls.append(_f(dev)) or calls[-1])
        dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        f = torch.linspace(-12, 12, gym.get_sim_dof_count(sim))
        for k in range(12):
            if k < 8:
                gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f * (1 + 0.1 * k)))
            if k == 3:
                gym.apply_actor_dof_efforts(gym.get_env(sim, 2), 0, np.full(8, 30.0, np.float32))
            gym.simulate(sim)
        gym.refresh_dof_state_tensor(sim)
        assert calls == ([True] * 8 if on_rows else [False] * 8)
        got.append(dof.clone())
        gym.destroy_sim(sim)
    assert torch.equal(got[0], got[1])


def test_states_read_late_equal_states_read_every_frame(gym):
    """On the C pipeline MuJoCo's state is the truth and Newton's joint and body states are
    converted when first read: a loop that reads every 4th frame (an RL task's decimation) sees
    bitwise what a loop reading every frame sees, and reading changes nothing."""
    import torch
    from gymlike import gymtorch
    seen, truth = [], []
    for every in (1, 4):
        sim = _ants(gym, 3, angular_damping=0.0)     # (damping reads body velocities every frame)
        assert mjc.c_step(sim.solver) is not None
        root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
        g = torch.Generator().manual_seed(1)
        f = torch.zeros(gym.get_sim_dof_count(sim))
        out = []
        for frame in range(1, 61):
            f.uniform_(-3, 3, generator=g)     # (mild: no body near its speed cap, see below)
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
            gym.simulate(sim)
            if every == 4 and frame == 1:      # nothing read the state: its conversion waits
                assert sim.backend.cur.pending is not None
            if frame % every == 0:
                gym.refresh_actor_root_state_tensor(sim)
                gym.refresh_dof_state_tensor(sim)
                gym.refresh_rigid_body_state_tensor(sim)
                if frame % 4 == 0:
                    out.append(torch.cat([root.flatten(), dof.flatten(), body.flatten()]).clone())
        seen.append(torch.stack(out))
        truth.append(mjc.c_step(sim.solver).batch.state.copy())    # MuJoCo's float64 state
        gym.destroy_sim(sim)
    assert (seen[0][-1] - seen[0][0]).abs().max() > 0.01          # they moved
    assert torch.equal(seen[0], seen[1])
    np.testing.assert_array_equal(truth[0], truth[1])


def _bounds_walking_up_the_tree(m, qvel):
    """The C step's documented speed bounds, body by body, walking from each body up to the
    root: |w_b| <= sum of the angular |qvel| above b; |v_b| <= sum of the linear |qvel| + each
    angular |qvel| times (its anchor offset + the body offsets from its body down to b + b's COM
    offset). An oracle for kernels.row_checks, which sums them down the tree."""
    import mujoco
    J = mujoco.mjtJoint
    w, v = np.zeros((len(qvel), m.nbody)), np.zeros((len(qvel), m.nbody))
    for b in range(1, m.nbody):
        reach, a = 0.0, b
        while a > 0:
            for d in range(m.body_dofadr[a], m.body_dofadr[a] + m.body_dofnum[a]):
                j = m.dof_jntid[d]
                t = int(m.jnt_type[j])
                s = np.abs(qvel[:, d])
                if (t in (int(J.mjJNT_HINGE), int(J.mjJNT_BALL))
                        or (t == int(J.mjJNT_FREE) and d - m.jnt_dofadr[j] >= 3)):
                    w[:, b] += s
                    v[:, b] += s * (np.linalg.norm(m.jnt_pos[j]) + reach + np.linalg.norm(m.body_ipos[b]))
                else:
                    v[:, b] += s
            reach += np.linalg.norm(m.body_pos[a])
            a = m.body_parentid[a]
    return w, v


def test_speed_bound_of_the_c_step_holds_over_exact_body_speeds(gym):
    """The C step skips the body speed caps when a bound from MuJoCo's velocities shows no body
    can reach them; the bound is checked against every body's exact speed (forward kinematics)
    of ants kicked by large random efforts."""
    import torch
    from gymlike import gymtorch
    n = 4
    sim = _ants(gym, n)
    cs = mjc.c_step(sim.solver)
    body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim)).view(n, -1, 13)
    g = torch.Generator().manual_seed(2)
    f = torch.zeros(gym.get_sim_dof_count(sim))
    ratio = []
    for _ in range(40):
        f.uniform_(-15, 15, generator=g)
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
        gym.simulate(sim)
        w_bound, v_bound = cs.speed_bounds()
        walked = _bounds_walking_up_the_tree(cs.template, cs.rows["qvel"].reshape(n, -1))
        np.testing.assert_allclose(cs._body_bounds(), walked, rtol=1e-12, atol=1e-12)
        gym.refresh_rigid_body_state_tensor(sim)
        v = body[:, :, 7:10].norm(dim=2).max(dim=1).values.numpy()
        w = body[:, :, 10:13].norm(dim=2).max(dim=1).values.numpy()
        assert (w <= w_bound * (1 + 1e-5) + 1e-6).all() and (v <= v_bound * (1 + 1e-5) + 1e-6).all()
        w_tight, _ = cs.speed_bounds(tight=True)
        assert (w <= w_tight * (1 + 1e-5) + 1e-6).all() and (w_tight <= w_bound * (1 + 1e-12)).all()
        ratio.append(max((w / w_bound).max(), (v / v_bound).max()))
    assert max(ratio) > 0.1       # a bound, not a wild overestimate
    gym.destroy_sim(sim)


CHAIN_MJCF = """<mujoco><worldbody><body name="base" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/>
  <body name="arm"><joint name="shoulder" type="ball"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    <body name="hand" pos="0.3 0 0"><joint name="wrist" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="0.5"/></body></body></body></worldbody></mujoco>"""


def test_angular_speed_bound_uses_the_axes_geometry_and_holds(gym, tmp_path):
    """The angular speed bound of the C step takes the angle between axes fixed in one frame
    (the three axes of a ball joint, built as three hinges in one body, a hinge and the next):
    on a free base with a ball shoulder and a hinge wrist kicked by random efforts it holds over
    every body's exact speed and stays well below the plain sum of the joint speeds."""
    import torch
    from gymlike import gymtorch
    write(tmp_path, "chain.xml", CHAIN_MJCF)
    sim = make_sim(gym, dt=1 / 60, substeps=2, ground=False, gravity=0.0)
    asset = gym.load_asset(sim, str(tmp_path), "chain.xml", options(angular_damping=0.0, max_angular_velocity=1e4,
                                                                     default_dof_drive_mode=gymapi.DOF_MODE_EFFORT))
    n = 3
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, asset, pose(z=1.0), "chain", i, 0)
    gym.prepare_sim(sim)
    cs = mjc.c_step(sim.solver)
    assert gym.get_sim_dof_count(sim) == 4 * n
    body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim)).view(n, -1, 13)
    g = torch.Generator().manual_seed(5)
    f = torch.zeros(4 * n)
    ratio, vs_sum = [], []
    for _ in range(60):
        f.uniform_(-0.05, 0.05, generator=g)
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
        gym.simulate(sim)
        w_bound, _ = cs.speed_bounds(tight=True)
        gym.refresh_rigid_body_state_tensor(sim)
        w = body[:, :, 10:13].norm(dim=2).max(dim=1).values.numpy()
        assert (w <= w_bound * (1 + 1e-5) + 1e-6).all()
        ratio.append((w / w_bound).max())
        qvel = np.abs(cs.rows["qvel"]).reshape(n, -1)
        vs_sum.append((w_bound / (qvel[:, 3:].sum(1))).mean())    # (all angular DOFs lie on the wrist's chain)
    assert max(ratio) > 0.5                  # a bound, not a wild overestimate
    assert np.mean(vs_sum) < 0.95            # tighter than the sum of joint speeds
    gym.destroy_sim(sim)


BALL_MJCF = """<mujoco><worldbody><body name="base" pos="0 0 1"><geom type="box" size=".05 .05 .05" mass="1"/>
  <body name="arm"><joint name="ball" type="ball"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body></body></worldbody></mujoco>"""


def test_ball_joint_efforts_are_the_same_when_states_are_read_late(gym, tmp_path):
    """An MJCF ball joint (three hinge DOFs) driven by efforts about two axes: a run that never
    reads the state until the end equals one that reads it every frame (the C step's inputs
    never depend on a state it has not converted yet)."""
    import torch
    from gymlike import gymtorch
    write(tmp_path, "ball.xml", BALL_MJCF)
    finals = []
    for read in (True, False):
        sim = make_sim(gym, dt=1 / 60, substeps=2, ground=False, gravity=0.0)
        asset = gym.load_asset(sim, str(tmp_path), "ball.xml", options(fix_base_link=True, angular_damping=0.0,
                                                                        default_dof_drive_mode=gymapi.DOF_MODE_EFFORT))
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
        gym.create_actor(env, asset, pose(z=0.0), "ball", 0, 0)
        gym.prepare_sim(sim)
        assert gym.get_sim_dof_count(sim) == 3
        dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        tau = torch.tensor([0.0, 0.0, 0.05])
        for frame in range(90):
            if frame == 30:
                tau = torch.tensor([0.0, 0.05, 0.0])    # about y once the arm has turned about z
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(tau))
            gym.simulate(sim)
            if read:
                gym.refresh_dof_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        finals.append(dof.clone())
        gym.destroy_sim(sim)
    assert finals[0].abs().max() > 0.1
    assert torch.equal(finals[0], finals[1])


def test_dof_states_on_mujocos_rows_equal_the_newton_path(gym, monkeypatch):
    """The C step reads and writes hinge DOF states on MuJoCo's rows (no Newton conversion):
    an indexed DOF reset of some envs' ants, the DOF tensor, the bodies that follow (forward
    kinematics) and the motion after it equal those of the Newton path (dof_cells None), and
    the envs not listed keep their state bit for bit."""
    import torch
    from gymlike import gymtorch
    got = []
    for rows in (True, False):
        if not rows:       # (the bodies too: each path's forward kinematics rounds its own way)
            monkeypatch.setattr(mjc.SolverMuJoCoC, "dof_cells", lambda self, dof_qd: None)
            monkeypatch.setattr(mjc, "body_rows", lambda sim: None)
        sim = _ants(gym, 3)
        cs = mjc.c_step(sim.solver)
        dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        body = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
        f = torch.linspace(-2, 2, gym.get_sim_dof_count(sim))
        for _ in range(10):
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
            gym.simulate(sim)
        gym.refresh_dof_state_tensor(sim)
        gym.refresh_rigid_body_state_tensor(sim)
        dof0, body0 = dof.clone(), body.clone()
        new = dof.clone()
        new[:, 0] = torch.linspace(-0.4, 0.4, new.shape[0])
        new[:, 1] = 0.5
        ids = torch.tensor([2, 0], dtype=torch.int32)            # the ants of envs 2 and 0
        warm = cs.flat["qacc_warmstart"].copy()
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), 2)
        assert (sim.backend.cur.pending == cs.sync) == rows   # (rows: Newton's state follows when read)
        if rows:       # (the written worlds forget their warm start, the others keep it)
            assert np.abs(warm).max() > 0 and not cs.flat["qacc_warmstart"][[0, 2]].any()
            assert np.array_equal(cs.flat["qacc_warmstart"][1], warm[1])
        gym.refresh_dof_state_tensor(sim)
        written = dof.clone()
        gym.refresh_rigid_body_state_tensor(sim)
        moved = body.clone()
        per = dof.shape[0] // 3
        env1 = slice(per, 2 * per)
        assert torch.equal(written[env1], dof0[env1])
        torch.testing.assert_close(written[:per], new[:per], atol=0, rtol=0)
        torch.testing.assert_close(written[2 * per:], new[2 * per:], atol=0, rtol=0)
        nb = body.shape[0] // 3
        assert torch.equal(moved[nb:2 * nb], body0[nb:2 * nb])
        assert not torch.allclose(moved[:nb], body0[:nb], atol=1e-3)     # the legs followed their DOFs
        for _ in range(20):
            gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
            gym.simulate(sim)
        gym.refresh_dof_state_tensor(sim)
        gym.refresh_rigid_body_state_tensor(sim)
        got.append((written, moved, dof.clone(), body.clone(), cs))
        gym.destroy_sim(sim)
    for a, b in zip(got[0][:4], got[1][:4]):
        torch.testing.assert_close(a, b, atol=2e-4, rtol=0)


def test_body_wrenches_on_mujocos_rows_equal_newtons_conversion(gym, monkeypatch):
    """Body wrenches (damping, a body with gravity off, user forces through the tensor API and
    the handle API) on the C step: computed on MuJoCo's rows (kernels.row_body_wrenches, the
    default), else copied from Newton's body_f into MuJoCo's xfrc_applied rows, else through
    Newton's whole conversion. The copy is bit for bit the conversion; the rows' float64
    kinematics equal it to float32 precision; steps without forces after them included."""
    import torch
    from gymlike import gymtorch
    got = {}
    for mode in ("rows", "copy", "convert"):
        if mode != "rows":
            monkeypatch.setattr(mjc.SolverMuJoCoC, "row_wrenches_ok", lambda self: False)
        if mode == "convert":
            monkeypatch.setattr(mjc.SolverMuJoCoC, "_body_f_rows", lambda self: None)
        sim = _ants(gym, 3, angular_damping=0.5, linear_damping=0.2)
        env1 = gym.get_env(sim, 1)
        props = gym.get_actor_rigid_body_properties(env1, 0)
        props[3].flags = gymapi.RIGID_BODY_DISABLE_GRAVITY
        gym.set_actor_rigid_body_properties(env1, 0, props)
        cs = mjc.c_step(sim.solver)
        calls = {"copy": [], "rows": []}
        monkeypatch.setattr(cs, "_write_body_f", lambda f, _w=cs._write_body_f: calls["copy"].append(1) or _w(f))
        monkeypatch.setattr(cs, "_write_row_wrenches", lambda d, h, _w=cs._write_row_wrenches:
                            calls["rows"].append(1) or _w(d, h))
        root = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
        n = gym.get_sim_rigid_body_count(sim)
        forces = torch.zeros((n, 3))
        forces[:, 2] = torch.linspace(-40, 60, n)
        for k in range(10):
            if k < 4:
                gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(forces * (1 + k)), None,
                                                   gymapi.ENV_SPACE)
            if k == 5:
                gym.apply_body_forces(gym.get_env(sim, 2), 0, gymapi.Vec3(0, 50, 0), None, gymapi.ENV_SPACE)
            gym.simulate(sim)
        gym.refresh_rigid_body_state_tensor(sim)
        # (copy: the first step converts the drive targets too)
        assert len(calls["copy"]) == {"rows": 0, "copy": 9, "convert": 0}[mode]
        assert len(calls["rows"]) == (10 if mode == "rows" else 0)
        got[mode] = root.clone()
        gym.destroy_sim(sim)
    assert (got["copy"][:, 2] - 0.75).abs().max() > 0.05          # (the forces moved them)
    assert torch.equal(got["copy"], got["convert"])
    torch.testing.assert_close(got["rows"], got["convert"], atol=2e-5, rtol=0)


def _cartpoles(gym, n, **opts):
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    cart = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", options(fix_base_link=True, **opts))
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, cart, pose(z=1.0), "cartpole", i, 0)
    gym.prepare_sim(sim)
    return sim


@pytest.mark.parametrize("linear", [0.3, 0.0], ids=["linear_damping", "angular_only"])
@pytest.mark.parametrize("robot", ["humanoid", "cartpole"])
def test_row_wrench_kernel_equals_newtons_kernel_on_the_same_states(gym, robot, linear):
    """The wrenches kernels.row_body_wrenches writes into MuJoCo's xfrc_applied rows (its own
    forward kinematics of MuJoCo's qpos / qvel: a free root, hinges with anchors off the body
    origin and several per body (the humanoid), slides and a fixed base (the cartpole),
    per-world masses) equal those of Newton's kernel on Newton's
    conversion of the same rows (kernels.body_wrenches), body by body, with damping, user
    forces and a body with gravity off, in moving states (the speed caps' exact
    speeds, from the same kinematics: test_control_drives). Without linear damping the kernel
    computes rotations and angular velocities alone (_mj_spin): bit for bit those of the whole
    kinematics."""
    import torch
    import warp as wp
    from gymlike import gymtorch
    from gymlike.core import kernels
    sim = (_ants(gym, 3, "mjcf/humanoid.xml", 1.4, angular_damping=0.5, linear_damping=linear) if robot == "humanoid"
           else _cartpoles(gym, 3, angular_damping=0.5, linear_damping=linear))
    env1 = gym.get_env(sim, 1)
    props = gym.get_actor_rigid_body_properties(env1, 0)
    props[-1].flags = gymapi.RIGID_BODY_DISABLE_GRAVITY
    props[-1].mass *= 1.7                                   # (a per-world mass)
    gym.set_actor_rigid_body_properties(env1, 0, props, True)
    dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    moving = dof.clone()
    moving[:, 0] += torch.linspace(-0.3, 0.3, moving.shape[0])
    moving[:, 1] = torch.linspace(-3.0, 4.0, moving.shape[0])
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(moving))
    n = gym.get_sim_rigid_body_count(sim)
    forces = torch.zeros((n, 3))
    forces[:, 0] = torch.linspace(-5, 7, n)
    for _ in range(3):
        gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(forces), None, gymapi.ENV_SPACE)
        gym.simulate(sim)
    cs = mjc.c_step(sim.solver)
    assert cs.row_wrenches_ok()
    d, span = sim.dev, 1 / 60
    d.body_force.assign(np.tile([1.0, -2.0, 3.0, 0.5, -0.25, 0.125], (d.num_bodies, 1)).astype(np.float32))
    xfrc = cs.flat["xfrc_applied"].reshape(cs.nworld, -1, 6)
    xfrc[:, 1:] = np.nan                                    # (body 0: MuJoCo's world)
    cs._write_row_wrenches(d, span)
    rows = xfrc.copy()
    assert cs.memo.get("linear", (d.lin_damp,), None) == int(linear > 0)
    xfrc[:, 1:] = np.nan
    wp.launch(kernels.row_body_wrenches, dim=cs.nworld, device="cpu",     # (the whole kinematics)
              inputs=[cs._wrench_tables()[0], d.body_force, d.no_gravity, d.lin_damp, d.ang_damp,
                      sim.model.body_world, sim.model.gravity, span, 1, 0])
    np.testing.assert_array_equal(xfrc, rows)
    st = sim.state                                          # (Newton's conversion of the same rows)
    f = wp.zeros(d.num_bodies, dtype=wp.spatial_vector, device=sim.device)
    m = sim.model
    wp.launch(kernels.body_wrenches, dim=d.num_bodies, device=sim.device,
              inputs=[st.body_q, st.body_qd, m.body_mass, m.body_inertia, m.body_world, m.gravity, d.body_force,
                      d.no_gravity, d.lin_damp, d.ang_damp, span, f])
    w, mb, nb, _ = cs._body_f_rows()
    newton = f.numpy()[nb]
    speeds = np.linalg.norm(st.body_qd.numpy()[:, 3:], axis=1)
    assert speeds.max() > 1.0 and np.abs(newton[:, 3:]).max() > 0.05    # (moving, damped)
    np.testing.assert_allclose(rows[w, mb], newton, atol=2e-5 * max(1.0, np.abs(newton).max()), rtol=1e-4)
    assert np.isfinite(rows[:, 1:]).all()                   # (every body written)
    gym.destroy_sim(sim)


def test_benchmark_references_replay_the_c_steps(gym, monkeypatch):
    """benchmarks/raw_mujoco.py's Recorder replays gymlike's MuJoCo steps outside gymlike (the
    references bench_real_tasks.py divides by): recorded over 6 simulates of 3 humanoids under
    random efforts (2 substeps each), the steps replayed as one long rollout with the recorded
    inputs end bit for bit in the state gymlike's batch holds, and the per-call replay runs."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "mujoco-c")
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
    from raw_mujoco import Recorder
    sim = humanoid_sim(gym, 3)
    cs = mjc.c_step(sim.solver)
    assert cs is not None
    gym.simulate(sim)          # (the batch takes the sim's timestep at the first step: record after it)
    rec = Recorder(cs)
    rec.recording = True
    simulate_random_efforts(gym, sim, 6, 20.0, seed=0)
    rec.recording = False
    assert [r[3] for r in rec.records] == [2] * 6            # (one batch call of both substeps each)
    assert rec.replay_whole() > 0 and rec.replay() > 0
    np.testing.assert_array_equal(rec.whole[:, -1], cs.batch.state[:, rec.x_cols])


def _spinning_pendulums(gym, tmp_path, env):
    """2 envs of a pendulum; env `env`'s hinge set spinning at 1e12 rad/s, which makes MuJoCo C
    warn ("Nan, Inf or huge value in QVEL") in its next step."""
    write(tmp_path, "p.urdf", PENDULUM_URDF.format(L=0.5))
    sim = make_sim(gym, ground=False)
    asset = gym.load_asset(sim, str(tmp_path), "p.urdf", options(fix_base_link=True))
    for i in range(2):
        e = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(e, asset, pose(z=1.0), "p", i, 0)
    gym.prepare_sim(sim)
    spin(gym, sim, env)
    return sim


def spin(gym, sim, env):
    states = gym.get_actor_dof_states(gym.get_env(sim, env), 0, gymapi.STATE_ALL)
    states["vel"][0] = 1e12
    gym.set_actor_dof_states(gym.get_env(sim, env), 0, states, gymapi.STATE_VEL)


def test_mujocos_own_warnings_are_python_warnings_once_per_sim(gym, tmp_path, monkeypatch, capfd):
    """MuJoCo C's warnings in a sim's steps come as one Python RuntimeWarning per kind and sim,
    not as MuJoCo's console lines and its MUJOCO_LOG.TXT in the working folder; a warning
    handler the client installed keeps receiving them, and gymlike leaves none installed."""
    import mujoco
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "mujoco-c")
    monkeypatch.chdir(tmp_path)
    assert mujoco.get_mju_user_warning() is None
    sim = _spinning_pendulums(gym, tmp_path, 1)
    assert mjc.c_step(sim.solver) is not None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            gym.simulate(sim)
        spin(gym, sim, 0)                                  # (the same kind again: not given again)
        gym.simulate(sim)
    told = [str(w.message) for w in seen if "MuJoCo warned" in str(w.message)]
    assert len(told) == 1 and told[0].startswith("MuJoCo warned: Nan, Inf or huge value in QVEL at DOF 0"), told
    assert seen[[str(w.message) for w in seen].index(told[0])].category is RuntimeWarning
    assert "WARNING" not in capfd.readouterr().out
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()
    assert mujoco.get_mju_user_warning() is None
    # a client's own handler gets them, and gymlike says nothing
    mine = []
    mujoco.set_mju_user_warning(mine.append)
    try:
        sim = _spinning_pendulums(gym, tmp_path, 0)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            gym.simulate(sim)
        assert mujoco.get_mju_user_warning() is not None
    finally:
        mujoco.set_mju_user_warning(None)
    assert len(mine) == 1 and mine[0].startswith("Nan, Inf or huge value in QVEL"), mine
    assert not [w for w in seen if "MuJoCo warned" in str(w.message)]
