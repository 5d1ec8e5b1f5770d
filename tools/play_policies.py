"""Play published walking policies through their own Isaac Gym envs on gymlike, and in plain MuJoCo.

    python tools/play_policies.py [xbot g1 h1 h1_2] [--envs 16] [--seconds 12] [--json out.json]
        [--side both|gym|mujoco] [--mj-robots 4] [--pipeline c|warp] [--commands vx,vy,wz ...]
        [--no-vel-limits] [--substeps N] [--armature A] [--mj-armature A] [--mj-vel-clamp V]

(default cases: xbot g1 h1; h1_2 is unitree's "preview" task: its published policy walks sideways
for a forward command in the vendor's own MuJoCo deploy, so it cannot serve as a reference.)

The instrument for issue 40: policies other people trained on Isaac Gym, published with their env
code, must walk on gymlike as they walk in MuJoCo. For each case and fixed command it prints

* gymlike: the project's OWN env class (its task registry and config), unmodified, headless, CPU
  pipeline, `--envs` robots per command (all commands in one sim: env i gets command
  i // envs), `--seconds` of sim time; the exported JIT policy takes the observations the env's
  `step` returns (humanoid-gym: its 15-frame stack; unitree's `motion.pt`: an LSTM whose hidden
  state is a buffer of batch 1, widened here to one row per env).
* MuJoCo: the vendor's own MJCF with the vendor's sim2sim / deploy parameters (humanoid-gym's
  `humanoid/scripts/sim2sim.py`, unitree_rl_gym's `deploy/deploy_mujoco/deploy_mujoco.py` and its
  YAML configs, read at run time): their loop and observation layout, re-implemented here, stepped
  by `mujoco` (the C library), `--mj-robots` robots per command (robot 0 starts exactly as the
  vendor's script does, the others with joint angles perturbed by U(-0.05, 0.05) rad).
* per case and command: the fraction of robots *upright over the whole run* (never fallen:
  fallen = base height below 0.6 x the task's `base_height_target`, or the base z axis tilted more
  than 60 deg from vertical, or, on gymlike, the env terminated the episode by its own rules:
  base contact, unitree's roll/pitch limits), the mean base-frame forward / lateral / yaw velocity
  over the last 8 s of the robots upright throughout (nan when none is), the ratio gymlike /
  MuJoCo on the commanded axis (difference when the command is 0), the mean time of the first
  fall, and the wall time of each side (gymlike: build + play).

The env's randomization is switched off through its config object, as the projects' play scripts
do: observation noise, friction and base mass randomization, pushes, humanoid-gym's action delay
and noise, command resampling (commands are written into `env.commands` before every step, as
humanoid-gym's play.py does; the env's own resets, including unitree's random initial base
velocity, stay). Episodes are made longer than the run so no robot times out. Diagnostics
(configuration or the public Gym API, no gymlike code changed): `--no-vel-limits` sets
every DOF velocity limit to 0 (none) through `set_actor_dof_properties`, `--substeps N` sets
`cfg.sim.substeps`, `--armature A` sets `cfg.asset.armature` (and `--mj-armature A` the MuJoCo
side's actuated joints' armature; `--mj-vel-clamp V` makes the MuJoCo side take explicit Euler
steps that clamp the actuated joints' speeds to V before the positions move), `--pipeline warp` runs gymlike on
MuJoCo-Warp on Warp's CPU backend (`GYMLIKE_CPU_PIPELINE=warp`; slower: use fewer envs).

Set-up (nothing from these projects is copied here; they are imported from their checkouts):

* `--clients DIR` (default `$PLAY_POLICIES_CLIENTS`, else /work/scratch) holds
  - `humanoid-gym/`: roboterax/humanoid-gym (XBot-L: `logs/XBot_ppo/exported/policies/
    policy_example.pt`, MJCF `resources/robots/XBot/mjcf/XBot-L.xml`);
  - `unitree_rl_gym/`: unitreerobotics/unitree_rl_gym (`deploy/pre_train/{g1,h1,h1_2}/motion.pt`,
    `deploy/deploy_mujoco/configs/*.yaml`, MJCF `resources/robots/*/scene.xml`);
  - `rsl_rl/`: leggedrobotics/rsl_rl checked out at tag v1.0.2 (unitree_rl_gym's task registry
    imports it; the venv's rsl-rl-lib 5.x has another API). Put first on the child's path.
  - `deps/`: `pip install --target DIR/deps wandb` (humanoid-gym's task registry imports its
    runner, which imports wandb; unused here). Appended to the path, so the venv's own packages
    win where both have one.
* A checkout may lack Git LFS blobs. unitree_rl_gym's G1 URDF and MJCF use
  `resources/robots/g1_description/meshes/torso_link_23dof_rev_1_0.STL` as the torso's collision
  mesh; gymlike refuses a URDF whose collision mesh is missing, so where the file is missing copy
  the same robot's `torso_link_rev_1_0.STL` (present) to that name: both sides then use that
  stand-in (the torso touches nothing while a robot walks). Other meshes missing on the MuJoCo
  side are dropped with their geoms (named on stderr).
* humanoid-gym pins mujoco 2.3.6, whose `<flag sensornoise=...>` MuJoCo 3 no longer knows (MuJoCo 3
  simulates no sensor noise): the attribute is dropped from the XML text before parsing, and the
  sim2sim runs without sensor noise.

Each case and side runs in a child process (the two projects both name packages `legged_gym`-like
and bring their own registries); torch runs on one thread (`--torch-threads`) in both sides.
Results go in python_bindings_docs/real_clients.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

TILT_MAX_DEG = 60.0
HEIGHT_FRACTION = 0.6     # of the task's base_height_target
LAST_S = 8.0              # velocities are averaged over the last 8 s

# What each case needs to know about its project. Parameters of the vendors' MuJoCo scripts that are
# not in a config file (humanoid-gym's sim2sim gains, unitree's gait period) are written here.
CASES = {
    "xbot": dict(project="humanoid-gym", task="humanoid_ppo", base_height=0.89,
                 policy="logs/XBot_ppo/exported/policies/policy_example.pt",
                 commands=[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (0.6, 0.0, 0.0), (0.0, 0.0, 0.3)],
                 # humanoid/scripts/sim2sim.py (Sim2simCfg) and XBotLCfg
                 mjcf="resources/robots/XBot/mjcf/XBot-L.xml", dt=0.001, decimation=10,
                 kps=[200, 200, 350, 350, 15, 15] * 2, kds=[10] * 12, tau_limit=200.0,
                 action_scale=0.25, num_actions=12, single_obs=47, frame_stack=15, cycle_time=0.64,
                 lin_vel_scale=2.0, ang_vel_scale=1.0, dof_pos_scale=1.0, dof_vel_scale=0.05,
                 clip_obs=18.0, clip_actions=18.0),
    "g1": dict(project="unitree_rl_gym", task="g1", base_height=0.78, period=0.8,
               deploy="deploy/deploy_mujoco/configs/g1.yaml",
               commands=[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (0.6, 0.0, 0.0), (0.0, 0.0, 0.3)]),
    "h1": dict(project="unitree_rl_gym", task="h1", base_height=1.05, period=0.8,
               deploy="deploy/deploy_mujoco/configs/h1.yaml",
               commands=[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (0.6, 0.0, 0.0), (0.0, 0.0, 0.3)]),
    "h1_2": dict(project="unitree_rl_gym", task="h1_2", base_height=1.0, period=0.8,
                 deploy="deploy/deploy_mujoco/configs/h1_2.yaml",
                 commands=[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (0.6, 0.0, 0.0), (0.0, 0.0, 0.3)]),
}


# ----------------------------------------------------------------------------------------------
# the record both sides fill: per control step, which robots are still upright and their velocity

class Record:
    def __init__(self, n, dt_control, seconds):
        import numpy as np
        self.np = np
        self.n, self.dt = n, dt_control
        self.upright = np.ones(n, bool)
        self.first_fall = np.full(n, np.nan)
        self.t0_avg = seconds - LAST_S
        self.vel_sum = np.zeros((n, 3))
        self.vel_count = 0

    def add(self, t, ok, vel):
        """t: sim time after the step; ok: (n,) bool upright now; vel: (n, 3) base-frame vx, vy, wz."""
        fell = self.upright & ~ok
        self.first_fall[fell] = t
        self.upright &= ok
        if t > self.t0_avg + 1e-9:
            self.vel_sum += vel
            self.vel_count += 1

    def summary(self, idx):
        np = self.np
        up = self.upright[idx]
        vel = (self.vel_sum[idx][up] / max(self.vel_count, 1)).mean(axis=0) if up.any() else [math.nan] * 3
        ff = self.first_fall[idx]
        return dict(upright=float(up.mean()), robots=int(len(idx)),
                    vx=float(vel[0]), vy=float(vel[1]), wz=float(vel[2]),
                    first_fall_s=float(np.nanmean(ff)) if np.isfinite(ff).any() else None)


def _paths(opts, case):
    c = CASES[case]
    return os.path.join(opts["clients"], c["project"]), c


# ----------------------------------------------------------------------------------------------
# gymlike: the project's own env

def _configure(cfg, opts, seconds):
    """Switch the env's randomization off through its config object (as the projects' play scripts
    do) and apply the diagnostic settings."""
    cfg.env.num_envs = opts["envs"] * len(opts["commands"])
    cfg.env.episode_length_s = seconds + 10.0         # no time-outs inside the run
    cfg.terrain.mesh_type = "plane"
    cfg.terrain.curriculum = False
    cfg.terrain.measure_heights = False
    cfg.noise.add_noise = False
    dr = cfg.domain_rand
    dr.randomize_friction = False
    dr.randomize_base_mass = False
    dr.push_robots = False
    for name in ("action_delay", "action_noise", "joint_angle_noise"):   # humanoid-gym's
        if hasattr(dr, name):
            setattr(dr, name, 0.0)
    cfg.commands.curriculum = False
    cfg.commands.heading_command = False
    cfg.commands.resampling_time = 1e6
    for name in ("lin_vel_x", "lin_vel_y", "ang_vel_yaw"):
        setattr(cfg.commands.ranges, name, [0.0, 0.0])
    if opts.get("substeps"):
        cfg.sim.substeps = int(opts["substeps"])
    if opts.get("armature") is not None:
        cfg.asset.armature = float(opts["armature"])


def play_gym(case, opts):
    root, c = _paths(opts, case)
    if c["project"] == "unitree_rl_gym":
        sys.path.insert(0, os.path.join(opts["clients"], "rsl_rl"))
    sys.path.insert(0, root)
    sys.path.append(os.path.join(opts["clients"], "deps"))
    import gymlike
    gymlike.install_isaacgym_alias()
    import isaacgym  # noqa: F401  (first, as their scripts import it before torch)
    import numpy as np
    import torch
    torch.set_num_threads(opts["torch_threads"])
    if c["project"] == "humanoid-gym":
        import humanoid.envs  # noqa: F401  (registers the task)
        from humanoid.utils import get_args, task_registry
    else:
        import legged_gym.envs  # noqa: F401
        from legged_gym.utils import get_args, task_registry
    seconds = opts["seconds"]
    env_cfg, _ = task_registry.get_cfgs(name=c["task"])
    _configure(env_cfg, opts, seconds)
    argv = sys.argv
    sys.argv = ["play.py", f"--task={c['task']}", "--headless", "--sim_device=cpu", "--rl_device=cpu",
                f"--num_envs={env_cfg.env.num_envs}"]
    try:
        args = get_args()
    finally:
        sys.argv = argv
    t0 = time.time()
    env, _ = task_registry.make_env(name=c["task"], args=args, env_cfg=env_cfg)
    if opts.get("no_vel_limits"):
        for e, a in zip(env.envs, env.actor_handles):
            props = env.gym.get_actor_dof_properties(e, a)
            props["velocity"][:] = 0.0          # 0: no limit
            env.gym.set_actor_dof_properties(e, a, props)
    build_s = time.time() - t0

    policy = torch.jit.load(os.path.join(root, c["policy"]) if "policy" in c else _deploy(root, c)[1])
    recurrent = hasattr(policy, "hidden_state")
    if recurrent:       # exported with batch 1: one row per env (the forward copies into it in place)
        policy.hidden_state = torch.zeros(policy.hidden_state.shape[0], env.num_envs, policy.hidden_state.shape[2])
        policy.cell_state = torch.zeros_like(policy.hidden_state)
    cmds = torch.tensor(np.repeat(np.array(opts["commands"], np.float32), opts["envs"], axis=0))
    n = env.num_envs
    rec = Record(n, env.dt, seconds)
    hmin = HEIGHT_FRACTION * c["base_height"]
    cos_max = math.cos(math.radians(TILT_MAX_DEG))
    t1 = time.time()
    obs, _ = env.reset()        # as the runner their play scripts build does
    steps = int(round(seconds / env.dt))
    for k in range(steps):
        env.commands[:, :3] = cmds
        with torch.no_grad():
            actions = policy(obs)
        obs, _, _, dones, _ = env.step(actions)
        terminated = env.reset_buf & ~env.time_out_buf
        ok = (~terminated & (env.root_states[:, 2] > hmin) & (-env.projected_gravity[:, 2] > cos_max)).numpy()
        vel = torch.stack([env.base_lin_vel[:, 0], env.base_lin_vel[:, 1], env.base_ang_vel[:, 2]], 1).numpy()
        rec.add((k + 1) * env.dt, ok, vel)
        if recurrent and bool(dones.any()):
            policy.hidden_state[:, dones] = 0.0
            policy.cell_state[:, dones] = 0.0
    play_s = time.time() - t1
    return dict(results=[rec.summary(np.arange(i * opts["envs"], (i + 1) * opts["envs"]))
                         for i in range(len(opts["commands"]))],
                build_s=build_s, play_s=play_s, dt=env.dt, sim_dt=env.sim_params.dt,
                substeps=env.sim_params.substeps,
                pipeline=os.environ.get("GYMLIKE_CPU_PIPELINE", "") or "mujoco-c")


# ----------------------------------------------------------------------------------------------
# plain MuJoCo: the vendor's MJCF and sim2sim / deploy parameters

def _deploy(root, c):
    """unitree_rl_gym's deploy_mujoco YAML config (read as its script reads it) and the policy path."""
    import yaml
    with open(os.path.join(root, c["deploy"])) as f:
        cfg = yaml.safe_load(f)
    fix = lambda p: p.replace("{LEGGED_GYM_ROOT_DIR}", root)   # noqa: E731
    return cfg, fix(cfg["policy_path"]), fix(cfg["xml_path"])


def load_mjcf(path):
    """The vendor's MJCF as MuJoCo 3 can compile it: `sensornoise` (a MuJoCo 2 flag) dropped, meshes
    missing from the checkout dropped with their geoms (named on stderr)."""
    import re
    import mujoco
    text = open(path).read()
    if "sensornoise" in text:
        text = re.sub(r'\s+sensornoise="[^"]*"', "", text)
        spec = mujoco.MjSpec.from_string(text)
        spec.modelfiledir = os.path.dirname(os.path.abspath(path))
    else:
        spec = mujoco.MjSpec.from_file(path)
    meshdir = os.path.join(spec.modelfiledir, spec.meshdir)
    missing = {m.name for m in spec.meshes if not os.path.isfile(os.path.join(meshdir, m.file))}
    if missing:
        print(f"play_policies: meshes missing from the checkout, dropped with their geoms: {sorted(missing)}",
              file=sys.stderr)
        for g in [g for g in spec.geoms if g.meshname in missing]:
            spec.delete(g)
        for m in [m for m in spec.meshes if m.name in missing]:
            spec.delete(m)
    return spec.compile()


def _euler_xyz(quat_wxyz):
    """roll, pitch, yaw of (n, 4) w, x, y, z quaternions (the convention of both projects)."""
    import numpy as np
    w, x, y, z = quat_wxyz.T
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1, 1))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return np.stack([roll, pitch, yaw], 1)


def _gravity_in_base(quat_wxyz):
    """(n, 3) unit gravity (0, 0, -1) in the base frame."""
    import numpy as np
    w, x, y, z = quat_wxyz.T
    return np.stack([2 * (w * y - x * z), -2 * (w * x + y * z), -(1 - 2 * (x * x + y * y))], 1)


def play_mujoco(case, opts):
    import numpy as np
    import mujoco
    import torch
    torch.set_num_threads(opts["torch_threads"])
    root, c = _paths(opts, case)
    unitree = c["project"] == "unitree_rl_gym"
    if unitree:
        cfg, policy_path, xml = _deploy(root, c)
        p = dict(dt=cfg["simulation_dt"], decimation=cfg["control_decimation"], kps=cfg["kps"], kds=cfg["kds"],
                 default=cfg["default_angles"], ang_vel_scale=cfg["ang_vel_scale"],
                 dof_pos_scale=cfg["dof_pos_scale"], dof_vel_scale=cfg["dof_vel_scale"],
                 action_scale=cfg["action_scale"], cmd_scale=cfg["cmd_scale"], num_actions=cfg["num_actions"],
                 num_obs=cfg["num_obs"])
    else:
        p, policy_path, xml = c, os.path.join(root, c["policy"]), os.path.join(root, c["mjcf"])
    model = load_mjcf(xml)
    model.opt.timestep = p["dt"]
    if opts.get("mj_armature") is not None:         # diagnostic: the actuated joints' armature
        model.dof_armature[-p["num_actions"]:] = float(opts["mj_armature"])
    vclamp = opts.get("mj_vel_clamp")
    policy = torch.jit.load(policy_path)
    cmds = np.array(opts["commands"], np.float64)
    per = opts["mj_robots"]
    n = len(cmds) * per
    cmd = np.repeat(cmds, per, axis=0)
    na = p["num_actions"]
    kps, kds = np.array(p["kps"], np.float64), np.array(p["kds"], np.float64)
    rng = np.random.default_rng(0)
    datas = []
    for i in range(n):
        d = mujoco.MjData(model)
        if i % per:     # robot 0 of each command starts as the vendor's script does
            d.qpos[-na:] += rng.uniform(-0.05, 0.05, na)
        datas.append(d)
    if unitree:
        policy.hidden_state = torch.zeros(policy.hidden_state.shape[0], n, policy.hidden_state.shape[2])
        policy.cell_state = torch.zeros_like(policy.hidden_state)
        default = np.array(p["default"], np.float64)
        target = np.tile(default, (n, 1))
        action = np.zeros((n, na), np.float32)
    else:
        for d in datas:                 # sim2sim steps once before its loop
            mujoco.mj_step(model, d)
        target = np.zeros((n, na))
        action = np.zeros((n, na))
        hist = np.zeros((n, p["frame_stack"], p["single_obs"]), np.float32)
        quat_adr = model.sensor_adr[model.sensor("orientation").id]
        gyro_adr = model.sensor_adr[model.sensor("angular-velocity").id]
    base = 1            # the root body (XBot's base_link with its slides and ball; the free-joint pelvis)
    rec = Record(n, p["dt"] * p["decimation"], opts["seconds"])
    hmin = HEIGHT_FRACTION * c["base_height"]
    cos_max = math.cos(math.radians(TILT_MAX_DEG))
    res = np.zeros(6)
    steps = int(round(opts["seconds"] / p["dt"]))
    dec = p["decimation"]
    t0 = time.time()

    def q_dq():
        return (np.array([d.qpos[-na:] for d in datas]), np.array([d.qvel[-na:] for d in datas]))

    for k in range(steps):
        if not unitree and k % dec == 0:
            # sim2sim: the observation and the policy before the PD of control steps
            q, dq = q_dq()
            quat = np.array([d.sensordata[quat_adr:quat_adr + 4] for d in datas])
            omega = np.array([d.sensordata[gyro_adr:gyro_adr + 3] for d in datas])
            phase = 2 * math.pi * k * p["dt"] / p["cycle_time"]
            o = np.zeros((n, p["single_obs"]), np.float32)
            o[:, 0], o[:, 1] = math.sin(phase), math.cos(phase)
            o[:, 2:4] = cmd[:, :2] * p["lin_vel_scale"]
            o[:, 4] = cmd[:, 2] * p["ang_vel_scale"]
            o[:, 5:17] = q * p["dof_pos_scale"]
            o[:, 17:29] = dq * p["dof_vel_scale"]
            o[:, 29:41] = action
            o[:, 41:44] = omega
            o[:, 44:47] = _euler_xyz(quat)
            hist = np.roll(hist, -1, axis=1)
            hist[:, -1] = np.clip(o, -p["clip_obs"], p["clip_obs"])
            with torch.no_grad():
                action = policy(torch.from_numpy(hist.reshape(n, -1))).numpy().astype(np.float64)
            action = np.clip(action, -p["clip_actions"], p["clip_actions"])
            target = action * p["action_scale"]
        q, dq = q_dq()
        tau = (target - q) * kps - dq * kds
        if not unitree:
            tau = np.clip(tau, -p["tau_limit"], p["tau_limit"])
        for i, d in enumerate(datas):
            d.ctrl[:] = tau[i]
            if vclamp:
                # diagnostic: an explicit Euler step whose actuated-joint velocities are clamped
                # before the positions integrate (a velocity limit inside the step)
                mujoco.mj_forward(model, d)
                d.qvel[:] += p["dt"] * d.qacc
                d.qvel[-na:] = np.clip(d.qvel[-na:], -vclamp, vclamp)
                d.qacc_warmstart[:] = d.qacc
                mujoco.mj_integratePos(model, d.qpos, d.qvel, p["dt"])
                d.time += p["dt"]
            else:
                mujoco.mj_step(model, d)
        if (k + 1) % dec == 0:
            if unitree:
                # deploy_mujoco: the observation and the policy after every decimation-th step
                q, dq = q_dq()
                quat = np.array([d.qpos[3:7] for d in datas])
                omega = np.array([d.qvel[3:6] for d in datas])
                ph = ((k + 1) * p["dt"]) % c["period"] / c["period"]
                o = np.zeros((n, p["num_obs"]), np.float32)
                o[:, 0:3] = omega * p["ang_vel_scale"]
                o[:, 3:6] = _gravity_in_base(quat)
                o[:, 6:9] = cmd * np.array(p["cmd_scale"])
                o[:, 9:9 + na] = (q - default) * p["dof_pos_scale"]
                o[:, 9 + na:9 + 2 * na] = dq * p["dof_vel_scale"]
                o[:, 9 + 2 * na:9 + 3 * na] = action
                o[:, 9 + 3 * na] = math.sin(2 * math.pi * ph)
                o[:, 10 + 3 * na] = math.cos(2 * math.pi * ph)
                with torch.no_grad():
                    action = policy(torch.from_numpy(o)).numpy()
                target = action * p["action_scale"] + default
            ok = np.empty(n, bool)
            vel = np.empty((n, 3))
            for i, d in enumerate(datas):
                ok[i] = d.xpos[base][2] > hmin and d.xmat[base][8] > cos_max
                mujoco.mj_objectVelocity(model, d, mujoco.mjtObj.mjOBJ_BODY, base, res, 1)   # local frame
                vel[i] = res[3], res[4], res[2]
            rec.add((k + 1) * p["dt"], ok, vel)
    play_s = time.time() - t0
    return dict(results=[rec.summary(np.arange(i * per, (i + 1) * per)) for i in range(len(cmds))],
                build_s=0.0, play_s=play_s, dt=p["dt"] * dec, sim_dt=p["dt"], substeps=1,
                mujoco=mujoco.__version__)


# ----------------------------------------------------------------------------------------------
# the parent: one child per case and side, the table, the JSON

def _child(side, case, opts):
    env = dict(os.environ)
    if side == "gym" and opts.get("pipeline"):
        env["GYMLIKE_CPU_PIPELINE"] = "mujoco-c" if opts["pipeline"] == "c" else opts["pipeline"]
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "_child", side, case, json.dumps(opts)],
                           capture_output=True, text=True, env=env, timeout=opts["timeout"])
    except subprocess.TimeoutExpired:
        return dict(error=f"no result within --timeout {opts['timeout']:.0f} s")
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    err = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return dict(error=(err[-1] if err else f"exit {p.returncode}")[:300])


def _axis(cmd):
    """The commanded axis (0 vx, 1 vy, 2 wz) of a command, None for standing."""
    nz = [i for i, v in enumerate(cmd) if abs(v) > 1e-9]
    return nz[0] if nz else None


def compare(row_g, row_m, cmd):
    ax = _axis(cmd)
    key = ("vx", "vy", "wz")[ax if ax is not None else 0]
    g, m = row_g.get(key, math.nan), row_m.get(key, math.nan)
    if ax is None:
        return dict(axis="vx", diff=g - m)
    return dict(axis=key, ratio=g / m if m else math.nan)


def _fmt(v, f="{:.2f}"):
    return "  nan" if v is None or (isinstance(v, float) and math.isnan(v)) else f.format(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*", default=["xbot", "g1", "h1"])
    ap.add_argument("--envs", type=int, default=16, help="gymlike robots per command")
    ap.add_argument("--mj-robots", type=int, default=4, help="MuJoCo robots per command")
    ap.add_argument("--seconds", type=float, default=12.0)
    ap.add_argument("--commands", nargs="+", help="vx,vy,wz triples (default: the case's four)")
    ap.add_argument("--side", choices=("both", "gym", "mujoco"), default="both")
    ap.add_argument("--pipeline", choices=("c", "warp"), help="gymlike's CPU pipeline (default: the environment's)")
    ap.add_argument("--no-vel-limits", action="store_true")
    ap.add_argument("--substeps", type=int)
    ap.add_argument("--armature", type=float)
    ap.add_argument("--mj-armature", type=float, help="MuJoCo side: set the actuated joints' armature")
    ap.add_argument("--mj-vel-clamp", type=float,
                    help="MuJoCo side: Euler steps clamping the actuated joints' speed to this before positions move")
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--clients", default=os.environ.get("PLAY_POLICIES_CLIENTS", "/work/scratch"))
    ap.add_argument("--timeout", type=float, default=7200)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    out = dict(date=time.strftime("%Y-%m-%d"), argv=sys.argv[1:], cases={})
    print(f"upright: never below {HEIGHT_FRACTION} x base_height_target nor tilted > {TILT_MAX_DEG:.0f} deg "
          f"(gymlike: nor terminated by the env); velocities: base frame, mean over the last {LAST_S:.0f} s "
          "of the robots upright throughout", flush=True)
    for case in a.cases:
        if case not in CASES:
            raise SystemExit(f"play_policies: unknown case {case!r} (known: {', '.join(CASES)})")
        cmds = [tuple(float(x) for x in s.split(",")) for s in a.commands] if a.commands else CASES[case]["commands"]
        opts = dict(clients=a.clients, envs=a.envs, mj_robots=a.mj_robots, seconds=a.seconds, commands=cmds,
                    no_vel_limits=a.no_vel_limits, substeps=a.substeps, armature=a.armature,
                    mj_armature=a.mj_armature, mj_vel_clamp=a.mj_vel_clamp,
                    torch_threads=a.torch_threads, pipeline=a.pipeline, timeout=a.timeout)
        sides = {}
        for side in (("gym", "mujoco") if a.side == "both" else (a.side,)):
            sides[side] = _child(side, case, opts)
            s = sides[side]
            print(f"{case} {side}: " + (f"ERROR {s['error']}" if "error" in s else
                  f"build {s['build_s']:.0f} s, play {s['play_s']:.0f} s (control dt {s['dt']}, sim dt "
                  f"{s['sim_dt']}, substeps {s['substeps']}"
                  f"{', pipeline ' + s['pipeline'] if 'pipeline' in s else ''})"),
                  flush=True)
        rows = []
        print(f"{'case':5s} {'command vx,vy,wz':17s} | {'gym up':>6s} {'vx':>5s} {'vy':>5s} {'wz':>5s} {'fall s':>6s} "
              f"| {'mj up':>6s} {'vx':>5s} {'vy':>5s} {'wz':>5s} {'fall s':>6s} | gym/mj")
        for i, cmd in enumerate(cmds):
            g = sides.get("gym", {}).get("results", [{}] * len(cmds))[i]
            m = sides.get("mujoco", {}).get("results", [{}] * len(cmds))[i]
            cmp = compare(g, m, cmd) if g and m else {}
            rows.append(dict(command=list(cmd), gym=g, mujoco=m, compare=cmp))
            cs = ("-" if not cmp else f"{cmp['axis']} ratio {_fmt(cmp['ratio'])}" if "ratio" in cmp
                  else f"{cmp['axis']} diff {_fmt(cmp['diff'], '{:+.2f}')}")
            print(f"{case:5s} {','.join(f'{v:g}' for v in cmd):17s} | "
                  f"{_fmt(g.get('upright'), '{:6.0%}'):>6s} {_fmt(g.get('vx')):>5s} {_fmt(g.get('vy')):>5s} "
                  f"{_fmt(g.get('wz')):>5s} {_fmt(g.get('first_fall_s')):>6s} | "
                  f"{_fmt(m.get('upright'), '{:6.0%}'):>6s} {_fmt(m.get('vx')):>5s} {_fmt(m.get('vy')):>5s} "
                  f"{_fmt(m.get('wz')):>5s} {_fmt(m.get('first_fall_s')):>6s} | {cs}", flush=True)
        out["cases"][case] = dict(options={k: v for k, v in opts.items() if k != "clients"}, rows=rows,
                                  sides={k: {kk: vv for kk, vv in v.items() if kk != "results"}
                                         for k, v in sides.items()})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        side, case, opts = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        r = (play_gym if side == "gym" else play_mujoco)(case, opts)
        print("RESULT " + json.dumps(r), flush=True)
    else:
        main()
