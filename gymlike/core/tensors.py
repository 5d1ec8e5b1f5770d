"""The tensor API's buffer registry: gymlike-owned state buffers (`gymapi.Tensor`) shared
zero-copy with torch, the refreshes that fill them, and the validation of the tensors and actor
index tensors the (indexed) setters receive. What a setter writes is done by the module of its
concept or by the solver's backend: backend.py (root, DOF and rigid body states), drives.py
(targets, actuation forces), forces/wrenches.py (body forces).

Semantics (Isaac Gym's): a buffer is allocated once per sim (acquire twice -> same buffer), is
filled by `refresh_*` only (stale in between), and writing into it changes nothing until the
matching `set_*` call. Every refresh/set is a fixed number of Warp launches over all entities or
over the listed actors: no Python loop over envs or actors. Positions are in each env's frame
(Newton position minus the env origin), as in Isaac Gym.

The per-step launches are recorded Warp launches (core/launch.py). DOF forces, Jacobians and
mass matrices are computed in core/forces/dynamics.py, contact forces and force sensors in
core/forces/contacts.py; their buffers are acquired here like the state buffers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import drives
from .runtime import call_name, tensor_kernels as _tensor_kernels, torch as _torch, wp as _wp
from .handles import space_of
from .errors import GymlikeIndexError, GymlikeTypeError, GymlikeValueError
from .gym_tensor import GymTensor, torch_of
from .types import as_int

if TYPE_CHECKING:
    from collections.abc import Callable

    import torch
    import warp as wp

    from .enums import CoordinateSpace
    from .sim import Sim


# ============================================================================ per-sim state
# The non-indexed setters' "every actor" (None is not: an indexed setter given None is an error).
ALL = object()


class TensorAPI:
    """Buffers and device index tables of one sim's tensor API (created by prepare_sim)."""

    def __init__(self, sim):
        torch = _torch()
        self.sim = sim
        self.torch = torch
        h = sim.host
        dev = sim.device
        self.n_act, self.n_body, self.n_dof = h.num_actors, h.num_bodies, h.num_dofs
        # (index maps: sim.dev, shared with the handle API)
        self.buffers = {}
        self.refreshers = {}
        from .launch import Launcher
        self.launch = Launcher(dev)                 # recorded launches of the per-step kernels
        self.torch_device = torch.device(dev)
        self._staging = {}                          # gymlike-owned copies of setter inputs (see as_array)
        self._host_views = {}                       # numpy views of the DOF value tables (drives.write_all_host)
        # zero-quaternion rows of the state setters (refuse_zero_quaternions): the first one
        # listed, or NO_ROW; read on the host only where that costs no device sync
        self.refused = _wp().array([_tensor_kernels().NO_ROW], dtype=_wp().int32, device=dev)
        self.report_now = _wp().get_device(dev).is_cpu
        self._refused_host = self.refused.numpy() if self.report_now else None   # (CPU: a view)

    # ------------------------------------------------------------------ buffers
    def buffer(self, kind: str, shape: tuple[int, ...], fill: Callable[[GymTensor], object],
               name: str | None = None) -> GymTensor:
        """The persistent buffer of `kind` ('root', 'dof', 'jacobian', ...; with the actor `name`
        for the per-actor kinds), allocated and filled once; `fill(t)` refreshes it."""
        key = (kind, name)
        t = self.buffers.get(key)
        if t is None:
            tt = self.torch.zeros(shape, dtype=self.torch.float32, device=self.sim.device)
            t = GymTensor(tt, _wp().from_torch(tt) if tt.numel() else None, own_data=True)
            self.buffers[key] = t
            self.refreshers[key] = fill
            if tt.numel():
                fill(t)
        return t

    def refresh(self, kind: str) -> bool:
        """Refresh every acquired buffer of `kind` (one per actor name for Jacobians and mass
        matrices); a no-op for a kind nobody acquired, as in Isaac Gym."""
        for key, buf in self.buffers.items():
            if key[0] == kind and buf._wp is not None:
                self.refreshers[key](buf)
        return True

    # ------------------------------------------------------------------ forces and dynamics
    def acquire_dof_forces(self) -> GymTensor:
        """The DOF force tensor: (dofs,) float32, N or N m."""
        from .forces.dynamics import dof_forces
        df = dof_forces(self.sim, "acquire_dof_force_tensor")
        return self.buffer("dof_force", (self.n_dof,), lambda t: df.refresh(t._wp))

    def acquire_net_contact_forces(self) -> GymTensor:
        """The net contact force tensor: (bodies, 3) float32, N."""
        from .forces import contacts
        contacts.contact_forces(self.sim, "acquire_net_contact_force_tensor")
        return self.buffer("net_contact", (self.n_body, 3), lambda t: contacts.refresh_net_contact_forces(self.sim, t))

    def acquire_force_sensors(self) -> GymTensor:
        """The force sensor tensor: (sensors, 6) float32, force (N) then torque (N m)."""
        from .forces import contacts
        fs = contacts.sensors(self.sim)
        if fs.count:
            contacts.contact_forces(self.sim, "acquire_force_sensor_tensor")
        return self.buffer("force_sensor", (fs.count, 6), lambda t: fs.refresh(t._wp))

    def acquire_jacobian(self, name: str, what: str | None = None) -> GymTensor:
        """The Jacobian tensor of the actors named `name`: (envs, links, 6, dofs) float32."""
        what = what or call_name()
        from .forces.dynamics import dynamics
        dyn = dynamics(self.sim)
        tab = dyn.table(name, what)
        return self.buffer("jacobian", (tab.num_envs, tab.num_links, 6, tab.num_cols),
                           lambda b: dyn.refresh_jacobian(name, b._wp), name)

    def acquire_mass_matrix(self, name: str, what: str | None = None) -> GymTensor:
        """The mass-matrix tensor of the actors named `name`: (envs, dofs, dofs) float32."""
        what = what or call_name()
        from .forces.dynamics import dynamics
        dyn = dynamics(self.sim)
        tab = dyn.table(name, what)
        return self.buffer("mass", (tab.num_envs, tab.num_cols, tab.num_cols),
                           lambda b: dyn.refresh_mass_matrix(name, b._wp), name)

    def refresh_roots(self, t: GymTensor) -> None:
        """Fill the root state tensor t (actors, 13) float32: position (m), quaternion, linear (m/s)
        and angular (rad/s) velocity."""
        self.sim.backend.read_roots(t._wp)

    def refresh_bodies(self, t: GymTensor) -> None:
        """Fill the rigid body state tensor t (bodies, 13) float32, laid out as the root states."""
        self.sim.backend.read_bodies(t._wp)

    def refresh_dofs(self, t: GymTensor) -> None:
        """Fill the DOF state tensor t (dofs, 2) float32: position (m or rad) and velocity."""
        if self.n_dof:
            self.sim.backend.read_dofs(t._wp)

    # ------------------------------------------------------------------ validation
    def as_array(self, tensor: GymTensor, what: str, rows: int, cols: int | None = None,
                 dtype: torch.dtype | None = None, arg: str = "the tensor") -> wp.array:
        """Validate a gymapi.Tensor argument (type, device, dtype, shape); return a Warp view."""
        return self.warp_of(tensor, self.checked(tensor, what, rows, cols, dtype, arg), (what, arg), rows, cols)

    def warp_of(self, tensor: GymTensor, t: torch.Tensor, site: tuple, rows: int, cols: int | None = None) -> wp.array:
        """A Warp view of `tensor`, whose torch tensor `t` was checked: its own Warp array when
        that has the (rows, cols) layout, else staged for the call site `site` (_stage)."""
        want = (rows,) if cols is None else (rows, cols)
        if tensor._wp is not None and tuple(tensor._wp.shape) == want:
            return tensor._wp
        return self._stage(site, t, want)

    def checked(self, tensor: GymTensor, what: str, rows: int, cols: int | None = None,
                dtype: torch.dtype | None = None, arg: str = "the tensor") -> torch.Tensor:
        """Validate a gymapi.Tensor argument (type, device, dtype, shape); return its torch tensor."""
        torch = self.torch
        t = torch_of(tensor, what, arg)
        dtype = dtype or torch.float32
        if t.dtype != dtype:
            raise GymlikeTypeError(f"{what}: {arg}: expected dtype {dtype}, got {t.dtype}")
        if t.device != self.torch_device:
            raise GymlikeValueError(f"{what}: {arg} is on {t.device} but the sim runs on {self.sim.device}")
        want = (rows,) if cols is None else (rows, cols)
        # Any view of the acquired layout is fine ((num_envs, per_env, 13) for root states,
        # (num_envs, dofs_per_env) for targets, a flat view), but rows of a matrix must stay
        # rows: a transposed (13, num_actors) tensor has the right count and would scramble
        # every pose.
        if t.numel() != rows * (cols or 1) or (cols is not None and t.dim() != 1 and t.shape[-1] != cols):
            views = ("or any view with the same count" if cols is None
                     else f"or (..., {cols}) with {rows} rows in all, or flat")
            raise GymlikeValueError(f"{what}: {arg}: expected shape {want} ({views}), got {tuple(t.shape)}")
        if not t.is_contiguous():
            raise GymlikeValueError(f"{what}: {arg} must be contiguous (call .contiguous())")
        return t

    def _stage(self, site, t, shape):
        """A Warp array holding `t`'s values for call site `site`: a gymlike-owned buffer they
        are copied into, one per argument of each call, since a training loop may pass new
        tensors every step (new memory) while each setter's recorded launch keeps one argument
        per call site (copying, a few microseconds, beats a new Warp view and launch setup);
        where a site is given the same memory twice in a row (a task passing its acquired
        state tensor back, viewed), a kept Warp view of that memory instead (no copy; the view
        keeps the tensor alive, so the same address is the same tensor)."""
        key = (site, shape, t.dtype)
        st = self._staging.get(key)
        if st is None:
            buf = self.torch.empty(shape, dtype=t.dtype, device=self.torch_device)
            # [buffer, its Warp view, (address, kept Warp view of it) or None, last address]
            st = self._staging[key] = [buf, _wp().from_torch(buf), None, None]
        ptr = t.data_ptr()
        if st[2] is not None and st[2][0] == ptr:
            return st[2][1]
        if st[3] == ptr:
            st[2] = (ptr, _wp().from_torch(t.detach().view(shape), requires_grad=False))
            return st[2][1]
        st[3] = ptr
        st[0].view(-1).copy_(t.reshape(-1))
        return st[1]

    def targets(self, indices: GymTensor | object, count: int,
                what: str) -> tuple[wp.array, np.ndarray | None, int]:
        """The actors a setter writes: every actor for ALL, else the validated index tensor.
        Returns (warp int32 ids, host ids or None for all, count)."""
        if indices is ALL:
            return self.sim.dev.actor_all, None, self.n_act
        ids, host = self.actor_ids(indices, count, what)
        return ids, host, len(host)

    def actor_ids(self, indices: GymTensor, count: int, what: str) -> tuple[wp.array, np.ndarray]:
        """Validate an indexed setter's actor index tensor; return (warp int32 view, host ids)."""
        t, host = self._ids(indices, count, what)
        # (the launches run over the first `count` entries of one staged buffer)
        st = self._staging.get("actor indices")
        if st is None:
            buf = self.torch.zeros(max(1, self.n_act), dtype=self.torch.int32, device=self.torch_device)
            st = self._staging["actor indices"] = (buf, _wp().from_torch(buf), buf.numpy() if self.report_now else None)
        if st[2] is not None:          # (CPU: a numpy copy of the checked host ids)
            st[2][: len(host)] = host
        else:
            st[0][: len(host)].copy_(t.reshape(-1)[: len(host)])
        return st[1], host

    def _ids(self, indices, count, what):
        """(the index tensor, its first `count` indices on the host as numpy), validated."""
        torch = self.torch
        if not isinstance(indices, GymTensor):
            # None included: Isaac Gym's indexed setters need the index tensor (never "all")
            raise GymlikeTypeError(f"{what}: actor indices must be a gymapi.Tensor of int32, "
                                   f"got {type(indices).__name__}")
        t = torch_of(indices, what, "actor indices")
        if t.dtype != torch.int32:
            raise GymlikeTypeError(f"{what}: actor indices must be int32 (torch.int32), got {t.dtype}")
        if t.device != self.torch_device:
            raise GymlikeValueError(f"{what}: indices are on {t.device} but the sim runs on {self.sim.device}")
        n_given = as_int(count)          # (any int Isaac Gym takes: a numpy int, an integer torch scalar)
        if n_given is None or not 0 <= n_given <= t.numel():
            raise GymlikeValueError(f"{what}: count must be an int in [0, {t.numel()}] (the number of indices), "
                                    f"got {count!r}")
        count = n_given
        # (numpy on the host: a few torch view calls cost more than the whole check)
        host = (t.numpy() if t.device.type == "cpu" else t.cpu().numpy()).reshape(-1)[: int(count)]
        if (host.view(np.uint32) >= self.n_act).any():      # (a negative index wraps to a large one)
            bad = int(host[(host < 0) | (host >= self.n_act)][0])
            raise GymlikeIndexError(f"{what}: actor index {bad} out of range [0, {self.n_act})")
        return t, host

    def refuse_zero_quaternions(self, src: wp.array, ids: wp.array, host: np.ndarray | None, n: int,
                                what: str, arg: str, roots: bool) -> wp.array:
        """A state setter writes nothing when a row it writes has a zero quaternion (no rotation
        to normalize to). One launch checks those rows on the device and leaves the first in
        `self.refused`, which the scatter kernels read: no Python loop over rows, no host read.
        On the CPU the flag is read at once (a memory read) and the call raises here; on CUDA,
        where that read would be a device sync per call, the NaN guard names the envs at the
        next simulate, as it does for NaN targets. `roots`: rows are actors (ids: which), else
        every body."""
        d = self.sim.dev
        host_flag = self._refused_host if self.report_now else None
        if host_flag is not None:
            host_flag[0] = _tensor_kernels().NO_ROW            # (a memory write; fill_ costs a launch)
        else:
            self.refused.fill_(_tensor_kernels().NO_ROW)
        self.launch(("zero_quat", roots), _tensor_kernels().find_zero_quaternions, n,
                    (src, ids, int(roots), d.actor_env if roots else d.body_env, int(not self.report_now),
                     self.refused, d.nan_worlds, d.bad_input, d.nan_count))
        if host_flag is not None:
            self.raise_refused(host, what, arg, roots)
        return self.refused

    def raise_refused(self, host: np.ndarray | None, what: str, arg: str, roots: bool) -> None:
        """On the CPU: raise when refused[0] names a listed row with a zero quaternion (host: the
        listed ids, None: every row)."""
        i = int(self._refused_host[0])
        if i != _tensor_kernels().NO_ROW:
            h = self.sim.host
            r = int(host[i]) if host is not None else i
            who = f"actor {r}, env {h.actor_env[r]}" if roots else f"rigid body {r}, env {h.body_env[r]}"
            raise GymlikeValueError(f"{what}: {arg} row {r} ({who}) has a zero quaternion in columns 3:7 "
                                    "(x, y, z, w; identity: 0, 0, 0, 1); nothing was written")

    # ------------------------------------------------------------------ setters
    # (validated here; written by the module of each concept, shared with the handle API)
    def set_roots(self, tensor: GymTensor, indices: GymTensor | object, count: int,
                  what: str | None = None) -> bool:
        """Write root states (actors, 13) float32 of every actor, or of the `count` actors in `indices`."""
        what = what or call_name()
        src = self.as_array(tensor, what, self.n_act, 13, arg="root_states")
        ids, host, n = self.targets(indices, count, what)
        if n:
            refused = self.refuse_zero_quaternions(src, ids, host, n, what, "root_states", roots=True)
            self.sim.backend.write_roots(src, ids, host, n, refused)
        return True

    def set_dof_states(self, tensor: GymTensor, indices: GymTensor | object, count: int,
                       what: str | None = None) -> bool:
        """Write DOF states (dofs, 2) float32 of every actor, or of the `count` actors in `indices`."""
        what = what or call_name()
        backend = self.sim.backend
        t = self.checked(tensor, what, self.n_dof, 2, arg="dof_states")
        if (indices is ALL and self.report_now and self.n_dof      # (host memory: the backend may take it as is)
                and backend.write_all_dofs(t.detach().numpy().reshape(-1, 2))):
            return True
        src = self.warp_of(tensor, t, (what, "dof_states"), self.n_dof, 2)
        ids, host, n = self.targets(indices, count, what)
        if n and self.n_dof:
            backend.write_dofs(src, ids, host, n)
        return True

    def set_dof_values(self, kind: str, tensor: GymTensor, indices: GymTensor | object, count: int,
                       what: str) -> bool:
        """kind: 'pos_target' | 'vel_target' | 'actuation'."""
        arg = "forces" if kind == "actuation" else "targets"
        if indices is ALL and self.report_now and self.n_dof:
            # (CPU, every DOF: a numpy copy into the table when every value is sane; else the
            # kernel below writes them and flags their envs for the NaN guard)
            v = self.checked(tensor, what, self.n_dof, arg=arg).detach().numpy().reshape(-1)
            if drives.write_all_host(self.sim, kind, v, self._host_views):
                return True
        src = self.as_array(tensor, what, self.n_dof, arg=arg)
        ids, _, n = self.targets(indices, count, what)
        if n and self.n_dof:
            drives.write(self.sim, kind, src, ids, n, launch=self.launch)
        return True

    def set_bodies(self, tensor: GymTensor, what: str | None = None) -> bool:
        """Write the rigid body states (bodies, 13) float32 of every body."""
        what = what or call_name()
        src = self.as_array(tensor, what, self.n_body, 13, arg="states")
        if self.n_body:
            refused = self.refuse_zero_quaternions(src, self.sim.dev.actor_all, None, self.n_body, what, "states",
                                                   roots=False)
            self.sim.backend.write_bodies(src, refused)
        return True

    def apply_forces(self, force: GymTensor | None, torque: GymTensor | None, pos: GymTensor | None,
                     space: CoordinateSpace, what: str | None = None) -> bool:
        """Add forces (N), torques (N m) at positions (m), each (bodies, 3) float32 and optional, for
        the next simulate."""
        what = what or call_name()
        from .forces import wrenches
        space = int(space_of(space, what))
        f = self.as_array(force, what, self.n_body, 3, arg="forceTensor") if force is not None else None
        t = self.as_array(torque, what, self.n_body, 3, arg="torqueTensor") if torque is not None else None
        p = self.as_array(pos, what, self.n_body, 3, arg="posTensor") if pos is not None else None
        if f is not None or t is not None:
            wrenches.add_rows(self.sim, f, t, p, space, self.launch)
        return True


def api(sim: Sim, what: str | None = None) -> TensorAPI:
    """The sim's TensorAPI. Acquiring before prepare_sim builds the sim (IsaacGymEnvs' cube
    stacking task acquires in its env-creation code and calls prepare_sim afterwards)."""
    what = what or call_name()
    sim.check_alive()
    if sim.tensor_api is None:
        sim.ensure_ready(what)
    return sim.component("tensor_api", lambda: TensorAPI(sim))
