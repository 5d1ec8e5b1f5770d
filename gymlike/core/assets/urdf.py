"""URDF import: the file's mesh references resolved as Isaac Gym's importer searches them, then
Newton's URDF importer; `spherical` joints (which Newton does not take) become three hinges."""

from __future__ import annotations

import functools
import os
import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..errors import GymlikeFileNotFoundError, warn
from ..runtime import newton as _newton
from .check import check_mesh_file, check_urdf
from .fixes import collapse
from .importer import BALL_AXES, guarded, new_builder, short_name
from .record import FileInfo

if TYPE_CHECKING:
    from collections.abc import Callable

    import newton

    from ..types import AssetOptions


def importer(path: str, root: str, options: AssetOptions, up: newton.Axis,
             floating: bool | None) -> tuple[Callable[[float, bool], newton.ModelBuilder], FileInfo]:
    """(make(scale, self_collisions) -> sub-builder, FileInfo: the ball joints' DOF names) for a
    URDF file: the text is prepared once, each scale variant imports it."""
    xml_text = _as_isaac_gym_reads(prepare_urdf(path, root))
    keep = _urdf_dont_collapse(xml_text)
    xml_text, balls = _urdf_spherical(xml_text)
    cls = _ball_joint_builder(tuple(sorted(balls))) if balls else None

    texts = {True: xml_text}

    def make(scale, self_collisions, visuals=True):
        if visuals not in texts:
            texts[visuals] = _without_visuals(xml_text)
        b = new_builder(options, up, cls=cls)
        guarded(path, lambda: b.add_urdf(
            texts[visuals], floating=floating, scale=scale, enable_self_collisions=self_collisions,
            up_axis=up, collapse_fixed_joints=False,
            ignore_inertial_definitions=bool(options.override_inertia or options.override_com),
            joint_ordering="dfs", bodies_follow_joint_ordering=True))
        return collapse(b, options, keep)
    make.visuals = True       # (the record may ask for a variant without visuals: Sim.wants_visuals)
    from .soft import urdf_soft_bodies      # links with a <fem> element (FleX soft bodies)
    return make, FileInfo(body_joints={child: [(f"{j}{sfx}", "ball") for sfx in BALL_AXES]
                                       for j, child in balls.items()}, soft=urdf_soft_bodies(xml_text, path))


def _as_isaac_gym_reads(xml_text):
    """The text as Isaac Gym's URDF importer reads it, for Newton's importer:

    * `<joint>` elements sorted by name. Isaac Gym orders bodies and DOFs depth-first, visiting a
      link's children in the order of their joints' names, not in file order: a Unitree A1 / Go1
      URDF lists its legs FR, FL, RR, RL and Isaac Gym's DOFs are FL, FR, RL, RR (walk-these-ways
      maps its policy's actions to the robot's order so); an Allegro hand listing index, middle,
      ring, thumb (joint_0.0 .. joint_15.0) has the DOFs index, thumb, middle, ring (hora's
      canonical grasp pose and fingertip bodies 4, 8, 12, 16). Newton's depth-first order visits
      children in file order, so the joints go in name order first (byte order, as a std::map of
      names keeps them).
    * `<mimic>` elements dropped: Isaac Gym ignores them (each such joint is a DOF of its own);
      Newton would couple the joints, and refuses a mimic on a fixed joint (unitree's H1-2).

    (Scene files, prepare_urdf's other user (scene/authored.py), keep Newton's reading.)"""
    robot = ET.fromstring(xml_text)
    joints = [j for j in robot if j.tag == "joint"]
    names = [j.get("name", "") for j in joints]
    mimics = [(j, m) for j in joints for m in j.findall("mimic")]
    if names == sorted(names) and not mimics:
        return xml_text
    for j, m in mimics:
        j.remove(m)
    for j in joints:
        robot.remove(j)
    robot.extend(sorted(joints, key=lambda j: j.get("name", "")))
    return ET.tostring(robot, encoding="unicode")


def _without_visuals(xml_text):
    """The text without its links' `<visual>` elements (their meshes are then never loaded;
    Newton's importer shows the collision shapes of a file without visuals)."""
    robot = ET.fromstring(xml_text)
    for link in robot.iter("link"):
        for v in link.findall("visual"):
            link.remove(v)
    return ET.tostring(robot, encoding="unicode")


def _urdf_dont_collapse(xml_text):
    """Names of URDF joints with dont_collapse="true"."""
    root = ET.fromstring(xml_text)
    return {j.get("name") for j in root.iter("joint")
            if j.get("dont_collapse", "false").strip().lower() in ("true", "1")}


def _urdf_spherical(xml_text):
    """URDF spherical joints, which Newton's URDF importer does not take: the text with them
    marked as planar (which it takes) and {joint name: child link} for _ball_joint_builder."""
    root = ET.fromstring(xml_text)
    balls = {j.get("name"): j.find("child").get("link") for j in root.iter("joint")
             if j.get("type") == "spherical" and j.find("child") is not None}
    if not balls:
        return xml_text, {}
    for j in root.iter("joint"):
        if j.get("name") in balls:
            j.set("type", "planar")
    return ET.tostring(root, encoding="unicode"), balls


@functools.lru_cache(maxsize=None)
def _ball_joint_builder(balls):
    """A ModelBuilder that builds the joints named in `balls` (imported as planar, which Newton's
    URDF importer adds with add_joint_d6) as three hinges about the joint frame's x, y, z, as
    gymlike's MJCF ball joints are (one Isaac Gym JOINT_BALL, 3 DOFs). A subclass, so that no
    Newton object has a method replaced; used only for files with spherical joints."""
    newton = _newton()
    cfg = newton.ModelBuilder.JointDofConfig

    class BallJointBuilder(newton.ModelBuilder):
        def add_joint_d6(self, parent, child, *, linear_axes=None, angular_axes=None, label=None, **kw):
            if label is not None and short_name(label) in balls:
                linear_axes, angular_axes = [], [cfg(axis=a) for a in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
            return super().add_joint_d6(parent, child, linear_axes=linear_axes, angular_axes=angular_axes,
                                        label=label, **kw)
    return BallJointBuilder


# A URDF tag, comment or CDATA block; meshes are only `<mesh>` tags inside <visual>/<collision>.
_TAG_RE = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<(/?)([A-Za-z_][\w:.-]*)([^>]*?)(/?)>", re.S)
_FILENAME_RE = re.compile(r"""(filename\s*=\s*)(["'])(.*?)\2""")


def prepare_urdf(path: str, root: str) -> str:
    """Check the URDF parses and resolve every `<mesh filename=...>` of a <visual> or
    <collision> geometry (relative paths, package:// and file:// URIs) to an absolute path, as
    Isaac Gym's importer searches: the URDF's folder, each folder above it, the asset root.
    A missing collision mesh is an error naming file, line and the folders searched; a missing
    visual mesh is a warning and that <visual> is dropped; an <sdf> collision (PhysX's SDF mesh
    collision) is a warning (the mesh collides as its convex hull). Comments, plugins and other
    `filename=` attributes are left alone. Returns the URDF text to import (the file has passed
    check.check_urdf)."""
    check_urdf(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    urdf_dir = os.path.dirname(path)
    edits = []          # (start, end, replacement) in text order
    sdf_lines = []      # lines of <sdf> tags in <collision> elements
    stack = []          # [tag, start offset, missing-visual flag]
    for m in _TAG_RE.finditer(text):
        closing, tag, attrs, selfclose = m.group(1), m.group(2), m.group(3), m.group(4)
        if tag is None:
            continue                                    # comment, CDATA, processing instruction
        if closing:
            while stack:
                open_tag, start, missing = stack.pop()
                if open_tag == tag:
                    break
            if tag == "visual" and missing:
                edits = [e for e in edits if e[0] < start]  # drop edits inside the removed element
                edits.append((start, m.end(), ""))
            continue
        if tag == "sdf" and any(t == "collision" for t, _, _ in stack):
            sdf_lines.append(text.count("\n", 0, m.start()) + 1)
        if tag == "mesh" and any(t in ("visual", "collision") for t, _, _ in stack):
            fm = _FILENAME_RE.search(attrs)
            if fm is not None:
                ref = fm.group(3)
                resolved, searched = _resolve_mesh(ref, urdf_dir, root)
                line = text.count("\n", 0, m.start()) + 1
                in_visual = next(t for t, _, _ in reversed(stack) if t in ("visual", "collision")) == "visual"
                if resolved is None and not in_visual:
                    raise GymlikeFileNotFoundError(
                        f"asset '{path}', line {line}: collision mesh '{ref}' not found; searched "
                        + ", ".join(f"'{d}'" for d in searched))
                if resolved is None:
                    warn(f"asset '{path}', line {line}: visual mesh '{ref}' not found "
                         "(the link loads without this visual)")
                    for item in reversed(stack):
                        if item[0] == "visual":
                            item[2] = True
                            break
                else:
                    check_mesh_file(path, line, "<mesh>", resolved)
                    a0 = m.start(3) + fm.start(3)
                    edits.append((a0, a0 + len(ref), resolved))
        if not selfclose:
            stack.append([tag, m.start(), False])
    if sdf_lines:
        # (PhysX collides such meshes through a signed distance field: non-convex contact, as
        # Factory's nuts and bolts and IndustReal's pegs and holes need; MuJoCo C has no mesh SDF)
        warn(f"asset '{path}', line{'s' if len(sdf_lines) > 1 else ''} {', '.join(map(str, sdf_lines))}: "
             "<sdf> collision (PhysX's signed-distance-field mesh collision) is not available; "
             "the mesh collides as its convex hull (V-HACD's convex parts with AssetOptions.vhacd_enabled), "
             "so its holes, slots and threads are closed (python_bindings_docs/differences.md)")
    out, pos = [], 0
    for a, b_, rep in edits:
        out.append(text[pos:a])
        out.append(rep)
        pos = b_
    out.append(text[pos:])
    return "".join(out)


def _resolve_mesh(ref, urdf_dir, root):
    """(absolute path or None, folders searched) for a URDF mesh reference."""
    bases = []
    for d in _ancestors(urdf_dir) + _ancestors(os.path.abspath(root)):
        if d not in bases:
            bases.append(d)
    if ref.startswith("file://"):
        cand, searched = [ref[len("file://"):]], []
    elif ref.startswith("package://"):
        pkg, _, sub = ref[len("package://"):].partition("/")
        cand, searched = [], bases
        # a package is a folder named `pkg` at or above the URDF or the asset root, or inside
        # one of those; paths relative to those folders are accepted too
        for base in bases:
            if os.path.basename(base) == pkg:
                cand.append(os.path.join(base, sub))
            cand.append(os.path.join(base, pkg, sub))
            cand.append(os.path.join(base, sub))
    elif os.path.isabs(ref):
        cand, searched = [ref], []
    else:
        cand, searched = [os.path.join(base, ref) for base in bases], bases
    for c in cand:
        if os.path.isfile(c):
            return os.path.abspath(c), searched
    return None, searched


def _ancestors(d, depth=8):
    out = []
    d = os.path.abspath(d)
    for _ in range(depth):
        out.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return out
