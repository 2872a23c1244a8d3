"""Replays the random-program differential test's saved cases (tests/fixtures/difffuzz/*.json, written
by tests/difffuzz/difffuzz.py from torch's results) in Ember, without torch: each must now match torch
by the fuzzer's own comparison rules (tests/difffuzz/compare.py), or, for a case marked "deliberate",
still behave as documented. Cases Ember still fails wait in tests/fixtures/difffuzz/pending/, which
this file only checks for consistency (it does not run them: some crash Ember); when a fix lands,
`replay.py --pending` shows which pass and they move up a folder."""
import os
import sys

import pytest

# NB: appended, not prepended: the fuzzer's flat module names never shadow another test's imports.
sys.path.append(os.path.join(os.path.dirname(__file__), "..", "difffuzz"))

import cases  # noqa: E402
import compare  # noqa: E402
import render  # noqa: E402
import replay  # noqa: E402

FIXED = cases.load(cases.FIXTURES)
PENDING = cases.load(os.path.join(cases.FIXTURES, "pending"))


@pytest.mark.parametrize("case", FIXED, ids=[c["name"] for c in FIXED])
def test_saved_case_matches_torch(case):
    mismatches = replay.check(case)
    assert not mismatches, replay.explain(case, mismatches)


@pytest.mark.parametrize("case", PENDING, ids=[c["name"] for c in PENDING])
def test_pending_case_is_consistent(case):
    """The stored results still show the stored mismatch under today's comparison rules (so a rule
    change that would hide it is noticed), and the stored code is the program's."""
    assert render.render(case["program"]) == case["code"]
    found = case["ember_when_found"]
    mismatches, needs_ref = compare.compare(case["program"], case["torch"], found, case.get("reference"))
    assert not needs_ref
    assert case["category"] in {m.category for m in mismatches}, mismatches
