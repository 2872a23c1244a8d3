"""The Python half of ember.Tensor: what PyTorch scripts do with a tensor that is plain Python
protocol or argument handling rather than an op: f"{loss:.4f}" (__format__); __repr__ and __str__
with PyTorch's printout (_tensor_str.py; a Python function also lets pprint look it up: pybind11's
own method objects are unhashable, and pprint keys a dict by the type's __repr__); PyTorch's
keywords that change nothing here (to(non_blocking=): host-to-device copies are already
asynchronous once staged); add_/sub_ with alpha; clamp with tensor bounds; new_tensor, new_empty
(on the tensor's device), type_as, mT, and cuda()."""
from __future__ import annotations

from typing import Any

from . import _C, _tensor_str, _zero_grad
from ._C import Tensor


def _repr(self: Tensor) -> str:
    # PyTorch's printout, formatted in Python (_tensor_str.py); str(t) and print(t) give the same.
    return _tensor_str.tensor_repr(self)


def _format(self: Tensor, format_spec: str) -> str:
    # As PyTorch: a one-element 0-d tensor formats as its number; anything else only with an
    # empty spec (str(t)).
    if self.dim() == 0:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


Tensor.__repr__ = _repr
Tensor.__str__ = _repr
Tensor.__format__ = _format

_c_to = Tensor.to
_c_add_ = Tensor.add_
_c_sub_ = Tensor.sub_
_c_clamp = Tensor.clamp


def _to(self: Tensor, *args: Any, non_blocking: bool = False, copy: bool = False, memory_format: Any = None,
        **kwargs: Any) -> Tensor:
    # NB: non_blocking: a host-to-device copy returns once staged anyway; memory_format: Ember
    # tensors are strided.
    if isinstance(kwargs.get("device"), str):
        kwargs["device"] = _C.device(kwargs["device"])
    out = _c_to(self, *args, **kwargs)
    return out.clone() if copy and out._is_same(self) else out


def _add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1:
        return _c_add_(self, other)
    if isinstance(alpha, Tensor):  # NB: a 0-d tensor alpha, as PyTorch's Scalar conversion takes it (L-BFGS passes one)
        alpha = alpha.item()
    return _c_add_(self, other, alpha=alpha) if isinstance(other, Tensor) else _c_add_(self, other * alpha)


def _sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1:
        return _c_sub_(self, other)
    if isinstance(alpha, Tensor):  # NB: a 0-d tensor alpha, as PyTorch's Scalar conversion takes it (L-BFGS passes one)
        alpha = alpha.item()
    return _c_sub_(self, other, alpha=alpha) if isinstance(other, Tensor) else _c_sub_(self, other * alpha)


_c_clamp_fn = _C.clamp
_TENSOR_BOUNDS = "\n\nmin and max may also be tensors (broadcast; NaN propagates, as in PyTorch)."


def _doc_body(doc: str | None) -> str:
    # NB: pybind11 opens a docstring with the signature line; the wrapper has its own signature.
    doc = doc or ""
    head, sep, rest = doc.partition("\n\n")
    return rest.strip() if sep and "(" in head and "->" in head else doc.strip()


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A001,A002 (PyTorch's names)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return _c_clamp_fn(input, min, max)
    # NB: a number beside a tensor bound becomes a 0-d tensor of input's dtype (PyTorch refuses the mix).
    def bound(b: Any) -> Any:
        return b if b is None or isinstance(b, Tensor) else _C.scalar_tensor(b, dtype=input.dtype, device=input.device)
    return _c_clamp_fn(input, bound(min), bound(max))


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    from . import tensor
    out = tensor(data, dtype=dtype or self.dtype)
    out = _c_to(out, device if device is not None else self.device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return _C.empty(*shape, dtype=dtype or self.dtype, device=device if device is not None else self.device,
                    requires_grad=requires_grad)


def cuda_device(device: Any = None) -> Any:
    """The ember.device that Tensor.cuda(device) and Module.cuda(device) move to: "cuda" (cuda:0)
    for None, cuda:N for an int N, else the CUDA device named."""
    if device is None:
        return _C.device("cuda")
    if isinstance(device, int):
        return _C.device(f"cuda:{device}")
    d = device if isinstance(device, _C.device) else _C.device(str(device))
    if d.type != "cuda":
        raise RuntimeError(f"Invalid device, must be cuda device, got {d}")
    return d


def _cuda(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    # Without a GPU (or without the backend), the copy raises "no CUDA device: ...".
    return _c_to(self, cuda_device(device))


_c_div_fn = _C.div


def div(input: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:  # noqa: A002
    if rounding_mode is None:
        return _c_div_fn(input, other)
    if rounding_mode == "floor":
        return _C.floor_divide(input, other)
    if rounding_mode != "trunc":
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    floor = _C.floor_divide(input, other)
    if floor.is_floating_point():
        # NB: the derivative is zero, as PyTorch's: NaN and inf in the operands do not reach it
        detached = [a.detach() if isinstance(a, Tensor) else a for a in (input, other)]
        return _zero_grad.with_zero_grad(_c_div_fn(*detached).trunc(), input, other)
    # Integers: floor rounded a negative inexact quotient down; trunc takes it one up.
    other_t = other if isinstance(other, Tensor) else input.new_tensor(other)
    up = _C.ne(_C.remainder(input, other_t), 0) & _C.ne(_C.lt(input, 0), _C.lt(other_t, 0))
    return floor + up.to(floor.dtype)


def _div_method(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return div(self, other, rounding_mode=rounding_mode)


_ROUNDING_MODES = ('\n\nrounding_mode "floor" is floor_divide (Python\'s //), "trunc" rounds toward zero; '
                   "both keep integer inputs integer and record no gradient (it would be zero).")
div.__doc__ = _doc_body(_c_div_fn.__doc__) + _ROUNDING_MODES
_div_method.__doc__ = _doc_body(Tensor.div.__doc__) + _ROUNDING_MODES


def _floordiv(self: Tensor, other: Any) -> Tensor:
    return _C.floor_divide(self, other)


def _rfloordiv(self: Tensor, other: Any) -> Tensor:
    return _C.floor_divide(other, self)


def _ifloordiv(self: Tensor, other: Any) -> Tensor:
    return self.copy_(_C.floor_divide(self, other))


Tensor.to = _to
Tensor.add_ = _add_
Tensor.sub_ = _sub_
clamp.__doc__ = _doc_body(_c_clamp_fn.__doc__) + _TENSOR_BOUNDS


def _clamp_method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return clamp(self, min, max)


_clamp_method.__doc__ = _doc_body(_c_clamp.__doc__) + _TENSOR_BOUNDS
Tensor.clamp = _clamp_method
Tensor.clip = _clamp_method
Tensor.new_tensor = _new_tensor
Tensor.new_empty = _new_empty
Tensor.type_as = lambda self, other: self.to(other.dtype)
Tensor.mT = property(lambda self: self.transpose(-2, -1))
# torch's complex parts are properties: views of the complex tensor (t.real of a real t is t).
Tensor.real = property(lambda self: _C.real(self))
Tensor.imag = property(lambda self: _C.imag(self))
Tensor.cuda = _cuda
Tensor.div = Tensor.divide = _div_method
Tensor.__floordiv__ = _floordiv
Tensor.__rfloordiv__ = _rfloordiv
Tensor.__ifloordiv__ = _ifloordiv



# ---- pickling and deepcopy: DataLoader worker processes send tensors back pickled, and
# copy.deepcopy(model) copies its parameters. A tensor pickles as its values (a NumPy array,
# whose protocol-5 pickling avoids a copy), its class (nn.Parameter or a subclass), requires_grad
# and its Python attributes; bfloat16 travels as float32, which holds every bfloat16 exactly. Like
# PyTorch, neither the gradient nor the graph is pickled.
def _reduce_ex(self: Tensor, protocol: int) -> tuple:
    t = self.detach()
    bfloat16 = t.dtype == _C.bfloat16
    if bfloat16:
        t = t.float()
    state = {k: v for k, v in self.__dict__.items() if k != "_ember_names"} or None  # NB: names of modules here
    return (_rebuild_tensor, (type(self), t.numpy(force=True), bfloat16, self.requires_grad, state))


def _rebuild_tensor(cls: type, array: Any, bfloat16: bool, requires_grad: bool, state: dict | None) -> Tensor:
    import numpy as np

    if not array.flags.writeable:  # NB: from_numpy shares memory, and a tensor may be written
        array = np.array(array)
    t = _C.from_numpy(array)
    if bfloat16:
        t = t.to(_C.bfloat16)
    if cls is not Tensor:
        obj = cls.__new__(cls)
        Tensor.__init__(obj, t)  # NB: not cls.__init__, which may take other arguments
        t = obj
    if requires_grad:
        t.requires_grad_(True)
    if state:
        t.__dict__.update(state)
    return t


def _deepcopy(self: Tensor, memo: dict) -> Tensor:
    import copy

    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment")
    if id(self) in memo:
        return memo[id(self)]
    values = self.detach().clone()
    if type(self) is Tensor:
        new = values
    else:
        new = type(self).__new__(type(self))
        Tensor.__init__(new, values)
    memo[id(self)] = new
    if self.requires_grad:
        new.requires_grad_(True)
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    attributes = {k: v for k, v in self.__dict__.items() if k != "_ember_names"}  # NB: of modules here
    if attributes:
        new.__dict__.update(copy.deepcopy(attributes, memo))
    return new


Tensor.__reduce_ex__ = _reduce_ex
Tensor.__deepcopy__ = _deepcopy
