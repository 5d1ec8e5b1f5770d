"""Warp kernels of the camera sensors (render/cameras.py): camera poses, Isaac Gym depth and
segmentation images, the headless viewer's depth composite. Imported by cameras.py inside the
functions that launch them, so importing the camera module builds no Warp object."""

import warp as wp

from ..core.enums import CameraFollowMode

NO_HIT = wp.constant(wp.uint32(0xFFFFFFFF))
FOLLOW_POSITION = wp.constant(int(CameraFollowMode.FOLLOW_POSITION))


@wp.kernel
def camera_poses(body_q: wp.array(dtype=wp.transform), body: wp.array(dtype=wp.int32),
                 local: wp.array(dtype=wp.transform), origin: wp.array(dtype=wp.vec3),
                 mode: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.transform)):
    """World pose of each camera (Newton camera frame): env origin * local, or body * local."""
    v = wp.tid()
    X = local[v]
    b = body[v]
    if b >= 0:
        B = body_q[b]
        if mode[v] == FOLLOW_POSITION:
            X = wp.transform(wp.transform_get_translation(B) + wp.transform_get_translation(X),
                             wp.transform_get_rotation(X))
        else:
            X = B * X
    else:
        X = wp.transform(wp.transform_get_translation(X) + origin[v], wp.transform_get_rotation(X))
    out[v] = X


@wp.kernel
def isaac_images(fdepth: wp.array3d(dtype=wp.float32), shape: wp.array3d(dtype=wp.uint32),
                 shape_seg: wp.array(dtype=wp.int32), far: wp.array(dtype=wp.float32),
                 depth: wp.array3d(dtype=wp.float32), seg: wp.array3d(dtype=wp.int32)):
    """Newton's forward depth and shape index -> Isaac Gym's depth (negative, -inf: no hit)
    and segmentation ids (0: no hit)."""
    v, i, j = wp.tid()
    s = shape[v, i, j]
    d = fdepth[v, i, j]
    if s == NO_HIT or d <= 0.0 or d > far[v]:
        depth[v, i, j] = -wp.inf
        seg[v, i, j] = 0
    else:
        depth[v, i, j] = -d
        seg[v, i, j] = shape_seg[int(s)]


@wp.kernel
def composite(color: wp.array3d(dtype=wp.uint32), fdepth: wp.array3d(dtype=wp.float32),
              shape: wp.array3d(dtype=wp.uint32), clear: wp.uint32, out: wp.array2d(dtype=wp.uint32),
              out_fdepth: wp.array3d(dtype=wp.float32), out_shape: wp.array3d(dtype=wp.uint32)):
    """Per pixel, the nearest of the per-env views (color, forward depth, shape index)."""
    i, j = wp.tid()
    best = float(1.0e30)
    c = clear
    s = NO_HIT
    for v in range(color.shape[0]):
        d = fdepth[v, i, j]
        if d > 0.0 and d < best:
            best = d
            c = color[v, i, j]
            s = shape[v, i, j]
    out[i, j] = c
    out_fdepth[0, i, j] = wp.where(s == NO_HIT, 0.0, best)
    out_shape[0, i, j] = s
