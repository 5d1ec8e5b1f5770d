"""The C pipeline's per-world row kernels on several threads (core/launch.py, Launcher parts).

Warp runs a CPU kernel on one thread; the row kernels that cost most (joint friction bounds,
velocity limits, body damping wrenches, the row checks, the rigid body refresh) run one
contiguous range of worlds per thread once they are slow enough. Each world's thread computes
exactly what it computed alone, so a sim whose kernels ran in parts steps bit for bit as one
whose kernels did not.
"""

import numpy as np
import pytest
import torch

from gymlike import gymapi, gymtorch
from gymlike.core import handles, launch, mjc
from conftest import FLAIL, make_sim, options, pose, write

NENV = 7           # (three parts of 2, 2 and 3 worlds)
SPLIT = ["friction", "vlimits", "row_wrenches", "checks", "bodies"]


def _run(gym, tmp_path, parts):
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    write(tmp_path, "flail.urdf", FLAIL.format(vmax=4.0))
    asset = gym.load_asset(sim, str(tmp_path), "flail.urdf",
                           options(angular_damping=0.5, linear_damping=0.1, max_angular_velocity=1000.0))
    for i in range(NENV):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 4)
        actor = gym.create_actor(env, asset, pose(z=0.3 + 0.05 * i), "flail", i, 0)
        props = gym.get_actor_dof_properties(env, actor)
        props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        props["friction"][:] = 0.3
        gym.set_actor_dof_properties(env, actor, props)
    gym.prepare_sim(sim)
    rows = mjc.c_step(handles.sim_of(sim).solver).launch_rows
    rows.parts = parts
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    efforts = torch.from_numpy(np.random.default_rng(3).uniform(-20, 20, (40, NENV)).astype(np.float32))
    for k in range(40):
        gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts[k].contiguous()))
        gym.simulate(sim)
        gym.refresh_rigid_body_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    used = {k[0] if isinstance(k[0], str) else k[0][0] for k in rows._cmds if isinstance(k, tuple) and
            len(k) == 2 and isinstance(k[1], int)}
    return bodies.clone(), dofs.clone(), used


def test_row_kernels_in_parts_step_bit_for_bit_as_whole(gym, tmp_path, monkeypatch):
    """Seven worlds of a free base whose arm is driven past its velocity limit against joint
    friction, with body damping, 40 frames of random efforts: the five split kernels ran in
    three parts, and every body and DOF state equals that of the same sim run whole."""
    monkeypatch.setattr(launch.Launcher, "SPLIT_SECONDS", 0.0)
    b1, d1, used1 = _run(gym, tmp_path, 1)
    b3, d3, used3 = _run(gym, tmp_path, 3)
    assert used1 == set()
    assert used3 == set(SPLIT)
    assert torch.equal(b1, b3) and torch.equal(d1, d3)
    assert float(d1[:, 1].abs().max()) <= 4.0 * (1 + 1e-6)       # (the limits did act)


def test_workers_run_every_part_and_raise_the_first_error():
    """Launcher's worker threads: each part runs once, the caller's too; an error in a part
    reaches the caller after the others finished, the threads keep serving, and a stale
    report (of a run interrupted while it waited) is not counted for the next run."""
    w = launch.workers(2)
    out = []
    w.run([lambda: out.append(0), lambda: out.append(1), lambda: out.append(2)])
    assert sorted(out) == [0, 1, 2]

    def fail():
        raise ValueError("part 1 failed")
    with pytest.raises(ValueError, match="part 1 failed"):
        w.run([lambda: out.append(3), fail, lambda: out.append(4)])
    assert sorted(out) == [0, 1, 2, 3, 4]
    w.run([lambda: out.append(5), lambda: out.append(6)])
    assert sorted(out) == [0, 1, 2, 3, 4, 5, 6]
    # a report left by an interrupted earlier run is not taken for this run's
    w.done.put((w.runs, ValueError("an earlier run's part")))
    w.run([lambda: out.append(7), lambda: out.append(8)])
    assert sorted(out) == list(range(9))


def test_parts_follow_the_kernels_cost():
    """A launch up to SPLIT_SECONDS runs whole; a longer one in one part per half of it, up to
    the threads and half the worlds: on many cores a 0.5 ms kernel is not handed to every
    thread."""
    rows = launch.Launcher("cpu", parts=8)
    s = launch.Launcher.SPLIT_SECONDS
    assert rows._parts_for(0.9 * s, 64) == 1
    assert rows._parts_for(1.25 * s, 64) == 2
    assert rows._parts_for(2.6 * s, 64) == 5
    assert rows._parts_for(25 * s, 64) == 8
    assert rows._parts_for(25 * s, 6) == 3
