"""The Isaac Gym `Gym` methods gymlike does not provide, with the reason: one table, from which
gymapi makes the methods (each raises NotImplementedError naming the method and the reason) and
python_bindings_docs/generate.py the compatibility table."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from .errors import GymlikeNotImplementedError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

UNSUPPORTED = "unsupported"   # cannot be done on Newton
NOT_YET = "not yet"           # planned

_PNEUMATIC = ("pneumatic soft actuators (FleX pressure constraints) have no counterpart in Newton 1.8, which "
              "has no pressure or volume constraint for closed meshes")

# name: (status, parameters after self, reason)
STUBS = {
    "set_sim_device": (UNSUPPORTED, "sim", 'the device is chosen once, by create_sim'),
    "load_sim": (UNSUPPORTED, "*args", 'PhysX scene files cannot be loaded into Newton'),
    "attach_sim": (UNSUPPORTED, "*args", 'there is no external PhysX scene to attach to'),
    "load_opensim": (UNSUPPORTED, "sim rootpath filename options", 'OpenSim models have no Newton importer'),
    "destroy_env": (UNSUPPORTED, "env", 'Newton worlds cannot be removed from a model'),
    "get_sensor": (UNSUPPORTED, "env index", 'Isaac Gym documents it as N/A; use get_actor_force_sensor'),
    "acquire_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0", _PNEUMATIC),
    "acquire_pneumatic_target_tensor": (UNSUPPORTED, "arg0", _PNEUMATIC),
    "get_pneumatic_pressure": (UNSUPPORTED, "arg0 arg1 arg2", _PNEUMATIC),
    "get_pneumatic_target": (UNSUPPORTED, "arg0 arg1 arg2", _PNEUMATIC),
    "omni_connect": (UNSUPPORTED, "arg0", 'Omniverse Nucleus connections are not part of gymlike'),
    "omni_disconnect": (UNSUPPORTED, "", 'Omniverse Nucleus connections are not part of gymlike'),
    "refresh_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0", _PNEUMATIC),
    "refresh_pneumatic_target_tensor": (UNSUPPORTED, "arg0", _PNEUMATIC),
    "set_actor_fixed_tendon_joint_coefficients": (NOT_YET, "arg0 arg1 arg2 arg3",
                                                  'MuJoCo shares tendon coefficients between envs; set them on the '
                                                  'asset with set_asset_fixed_tendon_joint_coefficients'),
    "set_pneumatic_pressure": (UNSUPPORTED, "arg0 arg1 arg2 arg3", _PNEUMATIC),
    "set_pneumatic_pressure_tensor": (UNSUPPORTED, "arg0 arg1", _PNEUMATIC),
    "set_pneumatic_pressure_tensor_indexed": (UNSUPPORTED, "arg0 arg1", _PNEUMATIC),
    "set_pneumatic_target": (UNSUPPORTED, "arg0 arg1 arg2 arg3", _PNEUMATIC),
    "set_pneumatic_target_tensor": (UNSUPPORTED, "arg0 arg1", _PNEUMATIC),
    "set_pneumatic_target_tensor_indexed": (UNSUPPORTED, "arg0 arg1", _PNEUMATIC),
}


def make(name: str) -> Callable[..., NoReturn]:
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
