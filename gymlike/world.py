"""A functional world: the whole batch of worlds as a value (a dict of torch tensors, world
batch first) passed in and returned, for JAX/torch-style RL code.

`FuncWorld` is the interface; `SceneWorld` implements it over a loaded scene (gymlike.scene) or
any gymlike sim, on the same model and tensors as the gymapi view of it: `step(state)` writes
the given state into the sim, applies the actions as DOF position targets, simulates one
control step and returns the new state. Nothing is kept between calls but the sim itself, so a
state can be stepped twice, or a saved one restored, and the results are bitwise equal.

State keys: "root" (worlds, actors, 13), "dof" (worlds, dofs, 2), "time" (worlds,), all float32
on the sim's device ("dof" positions/velocities in Isaac Gym's DOF order, roots in each env's
frame as the tensor API).
"""

from __future__ import annotations

import abc

from .core.errors import GymlikeTypeError, GymlikeValueError


class FuncWorld(abc.ABC):
    """A batch of `batch_size` worlds stepped as a function of its state."""

    batch_size: int
    world_timestep: float        # seconds per step
    world_subtimestep: float     # seconds per solver substep
    device: str

    @abc.abstractmethod
    def initial(self, seed=None):
        """The state every world starts from."""

    @abc.abstractmethod
    def step(self, state, action=None):
        """-> (next state, reward per world)."""

    @abc.abstractmethod
    def reset(self, state, seed=None, mask=None):
        """The state with the worlds where `mask` is true back at the initial state (all
        worlds when mask is None); the others unchanged."""

    def reload(self):
        """Rebuild the worlds from their description (after it changed)."""
        self.after_reload()

    def after_reload(self):
        """Hook: called after reload."""

    def after_reset(self, state, mask):
        """Hook: called by reset with the new state and the mask; returns the state."""
        return state

    def close(self):
        """Release the worlds."""

    def is_control_timestep_compatible(self, dt):
        """Whether a controller running every `dt` seconds sees whole world steps."""
        k = dt / self.world_timestep
        return dt > 0 and abs(k - round(k)) < 1e-6 and round(k) >= 1


class SceneWorld(FuncWorld):
    """FuncWorld over a gymlike.scene.Scene (or a prepared gymlike sim with `gym`).

    reward: None (zeros), or a function (state, action) -> (worlds,) tensor.
    reset_noise: with a seed, reset adds uniform noise in [-reset_noise, reset_noise] to the
    DOF positions of the reset worlds (drawn from a generator seeded with `seed`: the same seed
    gives bitwise the same state)."""

    def __init__(self, scene, reward=None, reset_noise=0.0):
        self.scene = scene
        self.reward_fn = reward
        self.reset_noise = float(reset_noise)
        self._bind()

    def _bind(self):
        s = self.scene
        self.gym, self.sim = s.gym, s.sim
        self.batch_size = s.num_worlds
        self.world_timestep = float(s.dt)
        self.world_subtimestep = float(s.dt) / max(1, int(s.substeps))
        self.device = str(s.device)
        t = s.tensors()
        self._root, self._dof = t["root"], t["dof"]
        self._initial = dict(root=self._root.clone(), dof=self._dof.clone())
        self._targets = None

    # ------------------------------------------------------------------ FuncWorld
    def initial(self, seed=None):
        import torch
        state = dict(root=self._initial["root"].clone(), dof=self._initial["dof"].clone(),
                     time=torch.zeros(self.batch_size, dtype=torch.float32, device=self._root.device))
        if seed is not None and self.reset_noise > 0:
            state = self._perturb(state, torch.ones(self.batch_size, dtype=torch.bool, device=self._root.device), seed)
        return state

    def step(self, state, action=None):
        import torch
        from . import gymtorch
        self._check(state)
        self._root.copy_(state["root"])
        self._dof.copy_(state["dof"])
        g, s = self.gym, self.sim
        g.set_actor_root_state_tensor(s, gymtorch.unwrap_tensor(self._root))
        g.set_dof_state_tensor(s, gymtorch.unwrap_tensor(self._dof))
        if action is not None:
            a = torch.as_tensor(action, dtype=torch.float32, device=self._dof.device)
            if a.shape != self._dof.shape[:2]:
                raise GymlikeValueError(f"SceneWorld.step: action must have shape {tuple(self._dof.shape[:2])} "
                                        f"(worlds, dofs), got {tuple(a.shape)}")
            self._targets = a.contiguous().view(-1)
            g.set_dof_position_target_tensor(s, gymtorch.unwrap_tensor(self._targets))
        g.simulate(s)
        self.scene.refresh()
        new = dict(root=self._root.clone(), dof=self._dof.clone(), time=state["time"] + self.world_timestep)
        reward = self.reward_fn(new, action) if self.reward_fn is not None else \
            torch.zeros(self.batch_size, dtype=torch.float32, device=self._root.device)
        return new, reward

    def reset(self, state, seed=None, mask=None):
        import torch
        self._check(state)
        dev = self._root.device
        mask = torch.ones(self.batch_size, dtype=torch.bool, device=dev) if mask is None else \
            torch.as_tensor(mask, dtype=torch.bool, device=dev)
        if mask.shape != (self.batch_size,):
            raise GymlikeValueError(f"SceneWorld.reset: mask must have shape ({self.batch_size},), got {tuple(mask.shape)}")
        out = {k: v.clone() for k, v in state.items()}
        m3 = mask.view(-1, 1, 1)
        out["root"] = torch.where(m3, self._initial["root"], state["root"])
        out["dof"] = torch.where(m3, self._initial["dof"], state["dof"])
        out["time"] = torch.where(mask, torch.zeros_like(state["time"]), state["time"])
        if seed is not None and self.reset_noise > 0:
            out = self._perturb(out, mask, seed)
        return self.after_reset(out, mask)

    def reload(self):
        """Load the scene's document again into a new sim (the old one is destroyed)."""
        from .scene import load_scene
        doc, n = self.scene.document, self.scene.num_worlds
        self.scene.close()
        self.scene = load_scene(doc, num_worlds=n)
        self._bind()
        self.after_reload()

    def close(self):
        self.scene.close()

    # ------------------------------------------------------------------ helpers
    def _perturb(self, state, mask, seed):
        import torch
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        noise = (torch.rand(state["dof"].shape[:2], generator=gen) * 2 - 1) * self.reset_noise
        noise = noise.to(state["dof"].device) * mask.view(-1, 1)
        state["dof"][..., 0] += noise
        return state

    def _check(self, state):
        if not isinstance(state, dict) or not {"root", "dof", "time"} <= set(state):
            raise GymlikeTypeError("SceneWorld: a state is the dict with 'root', 'dof' and 'time' that "
                                   "initial/step/reset return")
        for k, ref in (("root", self._root), ("dof", self._dof)):
            if tuple(state[k].shape) != tuple(ref.shape):
                raise GymlikeValueError(f"SceneWorld: state['{k}'] must have shape {tuple(ref.shape)}, "
                                        f"got {tuple(state[k].shape)}")
