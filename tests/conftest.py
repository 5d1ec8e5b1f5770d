"""Shared test helpers: small sims, inline assets, the repo's root and asset directory."""

import os
import textwrap

import numpy as np
import pytest

from gymlike import gymapi

# tests/ (this file: the test files sit one folder below, by layer) and the repository root
TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
ASSETS = os.path.join(ROOT, "assets")
ENGINES = {"physx": gymapi.SIM_PHYSX, "flex": gymapi.SIM_FLEX}


@pytest.fixture(scope="session")
def gym():
    return gymapi.acquire_gym()


# Both CPU pipelines in one pytest session (issue 43): a test file stepping physics opts in with
# `pytestmark = pytest.mark.usefixtures("backend")`, and each of its tests runs on MuJoCo C (the
# default CPU pipeline, core/mjc.py) and on MuJoCo-Warp (core/mjw.py: the path CUDA users get,
# here on Warp's CPU backend). The pipeline is chosen when a sim is built, so the variable is
# set per test. The MuJoCo-Warp variants are slow-tier (the fast tier covers that path through
# its own pipeline tests); a slow test or a SIM_FLEX test (a name with "flex": Newton's XPBD,
# which the pipeline setting does not touch) runs once, on the default.
BACKENDS = ("mujoco-c", "warp")


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", request.param)
    return request.param


def pytest_collection_modifyitems(config, items):
    keep, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("backend", BACKENDS[0]) != BACKENDS[0]:
            if item.get_closest_marker("slow") is not None or "flex" in item.name:
                dropped.append(item)
                continue
            item.add_marker(pytest.mark.slow)
        keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def sim_params(dt=1.0 / 240.0, substeps=1, gravity=-9.81):
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0.0, 0.0, gravity)
    p.dt = dt
    p.substeps = substeps
    return p


def make_sim(gym, engine="physx", ground=True, friction=1.0, restitution=0.0, graphics=-1, **kw):
    sim = gym.create_sim(0, graphics, ENGINES[engine], sim_params(**kw))
    if ground:
        pp = gymapi.PlaneParams()
        pp.normal = gymapi.Vec3(0, 0, 1)
        pp.static_friction = pp.dynamic_friction = friction
        pp.restitution = restitution
        gym.add_ground(sim, pp)
    return sim


def options(**kw):
    o = gymapi.AssetOptions()
    o.angular_damping = 0.0   # exact physics in tests (Isaac Gym's default is 0.5)
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


# a free base whose arm's hinge has a velocity limit (`vmax`): the joint rows' tests
FLAIL = """<robot name="flail">
  <link name="base"><inertial><mass value="2.0"/>\
<inertia ixx="0.02" iyy="0.03" izz="0.04" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.1 0.1"/></geometry></collision></link>
  <link name="arm"><inertial><origin xyz="0.15 0 0"/><mass value="0.5"/>\
<inertia ixx="1e-3" iyy="4e-3" izz="4e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0.15 0 0"/><geometry><box size="0.3 0.04 0.04"/></geometry></collision></link>
  <joint name="hinge" type="continuous"><parent link="base"/>\
<child link="arm"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>
    <limit effort="100" velocity="{vmax}"/></joint>
</robot>
"""


# a fixed base, a cart on a prismatic joint (limits -0.5, 0.25) and a 0.5 m pole on a hinge 0.05 m
# over the cart (limits -1, 1)
SLIDER_URDF = """
<robot name="slider">
  <link name="base"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="cart"><inertial><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="pole"><inertial><origin xyz="0 0 0.25"/><mass value="1"/>\
<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.25"/><geometry><box size="0.02 0.02 0.5"/></geometry></collision></link>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="cart"/><axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.25" effort="100" velocity="100"/></joint>
  <joint name="hinge" type="revolute"><parent link="cart"/>\
<child link="pole"/><origin xyz="0 0 0.05"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="100"/></joint>
</robot>"""


def pose(x=0.0, y=0.0, z=0.0, q=None):
    return gymapi.Transform(gymapi.Vec3(x, y, z), q or gymapi.Quat())


def humanoid_sim(gym, n):
    """A prepared sim (ground, dt 1/60, 2 substeps) of `n` envs, each holding the project's MJCF
    humanoid at z 1.4 with every DOF in DOF_MODE_EFFORT."""
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    asset = gym.load_asset(sim, ASSETS, "mjcf/humanoid.xml", options(default_dof_drive_mode=gymapi.DOF_MODE_EFFORT))
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, asset, pose(z=1.4), "h", i, 0)
    gym.prepare_sim(sim)
    return sim


def simulate_random_efforts(gym, sim, frames, scale, seed):
    """`frames` simulate calls, each after a uniform random effort in [-scale, scale] on every DOF
    of the sim (DOF actuation force tensor; torch generator seeded with `seed`)."""
    import torch
    from gymlike import gymtorch
    gen = torch.Generator().manual_seed(seed)
    n = gym.get_sim_dof_count(sim)
    for _ in range(frames):
        f = (torch.rand(n, generator=gen) * 2 - 1) * scale
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(f))
        gym.simulate(sim)


def drive_mode(gym, env, actor, mode):
    """Every DOF of the actor in drive `mode` (a target reaches only the DOFs whose mode takes it)."""
    p = gym.get_actor_dof_properties(env, actor)
    p["driveMode"].fill(mode)
    gym.set_actor_dof_properties(env, actor, p)


def inertia_box(m, x, y, z):
    return m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12


PENDULUM_URDF = """\
<robot name="pendulum">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="bob">
    <collision><origin xyz="0 0 -{L}"/><geometry><sphere radius="0.02"/></geometry></collision>
    <inertial><origin xyz="0 0 -{L}"/><mass value="1"/>
      <inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="base"/><child link="bob"/><axis xyz="0 1 0"/>
  </joint>
</robot>
"""


def zero_crossing_period(t, x):
    """Mean period from downward zero crossings (linear interpolation)."""
    idx = np.nonzero((x[:-1] > 0) & (x[1:] <= 0))[0]
    tc = t[idx] + (t[idx + 1] - t[idx]) * x[idx] / (x[idx] - x[idx + 1])
    return float(np.mean(np.diff(tc)))


def held_actor(gym, env, asset, at, name, q, stiffness, damping, group=0, filter_=0):
    """An actor whose DOFs start at q and are held there by PD drives of the given gains."""
    a = gym.create_actor(env, asset, at, name, group, filter_)
    props = gym.get_actor_dof_properties(env, a)
    props["stiffness"][:], props["damping"][:] = stiffness, damping
    gym.set_actor_dof_properties(env, a, props)
    st = gym.get_actor_dof_states(env, a, gymapi.STATE_ALL)
    st["pos"] = q
    gym.set_actor_dof_states(env, a, st, gymapi.STATE_ALL)
    gym.set_actor_dof_position_targets(env, a, np.asarray(q, np.float32))
    return a
