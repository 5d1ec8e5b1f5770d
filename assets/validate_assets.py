"""Validate every gymlike asset with Newton 1.8 (and MuJoCo's C library as an oracle).

For every asset:
  * import it with newton.ModelBuilder().add_urdf / add_mjcf / add_usd (next to a ground plane),
  * print body count, joint types, DOF count, body labels and total mass, and check them against
    the expected values,
  * check that no NewtonWarning about a missing / unresolvable mesh was raised (and that one *was*
    raised for urdf/mesh_objects/missing_mesh.urdf),
  * step it for 1 s with newton.solvers.SolverMuJoCo on the CPU (dt = 1/240) and check for NaNs.
Extra checks: cartpole.urdf vs cartpole.xml mass matrices (Newton eval_mass_matrix vs
mujoco.mj_fullM) and free trajectories, pendulum small-angle period, quadruped standing height,
arm7 reach.

Usage:  python assets/validate_assets.py [-k SUBSTRING]   (-k filters asset paths and extra-check names)
Needs newton's importer extras for USD (newton-usd-schemas); resolve-robotics-uri-py is
optional (without it, package:// URIs are resolved by Newton's built-in folder-name fallback
and package_dirs must not be passed).
Exit code 0 = all checks passed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import logging

import numpy as np

# trimesh (used by Newton's mesh loader) logs a harmless traceback when scipy is absent
logging.getLogger("trimesh").setLevel(logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
URDF_ROOT = os.path.join(HERE, "urdf")  # package root for package://mesh_objects/...

import warp as wp  # noqa: E402

wp.config.quiet = True
import newton  # noqa: E402

try:
    import resolve_robotics_uri_py  # noqa: F401

    HAVE_URI_RESOLVER = True
except ImportError:
    HAVE_URI_RESOLVER = False

DT = 1.0 / 240.0
DEVICE = "cpu"
MESH_WARNING_KEYS = ("does not exist", "resolve uri", "resolve package", "resolve relative uri", "resolve model://")

FAILS: list[str] = []


def check(cond, msg):
    if cond:
        print("    ok   ", msg)
    else:
        print("    FAIL ", msg)
        FAILS.append(msg)
    return cond


def jt_name(t):
    return newton.JointType(int(t)).name


# ------------------------------------------------------------------------------------------------
# asset table
# ------------------------------------------------------------------------------------------------
def urdf_kwargs(path):
    kw = {}
    if HAVE_URI_RESOLVER:
        kw["package_dirs"] = [URDF_ROOT]
    return kw


ASSETS = [
    # path, loader, floating, root xform (pos), expected bodies, expected DOFs, expected mass [kg]
    dict(path="urdf/cartpole.urdf", kind="urdf", floating=False, pos=(0, 0, 2.0), bodies=3, dofs=2, mass=3.1),
    dict(path="urdf/ball.urdf", kind="urdf", floating=True, pos=(0, 0, 0.5), bodies=1, dofs=6, mass=1.0),
    dict(path="urdf/box.urdf", kind="urdf", floating=True, pos=(0, 0, 0.5), bodies=1, dofs=6, mass=1.0),
    dict(path="urdf/pendulum.urdf", kind="urdf", floating=False, pos=(0, 0, 2.0), bodies=2, dofs=1, mass=2.0),
    dict(path="urdf/arm7/arm7.urdf", kind="urdf", floating=False, pos=(0, 0, 0.0), bodies=11, dofs=9, mass=20.0),
    dict(path="urdf/quadruped/quadruped.urdf", kind="urdf", floating=True, pos=(0, 0, 0.45), bodies=17, dofs=18,
         mass=14.8, pose={"HFE": 0.7, "KFE": -1.4}),
    dict(path="urdf/mesh_objects/mesh_box.urdf", kind="urdf", floating=True, pos=(0, 0, 0.3), bodies=1, dofs=6,
         mass=0.5, shapes=2),
    dict(path="urdf/mesh_objects/mesh_tetra.urdf", kind="urdf", floating=True, pos=(0, 0, 0.3), bodies=1, dofs=6,
         mass=0.2, shapes=2),
    dict(path="urdf/mesh_objects/missing_mesh.urdf", kind="urdf", floating=True, pos=(0, 0, 0.3), bodies=1, dofs=6,
         mass=1.0, shapes=0, expect_missing_mesh=True),
    dict(path="mjcf/cartpole.xml", kind="mjcf", floating=None, pos=(0, 0, 2.0), bodies=3, dofs=2, mass=3.1),
    dict(path="mjcf/box.xml", kind="mjcf", floating=None, pos=(0, 0, 0.4), bodies=1, dofs=6, mass=1.0),
    dict(path="mjcf/nv_ant.xml", kind="mjcf", floating=None, pos=(0, 0, 0.0), bodies=9, dofs=14, mass=0.91088),
    dict(path="mjcf/humanoid.xml", kind="mjcf", floating=None, pos=(0, 0, 0.0), bodies=13, dofs=27, mass=40.0766),
    dict(path="usd/pendulum2.usda", kind="usd", floating=None, pos=None, bodies=2, dofs=2, mass=1.5),
    dict(path="usd/box.usda", kind="usd", floating=None, pos=None, bodies=1, dofs=6, mass=1.0),
]


def import_asset(builder, spec):
    path = os.path.join(HERE, spec["path"])
    xform = None if spec["pos"] is None else wp.transform(spec["pos"], wp.quat_identity())
    if spec["kind"] == "urdf":
        builder.add_urdf(path, xform=xform, floating=spec["floating"], **urdf_kwargs(path))
    elif spec["kind"] == "mjcf":
        builder.add_mjcf(path, xform=xform, floating=spec["floating"])
    else:
        builder.add_usd(path, xform=xform, floating=spec["floating"])


def build(spec):
    """Import one asset next to a ground plane; returns (builder, newton warnings)."""
    b = newton.ModelBuilder()
    b.add_ground_plane()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import_asset(b, spec)
    newton_warnings = [str(w.message) for w in caught if issubclass(w.category, newton.NewtonWarning)]
    return b, newton_warnings


def initial_joint_q(model, spec):
    """Model default joint_q with every 1-DOF joint clamped into its limits (+ optional named pose)."""
    q = model.joint_q.numpy().copy()
    qs = model.joint_q_start.numpy()
    ds = model.joint_qd_start.numpy()
    types = model.joint_type.numpy()
    lo = model.joint_limit_lower.numpy()
    hi = model.joint_limit_upper.numpy()
    labels = model.joint_label
    for j, t in enumerate(types):
        if t in (newton.JointType.REVOLUTE, newton.JointType.PRISMATIC):
            c, d = qs[j], ds[j]
            for key, val in spec.get("pose", {}).items():
                if labels[j].endswith("_" + key):
                    q[c] = val
            q[c] = min(max(q[c], lo[d]), hi[d])
    return q


def contact_capacity(model):
    """Explicit MuJoCo-Warp contact/constraint capacity for one world.

    SolverMuJoCo's default (mujoco_warp's heuristic, e.g. nconmax=48 for the quadruped) is too
    small once an unactuated legged robot folds up on the ground: contacts overflow, are dropped,
    and the simulation goes NaN. Size it from the number of colliding shapes instead.
    """
    flags = model.shape_flags.numpy()
    n_coll = int(np.count_nonzero(flags & int(newton.ShapeFlags.COLLIDE_SHAPES)))
    nconmax = max(64, 12 * n_coll)
    return nconmax, 6 * nconmax + 4 * model.joint_dof_count


def simulate(model, q0, qd0=None, seconds=1.0, dt=DT, record=None, stats=None):
    """Step SolverMuJoCo; returns (finite, final state, recorded joint_q history)."""
    nconmax, njmax = contact_capacity(model)
    solver = newton.solvers.SolverMuJoCo(model, nconmax=nconmax, njmax=njmax)
    s0, s1, ctrl = model.state(), model.state(), model.control()
    s0.joint_q.assign(q0.astype(np.float32))
    if qd0 is not None:
        s0.joint_qd.assign(qd0.astype(np.float32))
    newton.eval_fk(model, s0.joint_q, s0.joint_qd, s0)
    hist = []
    finite = True
    n = int(round(seconds / dt))
    for i in range(n):
        s0.clear_forces()
        solver.step(s0, s1, ctrl, None, dt)
        s0, s1 = s1, s0
        if record is not None:
            hist.append(s0.joint_q.numpy()[record].copy())
        if stats is not None:
            stats["max_contacts"] = max(stats.get("max_contacts", 0), int(solver.mjw_data.nacon.numpy().max()))
        if i % 48 == 47 or i == n - 1:
            if not (np.isfinite(s0.body_q.numpy()).all() and np.isfinite(s0.joint_q.numpy()).all()
                    and np.isfinite(s0.joint_qd.numpy()).all()):
                finite = False
                break
    return finite, s0, np.array(hist)


# ------------------------------------------------------------------------------------------------
# per-asset validation
# ------------------------------------------------------------------------------------------------
def validate(spec):
    print("\n== %s (%s, floating=%s)" % (spec["path"], spec["kind"], spec["floating"]))
    t0 = time.time()
    try:
        b, nwarn = build(spec)
    except Exception as e:  # noqa: BLE001
        check(False, "%s: import raised %s: %s" % (spec["path"], type(e).__name__, e))
        return
    body_labels = list(b.body_label)
    types = [jt_name(t) for t in b.joint_type]
    mass = float(sum(b.body_mass))
    print("    bodies %d  joints %d  DOFs %d  coords %d  shapes(asset) %d  mass %.4f kg"
          % (b.body_count, b.joint_count, b.joint_dof_count, b.joint_coord_count, b.shape_count - 1, mass))
    print("    joint types  ", types)
    print("    body labels  ", body_labels)
    print("    joint labels ", list(b.joint_label))
    for w in nwarn:
        print("    NewtonWarning:", w)

    name = spec["path"]
    check(b.body_count == spec["bodies"], "%s: %d bodies (expected %d)" % (name, b.body_count, spec["bodies"]))
    check(b.joint_dof_count == spec["dofs"], "%s: %d DOFs (expected %d)" % (name, b.joint_dof_count, spec["dofs"]))
    check(abs(mass - spec["mass"]) < 1e-3 * max(1.0, spec["mass"]),
          "%s: total mass %.4f kg (expected %.4f)" % (name, mass, spec["mass"]))
    if "shapes" in spec:
        n_sh = b.shape_count - 1
        check(n_sh == spec["shapes"], "%s: %d shapes (expected %d)" % (name, n_sh, spec["shapes"]))
    mesh_warn = [w for w in nwarn if any(k in w.lower() for k in MESH_WARNING_KEYS)]
    if spec.get("expect_missing_mesh"):
        check(len(mesh_warn) >= 1, "%s: NewtonWarning about the missing mesh was raised" % name)
    else:
        check(not mesh_warn, "%s: no NewtonWarning about missing/unresolved meshes" % name)

    # inertias: symmetric positive definite for every body with mass
    ok = True
    for i in range(b.body_count):
        if b.body_mass[i] > 0:
            inertia = np.array(b.body_inertia[i], dtype=np.float64).reshape(3, 3)
            if not (np.allclose(inertia, inertia.T, atol=1e-9) and np.linalg.eigvalsh(inertia).min() > 0):
                ok = False
                print("      bad inertia on", body_labels[i], inertia)
    check(ok, "%s: all body inertias symmetric positive definite" % name)

    model = b.finalize(device=DEVICE)
    q0 = initial_joint_q(model, spec)
    stats = {}
    finite, state, _ = simulate(model, q0, stats=stats)
    check(finite, "%s: 1 s of SolverMuJoCo at dt=1/240 without NaN" % name)
    default_cap = int(newton.solvers.SolverMuJoCo(model).mjw_data.naconmax)
    print("    contacts: max %d candidate contacts (sized nconmax %d; SolverMuJoCo default would be %d%s)"
          % (stats.get("max_contacts", 0), contact_capacity(model)[0], default_cap,
             " -> would OVERFLOW" if stats.get("max_contacts", 0) > default_cap else ""))
    if finite and spec["kind"] != "usd" and spec["floating"] is not False and not spec.get("expect_missing_mesh"):
        z = state.body_q.numpy()[:, 2]
        print("    body z after 1 s: min %.3f max %.3f" % (z.min(), z.max()))
        check(z.min() > -0.05, "%s: nothing fell through the ground" % name)
    print("    (%.1f s)" % (time.time() - t0))


# ------------------------------------------------------------------------------------------------
# extra checks
# ------------------------------------------------------------------------------------------------
def cartpole_oracle():
    """cartpole.urdf (Newton) vs cartpole.xml (MuJoCo C): mass matrices and a free trajectory."""
    import mujoco

    print("\n== cartpole.urdf (Newton) vs cartpole.xml (MuJoCo C library)")
    mjm = mujoco.MjModel.from_xml_path(os.path.join(HERE, "mjcf/cartpole.xml"))
    mjd = mujoco.MjData(mjm)

    def mj_mass_matrix(q):
        mjd.qpos[:] = q
        mjd.qvel[:] = 0
        mujoco.mj_forward(mjm, mjd)
        full = np.zeros((mjm.nv, mjm.nv))
        mujoco.mj_fullM(mjm, mjd, full)  # mujoco >= 3.5 signature (m, d, dst)
        return full

    results = {}
    for label, path, loader in (("urdf", "urdf/cartpole.urdf", "urdf"), ("mjcf", "mjcf/cartpole.xml", "mjcf")):
        b = newton.ModelBuilder()
        if loader == "urdf":
            b.add_urdf(os.path.join(HERE, path), floating=False)
        else:
            b.add_mjcf(os.path.join(HERE, path))
        results[label] = b.finalize(device=DEVICE)

    configs = [(0.0, 0.0), (0.7, 0.4), (-1.3, 2.5), (2.0, -1.9)]
    worst = {"urdf": 0.0, "mjcf": 0.0}
    for q in configs:
        ref = mj_mass_matrix(np.array(q))
        for label, model in results.items():
            st = model.state()
            st.joint_q.assign(np.array(q, dtype=np.float32))
            newton.eval_fk(model, st.joint_q, st.joint_qd, st)
            H = newton.eval_mass_matrix(model, st).numpy()[0][:2, :2]
            worst[label] = max(worst[label], float(np.abs(H - ref).max()))
        print("    q=%-14s MuJoCo M=%s" % (str(q), np.array2string(ref, precision=5).replace("\n", "")))
    check(worst["urdf"] < 1e-4, "cartpole: max |M_newton(urdf) - M_mujoco(xml)| = %.2e < 1e-4" % worst["urdf"])
    check(worst["mjcf"] < 1e-4, "cartpole: max |M_newton(xml) - M_mujoco(xml)| = %.2e < 1e-4" % worst["mjcf"])

    # free (unactuated) trajectory, same dt and integrator in both
    dt = float(mjm.opt.timestep)
    q0, qd0 = np.array([0.2, 0.3]), np.array([0.5, -1.0])
    mujoco.mj_resetData(mjm, mjd)
    mjd.qpos[:] = q0
    mjd.qvel[:] = qd0
    ref = []
    for _ in range(int(round(1.0 / dt))):
        mujoco.mj_step(mjm, mjd)
        ref.append(mjd.qpos.copy())
    ref = np.array(ref)
    print("    free motion from q=%s qd=%s, dt=%g; q(1 s) MuJoCo C (xml): %s" % (q0, qd0, dt, np.round(ref[-1], 5)))
    for label, model in results.items():
        finite, _, hist = simulate(model, q0, qd0, seconds=1.0, dt=dt, record=slice(0, 2))
        err = float(np.abs(hist - ref).max()) if finite else float("inf")
        print("    q(1 s) Newton SolverMuJoCo (%s): %s" % (label, np.round(hist[-1], 5)))
        check(err < 1e-4,
              "cartpole: 1 s free trajectory, max |q_newton(%s) - q_mujoco(xml)| = %.2e < 1e-4" % (label, err))


def pendulum_period():
    print("\n== pendulum.urdf small-angle period")
    b = newton.ModelBuilder()
    b.add_urdf(os.path.join(HERE, "urdf/pendulum.urdf"), floating=False)
    model = b.finalize(device=DEVICE)
    amp = 0.05
    finite, _, hist = simulate(model, np.array([amp]), seconds=4.5, dt=1.0 / 480.0, record=slice(0, 1))
    if not check(finite, "pendulum: finite"):
        return
    th = hist[:, 0]
    t = (np.arange(len(th)) + 1) / 480.0
    # downward zero crossings, linearly interpolated
    idx = np.where((th[:-1] > 0) & (th[1:] <= 0))[0]
    tc = t[idx] + (t[idx + 1] - t[idx]) * th[idx] / (th[idx] - th[idx + 1])
    period = float(np.mean(np.diff(tc)))
    L, g, m, r = 1.0, 9.81, 1.0, 0.02
    t_ideal = 2 * math.pi * math.sqrt(L / g)
    t_phys = 2 * math.pi * math.sqrt((m * L * L + 0.4 * m * r * r) / (m * g * L)) * (1 + amp * amp / 16)
    print("    measured %.4f s   2*pi*sqrt(L/g) = %.4f s   physical-pendulum prediction %.4f s"
          % (period, t_ideal, t_phys))
    check(abs(period - t_phys) / t_phys < 5e-3,
          "pendulum: period within 0.5%% of prediction (%.3f%%)" % (100 * abs(period - t_phys) / t_phys))


def quadruped_stand_height():
    print("\n== quadruped standing height (FK, HFE=0.7, KFE=-1.4)")
    b = newton.ModelBuilder()
    b.add_urdf(os.path.join(HERE, "urdf/quadruped/quadruped.urdf"), floating=True)
    model = b.finalize(device=DEVICE)
    q = initial_joint_q(model, {"pose": {"HFE": 0.7, "KFE": -1.4}})
    st = model.state()
    st.joint_q.assign(q.astype(np.float32))
    newton.eval_fk(model, st.joint_q, st.joint_qd, st)
    body_q = st.body_q.numpy()
    feet = [i for i, lab in enumerate(model.body_label) if lab.endswith("_foot")]
    base_z = body_q[0, 2]
    height = base_z - body_q[feet, 2].min() + 0.022
    print("    trunk height above the ground: %.3f m (4 feet: %s)" % (height, [model.body_label[i] for i in feet]))
    check(0.35 <= height <= 0.5, "quadruped: standing height %.3f m in [0.35, 0.5]" % height)


def arm_reach():
    print("\n== arm7 reach")
    b = newton.ModelBuilder()
    b.add_urdf(os.path.join(HERE, "urdf/arm7/arm7.urdf"), floating=False)
    model = b.finalize(device=DEVICE)
    st = model.state()
    newton.eval_fk(model, st.joint_q, st.joint_qd, st)
    labels = list(model.body_label)
    bq = st.body_q.numpy()
    shoulder = bq[labels.index("arm7/link2"), :3]
    hand = bq[labels.index("arm7/hand"), :3]
    reach = float(np.linalg.norm(hand - shoulder))
    print("    shoulder %s  flange/hand origin %s  shoulder->flange %.3f m"
          % (np.round(shoulder, 3), np.round(hand, 3), reach))
    check(0.75 <= reach <= 0.95, "arm7: shoulder-to-flange reach %.3f m ~ 0.85 m" % reach)


def package_uri_check():
    """package:// resolution, in whichever mode this environment supports."""
    print("\n== package:// resolution")
    path = os.path.join(HERE, "urdf/mesh_objects/mesh_box.urdf")
    mode = "resolve-robotics-uri-py with package_dirs=[assets/urdf]" if HAVE_URI_RESOLVER else \
        "Newton's built-in fallback (no resolve-robotics-uri-py; package root found by folder name)"
    print("    mode:", mode)
    b = newton.ModelBuilder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.add_urdf(path, floating=True, **urdf_kwargs(path))
    msgs = [str(w.message) for w in caught if issubclass(w.category, newton.NewtonWarning)]
    visual = [s for s in range(b.shape_count) if not (b.shape_flags[s] & int(newton.ShapeFlags.COLLIDE_SHAPES))]
    check(not msgs and len(visual) == 1,
          "mesh_box.urdf: package:// visual mesh resolved (%d visual shape, warnings=%s)" % (len(visual), msgs))
    if visual:
        src = b.shape_source[visual[0]]
        nv = len(src.vertices) if src is not None else 0
        check(nv > 0, "mesh_box.urdf: visual (Collada) mesh has %d vertices" % nv)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="", help="only assets whose path contains this substring")
    args = ap.parse_args()
    print("newton", newton.__version__, "| warp", wp.config.version, "| resolve-robotics-uri-py:", HAVE_URI_RESOLVER)
    try:
        import newton_usd_schemas  # noqa: F401
    except ImportError:
        print("NOTE: newton-usd-schemas is not installed; add_usd will fail (pip install 'newton[importers]').")
    t0 = time.time()
    for spec in ASSETS:
        if args.k in spec["path"]:
            validate(spec)
    for extra in (cartpole_oracle, pendulum_period, quadruped_stand_height, arm_reach, package_uri_check):
        if not args.k or args.k in extra.__name__:
            extra()
    print("\n%d checks failed (%.0f s)" % (len(FAILS), time.time() - t0))
    for f in FAILS:
        print("  FAIL", f)
    print("ALL ASSET CHECKS PASSED" if not FAILS else "ASSET VALIDATION FAILED")
    return 0 if not FAILS else 1


if __name__ == "__main__":
    sys.exit(main())
