"""A functional world interface over a batch of Newton worlds: `FuncWorld` (abstract) and
`SceneWorld`, a FuncWorld over a loaded scene or a gymlike sim.

The state is a dict of torch tensors with the world batch first; `step(state)` returns a new
state and a reward, `reset(state, seed=, mask=)` returns the full batch with only the masked
worlds reset. Underneath it is the same sim as the handle and tensor API (one model, one index
layout): states go in and out through the tensor API's root and DOF state setters/refreshes."""

from __future__ import annotations

import abc

import numpy as np

from .core.errors import GymlikeNotImplementedError, GymlikeTypeError, GymlikeValueError

STATE_KEYS = ("root_state", "dof_pos", "dof_vel", "time", "steps")


class FuncWorld(abc.ABC):
    """A batch of `batch_size` worlds stepped by pure functions of a state.

    Attributes: `batch_size` (worlds), `world_timestep` (seconds per `step`), `world_subtimestep`
    (the solver's substep), `device` ('cpu' or 'cuda:N')."""

    batch_size: int
    world_timestep: float
    world_subtimestep: float
    device: str

    @abc.abstractmethod
    def initial(self, seed=None):
        """The initial state of every world."""

    @abc.abstractmethod
    def step(self, state, action=None):
        """(next state, reward per world)."""

    @abc.abstractmethod
    def reset(self, state, seed=None, mask=None):
        """The full batch with the worlds in `mask` (bool, (batch_size,); None: all) reset."""

    @abc.abstractmethod
    def reload(self):
        """Rebuild the worlds from their source; calls after_reload()."""

    def after_reload(self):
        """Hook run after reload()."""

    def after_reset(self, state, mask):
        """Hook run at the end of reset(); returns the state to hand out."""
        return state

    def close(self):
        """Free the worlds."""

    def is_control_timestep_compatible(self, control_dt):
        """Whether a controller running every `control_dt` seconds lines up with world steps
        (a whole number >= 1 of world_timestep)."""
        try:
            ratio = float(control_dt) / self.world_timestep
        except (TypeError, ValueError):
            return False
        return bool(np.isfinite(ratio) and ratio >= 1 - 1e-9 and abs(ratio - round(ratio)) < 1e-6)


class SceneWorld(FuncWorld):
    """FuncWorld over a Scene (gymlike.scene.load_scene), a scene file/mapping, or a gymlike sim
    whose envs all hold the same actors.

    State: `root_state` (worlds, actors, 13) in each env's frame, `dof_pos`/`dof_vel` (worlds,
    DOFs), `time` (worlds,) seconds since the world's reset, `steps` (worlds,) int64. `action`
    given to step is DOF position targets (worlds, DOFs). `reward_fn(state, action)` -> (worlds,)
    gives the reward (zeros without it). Reset puts worlds back to the state they had when the
    SceneWorld was made, plus uniform noise of +-reset_noise on DOF positions drawn from a
    generator seeded with `seed` (the same seed gives bitwise the same state)."""

    def __init__(self, scene, reward_fn=None, reset_noise=0.0):
        from .scene import Scene, load_scene
        from .core.sim import Sim
        self._owned = False
        if isinstance(scene, (str, dict)) or hasattr(scene, "__fspath__"):
            scene, self._owned = load_scene(scene), True
        if isinstance(scene, Scene):
            self.scene, sim, gym = scene, scene.sim, scene.gym
        elif isinstance(scene, Sim):
            from . import gymapi
            self.scene, sim, gym = None, scene, gymapi.acquire_gym()
        else:
            raise GymlikeTypeError(f"SceneWorld: expected a Scene, a scene file or a gymlike sim, got {type(scene).__name__}")
        if not (isinstance(reset_noise, (int, float)) and reset_noise >= 0):
            raise GymlikeValueError(f"SceneWorld: reset_noise must be a number >= 0, got {reset_noise!r}")
        self.reward_fn = reward_fn
        self.reset_noise = float(reset_noise)
        self._attach(gym, sim)

    def _attach(self, gym, sim):
        import torch
        from . import gymtorch
        envs = sim.envs
        if not envs:
            raise GymlikeValueError("SceneWorld: the sim has no envs")
        shape = (len(envs[0].actors), envs[0].dof_count)
        bad = [e.index for e in envs if (len(e.actors), e.dof_count) != shape]
        if bad:
            raise GymlikeValueError(f"SceneWorld: every env must hold the same actors; env(s) {bad[:10]} differ "
                                    f"from env 0 ({shape[0]} actors, {shape[1]} DOFs)")
        gym.prepare_sim(sim)
        self.gym, self.sim = gym, sim
        self.batch_size = W = len(envs)
        self.num_actors, self.num_dofs = shape
        self.world_timestep = float(sim.params.dt)
        self.world_subtimestep = self.world_timestep / max(1, int(sim.params.substeps))
        self.device = sim.device
        self._root = gymtorch.wrap_tensor(gym.acquire_actor_root_state_tensor(sim))
        self._dof = gymtorch.wrap_tensor(gym.acquire_dof_state_tensor(sim))
        gym.refresh_actor_root_state_tensor(sim)
        gym.refresh_dof_state_tensor(sim)
        self._root0 = self._root.view(W, self.num_actors, 13).clone()
        self._dof0 = self._dof.view(W, self.num_dofs, 2).clone()
        self._targets = torch.zeros(W * self.num_dofs, dtype=torch.float32, device=self._root.device)
        self._ids = torch.arange(W * self.num_actors, dtype=torch.int32, device=self._root.device).view(W, self.num_actors)
        self._last = None

    # ------------------------------------------------------------------ state in and out
    def _fingerprint(self, state):
        return tuple((id(state[k]), state[k]._version) for k in STATE_KEYS)

    def _check(self, state, what):
        import torch
        if not isinstance(state, dict) or any(k not in state for k in STATE_KEYS):
            raise GymlikeTypeError(f"{what}: state must be a dict with {', '.join(STATE_KEYS)} (from initial/step/reset)")
        W, A, D = self.batch_size, self.num_actors, self.num_dofs
        for k, shp in (("root_state", (W, A, 13)), ("dof_pos", (W, D)), ("dof_vel", (W, D)), ("time", (W,)), ("steps", (W,))):
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
        g, s = self.gym, self.sim
        self._root.view(self.batch_size, self.num_actors, 13).copy_(state["root_state"])
        if self.num_dofs:
            d = self._dof.view(self.batch_size, self.num_dofs, 2)
            d[..., 0].copy_(state["dof_pos"])
            d[..., 1].copy_(state["dof_vel"])
        if worlds is None:
            g.set_actor_root_state_tensor(s, gymtorch.unwrap_tensor(self._root))
            if self.num_dofs:
                g.set_dof_state_tensor(s, gymtorch.unwrap_tensor(self._dof))
            return
        ids = self._ids[worlds].reshape(-1).contiguous()
        if ids.numel() == 0:
            return
        g.set_actor_root_state_tensor_indexed(s, gymtorch.unwrap_tensor(self._root), gymtorch.unwrap_tensor(ids), ids.numel())
        if self.num_dofs:
            g.set_dof_state_tensor_indexed(s, gymtorch.unwrap_tensor(self._dof), gymtorch.unwrap_tensor(ids), ids.numel())

    def _read(self, time, steps):
        g, s, W = self.gym, self.sim, self.batch_size
        g.refresh_actor_root_state_tensor(s)
        g.refresh_dof_state_tensor(s)
        d = self._dof.view(W, self.num_dofs, 2)
        return dict(root_state=self._root.view(W, self.num_actors, 13).clone(),
                    dof_pos=d[..., 0].clone(), dof_vel=d[..., 1].clone(), time=time, steps=steps)

    def _hand_out(self, state):
        self._last = (state, self._fingerprint(state))
        return state

    def _mask(self, mask):
        import torch
        W = self.batch_size
        if mask is None:
            return torch.ones(W, dtype=torch.bool, device=self._root.device)
        m = torch.as_tensor(mask, device=self._root.device)
        if m.dtype != torch.bool or tuple(m.shape) != (W,):
            raise GymlikeValueError(f"reset: mask must be a bool tensor of shape ({W},), got "
                                    f"{m.dtype} {tuple(m.shape)}")
        return m

    def _noise(self, seed):
        import torch
        if self.reset_noise == 0.0 or self.num_dofs == 0:
            return torch.zeros(self.batch_size, self.num_dofs, device=self._root.device)
        gen = torch.Generator(device="cpu")
        gen.manual_seed(int(seed) if seed is not None else int(torch.randint(0, 2 ** 62, (1,)).item()))
        u = torch.rand((self.batch_size, self.num_dofs), generator=gen, dtype=torch.float32)
        return ((2.0 * u - 1.0) * self.reset_noise).to(self._root.device)

    # ------------------------------------------------------------------ FuncWorld
    def initial(self, seed=None):
        import torch
        W, dev = self.batch_size, self._root.device
        state = dict(root_state=self._root0.clone(), dof_pos=self._dof0[..., 0] + self._noise(seed),
                     dof_vel=self._dof0[..., 1].clone(), time=torch.zeros(W, dtype=torch.float64, device=dev),
                     steps=torch.zeros(W, dtype=torch.int64, device=dev))
        self._write(state)
        return self._hand_out(state)

    def step(self, state, action=None):
        import torch
        from . import gymtorch
        self._check(state, "step")
        if not self._is_current(state):
            self._write(state)
        if action is not None:
            a = torch.as_tensor(action, dtype=torch.float32, device=self._root.device)
            if tuple(a.shape) != (self.batch_size, self.num_dofs):
                raise GymlikeValueError(f"step: action (DOF position targets) must have shape "
                                        f"({self.batch_size}, {self.num_dofs}), got {tuple(a.shape)}")
            self._targets.copy_(a.reshape(-1))
            self.gym.set_dof_position_target_tensor(self.sim, gymtorch.unwrap_tensor(self._targets))
        self.gym.simulate(self.sim)
        out = self._read(state["time"] + self.world_timestep, state["steps"] + 1)
        reward = (self.reward_fn(out, action) if self.reward_fn is not None
                  else torch.zeros(self.batch_size, dtype=torch.float32, device=self._root.device))
        return self._hand_out(out), reward

    def reset(self, state, seed=None, mask=None):
        import torch
        self._check(state, "reset")
        m = self._mask(mask)
        m2 = m[:, None]
        out = dict(root_state=torch.where(m[:, None, None], self._root0, state["root_state"]),
                   dof_pos=torch.where(m2, self._dof0[..., 0] + self._noise(seed), state["dof_pos"]),
                   dof_vel=torch.where(m2, self._dof0[..., 1], state["dof_vel"]),
                   time=torch.where(m, torch.zeros_like(state["time"]), state["time"]),
                   steps=torch.where(m, torch.zeros_like(state["steps"]), state["steps"]))
        # the sim already holds the unmasked worlds when `state` is current: write the masked only
        self._write(out, torch.nonzero(m).reshape(-1) if self._is_current(state) else None)
        out = self.after_reset(out, m)
        return self._hand_out(out)

    def reload(self):
        if self.scene is None:
            raise GymlikeNotImplementedError("SceneWorld.reload: this world was made from a gymlike sim, which has "
                                             "no document to reload; make it from a scene")
        old = self.scene
        self.scene = old.reload()
        old.close()          # the world replaces its scene: the old sim is freed
        self._attach(self.scene.gym, self.scene.sim)
        self.after_reload()

    def close(self):
        if self.scene is not None:
            self.scene.close()
        self._last = None

    def __repr__(self):
        return (f"<SceneWorld: {self.batch_size} worlds x {self.num_actors} actors, {self.num_dofs} DOFs, "
                f"dt {self.world_timestep:g} s, {self.device}>")
