"""Multi-geom bodies keep every contact MuJoCo gives them (issue 40, item 1).

MuJoCo's compiler chooses each body's inertial frame (principal axes) and builds the body's
collision BVH (the midphase boxes) in that frame. Newton rewrites the inertia as its own
eigendecomposition, whose axes may be the compiled ones flipped, permuted or (for a nearly
isotropic inertia, as on legged robots' feet) rotated anywhere: read in the wrong frame, the
boxes of a foot's spheres lay above the ground and MuJoCo C dropped their contacts (a foot
of four spheres fell through the floor). The oracle here is MuJoCo's C library compiling the
same MJCF file: bodies resting and sliding on the ground get the same contacts there and here,
on both CPU pipelines, also after the inertia or COM is changed through the API.
"""

import mujoco
import numpy as np
import pytest

from gymlike import gymapi
from conftest import make_sim, options, pose, write

# a foot of four small spheres under a nearly isotropic inertia with tiny products of inertia
# (as legged robots' URDFs give their ankle links): any axes are almost principal, so Newton's
# and MuJoCo's eigendecompositions pick very different ones
SPHERE_FOOT = """<mujoco model="sphere_foot"><worldbody><body name="foot">
  <freejoint/>
  <inertial pos="0.0265 0 -0.0164" mass="0.608" fullinertia="0.01 0.01 0.01 2e-7 8.91e-5 -1e-7"/>
  <geom type="sphere" size="0.005" pos="-0.05 0.025 -0.03"/>
  <geom type="sphere" size="0.005" pos="-0.05 -0.025 -0.03"/>
  <geom type="sphere" size="0.005" pos="0.12 0.03 -0.03"/>
  <geom type="sphere" size="0.005" pos="0.12 -0.03 -0.03"/>
</body></worldbody></mujoco>"""

# a sole of two boxes and a heel box, inertia from the geoms (off-diagonal, MuJoCo's own axes)
BOX_FOOT = """<mujoco model="box_foot"><worldbody><body name="foot">
  <freejoint/>
  <geom type="box" size="0.06 0.035 0.01" pos="0.04 0 0" euler="0 0 8" mass="0.4"/>
  <geom type="box" size="0.03 0.03 0.01" pos="-0.07 0.01 0" mass="0.2"/>
  <geom type="box" size="0.02 0.02 0.04" pos="-0.05 0.0 0.05" euler="10 0 0" mass="0.3"/>
</body></worldbody></mujoco>"""

# a convex mesh sole (a wedge) under a capsule ankle
MESH_FOOT = """<mujoco model="mesh_foot"><asset><mesh name="sole" file="sole.obj"/></asset>
<worldbody><body name="foot">
  <freejoint/>
  <geom type="mesh" mesh="sole" mass="0.5"/>
  <geom type="capsule" size="0.015" fromto="-0.02 0 0.03 -0.02 0 0.12" mass="0.2"/>
</body></worldbody></mujoco>"""

# the wedge: 0.2 m long, 0.08 m wide, 0.02 m thick at the heel, 0.01 m at the toe
SOLE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (-0.1, 0.1) for y in (-0.04, 0.04)
                   for z in (0.0, 0.02 if x < 0 else 0.01)) + "".join(
    f"f {a} {b} {c}\n" for a, b, c in [(1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4), (1, 2, 4), (1, 4, 3),
                                       (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2), (3, 4, 8), (3, 8, 7)])

FEET = {"spheres": SPHERE_FOOT, "boxes": BOX_FOOT, "mesh": MESH_FOOT}
DT, SUBSTEPS, DROP = 1.0 / 60.0, 2, 0.002     # dropped from 2 mm above the ground


def _files(tmp_path):
    write(tmp_path, "sole.obj", SOLE_OBJ)
    return {k: write(tmp_path, f"{k}.xml", v) for k, v in FEET.items()}


def _mujoco(path, inertia=None, com=None):
    """MuJoCo's own model of the file on a plane (MuJoCo's float64 compile), optionally with the
    body's inertia (3x3 about the COM, body frame) and COM replaced."""
    spec = mujoco.MjSpec.from_file(path)
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[5, 5, 0.1])
    body = spec.body("foot")
    if inertia is not None:
        first = spec.compile()
        body.explicitinertial = True
        body.mass = float(first.body_mass[1])
        body.ipos = first.body_ipos[1] if com is None else com
        body.fullinertia = [inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2],
                            inertia[1, 2]]
        body.iquat = [1, 0, 0, 0]
    model = spec.compile()
    model.opt.timestep = DT / SUBSTEPS
    return model


def _lowest(model):
    """Height of the body origin that puts its lowest point DROP above z = 0 (upright)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    low = np.inf
    for g in range(model.ngeom):
        if model.geom_bodyid[g] != 1:
            continue
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            m = model.geom_dataid[g]
            v = model.mesh_vert[model.mesh_vertadr[m]:model.mesh_vertadr[m] + model.mesh_vertnum[m]]
        else:     # the corners of the geom's box (exact for boxes, spheres and upright capsules)
            c, h = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
            v = c + h * np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        low = min(low, (v @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g])[:, 2].min())
    return DROP - (low - data.qpos[2])


def _mujoco_run(model, z0, vx, frames):
    """MuJoCo's contacts (positions, sorted) and body height after `frames` frames."""
    data = mujoco.MjData(model)
    data.qpos[2] = z0
    data.qvel[0] = vx
    counts = []
    for _ in range(frames):
        mujoco.mj_step(model, data, nstep=SUBSTEPS)
        counts.append(data.ncon)
    pos = np.array(sorted(tuple(np.round(c.pos, 4)) for c in data.contact[:data.ncon]))
    return counts, pos, data.qpos[:3].copy()


def _gymlike_run(gym, path, z0, vx, frames, change=None):
    """The same file as a gymlike actor (SIM_PHYSX, dt and substeps as above): contacts per
    frame, the last frame's contact points (world), position and net contact force."""
    sim = make_sim(gym, dt=DT, substeps=SUBSTEPS)
    asset = gym.load_asset(sim, *_split(path), options())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    actor = gym.create_actor(env, asset, pose(z=z0), "foot", 0, 0)
    if change is not None:
        change(gym, env, actor)
    net = gym.acquire_net_contact_force_tensor(sim)
    gym.prepare_sim(sim)
    root = gym.acquire_actor_root_state_tensor(sim)
    from gymlike import gymtorch
    roots = gymtorch.wrap_tensor(root)
    gym.refresh_actor_root_state_tensor(sim)
    roots[0, 7] = vx
    gym.set_actor_root_state_tensor(sim, root)
    counts = []
    for _ in range(frames):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
        counts.append(len(_touching(gym.get_env_rigid_contacts(env))))
    contacts = _touching(gym.get_env_rigid_contacts(env))
    # body 0 is the foot: its contact point on the ground side is localPos1 on the plane (world)
    points = np.array(sorted(tuple(np.round(_world_point(c), 4)) for c in contacts))
    gym.refresh_actor_root_state_tensor(sim)
    gym.refresh_net_contact_force_tensor(sim)
    state = gymtorch.wrap_tensor(root)[0, :3].numpy().copy()
    force = gymtorch.wrap_tensor(net)[0].numpy().copy()
    gym.destroy_sim(sim)
    return counts, points, state, force


def _touching(contacts):
    """The contacts whose shapes touch: PhysX (and gymlike on MuJoCo-Warp) also list pairs
    within the contact offset, still apart, which MuJoCo with no margin does not make."""
    return contacts[contacts["minDist"] <= 0.0]


def _world_point(c):
    """A RigidContact's point on the ground (body -1: localPos is in the world frame)."""
    for body, local in (("body0", "localPos0"), ("body1", "localPos1")):
        if c[body] < 0:
            return np.array([c[local]["x"], c[local]["y"], c[local]["z"]])
    raise AssertionError(f"a contact not with the ground: {c}")


def _split(path):
    import os
    return os.path.dirname(path), os.path.basename(path)


@pytest.fixture(params=["mujoco-c", "warp"])
def pipeline(request, monkeypatch):
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", request.param)
    return request.param


@pytest.mark.parametrize("foot", ["spheres", "boxes", "mesh"])
def test_multi_geom_feet_rest_and_slide_with_mujocos_contacts(gym, tmp_path, pipeline, foot):
    """Each foot dropped 2 mm onto the ground, then sliding at 0.3 m/s: every frame the same
    number of contacts as MuJoCo compiling the file, at rest the same contact points, the
    same height, and a net contact force that carries the weight."""
    path = _files(tmp_path)[foot]
    model = _mujoco(path)
    z0 = _lowest(model)
    weight = float(model.body_mass[1]) * 9.81
    for vx, frames in ((0.0, 30), (0.3, 20)):
        want, want_pos, want_q = _mujoco_run(model, z0, vx, frames)
        got, got_pos, got_q, force = _gymlike_run(gym, path, z0, vx, frames)
        assert min(got[5:]) > 0, f"{foot}: the foot lost every contact ({got})"
        assert got[5:] == want[5:], f"{foot}, vx {vx}: contacts per frame {got} (MuJoCo: {want})"
        if vx == 0.0:
            assert got_pos.shape == want_pos.shape
            np.testing.assert_allclose(got_pos[:, :2], want_pos[:, :2], atol=2e-3)
            np.testing.assert_allclose(got_q, want_q, atol=1e-3)
            np.testing.assert_allclose(force, [0.0, 0.0, weight], rtol=0.02, atol=0.02 * weight)


def _rotated(R):
    def change(gym, env, actor):
        props = gym.get_actor_rigid_body_properties(env, actor)
        m = props[0].inertia
        inertia = np.array([[m.x.x, m.x.y, m.x.z], [m.y.x, m.y.y, m.y.z], [m.z.x, m.z.y, m.z.z]])
        new = R @ inertia @ R.T
        mat = gymapi.Mat33()
        mat.x, mat.y, mat.z = (gymapi.Vec3(*row) for row in new)
        props[0].inertia = mat
        props[0].com = gymapi.Vec3(props[0].com.x + 0.01, props[0].com.y - 0.005, props[0].com.z)
        gym.set_actor_rigid_body_properties(env, actor, props)
        change.inertia, change.com = new, np.array([props[0].com.x, props[0].com.y, props[0].com.z])
    return change


@pytest.mark.parametrize("foot", ["spheres", "boxes"])
def test_a_changed_inertia_and_com_keep_every_contact(gym, tmp_path, pipeline, foot):
    """Inertial axes really rotated (not an equivalent frame) and the COM moved through
    set_actor_rigid_body_properties: the midphase boxes follow the new inertial frame, and the
    foot keeps MuJoCo's contacts (MuJoCo compiling the file with that inertia and COM)."""
    path = _files(tmp_path)[foot]
    c, s = np.cos(0.6), np.sin(0.6)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    change = _rotated(R)
    z0 = _lowest(_mujoco(path))
    got, got_pos, got_q, _ = _gymlike_run(gym, path, z0, 0.0, 30, change)
    model = _mujoco(path, change.inertia, change.com)
    want, want_pos, want_q = _mujoco_run(model, z0, 0.0, 30)
    assert got[5:] == want[5:], f"contacts per frame {got} (MuJoCo: {want})"
    np.testing.assert_allclose(got_pos[:, :2], want_pos[:, :2], atol=2e-3)
    np.testing.assert_allclose(got_q, want_q, atol=2e-3)


def _leaf_boxes_enclose_geoms(model):
    """Every BVH leaf box of every body, read in the body's inertial frame as MuJoCo's midphase
    reads it, encloses its geom (the corners of the geom's own box): the worst excess, m."""
    worst = 0.0
    for b in range(model.nbody):
        adr, num = model.body_bvhadr[b], model.body_bvhnum[b]
        if num <= 0 or b == 0:
            continue
        Ri, pi = _wxyz(model.body_iquat[b]), model.body_ipos[b]
        for node in range(adr, adr + num):
            g = model.bvh_nodeid[node]
            if g < 0:
                continue
            c, h = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
            corners = c + h * np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
            in_body = corners @ _wxyz(model.geom_quat[g]).T + model.geom_pos[g]
            in_inertial = (in_body - pi) @ Ri
            box_c, box_h = model.bvh_aabb[node, :3], model.bvh_aabb[node, 3:]
            worst = max(worst, float((np.abs(in_inertial - box_c) - box_h).max()))
    return worst


def _wxyz(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, np.float64))
    return m.reshape(3, 3)


@pytest.mark.parametrize("rotate", [False, True])
def test_midphase_boxes_are_in_the_inertial_frame_mujoco_c_reads(gym, tmp_path, monkeypatch, rotate):
    """On MuJoCo C, each world's model (what its step reads) has BVH leaf boxes that enclose
    their geoms in the body's current inertial frame: the compiled frame kept for an
    equivalent inertia, the boxes moved with a frame the API really changed."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", "mujoco-c")
    path = _files(tmp_path)["spheres"]
    sim = make_sim(gym, dt=DT, substeps=SUBSTEPS)
    asset = gym.load_asset(sim, *_split(path), options())
    change = _rotated(np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]) @ np.array(
        [[1.0, 0.0, 0.0], [0.0, 0.8, -0.6], [0.0, 0.6, 0.8]]))
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
        actor = gym.create_actor(env, asset, pose(z=0.1), "foot", i, 0)
        if rotate and i == 1:
            change(gym, env, actor)
    gym.prepare_sim(sim)
    gym.simulate(sim)
    solver = sim.solver
    for w in range(2):
        model = solver.batch.get_model(w, __import__("copy").copy(solver.template))
        assert _leaf_boxes_enclose_geoms(model) < 1e-6, f"world {w}"
    gym.destroy_sim(sim)
