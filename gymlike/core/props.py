"""Writing Isaac Gym properties (DOF, rigid body, rigid shape) into the Newton model.

The same writers serve the finalize step (all actors at once) and the per-actor setters;
each is a fixed number of scatter launches followed by one `notify_model_changed`."""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .asset import UNLIMITED
from .enums import RIGID_BODY_DISABLE_GRAVITY
from .sim import _wp


def scatter(sim, dst, idx, values, dtype=None):
    """dst[idx] = values on the sim device (values: numpy)."""
    wp = _wp()
    idx = np.ascontiguousarray(idx, np.int32)
    if idx.size == 0:
        return
    src = wp.array(np.ascontiguousarray(values), dtype=dtype or dst.dtype, device=sim.device)
    wi = wp.array(idx, dtype=wp.int32, device=sim.device)
    wp.launch(K.scatter, dim=idx.size, inputs=[src, wi, dst], device=sim.device)


def notify(sim, *flags):
    if sim.solver is not None:
        import newton
        f = 0
        for name in flags:
            f |= int(getattr(newton.ModelFlags, name))
        sim.solver.notify_model_changed(newton.ModelFlags(f))


# ---------------------------------------------------------------------------- DOF properties
def write_dof_props(sim, ig_dofs, props):
    """ig_dofs: DOMAIN_SIM DOF indices; props: DOF_PROPERTIES_DTYPE array of the same length."""
    if len(ig_dofs) == 0:
        return
    wp = _wp()
    m, d, h = sim.model, sim.dev, sim.host
    qd = h.dof_qd[ig_dofs]
    has = props["hasLimits"].astype(bool)
    lower = np.where(has, props["lower"], -UNLIMITED).astype(np.float32)
    upper = np.where(has, props["upper"], UNLIMITED).astype(np.float32)
    scatter(sim, m.joint_limit_lower, qd, lower)
    scatter(sim, m.joint_limit_upper, qd, upper)
    effort = props["effort"].astype(np.float32)
    scatter(sim, m.joint_effort_limit, qd, effort)
    scatter(sim, m.joint_velocity_limit, qd, props["velocity"].astype(np.float32))
    scatter(sim, m.joint_friction, qd, props["friction"].astype(np.float32))
    scatter(sim, m.joint_armature, qd, props["armature"].astype(np.float32))
    scatter(sim, d.dof_mode, ig_dofs, props["driveMode"].astype(np.int32))
    scatter(sim, d.dof_stiffness, ig_dofs, props["stiffness"].astype(np.float32))
    scatter(sim, d.dof_damping, ig_dofs, props["damping"].astype(np.float32))
    scatter(sim, d.dof_effort_limit, ig_dofs, effort)
    wp.launch(K.drive_gains, dim=d.num_dofs, device=sim.device,
              inputs=[d.dof_mode, d.dof_stiffness, d.dof_damping, d.dof_qd, m.joint_target_ke, m.joint_target_kd])
    notify(sim, "JOINT_DOF_FORCE_PROPERTIES", "JOINT_DOF_INERTIAL_PROPERTIES")


# ---------------------------------------------------------------------------- rigid bodies
def write_body_props(sim, bodies, mass, com, inertia, flags):
    """bodies: DOMAIN_SIM body indices (== Newton body indices)."""
    if len(bodies) == 0:
        return
    wp = _wp()
    m, d = sim.model, sim.dev
    mass = np.asarray(mass, np.float32)
    inertia = np.asarray(inertia, np.float32).reshape(-1, 3, 3)
    inv_mass = np.where(mass > 0, 1.0 / np.maximum(mass, 1e-30), 0.0).astype(np.float32)
    inv_inertia = np.zeros_like(inertia)
    ok = mass > 0
    if ok.any():
        inv_inertia[ok] = np.linalg.inv(inertia[ok].astype(np.float64)).astype(np.float32)
    scatter(sim, m.body_mass, bodies, mass)
    scatter(sim, m.body_inv_mass, bodies, inv_mass)
    scatter(sim, m.body_com, bodies, np.asarray(com, np.float32).reshape(-1, 3), wp.vec3)
    scatter(sim, m.body_inertia, bodies, inertia, wp.mat33)
    scatter(sim, m.body_inv_inertia, bodies, inv_inertia, wp.mat33)
    nog = ((np.asarray(flags) & RIGID_BODY_DISABLE_GRAVITY) != 0).astype(np.int32)
    scatter(sim, d.no_gravity, bodies, nog)
    d.passive_forces = bool(d.passive_forces or nog.any())
    notify(sim, "BODY_INERTIAL_PROPERTIES")


# ---------------------------------------------------------------------------- rigid shapes
def write_shape_props(sim, newton_shapes, props):
    if len(newton_shapes) == 0:
        return
    m = sim.model
    scatter(sim, m.shape_material_mu, newton_shapes, props["friction"].astype(np.float32))
    scatter(sim, m.shape_material_restitution, newton_shapes, props["restitution"].astype(np.float32))
    scatter(sim, m.shape_material_mu_rolling, newton_shapes, props["rolling_friction"].astype(np.float32))
    scatter(sim, m.shape_material_mu_torsional, newton_shapes, props["torsion_friction"].astype(np.float32))
    notify(sim, "SHAPE_PROPERTIES")


# ---------------------------------------------------------------------------- finalize
def write_all(sim):
    """Push every actor's properties (asset defaults or values set before finalize)."""
    h, d = sim.host, sim.dev
    actors = sim.all_actors()
    if h.num_dofs:
        write_dof_props(sim, np.arange(h.num_dofs), np.concatenate([a.dof_props for a in actors]))
    write_body_props(sim, np.arange(h.num_bodies),
                     np.concatenate([a.body_mass for a in actors]),
                     np.concatenate([a.body_com for a in actors]),
                     np.concatenate([a.body_inertia for a in actors]),
                     np.concatenate([a.body_flags for a in actors]))
    if len(h.shape_newton):
        write_shape_props(sim, h.shape_newton, np.concatenate([a.shape_props for a in actors]))
    d.passive_forces = bool(d.passive_forces or d.lin_damp.numpy().any() or d.ang_damp.numpy().any())
