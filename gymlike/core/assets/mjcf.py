"""MJCF import: the file is read once (includes expanded, default classes resolved) for what
gymlike needs beyond Newton's import (the `<joint>`s of each body, actuators, tendons), and, when
Isaac Gym reads the file differently from MuJoCo (ball joints, locked root joints, unbalanced
inertias), for the text Newton's MJCF importer gets instead of the file."""

from __future__ import annotations

import copy
import os
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..errors import AssetParseError, GymlikeFileNotFoundError, warn
from ..runtime import newton as _newton
from .check import check_mjcf
from .fixes import drop_root_position
from .importer import BALL_AXES, guarded, new_builder

if TYPE_CHECKING:
    from collections.abc import Callable

    import newton

    from ..types import AssetOptions


def importer(path: str, options: AssetOptions, up: newton.Axis,
             floating: bool | None) -> tuple[Callable[[float, bool], newton.ModelBuilder], Mjcf]:
    """(make(scale, self_collisions) -> sub-builder, the file's Mjcf) for an MJCF file."""
    check_mjcf(path)
    mjcf = Mjcf(path)
    warned = []

    def make(scale, self_collisions, visuals=True):
        def load(source, **kw):
            b = new_builder(options, up, tendons=mjcf.has_tendons)
            # (without visuals Newton still counts their mass where the body takes it from geoms)
            guarded(path, lambda: b.add_mjcf(
                source, floating=floating, scale=scale, enable_self_collisions=self_collisions,
                up_axis=up, collapse_fixed_joints=False,
                ignore_inertial_definitions=bool(options.override_inertia or options.override_com),
                parse_mujoco_options=False, parse_visuals=visuals, **kw))
            if not visuals:     # what renders without visuals (Newton hides colliders of MJCF)
                show = int(_newton().ShapeFlags.VISIBLE)
                collide = int(_newton().ShapeFlags.COLLIDE_SHAPES)
                b.shape_flags = [f | show if f & collide else f for f in b.shape_flags]
            return b
        folder = os.path.dirname(path)
        resolver = lambda base, f: (   # noqa: E731  (the text's relative files: the file's folder)
            f if os.path.isabs(f) else os.path.abspath(os.path.join(base or folder, f)))
        try:
            b = (load(mjcf.source(False, options.fix_base_link), path_resolver=resolver)
                 if mjcf.has_ball or mjcf.root_joints else load(path))
        except AssetParseError as e:
            if "balanceinertia" not in str(e):
                raise
            # PhysX takes inertias that break A + B >= C; balance them as MuJoCo's
            # balanceinertia does (principal moments -> their mean) and say which bodies
            b = load(mjcf.source(True, options.fix_base_link), path_resolver=resolver)
            if not warned:
                warned.append(True)
                names = mjcf.unbalanced or ["some bodies"]
                warn(f"asset '{path}': inertia of {', '.join(names)} breaks the triangle "
                     "inequality (A + B >= C); balanced as MuJoCo's balanceinertia does "
                     "(principal moments set to their mean)")
        drop_root_position(b)
        # collapse_fixed_joints is not applied: Isaac Gym merges URDF links joined by fixed
        # joints, but keeps every MJCF <body>, jointless ones included (its Shadow Hand MJCF,
        # loaded with the option on, has 26 bodies, the jointless forearm at 1 and the palm at
        # 3, indices that IsaacGymEnvs and DexterousHands tasks hard-code)
        return b
    make.visuals = True       # (the record may ask for a variant without visuals: Sim.wants_visuals)
    return make, mjcf


def _locked(joint):
    """An MJCF hinge/slide written with range="0 0" (a DOF that cannot move)."""
    r = (joint.get("range") or "").split()
    try:
        return joint.tag == "joint" and joint.get("type", "hinge") in ("hinge", "slide") and len(r) == 2 \
            and float(r[0]) == float(r[1])
    except ValueError:
        return False


class Mjcf:
    """An MJCF file read once, includes expanded and default classes resolved: the `<joint>`s of
    every body (name, type) in file order, the actuators, and the text to import (source)."""

    def __init__(self, path):
        self.body_joints, self.actuators, self.has_tendons = {}, [], False
        self.unbalanced = []     # bodies whose authored inertia breaks A + B >= C
        self.has_ball = False
        self.root_joints = False
        self.defaults = {}
        self._root = None
        self._sources = {}
        try:
            root = self._root = _expand_includes(ET.parse(path).getroot(), os.path.dirname(path))
        except (ET.ParseError, OSError):
            return
        self.has_tendons = root.find("tendon") is not None
        for top in root.findall("default"):
            self._read_defaults(top, "main", {})
        wb = root.find("worldbody")
        if wb is not None:
            self._walk(wb, "main")
            # root bodies with locked joints (dropped on import, see source)
            self.root_joints = any(_locked(j) for top in wb.findall("body") for j in top.findall("joint"))
        act = root.find("actuator")
        for el in (act if act is not None else []):
            a = self._attrs(el, el.get("class", "main"))
            kind = el.tag
            gear = float(a.get("gear", "1").split()[0])
            ctrl = [float(v) for v in a.get("ctrlrange", "0 0").split()]
            force = [float(v) for v in a.get("forcerange", "0 0").split()]
            self.actuators.append(dict(
                name=el.get("name", f"actuator{len(self.actuators)}"), joint=el.get("joint"), type=kind,
                gear=gear, ctrl=ctrl, force=force,
                ctrl_limited=a.get("ctrllimited", "auto") in ("true", "auto") and ctrl[0] < ctrl[1],
                force_limited=a.get("forcelimited", "auto") in ("true", "auto") and force[0] < force[1],
                kp=float(a.get("kp", "0")), kv=float(a.get("kv", "0"))))

    def source(self, balance_inertia: bool, fix_base: bool = False) -> str:
        """The MJCF text gymlike imports instead of the file (includes expanded; relative files
        are resolved by the caller): ball joints become three hinges about the joint frame's x,
        y, z (named <joint>_x/_y/_z, one Isaac Gym JOINT_BALL with three rotation DOFs; the cone
        limit `range="0 r"` becomes +-r on each axis); a locked joint (range="0 0") on a root
        body is not a DOF in Isaac Gym and, when it was the root's only joint, the root floats
        (IsaacGymEnvs' ingenuity locks its chassis with one and sets fix_base_link=False); and
        with balance_inertia, <compiler balanceinertia="true">. Made from a copy of the tree
        read at load, once per set of arguments."""
        key = (bool(balance_inertia), bool(fix_base))
        if key not in self._sources:
            self._sources[key] = self._rewrite(copy.deepcopy(self._root), *key)
        return self._sources[key]

    def _rewrite(self, root, balance_inertia, fix_base):
        for top in (root.find("worldbody") if root.find("worldbody") is not None else []):
            if top.tag != "body":
                continue
            joints = [j for j in top if j.tag in ("joint", "freejoint")]
            locked = [j for j in joints if _locked(j)]
            for j in locked:
                top.remove(j)
            if locked and len(locked) == len(joints) and not fix_base:
                top.insert(0, ET.Element("freejoint", {"name": locked[0].get("name", "root")}))

        def walk(node, childclass):
            for body in node.findall("body"):
                cc = body.get("childclass", childclass)
                for k, j in reversed(list(enumerate(list(body)))):
                    if j.tag != "joint":
                        continue
                    a = self._attrs(j, j.get("class", cc))
                    if a.get("type", "hinge") != "ball":
                        continue
                    body.remove(j)
                    rng = a.get("range")
                    for n, (sfx, axis) in enumerate(zip(BALL_AXES, ("1 0 0", "0 1 0", "0 0 1"))):
                        h = ET.Element("joint", {kk: v for kk, v in j.attrib.items() if kk not in ("type", "range")})
                        h.set("type", "hinge")
                        h.set("axis", axis)
                        h.set("name", j.get("name", "ball") + sfx)
                        if rng is not None and len(rng.split()) == 2:
                            r = max(abs(float(v)) for v in rng.split())
                            h.set("range", f"{-r} {r}")
                        body.insert(k + n, h)
                walk(body, cc)
        wb = root.find("worldbody")
        if wb is not None:
            walk(wb, "main")
        if balance_inertia:
            comp = root.find("compiler")
            if comp is None:
                comp = ET.Element("compiler")
                root.insert(0, comp)
            comp.set("balanceinertia", "true")
        return ET.tostring(root, encoding="unicode")

    def _read_defaults(self, node, cls, inherited):
        own = {tag: dict(v) for tag, v in inherited.items()}
        for child in node:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrib)
        self.defaults[cls] = own
        for d in node.findall("default"):
            self._read_defaults(d, d.get("class", cls), own)

    def _attrs(self, el, cls):
        a = dict(self.defaults.get(cls, self.defaults.get("main", {})).get(el.tag, {}))
        a.update(el.attrib)
        return a

    def _walk(self, body, childclass):
        for child in body.findall("body"):
            cc = child.get("childclass", childclass)
            joints = []
            for j in child.findall("joint"):
                t = self._attrs(j, j.get("class", cc)).get("type", "hinge")
                if t == "ball":      # simulated as three hinges (see source)
                    self.has_ball = True
                    joints += [(f"{j.get('name', '')}{sfx}", "ball") for sfx in BALL_AXES]
                elif t != "free":
                    joints.append((j.get("name", ""), t))
            if child.get("name"):
                self.body_joints[child.get("name")] = joints
            inertial = child.find("inertial")
            if inertial is not None and inertial.get("diaginertia"):
                try:
                    e = sorted(float(v) for v in inertial.get("diaginertia").split())
                    if len(e) == 3 and e[0] + e[1] < e[2]:
                        self.unbalanced.append(child.get("name", "<unnamed body>"))
                except ValueError:
                    pass
            self._walk(child, cc)


def _expand_includes(root, folder, depth=0):
    """Replace every MJCF <include file=...> by the children of the included file's root, as
    MuJoCo's compiler does (paths relative to the including file's folder)."""
    if depth > 16:
        raise AssetParseError(f"MJCF includes nested deeper than 16 levels under '{folder}'")
    for parent in list(root.iter()):
        for i, child in reversed(list(enumerate(list(parent)))):
            if child.tag != "include" or not child.get("file"):
                continue
            path = os.path.join(folder, child.get("file"))
            if not os.path.isfile(path):
                raise GymlikeFileNotFoundError(f"MJCF include file not found: '{path}'")
            sub = _expand_includes(ET.parse(path).getroot(), os.path.dirname(path), depth + 1)
            parent.remove(child)
            for k, el in enumerate(list(sub)):
                parent.insert(i + k, el)
    return root
