"""Benchmark a scene file: `python -m gymlike.bench SCENE --frames N --num-worlds M`.

Builds the scene, warms up (the first frames include Warp's kernel compiles), times N frames
and prints env-frames/s (worlds x frames / wall seconds) and where the time went: building,
warm-up, stepping (simulate) and reading the state tensors back.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m gymlike.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", help="scene file (.yaml, .yml or .json, schema_version 1)")
    ap.add_argument("--frames", type=int, default=200, help="frames to time (default 200)")
    ap.add_argument("--num-worlds", type=int, default=None, help="worlds (default: the scene's)")
    ap.add_argument("--warmup", type=int, default=5, help="frames before timing (default 5)")
    ap.add_argument("--dt", type=float, default=None, help="frame length in seconds (default: the scene's)")
    ap.add_argument("--engine", choices=("physx", "flex"), default=None, help="default: the scene's")
    ap.add_argument("--device", default=None, help="cpu or cuda:N (default: the scene's pipeline, cpu)")
    args = ap.parse_args(argv)
    if args.frames < 1 or args.warmup < 0 or (args.num_worlds is not None and args.num_worlds < 1):
        ap.error("--frames and --num-worlds must be positive, --warmup >= 0")
    import yaml
    from .scene import load_scene
    with open(args.scene, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    if isinstance(doc, dict) and (args.dt is not None or args.engine is not None):
        sim = dict(doc.get("simulation") or {})
        if args.dt is not None:
            sim["dt"] = args.dt
        if args.engine is not None:
            sim["engine"] = args.engine
            sim.pop("solver", None)
        doc = {**doc, "simulation": sim}
    # relative asset paths are the scene file's: load from the file unless it was edited
    t0 = time.perf_counter()
    scene = load_scene(args.scene if doc is None or (args.dt is None and args.engine is None) else
                       _rebase(doc, args.scene), num_worlds=args.num_worlds, device=args.device)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    scene.step(args.warmup)
    scene.tensors()
    t_warm = time.perf_counter() - t0
    t_step = t_read = 0.0
    for _ in range(args.frames):
        t0 = time.perf_counter()
        scene.step(1)
        t1 = time.perf_counter()
        scene.refresh()
        t2 = time.perf_counter()
        t_step += t1 - t0
        t_read += t2 - t1
    total = t_step + t_read
    w = scene.num_worlds
    print(f"scene {scene.name!r}: {w} worlds, {args.frames} frames of {scene.dt:g} s "
          f"({scene.substeps} substeps), {scene.sim.type.name} on {scene.device}")
    print(f"env-frames/s {w * args.frames / total:,.0f}   ({total / args.frames * 1e3:.2f} ms per frame)")
    print(f"time: build {t_build:.2f} s, warm-up {t_warm:.2f} s ({args.warmup} frames, includes kernel compiles), "
          f"simulate {t_step:.3f} s ({100 * t_step / total:.0f}%), state read-back {t_read:.3f} s "
          f"({100 * t_read / total:.0f}%)")
    if scene.unsupported_features:
        print("not modelled: " + "; ".join(scene.unsupported_features))
    scene.close()
    return 0


def _rebase(doc, path):
    """The edited document with its asset paths made absolute (they are the file's)."""
    import os
    base = os.path.dirname(os.path.abspath(path))
    assets = []
    for a in doc.get("assets") or []:
        a = dict(a)
        for k in ("urdf", "mjcf", "usd"):
            v = a.get(k)
            if isinstance(v, str) and not v.lstrip().startswith("<") and not os.path.isabs(v):
                a[k] = os.path.join(base, v)
        assets.append(a)
    return {**doc, "assets": assets} if assets else doc


if __name__ == "__main__":
    sys.exit(main())
