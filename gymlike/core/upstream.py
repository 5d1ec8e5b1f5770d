"""The private names of Newton, Warp and rl_games that gymlike cannot avoid, in one place.

Newton marks `newton._src` and underscore names as unstable. gymlike uses them only through
this module; tests/project/test_upstream.py checks that every name listed in `PRIVATE` still exists, so
an upgrade that moves one fails that test naming it, rather than failing somewhere deep in a
simulation. Nothing here replaces a function of Newton, Warp or MuJoCo: gymlike subclasses
Newton's SolverMuJoCo (core/mjc.py) and calls these names as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    import newton
    import numpy as np
    import warp as wp

    from newton.solvers import SolverMuJoCo

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
    ("newton.solvers.SolverMuJoCo", "_mujoco_warp_step",
     "MuJoCo-Warp's step inside SolverMuJoCo.step, after Newton's control and state are written "
     "into mjw_data and before Newton's state is read back: PhysX's joint rows (DOF friction "
     "bounds, velocity limits) run right around it on the MuJoCo-Warp pipeline (core/mjw.py)"),
    ("newton.solvers.SolverMuJoCo", "_find_body_collision_filter_pairs",
     "the body pairs SolverMuJoCo's conversion turns into MuJoCo contact exclusions; with Newton's "
     "contacts MuJoCo's collision never runs, and adding them is cubic in the bodies of a world "
     "(each add_exclude rebuilds MjSpec.bodies twice): 130 s of Isaac Gym's actor_scaling.py, "
     "whose envs hold different actors in one world. MuJoCo-Warp with Newton's contacts skips "
     "them (core/mjw.py); the C step adds a one world's in one pass (core/mjc.py)"),
    ("newton.solvers.SolverMuJoCo", "_init_pairs",
     "the conversion step right after its exclusions, which receives the MjSpec and the shape -> "
     "geom names: the C step adds a one-world sim's exclusions there, in one pass (core/mjc.py)"),
    ("newton.solvers.SolverMuJoCo", "_set_const_0",
     "Newton's recomputation of MuJoCo's qpos0-dependent constants (inverse weights, tendon "
     "lengths, actuator accelerations) after a mass, inertia, armature, tendon or actuator "
     "change: MuJoCo-Warp's set_const_0 over every world, ~1,000 Warp launches (72 ms at 64 "
     "ShadowHands, 165 ms at 256, at every domain randomization). The C step computes them with "
     "MuJoCo C's mj_setConst on the worlds that changed where Newton's call reduces to that one "
     "(constants_on_c; the instance attributes _dampratio_actuators and _dampratio_invweight_ids "
     "say whether it does: tests/physics/test_c_constants.py fails when they are gone); both "
     "pipelines floor MuJoCo's contact weights after it (mjw.floor_contact_weights)"),
    ("newton._src.sim.articulation", "eval_articulation_motion_subspace",
     "joint motion subspaces for DOF forces on MuJoCo-Warp / XPBD (core/forces/dynamics.py)"),
    ("rl_games.common.a2c_common.A2CBase", "_preproc_obs",
     "an rl_games agent's observation preprocessing (normalisation) for gymlike's deterministic "
     "evaluation and play of rl_games checkpoints (gymlike/envs/training.py)"),
    ("newton._src.sensors.sensor_camera_render.types", "TextureData",
     "a texture of SensorCamera's per-shape texture table: body textures of set_rigid_body_texture "
     "(render/cameras.py; SensorCamera has no public call for it). With it, the table's private "
     "attributes _render_context, _texture_data_source, _texture_data, _shape_texture_ids "
     "(texture_table / set_texture_table below)"),
)


def resolve(owner: str, name: str) -> Any:
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
def apply_control(solver: SolverMuJoCo, model: newton.Model, state: newton.State, control: newton.Control,
                  data: Any) -> None:
    """Newton's control written into MuJoCo's inputs (ctrl, qfrc_applied, xfrc_applied) of `data`."""
    solver._apply_mjc_control(model, state, control, data)


def newton_state_from_mujoco(solver: SolverMuJoCo, model: newton.Model, state: newton.State,
                             data: Any) -> None:
    """MuJoCo's qpos / qvel of `data` read back into Newton's joint and body state."""
    solver._update_newton_state(model, state, data, state_prev=state)


def mujoco_from_newton_state(solver: SolverMuJoCo, model: newton.Model, state: newton.State, data: Any,
                             world_mask: wp.array | None) -> None:
    """Newton's joint state written into MuJoCo's qpos / qvel of the worlds in `world_mask`, and
    the kinematic roots' weld references updated."""
    solver._update_mjc_data(data, model, state, world_mask=world_mask)
    solver._update_kinematic_weld_references()


def keeping_spec(cls: type) -> type:
    """Class decorator for a SolverMuJoCo subclass: its instances keep the MjSpec their MuJoCo
    model was compiled from in `mj_spec` (see PRIVATE: the hook is the last construction step
    that receives the spec; the subclass's own method calls Newton's unchanged)."""
    hook = "_resolve_joint_target_damping"

    def keep(self, spec, *args, **kwargs):
        self.mj_spec = spec
        return getattr(super(cls, self), hook)(spec, *args, **kwargs)
    setattr(cls, hook, keep)
    return cls


def constants_on_c(cls: type) -> type:
    """Class decorator for a SolverMuJoCo subclass defining `set_constants()` -> bool and
    `constants_set()`: Newton's `_set_const_0` (see PRIVATE) first offers the work to
    `set_constants`, and runs unchanged where it returns False; `constants_set` follows either
    (mjw.floor_contact_weights). Newton's method reduces to MuJoCo-Warp's set_const_0 where no
    actuator has a dampratio to resolve and no body is kinematic (its lock of kinematic roots
    then adds nothing): `plain_set_const(solver)` says so."""
    hook = "_set_const_0"

    def set_const(self, lock_kinematic: bool = True):
        if not self.set_constants():
            getattr(super(cls, self), hook)(lock_kinematic)
        self.constants_set()
    setattr(cls, hook, set_const)
    return cls


def plain_set_const(solver: SolverMuJoCo) -> bool:
    """Whether Newton's `_set_const_0` of `solver` is MuJoCo-Warp's set_const_0 and nothing else
    (constants_on_c). Attributes Newton no longer has count as a reason to leave it to Newton;
    tests/physics/test_c_constants.py fails when they are gone."""
    import newton
    missing = object()
    acts = getattr(solver, "_dampratio_actuators", missing)
    ids = getattr(solver, "_dampratio_invweight_ids", missing)
    if acts is missing or ids is missing or acts or ids is not None:
        return False
    flags = solver.model.body_flags.numpy()
    return not (flags & int(newton.BodyFlags.KINEMATIC)).any()


def around_warp_step(cls: type) -> type:
    """Class decorator for a SolverMuJoCo subclass: its `before_warp_step()` and
    `after_warp_step()` run right before and after each MuJoCo-Warp step inside
    SolverMuJoCo.step (see PRIVATE; the subclass's method calls Newton's unchanged)."""
    hook = "_mujoco_warp_step"

    def step(self):
        self.before_warp_step()
        getattr(super(cls, self), hook)()
        self.after_warp_step()
    setattr(cls, hook, step)
    return cls


def no_excludes_with_newton_contacts(cls: type) -> type:
    """Class decorator for a SolverMuJoCo subclass whose instances set `newton_contacts` before
    SolverMuJoCo's construction: when it is true, the MuJoCo model gets no body exclusions (see
    PRIVATE: they filter MuJoCo's own collision detection, which then never runs; the contacts
    come from Newton's pipeline with Newton's filters). Otherwise Newton's method, unchanged."""
    hook = "_find_body_collision_filter_pairs"

    def pairs(self, *args, **kwargs):
        if self.newton_contacts:
            return []
        return getattr(super(cls, self), hook)(*args, **kwargs)
    setattr(cls, hook, pairs)
    return cls


def excludes_in_one_pass(cls: type) -> type:
    """Class decorator for a SolverMuJoCo subclass whose instances set `exclude_later` before
    SolverMuJoCo's construction and define `one_world_filters(model, shapes)` -> (contype =
    conaffinity per shape, body pairs to exclude): when `exclude_later` is true, Newton's
    conversion gets no body pairs from `_find_body_collision_filter_pairs` (which visits every
    body pair of the world in Python, and whose pairs the conversion adds one MuJoCo exclusion
    at a time, reading MjSpec.bodies twice each: cubic in the bodies of a world, see PRIVATE);
    `_init_pairs`, the conversion's next step that receives the spec, sets those masks on the
    colliding shapes' geoms and adds those exclusions, with the bodies' names read once. Pairs
    of bodies without colliding geoms are left out (an exclusion filters geoms; such a body has
    none). Otherwise Newton's methods, unchanged."""
    find, init = "_find_body_collision_filter_pairs", "_init_pairs"

    def pairs(self, model, bodies, shapes, *args, **kwargs):
        if not self.exclude_later:
            return getattr(super(cls, self), find)(model, bodies, shapes, *args, **kwargs)
        self.later_filters = (shapes, *self.one_world_filters(model, shapes))
        return []

    def init_pairs(self, model, spec, shape_mapping, *args, **kwargs):
        found, self.later_filters = getattr(self, "later_filters", None), None
        if found is not None:
            shapes, masks, excludes = found
            geoms = {g.name: (body.name, g) for body in spec.bodies for g in body.geoms}
            for s, m in zip(shapes.tolist(), masks.tolist()):
                name = shape_mapping.get(s)
                if name in geoms:
                    geom = geoms[name][1]
                    if geom.contype or geom.conaffinity:     # (Newton's visual-only geoms stay 0)
                        geom.contype = geom.conaffinity = int(m)
            shape_body = model.shape_body.numpy()
            body_name = {int(shape_body[s]): geoms[g][0] for s, g in shape_mapping.items() if g in geoms}
            for b1, b2 in excludes.tolist():
                n1, n2 = body_name.get(b1), body_name.get(b2)
                if n1 is not None and n2 is not None:
                    spec.add_exclude(bodyname1=n1, bodyname2=n2)
        return getattr(super(cls, self), init)(model, spec, shape_mapping, *args, **kwargs)
    setattr(cls, find, pairs)
    setattr(cls, init, init_pairs)
    return cls


def motion_subspace_kernel() -> Any:
    """Newton's private Warp kernel that evaluates joint motion subspaces."""
    from newton._src.sim.articulation import eval_articulation_motion_subspace  # noqa: PLC0415
    return eval_articulation_motion_subspace


# ---------------------------------------------------------------------------- SensorCamera textures
def texture_table(sensor: Any) -> tuple[list, np.ndarray]:
    """(TextureData list, shape -> texture index as numpy) of a SensorCamera's renderer."""
    rc = sensor._render_context
    return list(rc._texture_data_source), rc._shape_texture_ids.numpy()


def texture_data(texture: wp.Texture2D) -> Any:
    """A TextureData of a wp.Texture2D, repeated once over the shape's UVs."""
    import warp as wp
    data = resolve("newton._src.sensors.sensor_camera_render.types", "TextureData")()
    data.texture = texture
    data.repeat = wp.vec2f(1.0, 1.0)
    return data


def set_texture_table(sensor: Any, sources: list, ids: np.ndarray, device: str) -> None:
    """Install a texture table (as assign_checkerboard_material of Newton's SensorCamera does)."""
    import warp as wp
    TextureData = resolve("newton._src.sensors.sensor_camera_render.types", "TextureData")
    rc = sensor._render_context
    rc._texture_data_source = sources
    rc._texture_data = (wp.array(sources, dtype=TextureData, device=device) if sources
                        else wp.empty(0, dtype=TextureData, device=device))
    rc._shape_texture_ids = wp.array(ids, dtype=wp.int32, device=device)


# ---------------------------------------------------------------------------- rl_games
def rl_games_preproc_obs(agent: Any, obs: Any) -> Any:
    """The observation as the agent's model takes it (its running mean/std normalisation)."""
    return agent._preproc_obs(obs)
