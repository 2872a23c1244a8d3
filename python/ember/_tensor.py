"""The Python half of ember.Tensor: what PyTorch scripts do with a tensor that is plain Python
protocol or argument handling rather than an op: f"{loss:.4f}" (__format__); __repr__ and __str__
with PyTorch's printout (_tensor_str.py; a Python function also lets pprint look it up: pybind11's
own method objects are unhashable, and pprint keys a dict by the type's __repr__); PyTorch's
keywords that change nothing here (to(non_blocking=): host-to-device copies are already
asynchronous once staged); add_/sub_ with alpha; new_tensor, new_empty
(on the tensor's device), type_as, mT, and cuda()."""
from __future__ import annotations

from typing import Any

from . import _C, _tensor_str
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


Tensor.to = _to
Tensor.add_ = _add_
Tensor.sub_ = _sub_
Tensor.new_tensor = _new_tensor
Tensor.new_empty = _new_empty
Tensor.type_as = lambda self, other: self.to(other.dtype)
Tensor.mT = property(lambda self: self.transpose(-2, -1))
# torch's complex parts are properties: views of the complex tensor (t.real of a real t is t).
Tensor.real = property(lambda self: _C.real(self))
Tensor.imag = property(lambda self: _C.imag(self))
Tensor.cuda = _cuda



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
