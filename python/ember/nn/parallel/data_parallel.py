"""torch.nn.parallel.data_parallel: DataParallel and data_parallel, what torch's are on a machine
without GPUs."""
from __future__ import annotations

from typing import Any, Sequence

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0): with no GPUs,
    calls module(*inputs, **kwargs) on this device."""

    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        # NB: as PyTorch's without GPUs: device_ids and output_device are ignored.
        self.module = module
        self.device_ids: list = []
        self.output_device = None
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                  dim: int = 0, module_kwargs: Any = None) -> Any:
    """torch.nn.parallel.data_parallel: module(*inputs) on this device."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))

