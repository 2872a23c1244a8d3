"""The default generator's state as PyTorch scripts handle it (torch.get_rng_state and friends).

    state = ember.get_rng_state()    # a uint8 tensor: save it in a checkpoint
    ...
    ember.set_rng_state(state)       # the same random numbers again

The 16 bytes are the Philox generator's seed and counter (little-endian uint64 each), the same
state ember.default_generator().get_state() gives as a tuple.
"""
from __future__ import annotations

import os

from . import _C

__all__ = ["get_rng_state", "set_rng_state", "initial_seed", "seed"]

_STATE_BYTES = 16


def get_rng_state() -> _C.Tensor:
    """The default generator's state, a uint8 tensor of 16 bytes."""
    import numpy as np

    seed_, counter = _C.default_generator().get_state()
    raw = seed_.to_bytes(8, "little") + counter.to_bytes(8, "little")
    return _C.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())


def set_rng_state(new_state: _C.Tensor) -> None:
    """Restores a state get_rng_state() returned."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"set_rng_state: expected a uint8 Tensor, got {type(new_state).__name__}")
    if new_state.dtype != _C.uint8 or new_state.numel() != _STATE_BYTES:
        raise ValueError(f"set_rng_state: expected a uint8 tensor of {_STATE_BYTES} elements (what "
                         f"get_rng_state returns), got {new_state.dtype} of shape {list(new_state.shape)}")
    raw = bytes(new_state.contiguous().numpy().tobytes())
    _C.default_generator().set_state((int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")))


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return _C.default_generator().initial_seed()


def seed() -> int:
    """Seeds the default generator from the OS's entropy; returns the seed."""
    s = int.from_bytes(os.urandom(8), "little") >> 1  # NB: 63 bits, as PyTorch's seed()
    _C.manual_seed(s)
    return s
