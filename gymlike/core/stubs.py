"""The Isaac Gym `Gym` methods gymlike does not provide, with the reason: one table, from which
gymapi makes the methods (each raises NotImplementedError naming the method and the reason) and
python_bindings_docs/generate.py the compatibility table."""

import inspect

from .errors import GymlikeNotImplementedError

UNSUPPORTED = "unsupported"   # cannot be done on Newton
NOT_YET = "not yet"           # planned

_SOFT = "soft bodies, particles and pneumatics are not mapped to Newton"

# name: (status, parameters after self, reason)
STUBS = {
    "set_sim_device": (UNSUPPORTED, "sim", 'the device is chosen once, by create_sim'),
    "load_sim": (UNSUPPORTED, "*args", 'PhysX scene files cannot be loaded into Newton'),
    "attach_sim": (UNSUPPORTED, "*args", 'there is no external PhysX scene to attach to'),
    "load_opensim": (UNSUPPORTED, "sim rootpath filename options", 'OpenSim models have no Newton importer'),
    "create_tet_grid": (UNSUPPORTED, "*args **kwargs", 'soft bodies (FEM tetrahedra) are not mapped to Newton'),
    "create_cloth_grid": (UNSUPPORTED, "*args **kwargs", 'cloth is not mapped to Newton'),
    "get_asset_soft_materials": (UNSUPPORTED, "asset", 'soft bodies are not mapped to Newton'),
    "destroy_env": (UNSUPPORTED, "env", 'Newton worlds cannot be removed from a model'),
    "get_sensor": (UNSUPPORTED, "env index", 'Isaac Gym documents it as N/A; use get_actor_force_sensor'),
    "acquire_particle_state_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "acquire_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "acquire_pneumatic_target_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "get_actor_soft_materials": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "get_actor_tetrahedra_range": (UNSUPPORTED, "arg0 arg1 arg2", _SOFT),
    "get_actor_triangle_range": (UNSUPPORTED, "arg0 arg1 arg2", _SOFT),
    "get_pneumatic_pressure": (UNSUPPORTED, "arg0 arg1 arg2", _SOFT),
    "get_pneumatic_target": (UNSUPPORTED, "arg0 arg1 arg2", _SOFT),
    "get_sim_tetrahedra": (UNSUPPORTED, "arg0", _SOFT),
    "get_sim_tetrahedra_count": (UNSUPPORTED, "arg0", _SOFT),
    "get_sim_triangle_count": (UNSUPPORTED, "arg0", _SOFT),
    "get_sim_triangles": (UNSUPPORTED, "arg0", _SOFT),
    "get_soft_contacts": (UNSUPPORTED, "arg0", _SOFT),
    "omni_connect": (UNSUPPORTED, "arg0", 'Omniverse Nucleus connections are not part of gymlike'),
    "omni_disconnect": (UNSUPPORTED, "", 'Omniverse Nucleus connections are not part of gymlike'),
    "refresh_particle_state_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "refresh_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "refresh_pneumatic_target_tensor": (UNSUPPORTED, "arg0", _SOFT),
    "reset_actor_particles_to_rest": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "set_actor_fixed_tendon_joint_coefficients": (NOT_YET, "arg0 arg1 arg2 arg3", 'MuJoCo shares tendon coefficients between envs; set them on the asset with set_asset_fixed_tendon_joint_coefficients'),
    "set_actor_soft_materials": (UNSUPPORTED, "arg0 arg1 arg2", _SOFT),
    "set_particle_state_tensor": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "set_particle_state_tensor_indexed": (UNSUPPORTED, "arg0 arg1 arg2 arg3", _SOFT),
    "set_pneumatic_pressure": (UNSUPPORTED, "arg0 arg1 arg2 arg3", _SOFT),
    "set_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "set_pneumatic_pressure_tensor_indexed": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "set_pneumatic_target": (UNSUPPORTED, "arg0 arg1 arg2 arg3", _SOFT),
    "set_pneumatic_target_tensor": (UNSUPPORTED, "arg0 arg1", _SOFT),
    "set_pneumatic_target_tensor_indexed": (UNSUPPORTED, "arg0 arg1", _SOFT),
}


def make(name):
    """The Gym method `name`: raises NotImplementedError with the table's reason."""
    status, params, reason = STUBS[name]
    verb = "is not supported by gymlike" if status == UNSUPPORTED else "is not implemented in gymlike yet"

    def stub(self, *args, **kwargs):
        raise GymlikeNotImplementedError(f"gymapi.Gym.{name} {verb}: {reason}")
    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = f"{status}: {reason}"
    kinds = {"*": inspect.Parameter.VAR_POSITIONAL, "**": inspect.Parameter.VAR_KEYWORD}
    stub.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(p.lstrip("*"), kinds.get(p[:len(p) - len(p.lstrip("*"))],
                                                      inspect.Parameter.POSITIONAL_OR_KEYWORD))
           for p in params.split()])
    return stub
