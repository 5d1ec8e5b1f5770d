"""Generate gymlike's USD test assets with the pxr (usd-core) API.

Writes (next to this script):
  pendulum2.usda  fixed-base 2-link pendulum: link1 (capsule, 1 kg) hinged to the world at
                  (0, 0, 2) about +y, link2 (box, 0.5 kg) hinged to the end of link1 about +y.
                  Both links start horizontal along +x. ArticulationRootAPI on the
                  /World/pendulum2 Xform, RigidBodyAPI + MassAPI on the links, CollisionAPI on
                  the Capsule / Cube geometry prims, PhysicsRevoluteJoint with axis and limits.
  box.usda        one free rigid 0.2 m cube (1 kg) at z = 1.

Units: metres, kilograms (metersPerUnit = kilogramsPerUnit = 1), Z up. Joint limits in USD
are in degrees. Everything here is written from scratch.

Run:  python assets/usd/make_usd.py
"""

from __future__ import annotations

import os

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

HERE = os.path.dirname(os.path.abspath(__file__))


def new_stage(path):
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    scene = UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    scene.CreateGravityDirectionAttr(Gf.Vec3f(0.0, 0.0, -1.0))
    scene.CreateGravityMagnitudeAttr(9.81)
    return stage


def rigid_body(stage, path, pos, mass, com, diag_inertia):
    xf = UsdGeom.Xform.Define(stage, path)
    xf.AddTranslateOp().Set(Gf.Vec3d(*pos))
    prim = xf.GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    mass_api = UsdPhysics.MassAPI.Apply(prim)
    mass_api.CreateMassAttr(mass)
    mass_api.CreateCenterOfMassAttr(Gf.Vec3f(*com))
    mass_api.CreateDiagonalInertiaAttr(Gf.Vec3f(*diag_inertia))
    mass_api.CreatePrincipalAxesAttr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    return prim


def revolute(stage, path, body0, body1, pos0, pos1, axis, lower_deg, upper_deg):
    joint = UsdPhysics.RevoluteJoint.Define(stage, path)
    if body0 is not None:
        joint.CreateBody0Rel().SetTargets([Sdf.Path(body0)])
    joint.CreateBody1Rel().SetTargets([Sdf.Path(body1)])
    joint.CreateLocalPos0Attr(Gf.Vec3f(*pos0))
    joint.CreateLocalRot0Attr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    joint.CreateLocalPos1Attr(Gf.Vec3f(*pos1))
    joint.CreateLocalRot1Attr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    joint.CreateAxisAttr(axis)
    joint.CreateLowerLimitAttr(lower_deg)
    joint.CreateUpperLimitAttr(upper_deg)
    return joint


def make_pendulum2(path):
    stage = new_stage(path)
    root = UsdGeom.Xform.Define(stage, "/World/pendulum2")
    UsdPhysics.ArticulationRootAPI.Apply(root.GetPrim())

    pivot = (0.0, 0.0, 2.0)
    # link1: capsule along x, radius 0.03, total length 0.5 (cylinder part 0.44), 1 kg.
    # Inertia of the equivalent 0.5 m solid rod/cylinder: axial m r^2 / 2, transverse m (3 r^2 + L^2) / 12.
    m1, r1, l1 = 1.0, 0.03, 0.5
    i1_ax = 0.5 * m1 * r1 * r1
    i1_tr = m1 * (3 * r1 * r1 + l1 * l1) / 12.0
    link1 = "/World/pendulum2/link1"
    rigid_body(stage, link1, (pivot[0] + 0.25, pivot[1], pivot[2]), m1, (0, 0, 0), (i1_ax, i1_tr, i1_tr))
    cap = UsdGeom.Capsule.Define(stage, link1 + "/collision")
    cap.CreateAxisAttr(UsdGeom.Tokens.x)
    cap.CreateRadiusAttr(r1)
    cap.CreateHeightAttr(l1 - 2 * r1)
    cap.CreateDisplayColorAttr([Gf.Vec3f(0.9, 0.5, 0.1)])
    UsdPhysics.CollisionAPI.Apply(cap.GetPrim())

    # link2: box 0.5 x 0.06 x 0.06, 0.5 kg (unit Cube scaled).
    m2, a, b = 0.5, 0.5, 0.06
    link2 = "/World/pendulum2/link2"
    rigid_body(stage, link2, (pivot[0] + 0.75, pivot[1], pivot[2]), m2, (0, 0, 0),
               (m2 * (b * b + b * b) / 12.0, m2 * (a * a + b * b) / 12.0, m2 * (a * a + b * b) / 12.0))
    cube = UsdGeom.Cube.Define(stage, link2 + "/collision")
    cube.CreateSizeAttr(1.0)
    cube.AddScaleOp().Set(Gf.Vec3f(a, b, b))
    cube.CreateDisplayColorAttr([Gf.Vec3f(0.2, 0.4, 0.85)])
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())

    revolute(stage, "/World/pendulum2/joint1", None, link1, pivot, (-0.25, 0, 0), UsdPhysics.Tokens.y, -120.0, 120.0)
    revolute(stage, "/World/pendulum2/joint2", link1, link2, (0.25, 0, 0), (-0.25, 0, 0), UsdPhysics.Tokens.y,
             -150.0, 150.0)
    stage.GetRootLayer().Save()


def make_box(path):
    stage = new_stage(path)
    s, m = 0.2, 1.0
    i = m * (s * s + s * s) / 12.0
    body = rigid_body(stage, "/World/box", (0.0, 0.0, 1.0), m, (0, 0, 0), (i, i, i))
    del body
    cube = UsdGeom.Cube.Define(stage, "/World/box/collision")
    cube.CreateSizeAttr(s)
    cube.CreateDisplayColorAttr([Gf.Vec3f(0.2, 0.7, 0.3)])
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    stage.GetRootLayer().Save()


if __name__ == "__main__":
    for name, fn in (("pendulum2.usda", make_pendulum2), ("box.usda", make_box)):
        p = os.path.join(HERE, name)
        if os.path.exists(p):
            os.remove(p)
        fn(p)
        print("wrote", os.path.relpath(p, HERE))
