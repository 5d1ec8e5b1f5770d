"""Quadruped: a 12-DOF quadruped (`assets/urdf/quadruped/quadruped.urdf`) walks on flat ground
following velocity commands (forward, sideways, yaw rate), legged_gym style.

Control: PD position drives (DOF_MODE_POS, stiffness/damping from the config); joint targets =
default pose + actionScale * action, held for `controlFrequencyInv` physics steps.
Observation (48): base linear velocity (base frame) * 2, base angular velocity (base frame)
* 0.25, gravity direction in the base frame, commands * (2, 2, 0.25), DOF positions - default
pose, DOF velocities * 0.05, previous actions.
Reward per control step: dt * sum of weighted terms (see `rewards:` in the config): command
tracking (exp of the squared error), vertical velocity, roll/pitch rate, joint torques, joint
accelerations, action rate, feet air time, knee/thigh collisions, joint limits; clipped at 0
(`onlyPositiveRewards`). The episode ends when the trunk touches the ground (net contact force
tensor), tilts past 60 degrees, or by time.
Resets: DOF positions = default pose * U(0.5, 1.5), base velocity U(-0.5, 0.5) per axis,
position jittered by +-0.5 m in x and y. Commands are resampled every `resamplingTime` s.
"""

from __future__ import annotations

import math

import torch

from gymlike import gymapi, gymtorch
from gymlike.torch_utils import quat_rotate_inverse

from ..vec_task import VecTask
from .common import add_ground, asset_root, env_bounds, rand_uniform


class Quadruped(VecTask):
    def __init__(self, cfg, rl_device="cpu", sim_device="cpu", graphics_device_id=-1, headless=True,
                 virtual_screen_capture=False, force_render=False):
        self.cfg = cfg
        e = cfg["env"]
        self.max_episode_length_s = float(e["episodeLengthSeconds"])
        self.action_scale = float(e["actionScale"])
        self.kp = float(e["stiffness"])
        self.kd = float(e["damping"])
        self.reward_weights = {k: float(v) for k, v in e["rewards"].items()}
        self.only_positive = bool(e.get("onlyPositiveRewards", True))
        self.cmd_ranges = {k: [float(x) for x in v] for k, v in e["commandRanges"].items()}
        self.resampling_time = float(e.get("resamplingTime", 10.0))
        e["numObservations"] = 48
        e["numActions"] = 12
        dt = float(cfg["sim"]["dt"]) * int(e.get("controlFrequencyInv", 1))
        self.max_episode_length = int(math.ceil(self.max_episode_length_s / dt))
        super().__init__(cfg, rl_device, sim_device, graphics_device_id, headless, virtual_screen_capture, force_render)

        n, dev = self.num_envs, self.device
        self.dt = self.sim_params.dt * self.control_freq_inv
        self.resample_steps = max(1, int(round(self.resampling_time / self.dt)))
        self.root_states = gymtorch.wrap_tensor(self.gym.acquire_actor_root_state_tensor(self.sim))
        self.dof_state = gymtorch.wrap_tensor(self.gym.acquire_dof_state_tensor(self.sim))
        self.body_states = gymtorch.wrap_tensor(self.gym.acquire_rigid_body_state_tensor(self.sim))
        self._root_gym = gymtorch.unwrap_tensor(self.root_states)
        self._dof_gym = gymtorch.unwrap_tensor(self.dof_state)
        self.use_contacts = True
        try:
            self.contact_forces = gymtorch.wrap_tensor(
                self.gym.acquire_net_contact_force_tensor(self.sim)).view(n, -1, 3)
        except NotImplementedError:     # older builds: fall back to trunk height / feet height
            self.use_contacts = False
            self.contact_forces = None
        self.dof_pos = self.dof_state.view(n, 12, 2)[..., 0]
        self.dof_vel = self.dof_state.view(n, 12, 2)[..., 1]
        self.bodies = self.body_states.view(n, self.num_bodies, 13)
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.initial_root_states = self.root_states.clone()
        self.initial_root_states[:, 7:13] = 0.0
        self.default_dof_pos = torch.tensor(self._default_pos, device=dev)
        self.dof_lower = torch.tensor(self._lower, device=dev)
        self.dof_upper = torch.tensor(self._upper, device=dev)
        mid, half = 0.5 * (self.dof_lower + self.dof_upper), 0.5 * (self.dof_upper - self.dof_lower)
        soft = float(e.get("softDofLimit", 0.9))
        self.soft_lower, self.soft_upper = mid - soft * half, mid + soft * half
        self.targets = self.default_dof_pos.repeat(n, 1)
        self._targets_gym = gymtorch.unwrap_tensor(self.targets)
        self.actions = torch.zeros((n, 12), device=dev)
        self.last_actions = torch.zeros((n, 12), device=dev)
        self.last_dof_vel = torch.zeros((n, 12), device=dev)
        self.commands = torch.zeros((n, 3), device=dev)
        self.commands_scale = torch.tensor([2.0, 2.0, 0.25], device=dev)
        self.feet_air_time = torch.zeros((n, 4), device=dev)
        self.last_contacts = torch.zeros((n, 4), dtype=torch.bool, device=dev)
        self.gravity_vec = torch.tensor([[0.0, 0.0, -1.0]], device=dev).expand(n, 3)
        self.base_lin_vel = torch.zeros((n, 3), device=dev)
        self.base_ang_vel = torch.zeros((n, 3), device=dev)
        self.projected_gravity = torch.zeros((n, 3), device=dev)
        self.actor_index = torch.arange(n, dtype=torch.int32, device=dev)
        self.episode_sums = {k: torch.zeros(n, device=dev) for k in self.reward_weights}
        self.reset()

    # ------------------------------------------------------------------ creation
    def create_sim(self):
        self.sim = super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine, self.sim_params)
        e = self.cfg["env"]
        add_ground(self, friction=float(e.get("plane", {}).get("staticFriction", 1.0)))
        lower, upper = env_bounds(float(e["envSpacing"]))
        o = gymapi.AssetOptions()
        o.angular_damping = 0.0
        o.default_dof_drive_mode = gymapi.DOF_MODE_POS
        asset = self.gym.load_asset(self.sim, asset_root(self.cfg),
                                    e.get("asset", {}).get("assetFileName", "urdf/quadruped/quadruped.urdf"), o)
        names = self.gym.get_asset_dof_names(asset)
        if len(names) != 12:
            raise ValueError(f"Quadruped: expected a 12-DOF robot, the asset has {len(names)} DOFs")
        defaults = e["defaultJointAngles"]
        self._default_pos = [float(next(v for k, v in defaults.items() if n.endswith(k))) for n in names]
        body_names = self.gym.get_asset_rigid_body_names(asset)
        self.num_bodies = len(body_names)
        self.base_index = self.gym.find_asset_rigid_body_index(asset, e.get("baseBody", "base"))
        self.feet_indices = [i for i, b in enumerate(body_names) if b.endswith(e.get("footSuffix", "foot"))]
        self.penalized_indices = [i for i, b in enumerate(body_names)
                                  if any(b.endswith(s) for s in e.get("penalizeContactsOn", ["thigh", "shank"]))]
        props = self.gym.get_asset_dof_properties(asset)
        self._lower = props["lower"].astype("float32").tolist()
        self._upper = props["upper"].astype("float32").tolist()
        props["driveMode"][:] = gymapi.DOF_MODE_POS
        props["stiffness"][:] = self.kp
        props["damping"][:] = self.kd
        pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, float(e["baseHeight"])))
        per_row = int(math.sqrt(self.num_envs))
        self.envs = []
        for i in range(self.num_envs):
            env = self.gym.create_env(self.sim, lower, upper, per_row)
            h = self.gym.create_actor(env, asset, pose, "quadruped", i, 1, 0)   # no self-collisions
            self.gym.set_actor_dof_properties(env, h, props)
            self.envs.append(env)

    # ------------------------------------------------------------------ step
    def pre_physics_step(self, actions):
        self.actions[:] = actions
        torch.add(self.default_dof_pos, actions, alpha=self.action_scale, out=self.targets)
        self.gym.set_dof_position_target_tensor(self.sim, self._targets_gym)

    def post_physics_step(self):
        self.progress_buf += 1
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.gym.refresh_rigid_body_state_tensor(self.sim)
        if self.use_contacts:
            self.gym.refresh_net_contact_force_tensor(self.sim)
        self._base_quantities()
        self.compute_reward()
        resample = (self.progress_buf % self.resample_steps == 0).nonzero(as_tuple=False).squeeze(-1)
        if resample.numel():
            self._resample_commands(resample)
        self.last_actions[:] = self.actions
        self.last_dof_vel[:] = self.dof_vel
        self.compute_observations()
        self.reset_done()          # reset_idx recomputes the observations of the new episodes

    def _base_quantities(self):
        q = self.root_states[:, 3:7]
        self.base_lin_vel[:] = quat_rotate_inverse(q, self.root_states[:, 7:10])
        self.base_ang_vel[:] = quat_rotate_inverse(q, self.root_states[:, 10:13])
        self.projected_gravity[:] = quat_rotate_inverse(q, self.gravity_vec)

    def compute_observations(self):
        ob = self.obs_buf
        ob[:, 0:3] = self.base_lin_vel * 2.0
        ob[:, 3:6] = self.base_ang_vel * 0.25
        ob[:, 6:9] = self.projected_gravity
        ob[:, 9:12] = self.commands * self.commands_scale
        ob[:, 12:24] = self.dof_pos - self.default_dof_pos
        ob[:, 24:36] = self.dof_vel * 0.05
        ob[:, 36:48] = self.actions
        return ob

    def _contacts(self):
        """(feet in contact (n, 4), penalized bodies in contact (n, k), trunk contact (n,))."""
        if self.use_contacts:
            f = self.contact_forces
            feet = f[:, self.feet_indices, 2] > 1.0
            coll = torch.linalg.norm(f[:, self.penalized_indices], dim=-1) > 0.1
            base = torch.linalg.norm(f[:, self.base_index], dim=-1) > 1.0
        else:   # flat ground: heights instead of forces
            feet = self.bodies[:, self.feet_indices, 2] < 0.035
            coll = self.bodies[:, self.penalized_indices, 2] < 0.05
            base = self.root_states[:, 2] < 0.12
        return feet, coll, base

    def compute_reward(self):
        w, dt = self.reward_weights, self.dt
        feet, coll, base_contact = self._contacts()
        lin_err = ((self.commands[:, 0:2] - self.base_lin_vel[:, 0:2]) ** 2).sum(-1)
        ang_err = (self.commands[:, 2] - self.base_ang_vel[:, 2]) ** 2
        torques = self.kp * (self.targets - self.dof_pos) - self.kd * self.dof_vel
        first_contact = (self.feet_air_time > 0.0) & feet
        self.feet_air_time += dt
        air = (((self.feet_air_time - 0.5) * first_contact).sum(-1)
               * (torch.linalg.norm(self.commands[:, 0:2], dim=-1) > 0.1))
        self.feet_air_time *= ~feet
        out_of_limits = (-(self.dof_pos - self.soft_lower).clamp(max=0.0)
                         + (self.dof_pos - self.soft_upper).clamp(min=0.0)).sum(-1)
        terms = {
            "tracking_lin_vel": torch.exp(-lin_err / 0.25),
            "tracking_ang_vel": torch.exp(-ang_err / 0.25),
            "lin_vel_z": self.base_lin_vel[:, 2] ** 2,
            "ang_vel_xy": (self.base_ang_vel[:, 0:2] ** 2).sum(-1),
            "torques": (torques ** 2).sum(-1),
            "dof_acc": (((self.last_dof_vel - self.dof_vel) / dt) ** 2).sum(-1),
            "action_rate": ((self.last_actions - self.actions) ** 2).sum(-1),
            "feet_air_time": air,
            "collision": coll.float().sum(-1),
            "dof_pos_limits": out_of_limits,
            "orientation": (self.projected_gravity[:, 0:2] ** 2).sum(-1),
        }
        rew = torch.zeros_like(self.rew_buf)
        for k, wk in w.items():
            if wk:
                r = terms[k] * (wk * dt)
                rew += r
                self.episode_sums[k] += r
        if self.only_positive:
            rew.clamp_(min=0.0)
        self.rew_buf[:] = rew
        fallen = base_contact | (self.projected_gravity[:, 2] > -0.5)
        timeout = self.progress_buf >= self.max_episode_length
        self.timeout_buf[:] = (timeout & ~fallen).long()
        self.reset_buf[:] = (fallen | timeout).long()

    def _resample_commands(self, env_ids):
        n, dev, r = len(env_ids), self.device, self.cmd_ranges
        cmd = torch.stack([rand_uniform(r["linVelX"][0], r["linVelX"][1], n, dev),
                           rand_uniform(r["linVelY"][0], r["linVelY"][1], n, dev),
                           rand_uniform(r["angVelYaw"][0], r["angVelYaw"][1], n, dev)], dim=-1)
        cmd[:, 0:2] *= (torch.linalg.norm(cmd[:, 0:2], dim=-1, keepdim=True) > 0.2)   # tiny commands -> stand
        self.commands[env_ids] = cmd

    def reset_idx(self, env_ids):
        n, dev = len(env_ids), self.device
        pos = self.default_dof_pos * rand_uniform(0.5, 1.5, (n, 12), dev)
        self.dof_pos[env_ids] = torch.max(torch.min(pos, self.dof_upper), self.dof_lower)
        self.dof_vel[env_ids] = 0.0
        root = self.initial_root_states[env_ids].clone()
        root[:, 0:2] += rand_uniform(-0.5, 0.5, (n, 2), dev)
        root[:, 7:13] = rand_uniform(-0.5, 0.5, (n, 6), dev)
        self.root_states[env_ids] = root
        ids = gymtorch.unwrap_tensor(self.actor_index[env_ids])
        self.gym.set_actor_root_state_tensor_indexed(self.sim, self._root_gym, ids, n)
        self.gym.set_dof_state_tensor_indexed(self.sim, self._dof_gym, ids, n)
        self._resample_commands(env_ids)
        self.actions[env_ids] = 0.0
        self.last_actions[env_ids] = 0.0
        self.last_dof_vel[env_ids] = 0.0
        self.feet_air_time[env_ids] = 0.0
        self.progress_buf[env_ids] = 0
        # per-term episode sums (per second of episode) for logging, legged_gym style
        ep = {}
        for k, s in self.episode_sums.items():
            ep["rew_" + k] = s[env_ids].mean() / self.max_episode_length_s
            s[env_ids] = 0.0
        self.extras["episode"] = ep
        self._base_quantities()
        self.compute_observations()
