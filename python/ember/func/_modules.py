"""Modules under vmap. A module written in Python runs its forward on batched tensors like any
function. A C++ layer's forward takes tensors, so while a vmap runs, Module.__call__ asks here
first (python/src/batched_dispatch.cpp): a layer with batched inputs, or with batched parameters
that functional_call put in (an ensemble from stack_module_state), runs as its functional form
(Linear as F.linear of its input, weight and bias, ...), which the op rules batch; a layer without
one runs once per sample, its parameters sliced per sample."""
from __future__ import annotations

import ast
import inspect
import re
import types
from typing import Any, Callable, Dict, Tuple

from .. import _C
from ._batched import BatchedTensor
from ._batching import batch_size, loop, max_level, rebuild, sample, stack_samples, unwrap, warn_fallback, wrap



class _Functional:
    """ember.nn.functional, imported on first use (it imports the package this module is part of)."""

    def __getattr__(self, name: str) -> Any:
        from ..nn import functional
        return getattr(functional, name)


F = _Functional()

# The batched parameters and buffers functional_call put in, by owner module: {id: (module, {name: value})}.
_substituted: Dict[int, Tuple[Any, Dict[str, Any]]] = {}


def substitute(owner: Any, name: str, value: BatchedTensor) -> None:
    _substituted.setdefault(id(owner), (owner, {}))[1][name] = value
    if _defined_in_python(type(owner)) and hasattr(owner, "__dict__"):
        owner.__dict__[name] = value  # NB: found before Module.__getattr__'s parameter, by a Python forward


def restore(owner: Any, name: str) -> None:
    entry = _substituted.get(id(owner))
    if entry is None:
        return
    entry[1].pop(name, None)
    if not entry[1]:
        del _substituted[id(owner)]
    if hasattr(owner, "__dict__"):
        owner.__dict__.pop(name, None)


def param(module: Any, name: str) -> Any:
    """A module's parameter or buffer as its forward should see it: the substituted one, if any."""
    entry = _substituted.get(id(module))
    if entry is not None and name in entry[1]:
        return entry[1][name]
    return getattr(module, name)


_python_forward: Dict[type, bool] = {}


def _defined_in_python(cls: type) -> bool:
    known = _python_forward.get(cls)
    if known is None:
        known = isinstance(inspect.getattr_static(cls, "forward", None), types.FunctionType)
        _python_forward[cls] = known
    return known


def _cpp_class(module: Any) -> str:
    for cls in type(module).__mro__:
        if cls.__module__.startswith("ember._C"):
            return cls.__name__
    return type(module).__name__


def _conv(n: int) -> Callable:
    def form(m: Any, x: Any) -> Any:
        if m.padding_mode != "zeros":
            return None
        return getattr(F, f"conv{n}d")(x, param(m, "weight"), param(m, "bias"), m.stride, m.padding, m.dilation,
                                       m.groups)
    return form


def _conv_transpose(n: int) -> Callable:
    def form(m: Any, x: Any) -> Any:
        if m.padding_mode != "zeros":
            return None
        return getattr(F, f"conv_transpose{n}d")(x, param(m, "weight"), param(m, "bias"), m.stride, m.padding,
                                                 m.output_padding, m.groups, m.dilation)
    return form


def _sequential(m: Any, x: Any) -> Any:
    for child in m.children():
        x = child(x)
    return x


def _batch_norm(m: Any, x: Any) -> Any:
    stats = m.track_running_stats and not m.training
    training = m.training or not m.track_running_stats
    return F.batch_norm(x, param(m, "running_mean") if stats else None, param(m, "running_var") if stats else None,
                        param(m, "weight") if m.affine else None, param(m, "bias") if m.affine else None,
                        training, 0.0, m.eps)


def _setting(m: Any, name: str, default: Any) -> Any:
    """A C++ layer's setting as its repr shows it ("Flatten(start_dim=1, end_dim=-1)"), where Python has
    no attribute for it."""
    match = re.search(rf"\b{name}=([^,)]+)", repr(m))
    return default if match is None else ast.literal_eval(match.group(1))


def _own(m: Any, name: str) -> bool:
    return name in dict(m.named_parameters(recurse=False))


def _layer_norm(m: Any, x: Any) -> Any:
    weight = param(m, "weight") if _own(m, "weight") else None
    bias = param(m, "bias") if _own(m, "bias") else None
    return F.layer_norm(x, tuple(m.normalized_shape), weight, bias, m.eps)


# The functional form of each C++ layer: what its forward computes, from param(), so that batched
# parameters work; None where the layer's settings need its own forward (then it runs per sample).
FORMS: Dict[str, Callable] = {
    "Linear": lambda m, x: F.linear(x, param(m, "weight"), param(m, "bias")),
    "Conv1d": _conv(1), "Conv2d": _conv(2), "Conv3d": _conv(3),
    "ConvTranspose1d": _conv_transpose(1), "ConvTranspose2d": _conv_transpose(2),
    "ConvTranspose3d": _conv_transpose(3),
    "Sequential": _sequential,
    "Flatten": lambda m, x: x.flatten(_setting(m, "start_dim", 1), _setting(m, "end_dim", -1)),
    "Unflatten": lambda m, x: x.unflatten(_setting(m, "dim", 1), _setting(m, "unflattened_size", None)),
    "Softmax": lambda m, x: _C.softmax(x, m.dim), "LogSoftmax": lambda m, x: _C.log_softmax(x, m.dim),
    "Dropout": lambda m, x: F.dropout(x, m.p, m.training),
    "LayerNorm": _layer_norm,
    "Embedding": lambda m, x: _C.embedding(param(m, "weight"), x, m.padding_idx),
    "BatchNorm1d": _batch_norm, "BatchNorm2d": _batch_norm, "BatchNorm3d": _batch_norm,
}
# Layers of no parameters that act on each element: their own forward takes the whole batch.
ELEMENTWISE = {"Identity", "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "ELU", "SELU", "CELU", "LeakyReLU",
               "Hardtanh", "Hardswish", "Hardsigmoid", "Mish", "Softplus", "Softsign", "Tanhshrink", "Softshrink",
               "Hardshrink", "Threshold", "LogSigmoid", "PReLU_none"}
# Layers of no parameters whose forward treats its input's dim 0 as independent items (N, or the
# channels of an input without N): the vmap batch is folded into it.
FOLDS = {"MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
         "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
         "LPPool1d", "LPPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
         "PixelUnshuffle", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
         "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ChannelShuffle", "LocalResponseNorm",
         "Fold", "Unfold"}


# Recurrent layers: their own forward on the whole batch, the vmap batch folded into N.
RECURRENT = {"LSTM", "GRU", "RNN"}
# Layers whose parameters (if any) are the same for every sample and whose forward treats dim 0 of
# a sample [N, C, *] as independent items, as the pools do: instance norm, transposed convolutions, prelu.
FOLDS_WITH_PARAMETERS = {"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "ConvTranspose1d", "ConvTranspose2d",
                         "ConvTranspose3d", "GroupNorm", "PReLU"}


def _recurrent(module: Any, level: int, x: Any) -> Any:
    """An RNN, LSTM or GRU over batched sequences (no initial state given): one call over every
    sample's sequences, N folded with the batch; the final states as the layer gives them."""
    v = unwrap(x, level)
    if v is None or x.dim() not in (2, 3):
        return None
    size, first = v.shape[0], bool(module.batch_first)
    if x.dim() == 2:  # one sequence [T, F]: the vmap batch is N
        out, state = module(v if first else v.transpose(0, 1))
        out = out if first else out.transpose(0, 1)
        moved = lambda h: h.movedim(1, 0)  # noqa: E731  [L, B, H] -> [B, L, H]
    else:
        n = v.shape[1] if first else v.shape[2]
        folded = v.reshape(size * n, *v.shape[2:]) if first else \
            v.movedim(0, 1).reshape(v.shape[1], size * n, v.shape[3])
        out, state = module(folded)
        out = out.reshape(size, n, *out.shape[1:]) if first else \
            out.reshape(out.shape[0], size, n, out.shape[2]).movedim(1, 0)
        moved = lambda h: h.reshape(h.shape[0], size, n, h.shape[2]).movedim(1, 0)  # noqa: E731
    state = tuple(wrap(moved(h), level) for h in state) if isinstance(state, tuple) else wrap(moved(state), level)
    return wrap(out, level), state


def _batched_input_call(module: Any, cls: str, level: int, x: Any) -> Any:
    """A layer's own forward on the whole batch (its parameters the same for every sample), or None
    where it does not apply."""
    if cls in RECURRENT:
        return _recurrent(module, level, x)
    v = unwrap(x, level)
    if v is None:
        return None
    if cls in FOLDS_WITH_PARAMETERS and x.dim() >= 2:
        size = v.shape[0]
        out = module(v.reshape(size * v.shape[1], *v.shape[2:]))
        return wrap(out.reshape(size, -1, *out.shape[1:]), level)
    if cls in ELEMENTWISE:
        return wrap(module(v), level)
    if cls in FOLDS and x.dim() >= 1:
        size = v.shape[0]
        out = module(v.reshape(size * v.shape[1], *v.shape[2:]))
        if isinstance(out, tuple):  # return_indices
            return rebuild(out, [wrap(o.reshape(size, -1, *o.shape[1:]), level) for o in out])
        return wrap(out.reshape(size, -1, *out.shape[1:]), level)
    return None


def _substitutions_under(module: Any) -> list:
    """(owner, name, batched value) for the batched parameters in the module and its submodules (a
    C++ container calls its children without Module.__call__, so theirs count too)."""
    found = []
    if _substituted:
        for sub in module.modules():
            entry = _substituted.get(id(sub))
            if entry:
                found += [(sub, name, value) for name, value in entry[1].items()]
    return found


def call_module(module: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """Module.__call__ while a vmap runs: the module's batched call, or Ellipsis for the usual one."""
    if _defined_in_python(type(module)):
        return ...  # its Python forward sees the batched tensors (and batched parameters, in its __dict__)
    swaps = _substitutions_under(module)
    level = max([max_level(args, kwargs)] + [value._level for _, _, value in swaps])
    if level == 0:
        return ...
    cls = _cpp_class(module)
    if len(args) == 1 and not kwargs and not swaps:
        out = _batched_input_call(module, cls, level, args[0])
        if out is not None:
            return out
    form = FORMS.get(cls)
    if form is not None and len(args) == 1 and not kwargs:
        try:
            out = form(module, args[0])
        except AttributeError:
            out = None  # a layer that lacks the settings the form reads: its own forward, per sample
        if out is not None:
            return out
    return _per_sample(module, level, swaps, args, kwargs)


def put(owner: Any, name: str, value: Any) -> None:
    """value in place of owner's parameter or buffer `name` (functional_call's swap)."""
    if name in dict(owner.named_parameters(recurse=False)):
        owner._replace_parameter(name, value)
    else:
        setattr(owner, name, value)


def _per_sample(module: Any, level: int, swaps: list, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """The module once per sample, each call with that sample's inputs and parameters."""
    if not swaps:
        return loop(_ModuleOp(module), level, args, kwargs)
    warn_fallback(type(module).__name__)
    outs = []
    for b in range(batch_size(level)):
        originals = []
        try:
            for owner, name, value in swaps:
                if value._level != level or not isinstance(value._value, _C.Tensor):
                    raise RuntimeError(f"vmap: {type(owner).__name__} has no batching rule and parameters batched by "
                                       "nested vmaps: call it from a vmap of one level")
                restore(owner, name)
                originals.append((owner, name, value, getattr(owner, name)))
                put(owner, name, value._value[b])
            outs.append(module(*sample(list(args), level, b), **sample(kwargs, level, b)))
        finally:
            for owner, name, value, original in reversed(originals):
                put(owner, name, original)
                substitute(owner, name, value)
    return stack_samples(outs, level, type(module).__name__)


class _ModuleOp:
    """A module as the loop fallback calls it."""

    def __init__(self, module: Any):
        self.name = type(module).__name__
        self.call = module


def _function_per_sample(cls: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """A custom autograd.Function called on batched tensors: its apply once per sample."""
    level = max_level(args, kwargs)
    return loop(_FunctionOp(cls), level, args, kwargs)


class _FunctionOp:
    def __init__(self, cls: Any):
        self.name = cls.__name__
        self.call = cls.apply


def _install_function_hook() -> None:
    from ..autograd import function
    function._batched_apply = _function_per_sample


_install_function_hook()
