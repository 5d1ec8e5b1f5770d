"""Isaac Gym's `gymutil` module: command-line parsing, sim-parameter configs, domain-randomization
helpers and line geometry for the viewer.

Same names, signatures and results as Isaac Gym's `isaacgym.gymutil`:

* `parse_arguments(description, headless, no_graphics, custom_parameters)` -> argparse Namespace
  with `physics_engine`, `sim_device`, `sim_device_type`, `compute_device_id`,
  `graphics_device_id`, `pipeline`, `use_gpu`, `use_gpu_pipeline`, `num_threads`, `subscenes`,
  `slices`, `physx`, `flex` (and `headless` / `nographics` when asked for).
* `parse_device_str`, `parse_sim_config(sim_cfg, sim_options)` (the keys Isaac Gym reads, converted
  as it converts them; other keys ignored with a warning), `parse_physx_config`,
  `parse_flex_config`, `parse_float_int_bool(cfg, opts, float_int_bool)`, `parse_bool`, gymlike's
  `parse_sim_params(args, cfg, sim_params)`, and `_indent_xml` (IsaacGymEnvs builds MJCF files
  with it).
* `get_property_setter_map`, `get_property_getter_map`, `get_default_setter_args`,
  `generate_random_samples`, `apply_random_samples`, `get_bucketed_val`, `check_buckets`.
* `LineGeometry`, `AxesGeometry`, `WireframeBoxGeometry`, `WireframeBBoxGeometry`,
  `WireframeSphereGeometry`, `draw_lines`, `draw_line`.

Where Isaac Gym accepts an input gymlike accepts it too (python_bindings_docs/leniency.md).
Differences (python_bindings_docs/gymutil.md): `--flex` with a CPU `--sim_device` keeps the CPU
(Newton's XPBD runs there; Isaac Gym switched to cuda:0), and on a machine without CUDA the default
`cuda:0` device and GPU pipeline become the CPU in the parsed arguments, with one warning, as do
the script's own device parameters (`--rl_device cuda:0`), so scripts that pick their torch
device from `args` run.
"""

from __future__ import annotations

import argparse
import ctypes
import math
import sys
from abc import ABC, abstractmethod
from bisect import bisect

import numpy as np

from . import gymapi
from .core.errors import GymlikeTypeError, GymlikeValueError
from .core.errors import warn
from .core.runtime import torch as _torch

# What `from isaacgym.gymutil import *` gives in Isaac Gym (its module has no __all__: every public
# name, the modules it imports included), plus gymlike's parse_sim_params.
__all__ = [
    "parse_device_str", "parse_arguments", "parse_sim_config", "parse_sim_params",
    "parse_physx_config", "parse_flex_config", "parse_bool", "parse_float_int_bool",
    "get_property_setter_map", "get_property_getter_map", "get_default_setter_args",
    "generate_random_samples", "apply_random_samples", "get_bucketed_val", "check_buckets",
    "LineGeometry", "AxesGeometry", "WireframeBoxGeometry", "WireframeBBoxGeometry",
    "WireframeSphereGeometry", "draw_lines", "draw_line",
    "gymapi", "np", "math", "argparse", "ABC", "abstractmethod", "bisect",
]


# ============================================================================ command line
def parse_device_str(device_str):
    """'cpu' -> ('cpu', 0), 'cuda' -> ('cuda', 0), 'cuda:N' -> ('cuda', N)."""
    if not isinstance(device_str, str):
        raise GymlikeTypeError(f"parse_device_str: device must be a str such as 'cpu' or 'cuda:0', "
                               f"got {type(device_str).__name__}")
    text = device_str.strip()
    if text in ("cpu", "cuda"):
        return text, 0
    kind, sep, index = text.partition(":")
    if kind != "cuda" or not sep:
        raise GymlikeValueError(f"parse_device_str: invalid device string {device_str!r}; "
                                "expected 'cpu', 'cuda' or 'cuda:<id>'")
    try:
        device_id = int(index)
    except ValueError:
        raise GymlikeValueError(f"parse_device_str: invalid device string {device_str!r}; cannot parse "
                                f"{index!r} as a device id") from None
    if device_id < 0:
        raise GymlikeValueError(f"parse_device_str: device id must be >= 0, got {device_str!r}")
    return "cuda", device_id


_TRUE = ("true", "t", "yes", "y", "1", "on")
_FALSE = ("false", "f", "no", "n", "0", "off")
_bool_warned = set()


def parse_bool(v):
    """argparse type for booleans: a bool, 1/0, or 'true'/'false', 'yes'/'no', 't'/'f', 'y'/'n',
    '1'/'0' (any case; 'on'/'off' too). Isaac Gym's returns None for another string (argparse then
    stores None): so does gymlike, with a warning; other values are an argparse.ArgumentTypeError,
    as there."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        text = v.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        if v not in _bool_warned:
            _bool_warned.add(v)
            warn(f"gymutil.parse_bool: {v!r} is not a boolean (true/false, yes/no, 1/0); None, as Isaac Gym gives")
        return None
    raise argparse.ArgumentTypeError(f"Boolean value expected (true/false, yes/no, 1/0), got {v!r}")


def parse_float_int_bool(cfg, opts, float_int_bool):
    """Copy the options named in `float_int_bool` ({"float": [...], "int": [...], "bool": [...]})
    from the dict `cfg` onto the object `opts`, converted with float(), int() (ContactCollection for
    `contact_collection`) and bool(); options missing from `cfg` are left alone, keys of `cfg` not
    listed are ignored (Isaac Gym's helper behind parse_physx_config / parse_flex_config)."""
    for kind, convert in (("float", float), ("int", int), ("bool", bool)):
        for opt in float_int_bool.get(kind, ()) if hasattr(float_int_bool, "get") else ():
            if opt not in cfg:
                continue
            value = cfg[opt]
            try:
                if kind == "int" and opt == "contact_collection":
                    value = gymapi.ContactCollection(int(value))
                else:
                    value = convert(_scalar(value))
            except (TypeError, ValueError) as e:
                raise GymlikeValueError(f"parse_float_int_bool: {opt} must be {'an' if kind == 'int' else 'a'} "
                                        f"{kind}, got {cfg[opt]!r} ({e})") from None
            setattr(opts, opt, value)
    return opts


def _scalar(value):
    """A one-element array or tensor as its number (float() and int() take them; bool() would
    not), anything else unchanged."""
    if hasattr(value, "item") and getattr(value, "size", None) is not None and np.size(value) == 1:
        return value.item()
    return value


def _indent_xml(elem, level=0):
    """Indent an XML element tree in place (two spaces per level, one element per line when
    written), as Isaac Gym's helper does: any ElementTree-style element (xml.etree, lxml);
    returns the element."""
    pad = "\n" + "  " * level
    children = list(elem)
    if children:
        if not (elem.text or "").strip():
            elem.text = pad + "  "
        for child in children:
            _indent_xml(child, level + 1)
        last = children[-1]
        if not (last.tail or "").strip():
            last.tail = pad                  # the closing tag of elem starts on its own line
    if not (elem.tail or "").strip() and (level or children):
        elem.tail = pad
    return elem


def _cuda_available():
    """Whether torch, where client code puts its tensors, can use CUDA. Without a loadable CUDA
    driver the answer is no without importing torch (~3 s: scripts that never use torch)."""
    if "torch" not in sys.modules and not _cuda_driver_loadable():
        return False
    try:
        return _torch().cuda.is_available()
    except ImportError:
        return False


def _cuda_driver_loadable():
    """Whether the CUDA driver library loads (torch.cuda needs it); True where gymlike does not
    know its name (torch decides there)."""
    if sys.platform == "darwin":
        return False
    name = {"linux": "libcuda.so.1", "win32": "nvcuda.dll"}.get(sys.platform)
    if name is None:
        return True
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def _add_custom_parameter(parser, spec):
    """One of parse_arguments' custom parameters, read as Isaac Gym reads it: `name` and `type`
    (with `default` and `help`) or `action` (with `help`); other keys (choices, required, ...)
    are ignored there, so they are here (honouring `required` or `choices` would refuse command
    lines Isaac Gym accepts)."""
    if not isinstance(spec, dict) or "name" not in spec or not ("type" in spec or "action" in spec):
        print("\nERROR: custom parameter skipped (each needs 'name' and 'type' or 'action'; supported keys: "
              f"name, type, default, action, help): {spec!r}\n", file=sys.stderr)
        return
    kwargs = {"help": spec.get("help", "")}
    if "type" in spec:                 # Isaac Gym gives 'type' precedence over 'action'
        kwargs["type"] = spec["type"]
        if "default" in spec:
            kwargs["default"] = spec["default"]
    else:
        kwargs["action"] = spec["action"]
    parser.add_argument(spec["name"], **kwargs)


def _custom_devices_to_cpu(args, custom_parameters):
    """A script's own device parameters (a custom parameter named like `--rl_device`) set to a CUDA
    device on a machine without CUDA become 'cpu', with one warning, as --sim_device does: training
    scripts (legged_gym's `--rl_device`, default cuda:0) then run unchanged."""
    moved = []
    for spec in custom_parameters:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or "device" not in spec["name"]:
            continue
        dest = spec.get("dest") or spec["name"].lstrip("-").replace("-", "_")
        value = getattr(args, dest, None)
        if isinstance(value, str) and (value == "cuda" or value.startswith("cuda:")):
            moved.append(f"--{dest} {value}")
            setattr(args, dest, "cpu")
    if moved:
        warn(f"gymutil.parse_arguments: CUDA is not available; {', '.join(moved)} set to 'cpu'")


def parse_arguments(description="Isaac Gym Example", headless=False, no_graphics=False, custom_parameters=[]):
    """Parse sys.argv with Isaac Gym's standard flags plus `custom_parameters` (a list of dicts with
    keys name, type or action, default, help). Returns the argparse Namespace Isaac Gym returns."""
    parser = argparse.ArgumentParser(description=description)
    if headless:
        parser.add_argument("--headless", action="store_true", help="Run headless without creating a viewer window")
    if no_graphics:
        parser.add_argument("--nographics", action="store_true",
                            help="Disable graphics context creation; no viewer window and no rendering")
    parser.add_argument("--sim_device", type=str, default="cuda:0", help="Physics device in PyTorch syntax "
                        "(cpu, cuda, cuda:N); gymlike runs on the CPU when CUDA is unavailable")
    parser.add_argument("--pipeline", type=str, default="gpu", help="Tensor API pipeline (cpu/gpu)")
    parser.add_argument("--graphics_device_id", type=int, default=0, help="Graphics device id (-1: no graphics)")
    engines = parser.add_mutually_exclusive_group()
    engines.add_argument("--flex", action="store_true", help="SIM_FLEX (Newton XPBD)")
    engines.add_argument("--physx", action="store_true", help="SIM_PHYSX (Newton MuJoCo-Warp; the default)")
    parser.add_argument("--num_threads", type=int, default=0, help="Number of PhysX threads (accepted, unused)")
    parser.add_argument("--subscenes", type=int, default=0, help="Number of PhysX subscenes (accepted, unused)")
    parser.add_argument("--slices", type=int, help="Number of client threads that process env slices")
    for spec in custom_parameters or []:
        _add_custom_parameter(parser, spec)

    args = parser.parse_args()

    try:
        args.sim_device_type, args.compute_device_id = parse_device_str(args.sim_device)
    except GymlikeValueError as e:
        parser.error(str(e))
    pipeline = args.pipeline.lower()
    if pipeline not in ("cpu", "gpu", "cuda"):
        parser.error(f"invalid --pipeline {args.pipeline!r}; expected cpu or gpu")
    args.use_gpu_pipeline = pipeline in ("gpu", "cuda")
    if args.sim_device_type == "cuda" and not _cuda_available():
        # Isaac Gym's defaults (cuda:0, GPU pipeline) on a machine without CUDA: run on the CPU
        warn(f"gymutil.parse_arguments: CUDA is not available; --sim_device {args.sim_device} and "
             f"--pipeline {args.pipeline} run on the CPU (sim_device 'cpu', pipeline 'cpu')")
        args.sim_device, args.sim_device_type = "cpu", "cpu"
        args.pipeline, args.use_gpu_pipeline = "cpu", False
    if not _cuda_available():
        _custom_devices_to_cpu(args, custom_parameters or [])
    if args.sim_device_type != "cuda" and args.use_gpu_pipeline:
        print("Can't use GPU pipeline with CPU Physics. Changing pipeline to 'CPU'.")
        args.pipeline = "CPU"
        args.use_gpu_pipeline = False

    args.physics_engine = gymapi.SIM_FLEX if args.flex else gymapi.SIM_PHYSX
    args.use_gpu = args.sim_device_type == "cuda"
    if no_graphics and args.nographics:
        args.headless = True          # --nographics implies --headless
    if args.slices is None:
        args.slices = args.subscenes
    return args


# ============================================================================ sim parameters
# The options Isaac Gym's parse_physx_config / parse_flex_config read, by the type they convert to.
PHYSX_OPTIONS = {
    "int": ["num_threads", "solver_type", "num_position_iterations", "num_velocity_iterations",
            "max_gpu_contact_pairs", "num_subscenes", "contact_collection"],
    "float": ["contact_offset", "rest_offset", "bounce_threshold_velocity", "max_depenetration_velocity",
              "default_buffer_size_multiplier", "friction_correlation_distance", "friction_offset_threshold"],
    "bool": ["use_gpu", "always_use_articulations"],
}
FLEX_OPTIONS = {
    "int": ["solver_type", "num_outer_iterations", "num_inner_iterations", "friction_mode"],
    "float": ["relaxation", "warm_start", "contact_regularization", "geometric_stiffness",
              "shape_collision_distance", "shape_collision_margin", "dynamic_friction", "static_friction",
              "particle_friction"],
    "bool": ["deterministic_mode"],
}
SIM_OPTIONS = ("dt", "substeps", "up_axis", "gravity", "use_gpu_pipeline", "flex", "physx")
_ignored_warned = set()


def _warn_ignored(cfg, known, where):
    """One warning per key (per process) for config keys Isaac Gym's parser does not read."""
    try:
        keys = list(cfg.keys())
    except (AttributeError, TypeError):
        return
    new = [f"{where}{k}" for k in keys if k not in known and f"{where}{k}" not in _ignored_warned]
    if new:
        _ignored_warned.update(new)
        warn(f"gymutil.parse_sim_config: ignored {', '.join(repr(k) for k in new)} (Isaac Gym's parser does "
             "not read these keys)")


def _gravity(value):
    if isinstance(value, gymapi.Vec3):
        return gymapi.Vec3(value)
    try:
        g = tuple(value)
        return gymapi.Vec3(float(_scalar(g[0])), float(_scalar(g[1])), float(_scalar(g[2])))
    except (TypeError, ValueError, IndexError):
        raise GymlikeValueError(f"parse_sim_config: gravity must be a list of 3 numbers, got {value!r}") from None


def _up_axis(value):
    if isinstance(value, str):
        name = value.strip().lower()
        if name in ("z", "up_axis_z"):
            return gymapi.UP_AXIS_Z
        if name in ("y", "up_axis_y"):
            return gymapi.UP_AXIS_Y
        raise GymlikeValueError(f"parse_sim_config: up_axis must be 'y', 'z' or an UpAxis value, got {value!r}")
    try:
        return gymapi.UpAxis(int(_scalar(value)))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"parse_sim_config: up_axis must be 0 (y), 1 (z) or an UpAxis, got {value!r}") from None


def _number(convert, value, key):
    try:
        return convert(_scalar(value))
    except (TypeError, ValueError):
        raise GymlikeValueError(f"parse_sim_config: {key} must be a number, got {value!r}") from None


def parse_sim_config(sim_cfg, sim_options):
    """Copy a config dict (the `sim:` block of a task config; any mapping, e.g. an OmegaConf
    DictConfig) onto `sim_options`, reading the keys Isaac Gym's parse_sim_config reads and
    converting as it does: dt (float), substeps (int), up_axis (0/1 or UpAxis; 'y'/'z' too),
    gravity (its first three numbers), use_gpu_pipeline (bool; False with a warning where CUDA is
    not available, as parse_arguments does), and the `physx:` / `flex:` blocks (parse_physx_config,
    parse_flex_config). Other keys are ignored, as there, with one warning naming them. Returns
    sim_options."""
    if not hasattr(sim_cfg, "__contains__") or not hasattr(sim_cfg, "__getitem__"):
        raise GymlikeTypeError(f"parse_sim_config: sim_cfg must be a dict, got {type(sim_cfg).__name__}")
    if not isinstance(sim_options, gymapi.SimParams):
        raise GymlikeTypeError(f"parse_sim_config: sim_options must be gymapi.SimParams, got "
                               f"{type(sim_options).__name__}")
    _warn_ignored(sim_cfg, SIM_OPTIONS, "")
    if "dt" in sim_cfg:
        sim_options.dt = _number(float, sim_cfg["dt"], "dt")
    if "substeps" in sim_cfg:
        sim_options.substeps = _number(int, sim_cfg["substeps"], "substeps")
    if "up_axis" in sim_cfg:
        sim_options.up_axis = _up_axis(sim_cfg["up_axis"])
    if "gravity" in sim_cfg:
        sim_options.gravity = _gravity(sim_cfg["gravity"])
    if "use_gpu_pipeline" in sim_cfg:
        gpu = bool(_scalar(sim_cfg["use_gpu_pipeline"]))
        if gpu and not _cuda_available():
            # (as parse_arguments' GPU pipeline without CUDA: code that places its tensors by
            # this flag, e.g. walk-these-ways' `cuda` device only with the GPU pipeline, then
            # keeps them on the CPU, where the sim's tensors are)
            warn("gymutil.parse_sim_config: CUDA is not available; use_gpu_pipeline True runs on the CPU "
                 "(set to False)")
            gpu = False
        sim_options.use_gpu_pipeline = gpu
    if "flex" in sim_cfg:
        parse_flex_config(sim_cfg["flex"], sim_options)
    if "physx" in sim_cfg:
        parse_physx_config(sim_cfg["physx"], sim_options)
    return sim_options


def _engine_config(cfg, sim_options, engine, options):
    if not hasattr(cfg, "__contains__") or not hasattr(cfg, "__getitem__"):
        raise GymlikeTypeError(f"parse_{engine}_config: the {engine} config must be a dict, got {type(cfg).__name__}")
    _warn_ignored(cfg, {k for names in options.values() for k in names}, engine + ".")
    parse_float_int_bool(cfg, getattr(sim_options, engine), options)
    return sim_options


def parse_physx_config(physx_cfg, sim_options):
    """Copy the PhysX options Isaac Gym reads (PHYSX_OPTIONS) from a dict onto sim_options.physx."""
    return _engine_config(physx_cfg, sim_options, "physx", PHYSX_OPTIONS)


def parse_flex_config(flex_cfg, sim_options):
    """Copy the Flex options Isaac Gym reads (FLEX_OPTIONS) from a dict onto sim_options.flex."""
    return _engine_config(flex_cfg, sim_options, "flex", FLEX_OPTIONS)


def parse_sim_params(args, cfg=None, sim_params=None):
    """SimParams for `args` (from parse_arguments): the pipeline and engine flags, then `cfg`
    (a dict holding a `sim:` block, or the block itself) via parse_sim_config, then
    `--num_threads` / `--subscenes` when given on the command line. Returns the SimParams."""
    if sim_params is None:
        sim_params = gymapi.SimParams()
    elif not isinstance(sim_params, gymapi.SimParams):
        raise GymlikeTypeError(f"parse_sim_params: sim_params must be gymapi.SimParams, "
                               f"got {type(sim_params).__name__}")
    engine = getattr(args, "physics_engine", gymapi.SIM_PHYSX)
    sim_params.use_gpu_pipeline = bool(getattr(args, "use_gpu_pipeline", False))
    if engine == gymapi.SIM_PHYSX:
        sim_params.physx.use_gpu = bool(getattr(args, "use_gpu", False))
        sim_params.physx.num_subscenes = int(getattr(args, "subscenes", 0) or 0)
    if cfg:
        parse_sim_config(cfg["sim"] if "sim" in cfg else cfg, sim_params)
    if engine == gymapi.SIM_PHYSX and int(getattr(args, "num_threads", 0) or 0) > 0:
        sim_params.physx.num_threads = int(args.num_threads)
    if getattr(args, "slices", None):
        sim_params.num_client_threads = int(args.slices)
    return sim_params


# ============================================================================ domain randomization
def get_property_setter_map(gym):
    """Property kind -> the Gym setter (used by domain randomization loops)."""
    return {
        "dof_properties": gym.set_actor_dof_properties,
        "tendon_properties": gym.set_actor_tendon_properties,
        "rigid_body_properties": gym.set_actor_rigid_body_properties,
        "rigid_shape_properties": gym.set_actor_rigid_shape_properties,
        "sim_params": gym.set_sim_params,
    }


def get_property_getter_map(gym):
    """Property kind -> the Gym getter."""
    return {
        "dof_properties": gym.get_actor_dof_properties,
        "tendon_properties": gym.get_actor_tendon_properties,
        "rigid_body_properties": gym.get_actor_rigid_body_properties,
        "rigid_shape_properties": gym.get_actor_rigid_shape_properties,
        "sim_params": gym.get_sim_params,
    }


def get_default_setter_args(gym):
    """Extra positional arguments each setter takes after (env, actor, props)."""
    return {
        "dof_properties": [],
        "tendon_properties": [],
        "rigid_body_properties": [True],     # recomputeInertia
        "rigid_shape_properties": [],
        "sim_params": [],
    }


_dr_warned = set()


def _warn_dr_once(message):
    if message not in _dr_warned:
        _dr_warned.add(message)
        warn(message)


def _schedule_scale(params, step):
    """Isaac Gym's schedule factor: linear min(step, steps) / steps, constant 0 before `steps` and 1
    after; no schedule (or one it does not know, with a warning) 1."""
    kind = params.get("schedule")
    if kind not in ("linear", "constant"):
        if kind is not None:
            _warn_dr_once(f"randomization: unknown schedule {kind!r} (expected 'linear' or 'constant'); "
                          "no schedule, as in Isaac Gym")
        return 1.0
    steps = params.get("schedule_steps")
    if not isinstance(steps, (int, float, np.integer, np.floating)) or steps <= 0:
        raise GymlikeValueError(f"randomization: schedule {kind!r} needs a positive 'schedule_steps', got {steps!r}")
    if kind == "linear":
        return min(step, steps) / steps
    return 0.0 if step < steps else 1.0


def generate_random_samples(attr_randomization_params, shape, curr_gym_step_count, extern_sample=None):
    """Samples for one randomized attribute. `attr_randomization_params` holds `range` ([lo, hi] or
    [mean, stddev]), `distribution` (uniform, loguniform, gaussian), `operation` (additive or
    scaling) and optionally `schedule` (linear, constant) with `schedule_steps`. A schedule blends
    the range (or an `extern_sample`) towards the identity (0 for additive, 1 for scaling) early in
    training. Another operation leaves the samples unscheduled (as in Isaac Gym, with a warning)."""
    p = attr_randomization_params
    try:
        dist, op = p["distribution"], p["operation"]
    except KeyError as e:
        raise GymlikeValueError(f"randomization: parameters need key {e.args[0]!r}, got keys {sorted(p)}") from None
    if op not in ("additive", "scaling"):
        _warn_dr_once(f"randomization: operation {op!r} is neither 'additive' nor 'scaling'; samples are "
                      "not scheduled (Isaac Gym's behaviour)")
    s = _schedule_scale(p, curr_gym_step_count)
    if extern_sample is not None:
        if op == "additive":
            return extern_sample * s
        if op == "scaling":
            return extern_sample * s + (1.0 - s)
        return extern_sample
    try:
        lo, hi = (float(v) for v in p["range"])
    except KeyError as e:
        raise GymlikeValueError(f"randomization: parameters need key {e.args[0]!r}, got keys {sorted(p)}") from None
    if dist not in ("gaussian", "uniform", "loguniform"):
        raise GymlikeValueError(f"randomization: distribution must be uniform, loguniform or gaussian, got {dist!r}")
    if op == "additive":
        lo, hi = lo * s, hi * s
    elif op == "scaling":      # gaussian: (mean, stddev) -> (mean blended to 1, stddev scaled)
        lo, hi = lo * s + (1.0 - s), (hi * s if dist == "gaussian" else hi * s + (1.0 - s))
    if dist == "gaussian":
        return np.random.normal(lo, hi, shape)
    if dist == "uniform":
        return np.random.uniform(lo, hi, shape)
    if lo <= 0 or hi <= 0:
        raise GymlikeValueError(f"randomization: loguniform range must be positive, got [{lo}, {hi}]")
    return np.exp(np.random.uniform(np.log(lo), np.log(hi), shape))


def get_bucketed_val(new_prop_val, attr_randomization_params):
    """Snap a value down onto one of `num_buckets` evenly spaced values spanning the range
    (uniform: [lo, hi]; gaussian: mean +- 2 sqrt(second range value)). As in Isaac Gym, a value
    below the lowest bucket gets the highest one (its bisect - 1 index wraps to -1): randomized
    properties reproduce Isaac Gym's."""
    p = attr_randomization_params
    a, b = float(p["range"][0]), float(p["range"][1])
    if p["distribution"] == "uniform":
        lo, hi = a, b
    else:
        lo, hi = a - 2.0 * math.sqrt(b), a + 2.0 * math.sqrt(b)
    n = int(p["num_buckets"])
    buckets = [lo + (hi - lo) * i / n for i in range(n)]
    return buckets[bisect(buckets, float(new_prop_val)) - 1]


def _combine(original, sample, op):
    return original * sample if op == "scaling" else original + sample   # (Isaac Gym: another op fails)


def apply_random_samples(prop, og_prop, attr, attr_randomization_params, curr_gym_step_count, extern_sample=None):
    """Randomize `prop.attr` (or `prop[attr]` for a structured numpy array) from its original value
    `og_prop[attr]`. `prop` may be a SimParams (gravity, rest_offset), a property struct
    (RigidShapeProperties, ...) or a property array (DOF properties)."""
    p = attr_randomization_params
    op = p.get("operation")
    if isinstance(prop, gymapi.SimParams):
        if attr == "gravity":
            s = generate_random_samples(p, 3, curr_gym_step_count)
            g = og_prop["gravity"]
            prop.gravity = gymapi.Vec3(*(float(_combine(v, d, op)) for v, d in zip((g.x, g.y, g.z), s)))
        elif attr == "rest_offset":
            prop.physx.rest_offset = float(np.ravel(generate_random_samples(p, 1, curr_gym_step_count))[0])
        return
    if isinstance(prop, np.ndarray):
        sample = generate_random_samples(p, prop[attr].shape, curr_gym_step_count, extern_sample)
        value = _combine(og_prop[attr], sample, op)
        if p.get("num_buckets", 0) > 0:
            value = np.vectorize(lambda v: get_bucketed_val(v, p))(value)
        prop[attr] = value
        return
    sample = generate_random_samples(p, 1, curr_gym_step_count, extern_sample)
    value = _combine(og_prop[attr], sample, op)
    if p.get("num_buckets", 0) > 0:
        value = get_bucketed_val(float(np.ravel(value)[0]), p)
    if isinstance(value, np.ndarray) and value.size == 1:
        value = float(value.ravel()[0])
    setattr(prop, attr, value)


def check_buckets(gym, envs, dr_params):
    """Isaac Gym's material-count guard: PhysX allows 64K materials, so the product of friction and
    restitution buckets must stay below that, and without buckets the randomized shapes too."""
    total_buckets = 0
    for props in dr_params.get("actor_params", {}).values():
        shape = props.get("rigid_shape_properties", {})
        n = 0
        for key in ("restitution", "friction"):
            if key in shape and "num_buckets" in shape[key]:
                n = n * shape[key]["num_buckets"] if n > 0 else shape[key]["num_buckets"]
        total_buckets += n
    if total_buckets > 64000:
        raise GymlikeValueError(f"check_buckets: the total material bucket count {total_buckets} exceeds 64000")
    shapes = 0
    actor_params = dr_params.get("actor_params", {})
    for env in envs:
        for i in range(gym.get_actor_count(env)):
            handle = gym.get_actor_handle(env, i)
            name = gym.get_actor_name(env, handle)
            if name in actor_params and "rigid_shape_properties" in actor_params[name]:
                shapes += gym.get_actor_rigid_shape_count(env, handle)
    if shapes > 64000 and total_buckets == 0:
        raise GymlikeValueError(f"check_buckets: {shapes} randomized shapes exceed the 64000 material limit; "
                                "set num_buckets for friction/restitution")


# ============================================================================ line geometry
def _vec3_array(points):
    out = np.zeros(len(points), gymapi.Vec3.dtype)
    for i, p in enumerate(points):
        out[i] = tuple(float(c) for c in p)
    return out


class LineGeometry(ABC):
    """A set of colored line segments for `draw_lines`: `vertices()` is a (num_lines, 2) array of
    Vec3.dtype (start, end), `colors()` a (num_lines,) array of Vec3.dtype (RGB in [0, 1])."""

    @abstractmethod
    def vertices(self):
        """(num_lines, 2) numpy array of gymapi.Vec3.dtype."""

    @abstractmethod
    def colors(self):
        """(num_lines,) numpy array of gymapi.Vec3.dtype."""

    def num_lines(self):
        return self.vertices().shape[0]

    def instance_verts(self, pose=None):
        """The vertices moved by `pose` (a gymapi.Transform), or a copy of them without one."""
        return np.copy(self.vertices()) if pose is None else pose.transform_points(self.vertices())


class _PrecomputedLines(LineGeometry):
    """A LineGeometry whose segments are computed once, in the constructor (`verts`, `_colors`:
    the attribute names of Isaac Gym's classes)."""

    def vertices(self):
        return self.verts

    def colors(self):
        return self._colors


def _segments(starts, ends, pose):
    verts = np.zeros((len(starts), 2), gymapi.Vec3.dtype)
    for i, (a, b) in enumerate(zip(starts, ends)):
        verts[i, 0] = tuple(float(c) for c in a)
        verts[i, 1] = tuple(float(c) for c in b)
    return verts if pose is None else pose.transform_points(verts)


def _colors(n, color):
    c = np.zeros(n, gymapi.Vec3.dtype)
    c[:] = tuple(color)
    return c


class AxesGeometry(_PrecomputedLines):
    """Three lines of length `scale` along x (red), y (green) and z (blue)."""

    def __init__(self, scale=1.0, pose=None):
        s = float(scale)
        self.verts = _segments([(0, 0, 0)] * 3, [(s, 0, 0), (0, s, 0), (0, 0, s)], pose)
        self._colors = _colors(3, (0, 0, 0))
        self._colors[0] = (1.0, 0.0, 0.0)
        self._colors[1] = (0.0, 1.0, 0.0)
        self._colors[2] = (0.0, 0.0, 1.0)


def _box_edges(lo, hi):
    corners = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    starts, ends = [], []
    for i in range(8):
        for j in range(i + 1, 8):
            differ = sum(a != b for a, b in zip(corners[i], corners[j]))
            if differ == 1:       # corners that differ in exactly one coordinate share an edge
                starts.append(corners[i])
                ends.append(corners[j])
    return starts, ends


class WireframeBoxGeometry(_PrecomputedLines):
    """The 12 edges of a box of size xdim x ydim x zdim centred on the origin (or on `pose`)."""

    def __init__(self, xdim=1, ydim=1, zdim=1, pose=None, color=None):
        h = (0.5 * float(xdim), 0.5 * float(ydim), 0.5 * float(zdim))
        starts, ends = _box_edges(tuple(-v for v in h), h)
        self.verts = _segments(starts, ends, pose)
        self._colors = _colors(12, color if color is not None else (1.0, 0.0, 0.0))


class WireframeBBoxGeometry(_PrecomputedLines):
    """The 12 edges of an axis-aligned bounding box `bbox` = [[xmin, ymin, zmin], [xmax, ymax, zmax]]."""

    def __init__(self, bbox, pose=None, color=None):
        b = np.asarray(bbox, np.float64)
        if b.shape != (2, 3):
            raise GymlikeValueError(f"WireframeBBoxGeometry: bbox must have shape (2, 3) (min and max "
                                    f"corner), got {b.shape}")
        starts, ends = _box_edges(tuple(b[0]), tuple(b[1]))
        self.verts = _segments(starts, ends, pose)
        self._colors = _colors(12, color if color is not None else (1.0, 0.0, 0.0))


class WireframeSphereGeometry(_PrecomputedLines):
    """A latitude/longitude wireframe sphere about the y axis, as Isaac Gym draws it: for each of
    num_lats meridians (azimuth steps of 2 pi / num_lats) and num_lons polar steps (pi / num_lons),
    a meridian segment in `color` then a parallel segment in `color2` (default: `color`)."""

    def __init__(self, radius=1.0, num_lats=8, num_lons=8, pose=None, color=None, color2=None):
        r = float(radius)
        nlat, nlon = int(num_lats), int(num_lons)
        if nlat < 0 or nlon < 0:
            raise GymlikeValueError(f"WireframeSphereGeometry: num_lats and num_lons must be >= 0, got {nlat}, {nlon}")
        color = (1.0, 0.0, 0.0) if color is None else color
        color2 = color if color2 is None else color2
        du = 2.0 * math.pi / nlat if nlat else 0.0     # azimuth step (about y)
        dv = math.pi / nlon if nlon else 0.0           # polar step (from +y)

        def point(u, v):
            return (r * math.sin(v) * math.sin(u), r * math.cos(v), r * math.sin(v) * math.cos(u))

        starts, ends = [], []
        for i in range(nlat):
            for j in range(nlon):
                u, v = i * du, j * dv
                starts += [point(u, v), point(u, v + dv)]
                ends += [point(u, v + dv), point(u + du, v + dv)]
        self.verts = _segments(starts, ends, pose) if starts else np.zeros((0, 2), gymapi.Vec3.dtype)
        self._colors = _colors(len(starts), color)
        self._colors[1::2] = tuple(color2)


def draw_lines(geom, gym, viewer, env, pose):
    """Add the lines of a LineGeometry (or any object with instance_verts, num_lines and colors),
    moved by `pose` (env frame; env None: sim frame), to the viewer."""
    gym.add_lines(viewer, env, geom.num_lines(), geom.instance_verts(pose), geom.colors())


def draw_line(p1, p2, color, gym, viewer, env):
    """Add one line from p1 to p2 (gymapi.Vec3, env frame) in `color` (gymapi.Vec3 RGB)."""
    verts = np.array([[p1.x, p1.y, p1.z, p2.x, p2.y, p2.z]], np.float32)
    colors = np.array([[color.x, color.y, color.z]], np.float32)
    gym.add_lines(viewer, env, 1, verts, colors)
