"""Functional worlds (seed 002's `FuncWorld` interface) and `SceneWorld`, a FuncWorld over a
loaded scene; `world_arrays(sim)`, the Newton world arrays of a sim (seed 000).

SceneWorld's state is a dict of torch tensors, world batch first: `root_state` (worlds, actors,
13) in each env's frame, `dof_pos`, `dof_vel`, `dof_targets` (worlds, DOFs; targets are what the
next step drives towards), `time` (worlds,) seconds and `steps` (worlds,). Underneath is the
same sim as the handle and tensor API: states go in and out through the tensor API's setters
and refreshes."""


import abc
from typing import Generic, Optional, Tuple, TypeVar, Union

import numpy as np

from .core.errors import GymlikeTypeError, GymlikeValueError
from .core.worlds import WORLD_ENTITIES, WORLD_STARTS, world_arrays  # noqa: F401  (seed 000's names)

WorldStateT = TypeVar("WorldStateT")
BArrayType = TypeVar("BArrayType")
BDeviceType = TypeVar("BDeviceType")
BDtypeType = TypeVar("BDtypeType")
BRNGType = TypeVar("BRNGType")


class ComputeBackend(Generic[BArrayType, BDeviceType, BDtypeType, BRNGType]):
    """The array library a world's arrays live in (seed 002 types `FuncWorld.backend` with
    unienv's ComputeBackend, which gymlike does not depend on): its name and array type."""

    def __init__(self, name, array_type):
        self.name, self.array_type = name, array_type

    def __repr__(self):
        return f"<ComputeBackend {self.name}>"


def torch_backend():
    import torch
    return ComputeBackend("torch", torch.Tensor)


class FuncWorld(abc.ABC, Generic[WorldStateT, BArrayType, BDeviceType, BDtypeType, BRNGType]):
    """Functional counterpart to a World with explicit state passing."""

    backend: ComputeBackend[BArrayType, BDeviceType, BDtypeType, BRNGType]
    device: Optional[BDeviceType]
    # The world timestep in seconds. If None, the world is asynchronous (real-time)
    world_timestep: Optional[float]
    # The world's physical timestep in seconds (there may be several sub-steps per step); None: not known
    world_subtimestep: Optional[float] = None
    # The number of parallel environments in this world
    batch_size: Optional[int] = None

    @abc.abstractmethod
    def initial(self, *, seed: Optional[int] = None, **kwargs) -> WorldStateT:
        """Construct the initial world state."""

    @abc.abstractmethod
    def step(self, state: WorldStateT) -> Tuple[WorldStateT, Union[float, BArrayType]]:
        """Advance state by one world step; returns (state, seconds elapsed)."""

    @abc.abstractmethod
    def reset(self, state: WorldStateT, *, seed: Optional[int] = None, mask: Optional[BArrayType] = None,
              **kwargs) -> WorldStateT:
        """Reset the environments selected by mask (all when None); state in and out is the full batch."""

    def reload(self, state: WorldStateT, *, seed: Optional[int] = None, **kwargs) -> WorldStateT:
        """Prepare the world for reloading, before nodes add entities (do not compile here; that
        is after_reload's work). By default this calls initial with the same parameters."""
        return self.initial(seed=seed, **kwargs)

    def after_reset(self, state: WorldStateT, *, seed: Optional[int] = None, mask: Optional[BArrayType] = None,
                    **kwargs) -> WorldStateT:
        """Called after reset() completes; returns the (possibly modified) world state."""
        return state

    def after_reload(self, state: WorldStateT, *, seed: Optional[int] = None, mask: Optional[BArrayType] = None,
                     **kwargs) -> WorldStateT:
        """Compile the world scene after all nodes have added their entities; returns the state."""
        return state

    def close(self, state: WorldStateT) -> None:
        """Release any resources referenced by state."""

    def is_control_timestep_compatible(self, control_timestep: Optional[float]) -> bool:
        """Whether a node control period aligns with world_timestep: a whole number >= 1 of
        world steps (any period fits an asynchronous world; None fits any world)."""
        if control_timestep is None or self.world_timestep is None:
            return True
        try:
            ratio = float(control_timestep) / float(self.world_timestep)
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        return bool(np.isfinite(ratio) and ratio >= 1 - 1e-9 and abs(ratio - round(ratio)) < 1e-6)


STATE_KEYS = ("root_state", "dof_pos", "dof_vel", "dof_targets", "time", "steps")


class SceneWorld(FuncWorld[dict, "torch.Tensor", "torch.device", "torch.dtype", "torch.Generator"]):
    """FuncWorld over a scene (a SapLoadedScene, a scene file or a mapping): one environment per
    replicated world. `reset_noise`: uniform noise of +-reset_noise on DOF positions at initial
    and reset, drawn from a generator seeded with `seed` (the same seed, the same state).

    reload(state, seed=, **kw) frees the sim, reads the document again (kw go to load_sap_scene)
    and leaves the new sim open: nodes may add actors through `world.scene.gym` and
    `world.scene.envs`; after_reload(...) compiles it and returns its initial state."""

    def __init__(self, scene, reset_noise=0.0):
        from .scene import SapLoadedScene, load_sap_scene
        if isinstance(scene, (str, dict)) or hasattr(scene, "__fspath__"):
            scene = load_sap_scene(scene)
        if not isinstance(scene, SapLoadedScene):
            raise GymlikeTypeError(f"SceneWorld: expected a SapLoadedScene, a scene file or a mapping, got "
                                   f"{type(scene).__name__}")
        if not (isinstance(reset_noise, (int, float)) and not isinstance(reset_noise, bool) and reset_noise >= 0):
            raise GymlikeValueError(f"SceneWorld: reset_noise must be a number >= 0, got {reset_noise!r}")
        self.scene = scene
        self.reset_noise = float(reset_noise)
        self.backend = torch_backend()
        self._attach()

    def _attach(self):
        import torch
        from . import gymtorch
        sc = self.scene
        gym, sim = sc.gym, sc.sim
        sc.prepare()
        envs = sim.envs
        shape = (len(envs[0].actors), envs[0].dof_count)
        bad = [e.index for e in envs if (len(e.actors), e.dof_count) != shape]
        if bad:
            raise GymlikeValueError(f"SceneWorld: every env must hold the same actors; env(s) {bad[:10]} differ "
                                    f"from env 0 ({shape[0]} actors, {shape[1]} DOFs)")
        self.gym, self.sim = gym, sim
        self.batch_size = n = len(envs)
        self.num_actors, self.num_dofs = shape
        self.world_timestep = float(sim.params.dt)
        self.world_subtimestep = self.world_timestep / max(1, int(sim.params.substeps))
        self.device = torch.device(sim.device)
        self._root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        self._dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        # (Isaac Gym has no target tensor to acquire: the world keeps its own, set with the tensor setter)
        self._tgt = torch.zeros(n * self.num_dofs, dtype=torch.float32, device=self.device)
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        self._root0 = self._root.view(n, self.num_actors, 13).clone()
        self._dof0 = self._dof.view(n, self.num_dofs, 2).clone()
        self._tgt0 = torch.as_tensor(np.concatenate(
            [gym.get_actor_dof_position_targets(e, h) for e in envs for h in range(len(e.actors))] or [np.zeros(0)]),
            dtype=torch.float32, device=self.device).view(n, self.num_dofs)
        self._ids = torch.arange(n * self.num_actors, dtype=torch.int32, device=self.device).view(n, self.num_actors)
        self._last = None

    # ------------------------------------------------------------------ state in and out
    def _fingerprint(self, state):
        return tuple((id(state[k]), state[k]._version) for k in STATE_KEYS)

    def _check(self, state, what):
        import torch
        if not isinstance(state, dict) or any(k not in state for k in STATE_KEYS):
            raise GymlikeTypeError(f"{what}: state must be a dict with {', '.join(STATE_KEYS)} "
                                   "(from initial/step/reset)")
        n, a, d = self.batch_size, self.num_actors, self.num_dofs
        for k, shp in (("root_state", (n, a, 13)), ("dof_pos", (n, d)), ("dof_vel", (n, d)), ("dof_targets", (n, d)),
                       ("time", (n,)), ("steps", (n,))):
            t = state[k]
            if not isinstance(t, torch.Tensor) or tuple(t.shape) != shp:
                raise GymlikeValueError(f"{what}: state['{k}'] must be a tensor of shape {shp}, got "
                                        f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")

    def _is_current(self, state):
        """Whether `state` is what the sim holds (the last state handed out, not edited since)."""
        return self._last is not None and self._last[0] is state and self._last[1] == self._fingerprint(state)

    def _write(self, state, worlds=None):
        """Put `state` into the sim: every world, or only `worlds` (int tensor) via the indexed setters."""
        from . import gymtorch
        g, s, n = self.gym, self.sim, self.batch_size
        self._root.view(n, self.num_actors, 13).copy_(state["root_state"])
        if self.num_dofs:
            d = self._dof.view(n, self.num_dofs, 2)
            d[..., 0].copy_(state["dof_pos"])
            d[..., 1].copy_(state["dof_vel"])
            self._tgt.view(n, self.num_dofs).copy_(state["dof_targets"])
        u = gymtorch.unwrap_tensor
        if worlds is None:
            g.set_actor_root_state_tensor(s, u(self._root))
            if self.num_dofs:
                g.set_dof_state_tensor(s, u(self._dof))
                g.set_dof_position_target_tensor(s, u(self._tgt))
            return
        ids = self._ids[worlds].reshape(-1).contiguous()
        if ids.numel() == 0:
            return
        g.set_actor_root_state_tensor_indexed(s, u(self._root), u(ids), ids.numel())
        if self.num_dofs:
            g.set_dof_state_tensor_indexed(s, u(self._dof), u(ids), ids.numel())
            g.set_dof_position_target_tensor_indexed(s, u(self._tgt), u(ids), ids.numel())

    def _read(self, targets, time, steps):
        g, s, n = self.gym, self.sim, self.batch_size
        g.refresh_actor_root_state_tensor(s)
        g.refresh_dof_state_tensor(s)
        d = self._dof.view(n, self.num_dofs, 2)
        return dict(root_state=self._root.view(n, self.num_actors, 13).clone(), dof_pos=d[..., 0].clone(),
                    dof_vel=d[..., 1].clone(), dof_targets=targets.clone(), time=time, steps=steps)

    def _hand_out(self, state):
        self._last = (state, self._fingerprint(state))
        return state

    def _mask(self, mask):
        import torch
        if mask is None:
            return torch.ones(self.batch_size, dtype=torch.bool, device=self.device)
        m = torch.as_tensor(mask, device=self.device)
        if m.dtype != torch.bool or tuple(m.shape) != (self.batch_size,):
            raise GymlikeValueError(f"reset: mask must be a bool tensor of shape ({self.batch_size},), got "
                                    f"{m.dtype} {tuple(m.shape)}")
        return m

    def _noise(self, seed):
        import torch
        if self.reset_noise == 0.0 or self.num_dofs == 0:
            return torch.zeros(self.batch_size, self.num_dofs, device=self.device)
        gen = torch.Generator(device="cpu")
        gen.manual_seed(int(seed) if seed is not None else int(torch.randint(0, 2 ** 62, (1,)).item()))
        u = torch.rand((self.batch_size, self.num_dofs), generator=gen, dtype=torch.float32)
        return ((2.0 * u - 1.0) * self.reset_noise).to(self.device)

    @staticmethod
    def _no_kwargs(what, kwargs):
        if kwargs:
            raise GymlikeTypeError(f"SceneWorld.{what}: unexpected keyword argument(s) {', '.join(sorted(kwargs))}")

    # ------------------------------------------------------------------ FuncWorld
    def initial(self, *, seed=None, **kwargs):
        import torch
        self._no_kwargs("initial", kwargs)
        n, dev = self.batch_size, self.device
        state = dict(root_state=self._root0.clone(), dof_pos=self._dof0[..., 0] + self._noise(seed),
                     dof_vel=self._dof0[..., 1].clone(), dof_targets=self._tgt0.clone(),
                     time=torch.zeros(n, dtype=torch.float64, device=dev),
                     steps=torch.zeros(n, dtype=torch.int64, device=dev))
        self._write(state)
        return self._hand_out(state)

    def step(self, state):
        self._check(state, "step")
        if not self._is_current(state):
            self._write(state)
        self.gym.simulate(self.sim)
        out = self._read(state["dof_targets"], state["time"] + self.world_timestep, state["steps"] + 1)
        return self._hand_out(out), self.world_timestep

    def reset(self, state, *, seed=None, mask=None, **kwargs):
        import torch
        self._no_kwargs("reset", kwargs)
        self._check(state, "reset")
        m = self._mask(mask)
        m2 = m[:, None]
        out = dict(root_state=torch.where(m[:, None, None], self._root0, state["root_state"]),
                   dof_pos=torch.where(m2, self._dof0[..., 0] + self._noise(seed), state["dof_pos"]),
                   dof_vel=torch.where(m2, self._dof0[..., 1], state["dof_vel"]),
                   dof_targets=torch.where(m2, self._tgt0, state["dof_targets"]),
                   time=torch.where(m, torch.zeros_like(state["time"]), state["time"]),
                   steps=torch.where(m, torch.zeros_like(state["steps"]), state["steps"]))
        # the sim already holds the unmasked worlds when `state` is current: write the masked only
        self._write(out, torch.nonzero(m).reshape(-1) if self._is_current(state) else None)
        return self._hand_out(out)

    def reload(self, state, *, seed=None, **kwargs):
        """Free the sim and load the document again, unfinalized (kwargs: load_sap_scene's).
        Returns an empty state: the world has none until after_reload compiles it."""
        from .scene import load_sap_scene
        old = self.scene
        kwargs.setdefault("num_worlds", old.num_worlds)
        kwargs.setdefault("device", old.device)
        self.scene = load_sap_scene(old.source or old.document, prepare=False, **kwargs)
        old.close()
        self._last = None
        return {}

    def after_reload(self, state, *, seed=None, mask=None, **kwargs):
        """Compile the reloaded scene (with whatever nodes added) and return its initial state."""
        self._no_kwargs("after_reload", kwargs)
        self._attach()
        return self.initial(seed=seed)

    def close(self, state):
        self.scene.close()
        self._last = None

    def __repr__(self):
        return (f"<SceneWorld: {self.batch_size} worlds x {self.num_actors} actors, {self.num_dofs} DOFs, "
                f"dt {self.world_timestep:g} s, {self.device}>")
