"""Isaac Gym's `gymtorch`: zero-copy conversion between gymapi.Tensor and torch tensors."""

from .core.errors import GymlikeTypeError, GymlikeValueError
from .core.gym_tensor import GymTensor, torch_of
from .core.types import number


def wrap_tensor(gym_tensor, offsets=None, counts=None):
    """A torch tensor sharing the memory of a gymapi.Tensor (same data pointer, same device).
    `offsets`/`counts` (one per dimension) select a sub-block, as in Isaac Gym."""
    t = torch_of(gym_tensor, "wrap_tensor", "gym_tensor")
    t = t.view(t.shape)
    if offsets is None and counts is None:
        return t
    shape = tuple(t.shape)
    offsets = _ints(offsets, "offsets") if offsets is not None else (0,) * len(shape)
    counts = _ints(counts, "counts") if counts is not None else tuple(s - o for s, o in zip(shape, offsets))
    if len(offsets) != len(shape) or len(counts) != len(shape):
        raise GymlikeValueError(f"wrap_tensor: offsets and counts need one entry per dimension of {shape}, "
                                f"got {offsets} and {counts}")
    for dim, (o, c, s) in enumerate(zip(offsets, counts, shape)):
        if o < 0 or c < 0 or o + c > s:
            raise GymlikeValueError(f"wrap_tensor: offset {o} + count {c} exceeds size {s} of dimension {dim}")
        t = t.narrow(dim, o, c)
    return t


def _ints(values, name):
    """wrap_tensor's offsets/counts: a sequence of ints, one per dimension."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise GymlikeTypeError(f"wrap_tensor: {name} must be a sequence of ints (one per dimension), "
                               f"got {type(values).__name__} {values!r}")
    return tuple(number(v, f"wrap_tensor: {name}[{i}]", integer=True) for i, v in enumerate(values))


def unwrap_tensor(torch_tensor):
    """A gymapi.Tensor over a torch tensor's memory (no copy)."""
    import torch
    if not isinstance(torch_tensor, torch.Tensor):
        raise GymlikeTypeError(f"unwrap_tensor: expected a torch.Tensor, got {type(torch_tensor).__name__}")
    return GymTensor(torch_tensor)
