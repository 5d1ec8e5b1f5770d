"""Stacked boxes rest on both CPU pipelines (MuJoCo C, the default, and MuJoCo-Warp, what CUDA
devices step with: GYMLIKE_CPU_PIPELINE=warp).

MuJoCo-Warp's default box-box collider (GJK/EPA) dropped the contact of two face-aligned boxes
at some sub-millimetre overlaps: a 0.2 m box resting on another fell up to 14 cm into it within
600 frames and was thrown out again. gymlike steps MuJoCo-Warp with its analytic box-box
collider, MuJoCo C's (build._analytic_box_box). The oracle is analytic: at rest every box sits
0.2 m above the one below (MuJoCo's soft contacts sink each layer by a fraction of a
millimetre) and carries its own weight as net contact force.
"""

import numpy as np
import pytest

from conftest import make_sim, options, pose
from gymlike import gymapi, gymtorch

SIZE, MASS, G = 0.2, 0.2 ** 3 * 1000.0, 9.81      # create_box's default density: 1000 kg/m^3
# per env: a stack of two boxes, a stack of three and a box on a box welded to the world
# (fix_base_link: a MuJoCo mocap body), side by side
STACKS = ((-0.6, 2, False), (0.0, 3, False), (0.6, 2, True))


@pytest.mark.parametrize("pipeline", ["mujoco-c", pytest.param("warp", marks=pytest.mark.slow)])
def test_box_stacks_rest_600_frames(gym, monkeypatch, pipeline):
    """Four envs of box stacks (SIM_PHYSX, 1/60 s frames of 2 substeps) rest for 600 frames:
    every box stays within 3 mm of its resting height 0.1 + 0.2 k, every box-box pair keeps
    its contact (each dynamic box carries its weight, m g, as net contact force, in every frame),
    and the listing of contacts has every pair at the end (with MuJoCo-Warp's GJK/EPA box-box
    collider a box of this scene left its height by 136 mm at frame 203)."""
    monkeypatch.setenv("GYMLIKE_CPU_PIPELINE", pipeline)
    sim = make_sim(gym, dt=1 / 60, substeps=2)
    box = gym.create_box(sim, SIZE, SIZE, SIZE, options())
    welded = gym.create_box(sim, SIZE, SIZE, SIZE, options(fix_base_link=True))
    envs, rest, dynamic, pairs = [], [], [], []
    for e in range(4):
        env = gym.create_env(sim, gymapi.Vec3(-1, -1, 0), gymapi.Vec3(1, 1, 1), 2)
        envs.append(env)
        for x, high, fixed in STACKS:
            for k in range(high):
                h = gym.create_actor(env, welded if fixed and k == 0 else box, pose(x, 0, SIZE / 2 + SIZE * k),
                                     f"box{x}_{k}", e, 0)
                if e == 0:
                    rest.append(SIZE / 2 + SIZE * k)
                    dynamic.append(not (fixed and k == 0))
                    if k:
                        pairs.append((h - 1, h))
    gym.prepare_sim(sim)
    root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
    force = gymtorch.wrap_tensor(gym.acquire_net_contact_force_tensor(sim))
    rest, dynamic = np.tile(rest, 4), np.tile(dynamic, 4)     # one body per actor: actor == body
    z, fz = [], []
    for _ in range(600):
        gym.simulate(sim)
        gym.fetch_results(sim, True)
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_net_contact_force_tensor(sim)
        z.append(root[:, 2].numpy().copy())
        fz.append(force[:, 2].numpy().copy())
    z, fz = np.array(z), np.array(fz)
    sink = rest - z
    assert np.abs(sink).max() < 3e-3, (
        f"{pipeline}: a box left its resting height by {np.abs(sink).max() * 1e3:.1f} mm "
        f"(frame {np.abs(sink).max(1).argmax()}, actor {np.abs(sink).max(0).argmax()})")
    assert (sink[30:] > -1e-4).all()         # after settling, nothing floats above its support
    # every dynamic box carries its weight in every frame after the first few
    weight = fz[5:, dynamic] / (MASS * G)
    assert np.abs(weight - 1.0).max() < 0.2, (
        f"{pipeline}: a box's net contact force left m g: {weight.min():.2f} .. {weight.max():.2f} m g")
    for env in envs:
        c = gym.get_env_rigid_contacts(env)
        touching = {tuple(sorted((int(a), int(b)))) for a, b in zip(c["body0"], c["body1"]) if a >= 0 and b >= 0}
        assert set(pairs) <= touching, f"{pipeline}: box pairs without contact: {set(pairs) - touching}"
