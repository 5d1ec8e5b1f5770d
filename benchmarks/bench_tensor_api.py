"""Tensor-API throughput: gymlike vs the same Newton model and solver driven directly.

For N cartpoles and N ants (SIM_PHYSX -> Newton's SolverMuJoCo), each iteration does what a
training loop does:

  gymlike:  set_dof_actuation_force_tensor, simulate, refresh root/DOF/rigid-body tensors
  Newton:   copy the efforts into control.joint_f, solver.step per substep (states ping-pong)

The Newton loop runs on the very Model gymlike built (same worlds, shapes, actuators) with a
second SolverMuJoCo created with the same options and the same MuJoCo back end (MuJoCo's C library
on the CPU, see core/mjc.py), so the two differ only by the gymlike layer.
Raw Newton needs no "refresh": its state arrays are the data (a torch view of them is free).
It prints env-steps per second of both and their ratio, then (with --profile) where gymlike's
extra time goes.

    python benchmarks/bench_tensor_api.py            # N = 64, 256, 1024
    python benchmarks/bench_tensor_api.py --quick    # N = 64 only, fewer steps
    python benchmarks/bench_tensor_api.py --n 256 --robots ant --profile
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
ASSETS = os.path.join(ROOT, "assets")

from gymlike import gymapi, gymtorch  # noqa: E402

DT, SUBSTEPS = 1.0 / 60.0, 2          # IsaacGymEnvs' cartpole/ant settings


def build(gym, robot, n):
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0.0, 0.0, -9.81)
    p.dt, p.substeps = DT, SUBSTEPS
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    plane = gymapi.PlaneParams()
    plane.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, plane)
    o = gymapi.AssetOptions()
    # no body damping (Isaac Gym's default angular_damping is 0.5): gymlike would apply it with
    # an extra kernel and the two sims would follow different trajectories, hence different
    # contact sets and solver iteration counts; with it off both integrate identical physics
    o.linear_damping = o.angular_damping = 0.0
    if robot == "cartpole":
        o.fix_base_link = True
        asset = gym.load_asset(sim, ASSETS, "urdf/cartpole.urdf", o)
        start, spacing = gymapi.Transform(gymapi.Vec3(0, 0, 2.0)), 4.0
    else:
        asset = gym.load_asset(sim, ASSETS, "mjcf/nv_ant.xml", o)
        start, spacing = gymapi.Transform(gymapi.Vec3(0, 0, 0.75)), 2.0
    props = gym.get_asset_dof_properties(asset)
    props["driveMode"][:] = gymapi.DOF_MODE_EFFORT
    props["stiffness"][:] = props["damping"][:] = 0.0
    per_row = int(np.sqrt(n))
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-spacing, -spacing, 0), gymapi.Vec3(spacing, spacing, spacing), per_row)
        a = gym.create_actor(env, asset, start, robot, i, 1)
        gym.set_actor_dof_properties(env, a, props)
    gym.prepare_sim(sim)
    return sim


class GymlikeLoop:
    def __init__(self, gym, sim):
        import torch
        self.gym, self.sim = gym, sim
        self.root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        self.dofs = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        self.bodies = gymtorch.wrap_tensor(gym.acquire_rigid_body_state_tensor(sim))
        n = gym.get_sim_dof_count(sim)
        self.gen = torch.Generator().manual_seed(0)
        self.actions = torch.zeros(n)
        self.actions_t = gymtorch.unwrap_tensor(self.actions)

    def step(self):
        g, sim = self.gym, self.sim
        self.actions.uniform_(-1.0, 1.0, generator=self.gen)
        g.set_dof_actuation_force_tensor(sim, self.actions_t)
        g.simulate(sim)
        g.refresh_actor_root_state_tensor(sim)
        g.refresh_dof_state_tensor(sim)
        g.refresh_rigid_body_state_tensor(sim)


class NewtonLoop:
    """The same model, a second SolverMuJoCo with the options gymlike uses, driven directly."""

    def __init__(self, sim):
        import newton
        import torch
        import warp as wp
        from gymlike.core.build import _mujoco_capacity
        self.wp = wp
        m = self.model = sim.model
        from gymlike.core import mjc
        # the same MuJoCo back end as gymlike's (C on the CPU), converting MuJoCo's state to
        # Newton's after every step (defer=None; the loop keeps zero-copy views of Newton's state)
        kind = mjc.SolverMuJoCoC if mjc.applies(str(m.device)) else newton.solvers.SolverMuJoCo
        self.solver = kind(m, cone="elliptic", **_mujoco_capacity(sim, "elliptic"))
        self.c_step = mjc.c_step
        self.s0, self.s1, self.ctrl = m.state(), m.state(), m.control()
        self.solver_seconds = 0.0                    # wall time inside solver.step (newton_overhead)
        newton.eval_fk(m, self.s0.joint_q, self.s0.joint_qd, self.s0)
        self.h = DT / SUBSTEPS
        self.dof_qd = sim.dev.dof_qd                 # actuated DOF -> Newton DOF (skips free joints)
        self.gen = torch.Generator().manual_seed(0)
        self.actions = torch.zeros(sim.host.num_dofs)
        self.actions_wp = wp.from_torch(self.actions)
        # what a user keeps as observations: zero-copy torch views of Newton's state arrays
        self.views = lambda: (wp.to_torch(self.s0.body_q), wp.to_torch(self.s0.body_qd),
                              wp.to_torch(self.s0.joint_q), wp.to_torch(self.s0.joint_qd))

    def step(self):
        wp = self.wp
        self.actions.uniform_(-1.0, 1.0, generator=self.gen)
        wp.launch(_scatter_efforts, dim=len(self.actions), inputs=[self.actions_wp, self.dof_qd, self.ctrl.joint_f],
                  device=self.model.device)
        # on MuJoCo's C library both substeps go in one rollout call, as gymlike's step does
        c_step = self.c_step(self.solver)
        for _ in range(1 if c_step else SUBSTEPS):
            kw = dict(substeps=SUBSTEPS) if c_step else {}
            t0 = time.perf_counter()
            self.solver.step(self.s0, self.s1, self.ctrl, None, self.h, **kw)
            self.solver_seconds += time.perf_counter() - t0
            self.s0, self.s1 = self.s1, self.s0


def _kernels():
    import warp as wp

    @wp.kernel
    def scatter_efforts(src: wp.array(dtype=wp.float32), idx: wp.array(dtype=wp.int32),
                        dst: wp.array(dtype=wp.float32)):
        i = wp.tid()
        dst[idx[i]] = src[i]
    return scatter_efforts


_scatter_efforts = None


def timed(loop, steps):
    """(wall, CPU) seconds per iteration. Warp runs CPU kernels on the calling thread, so the
    process CPU time is the loop's own work even when other processes share the cores."""
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        loop.step()
    return (time.perf_counter() - w0) / steps, (time.process_time() - c0) / steps


def profile(gym, sim, loop, steps):
    """Time gymlike's layers separately (CPU: launches are synchronous)."""
    import warp as wp
    from gymlike.core import kernels as K
    d, dev = sim.dev, sim.device
    parts = {}

    def t(name, fn, n=steps):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        wp.synchronize_device(dev)
        parts[name] = (time.process_time() - t0) / n

    t("set_dof_actuation_force_tensor", lambda: gym.set_dof_actuation_force_tensor(sim, loop.actions_t))
    t("efforts kernel (apply_dof_efforts)", lambda: wp.launch(
        K.apply_dof_efforts, dim=d.num_dofs, device=dev,
        inputs=[d.dof_effort, d.dof_mode, d.dof_effort_limit, d.dof_effort_scale, d.dof_qd, sim.control.joint_f]))
    t("clear efforts (2 memsets)", lambda: (sim.control.joint_f.zero_(), d.dof_effort.zero_()))
    t("NaN check", sim.stepper.check_nan)
    t("refresh_actor_root_state_tensor", lambda: gym.refresh_actor_root_state_tensor(sim))
    t("refresh_dof_state_tensor", lambda: gym.refresh_dof_state_tensor(sim))
    t("refresh_rigid_body_state_tensor", lambda: gym.refresh_rigid_body_state_tensor(sim))
    # the rest of simulate() with the physics taken out (Python bookkeeping, listeners): wall time
    # less the solver's, which gymlike's step path times itself (Stepper.timing)
    def without_solver(name, fn, n=steps):
        sim.stepper.timing = timing = {}
        try:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            wp.synchronize_device(dev)
            parts[name] = (time.perf_counter() - t0 - timing.get("solver", 0.0)) / n
        finally:
            sim.stepper.timing = None
    without_solver("simulate() without the solver", lambda: (gym.set_dof_actuation_force_tensor(sim, loop.actions_t),
                                                             gym.simulate(sim)))
    parts["simulate() without the solver"] -= parts["set_dof_actuation_force_tensor"]
    without_solver("whole iteration without the solver", loop.step)
    return parts


def newton_overhead(nl, steps):
    """Wall seconds per iteration of the raw loop less its solver's."""
    nl.solver_seconds = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        nl.step()
    return (time.perf_counter() - t0 - nl.solver_seconds) / steps


def main():
    global _scatter_efforts
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N = 64 only and fewer steps")
    ap.add_argument("--n", type=int, nargs="*", help="env counts (default 64 256 1024)")
    ap.add_argument("--robots", nargs="*", default=["cartpole", "ant"], choices=["cartpole", "ant"])
    ap.add_argument("--steps", type=int, default=None, help="timed iterations per run")
    ap.add_argument("--profile", action="store_true", help="break gymlike's iteration down")
    ap.add_argument("--wall", action="store_true", help="rank by wall-clock instead of process CPU time")
    args = ap.parse_args()
    ns = args.n or ([64] if args.quick else [64, 256, 1024])
    import torch
    torch.set_num_threads(1)          # the tensors are tiny; keep torch's thread pool out of the timings
    gym = gymapi.acquire_gym()
    _scatter_efforts = _kernels()
    rows = []
    print(f"device cpu, dt {DT:.4f} s, {SUBSTEPS} substeps, SIM_PHYSX (SolverMuJoCo); env-steps/s = "
          f"envs x iterations / {'wall' if args.wall else 'process CPU'} seconds (best of interleaved trials)")
    for robot in args.robots:
        for n in ns:
            t0 = time.perf_counter()
            sim = build(gym, robot, n)
            gl = GymlikeLoop(gym, sim)
            nl = NewtonLoop(sim)
            setup = time.perf_counter() - t0
            for _ in range(3):             # warm-up (kernel compile/load, MuJoCo warm start)
                gl.step()
                nl.step()
            steps = args.steps or (5 if args.quick else max(4, min(20, 1280 // n)))
            reps = 3 if args.quick else 6
            # short trials, interleaved so that machine load hits both alike; the fastest
            # trial of each is the estimate least disturbed by other processes
            tg, tn = [], []
            for _ in range(reps):
                tg.append(timed(gl, steps))
                tn.append(timed(nl, steps))
            clock = 0 if args.wall else 1
            g, r = n / min(t[clock] for t in tg), n / min(t[clock] for t in tn)
            gw, rw = n / min(t[0] for t in tg), n / min(t[0] for t in tn)
            rows.append((robot, n, g, r))
            drift = float(np.abs(sim.state.joint_q.numpy() - nl.s0.joint_q.numpy()).max())
            print(f"{robot:8s} N={n:5d}  gymlike {g:9.0f}  newton {r:9.0f}  ratio {g / r:5.3f}   "
                  f"[wall clock: {gw:.0f} / {rw:.0f} = {gw / rw:.3f}]  (setup {setup:.1f} s, {steps} it x {reps}, "
                  f"max |joint_q gymlike - newton| {drift:.1e})", flush=True)
            if args.profile:
                parts = profile(gym, sim, gl, max(50, steps))
                whole = n / g
                print(f"    gymlike iteration {1e3 * whole:.2f} ms; its parts timed alone "
                      "(% of the iteration):")
                for k, v in parts.items():
                    print(f"      {k:40s} {1e3 * v:8.3f} ms  {100 * v / whole:6.2f}%")
                print(f"      {'raw Newton iteration without the solver':40s} "
                      f"{1e3 * newton_overhead(nl, 50):8.3f} ms")
            gym.destroy_sim(sim)
            del gl, nl
    print("\n| robot | N | gymlike env-steps/s | Newton env-steps/s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for robot, n, g, r in rows:
        print(f"| {robot} | {n} | {g:.0f} | {r:.0f} | {g / r:.3f} |")


if __name__ == "__main__":
    main()
