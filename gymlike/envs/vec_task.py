"""`VecTask`: the base class IsaacGymEnvs-style RL tasks derive from, on gymlike.

A task written for Isaac Gym's IsaacGymEnvs ports by changing its imports: the constructor
signature, the config dict (`env` / `sim` / `task` sections), the buffers (`obs_buf`,
`states_buf`, `rew_buf`, `reset_buf`, `timeout_buf`, `progress_buf`, `extras`), the hooks
(`create_sim`, `pre_physics_step`, `post_physics_step`, `reset_idx`) and
`step(actions) -> (obs_dict, rew, reset, extras)` behave as there.

Step protocol (as in IsaacGymEnvs):

    actions -> clamp to +-clipActions -> pre_physics_step(actions)
    -> controlFrequencyInv x (render if forced, gym.simulate)
    -> timeout_buf = progress_buf >= max_episode_length - 1      (tasks may overwrite it)
    -> post_physics_step()   (the task refreshes tensors, computes obs/reward/resets)
    -> obs_dict = {"obs": clamp(obs_buf, +-clipObservations)[, "states": ...]}

The tasks shipped in `gymlike.envs.tasks` reset finished envs inside `post_physics_step`, after
computing rewards and before computing observations (the `obs` returned with `reset=1` already
belongs to the new episode; the terminal observation is in `extras["final_obs"]` when
`record_final_obs` is set, as the gymnasium adapter does). Tasks that reset at the start of the
next `post_physics_step`, as IsaacGymEnvs' own tasks do, work unchanged.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np
import torch

from gymlike import gymapi, gymutil
from gymlike.core.errors import SimulationNaNError
from ..core.errors import warn

try:  # spaces are optional: the class works without gymnasium (num_obs/num_actions only)
    from gymnasium import spaces as _spaces
except ImportError:  # pragma: no cover
    _spaces = None


def set_seed(seed: int, torch_deterministic: bool = False) -> int:
    """Seed python, numpy and torch (IsaacGymEnvs' `set_seed`); -1 picks a random seed."""
    if seed is None or int(seed) == -1:
        seed = int(np.random.randint(0, 10000))
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    if torch_deterministic:
        torch.use_deterministic_algorithms(True)
    return seed


def _box(low, high, shape):
    if _spaces is None:
        return None
    return _spaces.Box(low=np.float32(low), high=np.float32(high), shape=shape, dtype=np.float32)


class VecTask:
    """Base class of vectorized tasks (one Isaac Gym env per RL environment)."""

    metadata = {"render_modes": ["human", "rgb_array"], "video.frames_per_second": 24}

    def __init__(self, config: dict, rl_device: str = "cpu", sim_device: str = "cpu",
                 graphics_device_id: int = -1, headless: bool = True,
                 virtual_screen_capture: bool = False, force_render: bool = False):
        self.cfg = config
        env_cfg = config["env"]
        self.rl_device = rl_device
        self.sim_device = sim_device
        dev_type, _, dev_id = str(sim_device).partition(":")
        self.device_type = dev_type
        self.device_id = int(dev_id) if dev_id else 0
        use_gpu = dev_type in ("cuda", "gpu") and bool(config["sim"].get("use_gpu_pipeline", False))
        if use_gpu and not torch.cuda.is_available():
            warn("gymlike VecTask: the GPU pipeline was requested but CUDA is not available; "
                 "running on the CPU", RuntimeWarning)
            use_gpu = False
        config["sim"]["use_gpu_pipeline"] = use_gpu
        self.device = f"cuda:{self.device_id}" if use_gpu else "cpu"
        if not torch.cuda.is_available() and str(self.rl_device).startswith("cuda"):
            self.rl_device = "cpu"

        self.headless = bool(headless)
        self.virtual_screen_capture = bool(virtual_screen_capture)
        self.force_render = bool(force_render)
        enable_camera_sensors = bool(config.get("enableCameraSensors", False))
        self.graphics_device_id = graphics_device_id
        if not enable_camera_sensors and self.headless:
            self.graphics_device_id = -1

        # seeding: a `seed` in the config (top level or env section) seeds python/numpy/torch
        seed = config.get("seed", env_cfg.get("seed"))
        if seed is not None:
            self.seed_value = set_seed(seed, bool(config.get("torch_deterministic", False)))
        else:
            self.seed_value = None

        self.num_environments = int(env_cfg["numEnvs"])
        self.num_agents = int(env_cfg.get("numAgents", 1))
        self.num_observations = int(env_cfg["numObservations"])
        self.num_states = int(env_cfg.get("numStates", 0))
        self.num_actions = int(env_cfg["numActions"])
        self.control_freq_inv = int(env_cfg.get("controlFrequencyInv", 1))
        self.clip_obs = float(env_cfg.get("clipObservations", np.inf))
        self.clip_actions = float(env_cfg.get("clipActions", np.inf))
        if not hasattr(self, "max_episode_length"):   # IsaacGymEnvs tasks often set it before super().__init__
            self.max_episode_length = int(env_cfg.get("episodeLength", env_cfg.get("maxEpisodeLength", 1000)))
        self.record_final_obs = False
        self.reset_on_nan = bool(env_cfg.get("resetOnNaN", True))
        self.nan_resets = 0

        self.obs_space = _box(-np.inf, np.inf, (self.num_observations,))
        self.state_space = _box(-np.inf, np.inf, (self.num_states,)) if self.num_states else None
        self.act_space = _box(-1.0, 1.0, (self.num_actions,))

        self.physics_engine = self._engine(config.get("physics_engine", "physx"))
        self.sim_params = self._parse_sim_params(config["sim"])

        self.gym = gymapi.acquire_gym()
        self.first_randomization = True
        self.original_props: dict[str, Any] = {}
        self.dr_randomizations: dict[str, Any] = {}
        self.actor_params_generator = None
        self.extern_actor_params: dict[str, Any] = {}
        self.last_step = -1
        self.last_rand_step = -1
        self.sim_initialized = False

        self.create_sim()
        self.gym.prepare_sim(self.sim)
        self.sim_initialized = True

        self.set_viewer()
        self.allocate_buffers()
        self.obs_dict: dict[str, torch.Tensor] = {}
        self.control_steps = 0

    # ------------------------------------------------------------------ config
    @staticmethod
    def _engine(name):
        if isinstance(name, (int, np.integer)) or hasattr(name, "value"):
            return gymapi.SimType(int(name))
        name = str(name).lower()
        if name == "physx":
            return gymapi.SIM_PHYSX
        if name == "flex":
            return gymapi.SIM_FLEX
        raise ValueError(f"physics_engine must be 'physx' (Newton MuJoCo solver) or 'flex' (Newton XPBD), got {name!r}")

    def _parse_sim_params(self, sim_cfg: dict) -> gymapi.SimParams:
        sp = gymapi.SimParams()
        sp.dt = float(sim_cfg.get("dt", 1.0 / 60.0))
        sp.num_client_threads = int(sim_cfg.get("num_client_threads", 0))
        sp.use_gpu_pipeline = bool(sim_cfg.get("use_gpu_pipeline", False))
        sp.substeps = int(sim_cfg.get("substeps", 2))
        up = str(sim_cfg.get("up_axis", "z")).lower()
        if up not in ("z", "y"):
            raise ValueError(f"sim.up_axis must be 'z' or 'y', got {up!r}")
        sp.up_axis = gymapi.UP_AXIS_Z if up == "z" else gymapi.UP_AXIS_Y
        g = sim_cfg.get("gravity", [0.0, 0.0, -9.81] if up == "z" else [0.0, -9.81, 0.0])
        sp.gravity = gymapi.Vec3(*[float(x) for x in g])
        rest = {k: v for k, v in sim_cfg.items()
                if k not in ("dt", "substeps", "up_axis", "gravity", "use_gpu_pipeline", "num_client_threads",
                             "mujoco")}
        if rest:
            gymutil.parse_sim_config(rest, sp)
        return sp

    def set_sim_params_up_axis(self, sim_params, axis: str) -> int:
        if axis == "z":
            sim_params.up_axis = gymapi.UP_AXIS_Z
            sim_params.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
            return 2
        return 1

    # ------------------------------------------------------------------ creation
    def create_sim(self, compute_device: int = None, graphics_device: int = None,
                   physics_engine=None, sim_params=None):
        """Create the Isaac Gym sim. Subclasses override `create_sim(self)`, call
        `super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine,
        self.sim_params)` and then build ground, envs and actors."""
        if compute_device is None:
            raise NotImplementedError("a VecTask subclass must implement create_sim()")
        self.sim = self.gym.create_sim(compute_device, graphics_device, physics_engine, sim_params)
        if self.sim is None:
            print("*** Failed to create sim")
            sys.exit(1)
        # gymlike-only: `sim.mujoco:` options for Newton's SolverMuJoCo (SIM_PHYSX), e.g. the
        # friction cone ("elliptic", gymlike's default, or "pyramidal": cheaper on the CPU)
        mj = self.cfg["sim"].get("mujoco")
        if mj and physics_engine == gymapi.SIM_PHYSX:
            self.sim.mujoco_options = dict(mj)
        return self.sim

    def allocate_buffers(self):
        n, dev = self.num_envs, self.device
        self.obs_buf = torch.zeros((n, self.num_obs), device=dev, dtype=torch.float)
        self.states_buf = torch.zeros((n, self.num_states), device=dev, dtype=torch.float)
        self.rew_buf = torch.zeros(n, device=dev, dtype=torch.float)
        self.reset_buf = torch.ones(n, device=dev, dtype=torch.long)
        self.timeout_buf = torch.zeros(n, device=dev, dtype=torch.long)
        self.progress_buf = torch.zeros(n, device=dev, dtype=torch.long)
        self.randomize_buf = torch.zeros(n, device=dev, dtype=torch.long)
        self.extras: dict[str, Any] = {}

    def set_viewer(self):
        """Create a viewer unless headless. Without a usable viewer, continue headless."""
        self.enable_viewer_sync = True
        self.viewer = None
        if self.headless:
            return
        try:
            self.viewer = self.gym.create_viewer(self.sim, gymapi.CameraProperties())
        except (NotImplementedError, RuntimeError) as e:
            warn(f"gymlike VecTask: no viewer ({e}); running headless", RuntimeWarning)
            self.viewer = None
            self.headless = True
            return
        if self.viewer is not None:
            self.gym.subscribe_viewer_keyboard_event(self.viewer, gymapi.KEY_ESCAPE, "QUIT")
            self.gym.subscribe_viewer_keyboard_event(self.viewer, gymapi.KEY_V, "toggle_viewer_sync")
            if self.sim_params.up_axis == gymapi.UP_AXIS_Z:
                pos, target = gymapi.Vec3(20.0, 25.0, 3.0), gymapi.Vec3(10.0, 15.0, 0.0)
            else:
                pos, target = gymapi.Vec3(20.0, 3.0, 25.0), gymapi.Vec3(10.0, 0.0, 15.0)
            self.gym.viewer_camera_look_at(self.viewer, None, pos, target)

    # ------------------------------------------------------------------ properties
    @property
    def num_envs(self) -> int:
        return self.num_environments

    @property
    def num_obs(self) -> int:
        return self.num_observations

    @property
    def num_acts(self) -> int:
        return self.num_actions

    @property
    def observation_space(self):
        return self.obs_space

    @property
    def action_space(self):
        return self.act_space

    # ------------------------------------------------------------------ hooks
    def pre_physics_step(self, actions: torch.Tensor):
        raise NotImplementedError

    def post_physics_step(self):
        raise NotImplementedError

    def reset_idx(self, env_ids: torch.Tensor):
        raise NotImplementedError

    # ------------------------------------------------------------------ stepping
    def step(self, actions: torch.Tensor):
        """Apply actions, simulate `controlFrequencyInv` physics steps, compute obs/reward/resets.
        Returns (obs_dict, rew_buf, reset_buf, extras) on rl_device."""
        action_tensor = torch.clamp(actions.to(self.device), -self.clip_actions, self.clip_actions)
        self.pre_physics_step(action_tensor)
        nan_envs = None
        for _ in range(self.control_freq_inv):
            if self.force_render:
                self.render()
            try:
                self.gym.simulate(self.sim)
            except SimulationNaNError as e:
                # gymlike raises when an env's state becomes NaN; with resetOnNaN (default) the
                # task resets those envs and training goes on (counted in extras["nan_resets"])
                if not self.reset_on_nan or not getattr(e, "envs", None):
                    raise
                nan_envs = sorted(set(e.envs) | set(nan_envs or ()))
        if self.device == "cpu":
            self.gym.fetch_results(self.sim, True)
        self.timeout_buf = (self.progress_buf >= self.max_episode_length - 1).long()
        if nan_envs:
            self._reset_nan_envs(nan_envs)
        self.post_physics_step()
        if nan_envs:
            ids = torch.as_tensor(nan_envs, dtype=torch.long, device=self.device)
            self.reset_buf[ids] = 1
            self.timeout_buf[ids] = 0
        self.control_steps += 1
        self.extras["time_outs"] = self.timeout_buf.to(self.rl_device)
        return self._obs_dict(), self.rew_buf.to(self.rl_device), self.reset_buf.to(self.rl_device), self.extras

    def _reset_nan_envs(self, env_ids):
        ids = torch.as_tensor(env_ids, dtype=torch.long, device=self.device)
        self.nan_resets += len(env_ids)
        self.extras["nan_resets"] = self.nan_resets
        warn(f"gymlike VecTask: the physics state of env(s) {env_ids[:10]} became NaN; "
             "resetting them", RuntimeWarning)
        self.reset_idx(ids)

    def _obs_dict(self):
        self.obs_dict["obs"] = torch.clamp(self.obs_buf, -self.clip_obs, self.clip_obs).to(self.rl_device)
        if self.num_states > 0:
            self.obs_dict["states"] = self.get_state()
        return self.obs_dict

    def reset_done(self):
        """Reset the envs whose reset_buf is set (used by the shipped tasks inside
        post_physics_step). Keeps the terminal observations in extras["final_obs"] when
        `record_final_obs` is set. Returns the reset env ids."""
        env_ids = self.reset_buf.nonzero(as_tuple=False).squeeze(-1)
        if self.record_final_obs:
            self.extras["final_obs"] = torch.clamp(self.obs_buf, -self.clip_obs, self.clip_obs).to(self.rl_device)
        if env_ids.numel():
            self.reset_idx(env_ids)
        return env_ids

    def zero_actions(self) -> torch.Tensor:
        return torch.zeros((self.num_envs, self.num_actions), dtype=torch.float32, device=self.rl_device)

    def reset(self):
        """Reset every env (through `reset_idx`) and return the observation dict."""
        all_ids = torch.arange(self.num_envs, device=self.device, dtype=torch.long)
        try:
            self.reset_idx(all_ids)
        except NotImplementedError:
            pass
        return self._obs_dict()

    def get_state(self):
        return torch.clamp(self.states_buf, -self.clip_obs, self.clip_obs).to(self.rl_device)

    def get_number_of_agents(self):
        return self.num_agents

    def set_train_info(self, env_frames, *args, **kwargs):
        """Called by rl_games with the number of frames seen so far (curricula)."""
        self.total_train_env_frames = env_frames

    def get_env_state(self):
        return None

    def set_env_state(self, env_state):
        pass

    def apply_randomizations(self, dr_params):
        raise NotImplementedError(
            "gymlike VecTask: domain randomization (task.randomize: True) is not implemented yet; "
            "set `task.randomize: False` in the task config")

    # ------------------------------------------------------------------ rendering
    def render(self, mode: str = "rgb_array"):
        if self.viewer is None:
            return None
        if self.gym.query_viewer_has_closed(self.viewer):
            sys.exit()
        for evt in self.gym.query_viewer_action_events(self.viewer):
            if evt.action == "QUIT" and evt.value > 0:
                sys.exit()
            elif evt.action == "toggle_viewer_sync" and evt.value > 0:
                self.enable_viewer_sync = not self.enable_viewer_sync
        if self.device != "cpu":
            self.gym.fetch_results(self.sim, True)
        if self.enable_viewer_sync:
            self.gym.step_graphics(self.sim)
            self.gym.draw_viewer(self.viewer, self.sim, True)
            self.gym.sync_frame_time(self.sim)
        else:
            self.gym.poll_viewer_events(self.viewer)
        return None

    def close(self):
        if getattr(self, "viewer", None) is not None:
            try:
                self.gym.destroy_viewer(self.viewer)
            except NotImplementedError:
                pass
            self.viewer = None
        if getattr(self, "sim", None) is not None:
            self.gym.destroy_sim(self.sim)
            self.sim = None

    def __repr__(self):
        return (f"<{type(self).__name__} num_envs={self.num_envs} num_obs={self.num_obs} "
                f"num_actions={self.num_actions} device={self.device}>")
