"""Isaac Gym's `gymapi` module: constants, value types and the Gym object.

Every Isaac Gym `Gym` method is defined here under its own name with one line of intent;
the work happens in `gymlike.core`. Methods gymlike cannot do yet raise NotImplementedError
with the reason (the compatibility table in python_bindings_docs/ is generated from them)."""

from __future__ import annotations

import time as _time

import numpy as _np

from .core import enums as _enums
from .core import handles as _h
from .core.enums import *  # noqa: F401,F403  (constants: STATE_ALL, INVALID_HANDLE, ...)
from .core.enums import DofType as _DofType, IndexDomain as _IndexDomain, JointType as _JointType
from .core.errors import GymlikeError  # noqa: F401
from .core.errors import (GymlikeIndexError as _IndexError, GymlikeNotImplementedError as _NIE,
                          GymlikeTypeError as _TypeError, GymlikeValueError as _ValueError)
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
from .core.types import DOF_FRAME_DTYPE as _DOF_FRAME_DTYPE, TRANSFORM_DTYPE as _TRANSFORM_DTYPE

_enums.export_members(globals())

# Opaque handle types, as in Isaac Gym (isinstance checks in user code keep working).
from .core.asset import Asset  # noqa: E402
from .core.sim import Env, Sim  # noqa: E402


class Viewer:  # the concrete class lives in gymlike.render
    pass


class Tensor:  # defined by the tensor API module
    pass


def _unsupported(name, reason):
    """Permanently unsupported on Newton (listed as 'unsupported' in the compatibility table)."""
    raise _NIE(f"gymapi.Gym.{name} is not supported by gymlike: {reason}")


def _todo(name, reason):
    """Not implemented yet (listed as 'not yet' in the compatibility table)."""
    raise _NIE(f"gymapi.Gym.{name} is not implemented in gymlike yet: {reason}")


def _names_dict(names):
    return {n: i for i, n in enumerate(names)}


class Gym:
    """The Isaac Gym interface object (`gymapi.acquire_gym()`)."""

    # ================================================================== sims
    def create_sim(self, compute_device=0, graphics_device=0, type=_enums.SimType.SIM_PHYSX, params=None):
        """Create a simulation: SIM_PHYSX -> Newton MuJoCo solver, SIM_FLEX -> Newton XPBD."""
        return Sim(self, compute_device, graphics_device, type, params if params is not None else SimParams())

    def destroy_sim(self, sim):
        _h.sim_of(sim, "destroy_sim").destroy()

    def add_ground(self, sim, params):
        _h.sim_of(sim, "add_ground").add_ground(params)

    def prepare_sim(self, sim):
        """Finalize the Newton model and create the solver (buffers of the tensor API too)."""
        return _h.sim_of(sim, "prepare_sim").prepare_sim()

    def simulate(self, sim):
        _h.sim_of(sim, "simulate").simulate()

    def fetch_results(self, sim, wait=True):
        """No-op: results are on the sim device as soon as simulate returns."""
        _h.sim_of(sim, "fetch_results")

    def get_sim_time(self, sim):
        return _h.sim_of(sim, "get_sim_time").time

    def get_frame_count(self, sim):
        return _h.sim_of(sim, "get_frame_count").frame

    def get_elapsed_time(self, sim):
        return _time.perf_counter() - _h.sim_of(sim, "get_elapsed_time").start_wall

    def get_sim_params(self, sim):
        return _h.sim_of(sim, "get_sim_params").params.copy()

    def set_sim_params(self, sim, params):
        _h.sim_of(sim, "set_sim_params").set_params(params)

    def set_sim_device(self, sim):
        _unsupported("set_sim_device", "the device is chosen once, by create_sim")

    def get_version(self):
        return Version(major=1, minor=4)

    def load_sim(self, *args):
        _unsupported("load_sim", "PhysX scene files cannot be loaded into Newton")

    def attach_sim(self, *args):
        _unsupported("attach_sim", "there is no external PhysX scene to attach to")

    # ================================================================== assets
    def load_asset(self, sim, rootpath, filename, options=None):
        """Load a URDF (.urdf), MJCF (.xml) or USD (.usd/.usda/.usdc) file, parsed once."""
        from .core.asset import load_asset_file
        return _register(sim, load_asset_file(_h.sim_of(sim, "load_asset"), rootpath, filename, options))

    def load_urdf(self, sim, rootpath, filename, options=None):
        from .core.asset import load_asset_file
        return _register(sim, load_asset_file(_h.sim_of(sim, "load_urdf"), rootpath, filename, options, "urdf"))

    def load_mjcf(self, sim, rootpath, filename, options=None):
        from .core.asset import load_asset_file
        return _register(sim, load_asset_file(_h.sim_of(sim, "load_mjcf"), rootpath, filename, options, "mjcf"))

    def load_usd(self, sim, rootpath, filename, options=None):
        from .core.asset import load_asset_file
        return _register(sim, load_asset_file(_h.sim_of(sim, "load_usd"), rootpath, filename, options, "usd"))

    def load_opensim(self, sim, rootpath, filename, options=None):
        _unsupported("load_opensim", "OpenSim models have no Newton importer")

    def create_box(self, sim, width, height, depth, options=None):
        from .core.asset import create_primitive
        return _register(sim, create_primitive(_h.sim_of(sim, "create_box"), "box",
                                               dict(width=width, height=height, depth=depth), options))

    def create_sphere(self, sim, radius, options=None):
        from .core.asset import create_primitive
        return _register(sim, create_primitive(_h.sim_of(sim, "create_sphere"), "sphere", dict(radius=radius), options))

    def create_capsule(self, sim, radius, width, options=None):
        """Capsule along X; `width` is the length of its cylindrical part."""
        from .core.asset import create_primitive
        return _register(sim, create_primitive(_h.sim_of(sim, "create_capsule"), "capsule",
                                               dict(radius=radius, length=width), options))

    def create_tet_grid(self, *args, **kwargs):
        _unsupported("create_tet_grid", "soft bodies (FEM tetrahedra) are not mapped to Newton")

    def create_cloth_grid(self, *args, **kwargs):
        _unsupported("create_cloth_grid", "cloth is not mapped to Newton")

    def debug_print_asset(self, asset, outpath=None):
        """Print the asset's bodies, joints, DOFs and shapes (to a file if outpath is given)."""
        a = _h.asset_of(asset, "debug_print_asset")
        lines = [repr(a), "bodies:"] + [f"  {i}: {n}" for i, n in enumerate(a.body_names)]
        lines += ["joints:"] + [f"  {i}: {n} ({t.name})" for i, (n, t) in enumerate(zip(a.joint_names, a.joint_types))]
        lines += ["dofs:"] + [f"  {i}: {n} ({t.name})" for i, (n, t) in enumerate(zip(a.dof_names, a.dof_types))]
        text = "\n".join(lines)
        if outpath:
            with open(outpath, "w") as f:
                f.write(text + "\n")
        else:
            print(text)

    def get_asset_rigid_body_count(self, asset):
        return _h.asset_of(asset, "get_asset_rigid_body_count").body_count

    def get_asset_rigid_body_names(self, asset):
        return list(_h.asset_of(asset, "get_asset_rigid_body_names").body_names)

    def get_asset_rigid_body_name(self, asset, index):
        a = _h.asset_of(asset, "get_asset_rigid_body_name")
        return a.body_names[_h.index(index, a.body_count, "get_asset_rigid_body_name", "body")]

    def get_asset_rigid_body_dict(self, asset):
        return _names_dict(_h.asset_of(asset, "get_asset_rigid_body_dict").body_names)

    def find_asset_rigid_body_index(self, asset, name):
        return _h.asset_of(asset, "find_asset_rigid_body_index").body_index(_h.name_of(name, "find_asset_rigid_body_index"))

    def get_asset_rigid_shape_count(self, asset):
        return _h.asset_of(asset, "get_asset_rigid_shape_count").shape_count

    def get_asset_rigid_body_shape_indices(self, asset):
        a = _h.asset_of(asset, "get_asset_rigid_body_shape_indices")
        return [IndexRange(start=int(s), count=int(c)) for s, c in zip(a.body_shape_start, a.body_shape_count)]

    def get_asset_dof_count(self, asset):
        return _h.asset_of(asset, "get_asset_dof_count").dof_count

    def get_asset_dof_names(self, asset):
        return list(_h.asset_of(asset, "get_asset_dof_names").dof_names)

    def get_asset_dof_name(self, asset, index):
        a = _h.asset_of(asset, "get_asset_dof_name")
        return a.dof_names[_h.index(index, a.dof_count, "get_asset_dof_name", "dof")]

    def get_asset_dof_dict(self, asset):
        return _names_dict(_h.asset_of(asset, "get_asset_dof_dict").dof_names)

    def get_asset_dof_type(self, asset, index):
        a = _h.asset_of(asset, "get_asset_dof_type")
        return a.dof_types[_h.index(index, a.dof_count, "get_asset_dof_type", "dof")]

    def find_asset_dof_index(self, asset, name):
        return _h.asset_of(asset, "find_asset_dof_index").dof_index(_h.name_of(name, "find_asset_dof_index"))

    def get_asset_joint_count(self, asset):
        return _h.asset_of(asset, "get_asset_joint_count").joint_count

    def get_asset_joint_names(self, asset):
        return list(_h.asset_of(asset, "get_asset_joint_names").joint_names)

    def get_asset_joint_name(self, asset, index):
        a = _h.asset_of(asset, "get_asset_joint_name")
        return a.joint_names[_h.index(index, a.joint_count, "get_asset_joint_name", "joint")]

    def get_asset_joint_dict(self, asset):
        return _names_dict(_h.asset_of(asset, "get_asset_joint_dict").joint_names)

    def get_asset_joint_type(self, asset, index):
        a = _h.asset_of(asset, "get_asset_joint_type")
        return a.joint_types[_h.index(index, a.joint_count, "get_asset_joint_type", "joint")]

    def find_asset_joint_index(self, asset, name):
        return _h.asset_of(asset, "find_asset_joint_index").joint_index(_h.name_of(name, "find_asset_joint_index"))

    def get_dof_type_string(self, dof_type):
        return {_DofType.DOF_ROTATION: "Rotation", _DofType.DOF_TRANSLATION: "Translation"}.get(
            _DofType(int(dof_type)), "Invalid")

    def get_joint_type_string(self, joint_type):
        return {_JointType.JOINT_FIXED: "Fixed", _JointType.JOINT_REVOLUTE: "Revolute",
                _JointType.JOINT_PRISMATIC: "Prismatic", _JointType.JOINT_BALL: "Ball",
                _JointType.JOINT_PLANAR: "Planar", _JointType.JOINT_FLOATING: "Floating"}.get(
            _JointType(int(joint_type)), "Invalid")

    # tendons, actuators, soft bodies: Isaac Gym's MJCF tendons and PhysX soft bodies
    def get_asset_tendon_count(self, asset):
        _h.asset_of(asset, "get_asset_tendon_count")
        return 0  # gymlike imports no tendons (fixed tendons are not mapped yet)

    def get_asset_tendon_name(self, asset, index):
        _todo("get_asset_tendon_name", "tendons are not mapped to Newton yet")

    def get_asset_tendon_properties(self, asset):
        _todo("get_asset_tendon_properties", "tendons are not mapped to Newton yet")

    def set_asset_tendon_properties(self, asset, props):
        _todo("set_asset_tendon_properties", "tendons are not mapped to Newton yet")

    def find_asset_tendon_index(self, asset, name):
        _todo("find_asset_tendon_index", "tendons are not mapped to Newton yet")

    def get_asset_fixed_tendon_joint_coefficients(self, asset, index):
        _todo("get_asset_fixed_tendon_joint_coefficients", "tendons are not mapped to Newton yet")

    def get_asset_fixed_tendon_joint_name(self, asset, tendon, joint):
        _todo("get_asset_fixed_tendon_joint_name", "tendons are not mapped to Newton yet")

    def set_asset_fixed_tendon_joint_coefficients(self, asset, index, coefficients):
        _todo("set_asset_fixed_tendon_joint_coefficients", "tendons are not mapped to Newton yet")

    def get_asset_actuator_count(self, asset):
        _todo("get_asset_actuator_count", "MJCF actuators are not exposed yet")

    def get_asset_actuator_name(self, asset, index):
        _todo("get_asset_actuator_name", "MJCF actuators are not exposed yet")

    def get_asset_actuator_joint_name(self, asset, index):
        _todo("get_asset_actuator_joint_name", "MJCF actuators are not exposed yet")

    def get_asset_actuator_properties(self, asset):
        _todo("get_asset_actuator_properties", "MJCF actuators are not exposed yet")

    def find_asset_actuator_index(self, asset, name):
        _todo("find_asset_actuator_index", "MJCF actuators are not exposed yet")

    def get_asset_soft_body_count(self, asset):
        _h.asset_of(asset, "get_asset_soft_body_count")
        return 0  # rigid assets only

    def get_asset_soft_materials(self, asset):
        _unsupported("get_asset_soft_materials", "soft bodies are not mapped to Newton")

    # ================================================================== envs
    def create_env(self, sim, lower, upper, num_per_row):
        """Create an env (one Newton world) on Isaac Gym's grid of env origins."""
        return _h.sim_of(sim, "create_env").create_env(lower, upper, num_per_row)

    def destroy_env(self, env):
        _unsupported("destroy_env", "Newton worlds cannot be removed from a model")

    def get_env(self, sim, index):
        s = _h.sim_of(sim, "get_env")
        return s.envs[_h.index(index, len(s.envs), "get_env", "env")]

    def get_env_count(self, sim):
        return len(_h.sim_of(sim, "get_env_count").envs)

    def get_env_origin(self, env):
        o = _h.env_of(env, "get_env_origin").origin
        return Vec3(*o)

    def begin_aggregate(self, env, max_bodies, max_shapes, self_collisions):
        """Aggregates are PhysX broad-phase groups; gymlike validates and records them only."""
        e = _h.env_of(env, "begin_aggregate")
        if e.aggregate is not None:
            raise _ValueError(f"begin_aggregate: env {e.index} already has an open aggregate")
        for nm, v in (("max_bodies", max_bodies), ("max_shapes", max_shapes)):
            if isinstance(v, bool) or not isinstance(v, (int, _np.integer)) or v < 0:
                raise _ValueError(f"begin_aggregate: {nm} must be a non-negative int, got {v!r}")
        e.aggregate = dict(max_bodies=int(max_bodies), max_shapes=int(max_shapes),
                           self_collisions=bool(self_collisions), actors=0,
                           bodies0=e.body_count, shapes0=e.shape_count)
        return True

    def end_aggregate(self, env):
        e = _h.env_of(env, "end_aggregate")
        if e.aggregate is None:
            raise _ValueError(f"end_aggregate: env {e.index} has no open aggregate (call begin_aggregate first)")
        agg, e.aggregate = e.aggregate, None
        nb, ns = e.body_count - agg["bodies0"], e.shape_count - agg["shapes0"]
        if nb > agg["max_bodies"] or ns > agg["max_shapes"]:
            import warnings
            warnings.warn(f"end_aggregate: env {e.index} aggregate holds {nb} bodies / {ns} shapes, more than "
                          f"the declared maximum {agg['max_bodies']} / {agg['max_shapes']} (Isaac Gym would fail)",
                          RuntimeWarning, stacklevel=2)
        return True

    def create_aggregate(self, env, actors):
        _h.env_of(env, "create_aggregate")
        return True

    def get_env_rigid_body_count(self, env):
        return _h.env_of(env, "get_env_rigid_body_count").body_count

    def get_env_dof_count(self, env):
        return _h.env_of(env, "get_env_dof_count").dof_count

    def get_env_joint_count(self, env):
        return _h.env_of(env, "get_env_joint_count").joint_count

    # ================================================================== actors
    def create_actor(self, env, asset, pose, name=None, group=-1, filter=-1, segmentationId=0):
        """Place an asset in an env; group/filter follow Isaac Gym's collision semantics."""
        e = _h.env_of(env, "create_actor")
        return e.sim.create_actor(e, asset, pose, name, group, 0 if filter == -1 else filter, segmentationId)

    def get_actor_count(self, env):
        return len(_h.env_of(env, "get_actor_count").actors)

    def get_sim_actor_count(self, sim):
        return _h.sim_of(sim, "get_sim_actor_count").total("actor")

    def get_actor_name(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_name").name

    def get_actor_handle(self, env, index):
        e = _h.env_of(env, "get_actor_handle")
        return _h.index(index, len(e.actors), "get_actor_handle", "actor")

    def find_actor_handle(self, env, name):
        e = _h.env_of(env, "find_actor_handle")
        for a in e.actors:
            if a.name == name:
                return a.handle
        return INVALID_HANDLE  # noqa: F405

    def get_actor_index(self, env, actor, domain):
        a = _h.actor_of(env, actor, "get_actor_index")
        d = _h.domain_of(domain, "get_actor_index")
        return a.sim_index if d == _IndexDomain.DOMAIN_SIM else a.handle

    def find_actor_index(self, env, name, domain):
        h = self.find_actor_handle(env, name)
        return h if h < 0 else self.get_actor_index(env, h, domain)

    def get_actor_asset(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_asset").asset

    def get_actor_rigid_body_count(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_rigid_body_count").asset.body_count

    def get_actor_rigid_body_names(self, env, actor):
        return list(_h.actor_of(env, actor, "get_actor_rigid_body_names").asset.body_names)

    def get_actor_rigid_body_dict(self, env, actor):
        return _names_dict(_h.actor_of(env, actor, "get_actor_rigid_body_dict").asset.body_names)

    def get_actor_rigid_body_handle(self, env, actor, index):
        """Rigid body handle = its DOMAIN_ENV index."""
        a = _h.actor_of(env, actor, "get_actor_rigid_body_handle")
        return a.body0 + _h.index(index, a.asset.body_count, "get_actor_rigid_body_handle", "body")

    def get_actor_rigid_body_index(self, env, actor, index, domain):
        a = _h.actor_of(env, actor, "get_actor_rigid_body_index")
        i = _h.index(index, a.asset.body_count, "get_actor_rigid_body_index", "body")
        return _h.to_domain(a, i, "body", domain, "get_actor_rigid_body_index")

    def find_actor_rigid_body_handle(self, env, actor, name):
        a = _h.actor_of(env, actor, "find_actor_rigid_body_handle")
        i = a.asset.body_index(_h.name_of(name, "find_actor_rigid_body_handle"))
        return INVALID_HANDLE if i < 0 else a.body0 + i  # noqa: F405

    def find_actor_rigid_body_index(self, env, actor, name, domain):
        a = _h.actor_of(env, actor, "find_actor_rigid_body_index")
        i = a.asset.body_index(_h.name_of(name, "find_actor_rigid_body_index"))
        return INVALID_HANDLE if i < 0 else _h.to_domain(a, i, "body", domain, "find_actor_rigid_body_index")  # noqa: F405

    def get_actor_root_rigid_body_handle(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_root_rigid_body_handle").body0

    def get_rigid_handle(self, env, actor_name, body_name):
        h = self.find_actor_handle(env, actor_name)
        return h if h < 0 else self.find_actor_rigid_body_handle(env, h, body_name)

    def get_rigid_name(self, env, handle):
        a, i = _h.actor_at(_h.env_of(env, "get_rigid_name"), handle, "body", "get_rigid_name")
        return a.asset.body_names[i]

    def get_actor_rigid_shape_count(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_rigid_shape_count").asset.shape_count

    def get_actor_rigid_body_shape_indices(self, env, actor):
        a = _h.actor_of(env, actor, "get_actor_rigid_body_shape_indices")
        return [IndexRange(start=int(a.shape0 + s), count=int(c))
                for s, c in zip(a.asset.body_shape_start, a.asset.body_shape_count)]

    def get_actor_joint_count(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_joint_count").asset.joint_count

    def get_actor_joint_names(self, env, actor):
        return list(_h.actor_of(env, actor, "get_actor_joint_names").asset.joint_names)

    def get_actor_joint_dict(self, env, actor):
        return _names_dict(_h.actor_of(env, actor, "get_actor_joint_dict").asset.joint_names)

    def get_actor_joint_handle(self, env, actor, index):
        a = _h.actor_of(env, actor, "get_actor_joint_handle")
        return a.joint0 + _h.index(index, a.asset.joint_count, "get_actor_joint_handle", "joint")

    def get_actor_joint_index(self, env, actor, index, domain):
        a = _h.actor_of(env, actor, "get_actor_joint_index")
        i = _h.index(index, a.asset.joint_count, "get_actor_joint_index", "joint")
        return _h.to_domain(a, i, "joint", domain, "get_actor_joint_index")

    def find_actor_joint_handle(self, env, actor, name):
        a = _h.actor_of(env, actor, "find_actor_joint_handle")
        i = a.asset.joint_index(_h.name_of(name, "find_actor_joint_handle"))
        return INVALID_HANDLE if i < 0 else a.joint0 + i  # noqa: F405

    def find_actor_joint_index(self, env, actor, name, domain):
        a = _h.actor_of(env, actor, "find_actor_joint_index")
        i = a.asset.joint_index(_h.name_of(name, "find_actor_joint_index"))
        return INVALID_HANDLE if i < 0 else _h.to_domain(a, i, "joint", domain, "find_actor_joint_index")  # noqa: F405

    def get_joint_handle(self, env, actor_name, joint_name):
        h = self.find_actor_handle(env, actor_name)
        return h if h < 0 else self.find_actor_joint_handle(env, h, joint_name)

    def get_joint_name(self, env, handle):
        a, i = _h.actor_at(_h.env_of(env, "get_joint_name"), handle, "joint", "get_joint_name")
        return a.asset.joint_names[i]

    def get_actor_dof_count(self, env, actor):
        return _h.actor_of(env, actor, "get_actor_dof_count").asset.dof_count

    def get_actor_dof_names(self, env, actor):
        return list(_h.actor_of(env, actor, "get_actor_dof_names").asset.dof_names)

    def get_actor_dof_dict(self, env, actor):
        return _names_dict(_h.actor_of(env, actor, "get_actor_dof_dict").asset.dof_names)

    def get_actor_dof_handle(self, env, actor, index):
        a = _h.actor_of(env, actor, "get_actor_dof_handle")
        return a.dof0 + _h.index(index, a.asset.dof_count, "get_actor_dof_handle", "dof")

    def get_actor_dof_index(self, env, actor, index, domain):
        a = _h.actor_of(env, actor, "get_actor_dof_index")
        i = _h.index(index, a.asset.dof_count, "get_actor_dof_index", "dof")
        return _h.to_domain(a, i, "dof", domain, "get_actor_dof_index")

    def find_actor_dof_handle(self, env, actor, name):
        a = _h.actor_of(env, actor, "find_actor_dof_handle")
        i = a.asset.dof_index(_h.name_of(name, "find_actor_dof_handle"))
        return INVALID_HANDLE if i < 0 else a.dof0 + i  # noqa: F405

    def find_actor_dof_index(self, env, actor, name, domain):
        a = _h.actor_of(env, actor, "find_actor_dof_index")
        i = a.asset.dof_index(_h.name_of(name, "find_actor_dof_index"))
        return INVALID_HANDLE if i < 0 else _h.to_domain(a, i, "dof", domain, "find_actor_dof_index")  # noqa: F405

    def get_sim_rigid_body_count(self, sim):
        return _h.sim_of(sim, "get_sim_rigid_body_count").total("body")

    def get_sim_dof_count(self, sim):
        return _h.sim_of(sim, "get_sim_dof_count").total("dof")

    def get_sim_joint_count(self, sim):
        return _h.sim_of(sim, "get_sim_joint_count").total("joint")

    # ================================================================== state (handle API)
    def get_actor_rigid_body_states(self, env, actor, flags):
        """Rigid body states of an actor, env frame (structured array of RigidBodyState.dtype)."""
        from .core import state as S
        a = _h.actor_of(env, actor, "get_actor_rigid_body_states")
        s = a.env.sim
        if not s.finalized:
            S._flags(flags, "get_actor_rigid_body_states")
            return S.actor_rest_body_states(a, flags)
        b0 = int(s.host.actor_body0[a.sim_index])
        return S.get_body_states(s, b0, a.asset.body_count, a.env.origin, flags, "get_actor_rigid_body_states")

    def set_actor_rigid_body_states(self, env, actor, states, flags):
        """Set an actor's body states (env frame); joints follow (root moves, DOFs from link poses)."""
        from .core import state as S
        a = _h.actor_of(env, actor, "set_actor_rigid_body_states")
        S._check_array(states, RigidBodyState.dtype, a.asset.body_count, "set_actor_rigid_body_states")
        S._flags(flags, "set_actor_rigid_body_states")
        s = a.env.sim
        states = states.copy()
        if not s.finalized:  # applied in call order once the model exists
            S.defer_body_states(a, states, flags)
            a.deferred.append(lambda: self.set_actor_rigid_body_states(env, actor, states, flags))
            return True
        b0 = int(s.host.actor_body0[a.sim_index])
        S.set_body_states(s, b0, states, a.env.origin, flags, "set_actor_rigid_body_states")
        return True

    def get_env_rigid_body_states(self, env, flags):
        from .core import state as S
        e = _h.env_of(env, "get_env_rigid_body_states")
        e.sim.ensure_ready("get_env_rigid_body_states")
        return S.get_body_states(e.sim, e.sim.env_start(e, "body"), e.body_count, e.origin, flags,
                                 "get_env_rigid_body_states")

    def set_env_rigid_body_states(self, env, states, flags):
        from .core import state as S
        e = _h.env_of(env, "set_env_rigid_body_states")
        S._check_array(states, RigidBodyState.dtype, e.body_count, "set_env_rigid_body_states")
        e.sim.ensure_ready("set_env_rigid_body_states")
        S.set_body_states(e.sim, e.sim.env_start(e, "body"), states, e.origin, flags, "set_env_rigid_body_states")
        return True

    def get_sim_rigid_body_states(self, sim, flags):
        """All rigid body states in the sim (global) frame."""
        from .core import state as S
        s = _h.sim_of(sim, "get_sim_rigid_body_states")
        s.ensure_ready("get_sim_rigid_body_states")
        return S.get_body_states(s, 0, s.total("body"), None, flags, "get_sim_rigid_body_states")

    def set_sim_rigid_body_states(self, sim, states, flags):
        from .core import state as S
        s = _h.sim_of(sim, "set_sim_rigid_body_states")
        s.ensure_ready("set_sim_rigid_body_states")
        S._check_array(states, RigidBodyState.dtype, s.total("body"), "set_sim_rigid_body_states")
        S.set_body_states(s, 0, states, None, flags, "set_sim_rigid_body_states")
        return True

    def get_actor_dof_states(self, env, actor, flags):
        from .core import state as S
        a = _h.actor_of(env, actor, "get_actor_dof_states")
        s = a.env.sim
        if not s.finalized:
            S._flags(flags, "get_actor_dof_states")
            return S.actor_default_dof_states(a, flags)
        return S.get_dof_states(s, a.sim_index, flags, "get_actor_dof_states")

    def set_actor_dof_states(self, env, actor, states, flags):
        from .core import state as S
        a = _h.actor_of(env, actor, "set_actor_dof_states")
        S._check_array(states, DofState.dtype, a.asset.dof_count, "set_actor_dof_states")
        flags = S._flags(flags, "set_actor_dof_states")
        s = a.env.sim
        if not s.finalized:
            if a.deferred:  # keep the order of earlier deferred body-state writes
                states = states.copy()
                a.deferred.append(lambda: self.set_actor_dof_states(env, actor, states, flags))
            S.defer_dof_states(a, states, flags)
            return True
        S.set_dof_states(s, [a.sim_index], states, flags, "set_actor_dof_states")
        return True

    def get_vec_actor_dof_states(self, envs, actors, flags):
        """DOF states of one actor (or one actor per env) across several envs, concatenated."""
        if not isinstance(envs, (list, tuple)):
            raise _TypeError("get_vec_actor_dof_states: envs must be a list of Env handles")
        acts = actors if isinstance(actors, (list, tuple)) else [actors] * len(envs)
        if len(acts) != len(envs):
            raise _ValueError(f"get_vec_actor_dof_states: {len(envs)} envs but {len(acts)} actor handles")
        parts = [self.get_actor_dof_states(e, a, flags) for e, a in zip(envs, acts)]
        return _np.concatenate(parts) if parts else _np.zeros(0, DofState.dtype)

    def get_actor_joint_transforms(self, env, actor):
        """World-to-env transforms of the actor's joint frames (Transform.dtype array)."""
        from .core import state as S
        a = _h.actor_of(env, actor, "get_actor_joint_transforms")
        a.env.sim.ensure_ready("get_actor_joint_transforms")
        frames, _ = S.joint_world_frames(a.env.sim, a.sim_index, a.asset)
        out = _np.zeros(len(frames), _TRANSFORM_DTYPE)
        v = out.view(_np.float32).reshape(-1, 7)
        v[:] = frames
        v[:, 0:3] -= a.env.origin
        return out

    def get_joint_transform(self, env, handle):
        e = _h.env_of(env, "get_joint_transform")
        a, i = _h.actor_at(e, handle, "joint", "get_joint_transform")
        t = self.get_actor_joint_transforms(env, a.handle)[i]
        return Transform(Vec3(*t["p"].tolist()), Quat(*t["r"].tolist()))

    def get_actor_dof_frames(self, env, actor):
        """Origin (env frame) and world axis of each DOF (DofFrame.dtype array)."""
        from .core import state as S
        a = _h.actor_of(env, actor, "get_actor_dof_frames")
        a.env.sim.ensure_ready("get_actor_dof_frames")
        frames, axes = S.joint_world_frames(a.env.sim, a.sim_index, a.asset)
        out = _np.zeros(a.asset.dof_count, _DOF_FRAME_DTYPE)
        v = out.view(_np.float32).reshape(-1, 6)
        if a.asset.dof_count:
            v[:, 0:3] = frames[a.asset.dof_joint, 0:3] - a.env.origin
            v[:, 3:6] = axes
        return out

    def get_dof_frame(self, env, handle):
        e = _h.env_of(env, "get_dof_frame")
        a, i = _h.actor_at(e, handle, "dof", "get_dof_frame")
        f = self.get_actor_dof_frames(env, a.handle)[i]
        return DofFrame(Vec3(*f["origin"].tolist()), Vec3(*f["axis"].tolist()))

    def get_rigid_transform(self, env, handle):
        e = _h.env_of(env, "get_rigid_transform")
        a, i = _h.actor_at(e, handle, "body", "get_rigid_transform")
        st = self.get_actor_rigid_body_states(env, a.handle, STATE_POS)[i]  # noqa: F405
        return Transform(Vec3(*st["pose"]["p"].tolist()), Quat(*st["pose"]["r"].tolist()))

    def get_rigid_linear_velocity(self, env, handle):
        e = _h.env_of(env, "get_rigid_linear_velocity")
        a, i = _h.actor_at(e, handle, "body", "get_rigid_linear_velocity")
        st = self.get_actor_rigid_body_states(env, a.handle, STATE_VEL)[i]  # noqa: F405
        return Vec3(*st["vel"]["linear"].tolist())

    def get_rigid_angular_velocity(self, env, handle):
        e = _h.env_of(env, "get_rigid_angular_velocity")
        a, i = _h.actor_at(e, handle, "body", "get_rigid_angular_velocity")
        st = self.get_actor_rigid_body_states(env, a.handle, STATE_VEL)[i]  # noqa: F405
        return Vec3(*st["vel"]["angular"].tolist())

    def _set_rigid_field(self, env, handle, what, fn):
        e = _h.env_of(env, what)
        a, i = _h.actor_at(e, handle, "body", what)
        st = self.get_actor_rigid_body_states(env, a.handle, STATE_ALL)  # noqa: F405
        fn(st[i])
        self.set_actor_rigid_body_states(env, a.handle, st, STATE_ALL)  # noqa: F405

    def set_rigid_transform(self, env, handle, transform):
        if not isinstance(transform, Transform):
            raise _TypeError(f"set_rigid_transform: expected gymapi.Transform, got {type(transform).__name__}")

        def f(row):
            row["pose"]["p"] = transform.p.to_tuple()
            row["pose"]["r"] = transform.r.to_tuple()
        self._set_rigid_field(env, handle, "set_rigid_transform", f)

    def set_rigid_linear_velocity(self, env, handle, velocity):
        if not isinstance(velocity, Vec3):
            raise _TypeError(f"set_rigid_linear_velocity: expected gymapi.Vec3, got {type(velocity).__name__}")
        self._set_rigid_field(env, handle, "set_rigid_linear_velocity",
                              lambda row: row["vel"].__setitem__("linear", velocity.to_tuple()))

    def set_rigid_angular_velocity(self, env, handle, velocity):
        if not isinstance(velocity, Vec3):
            raise _TypeError(f"set_rigid_angular_velocity: expected gymapi.Vec3, got {type(velocity).__name__}")
        self._set_rigid_field(env, handle, "set_rigid_angular_velocity",
                              lambda row: row["vel"].__setitem__("angular", velocity.to_tuple()))

    def get_vec_rigid_transform(self, envs, handles):
        hs = handles if isinstance(handles, (list, tuple)) else [handles] * len(envs)
        out = _np.zeros(len(envs), _TRANSFORM_DTYPE)
        for k, (e, h) in enumerate(zip(envs, hs)):
            t = self.get_rigid_transform(e, h)
            out[k] = (t.p.to_tuple(), t.r.to_tuple())
        return out

    def get_vec_rigid_linear_velocity(self, envs, handles):
        hs = handles if isinstance(handles, (list, tuple)) else [handles] * len(envs)
        return _np.array([tuple(self.get_rigid_linear_velocity(e, h)) for e, h in zip(envs, hs)], Vec3.dtype)

    def get_vec_rigid_angular_velocity(self, envs, handles):
        hs = handles if isinstance(handles, (list, tuple)) else [handles] * len(envs)
        return _np.array([tuple(self.get_rigid_angular_velocity(e, h)) for e, h in zip(envs, hs)], Vec3.dtype)

    # ================================================================== not implemented yet
    # (each section moves up into its area when implemented)

    def acquire_actor_root_state_tensor(self, arg0):
        _todo("acquire_actor_root_state_tensor", "the tensor API is being implemented")

    def acquire_dof_force_tensor(self, arg0):
        _todo("acquire_dof_force_tensor", "the tensor API is being implemented")

    def acquire_dof_state_tensor(self, arg0):
        _todo("acquire_dof_state_tensor", "the tensor API is being implemented")

    def acquire_force_sensor_tensor(self, arg0):
        _todo("acquire_force_sensor_tensor", "the tensor API is being implemented")

    def acquire_jacobian_tensor(self, arg0, arg1):
        _todo("acquire_jacobian_tensor", "the tensor API is being implemented")

    def acquire_mass_matrix_tensor(self, arg0, arg1):
        _todo("acquire_mass_matrix_tensor", "the tensor API is being implemented")

    def acquire_net_contact_force_tensor(self, arg0):
        _todo("acquire_net_contact_force_tensor", "the tensor API is being implemented")

    def acquire_particle_state_tensor(self, arg0):
        _todo("acquire_particle_state_tensor", "the tensor API is being implemented")

    def acquire_pneumatic_pressure_tensor(self, arg0):
        _todo("acquire_pneumatic_pressure_tensor", "the tensor API is being implemented")

    def acquire_pneumatic_target_tensor(self, arg0):
        _todo("acquire_pneumatic_target_tensor", "the tensor API is being implemented")

    def acquire_rigid_body_state_tensor(self, arg0):
        _todo("acquire_rigid_body_state_tensor", "the tensor API is being implemented")

    def add_heightfield(self, arg0, arg1, arg2):
        _todo("add_heightfield", "static triangle meshes and height fields are being implemented")

    def add_lines(self, arg0, arg1, arg2, arg3, arg4):
        _todo("add_lines", "the viewer is being implemented")

    def add_triangle_mesh(self, arg0, arg1, arg2, arg3):
        _unsupported("add_triangle_mesh", "soft bodies, particles and pneumatics are not mapped to Newton")

    def apply_actor_dof_efforts(self, arg0, arg1, arg2):
        _todo("apply_actor_dof_efforts", "actor properties and controls are being implemented")

    def apply_body_force_at_pos(self, env, rigidHandle, force, pos = None, space = None):
        _todo("apply_body_force_at_pos", "actor properties and controls are being implemented")

    def apply_body_forces(self, env, rigidHandle, force = None, torque = None, space = None):
        _todo("apply_body_forces", "actor properties and controls are being implemented")

    def apply_dof_effort(self, arg0, arg1, arg2):
        _todo("apply_dof_effort", "actor properties and controls are being implemented")

    def apply_rigid_body_force_at_pos_tensors(self, sim, forceTensor, posTensor = None, space = None):
        _todo("apply_rigid_body_force_at_pos_tensors", "the tensor API is being implemented")

    def apply_rigid_body_force_tensors(self, sim, forceTensor = None, torqueTensor = None, space = None):
        _todo("apply_rigid_body_force_tensors", "the tensor API is being implemented")

    def attach_camera_to_body(self, arg0, arg1, arg2, arg3, arg4):
        _todo("attach_camera_to_body", "camera sensors are being implemented")

    def clear_lines(self, arg0):
        _todo("clear_lines", "the viewer is being implemented")

    def create_asset_force_sensor(self, *args, **kwargs):
        _todo("create_asset_force_sensor", "the tensor API is being implemented")

    def create_camera_sensor(self, arg0, arg1):
        _todo("create_camera_sensor", "camera sensors are being implemented")

    def create_performance_timers(self, arg0):
        _todo("create_performance_timers", "performance timers are being implemented")

    def create_rigid_body_attractor(self, arg0, arg1):
        _todo("create_rigid_body_attractor", "rigid body attractors are being implemented")

    def create_texture_from_buffer(self, arg0, arg1, arg2, arg3):
        _todo("create_texture_from_buffer", "camera sensors are being implemented")

    def create_texture_from_file(self, arg0, arg1):
        _todo("create_texture_from_file", "camera sensors are being implemented")

    def create_usd_exporter(self, options = None):
        _todo("create_usd_exporter", "USD export is being implemented")

    def create_viewer(self, arg0, arg1):
        _todo("create_viewer", "the viewer is being implemented")

    def destroy_camera_sensor(self, arg0, arg1, arg2):
        _todo("destroy_camera_sensor", "camera sensors are being implemented")

    def destroy_performance_timers(self, arg0, arg1):
        _todo("destroy_performance_timers", "performance timers are being implemented")

    def destroy_usd_exporter(self, arg0):
        _todo("destroy_usd_exporter", "USD export is being implemented")

    def destroy_viewer(self, arg0):
        _todo("destroy_viewer", "the viewer is being implemented")

    def draw_env_rigid_contacts(self, arg0, arg1, arg2, arg3, arg4):
        _todo("draw_env_rigid_contacts", "the viewer is being implemented")

    def draw_env_soft_contacts(self, arg0, arg1, arg2, arg3, arg4, arg5):
        _todo("draw_env_soft_contacts", "the viewer is being implemented")

    def draw_viewer(self, viewer, sim, render_collision = None):
        _todo("draw_viewer", "the viewer is being implemented")

    def enable_actor_dof_force_sensors(self, arg0, arg1):
        _todo("enable_actor_dof_force_sensors", "the tensor API is being implemented")

    def end_access_image_tensors(self, arg0):
        _todo("end_access_image_tensors", "the tensor API is being implemented")

    def export_usd_asset(self, arg0, arg1, arg2):
        _todo("export_usd_asset", "USD export is being implemented")

    def export_usd_sim(self, exporter, sim, name, dirName = None):
        _todo("export_usd_sim", "USD export is being implemented")

    def find_actor_actuator_index(self, arg0, arg1, arg2):
        _todo("find_actor_actuator_index", "tendons and MJCF actuators are not mapped to Newton yet")

    def find_actor_fixed_tendon_joint_index(self, arg0, arg1, arg2, arg3):
        _todo("find_actor_fixed_tendon_joint_index", "tendons and MJCF actuators are not mapped to Newton yet")

    def find_actor_tendon_index(self, arg0, arg1, arg2):
        _todo("find_actor_tendon_index", "tendons and MJCF actuators are not mapped to Newton yet")

    def free_texture(self, arg0, arg1):
        _todo("free_texture", "camera sensors are being implemented")

    def get_actor_actuator_count(self, arg0, arg1):
        _todo("get_actor_actuator_count", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_actuator_joint_name(self, arg0, arg1, arg2):
        _todo("get_actor_actuator_joint_name", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_actuator_name(self, arg0, arg1, arg2):
        _todo("get_actor_actuator_name", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_actuator_properties(self, arg0, arg1):
        _todo("get_actor_actuator_properties", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_dof_forces(self, arg0, arg1):
        _todo("get_actor_dof_forces", "actor properties and controls are being implemented")

    def get_actor_dof_position_targets(self, *args, **kwargs):
        _todo("get_actor_dof_position_targets", "actor properties and controls are being implemented")

    def get_actor_dof_properties(self, *args, **kwargs):
        _todo("get_actor_dof_properties", "actor properties and controls are being implemented")

    def get_actor_dof_velocity_targets(self, *args, **kwargs):
        _todo("get_actor_dof_velocity_targets", "actor properties and controls are being implemented")

    def get_actor_fixed_tendon_joint_coefficients(self, arg0, arg1, arg2):
        _todo("get_actor_fixed_tendon_joint_coefficients", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_fixed_tendon_joint_name(self, arg0, arg1, arg2, arg3):
        _todo("get_actor_fixed_tendon_joint_name", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_force_sensor(self, arg0, arg1, arg2):
        _todo("get_actor_force_sensor", "the tensor API is being implemented")

    def get_actor_force_sensor_count(self, arg0, arg1):
        _todo("get_actor_force_sensor_count", "the tensor API is being implemented")

    def get_actor_rigid_body_properties(self, arg0, arg1):
        _todo("get_actor_rigid_body_properties", "actor properties and controls are being implemented")

    def get_actor_rigid_shape_properties(self, arg0, arg1):
        _todo("get_actor_rigid_shape_properties", "actor properties and controls are being implemented")

    def get_actor_scale(self, arg0, arg1):
        _todo("get_actor_scale", "actor properties and controls are being implemented")

    def get_actor_soft_body_count(self, arg0, arg1):
        _unsupported("get_actor_soft_body_count", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_actor_soft_materials(self, arg0, arg1):
        _unsupported("get_actor_soft_materials", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_actor_tendon_count(self, arg0, arg1):
        _todo("get_actor_tendon_count", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_tendon_name(self, arg0, arg1, arg2):
        _todo("get_actor_tendon_name", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_tendon_offset(self, arg0, arg1, arg2):
        _todo("get_actor_tendon_offset", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_tendon_properties(self, arg0, arg1):
        _todo("get_actor_tendon_properties", "tendons and MJCF actuators are not mapped to Newton yet")

    def get_actor_tetrahedra_range(self, arg0, arg1, arg2):
        _unsupported("get_actor_tetrahedra_range", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_actor_triangle_range(self, arg0, arg1, arg2):
        _unsupported("get_actor_triangle_range", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_asset_dof_properties(self, *args, **kwargs):
        _todo("get_asset_dof_properties", "actor properties and controls are being implemented")

    def get_asset_rigid_shape_properties(self, arg0):
        _todo("get_asset_rigid_shape_properties", "actor properties and controls are being implemented")

    def get_attractor_properties(self, arg0, arg1):
        _todo("get_attractor_properties", "rigid body attractors are being implemented")

    def get_camera_image(self, arg0, arg1, arg2, arg3):
        _todo("get_camera_image", "camera sensors are being implemented")

    def get_camera_image_gpu_tensor(self, arg0, arg1, arg2, arg3):
        _todo("get_camera_image_gpu_tensor", "the tensor API is being implemented")

    def get_camera_proj_matrix(self, arg0, arg1, arg2):
        _todo("get_camera_proj_matrix", "camera sensors are being implemented")

    def get_camera_transform(self, arg0, arg1, arg2):
        _todo("get_camera_transform", "camera sensors are being implemented")

    def get_camera_view_matrix(self, arg0, arg1, arg2):
        _todo("get_camera_view_matrix", "camera sensors are being implemented")

    def get_dof_position(self, arg0, arg1):
        _todo("get_dof_position", "actor properties and controls are being implemented")

    def get_dof_target_position(self, arg0, arg1):
        _todo("get_dof_target_position", "actor properties and controls are being implemented")

    def get_dof_target_velocity(self, arg0, arg1):
        _todo("get_dof_target_velocity", "actor properties and controls are being implemented")

    def get_dof_velocity(self, arg0, arg1):
        _todo("get_dof_velocity", "actor properties and controls are being implemented")

    def get_env_rigid_contact_forces(self, arg0):
        _todo("get_env_rigid_contact_forces", "contact reports are being implemented")

    def get_env_rigid_contacts(self, arg0):
        _todo("get_env_rigid_contacts", "contact reports are being implemented")

    def get_joint_position(self, arg0, arg1):
        _todo("get_joint_position", "actor properties and controls are being implemented")

    def get_joint_target_position(self, arg0, arg1):
        _todo("get_joint_target_position", "actor properties and controls are being implemented")

    def get_joint_target_velocity(self, arg0, arg1):
        _todo("get_joint_target_velocity", "actor properties and controls are being implemented")

    def get_joint_velocity(self, arg0, arg1):
        _todo("get_joint_velocity", "actor properties and controls are being implemented")

    def get_performance_timers(self, arg0, arg1):
        _todo("get_performance_timers", "performance timers are being implemented")

    def get_pneumatic_pressure(self, arg0, arg1, arg2):
        _unsupported("get_pneumatic_pressure", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_pneumatic_target(self, arg0, arg1, arg2):
        _unsupported("get_pneumatic_target", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_rigid_body_color(self, arg0, arg1, arg2, arg3):
        _todo("get_rigid_body_color", "actor properties and controls are being implemented")

    def get_rigid_body_segmentation_id(self, arg0, arg1, arg2):
        _todo("get_rigid_body_segmentation_id", "actor properties and controls are being implemented")

    def get_rigid_body_texture(self, arg0, arg1, arg2, arg3):
        _todo("get_rigid_body_texture", "camera sensors are being implemented")

    def get_rigid_contact_forces(self, arg0):
        _todo("get_rigid_contact_forces", "contact reports are being implemented")

    def get_rigid_contacts(self, arg0):
        _todo("get_rigid_contacts", "contact reports are being implemented")

    def get_sensor(self, arg0, arg1):
        _todo("get_sensor", "the tensor API is being implemented")

    def get_sim_force_sensor_count(self, arg0):
        _todo("get_sim_force_sensor_count", "the tensor API is being implemented")

    def get_sim_tetrahedra(self, arg0):
        _unsupported("get_sim_tetrahedra", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_sim_tetrahedra_count(self, arg0):
        _unsupported("get_sim_tetrahedra_count", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_sim_triangle_count(self, arg0):
        _unsupported("get_sim_triangle_count", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_sim_triangles(self, arg0):
        _unsupported("get_sim_triangles", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_soft_contacts(self, arg0):
        _unsupported("get_soft_contacts", "soft bodies, particles and pneumatics are not mapped to Newton")

    def get_usd_export_root(self, arg0):
        _todo("get_usd_export_root", "USD export is being implemented")

    def get_vec_env_rigid_contact_forces(self, arg0):
        _todo("get_vec_env_rigid_contact_forces", "contact reports are being implemented")

    def get_viewer_camera_handle(self, arg0):
        _todo("get_viewer_camera_handle", "the viewer is being implemented")

    def get_viewer_camera_transform(self, arg0, arg1):
        _todo("get_viewer_camera_transform", "the viewer is being implemented")

    def get_viewer_mouse_position(self, arg0):
        _todo("get_viewer_mouse_position", "the viewer is being implemented")

    def get_viewer_size(self, arg0):
        _todo("get_viewer_size", "the viewer is being implemented")

    def omni_connect(self, arg0):
        _todo("omni_connect", "USD export is being implemented")

    def omni_disconnect(self):
        _todo("omni_disconnect", "USD export is being implemented")

    def poll_viewer_events(self, arg0):
        _todo("poll_viewer_events", "the viewer is being implemented")

    def query_viewer_action_events(self, arg0):
        _todo("query_viewer_action_events", "the viewer is being implemented")

    def query_viewer_has_closed(self, arg0):
        _todo("query_viewer_has_closed", "the viewer is being implemented")

    def refresh_actor_root_state_tensor(self, arg0):
        _todo("refresh_actor_root_state_tensor", "the tensor API is being implemented")

    def refresh_dof_force_tensor(self, arg0):
        _todo("refresh_dof_force_tensor", "the tensor API is being implemented")

    def refresh_dof_state_tensor(self, arg0):
        _todo("refresh_dof_state_tensor", "the tensor API is being implemented")

    def refresh_force_sensor_tensor(self, arg0):
        _todo("refresh_force_sensor_tensor", "the tensor API is being implemented")

    def refresh_jacobian_tensors(self, arg0):
        _todo("refresh_jacobian_tensors", "the tensor API is being implemented")

    def refresh_mass_matrix_tensors(self, arg0):
        _todo("refresh_mass_matrix_tensors", "the tensor API is being implemented")

    def refresh_net_contact_force_tensor(self, arg0):
        _todo("refresh_net_contact_force_tensor", "the tensor API is being implemented")

    def refresh_particle_state_tensor(self, arg0):
        _todo("refresh_particle_state_tensor", "the tensor API is being implemented")

    def refresh_pneumatic_pressure_tensor(self, arg0):
        _todo("refresh_pneumatic_pressure_tensor", "the tensor API is being implemented")

    def refresh_pneumatic_target_tensor(self, arg0):
        _todo("refresh_pneumatic_target_tensor", "the tensor API is being implemented")

    def refresh_rigid_body_state_tensor(self, arg0):
        _todo("refresh_rigid_body_state_tensor", "the tensor API is being implemented")

    def render_all_camera_sensors(self, arg0):
        _todo("render_all_camera_sensors", "camera sensors are being implemented")

    def reset_actor_materials(self, arg0, arg1, arg2):
        _todo("reset_actor_materials", "actor properties and controls are being implemented")

    def reset_actor_particles_to_rest(self, arg0, arg1):
        _unsupported("reset_actor_particles_to_rest", "soft bodies, particles and pneumatics are not mapped to Newton")

    def set_actor_dof_position_targets(self, *args, **kwargs):
        _todo("set_actor_dof_position_targets", "actor properties and controls are being implemented")

    def set_actor_dof_properties(self, arg0, arg1, arg2):
        _todo("set_actor_dof_properties", "actor properties and controls are being implemented")

    def set_actor_dof_velocity_targets(self, *args, **kwargs):
        _todo("set_actor_dof_velocity_targets", "actor properties and controls are being implemented")

    def set_actor_fixed_tendon_joint_coefficients(self, arg0, arg1, arg2, arg3):
        _todo("set_actor_fixed_tendon_joint_coefficients", "tendons and MJCF actuators are not mapped to Newton yet")

    def set_actor_rigid_body_properties(self, env, actorHandle, props, recomputeInertia = None):
        _todo("set_actor_rigid_body_properties", "actor properties and controls are being implemented")

    def set_actor_rigid_shape_properties(self, arg0, arg1, arg2):
        _todo("set_actor_rigid_shape_properties", "actor properties and controls are being implemented")

    def set_actor_root_state_tensor(self, arg0, arg1):
        _todo("set_actor_root_state_tensor", "the tensor API is being implemented")

    def set_actor_root_state_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_actor_root_state_tensor_indexed", "the tensor API is being implemented")

    def set_actor_scale(self, arg0, arg1, arg2):
        _todo("set_actor_scale", "actor properties and controls are being implemented")

    def set_actor_soft_materials(self, arg0, arg1, arg2):
        _unsupported("set_actor_soft_materials", "soft bodies, particles and pneumatics are not mapped to Newton")

    def set_actor_tendon_offset(self, arg0, arg1, arg2, arg3):
        _todo("set_actor_tendon_offset", "tendons and MJCF actuators are not mapped to Newton yet")

    def set_actor_tendon_properties(self, arg0, arg1, arg2):
        _todo("set_actor_tendon_properties", "tendons and MJCF actuators are not mapped to Newton yet")

    def set_asset_rigid_shape_properties(self, arg0, arg1):
        _todo("set_asset_rigid_shape_properties", "actor properties and controls are being implemented")

    def set_attractor_properties(self, arg0, arg1, arg2):
        _todo("set_attractor_properties", "rigid body attractors are being implemented")

    def set_attractor_target(self, arg0, arg1, arg2):
        _todo("set_attractor_target", "rigid body attractors are being implemented")

    def set_camera_location(self, arg0, arg1, arg2, arg3):
        _todo("set_camera_location", "camera sensors are being implemented")

    def set_camera_transform(self, arg0, arg1, arg2):
        _todo("set_camera_transform", "camera sensors are being implemented")

    def set_dof_actuation_force_tensor(self, arg0, arg1):
        _todo("set_dof_actuation_force_tensor", "the tensor API is being implemented")

    def set_dof_actuation_force_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_dof_actuation_force_tensor_indexed", "the tensor API is being implemented")

    def set_dof_position_target_tensor(self, arg0, arg1):
        _todo("set_dof_position_target_tensor", "the tensor API is being implemented")

    def set_dof_position_target_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_dof_position_target_tensor_indexed", "the tensor API is being implemented")

    def set_dof_state_tensor(self, arg0, arg1):
        _todo("set_dof_state_tensor", "the tensor API is being implemented")

    def set_dof_state_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_dof_state_tensor_indexed", "the tensor API is being implemented")

    def set_dof_target_position(self, arg0, arg1, arg2):
        _todo("set_dof_target_position", "actor properties and controls are being implemented")

    def set_dof_target_velocity(self, arg0, arg1, arg2):
        _todo("set_dof_target_velocity", "actor properties and controls are being implemented")

    def set_dof_velocity_target_tensor(self, arg0, arg1):
        _todo("set_dof_velocity_target_tensor", "the tensor API is being implemented")

    def set_dof_velocity_target_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_dof_velocity_target_tensor_indexed", "the tensor API is being implemented")

    def set_joint_target_position(self, arg0, arg1, arg2):
        _todo("set_joint_target_position", "actor properties and controls are being implemented")

    def set_joint_target_velocity(self, arg0, arg1, arg2):
        _todo("set_joint_target_velocity", "actor properties and controls are being implemented")

    def set_light_parameters(self, arg0, arg1, arg2, arg3, arg4):
        _todo("set_light_parameters", "camera sensors are being implemented")

    def set_particle_state_tensor(self, arg0, arg1):
        _todo("set_particle_state_tensor", "the tensor API is being implemented")

    def set_particle_state_tensor_indexed(self, arg0, arg1, arg2, arg3):
        _todo("set_particle_state_tensor_indexed", "the tensor API is being implemented")

    def set_pneumatic_pressure(self, arg0, arg1, arg2, arg3):
        _unsupported("set_pneumatic_pressure", "soft bodies, particles and pneumatics are not mapped to Newton")

    def set_pneumatic_pressure_tensor(self, arg0, arg1):
        _todo("set_pneumatic_pressure_tensor", "the tensor API is being implemented")

    def set_pneumatic_pressure_tensor_indexed(self, arg0, arg1):
        _todo("set_pneumatic_pressure_tensor_indexed", "the tensor API is being implemented")

    def set_pneumatic_target(self, arg0, arg1, arg2, arg3):
        _unsupported("set_pneumatic_target", "soft bodies, particles and pneumatics are not mapped to Newton")

    def set_pneumatic_target_tensor(self, arg0, arg1):
        _todo("set_pneumatic_target_tensor", "the tensor API is being implemented")

    def set_pneumatic_target_tensor_indexed(self, arg0, arg1):
        _todo("set_pneumatic_target_tensor_indexed", "the tensor API is being implemented")

    def set_rigid_body_color(self, arg0, arg1, arg2, arg3, arg4):
        _todo("set_rigid_body_color", "actor properties and controls are being implemented")

    def set_rigid_body_segmentation_id(self, arg0, arg1, arg2, arg3):
        _todo("set_rigid_body_segmentation_id", "actor properties and controls are being implemented")

    def set_rigid_body_state_tensor(self, arg0, arg1):
        _todo("set_rigid_body_state_tensor", "the tensor API is being implemented")

    def set_rigid_body_texture(self, arg0, arg1, arg2, arg3, arg4):
        _todo("set_rigid_body_texture", "camera sensors are being implemented")

    def set_usd_export_root(self, arg0, arg1):
        _todo("set_usd_export_root", "USD export is being implemented")

    def start_access_image_tensors(self, arg0):
        _todo("start_access_image_tensors", "the tensor API is being implemented")

    def step_graphics(self, arg0):
        _todo("step_graphics", "the viewer is being implemented")

    def subscribe_viewer_keyboard_event(self, arg0, arg1, arg2):
        _todo("subscribe_viewer_keyboard_event", "the viewer is being implemented")

    def subscribe_viewer_mouse_event(self, arg0, arg1, arg2):
        _todo("subscribe_viewer_mouse_event", "the viewer is being implemented")

    def sync_frame_time(self, arg0):
        _todo("sync_frame_time", "the viewer is being implemented")

    def viewer_camera_look_at(self, arg0, arg1, arg2, arg3):
        _todo("viewer_camera_look_at", "the viewer is being implemented")

    def write_camera_image_to_file(self, arg0, arg1, arg2, arg3, arg4):
        _todo("write_camera_image_to_file", "camera sensors are being implemented")

    def write_viewer_image_to_file(self, arg0, arg1):
        _todo("write_viewer_image_to_file", "the viewer is being implemented")


def _register(sim, asset):
    sim.assets.append(asset)
    return asset


_GYM = None


def acquire_gym(*args, **kwargs):
    """The Gym singleton (as in Isaac Gym)."""
    global _GYM
    if _GYM is None:
        _GYM = Gym()
    return _GYM


def carb_init(config_str=""):
    return True
