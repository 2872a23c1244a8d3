"""A worker process over one library: `python runner.py torch` or `python runner.py ember`.

Reads requests, one JSON object a line, on stdin; writes one response line each, in order, on stdout:
    {"id": n, "op": "run", "prog": {...}, "f64": false, "dtypes": null} -> {"id": n, "res": <interpret.py's result>}
    {"id": n, "op": "gen", "seed": s}  (torch only)      -> {"id": n, "prog": {...}, "res": {...}}
"gen" draws the program of seed s while running it (generator.py) and answers with torch's result.
The library's own prints go to stderr (fd 1 is moved there), so stdout carries only responses; a
crash (segfault) ends the process, and faulthandler writes its stack to stderr for the driver's log.
"""
import faulthandler
import json
import os
import random
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import generator  # noqa: E402
import interpret  # noqa: E402

KEEP_FAILED_BACKWARD = 0.5


class LiveExecutor:
    """Runs the generator's nodes one by one over live values (generator.Gen's executor)."""

    def __init__(self, interp):
        self.interp, self.vals, self.made = interp, [], {}

    def add(self, node):
        v = self.interp.input(node["input"]) if "input" in node else self.interp.call(node, self.vals)
        self.vals.append(v)
        if "call" in node:
            self.made[len(self.vals) - 1] = self.interp.entry(v)
        if isinstance(v, self.interp.L.Tensor):
            return generator.Meta(tuple(v.shape), interpret.library_dtype_name(v.dtype), bool(v.requires_grad))
        return generator.Meta(None, type(v).__name__, False)

    def has_ties(self, i, dim):
        t = self.vals[i].detach()
        if dim is None:
            t, dim = t.flatten(), 0
        if t.dim() == 0 or t.shape[dim] < 2:
            return False
        s = t.sort(dim).values
        n = s.shape[dim]
        a, b = s.narrow(dim, 1, n - 1), s.narrow(dim, 0, n - 1)
        return bool(((a == b) | (a.isnan() & b.isnan())).any()) if t.is_floating_point() else bool((a == b).any())

    def expanded(self, i, dim):
        t = self.vals[i]
        return t.dim() > 0 and t.shape[dim] > 1 and t.stride(dim) == 0

    def contiguous(self, i):
        return self.vals[i].is_contiguous()

    def shares_memory(self, i, j):
        """Whether values i and j are tensors on one storage, other than the same view of it."""
        a, b, L = self.vals[i], self.vals[j], self.interp.L
        if not (isinstance(a, L.Tensor) and isinstance(b, L.Tensor)):
            return False
        try:
            same = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        except (AttributeError, RuntimeError):
            return False
        return same and not (a.data_ptr() == b.data_ptr() and a.stride() == b.stride() and a.shape == b.shape)

    def overlap(self, i):
        t, L = self.vals[i], self.interp.L
        return int(L._debug_has_internal_overlap(t)) if isinstance(t, L.Tensor) else 0

    def truncate(self, n):
        del self.vals[n:]
        self.made = {i: e for i, e in self.made.items() if i < n}


def gen(L, F, seed):
    interp = interpret.Interpreter(L, F)
    ex = LiveExecutor(interp)
    prog, clean = generator.generate(seed, ex)
    res = interp.finish(prog, ex.vals, ex.made) if clean else interp.run(prog)
    if not res["ok"] and res["at"] == "backward" and random.Random(seed).random() >= KEEP_FAILED_BACKWARD:
        prog["backward"] = []  # a backward torch refuses is kept half the time; else the forward only
        res = interpret.Interpreter(L, F).run(prog)
    return prog, res


def main():
    lib = sys.argv[1]
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()
    warnings.simplefilter("ignore")
    if lib == "torch":
        import torch as L
        import torch.nn.functional as F
    else:
        import ember as L
        import ember.nn.functional as F
    L.set_num_threads(1)
    for line in sys.stdin:
        req = json.loads(line)
        out = {"id": req["id"]}
        try:
            if req["op"] == "gen":
                out["prog"], out["res"] = gen(L, F, req["seed"])
            else:
                out["res"] = interpret.Interpreter(L, F, req.get("f64", False), req.get("dtypes")).run(req["prog"])
        except Exception:  # noqa: BLE001 - a bug of the harness, not of the library: reported as such
            out["harness_error"] = traceback.format_exc()[-2000:]
        proto.write(json.dumps(out) + "\n")
        proto.flush()


if __name__ == "__main__":
    main()
