"""Torque-controlled running (Ant, Humanoid): run along +x as fast as possible without falling.

Observation (13 + 3 * num_dofs), all in the torso frame where a vector:
    [0]        torso height above the ground
    [1:4]      torso linear velocity            * linearVelocityScale
    [4:7]      torso angular velocity           * angularVelocityScale
    [7:10]     gravity direction (unit)
    [10:13]    the run direction (+x of the world)
    then       DOF positions scaled to [-1, 1] by the joint limits,
               DOF velocities * dofVelocityScale, the previous actions.
Action: one value in [-1, 1] per motor; torque = action * gear (MJCF motor) * powerScale.
Reward per step: progressWeight * forward velocity + aliveReward - actionsCost * |a|^2
    - energyCost * sum |a * scaled dof_vel| - jointsAtLimitCost * (#DOFs beyond 99% of their range);
    `deathCost` instead when the torso falls below terminationHeight (the episode ends).
"""

from __future__ import annotations

import math

import torch

from gymlike import gymapi, gymtorch
from gymlike.torch_utils import quat_rotate_inverse

from ..vec_task import VecTask
from .common import add_ground, asset_root, env_bounds, rand_uniform


class LocomotionTask(VecTask):
    default_asset = ""

    def __init__(self, cfg, rl_device="cpu", sim_device="cpu", graphics_device_id=-1, headless=True,
                 virtual_screen_capture=False, force_render=False):
        self.cfg = cfg
        e = cfg["env"]
        self.max_episode_length = int(e["episodeLength"])
        self.power_scale = float(e["powerScale"])
        self.progress_weight = float(e["progressWeight"])
        self.alive_reward = float(e["aliveReward"])
        self.actions_cost = float(e["actionsCost"])
        self.energy_cost = float(e["energyCost"])
        self.joints_at_limit_cost = float(e["jointsAtLimitCost"])
        self.death_cost = float(e["deathCost"])
        self.termination_height = float(e["terminationHeight"])
        self.lin_vel_scale = float(e.get("linearVelocityScale", 1.0))
        self.ang_vel_scale = float(e.get("angularVelocityScale", 0.25))
        self.dof_vel_scale = float(e.get("dofVelocityScale", 0.2))
        self.start_height = float(e.get("startHeight", 1.0))     # root (torso) height at reset
        self.init_dof_noise = float(e.get("initDofNoise", 0.2))
        self.init_vel_noise = float(e.get("initDofVelocityNoise", 0.1))
        self._probe_asset(cfg)       # DOF count -> observation/action sizes
        e["numObservations"] = 13 + 3 * self.num_dof
        e["numActions"] = self.num_dof
        super().__init__(cfg, rl_device, sim_device, graphics_device_id, headless, virtual_screen_capture, force_render)

        dev, n, d = self.device, self.num_envs, self.num_dof
        self.root_states = gymtorch.wrap_tensor(self.gym.acquire_actor_root_state_tensor(self.sim))
        self.dof_state = gymtorch.wrap_tensor(self.gym.acquire_dof_state_tensor(self.sim))
        self._root_gym = gymtorch.unwrap_tensor(self.root_states)
        self._dof_gym = gymtorch.unwrap_tensor(self.dof_state)
        self.dof_pos = self.dof_state.view(n, d, 2)[..., 0]
        self.dof_vel = self.dof_state.view(n, d, 2)[..., 1]
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.initial_root_states = self.root_states.clone()
        self.initial_root_states[:, 7:13] = 0.0
        self.dof_lower = torch.tensor(self._dof_lower, device=dev)
        self.dof_upper = torch.tensor(self._dof_upper, device=dev)
        self.default_dof_pos = torch.clamp(torch.zeros(d, device=dev), self.dof_lower, self.dof_upper)
        self.motor_efforts = torch.tensor(self._gears, device=dev) * self.power_scale
        self.forces = torch.zeros((n, d), device=dev)
        self._forces_gym = gymtorch.unwrap_tensor(self.forces)
        self.actions = torch.zeros((n, d), device=dev)
        self.gravity_vec = torch.tensor([[0.0, 0.0, -1.0]], device=dev).expand(n, 3)
        self.run_dir = torch.tensor([[1.0, 0.0, 0.0]], device=dev).expand(n, 3)
        self.actor_index = torch.arange(n, dtype=torch.int32, device=dev)
        self.reset()

    # ------------------------------------------------------------------ creation
    def _asset_options(self):
        o = gymapi.AssetOptions()
        o.angular_damping = 0.0
        o.default_dof_drive_mode = gymapi.DOF_MODE_EFFORT
        return o

    def _asset_file(self, cfg):
        return cfg["env"].get("asset", {}).get("assetFileName", self.default_asset)

    def _probe_asset(self, cfg):
        """Read DOF count, limits and motor gears from the asset before the sim exists."""
        gym = gymapi.acquire_gym()
        probe = gym.create_sim(0, -1, gymapi.SIM_PHYSX, gymapi.SimParams())
        asset = gym.load_asset(probe, asset_root(cfg), self._asset_file(cfg), self._asset_options())
        self.num_dof = gym.get_asset_dof_count(asset)
        props = gym.get_asset_dof_properties(asset)
        self._dof_lower = props["lower"].astype("float32").tolist()
        self._dof_upper = props["upper"].astype("float32").tolist()
        acts = gym.get_asset_actuator_properties(asset)
        gears = [1.0] * self.num_dof
        # one motor per DOF in the shipped assets, in DOF order (MJCF <motor joint=...>)
        dof_names = gym.get_asset_dof_names(asset)
        for i in range(gym.get_asset_actuator_count(asset)):
            joint = gym.get_asset_actuator_joint_name(asset, i)
            if joint in dof_names:
                gears[dof_names.index(joint)] = float(acts[i].motor_effort)
        self._gears = gears
        gym.destroy_sim(probe)

    def create_sim(self):
        self.sim = super().create_sim(self.device_id, self.graphics_device_id, self.physics_engine, self.sim_params)
        e = self.cfg["env"]
        add_ground(self, friction=float(e.get("plane", {}).get("staticFriction", 1.0)))
        lower, upper = env_bounds(float(e["envSpacing"]))
        asset = self.gym.load_asset(self.sim, asset_root(self.cfg), self._asset_file(self.cfg), self._asset_options())
        props = self.gym.get_asset_dof_properties(asset)
        props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
        props["stiffness"][:] = 0.0
        props["damping"][:] = 0.0
        if e.get("dofArmature") is not None:        # rotor inertia: keeps light limbs stable
            props["armature"][:] = float(e["dofArmature"])
        if e.get("dofFriction") is not None:
            props["friction"][:] = float(e["dofFriction"])
        pose = gymapi.Transform(gymapi.Vec3(0.0, 0.0, self.start_height))
        per_row = int(math.sqrt(self.num_envs))
        # filter 1 turns the robot's self-collisions off (only robot-ground contacts): cheaper and
        # what these tasks need; selfCollisions: True keeps them
        collision_filter = 0 if bool(e.get("selfCollisions", False)) else 1
        self.envs, self.actor_handles = [], []
        for i in range(self.num_envs):
            env = self.gym.create_env(self.sim, lower, upper, per_row)
            h = self.gym.create_actor(env, asset, pose, type(self).__name__.lower(), i, collision_filter, 0)
            self.gym.set_actor_dof_properties(env, h, props)
            self.envs.append(env)
            self.actor_handles.append(h)

    # ------------------------------------------------------------------ step
    def pre_physics_step(self, actions):
        self.actions[:] = actions
        torch.mul(actions, self.motor_efforts, out=self.forces)
        self.gym.set_dof_actuation_force_tensor(self.sim, self._forces_gym)

    def post_physics_step(self):
        self.progress_buf += 1
        self.gym.refresh_actor_root_state_tensor(self.sim)
        self.gym.refresh_dof_state_tensor(self.sim)
        self.compute_observations()
        self.compute_reward()
        self.reset_done()

    def compute_observations(self):
        rs = self.root_states
        q = rs[:, 3:7]
        d = self.num_dof
        ob = self.obs_buf
        ob[:, 0] = rs[:, 2]
        ob[:, 1:4] = quat_rotate_inverse(q, rs[:, 7:10]) * self.lin_vel_scale
        ob[:, 4:7] = quat_rotate_inverse(q, rs[:, 10:13]) * self.ang_vel_scale
        ob[:, 7:10] = quat_rotate_inverse(q, self.gravity_vec)
        ob[:, 10:13] = quat_rotate_inverse(q, self.run_dir)
        ob[:, 13:13 + d] = (2.0 * self.dof_pos - (self.dof_upper + self.dof_lower)) / (self.dof_upper - self.dof_lower)
        ob[:, 13 + d:13 + 2 * d] = self.dof_vel * self.dof_vel_scale
        ob[:, 13 + 2 * d:] = self.actions
        return ob

    def compute_reward(self):
        d = self.num_dof
        height = self.root_states[:, 2]
        fwd_vel = self.root_states[:, 7]
        a = self.actions
        scaled_pos = self.obs_buf[:, 13:13 + d]
        rew = (self.progress_weight * fwd_vel + self.alive_reward
               - self.actions_cost * (a * a).sum(-1)
               - self.energy_cost * (a * self.obs_buf[:, 13 + d:13 + 2 * d]).abs().sum(-1)
               - self.joints_at_limit_cost * (scaled_pos.abs() > 0.99).sum(-1))
        fallen = height < self.termination_height
        self.rew_buf[:] = torch.where(fallen, torch.full_like(rew, self.death_cost), rew)
        timeout = self.progress_buf >= self.max_episode_length
        self.timeout_buf[:] = (timeout & ~fallen).long()
        self.reset_buf[:] = (fallen | timeout).long()

    def reset_idx(self, env_ids):
        n, d = len(env_ids), self.num_dof
        pos = self.default_dof_pos + rand_uniform(-self.init_dof_noise, self.init_dof_noise, (n, d), self.device)
        self.dof_pos[env_ids] = torch.max(torch.min(pos, self.dof_upper), self.dof_lower)
        self.dof_vel[env_ids] = rand_uniform(-self.init_vel_noise, self.init_vel_noise, (n, d), self.device)
        self.root_states[env_ids] = self.initial_root_states[env_ids]
        ids = gymtorch.unwrap_tensor(self.actor_index[env_ids])
        self.gym.set_actor_root_state_tensor_indexed(self.sim, self._root_gym, ids, n)
        self.gym.set_dof_state_tensor_indexed(self.sim, self._dof_gym, ids, n)
        self.progress_buf[env_ids] = 0
        self.actions[env_ids] = 0.0
        self.compute_observations()


class Ant(LocomotionTask):
    default_asset = "mjcf/nv_ant.xml"


class Humanoid(LocomotionTask):
    default_asset = "mjcf/humanoid.xml"
