"""PhysX's joint rows on SIM_PHYSX (issue 40, items 2 and 3; core/joint_rows.py).

* DOF velocity limits act inside the step as equal and opposite joint impulses: a free-floating
  articulation whose joint is driven past its limit keeps its momentum (its centre of mass
  falls as in free fall, no sideways drift), the joint never exceeds the limit, and the joint
  angle advances by at most limit * dt per substep (positions integrate the limited velocity).
* DOF friction is PhysX's unitless joint friction coefficient mu: the joint resists with up to
  mu times the magnitude of the spatial force it transmits to its child (from the step's
  unconstrained motion, the user's effort included), so a light link under a large effort can
  be held still. The oracle is that law integrated in numpy for a single link.

Both pipelines of SIM_PHYSX run them (MuJoCo C, core/mjc.py; MuJoCo-Warp, core/mjw.py), and
MuJoCo-Warp gives the same bounds and motion as MuJoCo C.
"""

import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch
from gymlike.core.math3d import quat_rotate
from conftest import FLAIL, make_sim, options, pose, sim_params, write


# (MuJoCo-Warp on Warp's CPU backend is ~5x slower here: its cases are in the slow tier, and the
# fast tier checks it against MuJoCo C in test_joint_rows_on_mujoco_warp_equal_mujoco_c)
@pytest.fixture(params=["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def pipeline(request, monkeypatch):
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", request.param)
    return request.param


def _actor(gym, sim, tmp_path, text, name, z=5.0, fixed=False):
    path = write(tmp_path, f"{name}.urdf", text)
    asset = gym.load_asset(sim, str(tmp_path), f"{name}.urdf",
                           options(max_angular_velocity=1000.0, fix_base_link=fixed))
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    actor = gym.create_actor(env, asset, pose(z=z), name, 0, 0)
    props = gym.get_actor_dof_properties(env, actor)
    props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    return env, actor, props, path


@pytest.mark.parametrize("substeps", [1, 2])
def test_velocity_limit_keeps_momentum_and_bounds_the_joint(gym, tmp_path, pipeline, substeps):
    """A free-floating base with an arm driven at 20 N m past its 4 rad/s limit, falling 1 s:
    |qd| <= 4 rad/s after every frame, the angle advances <= 4 rad/s * dt each frame, and the
    centre of mass follows the discrete free fall of MuJoCo's integrator (z0 - g h^2 n (n+1) / 2)
    with no sideways drift (the clamp after the step, which gave the arm speed with no reaction
    on the base, moved it 3.6 m)."""
    sim = make_sim(gym, ground=False, dt=1 / 60, substeps=substeps)
    env, actor, props, _ = _actor(gym, sim, tmp_path, FLAIL.format(vmax=4.0), "flail")
    gym.set_actor_dof_properties(env, actor, props)
    gym.prepare_sim(sim)
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    body_props = gym.get_actor_rigid_body_properties(env, actor)
    mass = np.array([b.mass for b in body_props])
    offset = np.array([[b.com.x, b.com.y, b.com.z] for b in body_props])

    def com():
        gym.refresh_rigid_body_state_tensor(sim)
        s = bodies.numpy().astype(np.float64)
        return (mass[:, None] * (s[:, :3] + quat_rotate(s[:, 3:7], offset))).sum(0) / mass.sum()

    c0 = com()
    angle = 0.0
    for _ in range(60):
        gym.apply_actor_dof_efforts(env, actor, np.array([20.0], np.float32))
        gym.simulate(sim)
        gym.refresh_dof_state_tensor(sim)
        q, qd = float(dofs[0, 0]), float(dofs[0, 1])
        assert abs(qd) <= 4.0 * (1 + 1e-6)
        assert q - angle <= 4.0 / 60 * (1 + 1e-5)
        angle = q
    assert angle > 0.9 * 4.0 * 60 / 60 - 0.1          # it did run at its limit
    h, n = 1 / 60 / substeps, 60 * substeps
    c = com()
    assert c[2] == pytest.approx(c0[2] - 9.81 * h * h * n * (n + 1) / 2, abs=1e-4)
    assert np.abs(c[:2] - c0[:2]).max() < 5e-3


def _effort_flails(gym, sim, asset, n):
    """`n` envs of one flail each at z 5 m, its DOF in DOF_MODE_EFFORT; prepares the sim and
    returns [(env, actor)]."""
    actors = []
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), n)
        actor = gym.create_actor(env, asset, pose(z=5.0), "flail", i, 0)
        props = gym.get_actor_dof_properties(env, actor)
        props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        gym.set_actor_dof_properties(env, actor, props)
        actors.append((env, actor))
    gym.prepare_sim(sim)
    return actors


def test_velocity_limits_within_one_call_of_all_substeps_equal_substep_calls(gym, tmp_path, monkeypatch):
    """MuJoCo C steps all substeps of a simulate in one batch call, and redoes substep by
    substep only the worlds where a DOF went over its velocity limit before the last one: three
    flails (efforts 0 then 20 N m past the limit, 0.05 N m below it, none) at 2 substeps of 1/120 s
    move exactly as at 1 substep of 1/120 s per simulate (the limits applied after every
    substep), and the first frame over the limit redoes the flail that reached it alone."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "mujoco-c")
    from gymlike.core import handles, mjc
    runs = {}
    for substeps in (2, 1):
        sim = make_sim(gym, ground=False, dt=substeps / 120, substeps=substeps)
        write(tmp_path, "flail.urdf", FLAIL.format(vmax=4.0))
        asset = gym.load_asset(sim, str(tmp_path), "flail.urdf", options(max_angular_velocity=1000.0))
        actors = _effort_flails(gym, sim, asset, 3)
        assert mjc.c_step(handles.sim_of(sim).solver) is not None
        dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        cs = mjc.c_step(handles.sim_of(sim).solver)
        redo, out = [], []
        for frame in range(30):
            for _ in range(2 // substeps):
                for (env, actor), effort in zip(actors, (20.0 if frame >= 10 else 0.0, 0.05, 0.0)):
                    gym.apply_actor_dof_efforts(env, actor, np.array([effort], np.float32))
                if substeps == 2:
                    cs.joint and cs.joint.pop("redo", None)
                gym.simulate(sim)
                if substeps == 2:
                    redo.append(list(cs.joint.get("redo", ())))
            gym.refresh_dof_state_tensor(sim)
            gym.refresh_actor_root_state_tensor(sim)
            out.append((dofs.clone(), roots.clone()))
        runs[substeps] = out
        if substeps == 2:
            assert redo[:10] == [[]] * 10             # (nothing near a limit: one call, no redo)
            first = next(i for i, r in enumerate(redo) if r)
            assert redo[first] == [0]                 # (only the flail that reached its limit)
            assert abs(float(dofs[0, 1])) == pytest.approx(4.0, rel=1e-6)   # (it ran at its limit)
        gym.destroy_sim(sim)
    for (d2, r2), (d1, r1) in zip(runs[2], runs[1]):
        assert torch.equal(d2, d1)
        assert torch.equal(r2, r1)


LINK = """<robot name="lever">
  <link name="base"><inertial><mass value="1.0"/>\
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><origin xyz="{r} 0 0"/><mass value="{m}"/>\
<inertia ixx="1e-4" iyy="{ic}" izz="{ic}" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <dynamics friction="{mu}"/></joint>
</robot>
"""


def _physx_friction_law(m, r, ic, mu, tau, h, steps, scale):
    """A single link on a fixed hinge, no gravity, effort tau, PhysX's joint friction: the
    unconstrained acceleration a = tau / I (I about the axis) gives the transmitted force
    m r (a, w^2) (w: the angular velocity the last step started from, whose fields gymlike
    reads) and torque ic a about the COM; the joint resists with up to mu |W| `scale` (TGS
    applies the bound again in its velocity iterations: 1 + velocity / position iterations).
    Returns (angle, velocity) after each step while it turns (semi-implicit Euler); None when
    the friction holds it from the first step."""
    inertia = ic + m * r * r
    q = w = w_start = 0.0
    out = []
    for _ in range(steps):
        a = tau / inertia
        bound = mu * scale * np.sqrt((m * r * a) ** 2 + (m * r * w_start ** 2) ** 2 + (ic * a) ** 2)
        if bound >= tau:
            return None
        w_start = w
        w = w + h * (tau - bound) / inertia
        q += h * w
        out.append((q, w))
    return np.array(out)


@pytest.mark.parametrize("mu, solver, velocity_iterations", [(0.0, 1, 1), (0.05, 1, 1), (0.05, 0, 1), (0.05, 1, 0),
                                                             (0.3, 1, 1)])
def test_joint_friction_is_physx_coefficient_of_the_transmitted_force(gym, tmp_path, pipeline, mu, solver,
                                                                      velocity_iterations):
    """A 0.2 kg link, COM 0.1 m from its hinge, under a 0.5 N m effort, as PhysX's law gives it
    (the numpy oracle): mu 0 spins freely, mu 0.05 slows it (to about half the acceleration a
    constant 0.05 N m friction would leave; 1.25x the bound with TGS's velocity iteration), mu
    0.3 (mu |W| > tau) holds it still where a constant 0.3 N m would let it accelerate; the DOF
    properties report the coefficient given."""
    m, r, ic, tau, dt = 0.2, 0.1, 2e-4, 0.5, 1 / 120
    p = sim_params(gravity=0.0, dt=dt, substeps=1)
    p.physx.solver_type, p.physx.num_position_iterations = solver, 4
    p.physx.num_velocity_iterations = velocity_iterations
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    env, actor, props, _ = _actor(gym, sim, tmp_path, LINK.format(m=m, r=r, ic=ic, mu=mu), "lever", fixed=True)
    assert props["friction"][0] == pytest.approx(mu)
    gym.set_actor_dof_properties(env, actor, props)
    gym.prepare_sim(sim)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    got = []
    for _ in range(60):
        gym.apply_actor_dof_efforts(env, actor, np.array([tau], np.float32))
        gym.simulate(sim)
        gym.refresh_dof_state_tensor(sim)
        got.append(dofs[0].numpy().astype(np.float64))
    got = np.array(got)
    scale = 1.0 + velocity_iterations / 4 if solver == 1 else 1.0
    want = _physx_friction_law(m, r, ic, mu, tau, dt, 60, scale)
    if want is None:       # held: MuJoCo's friction row lets 5% of each step's change through
        free = 0.5 * tau / (ic + m * r * r) * (60 * dt) ** 2
        assert abs(got[-1, 0]) < 0.06 * free
    else:
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-5)


def _bench_fidelity():
    import importlib
    import os
    import sys
    from conftest import ROOT
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    return importlib.import_module("bench_fidelity")


def test_biped_with_light_frictional_ankles_stands_under_explicit_pd(gym, pipeline):
    """The authored biped (assets/urdf/biped: 0.34 kg feet of ~6e-4 kg m^2, ankle friction 0.1)
    under legged_gym-style PD torques computed every 1 ms step (kd 10: 17x the explicit loop's
    stable gain on the ankles), zero actions, dropped 12 cm with its joints perturbed: it lands
    and stands (within 2 cm of its standing height, tilt under 11 degrees), both feet on their
    four spheres, and no ankle torque reaches its 85 N m limit (the ankles sat at it, at 12 rad/s,
    and every biped fell within 0.5 s while joint friction was MuJoCo's constant friction loss)."""
    bench = _bench_fidelity()
    r = bench.biped_zero_actions(gym, n=2, seconds=1.2)
    assert r["upright"] == 1.0
    assert r["up"].min() > 0.98
    assert np.abs(r["z"][-1] - bench.STAND_Z).max() < 0.02
    assert r["contacts"] == [8, 8]
    assert r["saturated"] == 0.0 and r["tau_over_limit"] < 0.5


def test_hung_biped_ankles_stay_bounded(gym, pipeline):
    """Hung in the air (fixed base), where only PhysX's joint friction bounds the explicit ankle
    loop: the ankle torques settle far below their limit."""
    r = _bench_fidelity().biped_zero_actions(gym, n=2, seconds=0.4, hung=True)
    assert r["saturated"] == 0.0
    assert np.abs(r["ankle_tau"][200:]).max() < 10.0


CHAIN = """<robot name="chain">
  <link name="base"><inertial><mass value="1.5"/>\
<inertia ixx="0.01" iyy="0.02" izz="0.015" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0.12 0.01 0"/><mass value="0.6"/>\
<inertia ixx="4e-4" iyy="3e-3" izz="3e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.1 0 -0.02"/><mass value="0.3"/>\
<inertia ixx="2e-4" iyy="1e-3" izz="1.1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="continuous"><parent link="base"/>\
<child link="upper"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>
    <dynamics friction="0.1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/>\
<child link="lower"/><origin xyz="0.24 0 0"/><axis xyz="0 1 0"/>
    <limit effort="100" velocity="3"/><dynamics friction="0.1"/></joint>
</robot>
"""


def _chain_bounds(gym, tmp_path, pipeline, monkeypatch):
    """The friction bounds (worlds, MuJoCo DOFs) each simulate gave MuJoCo, on `pipeline`: two
    envs, each a two-hinge chain on a welded base and one on a free base, started spinning,
    under changing efforts and a force on the free chain's tip, gravity on; env 0 mu 0.05,
    env 1 mu 0.2; env 1's DOF states written after the fourth frame."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim = make_sim(gym, ground=False, dt=1 / 200, substeps=1)
    write(tmp_path, "chain.urdf", CHAIN)
    fixed = gym.load_asset(sim, str(tmp_path), "chain.urdf", options(fix_base_link=True))
    free = gym.load_asset(sim, str(tmp_path), "chain.urdf", options(max_angular_velocity=1000.0))
    envs = []
    for mu in (0.05, 0.2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        for actor, asset in enumerate((fixed, free)):
            gym.create_actor(env, asset, pose(z=2.0 + actor), "chain", 0, 0)
            props = gym.get_actor_dof_properties(env, actor)
            props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
            props["friction"][:] = mu
            gym.set_actor_dof_properties(env, actor, props)
            st = gym.get_actor_dof_states(env, actor, gymapi.STATE_ALL)
            st["vel"] = (3.0, -2.0)
            gym.set_actor_dof_states(env, actor, st, gymapi.STATE_ALL)
        envs.append(env)
    gym.prepare_sim(sim)
    tip = gym.find_actor_rigid_body_handle(envs[0], 1, "lower")
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    out, states = [], []
    for frame in range(8):
        for e, env in enumerate(envs):
            for actor in (0, 1):
                gym.apply_actor_dof_efforts(env, actor, np.array([2.0 * np.cos(0.7 * frame + e + actor),
                                                                  1.5 * np.sin(0.5 * frame - actor)], np.float32))
            gym.apply_body_forces(env, tip, gymapi.Vec3(3.0, -2.0, 5.0), gymapi.Vec3(0.0, 0.3, 0.0),
                                  gymapi.ENV_SPACE)
        gym.simulate(sim)
        if pipeline == "warp":
            out.append(sim.solver.mjw_model.dof_frictionloss.numpy().astype(np.float64))
        else:
            from gymlike.core import mjc
            out.append(mjc.c_step(sim.solver).joint["frictionloss"].numpy().copy())
        gym.refresh_dof_state_tensor(sim)
        states.append(dofs.numpy().astype(np.float64).copy())
        if frame == 3:
            st = gym.get_actor_dof_states(envs[1], 1, gymapi.STATE_ALL)
            st["pos"], st["vel"] = (0.4, -0.3), (-1.0, 2.5)
            gym.set_actor_dof_states(envs[1], 1, st, gymapi.STATE_ALL)
    return np.array(out), np.array(states)


def test_joint_rows_on_mujoco_warp_equal_mujoco_c(gym, tmp_path, monkeypatch):
    """MuJoCo-Warp (core/mjw.py) gives MuJoCo the same friction bounds as the C pipeline, frame
    by frame, to float32 precision, and its DOF states follow (the elbows held at their 3 rad/s
    limit): its derived fields after a step are those of the step's start state (the C
    pipeline's), laid out as MuJoCo C's; a first step and a world whose state was written
    compute their own; per-world coefficients, efforts, body forces, gravity, a free base and
    velocity limits act alike."""
    c, c_dofs = _chain_bounds(gym, tmp_path, "mujoco-c", monkeypatch)
    w, w_dofs = _chain_bounds(gym, tmp_path, "warp", monkeypatch)
    assert c.shape == w.shape == (8, 2, 2 + 6 + 2)
    assert (c[:, :, 2:8] == 0).all() and (c[:, :, [0, 1, 8, 9]] > 0.01).all()    # (the free joint has none)
    np.testing.assert_allclose(w, c, rtol=1e-4, atol=1e-6)
    assert c[:, 1].mean() > 3 * c[:, 0].mean()        # (mu 0.2 against 0.05)
    elbows = c_dofs[:, [1, 3, 5, 7], 1]
    assert np.abs(elbows).max() <= 3.0 * (1 + 1e-6) and np.isclose(np.abs(elbows), 3.0).sum() >= 4
    np.testing.assert_allclose(w_dofs, c_dofs, atol=1e-4)


TREE = """<mujoco><worldbody>
  <body pos="0 0 1"><freejoint/><geom type="box" size=".2 .1 .1" mass="3"/>
    <body pos=".2 0 0"><joint type="hinge" axis="0 0 1" armature=".01"/>\
<geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
      <body pos=".3 0 0"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .2 0 0" size=".02"/>
        <body pos=".2 0 0"><joint type="slide" axis="1 0 0"/><geom type="sphere" size=".03"/></body></body>
      <body pos=".3 .1 0"><joint type="ball"/><geom type="capsule" fromto="0 0 0 0 .2 0" size=".02"/></body></body>
    <body pos="-.2 0 0"><joint type="hinge" axis="1 0 0"/><joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -.3 0 0" size=".03"/></body></body>
  <body pos="1 0 1"><joint type="hinge" axis="0 1 0"/><geom type="box" size=".1 .1 .1"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("mj_ld", [False, True], ids=["own_factor", "mujoco_qLD"])
def test_tree_factorization_inverts_mujocos_mass_matrix(mj_ld):
    """joint_rows applies M^-1 along the DOF tree, from its own factor of the joint-space
    inertia (M = L^T L, leaves first: MuJoCo-Warp) or from MuJoCo's factor of the step (qLD:
    MuJoCo C): on a model of two trees with branches, a ball, a slide, two joints on one body
    and armature, every column M^-1 e_d either gives equals the inverse of MuJoCo's own full
    mass matrix (mj_fullM) in random states."""
    import mujoco
    import warp as wp
    from gymlike.core import joint_rows

    @wp.kernel
    def columns(F: joint_rows.Frames, T: joint_rows.Tree, S: joint_rows.Scratch,
                armature: wp.array2d(dtype=wp.float64), ok: wp.array(dtype=wp.int32)):
        w = wp.tid()
        nv = T.dof_body.shape[0]
        ok[w] = joint_rows._mass(F, T, S, armature, w, 0, nv)
        for d in range(nv):
            joint_rows._col(F, T, S, w, nv, d, S.cols, d * nv)

    m = mujoco.MjModel.from_xml_string(TREE)
    rng = np.random.default_rng(3)
    n, nv = 4, m.nv
    datas = []
    for _ in range(n):
        d = mujoco.MjData(m)
        d.qpos[:] = m.qpos0
        mujoco.mj_integratePos(m, d.qpos, rng.normal(size=nv), 1.0)
        mujoco.mj_forward(m, d)
        datas.append(d)
    names = ("qLD", "qLDiagInv") if mj_ld else ("cdof", "crb")
    bound = {k: np.ascontiguousarray(np.stack([getattr(d, k).reshape(-1) for d in datas])) for k in names}
    F = joint_rows.frames(bound, np.zeros((n, nv)))
    T = joint_rows.tree(m, {"qpos": 0, "qvel": 0, "qfrc_applied": 0, "xfrc_applied": 0}, mj_ld=mj_ld)
    S = joint_rows.scratch(n, nv, m.nbody)
    ok = wp.zeros(n, dtype=wp.int32, device="cpu")
    wp.launch(columns, dim=n, inputs=[F, T, S, wp.array(m.dof_armature[None].copy(), dtype=wp.float64, device="cpu"),
                                      ok], device="cpu")
    assert ok.numpy().tolist() == [1] * n
    cols = S.cols.numpy().reshape(n, nv, nv)
    for w, d in enumerate(datas):
        M = np.zeros((nv, nv))
        mujoco.mj_fullM(m, d, M)
        np.testing.assert_allclose(cols[w].T, np.linalg.inv(M), rtol=1e-9, atol=1e-9)


def test_damped_env_moves_alike_beside_an_env_at_its_velocity_limit(gym, tmp_path, monkeypatch):
    """With Isaac Gym's default angular damping (body wrenches on MuJoCo C's rows) and two
    substeps, an env never near its velocity limit moves bit for bit alike whether the env
    beside it runs at its limit (which makes the C step redo that env, then step every env
    substep by substep) or stays below it (one call of both substeps): each env's motion is its
    own, whichever path the step took. (Envs at other places differ by rounding: MuJoCo works
    in world coordinates.)"""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "mujoco-c")
    write(tmp_path, "flail.urdf", FLAIL.format(vmax=4.0))
    runs = {}
    for efforts in ((20.0, 0.02), (0.01, 0.02)):
        sim = make_sim(gym, ground=False, dt=1 / 60, substeps=2)
        asset = gym.load_asset(sim, str(tmp_path), "flail.urdf",
                               options(max_angular_velocity=1000.0, angular_damping=0.5))
        actors = _effort_flails(gym, sim, asset, 2)
        dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        roots = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        out = []
        for frame in range(40):
            for (env, actor), effort in zip(actors, efforts):
                gym.apply_actor_dof_efforts(env, actor, np.array([effort], np.float32))
            gym.simulate(sim)
            gym.refresh_dof_state_tensor(sim)
            gym.refresh_actor_root_state_tensor(sim)
            out.append((dofs[-1].clone(), roots[-1].clone()))
        at_limit = efforts[0] > 1.0
        if at_limit:
            assert abs(float(dofs[0, 1])) == pytest.approx(4.0, rel=1e-6)    # (env 0 ran at its limit)
        assert abs(float(dofs[1, 1])) < 3.0
        runs[at_limit] = out
        gym.destroy_sim(sim)
    for (d2, r2), (d1, r1) in zip(runs[True], runs[False]):
        assert torch.equal(d2, d1)
        assert torch.equal(r2, r1)
