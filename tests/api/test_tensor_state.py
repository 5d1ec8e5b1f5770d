"""Tensor API state buffers: zero copy, staleness, (indexed) setters touching only listed actors,
agreement with the handle API, actuation forces vs targets."""

import numpy as np
import pytest
import torch

from conftest import ASSETS, drive_mode, make_sim, options, pose
from gymlike import gymapi, gymtorch
from gymlike.core.errors import GymlikeError

# every test on both CPU pipelines (conftest.backend)
pytestmark = pytest.mark.usefixtures("backend")

N_ENVS = 4


@pytest.fixture(params=["physx", "flex"])
def scene(gym, request):
    """Per env: a fixed-base 7-DOF arm (9 DOFs), a free cube, a free ant (8 DOFs)."""
    sim = make_sim(gym, request.param, dt=1 / 120, substeps=2)
    arm = gym.load_asset(sim, ASSETS, "urdf/arm7/arm7.urdf", options(fix_base_link=True))
    cube = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
    envs = []
    for i in range(N_ENVS):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, arm, pose(0, 0, 0), "arm", i, 1)
        gym.create_actor(env, cube, pose(0.6, 0, 0.05), "cube", i, 0)
        gym.create_actor(env, ant, pose(-1.0, 0, 0.75), "ant", i, 1)
        envs.append(env)
    gym.prepare_sim(sim)
    return sim, envs


def test_acquire_before_prepare_sim_builds_the_sim(gym):
    sim = make_sim(gym, "physx")
    with pytest.raises(RuntimeError, match="no actors yet"):
        gym.acquire_actor_root_state_tensor(sim)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, gym.create_box(sim, 0.2, 0.2, 0.2, options()), pose(0, 0, 1.0), "box", 0, 0)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))   # before prepare_sim
    gym.prepare_sim(sim)
    ptr = root.data_ptr()
    gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    assert root.data_ptr() == ptr and 0.0 < float(root[0, 2]) < 1.0      # same storage, fresh contents


def test_zero_copy_and_shapes(gym, scene):
    sim, envs = scene
    t = gym.acquire_actor_root_state_tensor(sim)
    assert t is gym.acquire_actor_root_state_tensor(sim)
    root = gymtorch.wrap_tensor(t)
    assert root.data_ptr() == t.data_ptr
    assert tuple(root.shape) == (3 * N_ENVS, 13) and root.dtype == torch.float32
    assert str(root.device) == "cpu" and t.device == -1
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    assert tuple(dofs.shape) == (N_ENVS * (9 + 8), 2)
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    assert tuple(bodies.shape) == (gym.get_sim_rigid_body_count(sim), 13)
    back = gymtorch.unwrap_tensor(root)
    assert back.data_ptr == root.data_ptr() and back.shape == (3 * N_ENVS, 13)


def test_buffers_agree_with_handle_api(gym, scene):
    sim, envs = scene
    for _ in range(10):
        gym.simulate(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    for env in envs:
        for a in range(3):
            ia = gym.get_actor_index(env, a, gymapi.DOMAIN_SIM)
            # handle API and tensors: both in the env's frame
            st = gym.get_actor_rigid_body_states(env, a, gymapi.STATE_ALL).view(np.float32).reshape(-1, 13).copy()
            np.testing.assert_allclose(root[ia].numpy(), st[0], atol=1e-5)
            for b in range(gym.get_actor_rigid_body_count(env, a)):
                ib = gym.get_actor_rigid_body_index(env, a, b, gymapi.DOMAIN_SIM)
                np.testing.assert_allclose(bodies[ib].numpy(), st[b], atol=1e-5)
            ds = gym.get_actor_dof_states(env, a, gymapi.STATE_ALL)
            for d in range(gym.get_actor_dof_count(env, a)):
                idd = gym.get_actor_dof_index(env, a, d, gymapi.DOMAIN_SIM)
                np.testing.assert_allclose(dofs[idd].numpy(), [ds["pos"][d], ds["vel"][d]], atol=1e-5)


def test_staleness_until_refresh_and_set(gym, scene):
    sim, envs = scene
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    before = root.clone()
    for _ in range(5):
        gym.simulate(sim)
    assert torch.equal(root, before)          # stale until refresh
    gym.refresh_actor_root_state_tensor(sim)
    assert not torch.equal(root, before)      # the ants/cubes moved
    root[1, 2] = 5.0                          # writing the buffer changes nothing...
    gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    assert root[1, 2] < 1.0                   # ...until a set_* call


def test_indexed_root_reset_touches_only_listed_actors(gym, scene):
    sim, envs = scene
    for _ in range(5):
        gym.simulate(sim)
    root_t = gym.acquire_actor_root_state_tensor(sim)
    root = gymtorch.wrap_tensor(root_t)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    root0, dofs0, bodies0 = root.clone(), dofs.clone(), bodies.clone()
    # reset the cube of env 2 and the ant of env 1
    cube2 = gym.get_actor_index(envs[2], 1, gymapi.DOMAIN_SIM)
    ant1 = gym.get_actor_index(envs[1], 2, gymapi.DOMAIN_SIM)
    target = root.clone()
    target[cube2, 0:3] += torch.tensor([0.0, 0.0, 1.0])
    target[cube2, 7:13] = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 3.0])
    target[ant1, 0:3] += torch.tensor([0.2, 0.1, 0.5])
    ids = torch.tensor([cube2, ant1], dtype=torch.int32)
    assert gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(target), gymtorch.unwrap_tensor(ids), 2)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    for a in range(root.shape[0]):
        if a in (cube2, ant1):
            torch.testing.assert_close(root[a], target[a], atol=1e-5, rtol=0)
        else:
            assert torch.equal(root[a], root0[a]), f"actor {a} changed"
    assert torch.equal(dofs, dofs0)           # the arm's (and every) DOF state is untouched
    ant1_bodies = [gym.get_actor_rigid_body_index(envs[1], 2, b, gymapi.DOMAIN_SIM) for b in range(9)]
    moved = bodies[ant1_bodies, 0:3] - bodies0[ant1_bodies, 0:3]
    # XPBD's links drift off the joint constraints; the reset re-projects them (mm)
    tol = 1e-4 if sim.type == gymapi.SIM_PHYSX else 1e-2
    torch.testing.assert_close(moved, torch.tensor([0.2, 0.1, 0.5]).expand(9, 3), atol=tol, rtol=0)
    others = [b for b in range(bodies.shape[0]) if b not in ant1_bodies
              and b != gym.get_actor_rigid_body_index(envs[2], 1, 0, gymapi.DOMAIN_SIM)]
    assert torch.equal(bodies[others], bodies0[others])


def test_indexed_dof_state_skips_actors_without_dofs(gym, scene):
    sim, envs = scene
    dofs_t = gym.acquire_dof_state_tensor(sim)
    dofs = gymtorch.wrap_tensor(dofs_t)
    gym.refresh_dof_state_tensor(sim)
    before = dofs.clone()
    arm3 = gym.get_actor_index(envs[3], 0, gymapi.DOMAIN_SIM)
    cube0 = gym.get_actor_index(envs[0], 1, gymapi.DOMAIN_SIM)
    new = dofs.clone()
    new[:, 0] = 0.3   # only the listed actors' rows may be applied
    ids = torch.tensor([cube0, arm3], dtype=torch.int32)
    gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), 2)
    gym.refresh_dof_state_tensor(sim)
    arm3_dofs = [gym.get_actor_dof_index(envs[3], 0, d, gymapi.DOMAIN_SIM) for d in range(9)]
    assert torch.allclose(dofs[arm3_dofs, 0], torch.full((9,), 0.3))
    rest = [d for d in range(dofs.shape[0]) if d not in arm3_dofs]
    assert torch.equal(dofs[rest], before[rest])
    # forward kinematics followed: the arm's hand moved
    ds = gym.get_actor_dof_states(envs[3], 0, gymapi.STATE_POS)
    np.testing.assert_allclose(ds["pos"], 0.3, atol=1e-6)


def test_a_setter_reads_the_values_a_tensor_holds_at_each_call(gym, scene):
    """A task passes the same tensor back every step, changed in place in between (gymlike then
    reads its memory through a kept view instead of copying it), or a new tensor each step, or
    a view of one: every call writes the values the tensor holds at that call."""
    sim, envs = scene
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    arm = gym.get_actor_index(envs[1], 0, gymapi.DOMAIN_SIM)
    first = gym.get_actor_dof_index(envs[1], 0, 0, gymapi.DOMAIN_SIM)
    ids = gymtorch.unwrap_tensor(torch.tensor([arm], dtype=torch.int32))
    kept = dofs.clone()
    for k, kind in enumerate(["kept", "kept", "new", "kept", "kept", "kept", "view", "new", "kept"]):
        value = 0.05 * (k + 1)
        if kind == "kept":
            kept[first:first + 9, 0] = value
            src = kept
        elif kind == "new":
            src = dofs.clone()
            src[first:first + 9, 0] = value
        else:
            big = torch.zeros(2, dofs.shape[0], 2)
            big[1] = dofs
            big[1, first:first + 9, 0] = value
            src = big[1]
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(src), ids, 1)
        gym.refresh_dof_state_tensor(sim)
        assert torch.allclose(dofs[first:first + 9, 0], torch.full((9,), value)), (k, kind)


def test_bodies_follow_every_indexed_write_of_a_reset_when_read(gym, scene):
    """A reset made of several indexed writes (DOFs of env 0's arm, then of env 3's arm, then
    the ant's root in env 1): the bodies read afterwards follow every written actor's joints
    (the arms written alike end alike, and away from where they were) and no other body moves."""
    sim, envs = scene
    for _ in range(3):
        gym.simulate(sim)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_dof_state_tensor(sim)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    bodies0 = bodies.clone()
    new = dofs.clone()
    new[:, 0], new[:, 1] = 0.3, 0.0
    for e in (0, 3):
        ids = torch.tensor([gym.get_actor_index(envs[e], 0, gymapi.DOMAIN_SIM)], dtype=torch.int32)
        gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(new), gymtorch.unwrap_tensor(ids), 1)
    ant1 = gym.get_actor_index(envs[1], 2, gymapi.DOMAIN_SIM)
    target = root.clone()
    target[ant1, 0:3] += torch.tensor([0.2, 0.1, 0.5])
    ids = torch.tensor([ant1], dtype=torch.int32)
    gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(target), gymtorch.unwrap_tensor(ids), 1)
    gym.refresh_rigid_body_state_tensor(sim)

    def rows(e, a):
        return [gym.get_actor_rigid_body_index(envs[e], a, b, gymapi.DOMAIN_SIM)
                for b in range(gym.get_actor_rigid_body_count(envs[e], a))]
    arm0, arm3, ant = rows(0, 0), rows(3, 0), rows(1, 2)
    torch.testing.assert_close(bodies[arm3, :7], bodies[arm0, :7], atol=1e-5, rtol=0)
    assert (bodies[arm3, :3] - bodies0[arm3, :3]).norm(dim=1).max() > 0.05     # the hand moved
    # (after 3 XPBD steps the falling ant's links are centimetres off its joints: the write
    # re-projects them)
    tol = 1e-4 if sim.type == gymapi.SIM_PHYSX else 0.1
    torch.testing.assert_close(bodies[ant, 0:3] - bodies0[ant, 0:3], torch.tensor([0.2, 0.1, 0.5]).expand(len(ant), 3),
                               atol=tol, rtol=0)
    others = [b for b in range(bodies.shape[0]) if b not in arm0 + arm3 + ant]
    assert torch.equal(bodies[others], bodies0[others])


def test_whole_tensor_dof_values_land_where_the_indexed_setters_put_them(gym, scene):
    """Whole-tensor targets and efforts (written by numpy on the CPU) reach each actor's DOFs as
    the indexed setters (the kernel path) put them: the handle API reads every actor's targets
    back, and the next step moves the same way; a NaN among them still reaches the guard."""
    sim, envs = scene
    for e in envs:
        for a in (0, 2):         # (the arm and the ant: every DOF takes both targets)
            drive_mode(gym, e, a, gymapi.DOF_MODE_POS)
    n = gym.get_sim_dof_count(sim)
    pos, vel = torch.linspace(-0.5, 0.5, n), torch.linspace(0.2, -0.2, n)
    every = torch.arange(gym.get_sim_actor_count(sim), dtype=torch.int32)
    out = []
    for whole in (True, False):
        if whole:
            gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(pos))
            gym.set_dof_velocity_target_tensor(sim, gymtorch.unwrap_tensor(vel))
        else:
            for t, setter in ((pos, gym.set_dof_position_target_tensor_indexed),
                              (vel, gym.set_dof_velocity_target_tensor_indexed)):
                setter(sim, gymtorch.unwrap_tensor(-t), gymtorch.unwrap_tensor(every), len(every))
                setter(sim, gymtorch.unwrap_tensor(t), gymtorch.unwrap_tensor(every), len(every))
        # (actors in DOMAIN_SIM order: their DOFs follow each other in the tensors)
        out.append(np.stack([np.concatenate([get(env, a) for env in envs for a in range(gym.get_actor_count(env))])
                             for get in (gym.get_actor_dof_position_targets, gym.get_actor_dof_velocity_targets)]))
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_array_equal(out[0], np.stack([pos.numpy(), vel.numpy()]))
    bad = torch.zeros(n)
    bad[gym.get_actor_dof_index(envs[2], 2, 1, gymapi.DOMAIN_SIM)] = float("nan")
    gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(bad))
    with pytest.raises(GymlikeError, match=r"DOF actuation forces given for env\(s\) \[?2"):
        gym.simulate(sim)


def test_position_targets_persist_and_efforts_last_one_step(gym):
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=1 / 120, substeps=1)
    asset = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", options(fix_base_link=True))
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-2, -2, 0), gymapi.Vec3(2, 2, 2), 2)
        gym.create_actor(env, asset, pose(z=1), "cartpole", i, 1)
    gym.prepare_sim(sim)
    from gymlike.core import props as P
    dp = np.concatenate([a.dof_props for a in sim.all_actors()])
    dp["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    P.write_dof_props(sim, np.arange(4), dp)
    dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
    efforts = torch.tensor([0.0, 0.01, 0.0, -0.01])
    gym.set_dof_actuation_force_tensor(sim, gymtorch.unwrap_tensor(efforts))
    gym.simulate(sim)
    gym.refresh_dof_state_tensor(sim)
    w1 = dofs[1::2, 1].clone()
    assert w1[0] > 0 and w1[1] < 0             # the efforts acted for one step...
    for _ in range(30):
        gym.simulate(sim)
    gym.refresh_dof_state_tensor(sim)
    # ...and then were gone: no torque, so the pole's angular momentum is conserved (the cart
    # only sloshes); without the reset |w| would have grown 31-fold
    assert (dofs[1::2, 1].abs() < 3 * w1.abs()).all()
    # cart in POS mode: targets persist over many steps
    dp["driveMode"][0::2] = gymapi.DOF_MODE_POS
    dp["stiffness"][0::2], dp["damping"][0::2] = 100.0, 20.0
    P.write_dof_props(sim, np.arange(4), dp)
    targets = torch.tensor([0.5, 0.0, -0.25, 0.0])
    gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(targets))
    for _ in range(360):
        gym.simulate(sim)
    gym.refresh_dof_state_tensor(sim)
    np.testing.assert_allclose(dofs[0::2, 0].numpy(), [0.5, -0.25], atol=5e-3)


def test_bad_tensors_are_rejected_and_change_nothing(gym, scene):
    sim, envs = scene
    root_t = gym.acquire_actor_root_state_tensor(sim)
    root = gymtorch.wrap_tensor(root_t)
    gym.refresh_actor_root_state_tensor(sim)
    before = root.clone()
    bad = root.clone()
    bad[:, 2] += 1.0
    with pytest.raises(ValueError, match="shape"):
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad[:-1]))
    with pytest.raises(TypeError, match="dtype"):
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad.double()))
    with pytest.raises(TypeError, match="gymapi.Tensor"):
        gym.set_actor_root_state_tensor(sim, bad)
    with pytest.raises(TypeError, match="int32"):
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(bad),
                                                gymtorch.unwrap_tensor(torch.tensor([0, 1])), 2)
    with pytest.raises(IndexError, match="out of range"):
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(bad),
                                                gymtorch.unwrap_tensor(torch.tensor([0, 99], dtype=torch.int32)), 2)
    with pytest.raises(ValueError, match="count"):
        gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(bad),
                                                gymtorch.unwrap_tensor(torch.tensor([0], dtype=torch.int32)), 3)
    with pytest.raises(GymlikeError):
        gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(torch.zeros(3, 2)))
    # the right count in the wrong layout: rows must stay rows
    n_act, n_dof = root.shape[0], gym.get_sim_dof_count(sim)
    with pytest.raises(ValueError, match=r"expected shape \(12, 13\).*got \(13, 12\)"):
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad.t().contiguous()))
    with pytest.raises(ValueError, match="expected shape"):
        gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad.reshape(n_act // 2, 26)))
    with pytest.raises(ValueError, match="expected shape"):
        gym.set_dof_state_tensor(sim, gymtorch.unwrap_tensor(torch.zeros(2, n_dof)))
    # an indexed setter needs its index tensor: None is not "every actor"
    one = gymtorch.unwrap_tensor(torch.zeros(n_dof))
    for call, arg in ((gym.set_actor_root_state_tensor_indexed, gymtorch.unwrap_tensor(bad)),
                      (gym.set_dof_state_tensor_indexed, gymtorch.unwrap_tensor(torch.zeros(n_dof, 2))),
                      (gym.set_dof_position_target_tensor_indexed, one),
                      (gym.set_dof_velocity_target_tensor_indexed, one),
                      (gym.set_dof_actuation_force_tensor_indexed, one)):
        with pytest.raises(TypeError, match="actor indices must be a gymapi.Tensor"):
            call(sim, arg, None, 1)
    gym.refresh_actor_root_state_tensor(sim)
    assert torch.equal(root, before)
    # views of the acquired layout stay accepted: (num_envs, actors per env, 13), (num_envs, dofs per env)
    assert gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(before.view(N_ENVS, 3, 13)))
    assert gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(before.view(-1)))
    assert gym.set_dof_position_target_tensor(sim, gymtorch.unwrap_tensor(torch.zeros(N_ENVS, n_dof // N_ENVS)))


def test_rigid_body_force_tensor_accelerates_one_body(gym):
    sim = make_sim(gym, "physx", ground=False, gravity=0.0, dt=1 / 100, substeps=1)
    cube = gym.create_box(sim, 0.2, 0.2, 0.2, options(density=125.0))  # 1 kg
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        gym.create_actor(env, cube, pose(z=1), "cube", i, 0)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    forces = torch.zeros(2, 3)
    forces[1, 0] = 2.0
    for _ in range(10):
        gym.apply_rigid_body_force_tensors(sim, gymtorch.unwrap_tensor(forces), None, gymapi.ENV_SPACE)
        gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    assert root[0, 7].item() == pytest.approx(0.0, abs=1e-6)
    assert root[1, 7].item() == pytest.approx(2.0 * 0.1, rel=1e-3)   # a = F/m, v = a t


def test_nan_state_names_the_env_and_recovers_after_reset(gym):
    sim = make_sim(gym, "physx", dt=1 / 120)
    cube = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    for i in range(3):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 3)
        gym.create_actor(env, cube, pose(z=0.5), "cube", i, 0)
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    good = root.clone()
    bad = root.clone()
    bad[1, 7] = float("nan")
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    with pytest.raises(RuntimeError, match=r"env\(s\) 1 at frame 1"):
        gym.simulate(sim)
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(good))   # reset: the run goes on
    for _ in range(3):
        gym.simulate(sim)
    # with a read-back interval the error names the frame range
    sim.nan_check_interval = 4
    gym.set_actor_root_state_tensor(sim, gymtorch.unwrap_tensor(bad))
    for _ in range(3):
        gym.simulate(sim)
    with pytest.raises(RuntimeError, match=r"env\(s\) 1 between frames 5 and 8"):
        gym.simulate(sim)


def test_indexed_target_setters_touch_only_listed_actors(gym, scene):
    sim, envs = scene
    for e in envs:
        drive_mode(gym, e, 0, gymapi.DOF_MODE_POS)
    n = gym.get_sim_dof_count(sim)
    before = [[gym.get_actor_dof_position_targets(e, a).copy() for a in range(3)] for e in envs]
    targets = torch.arange(n, dtype=torch.float32) * 0.01
    arm2 = gym.get_actor_index(envs[2], 0, gymapi.DOMAIN_SIM)
    cube1 = gym.get_actor_index(envs[1], 1, gymapi.DOMAIN_SIM)   # no DOFs: skipped
    ids = torch.tensor([cube1, arm2], dtype=torch.int32)
    gym.set_dof_position_target_tensor_indexed(sim, gymtorch.unwrap_tensor(targets), gymtorch.unwrap_tensor(ids), 2)
    for ei, e in enumerate(envs):
        for a in range(3):
            now = gym.get_actor_dof_position_targets(e, a)
            if (ei, a) == (2, 0):
                idx = [gym.get_actor_dof_index(e, 0, d, gymapi.DOMAIN_SIM) for d in range(9)]
                np.testing.assert_array_equal(now, targets[idx].numpy())
            else:
                np.testing.assert_array_equal(now, before[ei][a])     # bit for bit


def test_fixed_base_root_reset_moves_only_that_arm(gym, scene):
    sim, envs = scene
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
    gym.refresh_actor_root_state_tensor(sim)
    arm1 = gym.get_actor_index(envs[1], 0, gymapi.DOMAIN_SIM)
    arm2 = gym.get_actor_index(envs[2], 0, gymapi.DOMAIN_SIM)
    target = root.clone()
    target[arm1, 0:3] += torch.tensor([0.3, -0.2, 0.1])
    gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(target),
                                            gymtorch.unwrap_tensor(torch.tensor([arm1], dtype=torch.int32)), 1)
    gym.simulate(sim)
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_rigid_body_state_tensor(sim)
    tol = 1e-5 if sim.type == gymapi.SIM_PHYSX else 2e-3      # XPBD's weld is slightly compliant
    torch.testing.assert_close(root[arm1, 0:7], target[arm1, 0:7], atol=tol, rtol=0)   # welded where put
    torch.testing.assert_close(root[arm2, 0:7], target[arm2, 0:7], atol=tol, rtol=0)   # not moved
    # the whole arm followed its base: its hand is offset like the base (relative to its env)
    hands = [gym.find_actor_rigid_body_index(e, 0, "hand", gymapi.DOMAIN_SIM) for e in envs[1:3]]
    rel = [bodies[h, 0:3] for h in hands]     # env-frame positions
    torch.testing.assert_close(rel[0] - rel[1], torch.tensor([0.3, -0.2, 0.1]), atol=1e-2, rtol=0)


def test_wrap_tensor_offsets_and_counts(gym, scene):
    sim, envs = scene
    t = gym.acquire_rigid_body_state_tensor(sim)
    full = gymtorch.wrap_tensor(t)
    part = gymtorch.wrap_tensor(t, offsets=(2, 7), counts=(3, 6))
    assert tuple(part.shape) == (3, 6) and part.data_ptr() == full[2, 7:].data_ptr()
    with pytest.raises(ValueError, match="exceeds"):
        gymtorch.wrap_tensor(t, offsets=(0, 10), counts=(1, 6))


@pytest.mark.parametrize("api", ["tensor", "handle"])
def test_nan_env_recovers_in_one_reset_on_physx_and_others_run_on_bit_for_bit(gym, api):
    """An articulated env that went NaN recovers with one reset through the public API (MuJoCo's
    warm start of that env is cleared); the other env's run equals an undisturbed run exactly."""
    def run(inject):
        sim = make_sim(gym, "physx", dt=1 / 60, substeps=2)
        ant = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", options())
        envs = []
        for i in range(2):
            env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
            gym.create_actor(env, ant, pose(z=0.6), "ant", i, 0)
            envs.append(env)
        gym.prepare_sim(sim)
        root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        root0, dof0 = root.clone(), dof.clone()
        body0 = gym.get_actor_rigid_body_states(envs[1], 0, gymapi.STATE_ALL).copy()
        dofs0 = gym.get_actor_dof_states(envs[1], 0, gymapi.STATE_ALL).copy()
        for _ in range(20):
            gym.simulate(sim)
        if inject:
            gym.refresh_dof_state_tensor(sim)
            bad = dof.clone()
            bad[8:, 1] = float("nan")                    # env 1's DOF velocities
            one = gymtorch.unwrap_tensor(torch.tensor([1], dtype=torch.int32))
            gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(bad), one, 1)
            with pytest.raises(RuntimeError, match=r"env\(s\) 1 at frame 21"):
                gym.simulate(sim)
            if api == "tensor":
                ids = gymtorch.unwrap_tensor(torch.tensor([1], dtype=torch.int32))
                gym.set_actor_root_state_tensor_indexed(sim, gymtorch.unwrap_tensor(root0), ids, 1)
                gym.set_dof_state_tensor_indexed(sim, gymtorch.unwrap_tensor(dof0), ids, 1)
            else:
                gym.set_actor_rigid_body_states(envs[1], 0, body0, gymapi.STATE_ALL)
                gym.set_actor_dof_states(envs[1], 0, dofs0, gymapi.STATE_ALL)
        else:
            gym.simulate(sim)
        for _ in range(20):
            gym.simulate(sim)                            # raises if env 1 is still poisoned
        gym.refresh_actor_root_state_tensor(sim)
        out = root.clone()
        gym.destroy_sim(sim)
        return out

    ref, got = run(False), run(True)
    assert torch.isfinite(got).all()
    assert torch.equal(got[0], ref[0])
