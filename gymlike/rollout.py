"""Strided rollouts of a scene and a top-down raster of it.

`simulate_scene(scene, steps, stride=1, actions=None)` steps a loaded scene (gymlike.scene) and
keeps one frame every `stride` steps (after steps stride, 2 stride, ...): body poses
`body_q` (frames, worlds, bodies per world, 7: position in the env's frame, quaternion xyzw)
and `joint_q` (frames, worlds, DOFs per world: Isaac Gym's DOF positions; free roots are in
body_q). `actions`: None, a tensor (steps, worlds, dofs) of DOF position targets, or a function
(step, scene) -> such a (worlds, dofs) tensor.

`scene_to_raster(scene, height=64, width=64, world=0, extent=None, mode="ids")`: a top-down
integer raster (height x width) of one world: each collision shape's footprint (its bounding
circle in the x-y plane) holds its body's index + 1 (0: empty), or with mode="colors" the shape
color as 0xRRGGBB.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core.errors import GymlikeTypeError, GymlikeValueError


@dataclass
class RolloutResult:
    body_q: "object"       # torch (frames, worlds, bodies, 7)
    joint_q: "object"      # torch (frames, worlds, dofs)
    steps: int
    stride: int
    dt: float

    @property
    def times(self):
        """Simulated time of each frame (s)."""
        return [(k + 1) * self.stride * self.dt for k in range(self.body_q.shape[0])]


def simulate_scene(scene, steps, stride=1, actions=None):
    import torch
    from . import gymtorch
    for name, v in (("steps", steps), ("stride", stride)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise GymlikeValueError(f"simulate_scene: {name} must be a positive int, got {v!r}")
    g, s, w = scene.gym, scene.sim, scene.num_worlds
    body = gymtorch.wrap_tensor(g.acquire_rigid_body_state_tensor(s)).view(w, -1, 13)
    dof = gymtorch.wrap_tensor(g.acquire_dof_state_tensor(s)).view(w, -1, 2)
    if actions is not None and not callable(actions):
        actions = torch.as_tensor(actions, dtype=torch.float32, device=dof.device)
        if tuple(actions.shape) != (steps, w, dof.shape[1]):
            raise GymlikeValueError(f"simulate_scene: actions must have shape {(steps, w, dof.shape[1])} "
                                    f"(steps, worlds, dofs), got {tuple(actions.shape)}")
    elif actions is not None and not callable(actions):
        raise GymlikeTypeError("simulate_scene: actions must be None, a tensor or a function")
    frames_b, frames_q = [], []
    target = None
    for k in range(steps):
        if actions is not None:
            a = actions(k, scene) if callable(actions) else actions[k]
            target = torch.as_tensor(a, dtype=torch.float32, device=dof.device).contiguous().view(-1)
            g.set_dof_position_target_tensor(s, gymtorch.unwrap_tensor(target))
        g.simulate(s)
        if (k + 1) % stride == 0:
            g.refresh_rigid_body_state_tensor(s)
            g.refresh_dof_state_tensor(s)
            frames_b.append(body[..., 0:7].clone())
            frames_q.append(dof[..., 0].clone())
    empty = torch.zeros((0,), device=dof.device)
    return RolloutResult(body_q=torch.stack(frames_b) if frames_b else empty,
                         joint_q=torch.stack(frames_q) if frames_q else empty,
                         steps=steps, stride=stride, dt=float(scene.dt))


def scene_to_raster(scene, height=64, width=64, world=0, extent=None, mode="ids"):
    """extent: (xmin, xmax, ymin, ymax) of the world's frame to draw (default: the shapes' bounds
    with a margin)."""
    if mode not in ("ids", "colors"):
        raise GymlikeValueError(f"scene_to_raster: mode must be 'ids' or 'colors', got {mode!r}")
    if not 0 <= int(world) < scene.num_worlds:
        raise GymlikeValueError(f"scene_to_raster: world {world} out of range [0, {scene.num_worlds})")
    sim = scene.sim
    m, h = sim.model, sim.host
    env = scene.envs[world]
    b0, nb = int(sim.env_start(env, "body")), int(env.body_count)
    body_q = sim.state.body_q.numpy()
    shape_body = m.shape_body.numpy()
    shape_x = m.shape_transform.numpy()
    scale = m.shape_scale.numpy()
    colors = m.shape_color.numpy() if hasattr(m, "shape_color") else None
    circles = []          # (x, y, r, value)
    for sh in np.nonzero((shape_body >= b0) & (shape_body < b0 + nb))[0]:
        b = int(shape_body[sh])
        q = body_q[b]
        p = _rotate(q[3:7], shape_x[sh][0:3]) + q[0:3] - h.body_origin[b]
        r = float(np.max(np.abs(scale[sh]))) if len(scale[sh]) else 0.05
        if mode == "ids":
            value = b - b0 + 1
        else:
            c = colors[sh] if colors is not None else (0.7, 0.7, 0.7)
            value = (int(c[0] * 255) << 16) | (int(c[1] * 255) << 8) | int(c[2] * 255)
        circles.append((p[0], p[1], max(r, 1e-3), value))
    out = np.zeros((int(height), int(width)), np.int64)
    if not circles:
        return out
    if extent is None:
        xs = [c[0] for c in circles]
        ys = [c[1] for c in circles]
        rmax = max(c[2] for c in circles)
        extent = (min(xs) - rmax, max(xs) + rmax, min(ys) - rmax, max(ys) + rmax)
    x0, x1, y0, y1 = map(float, extent)
    if not (x1 > x0 and y1 > y0):
        raise GymlikeValueError(f"scene_to_raster: empty extent {extent}")
    # pixel centres; row 0 is the largest y (north up)
    xs = x0 + (np.arange(width) + 0.5) * (x1 - x0) / width
    ys = y1 - (np.arange(height) + 0.5) * (y1 - y0) / height
    X, Y = np.meshgrid(xs, ys)
    for x, y, r, value in circles:
        out[(X - x) ** 2 + (Y - y) ** 2 <= r * r] = value
    return out


def _rotate(q, v):
    u, w = np.asarray(q[0:3], float), float(q[3])
    v = np.asarray(v, float)
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)
