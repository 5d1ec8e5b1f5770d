"""Generate the small mesh test objects (meshes + URDFs) with trimesh. Written from scratch.

Writes (relative to this folder):
  meshes/box.obj       bevelled (chamfered) box, 0.1 m outer size, 44 triangles (Wavefront OBJ)
  meshes/box.dae       the same bevelled box (Collada)
  meshes/tetra.stl     tetrahedron, base triangle circumradius 0.06 m, height 0.08 m (binary STL)
  mesh_box.urdf        link 'mesh_box' (0.5 kg): collision meshes/box.obj (relative path),
                       visual package://mesh_objects/meshes/box.dae
  mesh_tetra.urdf      link 'tetra' (0.2 kg): collision meshes/tetra.stl (relative path),
                       visual package://mesh_objects/meshes/tetra.stl
  missing_mesh.urdf    link 'ghost' whose collision/visual mesh meshes/does_not_exist.obj is absent
                       (for error-path tests; Newton only warns and drops the shape)

package:// URIs assume the package root is assets/urdf, i.e. package 'mesh_objects' is this folder.
Inertias written to the URDFs are the exact solid-mesh values (uniform density) about the COM.

Run:  python assets/urdf/mesh_objects/make_meshes.py
"""

from __future__ import annotations

import itertools
import logging
import os

import numpy as np
import trimesh

# trimesh logs a harmless traceback when scipy is absent (vertex normals fall back to numpy)
logging.getLogger("trimesh").setLevel(logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
MESH_DIR = os.path.join(HERE, "meshes")


def _orient_outward(vertices, faces):
    """Flip triangles of a convex, origin-centred mesh so that every normal points away from the centre."""
    out = []
    centre = vertices.mean(axis=0)
    for f in faces:
        a, b, c = vertices[list(f)]
        n = np.cross(b - a, c - a)
        out.append(f if np.dot(n, (a + b + c) / 3.0 - centre) > 0 else (f[0], f[2], f[1]))
    return np.array(out, dtype=np.int64)


def _fan(vertices, idx, normal):
    """Triangulate a planar convex polygon given by vertex indices (any order) around its centroid."""
    pts = vertices[idx]
    c = pts.mean(axis=0)
    u = pts[0] - c
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    ang = [np.arctan2(np.dot(p - c, v), np.dot(p - c, u)) for p in pts]
    ring = [idx[i] for i in np.argsort(ang)]
    return [(ring[0], ring[i], ring[i + 1]) for i in range(1, len(ring) - 1)]


def bevelled_box(size=0.1, chamfer=0.012):
    h = size / 2.0
    g = h - chamfer
    verts, key = [], {}
    for axis in range(3):
        for s in (-1, 1):
            for s1, s2 in itertools.product((-1, 1), repeat=2):
                p = [0.0, 0.0, 0.0]
                others = [k for k in range(3) if k != axis]
                p[axis] = s * h
                p[others[0]] = s1 * g
                p[others[1]] = s2 * g
                key[(axis, s, s1, s2)] = len(verts)
                verts.append(p)
    verts = np.array(verts)
    faces = []
    # 6 main faces
    for axis in range(3):
        for s in (-1, 1):
            n = np.zeros(3)
            n[axis] = s
            idx = [key[(axis, s, s1, s2)] for s1, s2 in itertools.product((-1, 1), repeat=2)]
            faces += _fan(verts, idx, n)

    def vid(axis, s, coord):  # vertex on face (axis, s) whose other coordinates have signs coord[k]
        others = [k for k in range(3) if k != axis]
        return key[(axis, s, coord[others[0]], coord[others[1]])]

    # 12 edge faces
    for i, j in ((0, 1), (0, 2), (1, 2)):
        k = 3 - i - j
        for si, sj in itertools.product((-1, 1), repeat=2):
            idx = []
            for sk in (-1, 1):
                c = [0, 0, 0]
                c[j], c[k] = sj, sk
                idx.append(vid(i, si, c))
                c = [0, 0, 0]
                c[i], c[k] = si, sk
                idx.append(vid(j, sj, c))
            n = np.zeros(3)
            n[i], n[j] = si, sj
            faces += _fan(verts, idx, n / np.linalg.norm(n))
    # 8 corner triangles
    for sx, sy, sz in itertools.product((-1, 1), repeat=3):
        c = [sx, sy, sz]
        faces.append(tuple(vid(a, c[a], c) for a in range(3)))
    faces = _orient_outward(verts, faces)
    mesh = trimesh.Trimesh(vertices=verts, faces=faces, process=False)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    return mesh


def tetrahedron(radius=0.06, height=0.08):
    base_z = -height / 4.0  # puts the centroid at the origin
    verts = [[radius * np.cos(a), radius * np.sin(a), base_z] for a in (0.0, 2 * np.pi / 3, 4 * np.pi / 3)]
    verts.append([0.0, 0.0, base_z + height])
    verts = np.array(verts)
    faces = _orient_outward(verts, [(0, 1, 2), (0, 1, 3), (1, 2, 3), (2, 0, 3)])
    mesh = trimesh.Trimesh(vertices=verts, faces=faces, process=False)
    assert mesh.is_watertight and mesh.volume > 0
    return mesh


def inertial_xml(mesh, mass):
    mesh = mesh.copy()
    mesh.density = mass / mesh.volume
    com = mesh.center_mass
    inertia = mesh.moment_inertia  # about the centre of mass, mesh axes
    assert np.all(np.linalg.eigvalsh(inertia) > 0)
    f = lambda x: "0" if abs(x) < 1e-15 else "%.8g" % x  # noqa: E731
    return (
        "    <inertial>\n"
        '      <origin xyz="%s %s %s" rpy="0 0 0"/>\n' % tuple(f(v) for v in com)
        + '      <mass value="%s"/>\n' % f(mass)
        + '      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>\n'
        % tuple(f(v) for v in (inertia[0, 0], inertia[0, 1], inertia[0, 2],
                               inertia[1, 1], inertia[1, 2], inertia[2, 2]))
        + "    </inertial>\n"
    )


def urdf(robot, link, comment, collision_uri, visual_uri, inertial, rgba):
    return f"""<?xml version="1.0"?>
<!-- {comment}
     Generated by assets/urdf/mesh_objects/make_meshes.py. -->
<robot name="{robot}">
  <material name="{robot}_color"><color rgba="{rgba}"/></material>
  <link name="{link}">
    <visual>
      <origin xyz="0 0 0" rpy="0 0 0"/>
      <geometry><mesh filename="{visual_uri}" scale="1 1 1"/></geometry>
      <material name="{robot}_color"/>
    </visual>
    <collision>
      <origin xyz="0 0 0" rpy="0 0 0"/>
      <geometry><mesh filename="{collision_uri}" scale="1 1 1"/></geometry>
    </collision>
{inertial}  </link>
</robot>
"""


def main():
    os.makedirs(MESH_DIR, exist_ok=True)
    box = bevelled_box()
    tet = tetrahedron()

    box.export(os.path.join(MESH_DIR, "box.obj"))
    box.export(os.path.join(MESH_DIR, "box.dae"))
    tet.export(os.path.join(MESH_DIR, "tetra.stl"))
    for name, m in (("box", box), ("tetra", tet)):
        print("%-6s %3d vertices %3d triangles volume %.6g m^3 extents %s"
              % (name, len(m.vertices), len(m.faces), m.volume, np.round(m.extents, 4)))

    files = {
        "mesh_box.urdf": urdf(
            "mesh_box", "mesh_box",
            "Bevelled 0.1 m box, 0.5 kg: collision mesh by relative path, visual mesh by package:// URI.",
            "meshes/box.obj", "package://mesh_objects/meshes/box.dae", inertial_xml(box, 0.5), "0.3 0.6 0.9 1"),
        "mesh_tetra.urdf": urdf(
            "mesh_tetra", "tetra",
            "Tetrahedron, 0.2 kg: collision STL by relative path, visual STL by package:// URI.",
            "meshes/tetra.stl", "package://mesh_objects/meshes/tetra.stl", inertial_xml(tet, 0.2), "0.9 0.4 0.2 1"),
        "missing_mesh.urdf": urdf(
            "missing_mesh", "ghost",
            "Error-path fixture: meshes/does_not_exist.obj does NOT exist (on purpose).",
            "meshes/does_not_exist.obj", "meshes/does_not_exist.obj",
            '    <inertial>\n      <origin xyz="0 0 0" rpy="0 0 0"/>\n      <mass value="1"/>\n'
            '      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>\n    </inertial>\n',
            "0.5 0.5 0.5 1"),
    }
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
        print("wrote", name)


if __name__ == "__main__":
    main()
