"""nn.ParameterList and nn.ParameterDict (torch.nn's): modules that hold registered parameters
under the names "0", "1", ... or under their keys, so state_dict() keys are PyTorch's
("taps.0", "scales.name"). A plain tensor put in is made an nn.Parameter, as in PyTorch. Ember
modules cannot unregister an entry, so deleting one raises.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from .._C import Tensor
from .modules.module import Module
from .parameter import Parameter


def _as_parameter(value: Any) -> Any:
    return value if isinstance(value, Parameter) or not isinstance(value, Tensor) else Parameter(value)


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        size = "x".join(str(s) for s in value.shape)
        kind = "Parameter containing" if isinstance(value, Parameter) else "Tensor"
        return f"{kind}: [ember.{str(value.dtype).split('.')[-1]} of size {size}]"
    return repr(value)


class ParameterList(Module):
    """torch.nn.ParameterList(values=None): parameters indexed 0, 1, ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _key(self, index: int) -> str:
        if not isinstance(index, int):
            raise TypeError(f"ParameterList indices must be integers or slices, not {type(index).__name__}")
        n = self._size
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range for ParameterList of length {n}")
        return str(index % n)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(self._size)[index]])
        return getattr(self, self._key(index))

    def __setitem__(self, index: int, value: Any) -> None:
        setattr(self, self._key(index), _as_parameter(value))

    def __delitem__(self, index: Any) -> None:
        raise TypeError("ParameterList: Ember modules cannot unregister a parameter")

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def __iadd__(self, values: Iterable[Any]) -> "ParameterList":
        return self.extend(values)

    def append(self, value: Any) -> "ParameterList":
        """Adds value (a tensor is made a Parameter) under the next index."""
        key = str(self._size)
        object.__setattr__(self, "_size", self._size + 1)
        setattr(self, key, _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        if isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got Tensor")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"({i}): {_describe(p)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """torch.nn.ParameterDict(parameters=None): parameters by key, in insertion order."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", [])
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        value = _as_parameter(value)
        setattr(self, key, value)
        if key not in self._keys:
            self._keys.append(key)

    def __delitem__(self, key: str) -> None:
        raise TypeError("ParameterDict: Ember modules cannot unregister a parameter")

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def keys(self) -> list[str]:
        return list(self._keys)

    def values(self) -> list[Any]:
        return [self[k] for k in self._keys]

    def items(self) -> list[tuple[str, Any]]:
        return [(k, self[k]) for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._keys else default

    def update(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for item in items:
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise TypeError("ParameterDict.update: expected a mapping or (key, value) pairs")
            self[item[0]] = item[1]

    def extra_repr(self) -> str:
        return "\n".join(f"({k}): {_describe(v)}" for k, v in self.items())
