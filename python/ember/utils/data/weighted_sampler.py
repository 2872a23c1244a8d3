"""WeightedRandomSampler: indices drawn with probabilities proportional to given weights, the usual
answer to an imbalanced data set (weight each sample by 1 / its class's frequency)."""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from ... import _C
from .sampler import Sampler, _Seeded


class WeightedRandomSampler(_Seeded, Sampler):
    """WeightedRandomSampler(weights, num_samples, replacement=True, generator=None): num_samples
    indices in [0, len(weights)), index i drawn with probability weights[i] / sum(weights)
    (torch.multinomial's rule; without replacement each index at most once). As Ember's other
    random samplers, an epoch's draws come from a seed taken from `generator` (or the default
    generator) when it starts, so state_dict() resumes an epoch exactly."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: _C.Generator | None = None) -> None:
        # NB: the checks and their messages are PyTorch's, bool rejected as an int as there.
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = _as_float64(weights)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights, self.num_samples = weights_tensor, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        draws = _C.multinomial(self.weights, self.num_samples, self.replacement, generator=self._epoch_generator())
        return iter(draws.tolist())

    def __len__(self) -> int:
        return self.num_samples


def _as_float64(weights: Any) -> _C.Tensor:
    if isinstance(weights, _C.Tensor):
        return weights.detach().to(_C.float64)
    import numpy as np
    return _C.from_numpy(np.array(weights, dtype=np.float64))
