"""Cartpole: push the cart (one force action) to keep the pole upright.

Observation (4): cart position, cart velocity, pole angle, pole angular velocity; this is the
DOF state tensor of the env viewed as one row (no copy of the physics state is kept).
Reward per step: 1 - angle^2 - 0.01 |cart velocity| - 0.005 |pole velocity|; an episode fails
(reward `failReward`) when the pole passes 90 degrees or the cart leaves +-resetDist.
Solved: episodes last `maxEpisodeLength` steps."""

from __future__ import annotations

import math

import torch

from gymlike import gymapi, gymtorch

from ..vec_task import VecTask
from .common import asset_root, env_bounds, rand_uniform


class Cartpole(VecTask):
    def __init__(self, cfg, rl_device="cpu", sim_device="cpu", graphics_device_id=-1, headless=True,
                 virtual_screen_capture=False, force_render=False):
        self.cfg = cfg
        e = cfg["env"]
        self.reset_dist = float(e["resetDist"])
        self.max_push_effort = float(e["maxEffort"])
        self.fail_reward = float(e.get("failReward", -2.0))
        self.init_pos_noise = float(e.get("initPositionNoise", 0.2))
        self.init_vel_noise = float(e.get("initVelocityNoise", 0.5))
        self.max_episode_length = int(e["maxEpisodeLength"])
        e["numObservations"] = 4
        e["numActions"] = 1
        super().__init__(cfg, rl_device, sim_device, graphics_device_id, headless, virtual_screen_capture, force_render)

        self.dof_state = gymtorch.wrap_tensor(self.gym.acquire_dof_state_tensor(self.sim))
        self.dof_pos = self.dof_state.view(self.num_envs, 2, 2)[..., 0]
        self.dof_vel = self.dof_state.view(self.num_envs, 2, 2)[..., 1]
        self.forces = torch.zeros(self.num_envs * 2, dtype=torch.float32, device=self.device)
        self._forces_gym = gymtorch.unwrap_tensor(self.forces)
        self._dof_state_gym = gymtorch.unwrap_tensor(self.dof_state)
        self.actor_index = torch.arange(self.num_envs, dtype=torch.int32, device=self.device)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.reset()

    # ------------------------------------------------------------------ creation
    def create_sim(self):
        self.sim = super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine, self.sim_params)
        spacing = float(self.cfg["env"]["envSpacing"])
        lower, upper = env_bounds(spacing)
        opts = gymapi.AssetOptions()
        opts.fix_base_link = True
        opts.angular_damping = 0.0
        asset_file = self.cfg["env"].get("asset", {}).get("assetFileName", "urdf/cartpole.urdf")
        asset = self.gym.load_asset(self.sim, asset_root(self.cfg), asset_file, opts)
        props = self.gym.get_asset_dof_properties(asset)
        props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        props["stiffness"][:] = 0.0
        props["damping"][:] = 0.0
        pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, 2.0))
        per_row = int(math.sqrt(self.num_envs))
        self.envs, self.cartpoles = [], []
        for i in range(self.num_envs):
            env = self.gym.create_env(self.sim, lower, upper, per_row)
            # filter 1: the cart-pole's own shapes never collide (there is nothing else to hit)
            h = self.gym.create_actor(env, asset, pose, "cartpole", i, 1, 0)
            self.gym.set_actor_dof_properties(env, h, props)
            self.envs.append(env)
            self.cartpoles.append(h)

    # ------------------------------------------------------------------ step
    def pre_physics_step(self, actions):
        self.forces.view(self.num_envs, 2)[:, 0] = actions[:, 0] * self.max_push_effort
        self.gym.set_dof_actuation_force_tensor(self.sim, self._forces_gym)

    def post_physics_step(self):
        self.progress_buf += 1
        self.gym.refresh_dof_state_tensor(self.sim)
        self.compute_observations()
        self.compute_reward()
        self.reset_done()          # reset_idx recomputes the observations of the new episodes

    def compute_observations(self, env_ids=None):
        self.obs_buf[:] = self.dof_state.view(self.num_envs, 4)
        return self.obs_buf

    def compute_reward(self):
        x, xd = self.dof_pos[:, 0], self.dof_vel[:, 0]
        th, thd = self.dof_pos[:, 1], self.dof_vel[:, 1]
        rew = 1.0 - th * th - 0.01 * xd.abs() - 0.005 * thd.abs()
        failed = (x.abs() > self.reset_dist) | (th.abs() > 0.5 * math.pi)
        self.rew_buf[:] = torch.where(failed, torch.full_like(rew, self.fail_reward), rew)
        timeout = self.progress_buf >= self.max_episode_length
        self.timeout_buf[:] = (timeout & ~failed).long()
        self.reset_buf[:] = (failed | timeout).long()

    def reset_idx(self, env_ids):
        n = len(env_ids)
        self.dof_pos[env_ids] = rand_uniform(-0.5, 0.5, (n, 2), self.device) * self.init_pos_noise
        self.dof_vel[env_ids] = rand_uniform(-0.5, 0.5, (n, 2), self.device) * self.init_vel_noise
        ids = self.actor_index[env_ids]
        self.gym.set_dof_state_tensor_indexed(self.sim, self._dof_state_gym, gymtorch.unwrap_tensor(ids), n)
        self.progress_buf[env_ids] = 0
        self.compute_observations()
