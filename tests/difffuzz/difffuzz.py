"""The random-program differential test (`make difffuzz`): random programs (generator.py) run in torch
and in Ember in worker processes (runner.py), compared (compare.py), failures shrunk (shrink.py) and
saved as cases the CI replays without torch (replay.py, tests/python/test_difffuzz_replay.py).

    .venv/bin/python tests/difffuzz/difffuzz.py --seconds 600 -j 1
    .venv/bin/python tests/difffuzz/difffuzz.py --programs 2000 --seed 7 --save

Prints progress every --progress seconds and, at the end, the count of programs by outcome and the
distinct mismatches (a key each: category and op, or category and the ops of the shrunk program), each
with its count, the first seed that showed it and the shrunk reproducer; writes the same, with every
reproducer's code, to <out>/report.md, and each shrunk case to <out>/cases/. With --save, a case whose
key no saved case has (tests/fixtures/difffuzz and its pending/) is saved to pending/ too.
Mismatches that allowlist.json lists (known deliberate differences) count as "deliberate".
"""
import argparse
import collections
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import cases  # noqa: E402
from session import HarnessError, Session, op_names  # noqa: E402
from workers import WorkerDied  # noqa: E402

PREFETCH = 16


class Run:
    """The shared state of a run: counts, the distinct mismatches, the seed counter."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.keys = {}  # key -> {"count", "seed", "category", "detail", "case"}
        self.signatures = []  # (category, frozenset of ops, key) of shrunk non-blameable mismatches
        self.in_progress = set()
        self.next_seed = args.seed
        self.done_programs = 0
        self.shrinks = 0
        self.shrink_seconds = 0.0
        self.start = time.monotonic()
        self.stop = False
        self.builder_errors = 0

    def take_seed(self):
        with self.lock:
            if self.stop or (self.args.programs and self.next_seed - self.args.seed >= self.args.programs):
                return None
            if self.args.seconds and time.monotonic() - self.start > self.args.seconds:
                return None
            s = self.next_seed
            self.next_seed += 1
            return s

    def elapsed(self):
        return time.monotonic() - self.start


def key_for(run, ev):
    """(key, needs_shrink): the blame key, or a shrunk signature the program's ops contain."""
    k = ev.blame_key()
    if k:
        return k, k not in run.keys
    ops = set(op_names(ev.prog))
    with run.lock:
        for cat, sig, key in run.signatures:
            if cat == ev.category and sig <= ops:
                return key, False
    return None, True


def record(run, session, ev, seed):
    outcome = ev.outcome()
    with run.lock:
        run.counts[outcome] += 1
        run.done_programs += 1
    if not ev.category:
        return
    key, fresh = key_for(run, ev)
    with run.lock:
        busy = key in run.in_progress if key else False
        share_left = run.shrink_seconds <= run.args.shrink_share * max(run.elapsed(), 60.0)
        can_shrink = fresh and not busy and run.shrinks < run.args.max_shrinks and share_left
        if can_shrink:
            run.shrinks += 1
            if key:
                run.in_progress.add(key)
    if not can_shrink:
        key = key or f"{ev.category}:unshrunk:{'+'.join(op_names(ev.prog))}"
        with run.lock:
            entry = run.keys.setdefault(key, {"count": 0, "seed": seed, "category": ev.category,
                                              "detail": ev.top.detail[:300], "case": None})
            entry["count"] += 1
        return
    t0 = time.monotonic()
    small, final, evals = session.shrink(ev, run.args.shrink_evals, run.args.shrink_seconds)
    with run.lock:
        run.shrink_seconds += time.monotonic() - t0
    if key is None:
        key = f"{ev.category}:{'+'.join(op_names(small))}"
    case = cases.make_case(key, seed, small, final)
    path = cases.write(os.path.join(run.args.out, "cases"), case)
    saved = cases.save_if_new(run.args.save_dir, case) if run.args.save else None
    with run.lock:
        run.in_progress.discard(ev.blame_key())
        if not ev.blame_key():
            run.signatures.append((ev.category, frozenset(op_names(small)), key))
        entry = run.keys.setdefault(key, {"count": 0, "seed": seed, "category": ev.category,
                                          "detail": final.top.detail[:300] if final.top else ev.top.detail[:300],
                                          "case": path, "saved": saved, "evals": evals})
        entry["count"] += 1
        entry.setdefault("case", path)
    log(run, f"new mismatch {key} (seed {seed}; shrunk in {evals} tries to {len(small['nodes'])} nodes)")


def log(run, text):
    print(f"[{run.elapsed():7.1f}s] {text}", flush=True)


def worker_loop(run, index):
    a = run.args
    session = Session(a.torch_python, a.ember_python, os.path.join(a.out, f"worker{index}-"), a.timeout,
                      load_allowlist(a.allowlist))
    pending = collections.deque()
    try:
        while True:
            while len(pending) < PREFETCH:
                seed = run.take_seed()
                if seed is None:
                    break
                pending.append((session.torch.send({"op": "gen", "seed": seed}), seed))
            if not pending:
                return
            rid, seed = pending.popleft()
            try:
                msg = session.torch.recv(rid, a.timeout * 3)
            except WorkerDied:
                # torch's worker died (or hung) on this seed: skip it, send the others again
                with run.lock:
                    run.counts["skipped_torch_died"] += 1
                seeds = [s for _, s in pending]
                pending.clear()
                pending.extend((session.torch.send({"op": "gen", "seed": s}), s) for s in seeds)
                continue
            if "harness_error" in msg:
                with run.lock:
                    run.counts["harness_error"] += 1
                log(run, f"harness error on seed {seed}: {msg['harness_error'].strip().splitlines()[-1]}")
                continue
            prog = msg["prog"]
            with run.lock:
                run.builder_errors += prog.get("builder_errors", 0)
            try:
                ev = session.evaluate(prog, want=msg["res"])
                record(run, session, ev, seed)
            except HarnessError as e:
                with run.lock:
                    run.counts["harness_error"] += 1
                log(run, f"harness error on seed {seed}: {str(e).strip().splitlines()[-1]}")
            except WorkerDied:
                with run.lock:
                    run.counts["skipped_torch_died"] += 1
                seeds = [s for _, s in pending]
                pending.clear()
                pending.extend((session.torch.send({"op": "gen", "seed": s}), s) for s in seeds)
    finally:
        session.close()


def load_allowlist(path):
    with open(path) as f:
        return json.load(f)


def summary_lines(run):
    n = max(run.done_programs, 1)
    rate = run.done_programs / max(run.elapsed(), 1e-9)
    lines = [f"{run.done_programs} programs in {run.elapsed():.0f} s ({rate:.1f}/s),"
             f" seeds {run.args.seed}..{run.next_seed - 1}, {run.shrinks} shrunk in {run.shrink_seconds:.0f} s"]
    for outcome, c in sorted(run.counts.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {outcome:24s} {c:8d}  {100.0 * c / n:5.1f}%")
    if run.builder_errors:
        lines.append(f"  (generator builder errors, drawn again: {run.builder_errors})")
    return lines


def progress(run):
    while not run.stop:
        time.sleep(run.args.progress)
        if run.stop:
            return
        with run.lock:
            top = ", ".join(f"{k} {v}" for k, v in run.counts.most_common())
            rate = run.done_programs / max(run.elapsed(), 1e-9)
            log(run, f"{run.done_programs} programs ({rate:.1f}/s), {len(run.keys)} distinct mismatches; {top}")


def report(run):
    lines = summary_lines(run)
    lines.append("")
    lines.append(f"distinct mismatches: {len(run.keys)}")
    order = sorted(run.keys.items(), key=lambda kv: (cases.CATEGORY_ORDER.get(kv[1]["category"], 99), -kv[1]["count"]))
    for key, e in order:
        where = os.path.relpath(e["case"], ROOT) if e.get("case") else "not shrunk"
        lines.append(f"  {e['count']:6d}  {key}  (seed {e['seed']}; {where})")
        lines.append(f"          {e['detail'][:200]}")
    text = "\n".join(lines)
    print(text, flush=True)
    md = ["# difffuzz report", "", "```", text, "```", ""]
    for key, e in order:
        if e.get("case"):
            with open(e["case"]) as f:
                c = json.load(f)
            md += [f"## {key}", "", f"{e['count']} programs; first seed {e['seed']}; {c['detail']}", "",
                   "```python", c["code"], "```", ""]
    with open(os.path.join(run.args.out, "report.md"), "w") as f:
        f.write("\n".join(md))
    with open(os.path.join(run.args.out, "summary.json"), "w") as f:
        json.dump({"programs": run.done_programs, "seconds": run.elapsed(), "counts": run.counts,
                   "keys": run.keys}, f, indent=1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=0, help="stop after this many programs (0: no limit)")
    p.add_argument("--seconds", type=float, default=0, help="stop after this many seconds (0: no limit)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="pairs of workers (torch, Ember) run in parallel")
    p.add_argument("--seed", type=int, default=None, help="the first program's seed (default: from the clock)")
    p.add_argument("--torch-python", default=os.path.join(ROOT, ".venv-bench", "bin", "python"))
    p.add_argument("--ember-python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    p.add_argument("--timeout", type=float, default=20.0, help="seconds Ember may take on one program")
    p.add_argument("--out", default=os.path.join(ROOT, "out", "difffuzz"), help="report, logs, shrunk cases")
    p.add_argument("--save", action="store_true", help="save new shrunk cases to --save-dir")
    p.add_argument("--save-dir", default=os.path.join(ROOT, "tests", "fixtures", "difffuzz", "pending"))
    p.add_argument("--allowlist", default=os.path.join(HERE, "allowlist.json"))
    p.add_argument("--max-shrinks", type=int, default=2000, help="shrink at most this many failures")
    p.add_argument("--shrink-share", type=float, default=0.3,
                   help="start no shrink while shrinking took more than this share of the time so far")
    p.add_argument("--shrink-evals", type=int, default=300, help="candidates tried per shrink at most")
    p.add_argument("--shrink-seconds", type=float, default=60.0, help="seconds per shrink at most")
    p.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = int(time.time()) % 1_000_000 * 1000
    if not args.programs and not args.seconds:
        args.seconds = 600
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    run = Run(args)
    threads = [threading.Thread(target=worker_loop, args=(run, i), daemon=True) for i in range(args.jobs)]
    threading.Thread(target=progress, args=(run,), daemon=True).start()
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        run.stop = True
        for t in threads:
            t.join(30)
    run.stop = True
    report(run)
    bad = sum(c for k, c in run.counts.items() if k not in ("match", "match_rounding", "match_overflow", "both_raise",
                                                                    "deliberate"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
