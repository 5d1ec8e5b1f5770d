"""Adapters from a `VecTask` to RL libraries: rsl_rl's `VecEnv`, an rl_games vecenv
registration, and a gymnasium `VectorEnv`. Each library is imported only when its adapter is
used, so gymlike.envs works without any of them.

    from gymlike.envs import make
    from gymlike.envs.adapters import RslRlVecEnv, register_rl_games, GymnasiumVectorEnv
    env = RslRlVecEnv(make("Cartpole"))                  # rsl_rl OnPolicyRunner(env, cfg, ...)
    register_rl_games(lambda **kw: make("Cartpole"))      # rl_games Runner with env_name: gymlike
    venv = GymnasiumVectorEnv(make("Cartpole"))           # gymnasium.vector API (numpy by default)
"""

from __future__ import annotations

import numpy as np
import torch


# ============================================================================ rsl_rl
def _rsl_rl_base():
    from rsl_rl.env import VecEnv
    return VecEnv


def RslRlVecEnv(task, clip_actions: float | None = None):
    """Wrap a VecTask as an `rsl_rl.env.VecEnv` (rsl-rl-lib >= 3: TensorDict observations with
    groups "policy" and, when the task has privileged states, "critic")."""
    return _rsl_rl_class()(task, clip_actions)


_RSL_CLASS = None


def _rsl_rl_class():
    global _RSL_CLASS
    if _RSL_CLASS is not None:
        return _RSL_CLASS
    from tensordict import TensorDict
    VecEnv = _rsl_rl_base()

    class _RslRlVecEnv(VecEnv):
        def __init__(self, task, clip_actions=None):
            self.task = task
            self.num_envs = task.num_envs
            self.num_actions = task.num_actions
            self.max_episode_length = task.max_episode_length
            self.device = task.rl_device
            self.cfg = task.cfg
            self.clip_actions = clip_actions
            self._obs = task._obs_dict() if task.obs_dict.get("obs") is None else task.obs_dict

        # rsl_rl writes episode_length_buf (random initial episode lengths): keep it the task's
        @property
        def episode_length_buf(self):
            return self.task.progress_buf

        @episode_length_buf.setter
        def episode_length_buf(self, value):
            self.task.progress_buf[:] = value.to(self.task.progress_buf.device)

        def _td(self, obs_dict):
            groups = {"policy": obs_dict["obs"]}
            if "states" in obs_dict:
                groups["critic"] = obs_dict["states"]
            return TensorDict(groups, batch_size=[self.num_envs], device=self.device)

        def get_observations(self):
            return self._td(self.task._obs_dict())

        def reset(self):
            return self._td(self.task.reset()), {}

        def step(self, actions):
            if self.clip_actions is not None:
                actions = torch.clamp(actions, -self.clip_actions, self.clip_actions)
            obs_dict, rew, reset, extras = self.task.step(actions)
            return self._td(obs_dict), rew, reset, extras

        def close(self):
            self.task.close()

    _RSL_CLASS = _RslRlVecEnv
    return _RSL_CLASS


# ============================================================================ rl_games
class RlGamesVecEnv:
    """rl_games `IVecEnv` over a VecTask: torch tensors in and out (rl_games detects tensor
    observations and keeps everything on the device). Created by rl_games through the vecenv
    registration of `register_rl_games`."""

    def __init__(self, config_name, num_actors, **kwargs):
        from rl_games.common import env_configurations
        self.env = env_configurations.configurations[config_name]["env_creator"](**kwargs)
        self.episodes_done = None     # episodes finished through step (a device tensor: no sync per step)

    def step(self, actions):
        out = self.env.step(actions)
        done = out[2].sum()
        self.episodes_done = done if self.episodes_done is None else self.episodes_done + done
        return out

    def reset(self):
        return self.env.reset()

    def get_number_of_agents(self):
        return self.env.get_number_of_agents()

    def has_action_masks(self):
        return False

    def get_env_info(self):
        info = {"action_space": self.env.action_space, "observation_space": self.env.observation_space}
        if self.env.num_states > 0:
            info["state_space"] = self.env.state_space
        return info

    def seed(self, seed):
        pass

    def set_train_info(self, env_frames, *args, **kwargs):
        self.env.set_train_info(env_frames, *args, **kwargs)

    def get_env_state(self):
        return self.env.get_env_state()

    def set_env_state(self, env_state):
        self.env.set_env_state(env_state)


def register_rl_games(env_creator, env_name: str = "gymlike", vecenv_type: str = "GYMLIKE"):
    """Register a task factory with rl_games: `params.config.env_name: gymlike` then creates the
    task through `env_creator(**env_config)`."""
    from rl_games.common import env_configurations, vecenv
    vecenv.register(vecenv_type, lambda config_name, num_actors, **kw: RlGamesVecEnv(config_name, num_actors, **kw))
    env_configurations.register(env_name, {"vecenv_type": vecenv_type, "env_creator": env_creator})


# ============================================================================ gymnasium
def _gymnasium_class():
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

    class GymnasiumVectorEnv(VectorEnv):
        """gymnasium `VectorEnv` over a VecTask. Autoreset mode SAME_STEP: an env that ends is
        reset inside `step`, its terminal observation is in `infos["final_obs"]` (rows of the
        envs with `infos["_final_obs"]` set). `torch_output=False` (default) returns numpy
        arrays as gymnasium expects; True returns torch tensors on the task's rl_device."""

        metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

        def __init__(self, task, torch_output: bool = False):
            self.task = task
            task.record_final_obs = True
            self.torch_output = bool(torch_output)
            self.num_envs = task.num_envs
            self.single_observation_space = task.observation_space
            self.single_action_space = task.action_space
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            self.render_mode = None
            self.spec = None

        def _out(self, x):
            if self.torch_output:
                return x
            return x.detach().cpu().numpy().copy()

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                from .vec_task import set_seed
                set_seed(seed if isinstance(seed, int) else int(seed[0]))
            obs = self.task.reset()["obs"]
            return self._out(obs), {}

        def step(self, actions):
            if not isinstance(actions, torch.Tensor):
                actions = torch.as_tensor(np.asarray(actions), dtype=torch.float32, device=self.task.rl_device)
            obs_dict, rew, reset, extras = self.task.step(actions)
            done = reset.bool()
            truncated = extras["time_outs"].bool() & done
            terminated = done & ~truncated
            infos = {}
            if bool(done.any()):
                infos["final_obs"] = self._out(extras["final_obs"])
                infos["_final_obs"] = self._out(done)
            return (self._out(obs_dict["obs"]), self._out(rew), self._out(terminated),
                    self._out(truncated), infos)

        def close_extras(self, **kwargs):
            self.task.close()

    GymnasiumVectorEnv.__module__ = __name__
    return GymnasiumVectorEnv


_GYM_CLASS = None


def GymnasiumVectorEnv(task, torch_output: bool = False):
    """Wrap a VecTask as a `gymnasium.vector.VectorEnv` (see the class docstring)."""
    global _GYM_CLASS
    if _GYM_CLASS is None:
        _GYM_CLASS = _gymnasium_class()
    return _GYM_CLASS(task, torch_output)
