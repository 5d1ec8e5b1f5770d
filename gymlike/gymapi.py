"""Isaac Gym's `gymapi` module: constants, value types and the Gym object.

Every Isaac Gym `Gym` method is defined here under its own name with one line of intent;
the work happens in `gymlike.core`. Methods gymlike cannot do yet raise NotImplementedError
with the reason (the compatibility table in python_bindings_docs/ is generated from them)."""

from __future__ import annotations

import time as _time

import numpy as _np

from .core import enums as _enums
from .core import handles as _handles
from .core import session as _session
from .core import stubs as _stubs
from .core import tendons as _tendons
from .core import tensors as _tensors   # (no Warp at import: the Gym calls of every env.step use it)
from .core.enums import *  # noqa: F401,F403  (constants: STATE_ALL, INVALID_HANDLE, ...)
from .core.enums import DofType as _DofType, IndexDomain as _IndexDomain, JointType as _JointType
from .core.errors import GymlikeError  # noqa: F401
from .core.errors import GymlikeTypeError as _TypeError, GymlikeValueError as _ValueError
from .core.types import (  # noqa: F401
    ActionEvent, ActuatorProperties, AssetOptions, AttractorProperties, CameraProperties,
    DofFrame, DofState, FlexParams, ForceSensorProperties, HeightFieldParams, IndexRange, Int2,
    Int3, Mat33, Mat44, OmniConnectionParams, ParticleState, PerformanceTimers, PhysXParams,
    PlaneParams, Quat, RigidBodyProperties, RigidBodyState, RigidContact, RigidShapeProperties,
    SimParams, SoftMaterial, SpatialForce, TendonProperties, Transform, TriangleMeshParams,
    UsdExportOptions, Vec2, Vec3, Velocity, Version, VhacdParams, cross, dot,
    eulers_to_quats_zyx, quats_to_eulers_zyx, rotate, rotate_inverse, transform,
    transform_inverse,
)
from .core.types import coerce as _coerce
from .core.runtime import serialized as _serialized, call_name

_enums.export_members(globals())

# Opaque handle types, as in Isaac Gym (isinstance checks in user code keep working).
from .core.assets.record import Asset  # noqa: E402,F401
from .core.sim import Env, Sim  # noqa: E402,F401


from .render.viewer import Viewer  # noqa: E402,F401


from .core.gym_tensor import GymTensor as Tensor  # noqa: E402


def _S():
    from .core import state
    return state


def _names_dict(names):
    return {n: i for i, n in enumerate(names)}


@_serialized
class Gym:
    """The Isaac Gym interface object (`gymapi.acquire_gym()`). Thread-safe: calls from several
    threads run one at a time."""

    # ================================================================== sims
    def create_sim(self, compute_device=0, graphics_device=0, type=_enums.SimType.SIM_FLEX, params=None):
        ("Create a simulation: SIM_PHYSX -> Newton MuJoCo solver, SIM_FLEX (Isaac Gym's default type) -> "
         "Newton XPBD (VBD with soft bodies or cloth).")
        from .core import engine
        return Sim(self, compute_device, graphics_device, type, params if params is not None else SimParams(),
                   engine, step_limit=_session.step_limit_for_new_sim(),
                   headless=_session.draws_nothing_but_cameras())

    def destroy_sim(self, sim):
        _handles.sim_of(sim).destroy()

    def add_ground(self, sim, params):
        _handles.sim_of(sim).add_ground(params)

    def prepare_sim(self, sim):
        """Finalize the Newton model and create the solver (buffers of the tensor API too)."""
        return _handles.sim_of(sim).prepare_sim()

    def simulate(self, sim):
        _handles.sim_of(sim).simulate()

    def fetch_results(self, sim, wait=True):
        """No-op: results are on the sim device as soon as simulate returns."""
        _handles.sim_of(sim)

    def get_sim_time(self, sim):
        return _handles.sim_of(sim).time

    def get_frame_count(self, sim):
        return _handles.sim_of(sim).frame

    def get_elapsed_time(self, sim):
        return _time.perf_counter() - _handles.sim_of(sim).start_wall

    def get_sim_params(self, sim):
        return _handles.sim_of(sim).params.copy()

    def set_sim_params(self, sim, params):
        _handles.sim_of(sim).set_params(params)

    def get_version(self):
        return Version(major=1, minor=4)

    # ================================================================== assets
    def load_asset(self, sim, rootpath, filename, options=None):
        """Load a URDF (.urdf), MJCF (.xml) or USD (.usd/.usda/.usdc) file, parsed once."""
        from .core.assets.load import load_asset_file
        return _register(sim, load_asset_file(_handles.sim_of(sim), rootpath, filename, options))

    def load_urdf(self, sim, rootpath, filename, options=None):
        from .core.assets.load import load_asset_file
        return _register(sim, load_asset_file(_handles.sim_of(sim), rootpath, filename, options, "urdf"))

    def load_mjcf(self, sim, rootpath, filename, options=None):
        from .core.assets.load import load_asset_file
        return _register(sim, load_asset_file(_handles.sim_of(sim), rootpath, filename, options, "mjcf"))

    def load_usd(self, sim, rootpath, filename, options=None):
        from .core.assets.load import load_asset_file
        return _register(sim, load_asset_file(_handles.sim_of(sim), rootpath, filename, options, "usd"))

    def create_box(self, sim, width, height, depth, options=None):
        from .core.assets.load import create_primitive
        return _register(sim, create_primitive(_handles.sim_of(sim), "box",
                                               dict(width=width, height=height, depth=depth), options))

    def create_sphere(self, sim, radius, options=None):
        from .core.assets.load import create_primitive
        return _register(sim, create_primitive(_handles.sim_of(sim), "sphere", dict(radius=radius), options))

    def create_capsule(self, sim, radius, width, options=None):
        """Capsule along X; `width` is the length of its cylindrical part."""
        from .core.assets.load import create_primitive
        return _register(sim, create_primitive(_handles.sim_of(sim), "capsule",
                                               dict(radius=radius, width=width), options))

    def debug_print_asset(self, asset, outpath=None):
        """Print the asset's bodies, joints, DOFs and shapes (to a file if outpath is given)."""
        text = _handles.asset_of(asset).describe()
        if outpath:
            with open(outpath, "w") as f:
                f.write(text + "\n")
        else:
            print(text)

    def get_asset_rigid_body_count(self, asset):
        return _handles.asset_of(asset).body_count

    def get_asset_rigid_body_names(self, asset):
        return list(_handles.asset_of(asset).body_names)

    def get_asset_rigid_body_name(self, asset, index):
        a = _handles.asset_of(asset)
        return a.body_names[_handles.index(index, a.body_count, kind="body")]

    def get_asset_rigid_body_dict(self, asset):
        return _names_dict(_handles.asset_of(asset).body_names)

    def find_asset_rigid_body_index(self, asset, name):
        return _handles.asset_of(asset).body_index(_handles.name_of(name))

    def get_asset_rigid_shape_count(self, asset):
        return _handles.asset_of(asset).shape_count

    def get_asset_rigid_body_shape_indices(self, asset):
        a = _handles.asset_of(asset)
        return [IndexRange(start=int(s), count=int(c)) for s, c in zip(a.body_shape_start, a.body_shape_count)]

    def get_asset_dof_count(self, asset):
        return _handles.asset_of(asset).dof_count

    def get_asset_dof_names(self, asset):
        return list(_handles.asset_of(asset).dof_names)

    def get_asset_dof_name(self, asset, index):
        a = _handles.asset_of(asset)
        return a.dof_names[_handles.index(index, a.dof_count, kind="dof")]

    def get_asset_dof_dict(self, asset):
        return _names_dict(_handles.asset_of(asset).dof_names)

    def get_asset_dof_type(self, asset, index):
        a = _handles.asset_of(asset)
        return a.dof_types[_handles.index(index, a.dof_count, kind="dof")]

    def find_asset_dof_index(self, asset, name):
        return _handles.asset_of(asset).dof_index(_handles.name_of(name))

    def get_asset_joint_count(self, asset):
        return _handles.asset_of(asset).joint_count

    def get_asset_joint_names(self, asset):
        return list(_handles.asset_of(asset).joint_names)

    def get_asset_joint_name(self, asset, index):
        a = _handles.asset_of(asset)
        return a.joint_names[_handles.index(index, a.joint_count, kind="joint")]

    def get_asset_joint_dict(self, asset):
        return _names_dict(_handles.asset_of(asset).joint_names)

    def get_asset_joint_type(self, asset, index):
        a = _handles.asset_of(asset)
        return a.joint_types[_handles.index(index, a.joint_count, kind="joint")]

    def find_asset_joint_index(self, asset, name):
        return _handles.asset_of(asset).joint_index(_handles.name_of(name))

    def get_dof_type_string(self, dof_type):
        return {_DofType.DOF_ROTATION: "Rotation", _DofType.DOF_TRANSLATION: "Translation"}.get(
            _handles.enum_of(_DofType, dof_type, name="dof_type"), "Invalid")

    def get_joint_type_string(self, joint_type):
        return {_JointType.JOINT_FIXED: "Fixed", _JointType.JOINT_REVOLUTE: "Revolute",
                _JointType.JOINT_PRISMATIC: "Prismatic", _JointType.JOINT_BALL: "Ball",
                _JointType.JOINT_PLANAR: "Planar", _JointType.JOINT_FLOATING: "Floating"}.get(
            _handles.enum_of(_JointType, joint_type, name="joint_type"), "Invalid")

    # tendons, actuators, soft bodies: Isaac Gym's MJCF tendons and PhysX soft bodies
    def get_asset_tendon_count(self, asset):
        """Number of fixed tendons (MJCF <tendon><fixed>) of an asset."""
        return len(_tendons.of_asset(asset).names)

    def get_asset_tendon_name(self, asset, index):
        """Name of an asset's fixed tendon."""
        t = _tendons.of_asset(asset)
        return t.names[_handles.index(index, len(t.names), kind="tendon")]

    def get_asset_tendon_properties(self, asset):
        """Fixed-tendon properties of an asset (file values, limit_stiffness from AssetOptions)."""
        return _tendons.copy_props(_tendons.of_asset(asset).props)

    def set_asset_tendon_properties(self, asset, props):
        """Set an asset's fixed-tendon properties (for actors created afterwards)."""
        t = _tendons.of_asset(asset)
        t.props = _tendons.check_props(props, len(t.names))
        return True

    def find_asset_tendon_index(self, asset, name):
        """Index of a named fixed tendon of an asset, or -1."""
        t = _tendons.of_asset(asset)
        name = _handles.name_of(name)
        return t.names.index(name) if name in t.names else -1

    def get_asset_fixed_tendon_joint_coefficients(self, asset, index):
        """Joint coefficients of an asset's fixed tendon (length = sum of coef * joint position)."""
        t = _tendons.of_asset(asset)
        return t.coefs[_handles.index(index, len(t.names), kind="tendon")].tolist()

    def get_asset_fixed_tendon_joint_name(self, asset, tendon, joint):
        """Name of a joint of an asset's fixed tendon."""
        t = _tendons.of_asset(asset)
        k = _handles.index(tendon, len(t.names), kind="tendon")
        return t.joint_names[k][_handles.index(joint, len(t.joint_names[k]), kind="joint")]

    def set_asset_fixed_tendon_joint_coefficients(self, asset, index, coefficients):
        """Set the joint coefficients of an asset's fixed tendon (before actors of it exist)."""
        _tendons.set_coefficients(asset, index, coefficients)
        return True

    def get_asset_actuator_count(self, asset):
        return len(_handles.asset_of(asset).actuators)

    def get_asset_actuator_name(self, asset, index):
        a = _handles.asset_of(asset)
        return a.actuators[_handles.index(index, len(a.actuators), kind="actuator")]["name"]

    def get_asset_actuator_joint_name(self, asset, index):
        a = _handles.asset_of(asset)
        return a.actuators[_handles.index(index, len(a.actuators), kind="actuator")]["joint"]

    def get_asset_actuator_properties(self, asset):
        """MJCF actuators: gear as motor_effort, control and force ranges (Isaac Gym applies none of it itself)."""
        return [_actuator_props(x) for x in _handles.asset_of(asset).actuators]

    def find_asset_actuator_index(self, asset, name):
        names = [x["name"] for x in _handles.asset_of(asset).actuators]
        return names.index(name) if name in names else INVALID_HANDLE  # noqa: F405

    def get_asset_soft_body_count(self, asset):
        """Soft bodies of an asset (URDF links with <fem>, tet and cloth grids)."""
        return len(_handles.asset_of(asset).soft_bodies)

    def get_asset_soft_materials(self, asset):
        """Copies of the asset's soft materials (one per soft body)."""
        import copy
        return [copy.deepcopy(sb.material) for sb in _handles.asset_of(asset).soft_bodies]

    # ================================================================== envs
    def create_env(self, sim, lower, upper, num_per_row):
        """Create an env (one Newton world) on Isaac Gym's grid of env origins."""
        return _handles.sim_of(sim).create_env(lower, upper, num_per_row)

    def get_env(self, sim, index):
        s = _handles.sim_of(sim)
        return s.envs[_handles.index(index, len(s.envs), kind="env")]

    def get_env_count(self, sim):
        return len(_handles.sim_of(sim).envs)

    def get_env_origin(self, env):
        o = _handles.env_of(env).origin
        return Vec3(*o)

    def begin_aggregate(self, env, max_bodies, max_shapes, self_collisions):
        """Aggregates are PhysX broad-phase groups; gymlike validates and records them only."""
        _handles.env_of(env).begin_aggregate(max_bodies, max_shapes, self_collisions)
        return True

    def end_aggregate(self, env):
        _handles.env_of(env).end_aggregate()
        return True

    def create_aggregate(self, env, actors):
        _handles.env_of(env)
        return True

    def get_env_rigid_body_count(self, env):
        return _handles.env_of(env).body_count

    def get_env_dof_count(self, env):
        return _handles.env_of(env).dof_count

    def get_env_joint_count(self, env):
        return _handles.env_of(env).joint_count

    # ================================================================== actors
    def create_actor(self, env, asset, pose, name=None, group=-1, filter=-1, segmentationId=0):
        """Place an asset in an env; group/filter follow Isaac Gym's collision semantics."""
        e = _handles.env_of(env)
        return e.sim.create_actor(e, asset, pose, name, group, 0 if filter == -1 else filter, segmentationId)

    def get_actor_count(self, env):
        return len(_handles.env_of(env).actors)

    def get_sim_actor_count(self, sim):
        return _handles.sim_of(sim).total("actor")

    def get_actor_name(self, env, actor):
        return _handles.actor_of(env, actor).name

    def get_actor_handle(self, env, index):
        e = _handles.env_of(env)
        return _handles.index(index, len(e.actors), kind="actor")

    def find_actor_handle(self, env, name):
        e = _handles.env_of(env)
        for a in e.actors:
            if a.name == name:
                return a.handle
        return INVALID_HANDLE  # noqa: F405

    def get_actor_index(self, env, actor, domain):
        a = _handles.actor_of(env, actor)
        d = _handles.domain_of(domain)
        return a.sim_index if d == _IndexDomain.DOMAIN_SIM else a.handle

    def find_actor_index(self, env, name, domain):
        h = self.find_actor_handle(env, name)
        return h if h < 0 else self.get_actor_index(env, h, domain)

    def get_actor_asset(self, env, actor):
        return _handles.actor_of(env, actor).asset

    def get_actor_rigid_body_count(self, env, actor):
        return _handles.actor_of(env, actor).asset.body_count

    def get_actor_rigid_body_names(self, env, actor):
        return list(_handles.actor_of(env, actor).asset.body_names)

    def get_actor_rigid_body_dict(self, env, actor):
        return _names_dict(_handles.actor_of(env, actor).asset.body_names)

    def get_actor_rigid_body_handle(self, env, actor, index):
        """Rigid body handle = its DOMAIN_ENV index."""
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "body", _handles.local_of(a, "body", index))

    def get_actor_rigid_body_index(self, env, actor, index, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.local_of(a, "body", index), "body", domain)

    def find_actor_rigid_body_handle(self, env, actor, name):
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "body", _handles.find_local(a, "body", name))

    def find_actor_rigid_body_index(self, env, actor, name, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.find_local(a, "body", name), "body", domain)

    def get_actor_root_rigid_body_handle(self, env, actor):
        return _handles.actor_of(env, actor).body0

    def get_rigid_handle(self, env, actor_name, body_name):
        h = self.find_actor_handle(env, actor_name)
        return h if h < 0 else self.find_actor_rigid_body_handle(env, h, body_name)

    def get_rigid_name(self, env, handle):
        a, i = _handles.actor_at(_handles.env_of(env), handle, "body")
        return a.asset.body_names[i]

    def get_actor_rigid_shape_count(self, env, actor):
        return _handles.actor_of(env, actor).asset.shape_count

    def get_actor_rigid_body_shape_indices(self, env, actor):
        a = _handles.actor_of(env, actor)
        return [IndexRange(start=int(a.shape0 + s), count=int(c))
                for s, c in zip(a.asset.body_shape_start, a.asset.body_shape_count)]

    def get_actor_joint_count(self, env, actor):
        return _handles.actor_of(env, actor).asset.joint_count

    def get_actor_joint_names(self, env, actor):
        return list(_handles.actor_of(env, actor).asset.joint_names)

    def get_actor_joint_dict(self, env, actor):
        return _names_dict(_handles.actor_of(env, actor).asset.joint_names)

    def get_actor_joint_handle(self, env, actor, index):
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "joint", _handles.local_of(a, "joint", index))

    def get_actor_joint_index(self, env, actor, index, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.local_of(a, "joint", index), "joint", domain)

    def find_actor_joint_handle(self, env, actor, name):
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "joint", _handles.find_local(a, "joint", name))

    def find_actor_joint_index(self, env, actor, name, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.find_local(a, "joint", name), "joint", domain)

    def get_joint_handle(self, env, actor_name, joint_name):
        h = self.find_actor_handle(env, actor_name)
        return h if h < 0 else self.find_actor_joint_handle(env, h, joint_name)

    def get_joint_name(self, env, handle):
        a, i = _handles.actor_at(_handles.env_of(env), handle, "joint")
        return a.asset.joint_names[i]

    def get_actor_dof_count(self, env, actor):
        return _handles.actor_of(env, actor).asset.dof_count

    def get_actor_dof_names(self, env, actor):
        return list(_handles.actor_of(env, actor).asset.dof_names)

    def get_actor_dof_dict(self, env, actor):
        return _names_dict(_handles.actor_of(env, actor).asset.dof_names)

    def get_actor_dof_handle(self, env, actor, index):
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "dof", _handles.local_of(a, "dof", index))

    def get_actor_dof_index(self, env, actor, index, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.local_of(a, "dof", index), "dof", domain)

    def find_actor_dof_handle(self, env, actor, name):
        a = _handles.actor_of(env, actor)
        return _handles.handle_of(a, "dof", _handles.find_local(a, "dof", name))

    def find_actor_dof_index(self, env, actor, name, domain):
        a = _handles.actor_of(env, actor)
        return _handles.to_domain(a, _handles.find_local(a, "dof", name), "dof", domain)

    def get_sim_rigid_body_count(self, sim):
        return _handles.sim_of(sim).total("body")

    def get_sim_dof_count(self, sim):
        return _handles.sim_of(sim).total("dof")

    def get_sim_joint_count(self, sim):
        return _handles.sim_of(sim).total("joint")

    # ================================================================== state (handle API, core/state.py)
    def get_actor_rigid_body_states(self, env, actor, flags):
        """Rigid body states of an actor, env frame (structured array of RigidBodyState.dtype)."""
        return _S().actor_body_states(_handles.actor_of(env, actor), flags)

    def set_actor_rigid_body_states(self, env, actor, states, flags):
        """Set an actor's body states (env frame); joints follow (root moves, DOFs from link poses)."""
        return _S().set_actor_body_states_checked(_handles.actor_of(env, actor), states, flags)

    def get_env_rigid_body_states(self, env, flags):
        return _S().env_body_states(_handles.env_of(env), flags)

    def set_env_rigid_body_states(self, env, states, flags):
        return _S().set_env_body_states(_handles.env_of(env), states, flags)

    def get_sim_rigid_body_states(self, sim, flags):
        """All rigid body states, each in its env's frame (as the rigid body state tensor)."""
        return _S().sim_body_states(_handles.sim_of(sim), flags)

    def set_sim_rigid_body_states(self, sim, states, flags):
        return _S().set_sim_body_states(_handles.sim_of(sim), states, flags)

    def get_actor_dof_states(self, env, actor, flags):
        return _S().actor_dof_states(_handles.actor_of(env, actor), flags)

    def set_actor_dof_states(self, env, actor, states, flags):
        return _S().set_actor_dof_states_checked(_handles.actor_of(env, actor), states, flags)

    def get_vec_actor_dof_states(self, envs, actors, flags):
        """DOF states of one actor (or one actor per env) across several envs, concatenated."""
        pairs = _handles.env_actor_pairs(envs, actors)
        parts = [_S().actor_dof_states(_handles.actor_of(e, a), flags) for e, a in pairs]
        return _np.concatenate(parts) if parts else _np.zeros(0, DofState.dtype)

    def get_actor_joint_transforms(self, env, actor):
        """World-to-env transforms of the actor's joint frames (Transform.dtype array)."""
        return _S().actor_joint_transforms(_handles.actor_of(env, actor))

    def get_joint_transform(self, env, handle):
        a, i = _handles.actor_at(_handles.env_of(env), handle, "joint")
        t = _S().actor_joint_transforms(a)[i]
        return Transform(Vec3(*t["p"].tolist()), Quat(*t["r"].tolist()))

    def get_actor_dof_frames(self, env, actor):
        """Origin (env frame) and world axis of each DOF (DofFrame.dtype array)."""
        return _S().actor_dof_frames(_handles.actor_of(env, actor))

    def get_dof_frame(self, env, handle):
        a, i = _handles.actor_at(_handles.env_of(env), handle, "dof")
        f = _S().actor_dof_frames(a)[i]
        return DofFrame(Vec3(*f["origin"].tolist()), Vec3(*f["axis"].tolist()))

    def get_rigid_transform(self, env, handle):
        st = _S().body_state(_handles.env_of(env), handle, STATE_POS)  # noqa: F405
        return Transform(Vec3(*st["pose"]["p"].tolist()), Quat(*st["pose"]["r"].tolist()))

    def get_rigid_linear_velocity(self, env, handle):
        return Vec3(*_S().body_state(_handles.env_of(env), handle, STATE_VEL)["vel"]["linear"].tolist())  # noqa: F405

    def get_rigid_angular_velocity(self, env, handle):
        return Vec3(*_S().body_state(_handles.env_of(env), handle, STATE_VEL)["vel"]["angular"].tolist())  # noqa: F405

    def set_rigid_transform(self, env, handle, transform):  # noqa: F811  (Isaac Gym's argument name)
        t = _coerce(Transform, transform)
        _S().set_body_field(_handles.env_of(env), handle, lambda row: row.__setitem__(
            "pose", (t.p.to_tuple(), t.r.to_tuple())))

    def set_rigid_linear_velocity(self, env, handle, velocity):
        v = _coerce(Vec3, velocity)
        _S().set_body_field(_handles.env_of(env), handle, lambda row: row["vel"].__setitem__("linear", v.to_tuple()))

    def set_rigid_angular_velocity(self, env, handle, velocity):
        v = _coerce(Vec3, velocity)
        _S().set_body_field(_handles.env_of(env), handle, lambda row: row["vel"].__setitem__("angular", v.to_tuple()))

    def get_vec_rigid_transform(self, envs, handles):
        """Pose of one body per env (env frame), as a Transform.dtype array."""
        return _S().vec_body_poses(_handles.env_actor_pairs(envs, handles))

    def get_vec_rigid_linear_velocity(self, envs, handles):
        return _np.array([tuple(_S().body_state(_handles.env_of(e), h, STATE_VEL)["vel"]["linear"])  # noqa: F405
                          for e, h in _handles.env_actor_pairs(envs, handles)], Vec3.dtype)

    def get_vec_rigid_angular_velocity(self, envs, handles):
        return _np.array([tuple(_S().body_state(_handles.env_of(e), h, STATE_VEL)["vel"]["angular"])  # noqa: F405
                          for e, h in _handles.env_actor_pairs(envs, handles)], Vec3.dtype)

    # ================================================================== tensor API (core/tensors.py)
    def acquire_actor_root_state_tensor(self, sim):
        """(num_actors, 13) root states: position, quaternion xyzw, linear and angular velocity."""
        t = _tensors.api(_handles.sim_of(sim))
        return t.buffer("root", (t.n_act, 13), t.refresh_roots)

    def acquire_rigid_body_state_tensor(self, sim):
        """(num_bodies, 13) rigid body states, positions in each env's frame."""
        t = _tensors.api(_handles.sim_of(sim))
        return t.buffer("body", (t.n_body, 13), t.refresh_bodies)

    def acquire_dof_state_tensor(self, sim):
        """(num_dofs, 2) DOF positions and velocities."""
        t = _tensors.api(_handles.sim_of(sim))
        return t.buffer("dof", (t.n_dof, 2), t.refresh_dofs)

    def refresh_actor_root_state_tensor(self, sim):
        return _refresh(sim, "root")

    def refresh_rigid_body_state_tensor(self, sim):
        return _refresh(sim, "body")

    def refresh_dof_state_tensor(self, sim):
        return _refresh(sim, "dof")

    def set_actor_root_state_tensor(self, sim, root_states):
        """Write every actor's root state (floating: pose and velocity; fixed base: pose)."""
        return _tensors.api(_handles.sim_of(sim)).set_roots(root_states, _tensors.ALL, None)

    def set_actor_root_state_tensor_indexed(self, sim, root_states, actor_indices, num_indices):
        """Write the root states of the listed actors only (int32 DOMAIN_SIM actor indices)."""
        return _tensors.api(_handles.sim_of(sim)).set_roots(root_states, actor_indices, num_indices)

    def set_dof_state_tensor(self, sim, dof_states):
        return _tensors.api(_handles.sim_of(sim)).set_dof_states(dof_states, _tensors.ALL, None)

    def set_dof_state_tensor_indexed(self, sim, dof_states, actor_indices, num_indices):
        """Write the DOF states of the listed actors (actors without DOFs are skipped)."""
        return _tensors.api(_handles.sim_of(sim)).set_dof_states(dof_states, actor_indices, num_indices)

    def set_dof_position_target_tensor(self, sim, targets):
        return _set_dof_values(sim, "pos_target", targets)

    def set_dof_position_target_tensor_indexed(self, sim, targets, actor_indices, num_indices):
        return _set_dof_values(sim, "pos_target", targets, indexed=(actor_indices, num_indices))

    def set_dof_velocity_target_tensor(self, sim, targets):
        return _set_dof_values(sim, "vel_target", targets)

    def set_dof_velocity_target_tensor_indexed(self, sim, targets, actor_indices, num_indices):
        return _set_dof_values(sim, "vel_target", targets, indexed=(actor_indices, num_indices))

    def set_dof_actuation_force_tensor(self, sim, forces):
        """Efforts for every DOF (DOF_MODE_EFFORT DOFs), applied during the next simulate only."""
        return _set_dof_values(sim, "actuation", forces)

    def set_dof_actuation_force_tensor_indexed(self, sim, forces, actor_indices, num_indices):
        return _set_dof_values(sim, "actuation", forces, indexed=(actor_indices, num_indices))

    def set_rigid_body_state_tensor(self, sim, states):
        """Write every body's state; joints follow (both engines; Isaac Gym allowed it on Flex only)."""
        return _tensors.api(_handles.sim_of(sim)).set_bodies(states)

    def apply_rigid_body_force_tensors(self, sim, forceTensor=None, torqueTensor=None,
                                       space=_enums.CoordinateSpace.ENV_SPACE):
        """Add (num_bodies, 3) forces and/or torques at the COMs for the next simulate."""
        return _tensors.api(_handles.sim_of(sim)).apply_forces(forceTensor, torqueTensor, None, space)

    def apply_rigid_body_force_at_pos_tensors(self, sim, forceTensor, posTensor=None,
                                              space=_enums.CoordinateSpace.ENV_SPACE):
        """Add forces applied at positions (at the COMs when posTensor is None) for the next simulate."""
        return _tensors.api(_handles.sim_of(sim)).apply_forces(forceTensor, None, posTensor, space)

    # ---------------------------------------------------------------- forces, sensors, dynamics
    # (definitions and engine notes: core/forces/dynamics.py, core/forces/contacts.py, docs/tensor_api.md)
    def acquire_dof_force_tensor(self, sim):
        """(num_dofs,) force/torque each DOF's joint transmits (last substep of the last simulate)."""
        return _tensors.api(_handles.sim_of(sim)).acquire_dof_forces()

    def refresh_dof_force_tensor(self, sim):
        return _refresh(sim, "dof_force")

    def acquire_net_contact_force_tensor(self, sim):
        """(num_bodies, 3) net contact force on each body, world frame (last substep of the last simulate)."""
        return _tensors.api(_handles.sim_of(sim)).acquire_net_contact_forces()

    def refresh_net_contact_force_tensor(self, sim):
        return _refresh(sim, "net_contact")

    def acquire_force_sensor_tensor(self, sim):
        """(num_force_sensors, 6) force and torque of every force sensor (sensor frame unless use_world_frame)."""
        return _tensors.api(_handles.sim_of(sim)).acquire_force_sensors()

    def refresh_force_sensor_tensor(self, sim):
        return _refresh(sim, "force_sensor")

    def acquire_jacobian_tensor(self, sim, actor_name):
        """(num_envs, links, 6, dofs+6) floating base / (num_envs, links-1, 6, dofs) fixed base, COM linear rows."""
        return _tensors.api(_handles.sim_of(sim)).acquire_jacobian(actor_name)

    def refresh_jacobian_tensors(self, sim):
        return _refresh(sim, "jacobian")

    def acquire_mass_matrix_tensor(self, sim, actor_name):
        """(num_envs, dofs(+6), dofs(+6)) joint-space mass matrix (with armature) of the named actor."""
        return _tensors.api(_handles.sim_of(sim)).acquire_mass_matrix(actor_name)

    def refresh_mass_matrix_tensors(self, sim):
        return _refresh(sim, "mass")

    def enable_actor_dof_force_sensors(self, env, actor):
        """Accepted for compatibility: gymlike reports DOF forces of every actor (no per-actor switch)."""
        _handles.actor_of(env, actor)
        return True

    def get_actor_dof_forces(self, env, actor):
        """The actor's DOF forces (same values as the DOF force tensor)."""
        from .core.forces import dynamics as _dynamics
        return _dynamics.actor_dof_forces_host(_handles.actor_of(env, actor))

    def create_asset_force_sensor(self, asset, body_idx, local_pose=None, props=None):
        """Define a force sensor on an asset body (actors created afterwards carry it); returns its asset index."""
        from .core.forces import contacts as _contacts
        return _contacts.create_asset_force_sensor(_handles.asset_of(asset), body_idx, local_pose, props)

    def get_actor_force_sensor_count(self, env, actor):
        from .core.forces import contacts as _contacts
        return len(_contacts.actor_sensors(_handles.actor_of(env, actor)))

    def get_actor_force_sensor(self, env, actor, index):
        """A ForceSensor (get_forces(), get_global_index()) of the actor."""
        from .core.forces import contacts as _contacts
        return _contacts.actor_force_sensor(_handles.actor_of(env, actor), index)

    def get_sim_force_sensor_count(self, sim):
        from .core.forces import contacts as _contacts
        return _contacts.sim_force_sensor_count(_handles.sim_of(sim))

    def get_env_rigid_contact_forces(self, env):
        """Net contact force on each body of the env (Vec3 array, world frame)."""
        from .core.forces import contacts as _contacts
        return _contacts.env_contact_forces(_handles.env_of(env))

    def get_rigid_contact_forces(self, sim):
        """Net contact force on each body of the sim (Vec3 array, world frame)."""
        from .core.forces import contacts as _contacts
        return _contacts.sim_contact_forces(_handles.sim_of(sim))

    def get_vec_env_rigid_contact_forces(self, envs):
        """Net contact forces of the listed envs' bodies, concatenated (Vec3 array)."""
        from .core.forces import contacts as _contacts
        return _contacts.vec_env_contact_forces(_handles.envs_of(envs))

    def get_env_rigid_contacts(self, env):
        """RigidContact records of the env's contacts in the last simulate (on MuJoCo C: at the current state)."""
        from .core.forces import contacts as _contacts
        env = _handles.env_of(env)
        return _contacts.rigid_contacts(env.sim, env)

    def get_rigid_contacts(self, sim):
        """RigidContact records of every contact in the last simulate (on MuJoCo C: at the current state)."""
        from .core.forces import contacts as _contacts
        return _contacts.rigid_contacts(_handles.sim_of(sim), None)

    # ================================================================== properties (handle API)
    def get_asset_dof_properties(self, asset):
        """DOF properties of an asset (file values and AssetOptions), a structured array."""
        return _handles.asset_of(asset).dof_props.copy()

    def get_actor_dof_properties(self, env, actorHandle):
        """DOF properties the sim uses for an actor (hasLimits, lower, upper, driveMode, ...)."""
        return _handles.actor_of(env, actorHandle).dof_props.copy()

    def set_actor_dof_properties(self, env, actorHandle, props):
        """Set an actor's DOF properties (before or after prepare_sim; the solver is told)."""
        from .core import props as _props
        a = _handles.actor_of(env, actorHandle)
        _props.set_actor_dof_props(a, _props.check_dof_props(props, a.asset.dof_count))
        return True

    def get_actor_rigid_body_properties(self, env, actorHandle):
        """Mass, COM, inertia (about the COM, body frame), their inverses and flags per body."""
        from .core import props as _props
        return _props.body_props_list(_handles.actor_of(env, actorHandle))

    def set_actor_rigid_body_properties(self, env, actorHandle, props, recomputeInertia=False):
        """Set mass/COM/inertia/flags per body; recomputeInertia scales inertia with a mass change."""
        from .core import props as _props
        a = _handles.actor_of(env, actorHandle)
        _props.set_actor_body_props(a, *_props.check_body_props(a, props, bool(recomputeInertia)))
        return True

    def get_actor_rigid_shape_properties(self, env, actorHandle):
        """Friction, restitution, offsets, filter ... of the actor's collision shapes."""
        from .core import props as _props
        return _props.shape_props_list(_handles.actor_of(env, actorHandle).shape_props)

    def set_actor_rigid_shape_properties(self, env, actorHandle, props):
        """Set the actor's shape properties (filters only before prepare_sim)."""
        from .core import props as _props
        a = _handles.actor_of(env, actorHandle)
        _props.set_actor_shape_props(a, _props.check_shape_props(props, a.asset.shape_count))
        return True

    def get_asset_rigid_shape_properties(self, asset):
        """Shape properties of an asset (templates for actors created from it)."""
        from .core import props as _props
        return _props.shape_props_list(_handles.asset_of(asset).shape_props)

    def set_asset_rigid_shape_properties(self, asset, props):
        """Shape properties of an asset: used by actors created from it afterwards."""
        from .core import props as _props
        a = _handles.asset_of(asset)
        a.shape_props[:] = _props.check_shape_props(props, a.shape_count)
        return True

    def set_actor_scale(self, env, actorHandle, scale):
        """Scale an actor (geometry, mass s^3, inertia s^5, joint positions, prismatic limits), also at runtime.

        After prepare_sim on SIM_PHYSX (MuJoCo), actors with mesh, convex-hull or cone colliders, tendons or
        equality constraints raise NotImplementedError (MuJoCo cannot resize them once compiled)."""
        from .core import props as _props
        _props.set_actor_scale(_handles.actor_of(env, actorHandle), scale)
        return True

    def get_actor_scale(self, env, actorHandle):
        """The scale set with set_actor_scale (1.0 by default)."""
        return _handles.actor_of(env, actorHandle).scale

    def set_rigid_body_color(self, env, actorHandle, rigidIndex, meshType, color):
        """Store a body's color for rendering (MESH_VISUAL, MESH_COLLISION or both)."""
        _looks().set_color(_handles.actor_of(env, actorHandle), rigidIndex, meshType, color)

    def get_rigid_body_color(self, env, actorHandle, rigidIndex, meshType):
        """A body's color: the one set, else the asset's."""
        return _looks().color(_handles.actor_of(env, actorHandle), rigidIndex, meshType)

    def reset_actor_materials(self, env, actorHandle, meshType):
        """Forget the colors set on the actor's bodies for that mesh type (back to the asset's)."""
        _looks().reset_materials(_handles.actor_of(env, actorHandle), meshType)

    def set_rigid_body_segmentation_id(self, env, actorHandle, rigidIndex, segmentationId):
        """Store a body's segmentation id (camera segmentation images)."""
        _looks().set_segmentation_id(_handles.actor_of(env, actorHandle), rigidIndex, segmentationId)

    def get_rigid_body_segmentation_id(self, env, actorHandle, rigidIndex):
        """A body's segmentation id: the one set, else the actor's segmentationId."""
        return _looks().segmentation_id(_handles.actor_of(env, actorHandle), rigidIndex)

    # ================================================================== cameras, textures, light
    # Newton's ray-traced SensorCamera; conventions in gymlike/render/cameras.py and
    # python_bindings_docs/cameras.md
    def create_camera_sensor(self, env, properties):
        """A camera sensor in `env` (handle: its index among the env's cameras)."""
        C = _cameras()
        env = C.env_check(None, env)
        return C.system(env.sim).create(env, properties)

    def destroy_camera_sensor(self, sim, env, camera_handle):
        """Stop rendering a camera (its handle is not reused)."""
        cam, cams = _camera_of(sim, env, camera_handle)
        cams.destroy(cam)

    def set_camera_location(self, camera_handle, env, position, target):
        """Place a camera at `position` looking at `target` (env frame); detaches it from a body."""
        cam, cams = _camera_of(None, env, camera_handle)
        cams.set_location(cam, position, target)

    def set_camera_transform(self, camera_handle, env, transform):  # noqa: F811  (Isaac Gym's argument name)
        """Camera pose: in the env frame, or relative to its body when attached (+X looks forward)."""
        cam, cams = _camera_of(None, env, camera_handle)
        cams.set_transform(cam, transform)

    def attach_camera_to_body(self, camera_handle, env, body_handle, transform, follow_mode):  # noqa: F811
        """Carry a camera on a rigid body (env-domain body handle) at `transform` from it."""
        cam, cams = _camera_of(None, env, camera_handle)
        cams.attach(cam, body_handle, transform, follow_mode)

    def get_camera_transform(self, sim, env, camera_handle):
        """Camera pose in the env frame (+X looks forward, +Z up)."""
        cam, cams = _camera_of(sim, env, camera_handle)
        p, q = cams.world_pose(cam)
        p = p - env.origin
        return Transform(Vec3(*p), Quat(*q))

    def get_camera_view_matrix(self, sim, env, camera_handle):
        """4x4 float32 view matrix, row-vector convention, sim frame, OpenGL view space."""
        cam, cams = _camera_of(sim, env, camera_handle)
        return cams.view_matrix(cam)

    def get_camera_proj_matrix(self, sim, env, camera_handle):
        """4x4 float32 projection matrix (row-vector convention; [0,0] = 1/tan(hfov/2))."""
        cam, cams = _camera_of(sim, env, camera_handle)
        return cams.proj_matrix(cam)

    def render_all_camera_sensors(self, sim):
        """Render every camera of the sim at the current state (builds the sim if needed)."""
        _cameras().system(_handles.sim_of(sim)).render()

    def get_camera_image(self, sim, env, camera_handle, image_type):
        """A copy of the camera's last image: COLOR (H, W*4) uint8, DEPTH (H, W) float32,
        SEGMENTATION (H, W) int32."""
        cam, cams = _camera_of(sim, env, camera_handle)
        return cams.image(cam, image_type)

    def get_camera_image_gpu_tensor(self, sim, env, camera_handle, image_type):
        """The camera's image buffer on the sim's device (zero-copy; needs enable_tensors)."""
        cam, cams = _camera_of(sim, env, camera_handle)
        return Tensor(cams.tensor(cam, image_type))

    def start_access_image_tensors(self, sim):
        """Image tensors are plain device buffers here: nothing to map (kept for Isaac Gym code)."""
        _handles.sim_of(sim)

    def end_access_image_tensors(self, sim):
        """See start_access_image_tensors."""
        _handles.sim_of(sim)

    def write_camera_image_to_file(self, sim, env, camera_handle, image_type, filename):
        """Write the camera's last image to a PNG file (depth as 8-bit grey, segmentation 16-bit)."""
        cam, cams = _camera_of(sim, env, camera_handle)
        cams.write_png(cam, image_type, filename)

    def create_texture_from_file(self, sim, filename):
        """Load an image file (any format Pillow reads) as a texture; returns its handle."""
        return _cameras().load_texture_file(_handles.sim_of(sim), filename)

    def create_texture_from_buffer(self, sim, width, height, data):
        """A texture from a uint8 RGBA buffer of height rows x width*4 bytes; returns its handle."""
        return _cameras().texture_from_buffer(_handles.sim_of(sim), width, height, data)

    def free_texture(self, sim, texture_handle):
        """Release a texture (bodies that showed it go back to their color)."""
        _cameras().system(_handles.sim_of(sim)).free_texture(texture_handle)

    def set_rigid_body_texture(self, env, actorHandle, rigidIndex, meshType, texture_handle):
        """Show a texture on a body's shapes (camera images; projected onto primitives)."""
        _looks().set_texture(_handles.actor_of(env, actorHandle), rigidIndex, meshType, texture_handle)

    def get_rigid_body_texture(self, env, actorHandle, rigidIndex, meshType):
        """The texture handle set on a body, INVALID_HANDLE if none."""
        return _looks().texture(_handles.actor_of(env, actorHandle), rigidIndex, meshType)

    def set_light_parameters(self, sim, light_index, intensity, ambient, direction):
        """Light 0 of the camera renderer: RGB intensity, ambient RGB, direction it shines along."""
        _cameras().system(_handles.sim_of(sim)).set_light(light_index, intensity, ambient,
                                                                              direction)

    # ================================================================== controls (handle API)
    def set_actor_dof_position_targets(self, env, actorHandle, targets):
        """Position targets of the actor's DOFs (persist; act in DOF_MODE_POS)."""
        from .core import drives as _drives
        a = _handles.actor_of(env, actorHandle)
        _drives.set_targets(a, _drives.dof_values(targets, a.asset.dof_count, arg="targets"), "pos")
        return True

    def get_actor_dof_position_targets(self, env, actorHandle):
        """The actor's DOF position targets (float32, what the drives use)."""
        from .core import drives as _drives
        return _drives.get_targets(_handles.actor_of(env, actorHandle), "pos")

    def set_actor_dof_velocity_targets(self, env, actorHandle, targets):
        """Velocity targets of the actor's DOFs (persist; act in DOF_MODE_VEL and DOF_MODE_POS)."""
        from .core import drives as _drives
        a = _handles.actor_of(env, actorHandle)
        _drives.set_targets(a, _drives.dof_values(targets, a.asset.dof_count, arg="targets"), "vel")
        return True

    def get_actor_dof_velocity_targets(self, env, actorHandle):
        """The actor's DOF velocity targets (float32, what the drives use)."""
        from .core import drives as _drives
        return _drives.get_targets(_handles.actor_of(env, actorHandle), "vel")

    def apply_actor_dof_efforts(self, env, actorHandle, efforts):
        """Efforts on the actor's DOF_MODE_EFFORT DOFs during the next simulate (they add up)."""
        from .core import drives as _drives
        a = _handles.actor_of(env, actorHandle)
        _drives.apply_efforts(a, _drives.dof_values(efforts, a.asset.dof_count, arg="efforts"))
        return True

    def set_dof_target_position(self, env, dofHandle, target):
        """Position target of one DOF (persists)."""
        from .core import drives as _drives
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        _drives.set_target(a, i, _drives.scalar(target, arg="target"), "pos")

    def set_dof_target_velocity(self, env, dofHandle, target):
        """Velocity target of one DOF (persists)."""
        from .core import drives as _drives
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        _drives.set_target(a, i, _drives.scalar(target, arg="target"), "vel")

    def get_dof_target_position(self, env, dofHandle):
        """Position target of one DOF."""
        from .core import drives as _drives
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        return float(_drives.get_targets(a, "pos")[i])

    def get_dof_target_velocity(self, env, dofHandle):
        """Velocity target of one DOF."""
        from .core import drives as _drives
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        return float(_drives.get_targets(a, "vel")[i])

    def apply_dof_effort(self, env, dofHandle, effort):
        """Effort on one DOF during the next simulate (adds to other efforts applied before it)."""
        from .core import drives as _drives
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        _drives.apply_efforts(a, _drives.scalar(effort, arg="effort"), local=i)

    def get_dof_position(self, env, dofHandle):
        """Position of one DOF (DOF handle = DOMAIN_ENV index)."""
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        return float(self.get_actor_dof_states(env, a.handle, STATE_POS)["pos"][i])  # noqa: F405

    def get_dof_velocity(self, env, dofHandle):
        """Velocity of one DOF."""
        a, i = _handles.actor_at(_handles.env_of(env), dofHandle, "dof")
        return float(self.get_actor_dof_states(env, a.handle, STATE_VEL)["vel"][i])  # noqa: F405

    def _joint_dof(self, env, jointHandle):
        """(actor, DOF index in the actor) of a 1-DOF joint."""
        what = call_name()
        a, j = _handles.actor_at(_handles.env_of(env, what), jointHandle, "joint", what)
        dofs = a.asset.joint_dofs[j]
        if len(dofs) != 1:
            raise _ValueError(f"{what}: joint {jointHandle} ('{a.asset.joint_names[j]}') has {len(dofs)} DOFs; "
                              "joint-level access needs a joint with exactly one DOF")
        return a, dofs[0]

    def get_joint_position(self, env, jointHandle):
        """Position of a 1-DOF joint (joint handle = DOMAIN_ENV index)."""
        a, i = self._joint_dof(env, jointHandle)
        return float(self.get_actor_dof_states(env, a.handle, STATE_POS)["pos"][i])  # noqa: F405

    def get_joint_velocity(self, env, jointHandle):
        """Velocity of a 1-DOF joint."""
        a, i = self._joint_dof(env, jointHandle)
        return float(self.get_actor_dof_states(env, a.handle, STATE_VEL)["vel"][i])  # noqa: F405

    def set_joint_target_position(self, env, jointHandle, target):
        """Position target of a 1-DOF joint's DOF."""
        from .core import drives as _drives
        a, i = self._joint_dof(env, jointHandle)
        _drives.set_target(a, i, _drives.scalar(target, arg="target"), "pos")

    def set_joint_target_velocity(self, env, jointHandle, target):
        """Velocity target of a 1-DOF joint's DOF."""
        from .core import drives as _drives
        a, i = self._joint_dof(env, jointHandle)
        _drives.set_target(a, i, _drives.scalar(target, arg="target"), "vel")

    def get_joint_target_position(self, env, jointHandle):
        """Position target of a 1-DOF joint's DOF."""
        from .core import drives as _drives
        a, i = self._joint_dof(env, jointHandle)
        return float(_drives.get_targets(a, "pos")[i])

    def get_joint_target_velocity(self, env, jointHandle):
        """Velocity target of a 1-DOF joint's DOF."""
        from .core import drives as _drives
        a, i = self._joint_dof(env, jointHandle)
        return float(_drives.get_targets(a, "vel")[i])

    def apply_body_forces(self, env, rigidHandle, force=None, torque=None, space=_enums.CoordinateSpace.ENV_SPACE):
        """Force (at the COM) and torque on a body during the next simulate, in `space`."""
        from .core.forces import wrenches as _wrenches
        what = call_name()
        a, i = _handles.actor_at(_handles.env_of(env, what), rigidHandle, "body", what)
        _wrenches.apply_body_wrench(a, i, _wrenches.vec3(force, what, "force"), _wrenches.vec3(torque, what, "torque"),
                                    None, _handles.space_of(space, what), what)

    def apply_body_force_at_pos(self, env, rigidHandle, force, pos=None, space=_enums.CoordinateSpace.ENV_SPACE):
        """Force at a point (COM if pos is None) of a body during the next simulate."""
        from .core.forces import wrenches as _wrenches
        what = call_name()
        a, i = _handles.actor_at(_handles.env_of(env, what), rigidHandle, "body", what)
        f = _wrenches.vec3(force, what, "force")
        if f is None:
            raise _TypeError(f"{what}: force must be gymapi.Vec3, got None")
        _wrenches.apply_body_wrench(a, i, f, None, _wrenches.vec3(pos, what, "pos"), _handles.space_of(space, what),
                                    what)

    # ================================================================== MJCF actuators (core/assets/mjcf.py)
    def find_actor_actuator_index(self, env, actor, name):
        return self.find_asset_actuator_index(_handles.actor_of(env, actor).asset, name)

    def get_actor_actuator_count(self, env, actor):
        return len(_handles.actor_of(env, actor).asset.actuators)

    def get_actor_actuator_joint_name(self, env, actor, index):
        return self.get_asset_actuator_joint_name(_handles.actor_of(env, actor).asset, index)

    def get_actor_actuator_name(self, env, actor, index):
        return self.get_asset_actuator_name(_handles.actor_of(env, actor).asset, index)

    def get_actor_actuator_properties(self, env, actor):
        return self.get_asset_actuator_properties(_handles.actor_of(env, actor).asset)

    # ================================================================== viewer (gymlike/render/viewer.py)
    def add_lines(self, viewer, env, num_lines, vertices, colors):
        """Add num_lines lines (vertices: 2 points per line, env frame; colors: RGB per line) until clear_lines."""
        _viewer().add_lines(viewer, env, num_lines, vertices, colors)

    def clear_lines(self, viewer):
        _viewer().clear_lines(viewer)

    def create_viewer(self, sim, props):
        """A Newton ViewerGL window where a display exists, else a headless viewer that accepts every call."""
        return _viewer().create_viewer(_handles.sim_of(sim), props)

    def destroy_viewer(self, viewer):
        _viewer().destroy_viewer(viewer)

    def draw_env_rigid_contacts(self, viewer, env, color, scale, flag):
        """Draw the env's contact normals (length `scale`) in the window; accepted headless."""
        _viewer().draw_env_rigid_contacts(viewer, env, color, scale, flag)

    def draw_env_soft_contacts(self, viewer, env, color, scale, flag, arg5=None):
        """Accepted; draws nothing (the soft contacts are listed by get_soft_contacts)."""
        _viewer().draw_env_soft_contacts(viewer, env, color, scale, flag)

    def draw_viewer(self, viewer, sim, render_collision=True):
        """Render one frame (headless: count it; the runner's --max-frames closes the viewer)."""
        _viewer().draw_viewer(viewer, sim, render_collision)

    def get_viewer_camera_transform(self, viewer, env):
        """Viewer camera pose in the env frame (+X looks forward, +Z up)."""
        return _viewer().get_viewer_camera_transform(viewer, env)

    def get_viewer_mouse_position(self, viewer):
        """Mouse position in normalized window coordinates (Vec2 in [0, 1])."""
        return _viewer().get_viewer_mouse_position(viewer)

    def get_viewer_size(self, viewer):
        return _viewer().get_viewer_size(viewer)

    def poll_viewer_events(self, viewer):
        _viewer().poll_viewer_events(viewer)

    def query_viewer_action_events(self, viewer):
        """ActionEvents (action name, value 1 press / 0 release) since the last query."""
        return _viewer().query_viewer_action_events(viewer)

    def query_viewer_has_closed(self, viewer):
        """True once the window closed, the viewer was destroyed or the runner's frame limit was reached."""
        return _viewer().query_viewer_has_closed(viewer)

    def step_graphics(self, sim):
        """No-op: the viewer reads the live Newton state."""
        _viewer().step_graphics(sim)

    def subscribe_viewer_keyboard_event(self, viewer, key, action):
        _viewer().subscribe_viewer_keyboard_event(viewer, key, action)

    def subscribe_viewer_mouse_event(self, viewer, button, action):
        _viewer().subscribe_viewer_mouse_event(viewer, button, action)

    def sync_frame_time(self, sim):
        """Keep a windowed sim at real time (sleeps); no-op headless."""
        _viewer().sync_frame_time(_handles.sim_of(sim))

    def write_viewer_image_to_file(self, viewer, filename):
        """PNG of the sim seen from the viewer camera (ray traced: every env, no debug lines)."""
        _viewer().write_viewer_image_to_file(viewer, filename)

    def viewer_camera_look_at(self, viewer, env, pos, target):
        """Place the viewer camera at `pos` looking at `target` (env frame; env None = sim frame)."""
        _viewer().viewer_camera_look_at(viewer, env, pos, target)

    # ================================================================== USD export (gymlike/render/usd.py)
    def create_usd_exporter(self, options=None):
        """A USD exporter (one self-contained .usda per export; display colors or UsdPreviewSurface)."""
        return _usd().create(options)

    def destroy_usd_exporter(self, exporter):
        """Release an exporter; later use of it raises."""
        _usd().exporter_of(exporter).destroyed = True

    def get_usd_export_root(self, exporter):
        """Directory exports are written to (relative names resolve against it; default '.')."""
        return _usd().exporter_of(exporter).root

    def set_usd_export_root(self, exporter, path):
        """Set the export directory (created on first export); False if `path` is a file."""
        return _usd().set_root(exporter, path)

    def export_usd_asset(self, exporter, asset, filename):
        """Write an asset at its default pose to USD; True on success."""
        return _usd().export_asset(exporter, asset, filename)

    def export_usd_sim(self, exporter, sim, name, dirName=None):
        """Write the sim at its current state to `<root>[/dirName]/name.usda`; returns {body prim: Transform}."""
        return _usd().export_sim(exporter, _handles.sim_of(sim), name, dirName)

    # ================================================================== static terrain geometry (core/terrain.py)
    def add_heightfield(self, sim, heightSamples, params):
        """Static heightfield shared by all envs (int16 samples, rows along x, sample [0, 0] at params.transform)."""
        from .core import terrain
        terrain.add_heightfield(_handles.sim_of(sim), heightSamples, params)

    def add_triangle_mesh(self, sim, vertices, triangles, params):
        """Static triangle mesh shared by all envs (collides triangle-exact, not as a convex hull)."""
        from .core import terrain
        terrain.add_triangle_mesh(_handles.sim_of(sim), vertices, triangles, params)

    # ================================================================== attractors and performance timers
    # (core/attractors.py)
    def create_performance_timers(self, sim):
        """Timers measure wall time from their creation; physics_sim is the time spent in simulate."""
        return _handles.sim_of(sim).create_timers()

    def create_rigid_body_attractor(self, env, props):
        """A spring-damper pulling a body point to a target pose (env frame) on the chosen axes."""
        from .core import attractors as _attractors
        e = _handles.env_of(env)
        return _attractors.of(e.sim).create(e, props)

    def destroy_performance_timers(self, sim, timers):
        _handles.sim_of(sim).destroy_timers(timers)

    def get_attractor_properties(self, env, attractor):
        from .core import attractors as _attractors
        e = _handles.env_of(env)
        return _attractors.of(e.sim).item(e, attractor)[2].copy()

    def get_performance_timers(self, sim, timers):
        physics, total = _handles.sim_of(sim).read_timers(timers)
        return PerformanceTimers(physics_sim=physics, total_time=total)

    def set_attractor_properties(self, env, attractor, props):
        from .core import attractors as _attractors
        e = _handles.env_of(env)
        _attractors.of(e.sim).set_properties(e, attractor, props)

    def set_attractor_target(self, env, attractor, target):
        from .core import attractors as _attractors
        e = _handles.env_of(env)
        _attractors.of(e.sim).set_target(e, attractor, target)

    def find_actor_fixed_tendon_joint_index(self, env, actor, tendon, name):
        """Index of a named joint in an actor's fixed tendon, or -1."""
        t = _tendons.of_asset(_handles.actor_of(env, actor).asset)
        names = t.joint_names[_handles.index(tendon, len(t.names), kind="tendon")]
        name = _handles.name_of(name)
        return names.index(name) if name in names else -1

    def find_actor_tendon_index(self, env, actor, name):
        """Index of a named fixed tendon of an actor, or -1."""
        return self.find_asset_tendon_index(_handles.actor_of(env, actor).asset, name)

    def get_actor_fixed_tendon_joint_coefficients(self, env, actor, tendon):
        """Joint coefficients of an actor's fixed tendon."""
        return self.get_asset_fixed_tendon_joint_coefficients(
            _handles.actor_of(env, actor).asset, tendon)

    def get_actor_fixed_tendon_joint_name(self, env, actor, tendon, joint):
        """Name of a joint of an actor's fixed tendon."""
        return self.get_asset_fixed_tendon_joint_name(
            _handles.actor_of(env, actor).asset, tendon, joint)

    def get_actor_soft_body_count(self, env, actor):
        """Soft bodies of the actor (those of its asset)."""
        return len(_handles.actor_of(env, actor).asset.soft_bodies)

    # ================================================================== deformables (SIM_FLEX: core/deformables.py)
    def create_tet_grid(self, sim, material, dimx, dimy, dimz, spacingx, spacingy, spacingz, density,
                        fix_base, fix_top, fix_left, fix_right, options=None):
        """A box of dimx*dimy*dimz cells of tetrahedra (Newton VBD soft body); fix_*: pin the particles of that face."""
        what = call_name()
        s = _handles.sim_of(sim, what)
        _D().refuse_physx(s.type, what)
        from .core.assets.load import create_soft_asset
        from .core.assets.soft import create_tet_grid
        body = create_tet_grid(s.params.up_axis, material, (dimx, dimy, dimz), (spacingx, spacingy, spacingz), density,
                               (fix_base, fix_top, fix_left, fix_right), what)
        return _register(sim, create_soft_asset(s, body, options, "tet_grid"))

    def create_cloth_grid(self, sim, width, length, spacing_x, spacing_y, options=None):
        ("A cloth of width x length particles in the asset's x-y plane "
         "(Newton triangles with its default stiffness).")
        what = call_name()
        s = _handles.sim_of(sim, what)
        _D().refuse_physx(s.type, what)
        from .core.assets.load import create_soft_asset
        from .core.assets.soft import create_cloth_grid
        from .core.params import asset_options
        body = create_cloth_grid(width, length, spacing_x, spacing_y, asset_options(options, what), what)
        return _register(sim, create_soft_asset(s, body, options, "cloth_grid"))

    def get_actor_soft_materials(self, env, actor):
        """Copies of the actor's soft materials (one per soft body)."""
        import copy
        return [copy.deepcopy(m) for m in _D().materials_of(_handles.actor_of(env, actor))]

    def set_actor_soft_materials(self, env, actor, materials):
        ("Young's modulus, Poisson ratio and damping of each soft body of the actor "
         "(Newton's tet mu, lambda, k_damp).")
        return _D().set_actor_materials(_handles.actor_of(env, actor), materials)

    def get_sim_tetrahedra_count(self, sim):
        """Tetrahedra of every soft body in the sim."""
        what = call_name()
        return len(_D().of(_handles.sim_of(sim, what), what).tets)

    def get_sim_tetrahedra(self, sim):
        """(particle indices, 4 per tetrahedron; Cauchy stress of each, compressible Neo-Hookean, as Mat33)."""
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).tetrahedra()

    def get_sim_triangle_count(self, sim):
        """Triangles of the soft bodies' surfaces and of the cloths."""
        what = call_name()
        return len(_D().of(_handles.sim_of(sim, what), what).tris)

    def get_sim_triangles(self, sim):
        """(particle indices, 3 per triangle; parent tetrahedron, -1 for cloth; face normal as Vec3)."""
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).triangles()

    def get_actor_tetrahedra_range(self, env, actor, soft_body_index):
        """(start, count) of a soft body's tetrahedra in get_sim_tetrahedra's list."""
        what = call_name()
        a = _handles.actor_of(env, actor)
        return _D().of(a.env.sim, what).body_range(a, soft_body_index, "tet", what)

    def get_actor_triangle_range(self, env, actor, soft_body_index):
        """(start, count) of a soft body's triangles in get_sim_triangles' list."""
        what = call_name()
        a = _handles.actor_of(env, actor)
        return _D().of(a.env.sim, what).body_range(a, soft_body_index, "tri", what)

    def reset_actor_particles_to_rest(self, env, actor):
        """Put the actor's particles back at their rest positions (as created), at rest."""
        what = call_name()
        a = _handles.actor_of(env, actor)
        _D().of(a.env.sim, what).reset_to_rest(a)
        return True

    def get_soft_contacts(self, sim):
        ("Particle-shape contacts of the last substep "
         "(particleIndices.x: the particle; bodyIndex: -1 for the ground).")
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).soft_contacts()

    def acquire_particle_state_tensor(self, sim):
        """(num_particles, 7): position (env frame) [0:3], inverse mass [3], velocity [4:7]."""
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).acquire()

    def refresh_particle_state_tensor(self, sim):
        """Fill the particle state tensor from the current state."""
        what = call_name()
        s = _handles.sim_of(sim, what)
        _D().refuse_physx(s.type, what)
        return _refresh(sim, "particle")

    def set_particle_state_tensor(self, sim, particle_states):
        """Write every particle's position, inverse mass and velocity."""
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).set_states(particle_states, None, what)

    def set_particle_state_tensor_indexed(self, sim, particle_states, actor_indices, num_indices):
        """Write the particles of the listed actors only (int32 DOMAIN_SIM actor indices)."""
        what = call_name()
        return _D().of(_handles.sim_of(sim, what), what).set_states(particle_states, (actor_indices, num_indices), what)

    def get_actor_tendon_count(self, env, actor):
        """Number of fixed tendons of an actor."""
        return self.get_asset_tendon_count(_handles.actor_of(env, actor).asset)

    def get_actor_tendon_name(self, env, actor, index):
        """Name of an actor's fixed tendon."""
        return self.get_asset_tendon_name(_handles.actor_of(env, actor).asset, index)

    def get_actor_tendon_offset(self, env, actor, index):
        """Length offset of an actor's fixed tendon (added to sum of coef * joint position)."""
        a = _handles.actor_of(env, actor)
        i = _handles.index(index, len(_tendons.of_asset(a.asset).names), kind="tendon")
        return float(a.tendon_offsets[i])

    def get_actor_tendon_properties(self, env, actor):
        """Fixed-tendon properties the sim uses for an actor."""
        a = _handles.actor_of(env, actor)
        _tendons.of_asset(a.asset)
        return _tendons.copy_props(a.tendon_props)








    def get_viewer_camera_handle(self, viewer):
        """Handle of the viewer's camera for the camera calls (any env; image: the viewer's picture of all envs)."""
        v = _viewer().viewer_of(viewer)
        return _cameras().system(v.sim).viewer_handle(v)


    def set_actor_tendon_offset(self, env, actor, index, offset):
        """Set the length offset of an actor's fixed tendon (before or after prepare_sim)."""
        a = _handles.actor_of(env, actor)
        _tendons.set_actor(a, offset=(index, offset))
        return True

    def set_actor_tendon_properties(self, env, actor, props):
        """Set an actor's fixed-tendon properties (before or after prepare_sim; the solver is told)."""
        a = _handles.actor_of(env, actor)
        _tendons.set_actor(a, props=props)
        return True










def _refresh(sim, kind):
    what = call_name()
    # refreshing a buffer nobody acquired is a no-op, as in Isaac Gym
    return _tensors.api(_handles.sim_of(sim, what), what).refresh(kind)


def _set_dof_values(sim, kind, tensor, indexed=None):
    """indexed: (actor index tensor, count) of an *_indexed setter; None writes every actor."""
    what = call_name()
    indices, count = (_tensors.ALL, None) if indexed is None else indexed
    return _tensors.api(_handles.sim_of(sim, what), what).set_dof_values(kind, tensor, indices, count, what)


def _actuator_props(x):
    p = ActuatorProperties(motor_effort=x["gear"], kp=x["kp"], kv=x["kv"], control_limited=x["ctrl_limited"],
                           force_limited=x["force_limited"], lower_control_limit=x["ctrl"][0],
                           upper_control_limit=x["ctrl"][1], lower_force_limit=x["force"][0],
                           upper_force_limit=x["force"][1])
    return p


def _D():
    """gymlike.core.deformables (soft bodies, cloth, particles)."""
    from .core import deformables
    return deformables


def _looks():
    from .render import looks
    return looks


def _cameras():
    """gymlike.render.cameras (imported on first camera call)."""
    from .render import cameras
    return cameras


def _camera_of(sim, env, handle):
    """(camera, camera system) for a camera handle of `env` (of `sim` when given)."""
    what = call_name()
    C = _cameras()
    if sim is not None:
        sim = _handles.sim_of(sim, what)
    env = C.env_check(sim, env, what)
    cams = C.system(env.sim)
    return cams.camera(env, handle, what), cams


def _usd():
    """gymlike.render.usd (imported on first export; loads usd-core)."""
    from .render import usd
    return usd


def _viewer():
    """gymlike.render.viewer (imported on first viewer call)."""
    from .render import viewer
    return viewer


def _register(sim, asset):
    sim.assets.append(asset)
    return asset


# the methods gymlike does not provide: generated from one table (core/stubs.py), which the
# compatibility table in python_bindings_docs/ is generated from too
for _name in _stubs.STUBS:
    setattr(Gym, _name, _stubs.make(_name))

_GYM = None


def acquire_gym(*args, **kwargs):
    """The Gym singleton (as in Isaac Gym)."""
    global _GYM
    if _GYM is None:
        _GYM = Gym()
    return _GYM


def carb_init(config_str=""):
    return True
