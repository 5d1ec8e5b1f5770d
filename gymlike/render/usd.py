"""USD export (Isaac Gym's `create_usd_exporter` / `export_usd_sim` / `export_usd_asset`) with usd-core.

What a stage holds (python_bindings_docs/usd_export.md has the full description):

* Z-up (Y-up for UP_AXIS_Y sims), metersPerUnit 1; `UsdExportOptions.scale` scales the root prim.
* A sim: `/World/envs/env_<i>` (translated to the env origin) > `<actor name>` > `<body name>`
  Xforms at the bodies' current env-frame poses, each holding its shapes as USD gprims
  (Cube, Sphere, Capsule, Cylinder, Cone, Mesh); ground, triangle meshes and heightfields
  under `/World/static`. An asset: `/<asset name>` > `<body name>` at the asset's default pose.
* Looks: `displayColor` per shape; USD_MATERIAL_PREVIEW_SURFACE also binds a UsdPreviewSurface
  material per color. Shapes that only collide are `purpose = guide` (hidden in renders) unless
  `use_physics_visuals` is set, which renders collision shapes and drops visual-only ones.
* `export_physics`: UsdPhysics rigid bodies (mass, center of mass, principal inertia), collision
  shapes, and revolute / prismatic / fixed / spherical joints with their limits; a fixed-base
  actor is fixed to the world. Newton's USD importer reads it back (tests/render/test_usd_export.py).
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..core import math3d
from ..core.enums import UpAxis, UsdMaterialMode
from ..core.errors import (GymlikeNotImplementedError, GymlikeRuntimeError, GymlikeTypeError,
                           GymlikeValueError)
from ..core.types import Quat, Transform, UsdExportOptions, Vec3
from ..core.errors import warn
from ..core.runtime import newton as _newton, call_name

_PLANE_SIZE = 200.0          # an infinite ground plane is written as a square this wide [m]


class UsdExporter:
    """Handle returned by `create_usd_exporter`: options plus the export root directory."""

    def __init__(self, options):
        self.options = options
        self.root = "."
        self.destroyed = False

    def check(self, what):
        if self.destroyed:
            raise GymlikeRuntimeError(f"{what}: this USD exporter was destroyed")
        return self


def create(options=None):
    what = "create_usd_exporter"
    if options is None:
        options = UsdExportOptions()
    if not isinstance(options, UsdExportOptions):
        raise GymlikeTypeError(f"{what}: expected gymapi.UsdExportOptions, got {type(options).__name__}")
    o = dict(export_physics=bool(options.export_physics), single_file=bool(options.single_file),
             use_physics_visuals=bool(options.use_physics_visuals), use_geom_subsets=bool(options.use_geom_subsets))
    try:
        o["material_mode"] = UsdMaterialMode(int(options.material_mode))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"{what}: material_mode must be a gymapi.UsdMaterialMode, "
                                f"got {options.material_mode!r}") from None
    if o["material_mode"] == UsdMaterialMode.USD_MATERIAL_MDL:
        raise GymlikeNotImplementedError(f"{what}: USD_MATERIAL_MDL needs Omniverse's MDL library; gymlike "
                                         "writes USD_MATERIAL_DISPLAY_COLOR or USD_MATERIAL_PREVIEW_SURFACE")
    if not o["single_file"]:
        raise GymlikeNotImplementedError(f"{what}: single_file=False (one USD file per asset, referenced) is "
                                         "not implemented in gymlike; every export is one self-contained file")
    scale = options.scale
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.number)) or not (
            math.isfinite(scale) and scale > 0):
        raise GymlikeValueError(f"{what}: scale must be a finite number > 0, got {scale!r}")
    o["scale"] = float(scale)
    _pxr(what)
    return UsdExporter(o)


def exporter_of(exporter, what=None):
    what = what or call_name()
    if not isinstance(exporter, UsdExporter):
        raise GymlikeTypeError(f"{what}: expected a UsdExporter from create_usd_exporter, "
                               f"got {type(exporter).__name__}")
    return exporter.check(what)


def set_root(exporter, path, what="set_usd_export_root"):
    exporter = exporter_of(exporter, what)
    if not isinstance(path, (str, os.PathLike)):
        raise GymlikeTypeError(f"{what}: expected a directory path, got {type(path).__name__}")
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        return False           # Isaac Gym reports failure through the return value
    exporter.root = path
    return True


def _pxr(what):
    """Fail at create_usd_exporter, not halfway through an export, when usd-core is missing."""
    try:
        import pxr.UsdGeom
        import pxr.UsdPhysics
        import pxr.UsdShade
    except ImportError as e:
        raise GymlikeRuntimeError(f"{what}: USD export needs usd-core (pip install 'usd-core>=25.5,<26.9'): "
                                  f"{e}") from None
    return pxr


def _out_path(exporter, name, dir_name, what):
    if not isinstance(name, (str, os.PathLike)) or not os.fspath(name):
        raise GymlikeValueError(f"{what}: expected a non-empty file name, got {name!r}")
    name = os.fspath(name)
    if not name.lower().endswith((".usd", ".usda", ".usdc")):
        name += ".usda"
    folder = exporter.root if dir_name is None else os.path.join(exporter.root, os.fspath(dir_name))
    return os.path.join(folder, name)


# ============================================================================ scene tables
class _Table:
    """Numpy copies of the builder / model fields an export reads (the same names in both)."""

    SHAPE = ("shape_type", "shape_scale", "shape_transform", "shape_body", "shape_flags", "shape_color")
    BODY = ("body_mass", "body_com", "body_inertia")
    JOINT = ("joint_type", "joint_parent", "joint_child", "joint_X_p", "joint_X_c", "joint_axis",
             "joint_qd_start", "joint_limit_lower", "joint_limit_upper")

    def __init__(self, src):
        for name in self.SHAPE + self.BODY + self.JOINT:
            v = getattr(src, name)
            v = v.numpy() if hasattr(v, "numpy") else np.asarray([tuple(x) if hasattr(x, "__len__") else x
                                                                  for x in v] if len(v) else [])
            setattr(self, name, np.asarray(v))
        self.shape_source = list(src.shape_source)
        self.joint_label = list(src.joint_label)
        self.joint_dof_dim = np.asarray(src.joint_dof_dim.numpy() if hasattr(src.joint_dof_dim, "numpy")
                                        else src.joint_dof_dim).reshape(-1, 2)


def _names(raw):
    """Valid, unique USD prim names."""
    from pxr import Tf
    out, seen = [], set()
    for r in raw:
        base = Tf.MakeValidIdentifier(str(r).split("/")[-1] or "prim")
        n, k = base, 1
        while n in seen:
            n, k = f"{base}_{k}", k + 1
        seen.add(n)
        out.append(n)
    return out


class _Writer:
    def __init__(self, path, options, y_up, what):
        from pxr import Usd, UsdGeom
        self.what, self.o = what, options
        self.stage = Usd.Stage.CreateInMemory()      # written in one go by save(): no half files
        self.path = path
        UsdGeom.SetStageUpAxis(self.stage, UsdGeom.Tokens.y if y_up else UsdGeom.Tokens.z)
        UsdGeom.SetStageMetersPerUnit(self.stage, 1.0)
        self.materials = {}

    def root(self, path):
        from pxr import Gf, UsdGeom
        x = UsdGeom.Xform.Define(self.stage, path)
        if self.o["scale"] != 1.0:
            x.AddScaleOp().Set(Gf.Vec3f(self.o["scale"]))
        self.stage.SetDefaultPrim(x.GetPrim())
        return x

    def xform(self, path, p=None, q=None):
        from pxr import Gf, UsdGeom
        x = UsdGeom.Xform.Define(self.stage, path)
        if p is not None:
            x.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*map(float, p)))
        if q is not None:
            x.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(
                Gf.Quatd(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
        return x

    # ---- shapes
    def shapes(self, t, parent, shape_ids, physics):
        """Write shapes `shape_ids` of table `t` under prim `parent` (their frame)."""
        newton = _newton()
        vis, col = int(newton.ShapeFlags.VISIBLE), int(newton.ShapeFlags.COLLIDE_SHAPES)
        for s in shape_ids:
            flags = int(t.shape_flags[s])
            visible, colliding = bool(flags & vis), bool(flags & col)
            if not (visible or colliding):
                continue
            if self.o["use_physics_visuals"] and not colliding:
                continue
            X = t.shape_transform[s]
            prim = self._gprim(f"{parent}/shape_{s}", int(t.shape_type[s]), t.shape_scale[s], t.shape_source[s],
                               X[:3], X[3:])
            if prim is None:
                continue
            self._look(prim, t.shape_color[s])
            if colliding and not visible and not self.o["use_physics_visuals"]:
                from pxr import UsdGeom
                UsdGeom.Imageable(prim).CreatePurposeAttr(UsdGeom.Tokens.guide)
            if physics and colliding:
                from pxr import UsdPhysics
                UsdPhysics.CollisionAPI.Apply(prim.GetPrim())
                geo = int(t.shape_type[s])
                if geo in (int(newton.GeoType.MESH), int(newton.GeoType.CONVEX_MESH)):
                    # Newton collides MESH as triangles and CONVEX_MESH as its hull
                    UsdPhysics.MeshCollisionAPI.Apply(prim.GetPrim()).CreateApproximationAttr(
                        UsdPhysics.Tokens.convexHull if geo == int(newton.GeoType.CONVEX_MESH)
                        else UsdPhysics.Tokens.none)

    def _gprim(self, path, geo, scale, source, p, q):
        newton = _newton()
        from pxr import Gf, UsdGeom
        G = newton.GeoType
        sx, sy, sz = (float(v) for v in scale)
        if geo == G.BOX:
            g = UsdGeom.Cube.Define(self.stage, path)
            g.CreateSizeAttr(2.0)
            extra_scale = (sx, sy, sz)
        elif geo in (G.SPHERE, G.ELLIPSOID):
            g = UsdGeom.Sphere.Define(self.stage, path)
            g.CreateRadiusAttr(1.0 if geo == G.ELLIPSOID else sx)
            extra_scale = (sx, sy, sz) if geo == G.ELLIPSOID else None
        elif geo in (G.CAPSULE, G.CYLINDER, G.CONE):
            schema = {G.CAPSULE: UsdGeom.Capsule, G.CYLINDER: UsdGeom.Cylinder, G.CONE: UsdGeom.Cone}[geo]
            g = schema.Define(self.stage, path)
            g.CreateRadiusAttr(sx)
            g.CreateHeightAttr(2.0 * sy)
            g.CreateAxisAttr(UsdGeom.Tokens.z)         # Newton's shape axis
            extra_scale = None
        elif geo == G.PLANE:
            g = UsdGeom.Plane.Define(self.stage, path)
            g.CreateWidthAttr(sx or _PLANE_SIZE)
            g.CreateLengthAttr(sy or _PLANE_SIZE)
            g.CreateAxisAttr(UsdGeom.Tokens.z)         # the plane's normal is its local +Z
            extra_scale = None
        elif geo in (G.MESH, G.CONVEX_MESH, G.HFIELD):
            points, counts, indices = _mesh_arrays(geo, scale, source)
            if points is None:
                return None
            g = UsdGeom.Mesh.Define(self.stage, path)
            g.CreatePointsAttr([Gf.Vec3f(*map(float, v)) for v in points])
            g.CreateFaceVertexCountsAttr(counts)
            g.CreateFaceVertexIndicesAttr(indices)
            g.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            g.CreateExtentAttr([Gf.Vec3f(*map(float, points.min(0))), Gf.Vec3f(*map(float, points.max(0)))])
            extra_scale = None
        else:
            return None
        g.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*map(float, p)))
        g.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(float(q[3]), float(q[0]), float(q[1]),
                                                                    float(q[2])))
        if extra_scale is not None:
            g.AddScaleOp().Set(Gf.Vec3f(*extra_scale))
        return g

    def _look(self, g, rgb):
        from pxr import Gf, Sdf, UsdShade
        rgb = tuple(float(c) for c in np.asarray(rgb, np.float64).reshape(-1)[:3])
        g.CreateDisplayColorAttr([Gf.Vec3f(*rgb)])
        if self.o["material_mode"] != UsdMaterialMode.USD_MATERIAL_PREVIEW_SURFACE:
            return
        key = tuple(round(c, 4) for c in rgb)
        mat = self.materials.get(key)
        if mat is None:
            root = self.stage.GetDefaultPrim().GetPath()
            mat = UsdShade.Material.Define(self.stage, root.AppendPath(f"Looks/color_{len(self.materials)}"))
            shader = UsdShade.Shader.Define(self.stage, mat.GetPath().AppendChild("PreviewSurface"))
            shader.CreateIdAttr("UsdPreviewSurface")
            shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*rgb))
            shader.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(0.6)
            mat.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
            self.materials[key] = mat
        UsdShade.MaterialBindingAPI.Apply(g.GetPrim()).Bind(mat)

    # ---- physics
    def rigid_body(self, prim, t, b, mass=None, com=None, inertia=None):
        from pxr import Gf, UsdPhysics
        UsdPhysics.RigidBodyAPI.Apply(prim.GetPrim())
        m = UsdPhysics.MassAPI.Apply(prim.GetPrim())
        mass = float(t.body_mass[b] if mass is None else mass)
        com = np.asarray(t.body_com[b] if com is None else com, np.float64)
        inertia = np.asarray(t.body_inertia[b] if inertia is None else inertia, np.float64).reshape(3, 3)
        m.CreateMassAttr(mass)
        m.CreateCenterOfMassAttr(Gf.Vec3f(*map(float, com)))
        diag, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
        if np.linalg.det(axes) < 0:
            axes[:, 0] = -axes[:, 0]
        qa = math3d.quat_from_matrix(axes)
        m.CreateDiagonalInertiaAttr(Gf.Vec3f(*map(float, np.maximum(diag, 0.0))))
        m.CreatePrincipalAxesAttr(Gf.Quatf(float(qa[3]), float(qa[0]), float(qa[1]), float(qa[2])))

    def joint(self, path, t, j, body_paths):
        """A UsdPhysics joint for Newton joint `j`; False when its type has no USD equivalent here."""
        newton = _newton()
        from pxr import Gf, Sdf, UsdPhysics
        JT = newton.JointType
        jt = int(t.joint_type[j])
        if jt == JT.FREE:
            return True                      # a free root is simply an unjointed rigid body
        qd0 = int(t.joint_qd_start[j])
        Xp, Xc = t.joint_X_p[j].astype(np.float64), t.joint_X_c[j].astype(np.float64)
        qa = np.array([0.0, 0.0, 0.0, 1.0])
        if jt in (JT.REVOLUTE, JT.PRISMATIC):
            # USD joints turn about a named local axis: rotate both joint frames so X is the axis
            qa = math3d.quat_between(np.array([1.0, 0.0, 0.0]), t.joint_axis[qd0].astype(np.float64))
            schema = UsdPhysics.RevoluteJoint if jt == JT.REVOLUTE else UsdPhysics.PrismaticJoint
        elif jt == JT.FIXED:
            schema = UsdPhysics.FixedJoint
        elif jt == JT.BALL:
            schema = UsdPhysics.SphericalJoint
        elif jt == JT.D6:
            # a generic USD joint frees named frame axes: turn the frame so Newton's axes become
            # X, Y, Z (possible when they are orthogonal); every other axis is locked by a limit
            lin, ang = (int(v) for v in t.joint_dof_dim[j])
            frame = _axes_frame(t.joint_axis[qd0:qd0 + lin].astype(np.float64),
                                t.joint_axis[qd0 + lin:qd0 + lin + ang].astype(np.float64))
            if frame is None:
                return False
            qa, order = frame
            schema = UsdPhysics.Joint
        else:
            return False
        J = schema.Define(self.stage, path)
        parent = int(t.joint_parent[j])
        if parent >= 0:
            J.CreateBody0Rel().SetTargets([Sdf.Path(body_paths[parent])])
        J.CreateBody1Rel().SetTargets([Sdf.Path(body_paths[int(t.joint_child[j])])])
        r0, r1 = math3d.quat_mul(Xp[3:], qa), math3d.quat_mul(Xc[3:], qa)
        J.CreateLocalPos0Attr(Gf.Vec3f(*map(float, Xp[:3])))
        J.CreateLocalRot0Attr(Gf.Quatf(float(r0[3]), *map(float, r0[:3])))
        J.CreateLocalPos1Attr(Gf.Vec3f(*map(float, Xc[:3])))
        J.CreateLocalRot1Attr(Gf.Quatf(float(r1[3]), *map(float, r1[:3])))
        if jt == JT.D6:
            free = {}
            for k, (name, sign) in enumerate(order):
                lo, hi = float(t.joint_limit_lower[qd0 + k]), float(t.joint_limit_upper[qd0 + k])
                if sign < 0:                                     # the USD axis points the other way
                    lo, hi = -hi, -lo
                if name.startswith("rot"):
                    lo, hi = math.degrees(lo), math.degrees(hi)
                free[name] = (lo, hi)
            for name in ("transX", "transY", "transZ", "rotX", "rotY", "rotZ"):
                lo, hi = free.get(name, (1.0, -1.0))            # low > high locks the axis
                if name in free and not (math.isfinite(lo) and math.isfinite(hi) and max(abs(lo), abs(hi)) < 1e6):
                    continue                                     # free and unlimited
                limit = UsdPhysics.LimitAPI.Apply(J.GetPrim(), name)
                limit.CreateLowAttr(lo)
                limit.CreateHighAttr(hi)
        if jt in (JT.REVOLUTE, JT.PRISMATIC):
            J.CreateAxisAttr(UsdPhysics.Tokens.x)
            lo, hi = float(t.joint_limit_lower[qd0]), float(t.joint_limit_upper[qd0])
            if jt == JT.REVOLUTE:
                lo, hi = math.degrees(lo), math.degrees(hi)          # USD angles are in degrees
            if math.isfinite(lo) and math.isfinite(hi) and abs(lo) < 1e6 and abs(hi) < 1e6:
                J.CreateLowerLimitAttr(lo)
                J.CreateUpperLimitAttr(hi)
        return True

    def save(self):
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            ok = self.stage.GetRootLayer().Export(self.path)
        except Exception as e:  # noqa: BLE001 - usd-core raises Tf errors of several types
            raise GymlikeRuntimeError(f"{self.what}: cannot write '{self.path}': {e}") from None
        if not ok:
            raise GymlikeRuntimeError(f"{self.what}: usd-core could not write '{self.path}'")


def _axes_frame(lin, ang):
    """(xyzw rotation whose X, Y, Z columns carry a D6 joint's axes, [(USD axis name, +-1)] in DOF
    order), or None when the axes are not orthogonal (or linear and angular axes share no frame)."""
    def frame(axes):
        axes = [a / np.linalg.norm(a) for a in axes]
        if any(abs(float(np.dot(a, b))) > 1e-6 for i, a in enumerate(axes) for b in axes[i + 1:]):
            return None
        cols = list(axes)
        for e in np.eye(3):                       # complete a right-handed basis
            if len(cols) == 3:
                break
            if len(cols) == 2:
                cols.append(np.cross(cols[0], cols[1]))
            elif abs(float(np.dot(e, cols[0]))) < 0.9:
                c = e - np.dot(e, cols[0]) * cols[0]
                cols.append(c / np.linalg.norm(c))
        R = np.stack(cols, 1)
        if np.linalg.det(R) < 0:
            R[:, 2] = -R[:, 2]
        return R
    if len(lin) and len(ang):
        R = frame(list(ang))
        if R is None or any(not np.allclose(np.abs(R.T @ (a / np.linalg.norm(a))).max(), 1.0, atol=1e-6) for a in lin):
            return None
    else:
        R = frame(list(ang) if len(ang) else list(lin))
        if R is None:
            return None
    names = []
    for kind, axes in (("trans", lin), ("rot", ang)):
        for a in axes:
            k = int(np.argmax(np.abs(R.T @ a)))
            names.append((kind + "XYZ"[k], 1.0 if float((R.T @ a)[k]) > 0 else -1.0))
    return math3d.quat_from_matrix(R), names


def _mesh_arrays(geo, scale, source):
    """(points, face counts, face indices) of a mesh or heightfield in its own frame."""
    newton = _newton()
    if geo == newton.GeoType.HFIELD:
        hf = source
        z = hf.min_z + np.asarray(hf.data, np.float64) * (hf.max_z - hf.min_z)        # (nrow, ncol)
        xs = np.linspace(-hf.hx, hf.hx, hf.ncol)
        ys = np.linspace(-hf.hy, hf.hy, hf.nrow)
        X, Y = np.meshgrid(xs, ys)
        pts = np.stack([X.ravel(), Y.ravel(), z.ravel()], 1)
        r, c = np.meshgrid(np.arange(hf.nrow - 1), np.arange(hf.ncol - 1), indexing="ij")
        i0 = (r * hf.ncol + c).ravel()
        quads = np.stack([i0, i0 + 1, i0 + 1 + hf.ncol, i0 + hf.ncol], 1)
        return pts, [4] * len(quads), quads.ravel().tolist()
    if source is None or getattr(source, "vertices", None) is None:
        return None, None, None
    pts = np.asarray(source.vertices, np.float64).reshape(-1, 3) * np.asarray(scale, np.float64)[:3]
    idx = np.asarray(source.indices, np.int64).reshape(-1)
    return pts, [3] * (len(idx) // 3), idx.tolist()


# ============================================================================ exports
def export_asset(exporter, asset, path, what="export_usd_asset"):
    """Write one asset at its default pose; True on success."""
    from ..core.assets.record import Asset
    exporter = exporter_of(exporter, what)
    if not isinstance(asset, Asset):
        raise GymlikeTypeError(f"{what}: expected an Asset, got {type(asset).__name__}")
    out = _out_path(exporter, path, None, what)
    b = asset.builder(visuals=True)
    t = _Table(b)
    o = exporter.options
    y_up = asset.sim.params.up_axis == UpAxis.UP_AXIS_Y
    w = _Writer(out, o, y_up, what)
    root = f"/{_names([os.path.splitext(asset.name)[0]])[0]}"
    w.root(root)
    body_q = np.asarray([tuple(x) for x in b.body_q], np.float64).reshape(-1, 7)
    skipped = _write_bodies(w, t, root, list(range(len(body_q))), body_q, asset.body_names,
                            np.arange(len(t.joint_type)), o["export_physics"])
    w.save()
    _warn_skipped(skipped, what)
    return True


def export_sim(exporter, sim, name, dir_name=None, what="export_usd_sim"):
    """Write the whole sim at its current state; returns {body prim path: Transform (sim frame)}."""
    exporter = exporter_of(exporter, what)
    if dir_name is not None and not isinstance(dir_name, (str, os.PathLike)):
        raise GymlikeTypeError(f"{what}: dirName must be a path or None, got {type(dir_name).__name__}")
    out = _out_path(exporter, name, dir_name, what)
    sim.ensure_ready(what)
    sim.sync_joint_state()
    from .cameras import warn_without_visuals
    warn_without_visuals(sim, what)
    model = sim.model
    t = _Table(model)
    o = exporter.options
    w = _Writer(out, o, sim.params.up_axis == UpAxis.UP_AXIS_Y, what)
    w.root("/World")
    body_q = sim.state.body_q.numpy().astype(np.float64)
    h = sim.host
    # static geometry (ground, triangle meshes, heightfields) lives in the sim frame
    w.stage.DefinePrim("/World/static", "Scope")
    w.shapes(t, "/World/static", np.nonzero(t.shape_body < 0)[0], o["export_physics"])
    joint_child = t.joint_child
    transforms, skipped = {}, 0
    w.stage.DefinePrim("/World/envs", "Scope")
    for env in sim.envs:
        env_path = f"/World/envs/env_{env.index}"
        w.xform(env_path, env.origin)
        for actor, actor_name in zip(env.actors, _names(a.name or "actor" for a in env.actors)):
            b0 = int(h.actor_body0[actor.sim_index])
            bodies = list(range(b0, b0 + actor.asset.body_count))
            local = body_q[bodies].copy()
            local[:, :3] -= env.origin                      # body prims sit in the env prim's frame
            joints = np.nonzero(np.isin(joint_child, bodies))[0]
            apath = f"{env_path}/{actor_name}"
            w.xform(apath)
            skipped += _write_bodies(w, t, apath, bodies, local, actor.asset.body_names, joints,
                                     o["export_physics"], transforms, body_q)
    w.save()
    _warn_skipped(skipped, what)
    return transforms


def _write_bodies(w, t, parent, bodies, poses, names, joints, physics, transforms=None, world_q=None):
    """Body Xforms (with shapes, and with physics when asked) under `parent`; returns the number
    of joints that could not be written."""
    shape_body = t.shape_body
    paths = {}
    for k, (b, name) in enumerate(zip(bodies, _names(names))):
        path = f"{parent}/{name}"
        paths[b] = path
        x = w.xform(path, poses[k, :3], poses[k, 3:])
        w.shapes(t, path, np.nonzero(shape_body == b)[0], physics)
        if physics:
            w.rigid_body(x, t, b)
        if transforms is not None:
            X = world_q[b]
            transforms[path] = Transform(Vec3(*map(float, X[:3])), Quat(*map(float, X[3:])))
    skipped = 0
    if physics and len(joints):
        from pxr import UsdPhysics
        # one articulation per actor / asset, rooted at the prim holding its bodies
        UsdPhysics.ArticulationRootAPI.Apply(w.stage.GetPrimAtPath(parent))
        w.stage.DefinePrim(f"{parent}/joints", "Scope")
        jnames = _names(t.joint_label[j] for j in joints)
        for j, jname in zip(joints, jnames):
            if not w.joint(f"{parent}/joints/{jname}", t, int(j), paths):
                skipped += 1
    return skipped


def _warn_skipped(n, what):
    if n:
        warn(f"gymlike {what}: {n} joint(s) of a type USD physics has no single schema for "
             "(D6, distance) were left out of the export", RuntimeWarning)
