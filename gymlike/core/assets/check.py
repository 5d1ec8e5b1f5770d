"""Asset files checked before Newton imports them.

Newton's URDF and MJCF importers and MuJoCo's compiler assume well-formed files: a malformed one
surfaces as a StopIteration, a RecursionError, `could not convert string to float`, or only at
`prepare_sim` as a LinAlgError or a MuJoCo message naming a body by its mangled label. This
module reads the file once more with line numbers and checks what those importers rely on
(structure, references, numbers, sizes, masses, inertias, mesh files), so every malformed
asset gets an `AssetParseError` naming the file, the line and the element:

    asset '/path/robot.urdf', line 12, <joint name="knee">: child link 'shin' is not defined

Only what would otherwise fail (or silently mean nothing) is checked; what Isaac Gym accepts
with a fix-up (zero mass, unbalanced inertia) stays a warning at import (fixes.py, mjcf.py).
"""

from __future__ import annotations

import math
import os
import struct
import xml.parsers.expat
from typing import TYPE_CHECKING

from ..errors import AssetParseError, GymlikeFileNotFoundError, GymlikeNotImplementedError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import NoReturn

# Newton's importers recurse once per body level (Python's recursion limit ends them near 1,000)
MAX_DEPTH = 500
# Lengths beyond this (m) are refused: Newton's finalize sizes its contact-reduction voxel grid
# from each shape's bounding box one cell at a time, which never ends for a 1e30 m box
MAX_LENGTH = 1e5

URDF_JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical")
_URDF_GEOMETRY = {"box": (("size", 3),), "sphere": (("radius", 1),), "cylinder": (("radius", 1), ("length", 1)),
                  "capsule": (("radius", 1), ("length", 1)), "mesh": ()}
_MJCF_JOINT_TYPES = ("free", "ball", "slide", "hinge")
_MJCF_GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")


class Node:
    """An XML element with the line it starts on (ElementTree keeps no line numbers)."""
    __slots__ = ("tag", "attrib", "line", "children", "parent", "file")

    def __init__(self, tag, attrib, line, parent, file):
        self.tag, self.attrib, self.line, self.parent, self.file = tag, attrib, line, parent, file
        self.children = []

    def get(self, key: str, default: str | None = None) -> str | None:
        """The attribute `key`, or `default` when the element has none."""
        return self.attrib.get(key, default)

    def find(self, tag: str) -> Node | None:
        """The first child element with this tag, or None."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Node]:
        """The child elements with this tag, in file order."""
        return [c for c in self.children if c.tag == tag]

    def iter(self) -> Iterator[Node]:
        """This element and all below it, depth first in file order."""
        stack = [self]
        while stack:               # (iterative: trees may be deeper than Python's recursion limit)
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def __str__(self):
        name = self.attrib.get("name")
        return f'<{self.tag} name="{name}">' if name else f"<{self.tag}>"


def parse(path: str) -> Node:
    """The file's element tree with line numbers; a file that is not XML raises AssetParseError."""
    p = xml.parsers.expat.ParserCreate()
    root, stack = [], []

    def start(tag, attrib):
        n = Node(tag, attrib, p.CurrentLineNumber, stack[-1] if stack else None, path)
        (stack[-1].children if stack else root).append(n)
        stack.append(n)

    p.StartElementHandler = start
    p.EndElementHandler = lambda tag: stack.pop()
    try:
        with open(path, "rb") as f:
            p.ParseFile(f)
    except xml.parsers.expat.ExpatError as e:
        raise AssetParseError(f"malformed asset '{path}', line {e.lineno}: not well-formed XML "
                              f"({xml.parsers.expat.ErrorString(e.code)}, column {e.offset})") from None
    if not root:
        raise AssetParseError(f"malformed asset '{path}', line 1: the file holds no XML element")
    return root[0]


def fail(node: Node, message: str, error: type[Exception] = AssetParseError) -> NoReturn:
    """Raise `error` naming the node's file, line and element."""
    fail_at(node.file, node.line, str(node), message, error)


def fail_at(file: str, line: int, element: str, message: str,
            error: type[Exception] = AssetParseError) -> NoReturn:
    """Raise `error` with the message prefixed by file, line and element."""
    raise error(f"asset '{file}', line {line}, {element}: {message}")


def numbers(node: Node, attr: str, counts: tuple[int, ...] = (3,), *, required: bool = False,
            minimum: float | None = None, length: bool = False) -> list[float] | None:
    """The attribute's whitespace-separated numbers, checked (None when absent and optional)."""
    text = node.get(attr)
    if text is None:
        if required:
            fail(node, f"attribute '{attr}' is missing")
        return None
    try:
        vals = [float(v) for v in text.split()]
    except ValueError:
        fail(node, f"{attr}=\"{text}\" is not a list of numbers")
    if len(vals) not in counts:
        fail(node, f"{attr}=\"{text}\" has {len(vals)} numbers, expected "
             + " or ".join(str(c) for c in counts))
    if not all(math.isfinite(v) for v in vals):
        fail(node, f"{attr}=\"{text}\" is not finite")
    if minimum is not None and not all(v >= minimum for v in vals):
        fail(node, f"{attr}=\"{text}\" must be >= {minimum:g}")
    if length and not all(abs(v) <= MAX_LENGTH for v in vals):
        fail(node, f"{attr}=\"{text}\" is beyond {MAX_LENGTH:g} m")
    return vals


def _nonzero(node, attr, vals, what):
    if vals is not None and not any(abs(v) > 1e-9 for v in vals):
        fail(node, f"{attr}=\"{node.get(attr)}\" is a zero {what}")


def _check_inertia(node, diagonal):
    """Negative moments are refused; an inertia with large products of inertia (not positive
    definite, as in some of Isaac Gym's own assets) imports as before, Isaac Gym accepts it."""
    if min(diagonal) < 0.0:
        fail(node, f"negative moment of inertia ({min(diagonal):g})")


def check_mesh_file(file: str, line: int, element: str, path: str) -> None:
    """An STL must hold triangles (trimesh fails on a garbage one with an unrelated import error)."""
    if not path.lower().endswith(".stl"):
        return
    with open(path, "rb") as f:
        data = f.read()
    if len(data) >= 84:
        n = struct.unpack_from("<I", data, 80)[0]
        if n > 0 and 84 + 50 * n == len(data):
            return                                           # binary STL
    head = data[:1024].lstrip().lower()
    if head.startswith(b"solid") and b"facet" in data and b"vertex" in data:
        try:
            data.decode("ascii")
            return                                           # ASCII STL
        except UnicodeDecodeError:
            pass
    fail_at(file, line, element, f"mesh file '{path}' is not a valid STL (neither binary with a matching triangle "
               "count nor ASCII 'solid ... facet ... vertex')")


def _check_depth(root_children, children_of):
    """Depth of the body tree, iteratively; deeper than MAX_DEPTH is refused."""
    stack = [(c, 1) for c in root_children]
    while stack:
        n, d = stack.pop()
        if d > MAX_DEPTH:
            fail(n, f"the kinematic tree is more than {MAX_DEPTH} bodies deep; gymlike imports "
                    f"chains up to {MAX_DEPTH} bodies")
        stack.extend((c, d + 1) for c in children_of(n))


# ============================================================================ URDF
def check_urdf(path: str) -> Node:
    """Check a URDF file; returns its root Node."""
    robot = parse(path)
    if robot.tag != "robot":
        fail(robot, "the root element of a URDF must be <robot> (is this an MJCF file? give it "
                    "a .xml extension)")
    links, joints = {}, {}
    for link in robot.findall("link"):
        name = link.get("name")
        if not name:
            fail(link, "a link needs a name")
        if name in links:
            fail(link, f"link name '{name}' is already used at line {links[name].line}")
        links[name] = link
        _check_urdf_link(link)
    if not links:
        fail(robot, "the robot has no <link>")
    child_of = {}
    for j in robot.findall("joint"):
        name = j.get("name")
        if not name:
            fail(j, "a joint needs a name")
        if name in joints:
            fail(j, f"joint name '{name}' is already used at line {joints[name].line}")
        joints[name] = j
        t = j.get("type")
        if t is None:
            fail(j, f"attribute 'type' is missing (one of {', '.join(URDF_JOINT_TYPES)})")
        if t not in URDF_JOINT_TYPES:
            fail(j, f"joint type '{t}' is not supported by gymlike (supported: {', '.join(URDF_JOINT_TYPES)})",
                 GymlikeNotImplementedError)
        ends = {}
        for end in ("parent", "child"):
            el = j.find(end)
            if el is None or not el.get("link"):
                fail(j, f"<{end} link=...> is missing")
            if el.get("link") not in links:
                fail(el, f"{end} link '{el.get('link')}' is not defined")
            ends[end] = el.get("link")
        if ends["parent"] == ends["child"]:
            fail(j, f"link '{ends['child']}' is its own parent")
        if ends["child"] in child_of:
            fail(j, f"link '{ends['child']}' is already the child of joint '{child_of[ends['child']][0]}' "
                    f"(line {child_of[ends['child']][1].line}); a URDF is a tree")
        child_of[ends["child"]] = (name, j, ends["parent"])
        origin = j.find("origin")
        if origin is not None:
            numbers(origin, "xyz", length=True)
            numbers(origin, "rpy")
        axis = j.find("axis")
        if axis is not None:
            xyz = numbers(axis, "xyz")
            if t in ("revolute", "continuous", "prismatic", "planar"):   # (fixed joints may say 0 0 0)
                _nonzero(axis, "xyz", xyz, "axis")
        limit = j.find("limit")
        if limit is not None:
            lo, hi = numbers(limit, "lower", (1,)), numbers(limit, "upper", (1,))
            numbers(limit, "effort", (1,), minimum=0.0)
            numbers(limit, "velocity", (1,), minimum=0.0)
            if lo is not None and hi is not None and lo[0] > hi[0] and t in ("revolute", "prismatic"):
                fail(limit, f"lower limit {lo[0]:g} is above the upper limit {hi[0]:g}")
        dyn = j.find("dynamics")
        if dyn is not None:
            numbers(dyn, "damping", (1,), minimum=0.0)
            numbers(dyn, "friction", (1,), minimum=0.0)
    roots = [n for n in links if n not in child_of]
    if not roots:
        fail(robot, "no root link: the joints form a cycle")
    # (several roots import as several floating bodies, as before: one of Isaac Gym's own
    # assets has a stray link)
    kids = {}
    for c, (_, j, p) in child_of.items():
        kids.setdefault(p, []).append(links[c])
    _check_depth([links[r] for r in roots], lambda n: kids.get(n.get("name"), []))
    return robot


def _check_urdf_link(link):
    inertial = link.find("inertial")
    if inertial is not None:
        mass = inertial.find("mass")
        if mass is not None:
            numbers(mass, "value", (1,), required=True, minimum=0.0)
        origin = inertial.find("origin")
        if origin is not None:
            numbers(origin, "xyz")
            numbers(origin, "rpy")
        it = inertial.find("inertia")
        if it is not None:
            v = {k: numbers(it, k, (1,))[0] if it.get(k) is not None else 0.0
                 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
            _check_inertia(it, [v["ixx"], v["iyy"], v["izz"]])
    for part in link.findall("visual") + link.findall("collision"):
        origin = part.find("origin")
        if origin is not None:
            numbers(origin, "xyz", length=True)
            numbers(origin, "rpy")
        geom = part.find("geometry")
        if geom is None:
            fail(part, "<geometry> is missing")
        shapes = [c for c in geom.children]
        if len(shapes) != 1:
            fail(geom, f"a geometry holds exactly one shape ({', '.join(_URDF_GEOMETRY)}), found "
                       f"{len(shapes)}")
        shape = shapes[0]
        if shape.tag not in _URDF_GEOMETRY:
            fail(shape, f"unknown geometry; URDF shapes are {', '.join(_URDF_GEOMETRY)}")
        for attr, n in _URDF_GEOMETRY[shape.tag]:
            numbers(shape, attr, (n,), required=True, minimum=0.0, length=True)   # (zero: Isaac Gym's kinova)
        if shape.tag == "mesh":
            if not shape.get("filename"):
                fail(shape, "attribute 'filename' is missing")
            scale = numbers(shape, "scale", (1, 3))
            _nonzero(shape, "scale", scale and [min(abs(v) for v in scale)], "scale")


# ============================================================================ MJCF
def check_mjcf(path: str) -> Node:
    """Check an MJCF file and the files it includes; returns the main file's root Node."""
    root = parse(path)
    if root.tag != "mujoco":
        fail(root, "the root element of an MJCF file must be <mujoco> (is this a URDF? give it "
                   "a .urdf extension)")
    files = [root]
    _collect_includes(root, os.path.dirname(path), files, 0)
    nodes = [n for r in files for n in r.iter()]
    classes = {"main"} | {n.get("class") for n in nodes if n.tag == "default" and n.get("class")}
    named = {}
    for n in nodes:
        if n.get("name") and n.tag in ("joint", "freejoint", "body", "site", "mesh", "tendon", "fixed", "spatial"):
            named.setdefault("tendon" if n.tag in ("fixed", "spatial") else n.tag, set()).add(n.get("name"))
    meshes = named.get("mesh", set()) | {os.path.splitext(os.path.basename(n.get("file")))[0]
                                         for n in nodes if n.tag == "mesh" and n.get("file") and not n.get("name")}
    joints = named.get("joint", set()) | named.get("freejoint", set())
    compiler = next((n for n in nodes if n.tag == "compiler"), None)
    folder = os.path.dirname(path)
    mesh_dirs = [folder]
    for key in ("meshdir", "assetdir"):
        if compiler is not None and compiler.get(key):
            mesh_dirs.insert(0, os.path.join(folder, compiler.get(key)))
    for n in nodes:
        for attr in ("class", "childclass"):
            if n.get(attr) is not None and n.tag != "default" and n.get(attr) not in classes:
                fail(n, f"{attr} '{n.get(attr)}' is not a defined <default class>")
        in_default = _under(n, "default")
        if n.tag == "body":
            _mjcf_frame(n)
        elif n.tag == "joint":
            t = n.get("type")
            if t is not None and t not in _MJCF_JOINT_TYPES:
                fail(n, f"joint type '{t}' is not an MJCF joint type ({', '.join(_MJCF_JOINT_TYPES)})")
            axis = numbers(n, "axis")
            if t not in ("free", "ball"):
                _nonzero(n, "axis", axis, "axis")
            numbers(n, "pos")
            rng = numbers(n, "range", (2,))
            if rng is not None and rng[0] > rng[1] and n.get("limited") != "false":
                fail(n, f"range=\"{n.get('range')}\" has its lower end above its upper end")
            for attr in ("damping", "stiffness", "armature", "frictionloss"):
                numbers(n, attr, (1,), minimum=0.0)
        elif n.tag == "geom":
            t = n.get("type")
            if t is not None and t not in _MJCF_GEOM_TYPES:
                fail(n, f"geom type '{t}' is not an MJCF geom type ({', '.join(_MJCF_GEOM_TYPES)})")
            numbers(n, "size", (1, 2, 3), minimum=0.0, length=True)
            numbers(n, "fromto", (6,), length=True)
            numbers(n, "mass", (1,), minimum=0.0)
            numbers(n, "density", (1,), minimum=0.0)
            _mjcf_frame(n)
            if n.get("mesh") is not None and not in_default and n.get("mesh") not in meshes:
                fail(n, f"mesh '{n.get('mesh')}' is not defined in <asset>")
        elif n.tag == "inertial":
            numbers(n, "pos")
            numbers(n, "mass", (1,), required=True, minimum=0.0)
            d = numbers(n, "diaginertia", minimum=0.0)
            f = numbers(n, "fullinertia", (6,))
            if f is not None:
                _check_inertia(n, f[:3])
            if d is None and f is None:
                fail(n, "an <inertial> needs diaginertia or fullinertia")
        elif n.tag == "mesh" and n.get("file") and _under(n, "asset"):
            numbers(n, "scale")
            found = next((os.path.join(d, n.get("file")) for d in
                          ([""] if os.path.isabs(n.get("file")) else mesh_dirs)
                          if os.path.isfile(os.path.join(d, n.get("file")))), None)
            if found is None:
                fail(n, f"mesh file '{n.get('file')}' not found; searched "
                        + ", ".join(f"'{d}'" for d in mesh_dirs), GymlikeFileNotFoundError)
            check_mesh_file(n.file, n.line, str(n), found)
        if not in_default:
            ref = n.get("joint")      # actuators, sensors, and a fixed tendon's <joint joint=...>
            if ref is not None and (n.tag != "joint" or _under(n, "tendon")) and ref not in joints:
                fail(n, f"joint '{ref}' is not defined")
            ref = n.get("tendon")
            if ref is not None and _under(n, "actuator") and ref not in named.get("tendon", set()):
                fail(n, f"tendon '{ref}' is not defined")
    for r in files:
        wb = r.find("worldbody")
        if wb is not None:
            _check_depth(wb.findall("body"), lambda b: b.findall("body"))
    return root


def _under(node, tag):
    p = node.parent
    while p is not None:
        if p.tag == tag:
            return True
        p = p.parent
    return False


def _mjcf_frame(n):
    numbers(n, "pos", length=True)
    _nonzero(n, "quat", numbers(n, "quat", (4,)), "quaternion")
    numbers(n, "euler")
    aa = numbers(n, "axisangle", (4,))
    _nonzero(n, "axisangle", aa and aa[:3], "rotation axis")


def _collect_includes(node, folder, out, depth):
    """Parse every <include file=...> (relative to the including file), depth first."""
    if depth > 16:
        fail(node, "includes nested deeper than 16 levels")
    for n in list(node.iter()):
        if n.tag == "include" and n.get("file"):
            p = os.path.join(folder, n.get("file"))
            if not os.path.isfile(p):
                fail(n, f"include file '{p}' not found", GymlikeFileNotFoundError)
            sub = parse(p)
            out.append(sub)
            _collect_includes(sub, os.path.dirname(p), out, depth + 1)
