"""Saved failure cases: a shrunk program with torch's result (the expectation), the float64 reference
run's, and Ember's when it was found, as strict JSON, one file a case. tests/fixtures/difffuzz/ holds
the cases the CI replays (tests/python/test_difffuzz_replay.py); its pending/ folder the ones Ember
still fails, which the CI does not run (`replay.py --pending` says which of them pass now)."""
import glob
import hashlib
import json
import os
import re

import compare
import render

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "difffuzz")
CATEGORY_ORDER = {c: i for i, c in enumerate(compare.CATEGORIES)}


def name_of(key):
    name = re.sub(r"[^A-Za-z0-9_.+-]+", "_", key.replace(":", "-")).strip("_")
    if len(name) > 80:
        name = name[:70] + "-" + hashlib.sha1(key.encode()).hexdigest()[:8]
    return name


def make_case(key, seed, prog, ev):
    """A case from a shrunk program's Evaluation (session.py)."""
    top = ev.top
    return {"name": name_of(key), "key": key, "category": ev.category, "blame": top.blame if top else None,
            "detail": top.detail if top else "", "seed": seed, "code": render.render(prog), "program": prog,
            "torch": ev.want, "reference": ev.ref, "ember_when_found": ev.got}


def write(folder, case, replace=None):
    """Writes case into folder as <name>.json, or <name>-2.json, ... where another case has the name (the
    file at replace, the case's own old path, may be overwritten); its path."""
    os.makedirs(folder, exist_ok=True)
    path, n = os.path.join(folder, case["name"] + ".json"), 2
    while os.path.exists(path) and not (replace and os.path.abspath(path) == os.path.abspath(replace)):
        path, n = os.path.join(folder, f"{case['name']}-{n}.json"), n + 1
    with open(path, "w") as f:
        json.dump(case, f, separators=(",", ":"), allow_nan=False)  # one line, as the other fixtures
        f.write("\n")
    return path


def saved_keys():
    keys = set()
    for path in glob.glob(os.path.join(FIXTURES, "*.json")) + glob.glob(os.path.join(FIXTURES, "pending", "*.json")):
        with open(path) as f:
            keys.add(json.load(f).get("key"))
    return keys


def save_if_new(folder, case):
    """Writes the case into folder unless a saved case (fixed or pending) has its key; its path or None."""
    if case["key"] in saved_keys():
        return None
    return write(folder, case)


def load(folder):
    """The cases of a folder (not its subfolders), sorted by name."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            out.append(json.load(f))
    return out
