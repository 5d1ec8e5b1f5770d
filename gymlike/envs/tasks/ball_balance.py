"""BallBalance: tilt a table (two position-driven gimbal joints) to keep a ball at its centre.

Each env holds two actors: the table (`assets/urdf/balance_table/balance_table.urdf`, fixed
base, DOFs tilt_x / tilt_y in DOF_MODE_POS) and a free ball (`assets/urdf/ball.urdf`, r 0.1 m).
Action (2): tilt targets in [-1, 1] * maxTilt rad.
Observation (10): tilt angles / maxTilt (2), tilt velocities * 0.2 (2), ball position relative to
the table centre (3, world axes, / 0.45 in x, y), ball velocity * 0.5 (3).
Reward per step: 1 / (1 + (d / 0.2)^2) - 0.05 |v_ball|^2 - 0.01 |a|^2 where d is the ball's
horizontal distance from the centre; `fallPenalty` is subtracted when the ball leaves the table
(the episode ends). Resets drop the ball at a random spot with a random horizontal velocity.
"""

from __future__ import annotations

import math

import torch

from gymlike import gymapi, gymtorch

from ..vec_task import VecTask
from .common import asset_root, env_bounds, rand_uniform

TABLE_TOP = 0.515     # m, level table top above the env origin
PIVOT = 0.5           # m, gimbal joints


class BallBalance(VecTask):
    def __init__(self, cfg, rl_device="cpu", sim_device="cpu", graphics_device_id=-1, headless=True,
                 virtual_screen_capture=False, force_render=False):
        self.cfg = cfg
        e = cfg["env"]
        self.max_episode_length = int(e["maxEpisodeLength"])
        self.max_tilt = float(e["maxTilt"])
        self.fall_penalty = float(e.get("fallPenalty", 1.0))
        self.ball_radius = float(e.get("ballRadius", 0.1))
        self.spawn_radius = float(e.get("spawnRadius", 0.3))
        self.spawn_speed = float(e.get("spawnSpeed", 0.5))
        e["numObservations"] = 10
        e["numActions"] = 2
        super().__init__(cfg, rl_device, sim_device, graphics_device_id, headless, virtual_screen_capture, force_render)

        n, dev = self.num_envs, self.device
        self.root_states = gymtorch.wrap_tensor(self.gym.acquire_actor_root_state_tensor(self.sim))
        self.dof_state = gymtorch.wrap_tensor(self.gym.acquire_dof_state_tensor(self.sim))
        self._root_gym = gymtorch.unwrap_tensor(self.root_states)
        self._dof_gym = gymtorch.unwrap_tensor(self.dof_state)
        self.ball_states = self.root_states.view(n, 2, 13)[:, 1]
        self.dof_pos = self.dof_state.view(n, 2, 2)[..., 0]
        self.dof_vel = self.dof_state.view(n, 2, 2)[..., 1]
        self.targets = torch.zeros((n, 2), device=dev)
        self._targets_gym = gymtorch.unwrap_tensor(self.targets)
        self.actions = torch.zeros((n, 2), device=dev)
        self.table_actor = torch.arange(n, dtype=torch.int32, device=dev) * 2
        self.ball_actor = self.table_actor + 1
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.origins = self.root_states.view(n, 2, 13)[:, 0, 0:3].clone()   # table base == env origin
        self.centre = self.origins + torch.tensor([0.0, 0.0, TABLE_TOP], device=dev)
        self.reset()

    # ------------------------------------------------------------------ creation
    def create_sim(self):
        self.sim = super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine, self.sim_params)
        e = self.cfg["env"]
        root = asset_root(self.cfg)
        lower, upper = env_bounds(float(e["envSpacing"]))
        to = gymapi.AssetOptions()
        to.fix_base_link = True
        to.angular_damping = 0.0
        table = self.gym.load_asset(self.sim, root, e.get("asset", {}).get("tableFileName",
                                    "urdf/balance_table/balance_table.urdf"), to)
        bo = gymapi.AssetOptions()
        bo.angular_damping = 0.0
        ball = self.gym.load_asset(self.sim, root, e.get("asset", {}).get("ballFileName", "urdf/ball.urdf"), bo)
        props = self.gym.get_asset_dof_properties(table)
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:] = float(e["driveStiffness"])
        props["damping"][:] = float(e["driveDamping"])
        per_row = int(math.sqrt(self.num_envs))
        ball_pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, TABLE_TOP + self.ball_radius + 0.05))
        self.envs = []
        for i in range(self.num_envs):
            env = self.gym.create_env(self.sim, lower, upper, per_row)
            # the table's own shapes never collide (filter 1), the ball (filter 0) hits the table
            t = self.gym.create_actor(env, table, gymapi.Transform(), "table", i, 1, 0)
            self.gym.set_actor_dof_properties(env, t, props)
            self.gym.create_actor(env, ball, ball_pose, "ball", i, 0, 0)
            self.envs.append(env)

    # ------------------------------------------------------------------ step
    def pre_physics_step(self, actions):
        self.actions[:] = actions
        torch.mul(actions, self.max_tilt, out=self.targets)
        self.gym.set_dof_position_target_tensor(self.sim, self._targets_gym)

    def post_physics_step(self):
        self.progress_buf += 1
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.compute_observations()
        self.compute_reward()
        self.reset_done()

    def compute_observations(self):
        ob = self.obs_buf
        rel = self.ball_states[:, 0:3] - self.centre
        ob[:, 0:2] = self.dof_pos / self.max_tilt
        ob[:, 2:4] = self.dof_vel * 0.2
        ob[:, 4:6] = rel[:, 0:2] / 0.45
        ob[:, 6] = rel[:, 2]
        ob[:, 7:10] = self.ball_states[:, 7:10] * 0.5
        return ob

    def compute_reward(self):
        rel = self.ball_states[:, 0:3] - self.centre
        d2 = (rel[:, 0:2] ** 2).sum(-1)
        v2 = (self.ball_states[:, 7:10] ** 2).sum(-1)
        rew = 1.0 / (1.0 + d2 / 0.04) - 0.05 * v2 - 0.01 * (self.actions ** 2).sum(-1)
        fell = (rel[:, 2] < -0.1) | (d2 > 0.6 ** 2)
        self.rew_buf[:] = torch.where(fell, rew - self.fall_penalty, rew)
        timeout = self.progress_buf >= self.max_episode_length
        self.timeout_buf[:] = (timeout & ~fell).long()
        self.reset_buf[:] = (fell | timeout).long()

    def reset_idx(self, env_ids):
        n, dev = len(env_ids), self.device
        r = self.spawn_radius * torch.sqrt(torch.rand(n, device=dev))
        th = 2.0 * math.pi * torch.rand(n, device=dev)
        ball = torch.zeros((n, 13), device=dev)
        ball[:, 0] = r * torch.cos(th)
        ball[:, 1] = r * torch.sin(th)
        ball[:, 2] = TABLE_TOP + self.ball_radius + rand_uniform(0.02, 0.2, n, dev)
        ball[:, 0:3] += self.origins[env_ids]
        ball[:, 6] = 1.0
        ball[:, 7:9] = rand_uniform(-self.spawn_speed, self.spawn_speed, (n, 2), dev)
        self.ball_states[env_ids] = ball
        self.dof_pos[env_ids] = 0.0
        self.dof_vel[env_ids] = 0.0
        self.targets[env_ids] = 0.0
        self.actions[env_ids] = 0.0
        balls = gymtorch.unwrap_tensor(self.ball_actor[env_ids])
        tables = gymtorch.unwrap_tensor(self.table_actor[env_ids])
        self.gym.set_actor_root_state_tensor_indexed(self.sim, self._root_gym, balls, n)
        self.gym.set_dof_state_tensor_indexed(self.sim, self._dof_gym, tables, n)
        self.gym.set_dof_position_target_tensor_indexed(self.sim, self._targets_gym, tables, n)
        self.progress_buf[env_ids] = 0
        self.compute_observations()
