"""Every force gymlike applies or reports, one module per kind (the package imports none of them,
so each keeps its own layer, tests/project/test_layout.py CORE_LAYERS):

* wrenches.py: rigid body forces and torques given through the handle API (apply_body_forces,
  apply_body_force_at_pos), kept until the next simulate; the tensor API writes the same table.
* dynamics.py: Jacobians, mass matrices and the forces each DOF transmits (the tensor API's
  dynamics buffers), and XPBD's articulation response to DOF efforts.
* contacts.py: net contact forces, force sensors and rigid contacts (the tensor API's and the
  handle API's contact queries).
* observables.py: what the running solver reports (contact wrenches, joint forces), requested on
  demand: a backend module, which contacts.py and dynamics.py read.

DOF efforts and targets are drives (core/drives.py); attractors, springs on a body's pose, are
core/attractors.py.
"""
