"""Generate the primitive-only robot URDFs used by gymlike's tests and examples.

Writes (relative to this folder):
  arm7/arm7.urdf             fixed-base 7-DOF arm + 2-finger parallel gripper (11 links, 9 DOFs)
  quadruped/quadruped.urdf   12-DOF quadruped, trunk + 4 x (hip, thigh, shank, foot) (17 links)
  biped/biped.urdf           12-DOF biped with light, frictional ankles and four-sphere feet (13 links)

Everything here is original. Each link is described as a list of solid primitives with a total
link mass; the mass is spread over the primitives in proportion to their volume and the script
computes the link's centre of mass and full inertia tensor (parallel-axis theorem), so the
<inertial> blocks always match the collision geometry. The same primitives are used for
<collision> and <visual>.

Run:  python assets/urdf/make_robots.py
"""

from __future__ import annotations

import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PI = math.pi


# --------------------------------------------------------------------------------------------
# primitive geometry / inertia helpers
# --------------------------------------------------------------------------------------------
def rpy_matrix(rpy):
    """URDF fixed-axis roll/pitch/yaw: R = Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


# rotations that turn a URDF cylinder (axis = local z) into one along x or y
ALONG_X = (0.0, PI / 2, 0.0)
ALONG_Y = (PI / 2, 0.0, 0.0)
ALONG_Z = (0.0, 0.0, 0.0)


class Prim:
    def __init__(self, kind, dims, xyz=(0, 0, 0), rpy=(0, 0, 0)):
        self.kind = kind  # "box" (sx, sy, sz) | "cylinder" (r, length) | "sphere" (r,)
        self.dims = tuple(float(d) for d in dims)
        self.xyz = np.array(xyz, dtype=float)
        self.rpy = tuple(float(a) for a in rpy)

    def volume(self):
        if self.kind == "box":
            a, b, c = self.dims
            return a * b * c
        if self.kind == "cylinder":
            r, h = self.dims
            return PI * r * r * h
        if self.kind == "sphere":
            (r,) = self.dims
            return 4.0 / 3.0 * PI * r**3
        raise ValueError(self.kind)

    def inertia_local(self, m):
        """Inertia about the primitive's own centre, in its own axes."""
        if self.kind == "box":
            a, b, c = self.dims
            return np.diag([m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12])
        if self.kind == "cylinder":
            r, h = self.dims
            ixx = m * (3 * r * r + h * h) / 12
            return np.diag([ixx, ixx, m * r * r / 2])
        if self.kind == "sphere":
            (r,) = self.dims
            return np.eye(3) * (2.0 / 5.0 * m * r * r)
        raise ValueError(self.kind)

    def geometry_xml(self):
        if self.kind == "box":
            return '<box size="%s"/>' % " ".join(fmt(d) for d in self.dims)
        if self.kind == "cylinder":
            return '<cylinder radius="%s" length="%s"/>' % (fmt(self.dims[0]), fmt(self.dims[1]))
        return '<sphere radius="%s"/>' % fmt(self.dims[0])


def mass_properties(prims, mass):
    vols = np.array([p.volume() for p in prims])
    masses = mass * vols / vols.sum()
    com = sum(m * p.xyz for m, p in zip(masses, prims)) / mass
    inertia = np.zeros((3, 3))
    for m, p in zip(masses, prims):
        rot = rpy_matrix(p.rpy)
        d = p.xyz - com
        inertia += rot @ p.inertia_local(m) @ rot.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    inertia = 0.5 * (inertia + inertia.T)
    eig = np.linalg.eigvalsh(inertia)
    assert eig.min() > 0.0, "inertia not positive definite"
    # triangle inequality of principal moments (physically realisable body)
    assert eig[0] + eig[1] >= eig[2] * (1 - 1e-9)
    return com, inertia


def fmt(x):
    x = float(x)
    if abs(x) < 1e-12:
        return "0"
    s = "%.10g" % x
    return s


def vec(v):
    return " ".join(fmt(a) for a in v)


# --------------------------------------------------------------------------------------------
# URDF writer
# --------------------------------------------------------------------------------------------
class Robot:
    def __init__(self, name, header):
        self.name = name
        self.header = header
        self.links = []  # (name, prims, mass, material)
        self.joints = []  # dicts
        self.materials = {}

    def material(self, name, rgba):
        self.materials[name] = rgba

    def link(self, name, prims, mass, material, inertial=None):
        """inertial: (com, 3x3 inertia about it) given instead of the one the primitives have."""
        self.links.append((name, prims, mass, material, inertial))

    def joint(self, name, jtype, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=None, limit=None,
              friction=None):
        self.joints.append(dict(name=name, type=jtype, parent=parent, child=child, xyz=xyz, rpy=rpy, axis=axis,
                                limit=limit, friction=friction))

    def total_mass(self):
        return sum(link[2] for link in self.links)

    def to_xml(self):
        out = ['<?xml version="1.0"?>', "<!--"]
        out += ["  " + line for line in self.header.strip().splitlines()]
        out += ["  Generated by assets/urdf/make_robots.py; edit the script, not this file.", "-->"]
        out.append('<robot name="%s">' % self.name)
        for mname, rgba in self.materials.items():
            out.append('  <material name="%s"><color rgba="%s"/></material>' % (mname, vec(rgba)))
        out.append("")
        for name, prims, mass, material, inertial in self.links:
            com, inertia = mass_properties(prims, mass) if inertial is None else inertial
            out.append('  <link name="%s">' % name)
            for tag in ("visual", "collision"):
                for p in prims:
                    out.append("    <%s>" % tag)
                    out.append('      <origin xyz="%s" rpy="%s"/>' % (vec(p.xyz), vec(p.rpy)))
                    out.append("      <geometry>%s</geometry>" % p.geometry_xml())
                    if tag == "visual":
                        out.append('      <material name="%s"/>' % material)
                    out.append("    </%s>" % tag)
            out.append("    <inertial>")
            out.append('      <origin xyz="%s" rpy="0 0 0"/>' % vec(com))
            out.append('      <mass value="%s"/>' % fmt(mass))
            out.append(
                '      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>'
                % tuple(fmt(v) for v in (inertia[0, 0], inertia[0, 1], inertia[0, 2],
                                         inertia[1, 1], inertia[1, 2], inertia[2, 2]))
            )
            out.append("    </inertial>")
            out.append("  </link>")
            out.append("")
        for j in self.joints:
            out.append('  <joint name="%s" type="%s">' % (j["name"], j["type"]))
            out.append('    <parent link="%s"/>' % j["parent"])
            out.append('    <child link="%s"/>' % j["child"])
            out.append('    <origin xyz="%s" rpy="%s"/>' % (vec(j["xyz"]), vec(j["rpy"])))
            if j["axis"] is not None:
                out.append('    <axis xyz="%s"/>' % vec(j["axis"]))
            if j["limit"] is not None:
                lo, hi, effort, vel = j["limit"]
                out.append('    <limit lower="%s" upper="%s" effort="%s" velocity="%s"/>'
                           % (fmt(lo), fmt(hi), fmt(effort), fmt(vel)))
            if j["friction"] is not None:
                out.append('    <dynamics damping="0" friction="%s"/>' % fmt(j["friction"]))
            out.append("  </joint>")
        out.append("</robot>")
        return "\n".join(out) + "\n"

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(self.to_xml())
        print("wrote %s  (%d links, %d joints, %.3f kg)"
              % (os.path.relpath(path, HERE), len(self.links), len(self.joints), self.total_mass()))


# --------------------------------------------------------------------------------------------
# arm7: 7-DOF arm with Franka-Panda-like proportions, zero pose = arm pointing straight up
# --------------------------------------------------------------------------------------------
def make_arm7():
    header = """
arm7: fixed-base 7-DOF arm with a 2-finger parallel gripper, primitives only (written from
scratch for gymlike; proportions similar to a Franka Panda, not its geometry).
Zero pose: the whole arm points straight up (+z). Every joint frame is axis-aligned with the
base frame at q = 0. Shoulder (joint2) at z = 0.333 m, elbow (joint4) 0.316 m above it with a
0.0825 m forward offset, wrist (joint6) at z = 1.033 m, flange 0.195 m above the wrist.
Bending joints: joint2 (+y: positive tilts forward, +x), joint4 (-y: negative folds the
forearm forward), joint6 (+y). Rolling joints joint1/3/5/7 are about the local z axis.
left_finger opens along +y, right_finger along -y (0 = closed, 0.04 m = fully open).
Links: base, link1..link7, hand, left_finger, right_finger (11 bodies); 9 DOFs.
"""
    r = Robot("arm7", header)
    r.material("arm_white", (0.92, 0.92, 0.92, 1))
    r.material("arm_dark", (0.25, 0.25, 0.28, 1))
    r.material("finger_grey", (0.55, 0.55, 0.6, 1))

    r.link("base", [Prim("cylinder", (0.08, 0.14), (0, 0, 0.07)),
                    Prim("box", (0.22, 0.22, 0.02), (0, 0, 0.01))], 4.0, "arm_dark")
    r.link("link1", [Prim("cylinder", (0.06, 0.13), (0, 0, 0.075)),
                     Prim("cylinder", (0.06, 0.12), (0, 0, 0.183), ALONG_Y)], 3.0, "arm_white")
    r.link("link2", [Prim("cylinder", (0.055, 0.20), (0, 0, 0.13))], 3.0, "arm_white")
    r.link("link3", [Prim("cylinder", (0.055, 0.12), (0, 0, -0.05)),
                     Prim("cylinder", (0.055, 0.11), (0.0825, 0, 0), ALONG_Y)], 2.5, "arm_white")
    r.link("link4", [Prim("cylinder", (0.05, 0.14), (-0.0825, 0, 0.11)),
                     Prim("box", (0.0825, 0.09, 0.08), (-0.04125, 0, 0.04))], 2.5, "arm_white")
    r.link("link5", [Prim("cylinder", (0.05, 0.17), (0, 0, 0.075))], 2.0, "arm_white")
    r.link("link6", [Prim("cylinder", (0.05, 0.10), (0, 0, 0), ALONG_Y),
                     Prim("cylinder", (0.045, 0.05), (0, 0, 0.055))], 1.5, "arm_dark")
    r.link("link7", [Prim("cylinder", (0.04, 0.10), (0, 0, 0.05))], 0.6, "arm_dark")
    r.link("hand", [Prim("box", (0.06, 0.20, 0.06), (0, 0, 0.03))], 0.7, "arm_white")
    r.link("left_finger", [Prim("box", (0.02, 0.02, 0.05), (0, 0.0125, 0.025))], 0.1, "finger_grey")
    r.link("right_finger", [Prim("box", (0.02, 0.02, 0.05), (0, -0.0125, 0.025))], 0.1, "finger_grey")

    big = (87.0, 2.175)
    small = (12.0, 2.61)
    roll = 2.8973
    r.joint("joint1", "revolute", "base", "link1", (0, 0, 0.15), axis=(0, 0, 1), limit=(-roll, roll, *big))
    r.joint("joint2", "revolute", "link1", "link2", (0, 0, 0.183), axis=(0, 1, 0), limit=(-1.7628, 1.7628, *big))
    r.joint("joint3", "revolute", "link2", "link3", (0, 0, 0.316), axis=(0, 0, 1), limit=(-roll, roll, *big))
    r.joint("joint4", "revolute", "link3", "link4", (0.0825, 0, 0), axis=(0, -1, 0), limit=(-3.0718, -0.0698, *big))
    r.joint("joint5", "revolute", "link4", "link5", (-0.0825, 0, 0.20), axis=(0, 0, 1), limit=(-roll, roll, *small))
    r.joint("joint6", "revolute", "link5", "link6", (0, 0, 0.184), axis=(0, 1, 0), limit=(-0.0175, 3.7525, *small))
    r.joint("joint7", "revolute", "link6", "link7", (0, 0, 0.088), axis=(0, 0, 1), limit=(-roll, roll, *small))
    r.joint("hand_joint", "fixed", "link7", "hand", (0, 0, 0.107))
    r.joint("finger_joint1", "prismatic", "hand", "left_finger", (0, 0, 0.06), axis=(0, 1, 0),
            limit=(0.0, 0.04, 20.0, 0.2))
    r.joint("finger_joint2", "prismatic", "hand", "right_finger", (0, 0, 0.06), axis=(0, -1, 0),
            limit=(0.0, 0.04, 20.0, 0.2))
    return r


# --------------------------------------------------------------------------------------------
# quadruped: 12-DOF, A1/ANYmal-like sizes, ~14.8 kg
# --------------------------------------------------------------------------------------------
def make_quadruped():
    header = """
quadruped: 12-DOF quadruped, primitives only (written from scratch for gymlike; sizes between
a Unitree A1 and an ANYmal). Meant to be imported with a floating base.
Trunk 'base' 0.50 x 0.26 x 0.12 m. Legs LF, RF (front, x = +0.22), LH, RH (hind, x = -0.22);
L = +y side. Per leg: <leg>_HAA (axis x) -> <leg>_hip, <leg>_HFE (axis y) -> <leg>_thigh,
<leg>_KFE (axis y) -> <leg>_shank, fixed <leg>_foot_fixed -> <leg>_foot (sphere r 0.022 m).
Thigh and shank are 0.25 m (HFE-KFE, KFE-foot centre). At q = 0 the legs hang straight down
(base height 0.522 m); all knees bend backwards (KFE <= 0), e.g. the standing pose
HFE = 0.7, KFE = -1.4 gives a trunk height of 0.404 m. 17 bodies, 12 DOFs.
"""
    r = Robot("quadruped", header)
    r.material("trunk_grey", (0.3, 0.32, 0.36, 1))
    r.material("leg_orange", (0.9, 0.5, 0.12, 1))
    r.material("foot_black", (0.08, 0.08, 0.08, 1))

    r.link("base", [Prim("box", (0.50, 0.26, 0.12), (0, 0, 0))], 7.0, "trunk_grey")
    haa = (-0.8, 0.8, 40.0, 20.0)
    hfe = (-1.2, 2.8, 40.0, 20.0)
    kfe = (-2.7, 0.0, 40.0, 20.0)
    for leg, sx, sy in (("LF", 1, 1), ("RF", 1, -1), ("LH", -1, 1), ("RH", -1, -1)):
        r.link(leg + "_hip", [Prim("cylinder", (0.045, 0.09), (0, sy * 0.055, 0), ALONG_Y)], 0.6, "trunk_grey")
        r.link(leg + "_thigh", [Prim("cylinder", (0.045, 0.04), (0, 0, 0), ALONG_Y),
                                Prim("cylinder", (0.022, 0.21), (0, 0, -0.125))], 1.0, "leg_orange")
        r.link(leg + "_shank", [Prim("cylinder", (0.016, 0.22), (0, 0, -0.12))], 0.3, "leg_orange")
        r.link(leg + "_foot", [Prim("sphere", (0.022,), (0, 0, 0))], 0.05, "foot_black")
        r.joint(leg + "_HAA", "revolute", "base", leg + "_hip", (sx * 0.22, sy * 0.09, 0), axis=(1, 0, 0), limit=haa)
        r.joint(leg + "_HFE", "revolute", leg + "_hip", leg + "_thigh", (0, sy * 0.08, 0), axis=(0, 1, 0), limit=hfe)
        r.joint(leg + "_KFE", "revolute", leg + "_thigh", leg + "_shank", (0, 0, -0.25), axis=(0, 1, 0), limit=kfe)
        r.joint(leg + "_foot_fixed", "fixed", leg + "_shank", leg + "_foot", (0, 0, -0.25))
    return r


# --------------------------------------------------------------------------------------------
# biped: 12-DOF, light frictional ankles and four-sphere feet (the legged-humanoid pitfalls)
# --------------------------------------------------------------------------------------------
BIPED_STAND = {"hip_roll": 0.0, "hip_yaw": 0.0, "hip_pitch": -0.25, "knee": 0.5, "ankle_pitch": -0.25,
               "ankle_roll": 0.0}


def make_biped():
    header = """
biped: 12-DOF biped, primitives only (written from scratch for gymlike), built to carry the two
things that make legged humanoids trained on Isaac Gym hard to simulate elsewhere:
* light distal links: the ankle pitch link weighs 0.05 kg and the foot 0.34 kg with a nearly
  isotropic inertia of ~6e-4 kg m^2 (and tiny products of inertia), so explicit PD torques with
  kd = 10 at dt = 1 ms are 17x over their stable gain; the ankles carry URDF joint friction 0.1
  (PhysX's unitless coefficient), as humanoid-gym's XBot-L does;
* feet made of four 1 cm spheres (no sole box), as Unitree's G1 has.
Pelvis with torso 'pelvis' (20 kg). Legs L (+y), R (-y): <s>_hip_roll (x) -> <s>_hip_yaw (z) ->
<s>_hip_pitch (y, thigh 0.35 m) -> <s>_knee (y, shank 0.35 m; positive bends the knee forward)
-> <s>_ankle_pitch (y) -> <s>_ankle_roll (x) -> <s>_foot. Standing pose: hip_pitch -0.25,
knee 0.5, ankle_pitch -0.25 (feet flat), pelvis origin 0.784 m above the ground. 13 bodies,
12 DOFs, every velocity limit 12 rad/s. Gains it stands with (explicit PD, DOF_MODE_EFFORT):
kp 200 (hips), 350 (knees), 300 (ankles), kd 10 everywhere.
"""
    r = Robot("biped", header)
    r.material("body_grey", (0.35, 0.37, 0.42, 1))
    r.material("leg_blue", (0.2, 0.35, 0.7, 1))
    r.material("foot_black", (0.08, 0.08, 0.08, 1))
    r.link("pelvis", [Prim("box", (0.16, 0.30, 0.10), (0, 0, 0)),
                      Prim("box", (0.16, 0.28, 0.36), (0, 0, 0.23))], 20.0, "body_grey")
    foot_inertia = np.array([[6.0e-4, 2e-7, 8.9e-6], [2e-7, 6.4e-4, -1e-7], [8.9e-6, -1e-7, 5.6e-4]])
    balls = [Prim("sphere", (0.01,), (x, y, -0.05)) for x in (0.09, -0.06) for y in (0.035, -0.035)]
    for side, sy in (("L", 1), ("R", -1)):
        # (the hip's roll and yaw links sit inside the pelvis: no collision shapes, or the
        # default self-collisions would lock the hip)
        r.link(side + "_hip_roll_link", [], 0.8, "leg_blue", inertial=((0, 0, 0), np.diag([4e-4, 4e-4, 4e-4])))
        r.link(side + "_hip_yaw_link", [], 0.8, "leg_blue", inertial=((0, 0, 0), np.diag([4e-4, 4e-4, 4e-4])))
        r.link(side + "_thigh", [Prim("cylinder", (0.045, 0.25), (0, 0, -0.2))], 3.0, "leg_blue")
        r.link(side + "_shank", [Prim("cylinder", (0.035, 0.30), (0, 0, -0.175))], 2.0, "leg_blue")
        r.link(side + "_ankle_pitch_link", [], 0.05, "foot_black",
               inertial=((0, 0, 0), np.diag([1e-5, 1e-5, 1e-5])))
        r.link(side + "_foot", balls, 0.34, "foot_black", inertial=((0.01, 0, -0.03), foot_inertia))
        hip = "%s_hip_" % side
        r.joint(hip + "roll", "revolute", "pelvis", side + "_hip_roll_link", (0, sy * 0.10, -0.05), axis=(1, 0, 0),
                limit=(-0.5, 0.5, 150.0, 12.0))
        r.joint(hip + "yaw", "revolute", side + "_hip_roll_link", side + "_hip_yaw_link", (0, 0, 0), axis=(0, 0, 1),
                limit=(-0.5, 0.5, 150.0, 12.0))
        r.joint(hip + "pitch", "revolute", side + "_hip_yaw_link", side + "_thigh", (0, 0, 0), axis=(0, 1, 0),
                limit=(-1.5, 1.0, 150.0, 12.0))
        r.joint(side + "_knee", "revolute", side + "_thigh", side + "_shank", (0, 0, -0.35), axis=(0, 1, 0),
                limit=(0.0, 2.2, 250.0, 12.0))
        r.joint(side + "_ankle_pitch", "revolute", side + "_shank", side + "_ankle_pitch_link", (0, 0, -0.35),
                axis=(0, 1, 0), limit=(-0.8, 0.8, 85.0, 12.0), friction=0.1)
        r.joint(side + "_ankle_roll", "revolute", side + "_ankle_pitch_link", side + "_foot", (0, 0, 0),
                axis=(1, 0, 0), limit=(-0.44, 0.44, 85.0, 12.0), friction=0.1)
    return r


if __name__ == "__main__":
    make_arm7().write(os.path.join(HERE, "arm7", "arm7.urdf"))
    make_quadruped().write(os.path.join(HERE, "quadruped", "quadruped.urdf"))
    make_biped().write(os.path.join(HERE, "biped", "biped.urdf"))
