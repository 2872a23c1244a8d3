"""How a tensor prints: repr(t), str(t) and print(t) give the text PyTorch prints for the same
values (with `ember.` where PyTorch writes `torch.`), and set_printoptions / get_printoptions
change it as PyTorch's do.

    tensor([[ 0.1235,  1.0000],
            [-3.0000,     nan]], dtype=ember.float64, requires_grad=True)

Why in Python and over NumPy: the layout rules (one width and notation per tensor, summaries,
wrapping, suffixes) are string work, and NumPy gives the values of any dtype, view or device once
copied to the host. Only the elements that are shown are ever turned into Python numbers, so a
tensor of a billion elements prints as fast as a small one.

The rules, as PyTorch applies them:
- Every element of a tensor shares one width and one notation, chosen from the elements shown
  (its real and imaginary parts each get their own). Floating point: all shown finite non-zero
  values whole -> `1.` form; else fixed with `precision` decimals; scientific when the largest
  magnitude is over 1e8 or more than 1000 times the smallest (or, for non-whole values, the
  smallest is under 1e-4). `sci_mode` overrides the choice unless no value is finite and non-zero.
- Past `threshold` elements, each dim shows its first and last `edgeitems` entries around `...`.
- A row wraps to stay within `linewidth`; nested dims are separated by blank lines, one per dim
  below the outermost, and indented under the opening bracket.
- Suffixes: device (not cpu), size (empty, or edgeitems == 0), dtype (not the default one,
  int64, bool or the default complex one; for an empty tensor: not the default dtype),
  grad_fn or requires_grad. A suffix that would pass `linewidth` starts a new line.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

from . import _C


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS = _PrintOptions()

# NB: "full" prints everything: its threshold is infinite (a float, as PyTorch reports it).
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """How tensors print from now on (torch.set_printoptions): `profile` ("default", "short",
    "full") sets the first four options, then each option given overrides it. sci_mode=None (also
    when left out) lets each tensor choose its notation; True or False forces it.
    ember.set_printoptions(precision=2); ember.set_printoptions(profile="default") restores."""
    # NB: as PyTorch: an unknown profile changes nothing, and sci_mode is always assigned.
    if profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(_OPTIONS, name, value)
    given = dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth)
    for name, value in given.items():
        if value is not None:
            setattr(_OPTIONS, name, value)
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict (torch._tensor_str.get_printoptions), which
    set_printoptions(**options) restores."""
    return dataclasses.asdict(_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """set_printoptions(**kwargs) inside a `with` block, the previous options after it."""
    previous = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**previous)


class _Column:
    """The width and notation that every element of one tensor (or of its real or imaginary
    parts) prints with, chosen from `shown`, the elements the printout shows."""

    def __init__(self, shown: np.ndarray) -> None:
        self.floating = shown.dtype.kind == "f"
        self.whole = True       # floating: every shown finite value is a whole number: `3.`
        self.scientific = False
        self.width = 1
        precision = _OPTIONS.precision
        if not self.floating:
            self.width = max((len(str(v)) for v in shown.ravel().tolist()), default=1)
            return
        values = shown.ravel()
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if finite.size == 0:
            return  # NB: PyTorch applies sci_mode only past this point: zeros print `0.` even then
        self.whole = bool(np.all(finite == np.ceil(finite)))
        magnitude = np.abs(finite)
        smallest, largest = float(magnitude.min()), float(magnitude.max())
        spread = largest / smallest > 1000.0 or largest > 1.0e8
        self.scientific = spread or (not self.whole and smallest < 1.0e-4)
        if _OPTIONS.sci_mode is not None:  # NB: before the width, which follows the notation used
            self.scientific = _OPTIONS.sci_mode
        numbers = finite.tolist()
        if self.scientific:
            self.width = max(len(f"{v:.{precision}e}") for v in numbers)
        elif self.whole:
            self.width = max(len(f"{v:.0f}") for v in numbers) + 1  # the point of `3.`
        else:
            self.width = max(len(f"{v:.{precision}f}") for v in numbers)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.scientific:
            text = f"{value:{self.width}.{_OPTIONS.precision}e}"
        elif self.whole:
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        else:
            text = f"{value:.{_OPTIONS.precision}f}"
        return text.rjust(self.width)


class _Columns:
    """The element format of a real tensor (one column) or a complex one (real and imaginary)."""

    def __init__(self, real: _Column, imag: _Column | None = None) -> None:
        self.real, self.imag = real, imag

    def item_width(self) -> int:
        # NB: PyTorch's budget per element: its width and ", "; a complex one adds the imaginary
        # part's width and one more.
        width = self.real.width + 2
        return width + self.imag.width + 1 if self.imag is not None else width

    def format(self, value: Any) -> str:
        if self.imag is None:
            return self.real.format(value)
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _shown(a: np.ndarray) -> np.ndarray:
    """The elements a summarized printout shows, flattened (their order does not matter)."""
    edge = _OPTIONS.edgeitems
    if a.ndim == 0:
        return a.reshape(1)
    if a.ndim == 1:
        # NB: a[-0:] is all of `a`: with edgeitems=0 a 1-D tensor's format comes from every element.
        return np.concatenate((a[:edge], a[-edge:])) if a.shape[0] > 2 * edge else a
    if not edge:
        return a.reshape(-1)[:0]
    rows = range(a.shape[0])
    if a.shape[0] > 2 * edge:
        rows = [*range(edge), *range(a.shape[0] - edge, a.shape[0])]
    return np.concatenate([_shown(a[i]) for i in rows])


def _row(a: np.ndarray, indent: int, summarize: bool, columns: _Columns) -> str:
    edge = _OPTIONS.edgeitems
    per_line = max(1, math.floor((_OPTIONS.linewidth - indent) / columns.item_width()))
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = ([columns.format(v) for v in a[:edge].tolist()] + [" ..."] +
                 [columns.format(v) for v in a[-edge:].tolist()])
    else:
        items = [columns.format(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, columns: _Columns) -> str:
    if a.ndim == 0:
        return columns.format(a.item())
    if a.ndim == 1:
        return _row(a, indent, summarize, columns)
    edge = _OPTIONS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * edge:
        parts = ([_nested(a[i], indent + 1, summarize, columns) for i in range(edge)] + ["..."] +
                 [_nested(a[i], indent + 1, summarize, columns) for i in range(n - edge, n)])
    else:
        parts = [_nested(a[i], indent + 1, summarize, columns) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _host_array(t: _C.Tensor) -> np.ndarray:
    """t's values on the host as NumPy; half precision widened to float32, which holds them
    exactly (PyTorch formats them as float32 too; NumPy has no bfloat16)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype in (_C.float16, _C.bfloat16):
        t = t.float()
    return t.numpy(force=True)


def _body(t: _C.Tensor, indent: int) -> str:
    a = _host_array(t)
    summarize = a.size > _OPTIONS.threshold
    if a.dtype.kind == "c":
        columns = _Columns(_Column(_shown(a.real) if summarize else a.real),
                           _Column(_shown(a.imag) if summarize else a.imag))
    else:
        columns = _Columns(_Column(_shown(a) if summarize else a))
    return _nested(a, indent, summarize, columns)


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    # NB: PyTorch counts the last line as 1 longer than it is (2 without a newline); kept, so
    # suffixes wrap where PyTorch's do.
    last_line = len(text) - text.rfind("\n") + 1
    out = [text]
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _OPTIONS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t: _C.Tensor) -> str:
    """repr(t) as PyTorch prints it; Ember's dtype and grad_fn names."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = _C.get_default_dtype()
    default_complex = _C.complex128 if default == _C.float64 else _C.complex64
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != default:
            suffixes.append(f"dtype={t.dtype}")
        body = "[]"
    else:
        if not _OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype not in (default, default_complex, _C.int64, _C.bool):
            suffixes.append(f"dtype={t.dtype}")
        body = _body(t, indent)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
