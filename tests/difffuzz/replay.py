"""Replays saved cases (cases.py) with Ember alone: no torch. A case passes when Ember's result now
compares equal (compare.py) to torch's stored result, the stored float64 reference deciding what is
rounding; a case marked "deliberate" (a documented difference, see allowlist.json and python/README.md)
passes when Ember's result still equals the stored "ember_expected" one, by the same rules.

    .venv/bin/python tests/difffuzz/replay.py              # tests/fixtures/difffuzz/*.json
    .venv/bin/python tests/difffuzz/replay.py --pending    # pending/: which pass now (git mv them up)
    .venv/bin/python tests/difffuzz/replay.py --mark-deliberate CASE.json "reason"

The command line runs every case in its own process (a pending case may still crash Ember).
tests/python/test_difffuzz_replay.py runs check() in the test process over the fixed cases.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases  # noqa: E402
import compare  # noqa: E402
import interpret  # noqa: E402


def run_ember(prog):
    import ember
    import ember.nn.functional as F
    return interpret.Interpreter(ember, F).run(prog)


def check(case):
    """The mismatches of Ember's result now against the case's expectation ([] when it passes)."""
    got = run_ember(case["program"])
    if case.get("deliberate"):
        mismatches, needs_ref = compare.compare(case["program"], case["ember_expected"], got, None)
    else:
        mismatches, needs_ref = compare.compare(case["program"], case["torch"], got, case.get("reference"))
    if needs_ref:  # cannot happen with a stored reference; a case saved without one fails plainly
        mismatches = mismatches + [compare.Mismatch("value", "program", "reference", "no float64 reference stored")]
    return [m for m in mismatches if m.category != compare.OVERFLOW]


def explain(case, mismatches):
    lines = [f"{case['name']}: {len(mismatches)} mismatch(es), found as {case['category']} at {case['blame']}"]
    lines += [f"  {m.category} at {m.where} ({m.blame}): {m.detail}" for m in mismatches]
    lines += ["  reproducer:"] + ["    " + line for line in case["code"].splitlines()]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="case files (default: the fixed cases)")
    p.add_argument("--pending", action="store_true", help="the pending cases instead")
    p.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one case, exit code 0 or 1
    p.add_argument("--mark-deliberate", nargs=2, metavar=("CASE", "REASON"),
                   help="record Ember's current result as the documented one and move the case to the fixed ones")
    args = p.parse_args()
    if args.one:
        with open(args.one) as f:
            case = json.load(f)
        m = check(case)
        if m:
            print(explain(case, m))
        sys.exit(1 if m else 0)
    if args.mark_deliberate:
        path, reason = args.mark_deliberate
        with open(path) as f:
            case = json.load(f)
        case["deliberate"] = reason
        case["ember_expected"] = run_ember(case["program"])
        dest = cases.write(cases.FIXTURES, case, replace=path)
        if os.path.abspath(path) != os.path.abspath(dest):
            os.remove(path)
        print(f"{dest}: deliberate ({reason})")
        return
    folder = os.path.join(cases.FIXTURES, "pending") if args.pending else cases.FIXTURES
    files = args.files or sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json"))
    counts = {"pass": 0, "fail": 0, "crash": 0}
    for path in files:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", path], capture_output=True, text=True,
                           timeout=120)
        verdict = {0: "pass", 1: "fail"}.get(r.returncode, "crash")
        counts[verdict] += 1
        print(f"{verdict.upper():5s} {os.path.relpath(path)}")
        if verdict == "crash":
            print("      " + (r.stderr.strip().splitlines() or ["exit code %d" % r.returncode])[-1])
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    sys.exit(0 if counts["fail"] == counts["crash"] == 0 else 1)


if __name__ == "__main__":
    main()
