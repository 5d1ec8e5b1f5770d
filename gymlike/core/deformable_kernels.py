"""Warp kernels of the particle state tensor (core/deformables.py): (num_particles, 7) rows of
position (env frame), inverse mass, velocity."""

import warp as wp


@wp.kernel
def gather_particles(q: wp.array(dtype=wp.vec3), qd: wp.array(dtype=wp.vec3), inv_mass: wp.array(dtype=wp.float32),
                     origin: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    x = q[i] - origin[i]
    v = qd[i]
    for k in range(3):
        out[i, k] = x[k]
        out[i, 4 + k] = v[k]
    out[i, 3] = inv_mass[i]


@wp.kernel
def scatter_particles(src: wp.array2d(dtype=wp.float32), particle_actor: wp.array(dtype=wp.int32),
                      selected: wp.array(dtype=wp.int32), use_all: int, origin: wp.array(dtype=wp.vec3),
                      q: wp.array(dtype=wp.vec3), qd: wp.array(dtype=wp.vec3), inv_mass: wp.array(dtype=wp.float32),
                      mass: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if use_all == 0 and selected[particle_actor[i]] == 0:
        return
    q[i] = wp.vec3(src[i, 0], src[i, 1], src[i, 2]) + origin[i]
    qd[i] = wp.vec3(src[i, 4], src[i, 5], src[i, 6])
    w = src[i, 3]
    inv_mass[i] = w
    if w > 0.0:
        mass[i] = 1.0 / w
    else:
        mass[i] = 0.0


@wp.kernel
def select_actors(ids: wp.array(dtype=wp.int32), selected: wp.array(dtype=wp.int32)):
    selected[ids[wp.tid()]] = 1


@wp.kernel
def reset_particles(p0: int, rest: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.vec3), qd: wp.array(dtype=wp.vec3)):
    i = p0 + wp.tid()
    q[i] = rest[i]
    qd[i] = wp.vec3(0.0, 0.0, 0.0)
