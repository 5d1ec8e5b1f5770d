"""How bodies look: colors, textures and segmentation ids set on an actor's bodies (the
handle API's set/get_rigid_body_color, reset_actor_materials, set/get_rigid_body_texture,
set/get_rigid_body_segmentation_id). They are stored on the actor and, once the model exists,
written into Newton's shape colors, which cameras and the viewer draw; textures and
segmentation images are the camera system's (cameras.py)."""

from __future__ import annotations

import numpy as np

from ..core import build
from ..core.enums import MeshType
from ..core.errors import GymlikeValueError
from ..core.handles import index
from ..core.runtime import call_name
from ..core.types import Vec3, coerce
from .cameras import body_segmentation_id, shapes_of_body, system


def mesh_kinds(mesh_type):
    """MESH_COLLISION / MESH_VISUAL / MESH_VISUAL_AND_COLLISION -> the kinds stored (1, 2)."""
    try:
        m = int(MeshType(int(mesh_type)))
    except (ValueError, TypeError):
        m = 0
    if m == 0:
        raise GymlikeValueError(f"{call_name()}: meshType must be MESH_VISUAL, MESH_COLLISION or "
                                f"MESH_VISUAL_AND_COLLISION, got {mesh_type!r}")
    return [k for k in (1, 2) if m & k]


def _body(actor, body):
    return index(body, actor.asset.body_count, call_name(), "rigid body")


# ============================================================================ colors
def set_color(actor, body, mesh_type, color):
    i, kinds = _body(actor, body), mesh_kinds(mesh_type)
    color = coerce(Vec3, color, f"{call_name()}: color")
    rgb = color.to_tuple()
    if not all(np.isfinite(rgb)):
        raise GymlikeValueError(f"{call_name()}: color must be finite, got {color}")
    for k in kinds:
        actor.body_colors[(i, k)] = tuple(float(c) for c in rgb)
        if actor.env.sim.model is not None:
            apply_body_color(actor.env.sim, actor, i, k, actor.body_colors[(i, k)])


def color(actor, body, mesh_type):
    return Vec3(*body_color(actor, _body(actor, body), mesh_kinds(mesh_type)[0]))


def reset_materials(actor, mesh_type):
    """Forget the colors and textures set on the actor's bodies for that mesh type."""
    kinds = mesh_kinds(mesh_type)
    for key in [k for k in actor.body_colors if k[1] in kinds]:
        del actor.body_colors[key]
        if actor.env.sim.model is not None:
            restore_body_color(actor.env.sim, actor, *key)
    for b in range(actor.asset.body_count):
        system(actor.env.sim).set_body_texture(actor, b, kinds, None)


def body_color(actor, body, mesh_type):
    """The color set for a body (mesh_type MESH_VISUAL or MESH_COLLISION), else the color of the
    asset's first shape of that body, else light grey. Renderers read this."""
    c = actor.body_colors.get((int(body), int(mesh_type)))
    if c is not None:
        return c
    b = actor.asset.builder(1.0, True)
    colors = getattr(b, "shape_color", [])
    for s, sb in enumerate(b.shape_body):
        if sb == body and s < len(colors) and colors[s] is not None:
            return tuple(float(x) for x in colors[s])
    return (0.7, 0.7, 0.7)


def apply_body_color(sim, actor, body, kind, rgb):
    """Write a body color into the model's shape colors (what cameras and the viewer draw)."""
    shapes = shapes_of_body(sim, actor, body, kind)
    if len(shapes):
        colors = sim.model.shape_color.numpy()
        colors[shapes] = rgb
        sim.model.shape_color.assign(colors)


def restore_body_color(sim, actor, body, kind):
    """Back to the asset's color (reset_actor_materials)."""
    shapes = shapes_of_body(sim, actor, body, kind)
    if len(shapes):
        colors = sim.model.shape_color.numpy()
        colors[shapes] = sim.host.base_shape_color[shapes]
        sim.model.shape_color.assign(colors)


def apply_all_colors(sim):
    """Colors set before the model existed (build_model calls this once the model is built;
    body_colors are only set through this module, so it is imported whenever there are any)."""
    for a in sim.all_actors():
        for (body, kind), rgb in a.body_colors.items():
            apply_body_color(sim, a, body, kind, rgb)


build.AFTER_MODEL.append(apply_all_colors)


# ============================================================================ textures
def set_texture(actor, body, mesh_type, texture_handle):
    i, kinds = _body(actor, body), mesh_kinds(mesh_type)
    cams = system(actor.env.sim)
    cams.set_body_texture(actor, i, kinds, cams.texture(texture_handle, call_name()))


def texture(actor, body, mesh_type):
    return system(actor.env.sim).body_texture(actor, _body(actor, body), mesh_kinds(mesh_type)[0])


# ============================================================================ segmentation ids
def set_segmentation_id(actor, body, segmentation_id):
    i = _body(actor, body)
    if isinstance(segmentation_id, bool) or not isinstance(segmentation_id, (int, np.integer)) or segmentation_id < 0:
        raise GymlikeValueError(f"{call_name()}: segmentationId must be an int >= 0, got {segmentation_id!r}")
    actor.body_segmentation[i] = int(segmentation_id)
    system(actor.env.sim).segmentation_changed()


def segmentation_id(actor, body):
    return body_segmentation_id(actor, _body(actor, body))
