"""Contact generation as Isaac Gym's PhysX filters it, on Newton's collision pipeline.

A chain robot whose links are made of several convex parts (and one non-convex mesh link)
hangs 0.1 m over a static triangle-mesh stage (not a height map, so the sim steps on
MuJoCo-Warp with Newton's contacts); boxes rest on the stage, two of them overlapping with
the same filter bit. PhysX makes contacts only between shapes closer than the sum of their
contact offsets (0.02 m each by default), never between parent and child links, and never
across overlapping filter bits. Newton's own default contact gap (0.1 m per shape) made
contacts between every pair of parts within 0.2 m: the robot's non-adjacent links (0.14 m
apart), the robot and the stage, and boxes 0.15 m apart.
"""

import warnings

import numpy as np
import pytest

from gymlike import gymapi
from conftest import make_sim, options, pose, write

pytestmark = pytest.mark.slow      # ~25 s: building the MuJoCo-Warp model dominates

# link: three 3 cm convex parts side by side (one body, several convex shapes)
PARTS = "".join(f'<collision><origin xyz="{x} 0 0"/><geometry><box size="0.03 0.06 0.03"/></geometry></collision>'
                for x in (-0.035, 0.0, 0.035))
INERTIAL = '<inertial><mass value="0.2"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>'


def _joint(name, parent, child):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="0.12 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


ROBOT = f"""<robot name="chain">
  <link name="base"><collision><geometry><box size="0.1 0.06 0.03"/></geometry></collision>{INERTIAL}</link>
  <link name="l1">{PARTS}{INERTIAL}</link>
  <link name="l2">{PARTS}{INERTIAL}</link>
  <link name="l3"><collision><geometry><mesh filename="ell.obj"/></geometry></collision>{INERTIAL}</link>
  {_joint("j1", "base", "l1")}{_joint("j2", "l1", "l2")}{_joint("j3", "l2", "l3")}
</robot>
"""


def _ell_obj():
    """An L-shaped prism (non-convex) 0.1 m long, 0.06 m wide, 0.03 m high, centred like a link."""
    poly = np.array([(0, 0), (0.1, 0), (0.1, 0.012), (0.012, 0.012), (0.012, 0.03), (0, 0.03)]) - (0.05, 0.015)
    verts = [(x, y, z) for z in (-0.03, 0.03) for x, y in poly]          # (y, z) of the profile: x, z here
    verts = [(x, z, y) for x, z, y in verts]
    n = len(poly)
    fan = [(3, 4, 5), (3, 5, 0), (3, 0, 1), (3, 1, 2)]                  # from the reflex vertex
    faces = [tuple(reversed(f)) for f in fan] + [tuple(i + n for i in f) for f in fan]
    for i in range(n):
        j = (i + 1) % n
        faces += [(i, j, j + n), (i, j + n, i + n)]
    return ("".join(f"v {x} {y} {z}\n" for x, y, z in verts)
            + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in faces))


def _stage(gym, sim):
    """A closed slab 5 cm thick, top at z = 0, under both envs: a triangle mesh whose top is a
    fan around a vertex off any lattice, so it is no height map (core/terrain.py) and keeps
    Newton's collision pipeline."""
    lo, hi, d = -1.0, 2.5, 0.05
    v = np.array([(x, y, z) for z in (-d, 0.0) for y in (lo, hi) for x in (lo, hi)] + [(0.0123, 0.0371, 0.0)],
                 np.float32)
    t = np.array([(0, 2, 1), (1, 2, 3), (8, 4, 5), (8, 5, 7), (8, 7, 6), (8, 6, 4), (0, 1, 4), (1, 5, 4),
                  (2, 6, 3), (3, 6, 7), (0, 4, 2), (2, 4, 6), (1, 3, 5), (3, 7, 5)], np.uint32)
    tp = gymapi.TriangleMeshParams()
    tp.nb_vertices, tp.nb_triangles = len(v), len(t)
    gym.add_triangle_mesh(sim, v.flatten(), t.flatten(), tp)


def test_contacts_only_between_touching_unfiltered_parts(gym, tmp_path):
    write(tmp_path, "ell.obj", _ell_obj())
    write(tmp_path, "chain.urdf", ROBOT)
    sim = make_sim(gym, ground=False, dt=1.0 / 60.0)
    _stage(gym, sim)
    robot = gym.load_asset(sim, str(tmp_path), "chain.urdf", options(fix_base_link=True, disable_gravity=True))
    assert gym.get_asset_rigid_shape_count(robot) == 1 + 3 + 3 + 1
    box = gym.create_box(sim, 0.1, 0.1, 0.1, options())
    envs = []
    for i in range(2):
        env = gym.create_env(sim, gymapi.Vec3(-0.7, -0.7, 0), gymapi.Vec3(0.7, 0.7, 1), 2)
        gym.create_actor(env, robot, pose(-0.1, -0.2, 0.12), "robot", i, 0)     # links 0.105 m over the stage
        gym.create_actor(env, box, pose(-0.4, 0.0, 0.05), "a", i, 0)
        gym.create_actor(env, box, pose(-0.4, 0.25, 0.05), "b", i, 1)           # 0.15 m from a
        gym.create_actor(env, box, pose(-0.4, 0.33, 0.05), "c", i, 1)           # overlaps b, same filter bit
        envs.append(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym.prepare_sim(sim)
        gym.acquire_net_contact_force_tensor(sim)      # contact capture on from the first step
        for _ in range(30):
            gym.simulate(sim)
            gym.fetch_results(sim, True)
    told = [str(w.message) for w in caught if "overflow" in str(w.message).lower()]
    assert not told, told

    import newton
    from gymlike.core import handles
    core = handles.sim_of(sim)
    assert core.pipeline is not None, "the stage keeps Newton's collision pipeline"
    ell = core.host.shape_newton[gym.get_actor_rigid_shape_count(envs[0], 0) - 1]     # l3's shape
    assert core.model.shape_type.numpy()[ell] == int(newton.GeoType.CONVEX_MESH), \
        "an actor's collision mesh collides as its convex hull (PhysX's rule)"

    # bodies of an env: robot 0-3, boxes a, b, c = 4, 5, 6; the stage is -1
    stage_pairs = {(-1, 4), (-1, 5), (-1, 6)}
    for env in envs:
        c = gym.get_env_rigid_contacts(env)
        pairs = [tuple(sorted((int(b0), int(b1)))) for b0, b1 in zip(c["body0"], c["body1"])]
        count = {p: pairs.count(p) for p in set(pairs)}
        # only the three boxes on the stage touch; the robot's parts (within 0.14 m of each other
        # and 0.105 m of the stage), box a and b (0.15 m apart) and b and c (filtered) make none
        assert set(count) == stage_pairs, count
        # a box face on a triangle mesh: Newton keeps per triangle patch at most the 6 extremes
        # of the support polygon and the deepest point of each normal direction (7; measured:
        # 7 over one triangle, 11 for box c, whose face spans the stage's two top triangles)
        assert max(count.values()) <= 2 * 7, count
        assert len(c) <= 3 * 2 * 7
        # every contact is a touching one: closer than the two contact offsets (2 x 0.02 m)
        assert (c["minDist"] < 0.04).all(), c["minDist"]
