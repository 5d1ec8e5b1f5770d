"""`python -m gymlike.bench --scene SCENE --frames N [--num-worlds M] [--dt S] [--engine physx|flex]
[--device cpu|cuda:N] [--warmup K]` (seed 001's benchmark flags; the scene may also come first,
without --scene): load a scene file, warm up (the first frames compile Warp kernels), time N
frames of `gym.simulate` and print env-frames/s and where the time went."""

from __future__ import annotations

import argparse
import sys
import time


def _parser():
    p = argparse.ArgumentParser(prog="python -m gymlike.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("scene_file", nargs="?", metavar="SCENE", help="scene file (as --scene)")
    p.add_argument("--scene", help="scene file (YAML or JSON, schema_version 1)")
    p.add_argument("--frames", type=int, default=200, help="timed frames (default 200)")
    p.add_argument("--num-worlds", type=int, default=None, help="worlds (default: the scene's)")
    p.add_argument("--dt", type=float, default=None, help="frame time in seconds (default: the scene's)")
    p.add_argument("--engine", choices=("physx", "flex", "mujoco", "xpbd"), default=None,
                   help="physx/mujoco: MuJoCo-Warp; flex/xpbd: XPBD (default: the scene's)")
    p.add_argument("--device", default="cpu", help="cpu or cuda:N (default cpu)")
    p.add_argument("--warmup", type=int, default=5, help="untimed frames first (default 5)")
    return p


def run(argv=None, out=sys.stdout):
    parser = _parser()
    args = parser.parse_args(argv)
    if (args.scene is None) == (args.scene_file is None):
        parser.error("give the scene file once: --scene SCENE (or SCENE first)")
    args.scene = args.scene or args.scene_file
    for name in ("frames", "warmup"):
        if getattr(args, name) < (1 if name == "frames" else 0):
            raise SystemExit(f"gymlike.bench: --{name} must be >= {1 if name == 'frames' else 0}")
    if args.num_worlds is not None and args.num_worlds < 1:
        raise SystemExit("gymlike.bench: --num-worlds must be >= 1")
    from .core.runtime import wp
    wp()              # Warp started quietly (one line if kernels compile)
    from .scene import load_sap_scene
    t0 = time.perf_counter()
    scene = load_sap_scene(args.scene, num_worlds=args.num_worlds, dt=args.dt, engine=args.engine,
                       device=args.device, prepare=False)
    t_load = time.perf_counter() - t0
    gym, sim = scene.gym, scene.sim
    t0 = time.perf_counter()
    gym.prepare_sim(sim)
    t_prepare = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(args.warmup):
        gym.simulate(sim)
    _sync(scene)
    t_warm = time.perf_counter() - t0

    from .core.step import Stepper
    core = scene.core
    stepper = core.component("stepper", lambda: Stepper(core))   # (it times the solver step and collision)
    stepper.timing = timing = {}
    try:
        t0 = time.perf_counter()
        for _ in range(args.frames):
            gym.simulate(sim)
        _sync(scene)
        t_run = time.perf_counter() - t0
    finally:
        stepper.timing = None
    W = scene.num_worlds
    rate = args.frames * W / t_run
    solver_s = timing.get("solver", 0.0)
    coll_s = timing.get("collide", 0.0)
    other = max(0.0, t_run - solver_s - coll_s)
    solver_name = type(core.solver).__name__
    print(f"scene '{scene.name}' ({args.scene}): {W} world{'s' * (W != 1)} x {scene.actors_per_world} "
          f"actor{'s' * (scene.actors_per_world != 1)}, "
          f"{scene.bodies_per_world} bodies and {scene.dofs_per_world} DOFs per world, engine {scene.engine} "
          f"({solver_name}), dt {scene.dt:g} s x {scene.substeps} substeps, device {scene.device}", file=out)
    if scene.unsupported_features:
        print(f"  unsupported features not applied: {'; '.join(scene.unsupported_features)}", file=out)
    print(f"{rate:,.0f} env-frames/s  ({args.frames} frames x {W} worlds in {t_run:.3f} s, "
          f"{1e3 * t_run / args.frames:.2f} ms/frame, {rate * scene.dt:,.1f}x real time summed over worlds)", file=out)
    print("where time goes:", file=out)
    rows = [("load scene (parse, assets, envs, actors)", t_load),
            ("prepare_sim (Newton model, solver)", t_prepare),
            (f"warm-up, {args.warmup} frames (first-use kernel compiles)", t_warm),
            (f"timed frames: {solver_name}.step", solver_s)]
    if core.pipeline is not None:
        rows.append(("timed frames: Newton collision pipeline", coll_s))
    rows.append(("timed frames: gymlike (drives, NaN guard, launches)", other))
    for label, sec in rows:
        share = f"{100 * sec / t_run:5.1f}% of timed" if label.startswith("timed") else ""
        print(f"  {label:<58s} {sec:8.3f} s  {share}", file=out)
    scene.close()
    return rate


def _sync(scene):
    import warp as wp
    if str(scene.device).startswith("cuda"):
        wp.synchronize_device(scene.device)


def main():
    from .core.errors import GymlikeError
    try:
        run()
    except GymlikeError as e:
        print(f"gymlike.bench: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
