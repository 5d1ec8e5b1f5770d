"""ArmReach: move the gripper of a 7-DOF arm (Franka-proportioned `assets/urdf/arm7/arm7.urdf`)
to a random target point, with joint position drives.

All 9 DOFs are in DOF_MODE_POS (gravity off for the arm, as a torque-controlled arm with
gravity compensation). Action (7): joint target velocities in [-1, 1]; the arm joints' position
targets move by actionScale * dt * action per control step (clamped to the joint limits); the
fingers hold `fingerTarget`.
Observation (23): arm joint positions scaled to [-1, 1] (7), arm joint velocities * 0.1 (7),
grasp point position (3), target position (3), target - grasp point (3); positions relative to
the env origin. The grasp point is `graspOffset` along the hand's z axis.
Reward per step: 1 - tanh(d / 0.3) + successBonus * (d < successDistance) - 0.005 |a|^2 with d
the grasp point - target distance. Episodes end by time only; each reset samples a new target
and a perturbed start pose.
"""

from __future__ import annotations

import math

import torch

from gymlike import gymapi, gymtorch
from gymlike.torch_utils import quat_rotate

from ..vec_task import VecTask
from .common import asset_root, env_bounds, rand_uniform


class ArmReach(VecTask):
    def __init__(self, cfg, rl_device="cpu", sim_device="cpu", graphics_device_id=-1, headless=True,
                 virtual_screen_capture=False, force_render=False):
        self.cfg = cfg
        e = cfg["env"]
        self.max_episode_length = int(e["episodeLength"])
        self.action_scale = float(e["actionScale"])
        self.finger_target = float(e.get("fingerTarget", 0.02))
        self.success_distance = float(e.get("successDistance", 0.05))
        self.success_bonus = float(e.get("successBonus", 0.5))
        self.start_noise = float(e.get("startDofNoise", 0.15))
        e["numObservations"] = 23
        e["numActions"] = 7
        super().__init__(cfg, rl_device, sim_device, graphics_device_id, headless, virtual_screen_capture, force_render)

        n, dev = self.num_envs, self.device
        self.dt_control = self.sim_params.dt * self.control_freq_inv
        self.dof_state = gymtorch.wrap_tensor(self.gym.acquire_dof_state_tensor(self.sim))
        self.body_states = gymtorch.wrap_tensor(self.gym.acquire_rigid_body_state_tensor(self.sim))
        self._dof_gym = gymtorch.unwrap_tensor(self.dof_state)
        nd, nb = self.num_arm_dofs, self.num_arm_bodies
        self.dof_pos = self.dof_state.view(n, nd, 2)[..., 0]
        self.dof_vel = self.dof_state.view(n, nd, 2)[..., 1]
        self.hand_states = self.body_states.view(n, nb, 13)[:, self.hand_index]
        self.targets = torch.zeros((n, nd), device=dev)
        self._targets_gym = gymtorch.unwrap_tensor(self.targets)
        self.actions = torch.zeros((n, 7), device=dev)
        self.dof_lower = torch.tensor(self._lower, device=dev)
        self.dof_upper = torch.tensor(self._upper, device=dev)
        self.default_dof_pos = torch.tensor([float(x) for x in e["defaultDofPos"]] + [self.finger_target] * (nd - 7),
                                            device=dev)
        self.grasp_offset = torch.tensor([[0.0, 0.0, float(e.get("graspOffset", 0.1))]], device=dev).expand(n, 3)
        self.target_lo = torch.tensor(e["targetLower"], dtype=torch.float32, device=dev)
        self.target_hi = torch.tensor(e["targetUpper"], dtype=torch.float32, device=dev)
        self.target_pos = torch.zeros((n, 3), device=dev)
        self.grasp_pos = torch.zeros((n, 3), device=dev)
        self.actor_index = torch.arange(n, dtype=torch.int32, device=dev)
        self.gym.refresh_rigid_body_state_tensor(self.sim)
        self.origins = self.body_states.view(n, nb, 13)[:, 0, 0:3].clone()   # arm base == env origin
        self.reset()

    # ------------------------------------------------------------------ creation
    def create_sim(self):
        self.sim = super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine, self.sim_params)
        e = self.cfg["env"]
        lower, upper = env_bounds(float(e["envSpacing"]))
        o = gymapi.AssetOptions()
        o.fix_base_link = True
        o.disable_gravity = True
        o.angular_damping = 0.0
        asset = self.gym.load_asset(self.sim, asset_root(self.cfg),
                                    e.get("asset", {}).get("assetFileName", "urdf/arm7/arm7.urdf"), o)
        self.num_arm_dofs = self.gym.get_asset_dof_count(asset)
        self.num_arm_bodies = self.gym.get_asset_rigid_body_count(asset)
        self.hand_index = self.gym.find_asset_rigid_body_index(asset, e.get("handBody", "hand"))
        props = self.gym.get_asset_dof_properties(asset)
        self._lower = props["lower"].astype("float32").tolist()
        self._upper = props["upper"].astype("float32").tolist()
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:7] = float(e["armStiffness"])
        props["damping"][:7] = float(e["armDamping"])
        props["stiffness"][7:] = float(e["fingerStiffness"])
        props["damping"][7:] = float(e["fingerDamping"])
        per_row = int(math.sqrt(self.num_envs))
        self.envs = []
        for i in range(self.num_envs):
            env = self.gym.create_env(self.sim, lower, upper, per_row)
            h = self.gym.create_actor(env, asset, gymapi.Transform(), "arm", i, 1, 0)   # no self-collisions
            self.gym.set_actor_dof_properties(env, h, props)
            self.envs.append(env)

    # ------------------------------------------------------------------ step
    def pre_physics_step(self, actions):
        self.actions[:] = actions
        arm = self.targets[:, :7] + (self.action_scale * self.dt_control) * actions
        self.targets[:, :7] = torch.max(torch.min(arm, self.dof_upper[:7]), self.dof_lower[:7])
        self.gym.set_dof_position_target_tensor(self.sim, self._targets_gym)

    def post_physics_step(self):
        self.progress_buf += 1
        self.gym.refresh_dof_state_tensor(self.sim)
        self.gym.refresh_rigid_body_state_tensor(self.sim)
        self.compute_observations()
        self.compute_reward()
        self.reset_done()

    def compute_observations(self):
        hs = self.hand_states
        self.grasp_pos[:] = hs[:, 0:3] + quat_rotate(hs[:, 3:7], self.grasp_offset) - self.origins
        lo, hi = self.dof_lower[:7], self.dof_upper[:7]
        ob = self.obs_buf
        ob[:, 0:7] = (2.0 * self.dof_pos[:, :7] - (hi + lo)) / (hi - lo)
        ob[:, 7:14] = self.dof_vel[:, :7] * 0.1
        ob[:, 14:17] = self.grasp_pos
        ob[:, 17:20] = self.target_pos
        ob[:, 20:23] = self.target_pos - self.grasp_pos
        return ob

    def compute_reward(self):
        d = torch.linalg.norm(self.target_pos - self.grasp_pos, dim=-1)
        self.rew_buf[:] = (1.0 - torch.tanh(d / 0.3) + self.success_bonus * (d < self.success_distance)
                           - 0.005 * (self.actions ** 2).sum(-1))
        timeout = self.progress_buf >= self.max_episode_length
        self.timeout_buf[:] = timeout.long()
        self.reset_buf[:] = timeout.long()
        self.extras["success_rate"] = (d < self.success_distance).float().mean()

    def reset_idx(self, env_ids):
        n, dev = len(env_ids), self.device
        nd = self.num_arm_dofs
        pos = self.default_dof_pos + rand_uniform(-self.start_noise, self.start_noise, (n, nd), dev)
        pos[:, 7:] = self.finger_target
        pos = torch.max(torch.min(pos, self.dof_upper), self.dof_lower)
        self.dof_pos[env_ids] = pos
        self.dof_vel[env_ids] = 0.0
        self.targets[env_ids] = pos
        self.actions[env_ids] = 0.0
        self.target_pos[env_ids] = self.target_lo + (self.target_hi - self.target_lo) * torch.rand((n, 3), device=dev)
        ids = gymtorch.unwrap_tensor(self.actor_index[env_ids])
        self.gym.set_dof_state_tensor_indexed(self.sim, self._dof_gym, ids, n)
        self.gym.set_dof_position_target_tensor_indexed(self.sim, self._targets_gym, ids, n)
        self.progress_buf[env_ids] = 0
        # the hand moved with the reset: refresh the body states before computing observations
        self.gym.refresh_rigid_body_state_tensor(self.sim)
        self.compute_observations()
