"""Malformed URDF and MJCF files: each gets a gymlike error naming the file, the line and the
element (core/assets/check.py), at load_asset, and the failed load adds nothing to the sim.
Each case is a file written here; the ones marked in comments failed before with a raw
exception (StopIteration, RecursionError, ModuleNotFoundError, LinAlgError at prepare_sim...)."""

import random
import struct

import pytest

from gymlike import gymapi
from gymlike.core.errors import AssetParseError, GymlikeError, GymlikeFileNotFoundError, GymlikeRuntimeError


def link(name, mass="1", inertia=("0.01", "0", "0", "0.01", "0", "0.01"), geom='<box size="0.1 0.1 0.1"/>'):
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    return (f'<link name="{name}"><inertial><mass value="{mass}"/><inertia ixx="{ixx}" ixy="{ixy}" '
            f'ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial>'
            f'<collision><geometry>{geom}</geometry></collision></link>')


def joint(name, parent, child, jtype="revolute", origin='<origin xyz="0 0 0.2"/>',
          extra='<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'):
    return (f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>'
            f'{origin}{extra}</joint>')


def robot(*lines):
    """A URDF whose n-th argument is on line n + 2."""
    return '<?xml version="1.0"?>\n<robot name="r">\n' + "\n".join(lines) + "\n</robot>\n"


def mjcf(*lines, before=""):
    """An MJCF whose n-th worldbody line is on line n + 2."""
    return f'<mujoco model="m">{before}\n<worldbody>\n' + "\n".join(lines) + "\n</worldbody>\n</mujoco>\n"


A, B = link("a"), link("b")
chain = [link("l0")] + [link(f"l{i}") + joint(f"j{i}", f"l{i - 1}", f"l{i}") for i in range(1, 3000)]
nest = "".join(f'<body name="b{i}"><joint type="hinge"/><geom size="0.05"/>' for i in range(3000)) + "</body>" * 3000

# (file, text, error, line, element, phrase)
CASES = [
    ("empty.urdf", robot(""), AssetParseError, 2, '<robot name="r">', "no <link>"),   # was StopIteration
    ("mjcf.urdf", '<mujoco>\n<worldbody/></mujoco>', AssetParseError, 1, "<mujoco>",
     "must be <robot>"),                                                    # StopIteration
    ("chain.urdf", robot("".join(chain)), AssetParseError, 3, '<link name="l500">', "more than 500 bodies deep"),
    ("garbage_mesh.urdf", robot(link("a", geom='<mesh filename="garbage.stl"/>')), AssetParseError, 3, "<mesh>",
     "not a valid STL"),                                                    # was ModuleNotFoundError
    ("neg_inertia.urdf", robot(A, link("b", inertia=("-1", "0", "0", "1", "0", "1")), joint("j", "a", "b")),
     AssetParseError, 4, "<inertia>", "negative moment of inertia"),       # MuJoCo at prepare_sim
    ("nan_inertia.urdf", robot(A, link("b", inertia=("nan", "0", "0", "1", "0", "1")), joint("j", "a", "b")),
     AssetParseError, 4, "<inertia>", 'ixx="nan" is not finite'),          # LinAlgError at prepare_sim
    ("neg_mass.urdf", robot(A, link("b", mass="-1"), joint("j", "a", "b")), AssetParseError, 4, "<mass>", ">= 0"),
    ("missing_child.urdf", robot(A, joint("j", "a", "zz")), AssetParseError, 4, "<child>", "'zz' is not defined"),
    ("two_parents.urdf", robot(A, B, link("c"), joint("j1", "a", "c"), joint("j2", "b", "c")), AssetParseError, 7,
     '<joint name="j2">', "already the child of joint 'j1' (line 6)"),
    ("cycle.urdf", robot(A, B, joint("j1", "a", "b"), joint("j2", "b", "a")), AssetParseError, 2, "<robot",
     "cycle"),
    ("bad_number.urdf", robot(A, B, joint("j", "a", "b", origin='<origin xyz="a b c"/>')), AssetParseError, 5,
     "<origin>", 'xyz="a b c" is not a list of numbers'),
    ("arity.urdf", robot(A, B, joint("j", "a", "b", origin='<origin xyz="1 2"/>')), AssetParseError, 5,
     "<origin>", "has 2 numbers, expected 3"),
    ("zero_axis.urdf", robot(A, B, joint("j", "a", "b", extra='<axis xyz="0 0 0"/>')), AssetParseError, 5,
     "<axis>", "zero axis"),                                                # MuJoCo at prepare_sim
    ("limits.urdf", robot(A, B, joint("j", "a", "b", extra='<limit lower="1" upper="-1" effort="1" velocity="1"/>')),
     AssetParseError, 5, "<limit>", "above the upper limit"),
    ("neg_box.urdf", robot(link("a", geom='<box size="-1 1 1"/>')), AssetParseError, 3, "<box>", ">= 0"),
    ("torus.urdf", robot(link("a", geom='<torus radius="1"/>')), AssetParseError, 3, "<torus>", "unknown geometry"),
    ("dup.urdf", robot(A, A), AssetParseError, 4, '<link name="a">', "already used at line 3"),
    ("hinge2.urdf", robot(A, B, joint("j", "a", "b", jtype="hinge2")), NotImplementedError, 5, '<joint name="j">',
     "joint type 'hinge2' is not supported"),                               # was Exception
    ("no_type.urdf", robot(A, B, '<joint name="j"><parent link="a"/><child link="b"/></joint>'), AssetParseError,
     5, '<joint name="j">', "attribute 'type' is missing"),
    ("truncated.urdf", robot(A)[:50], AssetParseError, 3, "", "not well-formed XML"),
    ("mj_hinge2.xml", mjcf('<body><joint type="hinge2"/><geom size="0.1"/></body>'), AssetParseError, 3, "<joint>",
     "'hinge2' is not an MJCF joint type"),                                 # was accepted silently
    ("mj_geom.xml", mjcf('<body><freejoint/><geom type="torus" size="0.1"/></body>'), AssetParseError, 3, "<geom>",
     "'torus' is not an MJCF geom type"),
    ("mj_size.xml", mjcf('<body><freejoint/><geom type="box" size="-1 1 1"/></body>'), AssetParseError, 3, "<geom>",
     ">= 0"),
    ("mj_neg_inertia.xml", mjcf('<body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="-1 1 1"/></body>'),
     AssetParseError, 3, "<inertial>", ">= 0"),                            # LinAlgError at prepare_sim
    ("mj_nested.xml", mjcf(nest), AssetParseError, 3, '<body name="b500">',
     "more than 500 bodies deep"),                                          # RecursionError
    ("mj_mesh_ref.xml", mjcf('<body><freejoint/><geom type="mesh" mesh="zz"/></body>'), AssetParseError, 3,
     "<geom>", "mesh 'zz' is not defined"),
    ("mj_garbage_mesh.xml", mjcf('<body><freejoint/><geom type="mesh" mesh="g"/></body>',
                                 before='\n<asset><mesh name="g" file="garbage.stl"/></asset>'),
     AssetParseError, 2, '<mesh name="g">', "not a valid STL"),            # was ModuleNotFoundError
    ("mj_missing_mesh.xml", mjcf('<body><freejoint/><geom type="mesh" mesh="g"/></body>',
                                 before='\n<asset><mesh name="g" file="nope.stl"/></asset>'),
     GymlikeFileNotFoundError, 2, '<mesh name="g">', "mesh file 'nope.stl' not found"),
    ("mj_class.xml", mjcf('<body childclass="nope"><joint/><geom size="0.1"/></body>'), AssetParseError, 3,
     "<body>", "childclass 'nope' is not a defined <default class>"),
    ("mj_actuator.xml", mjcf('<body><joint name="h"/><geom size="0.1"/></body>',
                             ) .replace("</mujoco>", '<actuator>\n<motor joint="zz"/></actuator></mujoco>'),
     AssetParseError, 6, "<motor>", "joint 'zz' is not defined"),
    ("mj_quat.xml", mjcf('<body quat="0 0 0 0"><freejoint/><geom size="0.1"/></body>'), AssetParseError, 3,
     "<body>", "zero quaternion"),
    ("mj_range.xml", mjcf('<body><joint range="1 -1" limited="true"/><geom size="0.1"/></body>'), AssetParseError,
     3, "<joint>", "lower end above its upper end"),
    ("urdf.xml", robot(A), AssetParseError, 2, '<robot name="r">', "must be <mujoco>"),
    # (found by the fuzz test: Newton's finalize never returned for this box)
    ("mj_huge.xml", mjcf('<body><joint type="slide"/><geom type="box" size="1e30 0 0"/></body>'), AssetParseError,
     3, "<geom>", 'size="1e30 0 0" is beyond 100000 m'),
    ("huge.urdf", robot(link("a", geom='<box size="1e30 1 1"/>')), AssetParseError, 3, "<box>", "beyond 100000 m"),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("malformed")
    rnd = random.Random(0)
    (d / "garbage.stl").write_bytes(bytes(rnd.randrange(256) for _ in range(300)))
    for name, text, *_ in CASES:
        (d / name).write_text(text)
    return d


@pytest.fixture
def sim(gym):
    params = gymapi.SimParams()
    params.up_axis = gymapi.UP_AXIS_Z
    params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
    s = gym.create_sim(0, -1, gymapi.SIM_PHYSX, params)
    yield s
    gym.destroy_sim(s)


@pytest.mark.parametrize("name,text,error,line,element,phrase", CASES, ids=[c[0] for c in CASES])
def test_malformed_asset_names_file_line_and_element(gym, sim, folder, name, text, error, line, element, phrase):
    with pytest.raises(error) as info:
        gym.load_asset(sim, str(folder), name, gymapi.AssetOptions())
    msg = str(info.value)
    assert isinstance(info.value, GymlikeError)
    assert f"{folder / name}', line {line}" in msg, msg
    assert element in msg and phrase in msg, msg


def test_failed_load_changes_nothing_and_the_sim_goes_on(gym, sim, folder):
    with pytest.raises(AssetParseError):
        gym.load_asset(sim, str(folder), "cycle.urdf", gymapi.AssetOptions())
    (folder / "good.urdf").write_text(robot(A, B, joint("j", "a", "b")))
    asset = gym.load_asset(sim, str(folder), "good.urdf", gymapi.AssetOptions())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 1)), "robot", 0, 0)
    gym.prepare_sim(sim)
    gym.simulate(sim)
    assert gym.get_sim_actor_count(sim) == 1 and gym.get_sim_dof_count(sim) == 1


def test_point_mass_link_gets_rotational_inertia(gym, sim, folder):
    """A moving link with mass but zero inertia (a LinAlgError at prepare_sim before) gets the
    small inertia massless links get, keeps its mass, and the pendulum swings."""
    point = ('<link name="b"><inertial><origin xyz="0 0.3 0"/><mass value="2"/><inertia ixx="0" ixy="0" '
             'ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>')
    (folder / "point.urdf").write_text(robot(A, point, joint("j", "a", "b", jtype="continuous",
                                                             extra='<axis xyz="1 0 0"/>')))
    opts = gymapi.AssetOptions()
    opts.fix_base_link = True
    with pytest.warns(UserWarning, match=r"without mass or rotational inertia \(b\)"):
        asset = gym.load_asset(sim, str(folder), "point.urdf", opts)
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    actor = gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 1)), "robot", 0, 0)
    props = gym.get_actor_rigid_body_properties(env, actor)
    assert props[1].mass == pytest.approx(2.0)
    assert min(props[1].inertia.x.x, props[1].inertia.y.y, props[1].inertia.z.z) > 0
    gym.prepare_sim(sim)
    for _ in range(30):
        gym.simulate(sim)
    gym.refresh_dof_state_tensor(sim)
    # the body hangs off-axis under gravity: it swings, and stays finite
    pos = gym.get_actor_dof_states(env, 0, gymapi.STATE_POS)["pos"]
    assert abs(float(pos[0])) > 0.05 and abs(float(pos[0])) < 3.2


@pytest.mark.parametrize("engine", [gymapi.SIM_PHYSX, gymapi.SIM_FLEX])
def test_massless_link_welded_to_a_moving_link_gets_mass_with_a_warning(gym, folder, engine):
    """A link with zero mass and zero inertia welded (fixed joint) to a floating base moves with
    it. It simulated without a word, and on SIM_FLEX (XPBD: no mass = immovable) it pinned the
    falling robot in mid-air. Like other moving links without mass it gets 0.001 kg and a
    warning, and the robot falls freely on both engines."""
    frame = ('<link name="frame"><inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" '
             'izz="0"/></inertial></link>')
    (folder / "frame.urdf").write_text(robot(A, frame, joint("weld", "a", "frame", jtype="fixed", extra="")))
    params = gymapi.SimParams()
    params.up_axis, params.gravity, params.dt, params.substeps = gymapi.UP_AXIS_Z, gymapi.Vec3(0, 0, -9.81), 1 / 60, 4
    sim = gym.create_sim(0, -1, engine, params)
    with pytest.warns(UserWarning, match=r"without mass or rotational inertia \(frame\)"):
        asset = gym.load_asset(sim, str(folder), "frame.urdf", gymapi.AssetOptions())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 5)), "robot", 0, 0)
    assert gym.get_actor_rigid_body_properties(env, 0)[1].mass == pytest.approx(0.001)
    for _ in range(30):
        gym.simulate(sim)
    z = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)["pose"]["p"]["z"]
    assert z[0] == pytest.approx(5.0 - 0.5 * 9.81 * 0.5 ** 2, abs=0.02) and z[1] == pytest.approx(z[0] + 0.2, abs=1e-3)


def test_solver_refusal_at_prepare_sim_names_the_asset(gym, sim, folder):
    """What only MuJoCo can judge (here a 1e30 kg link) is refused at prepare_sim as a
    GymlikeRuntimeError naming the asset files, and the sim stays open for a fixed script."""
    (folder / "heavy.urdf").write_text(robot(A, link("b", mass="1e30"), joint("j", "a", "b")))
    asset = gym.load_asset(sim, str(folder), "heavy.urdf", gymapi.AssetOptions())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 1)), "robot", 0, 0)
    with pytest.raises(GymlikeRuntimeError, match=r"heavy\.urdf"), \
            pytest.warns(RuntimeWarning, match="MuJoCo warned: Inertia matrix is too close to singular"):
        gym.prepare_sim(sim)         # (MuJoCo's own warning of Newton's conversion: a Python one)


def test_valid_binary_stl_passes_the_check(gym, sim, folder):
    tri = struct.pack("<12fH", 0, 0, 1, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0)
    tet = [((0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)), ((0, 0, 0), (0, 0, 0.1), (0.1, 0, 0)),
           ((0, 0, 0), (0, 0.1, 0), (0, 0, 0.1)), ((0.1, 0, 0), (0, 0, 0.1), (0, 0.1, 0))]
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *[c for v in t for c in v], 0) for t in tet)
    assert len(tri) == 50
    (folder / "tet.stl").write_bytes(b"\0" * 80 + struct.pack("<I", len(tet)) + body)
    (folder / "tet.urdf").write_text(robot(link("a", geom='<mesh filename="tet.stl"/>')))
    asset = gym.load_asset(sim, str(folder), "tet.urdf", gymapi.AssetOptions())
    assert gym.get_asset_rigid_shape_count(asset) == 1


def test_welded_link_with_mass_and_singular_inertia_runs(gym, sim, folder):
    """Found by the fuzz test: a link welded by a fixed joint with mass but a missing izz (a
    singular inertia) raised LinAlgError at prepare_sim."""
    welded = ('<link name="w"><inertial><mass value="0.1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" '
              'iyz="0"/></inertial></link>')
    (folder / "welded.urdf").write_text(robot(A, B, welded, joint("j", "a", "b"),
                                              joint("f", "a", "w", jtype="fixed", extra="")))
    asset = gym.load_asset(sim, str(folder), "welded.urdf", gymapi.AssetOptions())
    env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 1)
    gym.create_actor(env, asset, gymapi.Transform(p=gymapi.Vec3(0, 0, 1)), "robot", 0, 0)
    gym.prepare_sim(sim)
    for _ in range(10):
        gym.simulate(sim)
    states = gym.get_actor_rigid_body_states(env, 0, gymapi.STATE_POS)
    assert all(abs(float(v)) < 10 for v in states["pose"]["p"]["z"])
