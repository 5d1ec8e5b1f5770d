"""Envs that differ against identical envs: build time, peak memory and env-steps/s (issue 42).

Three sims of N envs on SIM_PHYSX, each env an authored quadruped (assets/urdf/quadruped) and
a box, measured in one run side by side, each case in its own process (peak memory is per
process):

    identical   every env the same
    scaled      every env its own scale (0.8 .. 1.2) of both actors: one world per env
    meshes      as scaled, the box a mesh collider (assets/urdf/mesh_objects/mesh_box.urdf):
                every world its own scaled mesh (DeXtreme's ADR scales its hand's meshes)
    objects     every env the quadruped and a box asset of its own (create_box of another size
                per env): different assets of the same bodies and shapes, one world per env
    assets      even envs a quadruped, odd envs a biped (assets/urdf/biped): envs hold
                different bodies, which Newton's MuJoCo solver cannot step as separate worlds,
                so they share one world

    python benchmarks/bench_scaled_envs.py              # N = 16, 64
    python benchmarks/bench_scaled_envs.py --n 32 --steps 200 --cases identical scaled

Prints, per case, the build time (create + prepare_sim + first simulate), the process's peak
resident memory, env-steps/s over `steps` simulate calls, and the ratios against identical; and
the cost per env of domain randomization at reset as IsaacGymEnvs does it (env by env: the
robot's masses, DOF damping and shape friction scaled, then one simulate), with the solver told
of the changes once at that simulate (gymlike's way) and told at each env's changes (`told
each`: what every setter cost before; each tells MuJoCo to recompute its constants of every world).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

ASSETS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets", "urdf")
CASES = ("identical", "scaled", "meshes", "objects", "assets")


def measure(case, n, steps):
    from gymlike import gymapi
    gym = gymapi.acquire_gym()
    p = gymapi.SimParams()
    p.up_axis = gymapi.UP_AXIS_Z
    p.gravity = gymapi.Vec3(0, 0, -9.81)
    p.dt, p.substeps = 1 / 60, 2
    t0 = time.perf_counter()
    sim = gym.create_sim(0, -1, gymapi.SIM_PHYSX, p)
    pp = gymapi.PlaneParams()
    pp.normal = gymapi.Vec3(0, 0, 1)
    gym.add_ground(sim, pp)
    quad = gym.load_asset(sim, os.path.join(ASSETS, "quadruped"), "quadruped.urdf", gymapi.AssetOptions())
    biped = gym.load_asset(sim, os.path.join(ASSETS, "biped"), "biped.urdf", gymapi.AssetOptions())
    box = (gym.load_asset(sim, os.path.join(ASSETS, "mesh_objects"), "mesh_box.urdf", gymapi.AssetOptions())
           if case == "meshes" else gym.create_box(sim, 0.2, 0.2, 0.2, gymapi.AssetOptions()))
    envs = []
    for i in range(n):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 8)
        robot = biped if case == "assets" and i % 2 else quad
        s = 0.8 + 0.4 * i / max(n - 1, 1) if case in ("scaled", "meshes") else 1.0
        a = gym.create_actor(env, robot, gymapi.Transform(gymapi.Vec3(0, 0, 1.0 * s)), "robot", i, 0)
        if case == "objects":
            side = 0.15 + 0.1 * i / max(n - 1, 1)
            box = gym.create_box(sim, side, side, 0.2, gymapi.AssetOptions())
        b = gym.create_actor(env, box, gymapi.Transform(gymapi.Vec3(0.8, 0, 0.3)), "box", i, 0)
        envs.append(env)
        if s != 1.0:
            gym.set_actor_scale(env, a, s)
            gym.set_actor_scale(env, b, s)
    gym.prepare_sim(sim)
    gym.simulate(sim)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(steps):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
    step = time.perf_counter() - t0
    dr = {told: randomize_ms_per_env(gym, sim, envs, told) for told in (False, True)}
    return {"dr_ms": dr[False], "dr_told_each_ms": dr[True],
            "case": case, "n": n, "build_s": build, "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
            "env_steps_per_s": n * steps / step, "worlds": int(sim.model.world_count),
            "solver": type(sim.solver).__name__}


def randomize_ms_per_env(gym, sim, envs, told_each):
    """Wall ms per env of one re-randomization of every env's robot, the next simulate included."""
    from gymlike.core.handles import sim_of
    t0 = time.perf_counter()
    for env in envs:
        bodies = gym.get_actor_rigid_body_properties(env, 0)
        for b in bodies:
            b.mass *= 1.01
        gym.set_actor_rigid_body_properties(env, 0, bodies, True)
        dofs = gym.get_actor_dof_properties(env, 0)
        dofs["damping"] *= 1.01
        gym.set_actor_dof_properties(env, 0, dofs)
        shapes = gym.get_actor_rigid_shape_properties(env, 0)
        for sh in shapes:
            sh.friction *= 1.01
        gym.set_actor_rigid_shape_properties(env, 0, shapes)
        if told_each:
            sim_of(sim).apply_model_changes()
    gym.simulate(sim)
    return (time.perf_counter() - t0) / len(envs) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)     # (one case, in a child process)
    a = ap.parse_args()
    if a.case:
        print(json.dumps(measure(a.case, a.n[0], a.steps)))
        return
    print(f"{'n':>4} {'case':>10} {'worlds':>6} {'solver':>16} {'build s':>8} {'peak GB':>8} {'env-steps/s':>12}"
          f" {'build x':>8} {'speed x':>8} {'DR ms/env':>9} {'told each':>9}")
    for n in a.n:
        rows = {}
        for case in ["identical"] + [c for c in a.cases if c != "identical"]:
            out = subprocess.run([sys.executable, __file__, "--case", case, "--n", str(n), "--steps", str(a.steps)],
                                 capture_output=True, text=True, check=True).stdout
            r = rows[case] = json.loads(out.strip().splitlines()[-1])
            base = rows["identical"]
            print(f"{n:>4} {case:>10} {r['worlds']:>6} {r['solver']:>16} {r['build_s']:>8.1f} {r['peak_gb']:>8.2f}"
                  f" {r['env_steps_per_s']:>12.0f} {r['build_s'] / base['build_s']:>8.2f}"
                  f" {r['env_steps_per_s'] / base['env_steps_per_s']:>8.2f} {r['dr_ms']:>9.2f}"
                  f" {r['dr_told_each_ms']:>9.2f}", flush=True)


if __name__ == "__main__":
    main()
