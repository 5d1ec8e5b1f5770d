"""Isaac Gym's `gymapi.Tensor`, the handle the tensor API passes around, and the check that
turns one back into its torch tensor (the buffers and refreshes are core/tensors.py's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .enums import TensorDataType
from .errors import GymlikeTypeError, GymlikeValueError

if TYPE_CHECKING:
    import torch


class GymTensor:
    """Isaac Gym's `gymapi.Tensor`: a handle to device memory (here: a torch tensor view).
    `gymapi.Tensor()` makes an empty one, as in Isaac Gym: it describes no memory, and a call
    given one says so (`torch_of`)."""

    __slots__ = ("_torch", "_wp", "own_data", "__weakref__")

    def __init__(self, torch_tensor=None, warp_array=None, own_data=False):
        self._torch = torch_tensor
        self._wp = warp_array
        self.own_data = own_data

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's shape (() for an empty gymapi.Tensor)."""
        return () if self._torch is None else tuple(self._torch.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions (0 for an empty gymapi.Tensor)."""
        return 0 if self._torch is None else self._torch.dim()

    @property
    def device(self) -> int:
        """CUDA device index, -1 on the CPU."""
        d = self._torch.device if self._torch is not None else None
        return -1 if d is None or d.type == "cpu" else d.index or 0

    @property
    def dtype(self) -> TensorDataType:
        """The element type as a gymapi.TensorDataType (DTYPE_FLOAT32 for an empty tensor)."""
        import torch
        return {torch.float32: TensorDataType.DTYPE_FLOAT32, torch.int16: TensorDataType.DTYPE_INT16,
                torch.uint8: TensorDataType.DTYPE_UINT8, torch.int32: TensorDataType.DTYPE_UINT32,
                torch.int64: TensorDataType.DTYPE_UINT64}.get(getattr(self._torch, "dtype", None),
                                                             TensorDataType.DTYPE_FLOAT32)

    @property
    def data_ptr(self) -> int:
        """Address of the first element (0 for an empty gymapi.Tensor)."""
        return 0 if self._torch is None else self._torch.data_ptr()

    @property
    def data_address(self) -> int:
        """Same as data_ptr (Isaac Gym's other name)."""
        return self.data_ptr

    def __repr__(self):
        if self._torch is None:
            return "<gymapi.Tensor (empty)>"
        return f"<gymapi.Tensor shape={self.shape} dtype={self._torch.dtype} device={self._torch.device}>"


def torch_of(tensor: GymTensor, what: str, arg: str) -> torch.Tensor:
    """The torch tensor behind a gymapi.Tensor argument named `arg` of call `what`."""
    if not isinstance(tensor, GymTensor):
        raise GymlikeTypeError(f"{what}: {arg} must be a gymapi.Tensor (use gymtorch.unwrap_tensor), "
                               f"got {type(tensor).__name__}")
    if tensor._torch is None:
        raise GymlikeValueError(f"{what}: {arg} is an empty gymapi.Tensor (gymapi.Tensor() describes no memory); "
                                "pass one from an acquire_*_tensor call or gymtorch.unwrap_tensor")
    return tensor._torch
