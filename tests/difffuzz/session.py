"""One pair of workers (torch and Ember) and what the driver does with a program over them: evaluate
it (torch's result, Ember's, the float64 reference when the comparison asks for one), classify it, and
shrink it while it still fails the same way."""
import compare
from interpret import in_place
import shrink
from workers import Worker, WorkerDied

# Categories whose mismatch names the op it shows at: the op is part of the mismatch's key. The others
# (a crash, a hang, a gradient) name no op; their key is the set of ops of the shrunk program.
BLAMEABLE = ("ember_refuses_valid", "ember_accepts_invalid", "shape", "dtype", "value", "requires_grad")


class Evaluation:
    def __init__(self, prog, want, got, ref, mismatches, allowlist):
        self.prog, self.want, self.got, self.ref = prog, want, got, ref
        self.allowed = [m for m in mismatches if compare.allowed(m, allowlist, prog, want)]
        self.mismatches = [m for m in mismatches if not compare.allowed(m, allowlist, prog, want)]
        self.category = compare.severity(self.mismatches)
        top = [m for m in self.mismatches if m.category == self.category]
        # NB: an in-place op changes the value of the node it writes to (an earlier node, a clone say):
        # a node whose value was right when made but differs at the end is not to blame, the in-place op
        # that wrote it is (its own value differs when made, or, failing that, it is an in-place op).
        made_right = [m for m in top if not m.where.endswith(compare.LATER)]
        if made_right:
            self.top = made_right[0]
        else:
            self.top = next((m for m in top if in_place(m.blame)), top[0] if top else None)

    def outcome(self):
        """The program's line in the counts: a mismatch category, or match / match_rounding (the
        reference was needed) / match_overflow (differences past an overflow of huge data only, see
        compare.holds_huge) / both_raise / deliberate (allowlisted differences only)."""
        if self.category:
            return self.category
        if self.allowed:
            return "deliberate"
        if any(m.category == compare.OVERFLOW for m in self.mismatches):
            return "match_overflow"
        if not self.want["ok"]:
            return "both_raise"
        return "match_rounding" if self.ref is not None else "match"

    def blame_key(self):
        """The key of a blameable mismatch ("value:F.cosine_similarity", "ember_refuses_valid:take:
        IndexError"), or None for the other categories."""
        m = self.top
        if m is None or m.category not in BLAMEABLE:
            return None
        key = f"{m.category}:{m.blame}"
        if m.category == "ember_refuses_valid":
            key += ":" + m.detail.split(":", 1)[0]
        return key


def op_names(prog):
    return sorted({n["name"] for n in prog["nodes"] if "name" in n})


class Session:
    def __init__(self, torch_python, ember_python, log_prefix, timeout, allowlist):
        self.torch = Worker(torch_python, "torch", log_prefix + "torch.log")
        self.ember = Worker(ember_python, "ember", log_prefix + "ember.log")
        self.timeout, self.allowlist = timeout, allowlist

    def close(self):
        self.torch.stop()
        self.ember.stop()

    def run_ember(self, prog):
        try:
            msg = self.ember.call({"op": "run", "prog": prog}, self.timeout)
        except WorkerDied as d:
            return {"crash": d.kind == "crash", "hang": d.kind == "hang", "detail": d.detail}
        if "harness_error" in msg:
            raise HarnessError(msg["harness_error"])
        return msg["res"]

    def run_torch(self, prog, f64=False, like=None):
        """torch's result; f64: the reference run, like: the float32 run's result (its dtypes)."""
        dtypes = [v.get("dtype") if v else None for v in like["values"]] if like and like.get("ok") else None
        msg = self.torch.call({"op": "run", "prog": prog, "f64": f64, "dtypes": dtypes}, self.timeout * 3)
        if "harness_error" in msg:
            raise HarnessError(msg["harness_error"])
        return msg["res"]

    def evaluate(self, prog, want=None, always_ref=False):
        """An Evaluation of prog (want: torch's result when the generator already has it). Raises
        WorkerDied when torch's worker dies (the program is then skipped). A mismatch against the
        generator's result is evaluated again against a replay of prog in torch, whose result the
        shrinking and the saved case use too (in one run torch's instance_norm left a running mean of
        -3.4e38 unwritten while generating seed 31311047, and wrote -inf in every replay of it)."""
        live = want is not None
        if want is None:
            want = self.run_torch(prog)
        got = self.run_ember(prog)
        mismatches, needs_ref = compare.compare(prog, want, got, allowlist=self.allowlist)
        ref = None
        if needs_ref or always_ref:
            ref = self.run_torch(prog, f64=True, like=want)
            mismatches, _ = compare.compare(prog, want, got, ref, self.allowlist)
        ev = Evaluation(prog, want, got, ref, mismatches, self.allowlist)
        if ev.category and live:
            return self.evaluate(prog, always_ref=always_ref)
        return ev

    def shrink(self, ev, max_evals, max_seconds):
        """The smallest program found that fails as ev does (same category; for a blameable one, at an
        op of the same name), its evaluation (with the reference result), and candidates tried."""
        key, cat = ev.blame_key(), ev.category

        def still_fails(cand):
            try:
                e = self.evaluate(cand)
            except (WorkerDied, HarnessError):
                return False
            return e.category == cat and (key is None or e.blame_key() == key)
        small, evals = shrink.shrink(ev.prog, still_fails, max_evals, max_seconds)
        final = self.evaluate(small, always_ref=True)
        if final.category != cat:  # flaky (a crash that depends on the allocator's state): keep the original
            small, final = ev.prog, self.evaluate(ev.prog, always_ref=True)
        return small, final, evals


class HarnessError(Exception):
    """A bug of the harness (interpret.py, generator.py) reported by a worker, not a library's verdict."""
