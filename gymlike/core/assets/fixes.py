"""Fixes made to a freshly imported sub-builder, whatever its format: AssetOptions applied, drive
gains kept apart from Newton's passive springs, convex decomposition, and the physics MuJoCo
needs that PhysX did not (mass on moving bodies, inertias that satisfy A + B >= C)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import AssetParseError, GymlikeNotImplementedError
from ..runtime import newton as _newton, wp as _wp
from ..types import AssetOptions
from .importer import short_name

if TYPE_CHECKING:
    from collections.abc import Collection

    import newton

    from ..types import VhacdParams


def apply_options(b: newton.ModelBuilder, options: AssetOptions) -> tuple[list[float], list[float]]:
    """Post-process a freshly parsed sub-builder according to AssetOptions. Returns the file's
    passive (stiffness, damping) per Newton DOF: Isaac Gym's drive gains (record.py reads them),
    zeroed in the builder so that they act only through the drive (POS/VEL modes)."""
    newton = _newton()
    n_dof = b.joint_dof_count
    gains = (list(getattr(b, "joint_stiffness", [0.0] * n_dof)),
             list(getattr(b, "joint_damping", [0.0] * n_dof)))
    if hasattr(b, "joint_damping"):
        b.joint_damping = [0.0] * n_dof
    if hasattr(b, "joint_stiffness"):
        b.joint_stiffness = [0.0] * n_dof
    # Shapes on no body (an MJCF <worldbody> floor, say) are not part of an Isaac Gym actor; kept,
    # they would be placed at every actor's pose (a humanoid's own floor at its hips launches it)
    for s_, body in enumerate(b.shape_body):
        if body < 0:
            b.shape_flags[s_] = 0
    if options.armature:
        b.joint_armature = [a + float(options.armature) for a in b.joint_armature]
    if options.replace_cylinder_with_capsule:
        cyl, cap = newton.GeoType.CYLINDER, newton.GeoType.CAPSULE
        b.shape_type = [cap if t == cyl else t for t in b.shape_type]
    if options.flip_visual_attachments:
        _flip_visual_meshes(b)
    # MuJoCo builds its actuators once, from joint_target_mode, when the solver is created:
    # give every non-free DOF a position+velocity actuator and express Isaac Gym's drive
    # modes through gains (written by core/props.py).
    modes = list(b.joint_target_mode)
    JT = newton.JointType
    for j, jt in enumerate(b.joint_type):
        q0 = b.joint_qd_start[j]
        q1 = b.joint_qd_start[j + 1] if j + 1 < len(b.joint_type) else n_dof
        mode = (int(newton.JointTargetMode.NONE) if jt == JT.FREE
                else int(newton.JointTargetMode.POSITION_VELOCITY))
        for d in range(q0, q1):
            modes[d] = mode
    b.joint_target_mode = modes
    b.joint_target_ke = [0.0] * n_dof
    b.joint_target_kd = [0.0] * n_dof
    # Newton defaults a target to the limit midpoint when 0 is outside the limits; Isaac Gym
    # targets start at 0. gymlike writes targets itself, so start from 0 everywhere.
    b.joint_target_q = [0.0 if i not in _quat_coords(b) else v for i, v in enumerate(b.joint_target_q)]
    return gains


def _convex_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gymlike", "convex")


def decompose_meshes(b: newton.ModelBuilder, params: VhacdParams, path: str | None) -> None:
    """AssetOptions.vhacd_enabled: every collision mesh becomes the convex parts V-HACD finds
    (Newton's approximate_meshes with trimesh + vhacdx, as Isaac Gym's importer runs V-HACD),
    cached on disk by mesh content and parameters; the original mesh stays as the visual."""
    newton = _newton()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    meshes = [s for s, t in enumerate(b.shape_type)
              if t in (newton.GeoType.MESH, newton.GeoType.CONVEX_MESH) and b.shape_flags[s] & collide]
    if not meshes:
        return
    settings = dict(maxConvexHulls=int(params.max_convex_hulls), resolution=int(params.resolution),
                    maxNumVerticesPerCH=int(params.max_num_vertices_per_ch))
    import sys
    import time
    t0 = time.perf_counter()
    try:
        for k, s in enumerate(meshes):   # one at a time (indices stay valid) for the progress line
            b.approximate_meshes(method="vhacd", shape_indices=[s], raise_on_failure=True,
                                 keep_visual_shapes=True, cache_dir=_convex_cache_dir(), **settings)
            took = time.perf_counter() - t0
            if took > 1.0:    # a first run decomposes; later runs read the disk cache at once
                print(f"\rgymlike: V-HACD convex decomposition of '{os.path.basename(path or '')}': "
                      f"{k + 1}/{len(meshes)} meshes, {took:.0f} s (cached for later runs)",
                      end="\n" if k + 1 == len(meshes) else "", file=sys.stderr, flush=True)
    except ImportError as e:
        raise GymlikeNotImplementedError(
            f"asset '{path}': AssetOptions.vhacd_enabled needs the 'vhacdx' and 'trimesh' packages "
            f"(pip install vhacdx trimesh): {e}") from None
    except Exception as e:  # the backend's own failures, with the file named
        raise AssetParseError(f"asset '{path}': convex decomposition failed: {type(e).__name__}: {e}") from None


def drop_root_position(b: newton.ModelBuilder) -> None:
    """Isaac Gym places an MJCF actor's root body at the actor pose: the position the file gives
    the root body is not added (IsaacGymEnvs creates its ant, torso at z = 0.75 in the file, at
    z = 0.44, and its humanoid, torso at 1.5, at 1.34: standing on the ground). The file's
    orientation of the root body is kept."""
    wp = _wp()
    newton = _newton()
    for j in range(len(b.joint_type)):
        if b.joint_parent[j] != -1:
            continue
        p = np.array(b.body_q[b.joint_child[j]], np.float64)[0:3]
        if not p.any():
            continue
        if b.joint_type[j] == newton.JointType.FREE:
            q0 = b.joint_q_start[j]
            for k in range(3):
                b.joint_q[q0 + k] -= float(p[k])
        else:
            X = np.array(b.joint_X_p[j], np.float64)
            b.joint_X_p[j] = wp.transform(wp.vec3(*(X[0:3] - p)), wp.quat(*X[3:7]))
        for i in range(len(b.body_q)):
            X = np.array(b.body_q[i], np.float64)
            b.body_q[i] = wp.transform(wp.vec3(*(X[0:3] - p)), wp.quat(*X[3:7]))


MASSLESS_MASS, MASSLESS_INERTIA = 1e-3, 1e-6     # given to moving bodies without mass


def _moving_bodies(b):
    """Bodies that move: below a non-fixed joint, or welded to a body that moves (a massless
    frame welded to a moving link moves with it; XPBD takes a body without mass for an
    immovable one, which pinned the whole robot in place)."""
    fixed_type = _newton().JointType.FIXED
    moving, grew = set(), True
    while grew:                    # (one pass in Newton's depth-first joint order)
        grew = False
        for j, jt in enumerate(b.joint_type):
            c = b.joint_child[j]
            if c not in moving and (jt != fixed_type or b.joint_parent[j] in moving):
                moving.add(c)
                grew = True
    return moving


def give_mass(b: newton.ModelBuilder) -> list[str]:
    """Moving bodies (_moving_bodies) with no mass, e.g. the empty links of a URDF chain of
    prismatic joints or a massless frame welded to a link, get a small mass and inertia; point
    masses (mass, but a singular inertia) get the small inertia added. Returns their labels."""
    moving = _moving_bodies(b)
    out = []
    for i in sorted(moving):
        mass = float(b.body_mass[i])
        inertia = np.array(b.body_inertia[i], np.float64).reshape(3, 3)
        if mass > 0.0 and np.linalg.eigvalsh(0.5 * (inertia + inertia.T))[0] > 0.0:
            continue
        if mass > 0.0:
            inertia = inertia + np.eye(3) * MASSLESS_INERTIA
        else:
            mass, inertia = MASSLESS_MASS, np.eye(3) * MASSLESS_INERTIA
        b.body_mass[i], b.body_inv_mass[i] = mass, 1.0 / mass
        mat = type(b.body_inertia[i])
        b.body_inertia[i] = mat(*inertia.astype(np.float32).ravel())
        b.body_inv_inertia[i] = mat(*np.linalg.inv(inertia).astype(np.float32).ravel())
        out.append(short_name(b.body_label[i]))
    return out


def balance_inertias(b: newton.ModelBuilder) -> list[str]:
    """Make every body's principal moments satisfy A + B >= C (PhysX accepts such bodies,
    MuJoCo refuses them): raise the two smaller moments by the missing amount. Returns the
    labels of the bodies changed."""
    fixed = []
    for i, inertia in enumerate(b.body_inertia):
        m = np.array(inertia, np.float64).reshape(3, 3)
        if not np.isfinite(m).all() or not m.any():
            continue
        e, R = np.linalg.eigh(0.5 * (m + m.T))
        if e[0] + e[1] >= e[2] * (1.0 - 8.0 * np.finfo(np.float32).eps):   # (float32 round-off tolerated)
            continue
        d = e[2] * (1.0 + 1e-3) - (e[0] + e[1])
        e[0] += 0.5 * d
        e[1] += 0.5 * d
        b.body_inertia[i] = type(inertia)(*(R @ np.diag(e) @ R.T).astype(np.float32).ravel()) \
            if not isinstance(inertia, np.ndarray) else (R @ np.diag(e) @ R.T)
        fixed.append(short_name(b.body_label[i]))
    return fixed


def _quat_coords(b):
    newton = _newton()
    out = set()
    for j, jt in enumerate(b.joint_type):
        if jt == newton.JointType.FREE:
            q0 = b.joint_q_start[j]
            out.update(range(q0 + 3, q0 + 7))
    return out


def _flip_visual_meshes(b):
    """Isaac Gym's flip_visual_attachments: visual meshes authored Y-up are turned Z-up."""
    newton = _newton()
    wp = _wp()
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    rot = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), np.pi / 2)
    flip = wp.transform(wp.vec3(0.0, 0.0, 0.0), rot)
    for s, t in enumerate(b.shape_type):
        if t == newton.GeoType.MESH and not (b.shape_flags[s] & collide):
            b.shape_transform[s] = wp.transform_multiply(b.shape_transform[s], flip)


def collapse(b: newton.ModelBuilder, options: AssetOptions,
             keep_names: Collection[str] = ()) -> newton.ModelBuilder:
    """AssetOptions.collapse_fixed_joints (URDF and USD; Isaac Gym keeps every MJCF body): merge
    fixed-joint children into their parents, but keep the root (Newton would also fold a base
    welded to the world into the world) and URDF fixed joints marked dont_collapse="true" (e.g.
    feet that must stay bodies)."""
    if options.collapse_fixed_joints:
        keep = [j for j in range(len(b.joint_type))
                if b.joint_parent[j] == -1 or short_name(b.joint_label[j]) in keep_names]
        b.collapse_fixed_joints(joints_to_keep=keep)
    return b
