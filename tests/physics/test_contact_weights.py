"""MuJoCo's contact softness for links whose centre of mass cannot move (mjw.floor_contact_weights).

MuJoCo regularizes a contact row by the two bodies' translational inverse weights at their
centres of mass (body_invweight0, from qpos0). A URDF link whose inertial origin is its joint's,
on its joints' axes (as in the Allegro hand), gets 0 there, and contacts between two such links
become near-rigid rows on which MuJoCo's solver diverges: two fingers reset into each other
reached 1e11 rad/s in three steps of plain MuJoCo. gymlike floors the weight at a tenth of what
rotation adds at the body's surface points. Oracles: MuJoCo's own mj_setConst (the weights it
computes, which the floor leaves alone on ordinary bodies) and MuJoCo's point Jacobians (the
surface weight the floor is taken from).
"""

import copy

import mujoco
import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch
from gymlike.core import mjc
from conftest import make_sim, options, pose, write

pytestmark = pytest.mark.usefixtures("backend")


def _finger(name, x):
    """Four links; the first two carry their mass on the knuckle, where the abduction axis (z,
    along the finger) and the first flex axis (y) meet, so their centres of mass cannot move."""
    def link(n, z_com, half, mass, inertia):
        return f"""
  <link name="{name}{n}"><inertial><origin xyz="0 0 {z_com}"/><mass value="{mass}"/>
    <inertia ixx="{inertia}" iyy="{inertia}" izz="{inertia / 4}" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 {half}"/><geometry><box size="0.0196 0.0196 {2 * half}"/></geometry></collision>
  </link>"""

    def joint(n, parent, xyz, axis, lower, upper):
        return f"""
  <joint name="{name}_j{n}" type="revolute"><parent link="{parent}"/><child link="{name}{n}"/>
    <origin xyz="{xyz}"/><axis xyz="{axis}"/><limit lower="{lower}" upper="{upper}" effort="10" velocity="1000"/>
  </joint>"""
    links = (link(0, 0, 0.008, 0.012, 1e-6) + link(1, 0, 0.027, 0.065, 8e-6) + link(2, 0.019, 0.019, 0.036, 5e-6)
             + link(3, 0.02, 0.02, 0.026, 3e-6))
    return links + (joint(0, "palm", f"{x} 0 0.1", "0 0 1", -0.6, 0.6)
                    + joint(1, f"{name}0", "0 0 0.016", "0 1 0", -0.3, 1.7)
                    + joint(2, f"{name}1", "0 0 0.054", "0 1 0", -0.3, 1.8)
                    + joint(3, f"{name}2", "0 0 0.038", "0 1 0", -0.3, 1.7))


HAND = f"""<robot name="two_fingers">
  <link name="palm"><inertial><mass value="0.4"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/>
    </inertial><collision><origin xyz="0 0 0.085"/><geometry><box size="0.1 0.04 0.02"/></geometry></collision></link>
  {_finger("a", -0.0098)}{_finger("b", 0.0098)}
</robot>"""

CUBE = """<robot name="cube"><link name="cube"><inertial><mass value="0.2"/>
  <inertia ixx="1.2e-4" iyy="1.2e-4" izz="1.2e-4" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><box size="0.06 0.06 0.06"/></geometry></collision></link></robot>"""


def hand_sim(gym, tmp_path, n, cube=False):
    """n envs of the two-finger hand (fixed, self-collisions on, PD drives kp 3 kd 0.1 as
    hora's Allegro hand), optionally with a free cube beside it; dt 1/120."""
    sim = make_sim(gym, ground=False, dt=1.0 / 120.0)
    write(tmp_path, "hand.urdf", HAND)
    write(tmp_path, "cube.urdf", CUBE)
    hand = gym.load_asset(sim, str(tmp_path), "hand.urdf", options(fix_base_link=True))
    box = gym.load_asset(sim, str(tmp_path), "cube.urdf", options())
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 4)
        a = gym.create_actor(env, hand, pose(z=0.5), "hand", i, 0)
        props = gym.get_actor_dof_properties(env, a)
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:] = 3.0
        props["damping"][:] = 0.1
        gym.set_actor_dof_properties(env, a, props)
        if cube:
            gym.create_actor(env, box, pose(x=0.5, z=0.5), "cube", i, 0)
    gym.prepare_sim(sim)
    return sim


def _names(m):
    return [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(m.nbody)]


def test_links_whose_com_cannot_move_get_a_tenth_of_their_surface_weight(gym, tmp_path):
    sim = hand_sim(gym, tmp_path, 2, cube=True)
    solver = sim.solver
    m = solver.mj_model
    ours = solver.mjw_model.body_invweight0.numpy()
    # MuJoCo's own constants of the compiled model
    ref = copy.deepcopy(m)
    ref.body_invweight0[:, 0] = -1.0
    d = mujoco.MjData(ref)
    mujoco.mj_setConst(ref, d)
    names = _names(m)
    knuckles = [names.index(f"two_fingers_{f}{k}") for f in "ab" for k in "01"]
    cube = names.index("cube_cube")
    others = [names.index(f"two_fingers_{f}{k}") for f in "ab" for k in "23"] + [cube]
    assert len(knuckles) == 4 and len(others) == 5
    # the degenerate case: MuJoCo C's weight of the knuckle links is 0 (MuJoCo-Warp's their
    # rotational weight, 7.8e4 and 8.7e4 here); gymlike's is the floor on both pipelines
    np.testing.assert_allclose(ref.body_invweight0[knuckles, 0], 0.0, atol=1e-12)
    # the floor: a tenth of the mean weight rotation adds at the geoms' centres and box corners,
    # from MuJoCo's own point Jacobians (mj_jac) at qpos0
    mujoco.mj_forward(ref, d)
    for b in knuckles:
        (g,) = np.flatnonzero(ref.geom_bodyid == b)
        R = d.geom_xmat[g].reshape(3, 3)
        c, h = ref.geom_aabb[g, :3], ref.geom_aabb[g, 3:]
        pts = [d.geom_xpos[g] + R @ (c + np.array(s) * h)
               for s in [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)] + [(0, 0, 0)]]
        weights = []
        for p in pts:
            jac = np.zeros((3, ref.nv))
            mujoco.mj_jac(ref, d, jac, None, p, b)
            sol = np.zeros_like(jac)
            mujoco.mj_solveM(ref, d, sol, jac)
            weights.append(np.trace(jac @ sol.T) / 3)
        floor = 0.1 * np.mean(weights)      # (the COM's own weight, subtracted in the floor, is 0 here)
        assert floor > 1e-3
        for w in range(2):
            np.testing.assert_allclose(ours[w, b, 0], floor, rtol=1e-4)   # (float32: MuJoCo-Warp's rot)
    # ordinary bodies (links whose COM moves, the free cube: 1/m) keep MuJoCo's weights
    np.testing.assert_allclose(ref.body_invweight0[cube, 0], 1 / 0.2, rtol=1e-5)
    for w in range(2):
        np.testing.assert_allclose(ours[w, others], ref.body_invweight0[others], rtol=1e-4)
    # the C step's worlds step these weights
    cs = mjc.c_step(solver)
    if cs is not None:
        for w in range(2):
            np.testing.assert_allclose(cs.batch.get_model(w).body_invweight0, ours[w], rtol=1e-5)


def _deepest(m, qs, names):
    """(deepest penetration in m, >= 0; contact count) of MjModel m with joints `names` at `qs`."""
    d = mujoco.MjData(m)
    for name, q in zip(names, qs):
        d.qpos[m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)]] = q
    mujoco.mj_forward(m, d)
    return max([0.0] + [-float(c.dist) for c in d.contact[:d.ncon]]), d.ncon


def test_fingers_reset_into_each_other_part_without_diverging(gym, tmp_path):
    """Random finger poses, most of them interpenetrating, held by their PD targets, after a
    mass change (domain randomization: MuJoCo's constants are computed again): over half a
    second every DOF stays below 100 rad/s (with MuJoCo C's own weights such poses reached
    1e11 rad/s in plain MuJoCo, and gymlike raised SimulationNaNError in the first step)."""
    n = 24
    sim = hand_sim(gym, tmp_path, n)
    for i in range(n):
        env = gym.get_env(sim, i)
        props = gym.get_actor_rigid_body_properties(env, 0)
        props[2].mass *= 1.2              # (a distal link: its COM moves)
        gym.set_actor_rigid_body_properties(env, 0, props, False)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim)).view(n, 8, 2)
    rng = np.random.default_rng(7)
    q = rng.uniform(-0.4, 0.4, (n, 8))
    q[:, [0, 4]] = rng.uniform(-0.3, 0.3, (n, 2))
    state = torch.zeros((n, 8, 2))
    state[..., 0] = torch.tensor(q, dtype=torch.float32)
    gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(state.view(-1, 2)))
    gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(state[..., 0].reshape(-1).clone()))
    # (the poses do put the fingers into each other: MuJoCo's contacts of the compiled model)
    m = sim.solver.mj_model
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    joints = [next(j for j in names if j.endswith(dn)) for dn in gym.get_actor_dof_names(gym.get_env(sim, 0), 0)]
    before = [_deepest(m, q[i], joints) for i in range(n)]
    assert sum(c > 0 for _, c in before) > n / 2 and max(p for p, _ in before) > 0.005
    speed = 0.0
    for _ in range(60):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
        gym.refresh_dof_state_tensor(sim)
        speed = max(speed, dofs[..., 1].abs().max().item())
    assert speed < 100.0, speed
