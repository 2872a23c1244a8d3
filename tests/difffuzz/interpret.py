"""Runs one program (the JSON data generator.py writes) over a library: torch or ember.

A program is {"nodes": [...], "backward": [...]}. A node is either an input,
    {"input": {"dtype", "shape", "data", "grad": bool}}                 (a tensor entry, encoding.py)
or a call over earlier nodes,
    {"name": "add", "call": "L.add", "args": [{"v": 0}, 2.5], "kwargs": {"alpha": 2}, "pick": 0}
where "call" is "L.<dotted name>" (the library), "F.<name>" (its nn.functional), ".<method>" (a method of
the first argument), "@<attribute>" (an attribute of it: T, mT), "[]" (args[0][args[1]]) or "[]=" (the
assignment args[0][args[1]] = args[2], whose value is args[0]); "pick" takes one element of the result.
Arguments: {"v": i} is node i's value, {"dtype": "float64"} a dtype of the library, {"slice": [a, b, c]},
{"ellipsis": 1}, {"tuple": [...]}, {"f": "nan"|"inf"|"-inf"} a non-finite float, lists are lists, and
numbers, strings, booleans and null are themselves.
"backward" lists the roots: [{"v": i, "grad": entry | "ones"}], run as one L.autograd.backward(roots, grads).

The result of a run, sent back by runner.py and compared by compare.py:
    {"ok": true, "values": [per node: entry + {"rg": requires_grad} | {"scalar": x} | null],
     "grads": {"<input node>": entry | null}, "made": {"<node>": entry}}
    {"ok": false, "at": <node index> | "backward" | "collect", "type": "RuntimeError", "msg": "..."}
Values are read after the whole program ran (after its in-place ops and backward), as user code sees them;
where a program writes in place, "made" also holds a node's value as the node made it, for each node a
later op changed (the comparison blames the first op that made a wrong value, not a clone written later).
With f64=True every float32 input (and cotangent of a float64 root), and every float32 the program asks
for (a dtype argument, .float(), the default dtype), is float64: the reference run that tells rounding from a bug; given the
float32 run's dtypes, its conversions alias as there (convert()).
Needs NumPy and the library only (no torch in the CI replay).
"""
import numpy as np

import encoding

MAX_MSG = 300


def library_dtype_name(dtype):
    """'float32' for torch.float32 or ember.float32."""
    return str(dtype).rsplit(".", 1)[-1]


class Interpreter:
    def __init__(self, L, F, f64=False, dtypes=None):
        self.L, self.F, self.f64 = L, F, f64
        self.dtypes = dtypes  # f64 run: each node's dtype in the float32 run (see convert())

    # -- building values -------------------------------------------------------------------------
    def tensor(self, e, dtype=None):
        """A fresh tensor of the library from a tensor entry (float32 made float64 in the f64 run)."""
        a = encoding.array(e, dtype)
        if self.f64 and a.dtype == np.float32:
            a = a.astype(np.float64)
        return self.L.from_numpy(np.array(a, order="C"))  # NB: ascontiguousarray makes a 0-d array 1-d

    def cotangent(self, e, root):
        """The gradient a backward root receives: a tensor entry, or "ones" (shrinking writes it, so
        that shapes can shrink)."""
        dtype = library_dtype_name(root.dtype)
        if e == "ones":
            return self.L.from_numpy(np.ones(tuple(root.shape), encoding.NUMPY_DTYPES.get(dtype, np.float32)))
        return self.tensor(e, dtype)

    def input(self, spec):
        t = self.tensor(spec)
        return t.requires_grad_() if spec.get("grad") else t

    def decode(self, a, vals):
        if isinstance(a, list):
            return [self.decode(x, vals) for x in a]
        if not isinstance(a, dict):
            return a
        if "v" in a:
            return vals[a["v"]]
        if "dtype" in a:
            # NB: the f64 run computes what the program asks in float32 in float64 too (sum(dtype=float32)
            # of float64 data): the reference is then the exact result, not the float32 run's rounding
            return getattr(self.L, "float64" if self.f64 and a["dtype"] == "float32" else a["dtype"])
        if "slice" in a:
            return slice(*a["slice"])
        if "ellipsis" in a:
            return Ellipsis
        if "tuple" in a:
            return tuple(self.decode(x, vals) for x in a["tuple"])
        if "f" in a:
            return float(a["f"])
        raise ValueError(f"unknown argument {a}")

    def call(self, node, vals):
        args = [self.decode(a, vals) for a in node.get("args", [])]
        kwargs = {k: self.decode(v, vals) for k, v in node.get("kwargs", {}).items()}
        call = node["call"]
        if self.f64 and self.dtypes and node.get("name") in CONVERSIONS and args:
            return self.convert(node, args, kwargs, vals)
        if call.startswith("L.") or call.startswith("F."):
            fn = self.L if call[0] == "L" else self.F
            for part in call[2:].split("."):
                fn = getattr(fn, part)
            out = fn(*args, **kwargs)
        elif call.startswith("."):
            out = getattr(args[0], call[1:])(*args[1:], **kwargs)
        elif call.startswith("@"):
            out = getattr(args[0], call[1:])
        elif call == "[]":
            out = args[0][args[1]]
        elif call == "[]=":
            args[0][args[1]] = args[2]
            out = args[0]
        else:
            raise ValueError(f"unknown call {call}")
        if "pick" in node:
            out = out[node["pick"]]
        return out

    def convert(self, node, args, kwargs, vals):
        """A dtype conversion in the f64 run, aliasing as it did in the float32 run: where the float32
        run converted nothing (x.float() of a float32 x returns x itself), neither does this one; where it
        converted (x.double() of a float32 x, a new tensor), this one copies even if x is float64 already,
        so that a later in-place op writes where it wrote in the float32 run."""
        src = node["args"][0].get("v") if isinstance(node["args"][0], dict) else None
        if src is not None and self.dtypes[src] is not None and self.dtypes[src] == self.dtypes[len(vals)]:
            return args[0]
        method = "double" if node["call"] == ".float" else node["call"][1:]
        out = getattr(args[0], method)(*args[1:], **kwargs)
        return out.clone() if out is args[0] else out

    # -- reading values --------------------------------------------------------------------------
    def entry(self, v):
        if isinstance(v, self.L.Tensor):
            e = encoding.entry(v.detach().numpy(), library_dtype_name(v.dtype))
            e["rg"] = bool(v.requires_grad)
            return e
        if isinstance(v, (bool, int, float)):
            return {"scalar": encoding.number(v)}
        return None

    # -- a whole program -------------------------------------------------------------------------
    def run(self, prog):
        if not self.f64:
            return self.run_nodes(prog)
        # NB: what the program makes in the default dtype (erfc of a bool tensor) is float64 there too
        default = self.L.get_default_dtype()
        self.L.set_default_dtype(self.L.float64)
        try:
            return self.run_nodes(prog)
        finally:
            self.L.set_default_dtype(default)

    def run_nodes(self, prog):
        vals, made = [], {}
        snapshots = writes_in_place(prog)
        at = None
        try:
            for at, node in enumerate(prog["nodes"]):
                vals.append(self.input(node["input"]) if "input" in node else self.call(node, vals))
                if snapshots and "call" in node:
                    made[at] = self.entry(vals[-1])
        except Exception as e:  # noqa: BLE001 - any exception is a result to compare
            return error(at, e)
        return self.finish(prog, vals, made)

    def finish(self, prog, vals, made=None):
        """Backward from prog's roots over the values of its nodes, then the result (see the top);
        made: the values as each node made them (entries), kept where a later in-place op changed them."""
        at = "backward"
        try:
            roots = [vals[r["v"]] for r in prog.get("backward", [])]
            if roots:
                grads = [self.cotangent(r["grad"], t) for r, t in zip(prog["backward"], roots)]
                self.L.autograd.backward(roots, grads)
            at = "collect"
            values = [self.entry(v) for v in vals]
            grads = {str(i): self.entry(vals[i].grad) if vals[i].grad is not None else None
                     for i, node in enumerate(prog["nodes"]) if "input" in node and node["input"].get("grad")}
        except Exception as e:  # noqa: BLE001
            return error(at, e)
        for g in grads.values():
            if g is not None:
                g.pop("rg", None)
        res = {"ok": True, "values": values, "grads": grads}
        changed = {str(i): e for i, e in (made or {}).items() if i < len(values) and data(e) != data(values[i])}
        if changed:
            res["made"] = changed
        return res


CONVERSIONS = ("to", "double", "float", "long", "bool", "type_as")


def data(e):
    return None if e is None else e.get("data", e.get("scalar"))


def in_place(name):
    """Whether an op (a node's name) writes to its first argument."""
    return name == "setitem" or (name.endswith("_") and not name.startswith("__"))


def writes_in_place(prog):
    return any(in_place(n.get("name", "")) for n in prog["nodes"])


def error(at, e):
    return {"ok": False, "at": at, "type": type(e).__name__, "msg": str(e)[:MAX_MSG]}
