"""The private names of Newton and Warp that gymlike cannot avoid, in one place.

Newton marks `newton._src` and underscore names as unstable. gymlike uses them only through
this module; tests/test_upstream.py checks that every name listed in `PRIVATE` still exists, so
an upgrade that moves one fails that test naming it, rather than failing somewhere deep in a
simulation. Nothing here replaces a function of Newton, Warp or MuJoCo: gymlike subclasses
Newton's SolverMuJoCo (core/mjc.py) and calls these names as they are.
"""

from __future__ import annotations

# (owner, name, why gymlike needs it)
PRIVATE = (
    ("newton.solvers.SolverMuJoCo", "_apply_mjc_control",
     "Newton's control -> MuJoCo's ctrl / qfrc_applied / xfrc_applied (the C step's inputs)"),
    ("newton.solvers.SolverMuJoCo", "_update_newton_state",
     "MuJoCo's qpos / qvel -> Newton's joint and body states after a C step"),
    ("newton.solvers.SolverMuJoCo", "_update_mjc_data",
     "Newton's joint state -> MuJoCo's qpos / qvel of written worlds (and mocap roots)"),
    ("newton.solvers.SolverMuJoCo", "_update_kinematic_weld_references",
     "kinematic roots' weld references before a C step"),
    ("newton.solvers.SolverMuJoCo", "_resolve_joint_target_damping",
     "the last call of SolverMuJoCo's construction that receives its MjSpec: the C step keeps "
     "the spec to compile the same model with a force sensor (MuJoCo then computes cfrc_ext and "
     "cfrc_int, the source of contact forces, force sensors and DOF forces)"),
    ("newton._src.sim.articulation", "eval_articulation_motion_subspace",
     "joint motion subspaces for DOF forces on MuJoCo-Warp / XPBD (core/dynamics.py)"),
)


def resolve(owner, name):
    """The object `owner.name` (owner: a dotted module path, optionally ending in a class)."""
    import importlib
    parts = owner.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return getattr(obj, name)
    raise ImportError(owner)


# ---------------------------------------------------------------------------- SolverMuJoCo
def apply_control(solver, model, state, control, data):
    solver._apply_mjc_control(model, state, control, data)


def newton_state_from_mujoco(solver, model, state, data):
    solver._update_newton_state(model, state, data, state_prev=state)


def mujoco_from_newton_state(solver, model, state, data, world_mask):
    solver._update_mjc_data(data, model, state, world_mask=world_mask)
    solver._update_kinematic_weld_references()


def keeping_spec(cls):
    """Class decorator for a SolverMuJoCo subclass: its instances keep the MjSpec their MuJoCo
    model was compiled from in `mj_spec` (see PRIVATE: the hook is the last construction step
    that receives the spec; the subclass's own method calls Newton's unchanged)."""
    hook = "_resolve_joint_target_damping"

    def keep(self, spec, *args, **kwargs):
        self.mj_spec = spec
        return getattr(super(cls, self), hook)(spec, *args, **kwargs)
    setattr(cls, hook, keep)
    return cls


def motion_subspace_kernel():
    from newton._src.sim.articulation import eval_articulation_motion_subspace  # noqa: PLC0415
    return eval_articulation_motion_subspace
