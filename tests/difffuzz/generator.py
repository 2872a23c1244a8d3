"""From a seed, a random program of 3 to 8 ops chained as user code chains them (interpret.py describes
the JSON), built while it runs in the reference library.

The generator runs each node as it adds it (through an executor: runner.py's, over torch), so it knows
every value's shape, dtype and requires_grad without shape rules of its own, and a node torch rejects is
drawn again (up to ATTEMPTS times). Now and then (KEEP_INVALID) the rejected node is kept as the last one
instead: the program must then fail in Ember at the same node ("ember accepts invalid input" otherwise).
At the end, backward runs from the float values that require grad and that no later node uses, each
with a random cotangent.

Torch-free: the executor is passed in (Executor below); the op table is registry.OPS, filled by ops_*.py.
"""
import os
import random
import sys
import traceback
from typing import NamedTuple, Optional

import numpy as np

import encoding
import registry
import values

ATTEMPTS = 8
KEEP_INVALID = 0.08
BACKWARD = 0.85
VIEW_INPUT = 0.25


class Meta(NamedTuple):
    shape: Optional[tuple]  # None for a value that is not a tensor
    dtype: str
    rg: bool


class Rejected(Exception):
    """The reference library raised on a node (the node and the exception ride along)."""

    def __init__(self, node, error):
        super().__init__(str(error))
        self.node, self.error = node, error


class Gen:
    """The context the op builders draw in (registry.py)."""

    def __init__(self, seed, executor):
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(seed)
        self.ex = executor
        self.nodes, self.metas, self.used = [], [], []
        self.hidden = set()  # values later nodes must not use (indices that ties make ambiguous)

    # -- nodes -----------------------------------------------------------------------------------
    def _add(self, node):
        try:
            meta = self.ex.add(node)
        except Exception as e:  # noqa: BLE001 - the library's verdict
            raise Rejected(node, e) from None
        self.nodes.append(node)
        self.metas.append(meta)
        self.used.append(False)
        for i in refs(node):
            self.used[i] = True
        return {"v": len(self.nodes) - 1}

    def mark(self):
        return len(self.nodes)

    def rollback(self, n):
        del self.nodes[n:], self.metas[n:], self.used[n:]
        self.hidden = {i for i in self.hidden if i < n}
        self.used = [False] * len(self.nodes)
        for node in self.nodes:
            for i in refs(node):
                self.used[i] = True
        self.ex.truncate(n)

    def call(self, name, call, *args, kwargs=None, pick=None, aliased=False):
        """Adds the call node `call`(*args, **kwargs)[pick] (the forms interpret.py reads); its ref. An
        in-place op's other tensor operands that share memory with the tensor it writes, as another view
        (`x.addcdiv_(y, x[:, :1])`), are cloned first unless `aliased` (ops_inplace.overlap draws those on
        purpose): PyTorch computes such ops in iteration order, reading what it wrote, where Ember reads the
        operands first (python/README.md), and the dense overlaps both refuse are drawn there."""
        if not aliased and name.endswith("_") and not name.startswith("__") and args and isinstance(args[0], dict) \
                and "v" in args[0]:
            args = tuple(self.call("clone", ".clone", a) if k and self.aliases(args[0], a) else a
                         for k, a in enumerate(args))
            if kwargs:
                kwargs = {k: self.call("clone", ".clone", a) if self.aliases(args[0], a) else a
                          for k, a in kwargs.items()}
        node = {"name": name, "call": call, "args": list(args)}
        if kwargs:
            node["kwargs"] = kwargs
        if pick is not None:
            node["pick"] = pick
        return self._add(node)

    def fn_or_method(self, name, x, *args, kwargs=None, pick=None, method=True, fn=True):
        """L.name(x, ...) or x.name(...), drawn (where both forms exist)."""
        if method and (not fn or self.rng.random() < 0.5):
            return self.call(name, "." + name, x, *args, kwargs=kwargs, pick=pick)
        return self.call(name, "L." + name, x, *args, kwargs=kwargs, pick=pick)

    # -- operands --------------------------------------------------------------------------------
    def meta(self, ref):
        return self.metas[ref["v"]]

    def pick(self, pred=None, fresh_p=0.15, **fresh):
        """An earlier tensor value that satisfies pred (mostly the newest one, and one that no node used
        yet before others), or a fresh input (g.fresh(**fresh)) when none does or by chance."""
        cands = [i for i, m in enumerate(self.metas)
                 if m.shape is not None and i not in self.hidden and (pred is None or pred(m))]
        if cands and self.rng.random() >= fresh_p:
            unused = [i for i in cands if not self.used[i]]
            r = self.rng.random()
            if r < 0.5:
                return {"v": cands[-1]}
            if unused and r < 0.8:
                return {"v": self.rng.choice(unused)}
            return {"v": self.rng.choice(cands)}
        return self.fresh(**fresh)

    def fresh(self, shape=None, dtype="float", kind="normal", grad=None, view=None, min_ndim=0,
              forms=("transpose", "step", "expand"), **kw):
        """A new input: dtype "float" (float32, float64 sometimes), "any" (values.DTYPE_WEIGHTS) or a
        name; float inputs require grad mostly; now and then seen through a non-contiguous view of a
        bigger or smaller base (one of `forms`: a transpose, a slice with a step, an expand) with the
        same shape."""
        rng = self.rng
        if dtype == "float":
            dtype = "float32" if rng.random() < 0.85 else "float64"
        elif dtype == "any":
            dtype = values.draw_dtype(rng)
        shape = list(values.draw_shape(rng, min_ndim=min_ndim) if shape is None else shape)
        if grad is None:
            grad = rng.random() < 0.8
        if view is None:
            view = rng.random() < VIEW_INPUT and len(shape) >= 1 and kind != "index"
        if not view:
            return self._add({"input": values.draw_input(rng, self.nrng, shape, dtype, kind, grad, **kw)})
        form = rng.choice([f for f in forms if f != "transpose" or len(shape) >= 2])
        nd = len(shape)
        if form == "transpose":
            i, j = rng.sample(range(nd), 2)
            base_shape = list(shape)
            base_shape[i], base_shape[j] = shape[j], shape[i]
            base = self._add({"input": values.draw_input(rng, self.nrng, base_shape, dtype, kind, grad, **kw)})
            return self.call("transpose", ".transpose", base, i, j)
        if form == "step":
            d = rng.randrange(nd)
            base_shape = list(shape)
            base_shape[d] = shape[d] * 2
            base = self._add({"input": values.draw_input(rng, self.nrng, base_shape, dtype, kind, grad, **kw)})
            index = [{"slice": [None, None, None]}] * d + [{"slice": [None, None, 2]}]
            return self.call("getitem", "[]", base, {"tuple": index})
        base_shape = [1 if rng.random() < 0.5 else s for s in shape]
        base = self._add({"input": values.draw_input(rng, self.nrng, base_shape, dtype, kind, grad, **kw)})
        return self.call("expand", ".expand", base, list(shape))

    def index(self, shape, high, low=0, special=None):
        """A fresh int64 input of indices in [low, high) (high 0: an index tensor that must be empty);
        about a third of them `special` where given (an ignore_index)."""
        spec = values.draw_input(self.rng, self.nrng, list(shape), "int64", "index", low=low, high=high)
        if special is not None and spec["data"]:
            spec["data"] = [special if self.rng.random() < 0.3 else v for v in spec["data"]]
        return self._add({"input": spec})

    def has_ties(self, ref, dim=None):
        """Whether the value has equal elements (NaNs count as equal) along dim (in all of it for None):
        where it does, which element a sort-based op's gradient reaches is unspecified."""
        return self.ex.has_ties(ref["v"], dim)

    def expanded(self, ref, dim):
        """Whether the value is an expanded view along dim (stride 0 there, more than one element)."""
        return self.ex.expanded(ref["v"], dim)

    def contiguous(self, ref):
        return self.ex.contiguous(ref["v"])

    def aliases(self, ref, other):
        """Whether `other` (an operand) is a tensor value other than ref that shares ref's memory."""
        return isinstance(other, dict) and "v" in other and other["v"] != ref["v"] and \
            self.ex.shares_memory(ref["v"], other["v"])

    def overlap(self, ref):
        """torch's internal-overlap verdict on the value: 0 no, 1 yes (an in-place write is refused),
        2 too hard to tell (an unfold's windows: torch writes shared elements once per view element)."""
        return self.ex.overlap(ref["v"])

    def hide(self, ref):
        self.hidden.add(ref["v"])

    def unique_index(self, shape, dim, high):
        """A fresh int64 input of `shape` whose entries along `dim` are distinct, in [0, high) (for the
        scatters and copies whose result with duplicate indices torch leaves unspecified)."""
        shape = list(shape)
        if not shape:
            data = np.array(self.rng.randrange(max(high, 1)), np.int64)
        else:
            shape[dim] = min(shape[dim], high)
            wide = list(shape)
            wide[dim] = high
            order = np.argsort(self.nrng.random(wide), axis=dim, kind="stable")
            data = np.take(order, np.arange(shape[dim]), axis=dim).astype(np.int64)
        e = encoding.entry(data)
        e["grad"] = False
        e["distinct"] = True  # shrinking keeps these values (duplicates would make torch's result unspecified)
        return self._add({"input": e})

    def mask(self, shape):
        return self._add({"input": values.draw_input(self.rng, self.nrng, list(shape), "bool", "mask")})

    # -- arguments -------------------------------------------------------------------------------
    def dim(self, m, negative=True):
        """A valid dim of m (negative ones too); 0 or -1 for a 0-d tensor, as torch allows."""
        nd = max(len(m.shape), 1)
        d = self.rng.randrange(nd)
        return d - nd if negative and self.rng.random() < 0.3 else d

    def dims(self, m, k=None):
        nd = len(m.shape)
        k = self.rng.randint(1, max(nd, 1)) if k is None else k
        return sorted(self.rng.sample(range(nd), min(k, nd)))

    def bshape(self, shape):
        """A shape that broadcasts with `shape`: a suffix of it with some sizes 1, or (rarely) with one more
        leading dim; now and then `shape` itself."""
        rng = self.rng
        shape = list(shape)
        if rng.random() < 0.4:
            return shape
        out = shape[rng.randrange(len(shape) + 1):] if shape else []
        out = [1 if rng.random() < 0.35 else s for s in out]
        if rng.random() < 0.1 and len(shape) < 6:
            out = [rng.choice((1, 2))] + (shape if rng.random() < 0.5 else out)
        return out

    def scalar(self, dtype="float", boundary=0.1):
        """A Python number for an argument: a float (sometimes a boundary value), an int or a bool."""
        rng = self.rng
        if dtype == "bool":
            return rng.random() < 0.5
        if dtype in ("int", "int64"):
            return rng.choice((0, 1, -1, 2, 3, -2, 5))
        if rng.random() < boundary:
            return float_arg(rng.choice(values.boundary_floats("float32")))
        return rng.choice((0.5, -0.5, 1.5, 2.0, -1.25, 0.75, 3.0, 0.1, 1.0, 0.0))


def float_arg(v):
    """A float as a program argument ({"f": "nan"} for a non-finite one)."""
    v = float(v)
    return v if np.isfinite(v) else {"f": encoding.number(v)}


def refs(node):
    """The node indices a node's arguments use."""
    out = []

    def walk(a):
        if isinstance(a, list):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            if "v" in a:
                out.append(a["v"])
            for k in ("tuple",):
                if k in a:
                    walk(a[k])
    walk(node.get("args", []))
    walk(list(node.get("kwargs", {}).values()))
    return out


_TABLE = []


def draw_op(rng):
    if not _TABLE:
        builds = [b for _, _, b in registry.OPS]
        cum, total = [], 0.0
        for _, w, _ in registry.OPS:
            total += w
            cum.append(total)
        _TABLE.extend([builds, cum])
    builds, cum = _TABLE
    return rng.choices(builds, cum_weights=cum)[0]


def generate(seed, executor):
    """The program of `seed` (a dict), built over the executor. Returns (program, clean): clean is False
    when the executor ran a node that raised (whose partial effects a fresh run must not inherit)."""
    import ops  # noqa: F401 - fills registry.OPS

    g = Gen(seed, executor)
    rng = g.rng
    goal = rng.randint(3, 8)
    clean = True
    calls = 0
    prog = {"seed": seed, "nodes": g.nodes, "backward": []}
    while calls < goal:
        for _ in range(ATTEMPTS):
            start = g.mark()
            build = draw_op(rng)
            try:
                build(g)
                break
            except Rejected as r:
                clean = False
                if "call" in r.node and calls >= 2 and rng.random() < KEEP_INVALID:
                    g.nodes.append(r.node)  # the program ends at the node torch rejects
                    return prog, False
                g.rollback(start)
            except Exception:  # a bug of a builder (not torch's verdict): counted, and drawn again
                if os.environ.get("DIFFFUZZ_STRICT"):
                    raise
                print(f"builder error (seed {seed}):\n{traceback.format_exc()}", file=sys.stderr)
                clean = False
                prog["builder_errors"] = prog.get("builder_errors", 0) + 1
                g.rollback(start)
        else:
            break
        calls = sum(1 for n in g.nodes if "call" in n)
    roots = [i for i, (n, m) in enumerate(zip(g.nodes, g.metas))
             if "call" in n and not g.used[i] and m.rg and m.dtype in encoding.FLOAT_DTYPES]
    if roots and rng.random() < BACKWARD:
        for i in roots:
            m = g.metas[i]
            cot = g.nrng.standard_normal(m.shape) if m.shape else g.nrng.standard_normal()
            cot = np.where(g.nrng.random(m.shape) < 0.1, 0.0, np.round(cot, 3))
            prog["backward"].append({"v": i, "grad": encoding.entry(np.asarray(cot, encoding.NUMPY_DTYPES[m.dtype]))})
    return prog, clean
