"""The comparison rules: torch's result (`want`), Ember's (`got`) and, when values differ by more than
rounding could explain at first sight, a float64 reference run (`ref`: torch with every float32 input in
float64). Shared by the driver and the CI replay (NumPy only).

A mismatch is one of CATEGORIES, most severe first:
  crash, hang             Ember's worker died (a segfault) or ran past the timeout
  ember_refuses_valid     torch ran the node (or backward) and Ember raised there or earlier
  ember_accepts_invalid   torch raised at a node (or in backward) and Ember did not
  shape, dtype            of a value (any node's, read after the program ran)
  value                   a value differs beyond the tolerance below
  grad                    an input's gradient differs (shape, dtype or values; or None against nonzero)
  requires_grad           a float value requires grad in one library and not in the other (an int or
                          bool one never should: torch marks one now and then, as after bool[i] = x)
  grad_none_vs_zero       one library leaves .grad None where the other has an all-zero gradient
Both raising at the same node (or Ember raising later than torch, never) is a match: messages differ.
Where a program writes in place, a node's value is compared as the node made it too (" (as made)"), so
the op that made a wrong value takes the blame, not the clone an in-place op wrote to later.

Values: ints and bools must be equal; NaN positions equal; infinities equal with their signs; finite
floats within rtol * |torch| + atol * scale (TIGHT; scale is the largest finite magnitude of the tensor in
either result, at least 1). -0.0 equals 0.0. A float64 value computed from values computed in float32
gets float32's tolerances (precision()); signbit ignores the sign of NaN (no library specifies it). Beyond that, the float64 reference decides: an element is
rounding when |ember - ref| <= RATIO * |torch - ref| + rtol * |ref| + atol * scale (REF tolerances), i.e.
Ember is not clearly farther from the exact result than torch in float32 is; a NaN or inf counts as an
infinite distance unless both are the same. An int or bool element that differs is rounding when torch's
differs from the reference there too, or Ember's equals it. A value that still differs, made by an op
whose result a one-ulp change can change completely (SENSITIVE: floor, atan2 of signed zeros, asin near 1,
cos of 1e6, nonzero; or any op with an int or bool result), while a float value it depends on differs at
all between the two, is rounding sent apart ("diverged"): neither it nor anything computed from it, nor
the gradients, are compared then (the float64 reference cannot tell when the program computes in float64
itself, nor when one ulp moves a result across a step).
A shape that differs is rounding when Ember's equals the reference's (data-dependent shapes: nonzero,
masked_select, unique). Values of indices that ties leave unspecified (nodes marked "ties": sort without
stable=True, topk, kthvalue, median and mode along a dim, cummax/cummin) are compared by shape and dtype
only; the generator gathers the values they point to, which are compared.
"""
import re
from typing import NamedTuple

import numpy as np

import encoding
from generator import refs

CATEGORIES = ("crash", "hang", "ember_refuses_valid", "ember_accepts_invalid", "shape", "dtype", "value", "grad",
              "requires_grad", "grad_none_vs_zero")
TIGHT = {"float16": (1e-3, 1e-4), "float32": (1e-5, 1e-6), "float64": (1e-10, 1e-13)}
REF = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "float64": (2e-10, 1e-12)}
RATIO = 4.0


class Mismatch(NamedTuple):
    category: str
    where: str    # "node 5", "grad of node 0", "backward"
    blame: str    # the op the mismatch shows at: the node's name, "backward", or "grad"
    detail: str


def order(at):
    """Where a run stopped, as a number: node index, then backward, then reading the values."""
    return at if isinstance(at, int) else {"backward": 1 << 30, "collect": (1 << 30) + 1}.get(at, -1)


def node_name(prog, at):
    if isinstance(at, int) and at < len(prog["nodes"]):
        return prog["nodes"][at].get("name", "input")
    return str(at)


def allowed(m, allowlist, prog, want=None):
    """Whether an allowlist entry (a documented deliberate difference) explains mismatch m: its category,
    the op it shows at ("blame"), a substring of its detail ("detail") or a regular expression found in it
    ("detail_re"), where the entry names them; for an entry with "op", that the program calls that op (in
    place or not: a gradient names no op), and with "nan_input" too, on a first operand that holds a NaN
    in torch's run (want); with "operand_below", on a first operand holding a value below that number."""
    ops = op_bases(prog)
    return any(a["category"] == m.category and a.get("blame", m.blame) == m.blame and a.get("detail", "") in m.detail
               and re.search(a.get("detail_re", ""), m.detail)
               and ("op" not in a or a["op"] in ops)
               and (not a.get("nan_input") or nan_input(prog, want, a["op"]))
               and (not a.get("nonfinite_input") or nan_input(prog, want, a["op"], infinities=True))
               and (not a.get("subnormal_input") or nan_input(prog, want, a["op"], subnormals=True))
               and (not a.get("subnormal_operand") or nan_input(prog, want, a["op"], subnormals=True, any_operand=True))
               and (not a.get("near_pole_input") or nan_input(prog, want, a["op"], near_negative_integer=True))
               and (not a.get("bool_input") or any(v and v.get("dtype") == "bool" for v in want["values"]))
               and (not a.get("zero_value") or zero_value(prog, want, a["op"]))
               and (not a.get("near_constant_norm") or bool(norm_amplification(prog, want)))
               and (not a.get("one_element_norm") or one_element_norm(prog, want, a["op"]))
               and ("operand_below" not in a or operand_below(prog, want, a["op"], a["operand_below"]))
               for a in allowlist)


NORMS = {"F.layer_norm", "F.group_norm", "F.instance_norm", "F.batch_norm"}


def norm_nodes(prog):
    """(node, its args, the value it normalises, its eps) for each normalisation (NORMS) in the program."""
    for n in prog["nodes"]:
        if n.get("name") in NORMS:
            args = n.get("args", [])
            j = args[0].get("v") if args and isinstance(args[0], dict) else None
            yield n, args, j, (n.get("kwargs") or {}).get("eps", 1e-5)


def norm_amplification(prog, want):
    """The largest 1 / sqrt(var + eps) of a group of values a normalisation in the program normalises (a row
    of layer_norm, a sample's group, a channel) whose variance in torch's run is at most the op's eps, times
    the largest magnitude of its weight (at least 1); 0 if there is none. There x - mean cancels and that
    factor multiplies what is left: the output and the gradients through it carry rounding scaled by it
    (a constant row's gradient, summed over an expanded dim, is terms of 300 that cancel to 0 or to an ulp
    of 300), beyond what the comparison's relative tolerances can know."""
    amp = 0.0
    for n, args, j, eps in norm_nodes(prog):
        for x in (torch_floats(want, j), final_floats(want, j)):
            if x is None or x.size == 0 or x.ndim < 1:
                continue
            rows = norm_groups(n["name"], args, x.astype(np.float64))
            if rows is None or not rows.size or rows.shape[1] == 0:
                continue
            with np.errstate(all="ignore"):
                var = rows.var(axis=1)
                # NB: near-constant: a variance at most eps, or one within the data's rounding (eps = 0)
                rel = 1e-5 if x.dtype == np.float32 else 1e-13
                near = var[np.isfinite(var) & ((var <= eps) | (var <= (rel * rows.mean(axis=1)) ** 2))]
                near = near[near + eps > 0]  # NB: a constant group with eps = 0 is NaN in both: no factor
                if near.size:
                    weight = weight_magnitude(want, n)
                    amp = max(amp, weight / float(np.sqrt(near.min() + eps)))
    return amp


def zero_sign_split(prog, want, got):
    """Whether an op whose zero's sign is unspecified (ZERO_SIGN_UNSPECIFIED) gave zeros of other signs in
    the two runs: the gradients of sqrt, log or 1/x there take that sign (-inf against inf)."""
    return any(zero_sign_unspecified(prog, j) and want["values"][j] and got["values"][j]
               and zero_signs_differ(want["values"][j], got["values"][j]) for j in range(len(prog["nodes"])))


def fused_multiply_add(prog, j):
    """Whether node j is an op PyTorch computes as one fused multiply-add (add and sub with alpha, lerp,
    addcmul), where Ember rounds the product and the sum apart."""
    name = node_name(prog, j)
    base = name[:-1] if name.endswith("_") and not name.startswith("__") else name
    if base in ("lerp", "addcmul"):
        return True
    return base in ("add", "sub", "subtract") and "alpha" in (prog["nodes"][j].get("kwargs") or {})


def fused_underflow_split(prog, want, got):
    """Whether a fused multiply-add (fused_multiply_add) gave a zero in one run and a subnormal in the
    other: an underflowing product rounds once fused and twice apart (1e-45 - 0.5 * 1e-45 is 0 fused,
    as a tie to even, and 1e-45 with the product rounded to 0 first). Gradients through an infinite
    slope there (norm with p = -2, 1 / x) are inf or NaN in one run and 0 in the other: noise."""
    for j in range(len(prog["nodes"])):
        w, e = want["values"][j], got["values"][j]
        if not (w and e and fused_multiply_add(prog, j)) or "scalar" in w or "scalar" in e \
                or list(w["shape"]) != list(e["shape"]) or w.get("dtype") not in ("float32", "float64"):
            continue
        W, E = encoding.array(w).astype(np.float64), encoding.array(e).astype(np.float64)
        tiny = float(np.finfo(np.float32 if w["dtype"] == "float32" else np.float64).tiny)
        with np.errstate(invalid="ignore"):
            split = (W != E) & ((W == 0) | (E == 0)) & (np.abs(W - E) < tiny)
        if split.any():
            return True
    return False


EXTREMA = {"min", "max", "amin", "amax", "median", "nanmedian", "quantile", "nanquantile", "kthvalue", "mode", "topk",
           "sort", "msort", "cummax", "cummin", "argsort"}


def rounding_ties(prog, want, got):
    """Whether an op that picks among equal elements (min, max, sort, ...) reads two elements that are
    equal in one run and an ulp apart in the other (torch's vectorised and scalar loops round the same
    function differently by position): which of them gets the gradient is then rounding's choice."""
    for j, n in enumerate(prog["nodes"]):
        if node_name(prog, j) not in EXTREMA:
            continue
        src = refs(n)
        if not src:
            continue
        a, b = torch_floats(want, src[0]), torch_floats(got, src[0])
        if a is None or b is None or a.shape != b.shape or a.size < 2:
            continue
        a, b = a.reshape(-1).astype(np.float64), b.reshape(-1).astype(np.float64)
        order = np.argsort(a, kind="stable")
        a, b = a[order], b[order]
        with np.errstate(all="ignore"):
            close = np.abs(np.diff(a)) <= 1e-6 * np.maximum(np.abs(a[1:]), np.abs(a[:-1]))
        if (close & ((np.diff(a) == 0) != (np.diff(b) == 0))).any():
            return True
    return False


PERIODIC = {"sin", "cos", "tan", "sinc"}
REFLECTED = {"lgamma", "digamma", "polygamma"}  # of a negative x: the reflection's pi / tan(pi x)


def lost_phase(prog, want, got):
    """Whether some node's phase is rounding's (phase_lost): then its derivative is too (cos of 1e45)."""
    return any(phase_lost(prog, want, got, j) for j in range(len(prog["nodes"])))


def phase_lost(prog, want, got, j):
    """Whether node j, a trigonometric op (PERIODIC) or lgamma or a derivative of it at a negative x
    (REFLECTED, whose reflection is periodic in x), reads an argument whose phase is rounding's: an ulp of
    it moves the phase by more than 1e-3 (|x| past 1e4 in float32, 4.5e12 in float64; pi x for sinc)
    where it differs at all between the runs, or the two runs' arguments are more than 1e-5 apart in phase
    (sinh of a sum that rounded an ulp apart, read by lgamma at -3.3e10)."""
    n = prog["nodes"][j]
    name = node_name(prog, j)
    base = name[:-1] if name.endswith("_") and not name.startswith("__") else name
    if base not in PERIODIC | REFLECTED or not refs(n):
        return False
    operand = refs(n)[-1] if base == "polygamma" else refs(n)[0]
    a, b = torch_floats(want, operand), torch_floats(got, operand)
    if a is None or not a.size:
        return False
    scale = np.pi if base in {"sinc"} | REFLECTED else 1.0
    with np.errstate(all="ignore"):
        keep = np.isfinite(a) & ((a < 0) if base in REFLECTED else True)
        x = np.abs(a.astype(np.float64)[keep]) * scale
        if x.size and x.max() * np.finfo(a.dtype).eps > 1e-3 and upstream_differs(prog, want, got, j):
            return True
        if b is not None and b.shape == a.shape:
            apart = np.abs(a.astype(np.float64) - b.astype(np.float64))[keep & np.isfinite(b)] * scale
            if apart.size and apart.max() > 1e-5:
                return True
    return False


REPEATING = {"expand", "expand_as", "broadcast_to", "repeat", "repeat_interleave", "tile"}


# Ops whose result does not change when a constant is added along a dim (softmax's): over an exactly
# constant row from an expanded view, each copy's gradient terms cancel to exactly 0 in exact arithmetic.
SHIFT_INVARIANT = {"F.softmax", "F.log_softmax", "softmax", "log_softmax", "F.cross_entropy"}


def shift_invariant_groups(node, x):
    """x's rows along the dim a SHIFT_INVARIANT node normalises over (cross_entropy's classes), or None."""
    args, kwargs = node.get("args", []), node.get("kwargs") or {}
    if node["name"] == "F.cross_entropy":
        dim = 1 if x.ndim >= 2 else 0
    else:
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        if not isinstance(dim, int) or isinstance(dim, bool) or not -x.ndim <= dim < x.ndim:
            return None
    return np.moveaxis(x, dim, -1).reshape(-1, x.shape[dim])


def expanded_constant_norm(prog, want):
    """Whether a normalisation in the program normalises an exactly constant group of values computed from
    an expanded or repeated view (`x.expand(5)` or `repeat_interleave` then layer_norm): each input
    element's gradient is then a sum, over the copies, of terms that cancel to exactly 0, so what either
    library computes there is rounding noise of those terms (scaled by what backward multiplies in later:
    1e148 against 2e148): the program's gradients are not compared by value."""
    for n in prog["nodes"]:
        if n.get("name") not in NORMS and n.get("name") not in SHIFT_INVARIANT:
            continue
        args = n.get("args", [])
        j = args[0].get("v") if args and isinstance(args[0], dict) else None
        if j is None or not depends_on(prog, j, REPEATING):
            continue
        for x in (torch_floats(want, j), final_floats(want, j)):
            if x is None or x.size == 0 or x.ndim < 1:
                continue
            rows = (shift_invariant_groups(n, x.astype(np.float64)) if n["name"] in SHIFT_INVARIANT
                    else norm_groups(n["name"], args, x.astype(np.float64)))
            if rows is not None and rows.size and rows.shape[1] > 1 and (rows.max(axis=1) == rows.min(axis=1)).any():
                return True
    return False


def two_element_norm(prog, want):
    """Whether a normalisation in the program normalises a group of exactly two values whose variance is
    far above its eps. Such a group normalises to about (-1, 1) whatever the two values are: the gradient
    through it is the eps / (var + eps) left of a complete cancellation, and carries (var + eps) / eps times
    the float rounding of the gradient that reaches it (layer_norm over 2 of var 0.25: 25000 times, an
    error of 3e-3 in float32 where torch's happens to be 7e-4): the program's gradients are not compared
    by value."""
    for n, args, j, eps in norm_nodes(prog):
        x = torch_floats(want, j)
        if x is None or x.size == 0 or x.ndim < 1 or not eps or eps <= 0:
            continue
        rows = norm_groups(n["name"], args, x.astype(np.float64))
        if rows is None or not rows.size or rows.shape[1] != 2:
            continue
        with np.errstate(all="ignore"):
            ratio = rows.var(axis=1) / eps
        noise = float(np.finfo(x.dtype if x.dtype in (np.float32, np.float64) else np.float32).eps)
        if (ratio[np.isfinite(ratio)] * noise > 1e-6).any():  # NB: past what the tolerances absorb
            return True
    return False


def constant_spread(prog, want):
    """Whether std (or std_mean) reduces a group of two or more exactly equal values (in torch's run): the
    standard deviation is 0 there, where it has no derivative. PyTorch's mean rounds to a residual r,
    its std is |r| and its gradient sign(r) / sqrt(N) (-1 over 6 copies of -5.34); Ember's mean is exact,
    its std 0 and its gradient 0, as PyTorch's own is where the std comes out 0: the program's gradients
    are not compared by value."""
    for n in prog["nodes"]:
        if n.get("name") not in ("std", "std_mean"):
            continue
        args, kwargs = n.get("args", []), n.get("kwargs") or {}
        j = args[0].get("v") if args and isinstance(args[0], dict) else None
        x = torch_floats(want, j)
        if x is None or x.size < 2:
            continue
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        if isinstance(dim, dict):  # NB: a tuple of dims, as the programs write it
            dim = dim.get("tuple")
        if x.ndim == 0 or not (dim is None or isinstance(dim, int) and not isinstance(dim, bool)
                               or isinstance(dim, list) and all(isinstance(d, int) for d in dim)):
            continue
        dims = list(range(x.ndim)) if dim is None or dim == [] else sorted({d % x.ndim for d in np.atleast_1d(dim)})
        kept = [d for d in range(x.ndim) if d not in dims]
        rows = np.transpose(x, kept + dims).reshape(int(np.prod([x.shape[d] for d in kept])), -1)
        if rows.shape[1] > 1 and (rows.max(axis=1) == rows.min(axis=1)).any():
            return True
    return False


def subnormal_meets_infinity(prog, want):
    """Whether an input holds a subnormal number and torch's gradients hold inf or NaN: a backward product
    of an infinite factor (acos' at 1) with the subnormal one (a * sigmoid'(b)) is inf or NaN as the
    subnormal product underflowed first or not, which neither library specifies."""
    inputs = [torch_floats(want, i) for i, n in enumerate(prog["nodes"]) if "input" in n]
    with np.errstate(all="ignore"):
        if not any(a is not None and ((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)).any() for a in inputs):
            return False
    grads = [encoding.array(g) for g in want.get("grads", {}).values() if g and g.get("dtype") in encoding.FLOAT_DTYPES]
    return any((~np.isfinite(g)).any() for g in grads)


def _at_pole_of_slope(name):
    """The points of the first operand where op name's derivative is infinite (a predicate), or None."""
    unit = lambda a: np.abs(a) == 1  # noqa: E731
    zero = lambda a: a == 0  # noqa: E731
    return {"asin": unit, "acos": unit, "atanh": unit, "erfinv": unit, "sqrt": zero, "rsqrt": zero, "log": zero,
            "log2": zero, "log10": zero, "reciprocal": zero, "pow": zero, "__pow__": zero,
            "log1p": lambda a: a == -1, "acosh": lambda a: a == 1, "logit": lambda a: (a == 0) | (a == 1),
            "lgamma": lambda a: (a <= 0) & (a == np.round(a)), "digamma": lambda a: (a <= 0) & (a == np.round(a))
            }.get(name)


def infinite_slope(prog, want):
    """Whether an op of the program reads its first operand at a point where its derivative is infinite
    (asin at 1, sqrt at 0; in torch's run): a gradient that reaches it is inf times what comes in, and
    what comes in, where it is zero in exact arithmetic (the derivative of x / x, of the variance of
    an expanded constant), is 0 or a rounding residual as the sums went: NaN or inf, in either library."""
    for n in prog["nodes"]:
        if "name" not in n:
            continue
        pole = _at_pole_of_slope(next(iter(op_bases({"nodes": [n]}))))
        args = n.get("args", [])
        j = args[0].get("v") if pole and args and isinstance(args[0], dict) else None
        for a in (torch_floats(want, j), final_floats(want, j)) if j is not None else ():
            with np.errstate(all="ignore"):
                if a is not None and pole(a.astype(np.float64)).any():
                    return True
    return False


def infinity_noise_equalised(w, e):
    """e with its elements set to w's where one is NaN and the other infinite (0 * inf against a
    residual * inf: see infinite_slope). NB: not +inf against -inf: logit's slope at -0 has PyTorch's
    sign, which a test holds."""
    W, E = encoding.array(w), encoding.array(e)
    if W.shape != E.shape or W.dtype.kind != "f" or E.dtype.kind != "f":
        return e
    both = (np.isnan(W) & np.isinf(E)) | (np.isinf(W) & np.isnan(E))
    if not both.any():
        return e
    return encoding.entry(np.where(both, W.astype(E.dtype), E), dtype=e["dtype"])


# The numerator's and the denominator's argument positions of the ops that divide (in place too).
QUOTIENTS = {"div": (0, 1), "true_divide": (0, 1), "__truediv__": (0, 1), "addcdiv": (1, 2)}


def self_quotient_leaves(prog, want):
    """The inputs (as gradient keys) upstream of an op that divides a value by itself (x / x,
    y.addcdiv(t, t)) or by its own norm over one element (F.normalize of a 0-d tensor, or along a dim
    of size 1: +-1): the gradient it sends that value is 0 in exact arithmetic, terms of opposite sign
    (each summed over the broadcast), and in floating point the residual of their rounding (-1.5e-5,
    of sums of 89.6, where PyTorch's two sums rounded alike by chance and gave 0). Such a gradient is
    not compared by value."""
    leaves = set()
    for n in prog["nodes"]:
        name = n.get("name", "")
        pos = QUOTIENTS.get(name[:-1] if name.endswith("_") and not name.startswith("__") else name)
        args = n.get("args", [])
        if name == "F.cosine_similarity" and len(args) > 1 and isinstance(args[0], dict) and "v" in args[0] \
                and isinstance(args[1], dict) and args[1].get("v") == args[0]["v"]:
            a = args[0]  # NB: cos(x, x) is 1 whatever x is
        elif name == "F.normalize" and args and isinstance(args[0], dict) and "v" in args[0]:
            x = torch_floats(want, args[0]["v"])
            dim = (n.get("kwargs") or {}).get("dim", args[2] if len(args) > 2 and isinstance(args[2], int) else 1)
            if x is None or not (x.ndim == 0 or (-x.ndim <= dim < x.ndim and x.shape[dim] == 1)):
                continue
            a = args[0]
        elif not pos or len(args) <= max(pos):
            continue
        else:
            a, b = (args[p] for p in pos)
            if not (isinstance(a, dict) and isinstance(b, dict) and "v" in a and a.get("v") == b.get("v")):
                continue
        seen, todo = set(), [a["v"]]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if "input" in prog["nodes"][k]:
                leaves.add(str(k))
            todo.extend(refs(prog["nodes"][k]))
    return leaves


def broadcast_cosine(prog, want):
    """Whether cosine_similarity normalises an operand broadcast along its dim (a [1] x2 against rows of
    4): the result does not depend on that operand's scale, so its gradient is a sum, over the copies,
    of terms that cancel to 0: rounding noise in both libraries (as expanded_constant_norm)."""
    for n in prog["nodes"]:
        if n.get("name") != "F.cosine_similarity":
            continue
        args, kwargs = n.get("args", []), n.get("kwargs") or {}
        ops = [torch_floats(want, a.get("v")) for a in args[:2] if isinstance(a, dict) and "v" in a]
        if len(ops) != 2 or any(o is None for o in ops):
            continue
        dim = kwargs.get("dim", args[2] if len(args) > 2 and isinstance(args[2], int) else 1)
        try:
            shape = np.broadcast_shapes(ops[0].shape, ops[1].shape)
        except ValueError:
            continue
        if not shape or shape[dim] < 2:
            continue
        for o in ops:
            aligned = (1,) * (len(shape) - o.ndim) + o.shape
            if aligned[dim] == 1:
                return True
    return False


def depends_on(prog, j, names):
    """Whether node j is, or is computed from, a call of one of `names`."""
    seen, todo = set(), [j]
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if node_name(prog, k) in names:
            return True
        todo.extend(refs(prog["nodes"][k]))
    return False


def weight_magnitude(want, n):
    """The largest finite magnitude of a normalisation's weight (its 4th operand for layer_norm and
    instance_norm and batch_norm, 3rd for group_norm), at least 1."""
    args = n.get("args", [])
    k = {"F.layer_norm": 2, "F.group_norm": 2, "F.instance_norm": 3, "F.batch_norm": 3}[n["name"]]
    w = args[k].get("v") if len(args) > k and isinstance(args[k], dict) else None
    a = torch_floats(want, w)
    finite = np.abs(a[np.isfinite(a)]) if a is not None else np.zeros(0)
    return max(1.0, float(finite.max())) if finite.size else 1.0


def clamped_log_amplification(prog, want):
    """binary_cross_entropy's gradient at a probability of exactly 0 or 1 divides by max(x (1 - x), 1e-12):
    rounding in what reaches it (an ulp of a normalize's backward) comes out 1e12 times larger, times its
    weight; poisson_nll_loss's with log_input=False at an input of 0 by eps, times the target. The largest
    such factor, or 0 if there is none."""
    amp = 0.0
    for n in prog["nodes"]:
        args, kwargs = n.get("args", []), n.get("kwargs") or {}
        x = torch_floats(want, args[0].get("v")) if args and isinstance(args[0], dict) else None
        if x is None:
            continue
        if n.get("name") == "F.poisson_nll_loss" and kwargs.get("log_input") is False and (x == 0).any():
            # target / (x + eps) at x = 0: 1e8 times the target's largest magnitude
            t = torch_floats(want, args[1].get("v")) if len(args) > 1 and isinstance(args[1], dict) else None
            finite = np.abs(t[np.isfinite(t)]) if t is not None else np.zeros(0)
            amp = max(amp, max(1.0, float(finite.max()) if finite.size else 1.0) / kwargs.get("eps", 1e-8))
            continue
        if n.get("name") != "F.binary_cross_entropy" or not ((x == 0) | (x == 1)).any():
            continue
        w = kwargs.get("weight", args[2] if len(args) > 2 else None)
        a = torch_floats(want, w.get("v")) if isinstance(w, dict) and "v" in w else None
        finite = np.abs(a[np.isfinite(a)]) if a is not None else np.zeros(0)
        amp = max(amp, 1e12 * max(1.0, float(finite.max()) if finite.size else 1.0))
    return amp


def torch_noise_dominated(want, ref):
    """Whether some float32 value of torch's run is noise: finite where the float64 reference is NaN or
    infinite, NaN where it is finite (atanh of a cosine similarity of x with itself, 1.0000001 in float32),
    or
    off from the reference by more than 1% of the reference and more than float32 rounding of the tensor's
    scale (`sum(batch_norm(x))`, exactly 0, is 3e-7 in float32 and -2e-16 in float64, and log10 of it
    is -6.5 against NaN). A gradient through such a value is noise in both libraries: the program's
    gradients are not compared by value."""
    if not ref or not ref.get("ok"):
        return False
    for w, r in zip(want["values"], ref["values"]):
        if not w or not r or w.get("dtype") != "float32" or "data" not in w or "data" not in r \
                or list(w["shape"]) != list(r["shape"]):
            continue
        W, R = encoding.array(w).astype(np.float64), encoding.array(r).astype(np.float64)
        with np.errstate(all="ignore"):
            scale = finite_max(W, R)
            off = (np.isnan(W) & np.isfinite(R)) | np.isfinite(W) & (
                ~np.isfinite(R) | ((np.abs(W - R) > 1e-2 * np.abs(R)) & (np.abs(W - R) > 1e-6 * scale)))
        if off.any():
            return True
    return False


def cotangent_magnitude(prog):
    """The largest finite magnitude of the backward roots' incoming gradients, at least 1."""
    m = 1.0
    for root in prog.get("backward", []):
        g = root.get("grad")
        if isinstance(g, dict):
            a = encoding.array(g).astype(np.float64)
            f = np.abs(a[np.isfinite(a)])
            if f.size:
                m = max(m, float(f.max()))
    return m


def norm_groups(name, args, x):
    """x's values as the op normalises them together, one group per row (None if the shapes do not fit)."""
    try:
        if name == "F.layer_norm":
            k = len(args[1]) if isinstance(args[1], (list, tuple)) else 1
            return x.reshape(-1, int(np.prod(x.shape[-k:])))
        if name == "F.group_norm":
            return x.reshape(x.shape[0] * int(args[1]), -1)
        if name == "F.instance_norm":
            return x.reshape(x.shape[0] * x.shape[1], -1)
        return np.moveaxis(x, 1, 0).reshape(x.shape[1], -1)
    except (ValueError, IndexError, TypeError, ZeroDivisionError):
        return None


def one_element_norm(prog, want, op):
    """Whether the program calls the normalisation op on groups of one element each (a layer_norm over a
    last dim of 1): its output does not depend on its input there."""
    for j, n in enumerate(prog["nodes"]):
        if n.get("name") != op:
            continue
        args = n.get("args", [])
        x = torch_floats(want, args[0].get("v")) if args and isinstance(args[0], dict) else None
        rows = norm_groups(op, args, x) if x is not None and x.ndim >= 1 and x.size else None
        if rows is not None and rows.ndim == 2 and rows.shape[1] == 1:
            return True
    return False


def zero_value(prog, want, op):
    """Whether a call of op (det of a singular matrix) gave 0 somewhere in torch's run."""
    for j, n in enumerate(prog["nodes"]):
        if "name" in n and op_bases({"nodes": [n]}) == {op}:
            a = torch_floats(want, j)
            if a is not None and (a == 0).any():
                return True
    return False


def nan_input(prog, want, op, infinities=False, subnormals=False, near_negative_integer=False, any_operand=False):
    """Whether the program calls op (in place or not) on a first tensor operand (with any_operand, any
    tensor operand) that holds a NaN (or, with infinities, an infinity; with subnormals, a subnormal
    number; with near_negative_integer, a number below 0 within 1e-6 of an integer, instead) in torch's
    run (want)."""
    if want is None:
        return False
    for n in prog["nodes"]:
        if "name" in n and op_bases({"nodes": [n]}) == {op}:
            operands = [a["v"] for a in n.get("args", []) if isinstance(a, dict) and "v" in a][:None if any_operand else 1]
            # NB: as made, or as in-place ops left it (one before the op may have written the NaN)
            for a in [f(want, j) for j in operands for f in (torch_floats, final_floats)]:
                if a is None:
                    continue
                if subnormals:
                    if ((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)).any():
                        return True
                elif near_negative_integer:
                    with np.errstate(all="ignore"):
                        if ((a < 0) & (np.abs(a - np.round(a)) < 1e-6)).any():
                            return True
                elif np.isnan(a).any() or infinities and np.isinf(a).any():
                    return True
    return False


def operand_below(prog, want, op, bound):
    """Whether the program calls op (in place or not) on a first operand holding a value below bound (in
    torch's run, as made or as in-place ops left it)."""
    for n in prog["nodes"]:
        if "name" in n and op_bases({"nodes": [n]}) == {op}:
            args = n.get("args", [])
            j = args[0].get("v") if args and isinstance(args[0], dict) else None
            for a in (torch_floats(want, j), final_floats(want, j)) if j is not None else ():
                with np.errstate(invalid="ignore"):
                    if a is not None and (a < bound).any():
                        return True
    return False


def op_bases(prog):
    return {n["name"][:-1] if n["name"].endswith("_") and not n["name"].startswith("__") else n["name"]
            for n in prog["nodes"] if "name" in n}


def compare(prog, want, got, ref=None, allowlist=()):
    """(mismatches, needs_ref): needs_ref when some difference might be rounding and ref was not given
    (call again with the reference run's result). A node whose value differences the allowlist explains
    all is deliberate: those are returned (the caller counts them apart), and like a diverged node,
    nothing computed from it, nor the gradients, are compared."""
    if got.get("crash") or got.get("hang"):
        cat = "crash" if got.get("crash") else "hang"
        return [Mismatch(cat, "program", "program", got.get("detail", ""))], False
    if not want["ok"]:
        if got["ok"]:
            return [Mismatch("ember_accepts_invalid", f"node {want['at']}", node_name(prog, want["at"]),
                             f"torch raised {want['type']}: {want['msg']}")], False
        if order(got["at"]) < order(want["at"]):
            return [refusal(prog, got)], False
        return [], False
    if not got["ok"]:
        return [refusal(prog, got)], False
    out, needs = [], False
    refv = ref["values"] if ref and ref.get("ok") else None
    made_w, made_e = want.get("made", {}), got.get("made", {})
    made_r = ref.get("made", {}) if refv else {}
    diverged = set()  # nodes whose values rounding legitimately sent apart, and every node after them
    huge = holds_huge(prog, want)
    for i, (w, e) in enumerate(zip(want["values"], got["values"])):
        if w is None:
            continue
        # NB: a value read after an in-place op wrote it (or a view of it) depends on that op too
        # (v1.erfinv_(); v1.clone(), or v1.select(0, 2).fmod_(y); v1.clone())
        if any(j in diverged or any(k in diverged for m in view_closure(prog, j) for k in in_place_writers(prog, m)
                                    if k < i)
               for j in refs(prog["nodes"][i])):
            diverged.add(i)
            continue
        name = node_name(prog, i)
        if e is None:
            out.append(Mismatch("value", f"node {i}", name, f"torch {describe(w)}, ember no tensor"))
            continue
        if ref is not None and not ref.get("ok") and ref.get("at") == i and differs_at_all(w, e):
            # NB: the float64 run raised here (inverse of a matrix singular in exact arithmetic) where float32
            # rounding made the problem solvable: the values are that rounding's, 1 / a residual pivot
            diverged.add(i)
            continue
        r = refv[i] if refv else None
        k = str(i)
        suffix = LATER if "input" in prog["nodes"][i] else ""  # an input is right as made: data
        node_out = []
        if k in made_w or k in made_e:
            m, need = compare_value(prog, want, got, made_w.get(k, w), made_e.get(k, e),
                                    made_r.get(k, r) if refv else None, ref is not None, i, name, MADE, huge)
            node_out += m
            needs |= need
            suffix = LATER
        m, need = compare_value(prog, want, got, w, e, r, ref is not None, i, name, suffix, huge)
        node_out += m
        needs |= need
        past_overflow = [m for m in node_out if m.category == OVERFLOW]
        out += past_overflow
        node_out = [m for m in node_out if m.category != OVERFLOW]
        if past_overflow and not node_out:  # what is computed from values past an overflow is too
            diverged.add(i)
            continue
        if not node_out and phase_lost(prog, want, got, i):
            diverged.add(i)  # sin of 8e28: its values are rounding's, within tolerance only by the reference's rule
            continue
        if not node_out and name in DOTS and cancelled_dot(prog, want, i, w, e):
            diverged.add(i)  # a dot product that cancels to its terms' rounding: what follows may amplify it
            continue
        if not node_out and prog["nodes"][i].get("ties") and differs_at_all(w, e):
            diverged.add(i)  # which of tied elements an op picks is unspecified: what follows may differ
            continue
        if not node_out and moved_step(prog, want, got, i, w, e):
            diverged.add(i)  # a step that rounding moved, which the reference explained here: what follows may not
            continue
        if not node_out and deliberately_other(name, allowlist) and differs_at_all(w, e):
            diverged.add(i)  # within tolerance here, but what is computed from it may amplify the difference
            continue
        if node_out and diverges(prog, want, got, i, w, node_out):
            diverged.add(i)
            continue
        made_out = [m for m in node_out if m.where.endswith(MADE)]
        if node_out and (all(allowed(m, allowlist, prog, want) for m in node_out)
                         or made_out and all(allowed(m, allowlist, prog, want) for m in made_out)):
            # NB: where the value as made differs deliberately, what later in-place ops made of it does too
            diverged.add(i)
            out += [m for m in node_out if not m.where.endswith(LATER)]
            continue
        out += node_out
    if diverged:  # what later in-place ops and backward do with diverged values is not comparable
        return [m for m in out if not m.where.endswith(LATER)], needs and ref is None
    refg = ref["grads"] if ref and ref.get("ok") else None
    # NB: rounding a normalisation of near-constant values amplifies: an absolute tolerance of that size
    amplified = max(norm_amplification(prog, want), clamped_log_amplification(prog, want))
    cotangent = cotangent_magnitude(prog)
    noise = (torch_noise_dominated(want, ref) or zero_sign_split(prog, want, got) or rounding_ties(prog, want, got)
             or lost_phase(prog, want, got) or fused_underflow_split(prog, want, got))
    constant_expanded = (expanded_constant_norm(prog, want) or broadcast_cosine(prog, want)
                         or constant_spread(prog, want) or two_element_norm(prog, want))
    computed_huge = largest_huge(want, range(len(prog["nodes"])))
    slope = infinite_slope(prog, want)
    self_quotient = self_quotient_leaves(prog, want)
    if subnormal_meets_infinity(prog, want):
        computed_huge = max(computed_huge, float(np.finfo(np.float32).max))
    for k, w in want["grads"].items():
        e = got["grads"].get(k)
        where = f"grad of node {k}"
        if w is None and e is None:
            continue
        if w is None or e is None:
            present = e if w is None else w
            zero = present is not None and not np.any(encoding.array(present))
            cat = "grad_none_vs_zero" if zero else "grad"
            out.append(Mismatch(cat, where, "grad", f"torch {describe(w)}, ember {describe(e)}"))
            continue
        if slope:
            e = infinity_noise_equalised(w, e)
        tol = grad_precision(prog, want, w)
        floor = np.inf if noise or constant_expanded or k in self_quotient else \
            amplified * cotangent * 64 * float(np.finfo(np.float32 if tol != "float64" else np.float64).eps)
        # NB: past huge data (or huge values the program computed) a gradient's rounding is that of their
        # magnitude (3e38 - 3e38 + x; terms of i0(625) = 1e270 that cancel to 0 or to 3e256)
        m, need = compare_tensor(w, e, refg.get(k) if refg else None, ref is not None, "grad", k, "grad",
                                 tol_dtype=tol, huge=(huge or computed_huge, huge or computed_huge), floor=floor)
        out += m
        needs |= need
    return out, needs and ref is None


DOTS = {"matmul", "mm", "bmm", "tensordot", "__matmul__", "__rmatmul__", "F.linear", "dot", "inner", "mv", "vdot"}


def cancelled_dot(prog, want, i, w, e):
    """Whether node i, a dot product (DOTS), differs between the runs at an element that cancelled: one
    below 1e-3 of the bound on its terms, K max|a| max|b|, where the order of the sum (and a fused
    multiply-add) decides the rounding left (2.5 * -5.6 + -2.5 * -5.6 is 0 or -2.4e-7)."""
    src = refs(prog["nodes"][i])
    if len(src) < 2 or "data" not in w or "data" not in e or list(w["shape"]) != list(e["shape"]):
        return False
    a, b = torch_floats(want, src[0]), torch_floats(want, src[1])
    if a is None or b is None or not a.size or not b.size:
        return False
    with np.errstate(all="ignore"):
        k = a.shape[-1] if a.ndim else 1
        bound = k * float(np.nanmax(np.abs(a))) * float(np.nanmax(np.abs(b)))
        W, E = encoding.array(w).astype(np.float64), encoding.array(e).astype(np.float64)
        return bool(np.any((distance(W, E) > 0) & (np.abs(W) < 1e-3 * bound)))


def deliberately_other(name, allowlist):
    """Whether the allowlist says op `name`'s values differ from torch's wherever they do (an entry of
    category value for that op and nothing narrower: float64 polygamma, accurate where torch's is not)."""
    return any(a["category"] == "value" and a.get("blame") == name and not {"detail", "detail_re", "op"} & a.keys()
               for a in allowlist)


def differs_at_all(w, e):
    if "scalar" in w or "scalar" in e or list(w["shape"]) != list(e["shape"]):
        return w != e
    W, E = encoding.array(w), encoding.array(e)
    return bool(np.any(distance(W.astype(np.float64), E.astype(np.float64)) > 0))


def int_grad_operand(prog, want, i):
    """Whether node i reads an integer or bool tensor that requires grad in torch's run: torch attaches a
    grad_fn to one written in place with a value that requires grad (`mask.fill_(w)`), Ember does not."""
    for j in refs(prog["nodes"][i]):
        v = want["values"][j] if j < len(want["values"]) else None
        if v and v.get("rg") and v.get("dtype") not in encoding.FLOAT_DTYPES:
            return True
    return False


MADE = " (as made)"
LATER = " (after later in-place ops)"


def compare_value(prog, want, got, w, e, r, have_ref, i, name, suffix, huge=False):
    """([mismatches], needs_ref) for node i's value w (torch) and e (Ember)."""
    where = f"node {i}{suffix}"
    if "scalar" in w or "scalar" in e:
        ok, need, detail = compare_scalar(w, e, r, have_ref)
        if ok or need:
            return [], need
        return [Mismatch("value", where, name, detail)], False
    if name in NAN_SIGN:
        w, e = unspecified_nan_sign(prog, want, i, w, e)
    # NB: huge operands the program computed count as huge data too (nan_to_num's 3.4e38, whose variance
    # overflows in one library's order and not in the other's)
    operands = max(huge_operands(prog, want, i), largest_huge(want, [j for k in stat_writers(prog, i)
                                                                        for j in refs(prog["nodes"][k])]))
    out, need = compare_tensor(w, e, r, have_ref, "node", i, name, ties=prog["nodes"][i].get("ties"), where=where,
                               tol_dtype=precision(prog, want, i, w), huge=(huge or operands, operands))
    if suffix != MADE and w.get("rg") != e.get("rg") and w.get("dtype") in encoding.FLOAT_DTYPES:
        source = (" (an operand is an integer tensor torch marks as requiring grad)"
                  if int_grad_operand(prog, want, i) else "")
        out.append(Mismatch("requires_grad", where, name, f"torch {w.get('rg')}, ember {e.get('rg')}{source}"))
    return out, need


NAN_SIGN = ("signbit",)  # ops that read a NaN's sign bit, which no library specifies


def unspecified_nan_sign(prog, want, i, w, e):
    """w and e with the elements where the op's input is NaN in torch (as made, or as in-place ops left
    it: one before the op may have written the NaN) set to 0 in both."""
    src = refs(prog["nodes"][i])
    xs = [x for x in ((made_value(want, src[0]), want["values"][src[0]]) if src else ())
          if x and "data" in x and x["shape"] == w["shape"]]
    if not xs:
        return w, e
    nan = [any(x["data"][k] == "nan" for x in xs) for k in range(len(xs[0]["data"]))]
    if not any(nan):
        return w, e
    return ({**w, "data": [0 if n else v for n, v in zip(nan, w["data"])]},
            {**e, "data": [0 if n else v for n, v in zip(nan, e["data"])]})


def precision(prog, want, i, w):
    """The dtype whose tolerances apply to node i's float value: float32 where the value is float64 but a
    value it was computed from was computed in float32 (that rounding is in it); else its own dtype. Float32
    inputs do not count (their data is exact in float64: mixing them in must not cost float64 precision)."""
    if w.get("dtype") != "float64":
        return w.get("dtype")
    seen, todo = set(), list(refs(prog["nodes"][i]))
    while todo:
        j = todo.pop()
        if j in seen:
            continue
        seen.add(j)
        v = made_value(want, j)
        # NB: an input that a float32 in-place op wrote before node i read it (x.log10_()) was computed too
        computed = "call" in prog["nodes"][j] or any(k < i for k in in_place_writers(prog, j))
        if computed and v and v.get("dtype") in ("float32", "float16"):
            return "float32"
        todo.extend(refs(prog["nodes"][j]))
    return "float64"


def grad_precision(prog, want, g):
    if g.get("dtype") == "float64" and any("call" in n and v and v.get("dtype") in ("float32", "float16")
                                           for n, v in zip(prog["nodes"], want["values"])):
        return "float32"
    return g.get("dtype")


def made_value(res, i):
    return res.get("made", {}).get(str(i), res["values"][i])


# Ops whose result a one-ulp change of an input can change completely: steps and rounding (floor,
# comparisons cast to float, remainder), the sign of a zero (atan2, 1/x, pow), poles and the ends of a
# domain (asin near 1, log near 0, sqrt of a rounding below 0, lgamma near a pole), huge arguments (cos of 1e6, exp), and the
# data-dependent shapes (nonzero, masked_select, unique). An int or bool result is such a result too.
SENSITIVE = set("""floor ceil round trunc fix frac sign signbit heaviside floor_divide remainder fmod div true_divide addcdiv
    atan2 reciprocal sqrt rsqrt pow asin acos atanh acosh erfinv logit log log2 log10 log1p digamma lgamma polygamma xlogy
    tan cos sin sinc exp exp2 expm1 cosh sinh F.threshold F.hardshrink bucketize searchsorted histc unique nonzero
    argwhere masked_select F.binary_cross_entropy F.poisson_nll_loss F.gaussian_nll_loss F.kl_div
    __floordiv__ __rfloordiv__ __mod__ __rmod__ __truediv__ __rtruediv__ __pow__ __rpow__
    logical_and logical_or logical_xor logical_not eq ne lt le gt ge""".split())  # (in place on floats: 0 or 1)


def diverges(prog, want, got, i, w, mismatches):
    """Whether node i's value mismatches are rounding sent through a sensitive op: the op is sensitive (or
    its result int or bool, or an operand holds an infinity), a float value it depends on differs at all
    between torch and Ember, and the mismatches are of values or shapes only. Then node i and every node
    after it are not compared."""
    names = [node_name(prog, i)]
    if all(m.where.endswith(LATER) for m in mismatches):  # the value as later in-place ops left it: theirs too
        names += [node_name(prog, k) for k in in_place_writers(prog, i)]
    bases = {name[:-1] if name.endswith("_") and not name.startswith("__") else name for name in names}
    discrete = "scalar" in w or w.get("dtype") not in encoding.FLOAT_DTYPES
    if not (discrete or bases & SENSITIVE or counts_nonzeros(prog["nodes"][i]) or holds_infinity(prog, want, i)):
        return False
    if any(m.category not in ("value", "shape") for m in mismatches):
        return False
    return upstream_differs(prog, want, got, i)


def moved_step(prog, want, got, i, w, e):
    """Whether node i is a sensitive op (or one with an int or bool result) whose values differ beyond
    the tolerance but the float64 reference explained them (Ember's gelu of -6.01 is -5.5e-9, PyTorch's
    0, so heaviside gives 0 against its 0.7): the step moved with rounding upstream, and what is
    computed from it (a sum of the heavisides) differs by a whole step."""
    name = node_name(prog, i)
    base = name[:-1] if name.endswith("_") and not name.startswith("__") else name
    discrete = "scalar" in w or w.get("dtype") not in encoding.FLOAT_DTYPES
    if not (discrete or base in SENSITIVE) or "scalar" in e or "data" not in w or "data" not in e:
        return False
    if list(w["shape"]) != list(e["shape"]) or close(w, e, None, False)[0]:
        return False
    return upstream_differs(prog, want, got, i)


def counts_nonzeros(node):
    """Whether a node is a norm (or dist, the norm of a difference) with p = 0, which counts the nonzero
    elements: a step at 0 (a singular matrix's det is 0 in one library and 1e-8 in the other, as their
    LU rounds; 1 - i0(4e-4) is 0 or an ulp)."""
    name = node.get("name")
    if name not in ("norm", "linalg.vector_norm", "linalg.norm", "dist"):
        return False
    args, kwargs = node.get("args", []), node.get("kwargs") or {}
    k = 2 if name == "dist" else 1
    p = kwargs.get("p", kwargs.get("ord", args[k] if len(args) > k else None))
    return not isinstance(p, (dict, list, str)) and p == 0


def in_place_writers(prog, i):
    """The in-place nodes that write to node i's value: their first operand is i."""
    return [k for k, n in enumerate(prog["nodes"]) if k > i and "name" in n and n["name"].endswith("_")
            and not n["name"].startswith("__") and next(iter(refs(n)), None) == i]


def holds_infinity(prog, want, i):
    """Whether one of node i's float tensor operands holds an infinity in torch's run: then any op is
    sensitive, as rounding's 0 against 1e-7 is NaN against inf there (inf * x, x @ inf)."""
    arrays = [torch_floats(want, j) for j in refs(prog["nodes"][i])]
    return any(a is not None and np.isinf(a).any() for a in arrays)


def upstream_differs(prog, want, got, i):
    """Whether a float value node i depends on differs at all (by rounding: it compared close) between
    torch and Ember: then an int or bool result that differs may be a comparison that rounding moved."""
    seen, todo = set(), list(refs(prog["nodes"][i]))
    while todo:
        j = todo.pop()
        if j in seen:
            continue
        seen.add(j)
        # NB: as made, and as in-place ops left it (one before the op may have written it)
        for w, e in ((made_value(want, j), made_value(got, j)), (want["values"][j], got["values"][j])):
            if w and e and w.get("dtype") in encoding.FLOAT_DTYPES and w.get("data") != e.get("data"):
                return True
            if w and e and zero_sign_unspecified(prog, j) and zero_signs_differ(w, e):
                return True
        todo.extend(refs(prog["nodes"][j]))
    return False


# Ops whose zero results' sign neither library specifies: torch's softshrink gives +0 in its vectorised loop
# and -0 in its scalar one (for -lambd < x < 0), and a matrix product's -0 depends on the order its
# kernel sums in (and on whether it scales by alpha or adds beta * C), as a convolution's, a singular
# matrix's det on the pivots its LU took. Ember's choice is one of them. And the normalisations, whose
# zero's sign follows the form: Ember's (x - mean) * scale gives +0 where x is the mean, PyTorch's
# x * scale + (bias - mean * scale) x's sign (python/README.md). And lerp: a fused multiply-add rounds an
# underflowing negative product to -0, where the product rounded apart adds +0 to -0; so does addcmul's
# (float64 0 + 5e-324 * -0.3 is -0 fused, +0 rounded twice; Ember's float32 one rounds once, through
# double). And which of tied zeros of both signs an order statistic (topk, sort, max, ...) picks.
ZERO_SIGN_UNSPECIFIED = {"F.softshrink", "det", "F.conv1d", "F.conv2d", "F.conv_transpose1d", "F.conv_transpose2d",
                         "matmul", "mm", "bmm", "addmm", "baddbmm", "F.linear", "F.bilinear",
                         "einsum", "tensordot", "__matmul__", "__rmatmul__",
                         "F.batch_norm", "F.instance_norm", "F.group_norm", "lerp", "addcmul"} | EXTREMA


# PyTorch's maximum and minimum give the second operand's zero in their vectorised loop and the first's in
# the scalar one (maximum(+0, -0) is -0 in the first 16 elements of 24 and +0 in the rest), and so does
# clamp with tensor bounds (min(max(x, lo), hi)); with number bounds its zero is x's everywhere.
CLAMPS = {"clamp", "clip", "clamp_min", "clamp_max"}


def zero_sign_unspecified(prog, j):
    """Whether node j is an op whose zero results' sign PyTorch leaves unspecified (see above)."""
    name = node_name(prog, j)
    base = name[:-1] if name.endswith("_") and not name.startswith("__") else name
    if base in ZERO_SIGN_UNSPECIFIED or base in ("maximum", "minimum"):  # in place too (lerp_)
        return True
    node = prog["nodes"][j]
    if base in ("add", "sub", "subtract") and "alpha" in (node.get("kwargs") or {}):
        return True  # NB: x - alpha * y fused, as lerp's (0 - 0.5 * 5e-324 is -0 fused, +0 rounded twice)
    bounds = list(node.get("args", [])[1:]) + list((node.get("kwargs") or {}).values())
    return base in CLAMPS and any(isinstance(b, dict) and "v" in b for b in bounds)


def zero_signs_differ(w, e):
    if "scalar" in w or "scalar" in e or list(w["shape"]) != list(e["shape"]):
        return False
    W, E = encoding.array(w), encoding.array(e)
    if W.dtype.kind != "f" or E.dtype.kind != "f":
        return False
    zero = (W == 0) & (E == 0)
    return bool(np.any(np.signbit(W[zero]) != np.signbit(E[zero])))


def refusal(prog, got):
    return Mismatch("ember_refuses_valid", f"node {got['at']}", node_name(prog, got["at"]),
                    f"{got['type']}: {got['msg']}")


def describe(e):
    if e is None:
        return "None"
    if "scalar" in e:
        return f"scalar {e['scalar']}"
    return f"{e['dtype']}{e['shape']}"


def compare_tensor(w, e, r, have_ref, kind, i, name, ties=False, where=None, tol_dtype=None, huge=(False, 0.0),
                   floor=0.0):
    """([mismatches], needs_ref) for one tensor entry (a value or a gradient)."""
    cat_of = (lambda c: c) if kind == "node" else (lambda c: "grad")
    where = where or (f"node {i}" if kind == "node" else f"grad of node {i}")
    if list(w["shape"]) != list(e["shape"]):
        if r is not None and list(r["shape"]) == list(e["shape"]):
            return [], False
        if not have_ref:
            return [], True
        return [Mismatch(cat_of("shape"), where, name, f"torch {w['shape']}, ember {e['shape']}")], False
    out = []
    if w["dtype"] != e["dtype"]:
        out.append(Mismatch(cat_of("dtype"), where, name, f"torch {w['dtype']}, ember {e['dtype']}"))
    if ties:
        return out, False
    ok, need, detail = close(w, e, r, have_ref, tol_dtype, huge, floor, noise_wide=kind == "grad")
    if need:
        return out, True
    if not ok:
        out.append(Mismatch(cat_of("value"), where, name, detail))
    elif detail:  # differences past an overflow only
        out.append(Mismatch(OVERFLOW, where, name, detail))
    return out, False


def distance(a, b):
    """|a - b| elementwise, 0 where both are the same NaN or infinity, inf where only one is NaN."""
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a - b)
    na, nb = np.isnan(a), np.isnan(b)
    d = np.where(a == b, 0.0, d)
    d = np.where(na & nb, 0.0, d)
    return np.where(na ^ nb, np.inf, d)


def finite_max(*arrays):
    m = 1.0
    for a in arrays:
        f = np.abs(a[np.isfinite(a)])
        if f.size:
            m = max(m, float(f.max()))
    return m


def close(w, e, r, have_ref, tol_dtype=None, huge=(False, 0.0), floor=0.0, noise_wide=False):
    """(ok, needs_ref, detail) for two entries of one shape (and the reference's, or None); tol_dtype:
    whose tolerances apply (default: w's dtype); huge: (whether the program's data holds huge values,
    the largest magnitude of the op's own operands where they do, else 0): then elements where either side
    is inf or NaN, and, for huge operands, elements that differ by no more than rounding of their
    magnitude, are past an overflow: ok, with a detail that says so. floor: an absolute difference always
    accepted (norm_amplification's); noise_wide: Ember's distance from the reference may be up to RATIO
    times torch's largest anywhere in the tensor, not only at that element (a gradient's noise)."""
    W = encoding.array(w)
    E = encoding.array(e)
    if W.dtype.kind not in "f" or E.dtype.kind not in "f":
        We, Ee = W.astype(np.float64), E.astype(np.float64)
        bad = ~(We == Ee) & ~(np.isnan(We) & np.isnan(Ee))
        if not bad.any():
            return True, False, ""
        if r is None:
            return False, not have_ref, first_bad(bad, We, Ee, None)
        R = encoding.array(r).astype(np.float64)
        if R.shape != We.shape:
            return False, False, first_bad(bad, We, Ee, None)
        bad &= ~((We != R) | (Ee == R))
        return not bad.any(), False, first_bad(bad, We, Ee, R)
    with np.errstate(all="ignore"):
        return close_floats(w, W.astype(np.float64), E.astype(np.float64), r, have_ref, tol_dtype, huge, floor,
                            noise_wide)


def close_floats(w, W64, E64, r, have_ref, tol_dtype, huge=(False, 0.0), floor=0.0, noise_wide=False):
    rtol, atol = TIGHT.get(tol_dtype or w["dtype"], TIGHT["float64"])
    scale = finite_max(W64, E64)
    # NB: the relative term of an infinite torch value is 0, not inf (inf <= inf would pass -inf for inf)
    tight = distance(W64, E64) <= rtol * np.where(np.isfinite(W64), np.abs(W64), 0.0) + atol * scale + floor
    tight |= (np.isnan(W64) & np.isnan(E64))
    if tight.all():
        return True, False, ""
    if r is None and not have_ref:
        return False, True, first_bad(~tight, W64, E64, None)
    R = encoding.array(r).astype(np.float64) if r is not None else None
    if R is None or R.shape != W64.shape:  # NB: no reference for it (its float64 run failed): overflow still explains
        return past_overflow(~tight, W64, E64, None, huge, REF.get(tol_dtype or w["dtype"], REF["float64"])[0])
    rtol, atol = REF.get(tol_dtype or w["dtype"], REF["float64"])
    scale = finite_max(W64, E64, R)
    with np.errstate(invalid="ignore", over="ignore"):
        torch_error = distance(W64, R)
        if noise_wide:  # NB: a gradient's rounding noise is the sums' it went through, in every element alike
            finite = torch_error[np.isfinite(torch_error)]
            torch_error = np.maximum(torch_error, finite.max() if finite.size else 0.0)
        explained = distance(E64, R) <= RATIO * torch_error + rtol * np.nan_to_num(np.abs(R)) + atol * scale
    return past_overflow(~(tight | explained), W64, E64, R, huge, rtol)


def past_overflow(bad, W64, E64, R, huge, rtol):
    """(ok, False, detail) for the elements still bad: ok where the data is huge and every one is inf or
    NaN on a side, or finite ones apart by no more than rounding of the op's huge operands (a sum's error
    bound: eps * sum |x|; 3e38 - 3e38 + 3 is 0 or 3 by the order), with a detail that says so."""
    any_huge, operands = huge
    if any_huge and bad.any():
        finite = bad & np.isfinite(W64) & np.isfinite(E64)
        if not (finite & (distance(W64, E64) > rtol * operands)).any():
            return True, False, "overflow: " + first_bad(bad, W64, E64, R)
    return not bad.any(), False, first_bad(bad, W64, E64, R)


OVERFLOW = "overflow"


def holds_huge(prog, want):
    """The largest finite magnitude of the program's float inputs where one is past the square root of
    its dtype's largest (a product of two overflows; the dtype's largest value is among the boundary
    values drawn), or where one is a normal number below its reciprocal (a quotient by it is such a
    value: the smallest normal number is drawn too), else 0. Which inf or NaN a computation past an overflow gives,
    and how much of a small term survives next to huge ones, depends on the order of its operations (a
    fused multiply-add, the order of a sum, a * b * c against a * (b * c)), which neither library
    specifies. Also a Python number past float32's such value, and where one input holds an infinity
    and one a subnormal number (see below)."""
    inputs = [i for i, n in enumerate(prog["nodes"]) if "input" in n]
    largest = largest_huge(want, inputs)
    # NB: the data as the program gives it too: an in-place op may have overwritten it (acosh_ of 1.8e308)
    for j in inputs:
        entry = prog["nodes"][j]["input"]
        if isinstance(entry, dict) and entry.get("dtype") in encoding.FLOAT_DTYPES and "data" in entry:
            largest = max(largest, largest_huge({"values": [entry]}, [0]))
    # NB: an infinity beside a subnormal: inf * (g * 1e-45) is NaN where the product underflowed first,
    # inf where inf * g came first (an einsum's order)
    # NB: so is a Python number past float32's square root of its largest (x - 2 * 3.4e38: a fused
    # multiply-add keeps inf - 6.8e38 inf, the separate product makes it inf - inf)
    for n in prog["nodes"]:
        for a in list(n.get("args", [])) + list((n.get("kwargs") or {}).values()):
            v = a.get("f") if isinstance(a, dict) else a
            if isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) \
                    and abs(v) >= np.sqrt(np.finfo(np.float32).max):
                largest = max(largest, float(abs(v)))
    arrays = [a for a in (torch_floats(want, j) for j in inputs) if a is not None]
    with np.errstate(all="ignore"):
        if any(np.isinf(a).any() for a in arrays) and any(
                ((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)).any() for a in arrays):
            largest = max(largest, float(np.finfo(np.float32).max))
    for j in inputs:
        a = torch_floats(want, j)
        if a is None:
            continue
        with np.errstate(all="ignore"):
            tiny = np.abs(a[np.isfinite(a) & (np.abs(a) >= np.finfo(a.dtype).tiny)])
        if tiny.size and tiny.min() <= 1 / np.sqrt(np.finfo(a.dtype).max):
            largest = max(largest, float(1 / np.float64(tiny.min())))
    return largest


# Ops whose result may share its operand's memory, and the normalisations that write their running
# statistics (arguments 1 and 2) in place.
VIEWS = {"getitem", "view", "view_as", "narrow", "select", "transpose", "t", "expand", "expand_as", "diagonal",
         "unsqueeze", "squeeze", "permute", "unflatten", "movedim", "swapaxes", "reshape", "flatten", "contiguous"}
RUNNING_STATS = {"F.batch_norm", "F.instance_norm"}


def view_closure(prog, i):
    """Node i and the later nodes that may be views of it (VIEWS of i or of such a node)."""
    closure, nodes = {i}, prog["nodes"]
    for k in range(i + 1, len(nodes)):
        if nodes[k].get("name") in VIEWS and next(iter(refs(nodes[k])), None) in closure:
            closure.add(k)
    return closure


def stat_writers(prog, i):
    """The normalisations that write running statistics into node i's memory (through i or a view of
    it): an update of the mean from huge data rounds as the data's magnitude (3.4e38 - 3.4e38 + 3)."""
    closure, nodes = view_closure(prog, i), prog["nodes"]
    return [k for k in range(i + 1, len(nodes)) if nodes[k].get("name") in RUNNING_STATS
            and any(isinstance(a, dict) and a.get("v") in closure for a in nodes[k].get("args", [])[1:3])]


def huge_operands(prog, want, i):
    """The same of node i's operands: the largest finite magnitude where one is huge, else 0."""
    return largest_huge(want, refs(prog["nodes"][i]))


def largest_huge(want, nodes):
    largest = 0.0
    for j in nodes:
        a = torch_floats(want, j)
        if a is None:
            continue
        with np.errstate(all="ignore"):
            finite = np.abs(a[np.isfinite(a)])
        if finite.size and finite.max() >= np.sqrt(np.finfo(a.dtype).max):
            largest = max(largest, float(finite.max()))
    return largest


def torch_floats(want, j):
    """Node j's float tensor value as torch made it (an array), or None."""
    w = made_value(want, j) if j is not None and j < len(want["values"]) else None
    if not w or w.get("dtype") not in encoding.FLOAT_DTYPES or "data" not in w:
        return None
    return encoding.array(w)


def final_floats(want, j):
    """Node j's float tensor value as torch's later in-place ops left it (an array), or None."""
    w = want["values"][j] if j is not None and j < len(want["values"]) else None
    if not w or w.get("dtype") not in encoding.FLOAT_DTYPES or "data" not in w:
        return None
    return encoding.array(w)


def first_bad(bad, W, E, R):
    flat = np.flatnonzero(bad)
    if not flat.size:
        return ""
    i = flat[0]
    where = [int(v) for v in np.unravel_index(i, bad.shape)]
    text = f"{flat.size} of {bad.size} differ; at {where}: torch {num(W.flat[i])}, ember {num(E.flat[i])}"
    if R is not None:
        text += f", float64 reference {num(R.flat[i])}"
    return text


def num(v):
    v = float(v)
    return repr(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)


def compare_scalar(w, e, r, have_ref):
    if "scalar" not in w or "scalar" not in e:
        return False, False, f"torch {describe(w)}, ember {describe(e)}"
    a, b = encoding.scalar(w), encoding.scalar(e)
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                       and not isinstance(a, bool) and not isinstance(b, bool)):
        return False, False, f"torch {a!r} ({type(a).__name__}), ember {b!r} ({type(b).__name__})"
    wa = {"dtype": "float32" if isinstance(a, float) else "int64", "shape": [], "data": [encoding.number(a)]}
    ea = dict(wa, data=[encoding.number(b)])
    ra = None
    if r is not None and "scalar" in r:
        ra = dict(wa, data=[r["scalar"]])
    return close(wa, ea, ra, have_ref)


def severity(mismatches):
    """The program's category: its most severe mismatch's (None for a match)."""
    cats = [m.category for m in mismatches]
    for c in CATEGORIES:
        if c in cats:
            return c
    return None
