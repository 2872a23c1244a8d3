"""`Distribution`, the base of every distribution: shapes, argument validation, and the methods a
subclass fills in (PyTorch's torch.distributions.Distribution).

Shapes: a sample has shape sample_shape + batch_shape + event_shape; log_prob reduces the event
dims, so it has sample_shape + batch_shape. Shapes are tuples (Ember has no Size type)."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import ember

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    # NB: torch validates by default (under `python`, not `python -O`); so does Ember.
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns argument validation on or off for distributions built afterwards without an
        explicit validate_args."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: expected True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape: Tuple[int, ...] = (), event_shape: Tuple[int, ...] = (),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # a constraint that depends on other parameters cannot be checked here
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # probs given as logits: checking would build them
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}")

    # ---- shapes
    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return self._batch_shape

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> Tuple[int, ...]:
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        raise NotImplementedError(f"{type(self).__name__}.expand is not implemented")

    def _get_checked_instance(self, cls: Any, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    # ---- what a subclass defines
    @property
    def arg_constraints(self) -> Dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> ember.Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> ember.Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> ember.Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> ember.Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        """A sample (no gradient) of shape sample_shape + batch_shape + event_shape."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        """A reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError(f"{type(self).__name__}.rsample is not implemented")

    def sample_n(self, n: int) -> ember.Tensor:
        return self.sample((n,))

    def log_prob(self, value: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError(f"{type(self).__name__}.log_prob is not implemented")

    def cdf(self, value: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError(f"{type(self).__name__}.cdf is not implemented")

    def icdf(self, value: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError(f"{type(self).__name__}.icdf is not implemented")

    def enumerate_support(self, expand: bool = True) -> ember.Tensor:
        raise NotImplementedError(f"{type(self).__name__}.enumerate_support is not implemented")

    def entropy(self) -> ember.Tensor:
        raise NotImplementedError(f"{type(self).__name__}.entropy is not implemented")

    def perplexity(self) -> ember.Tensor:
        return ember.exp(self.entropy())

    # ---- validation of values passed to log_prob, cdf, icdf
    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{self._event_shape}.")
        actual_shape = tuple(value.shape)
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            return
        if support is None:
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within "
                f"the support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else tuple(self.__dict__[p].shape)}"
                         for p in names)
        return self.__class__.__name__ + "(" + args + ")"
