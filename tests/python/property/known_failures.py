"""The Ember bugs the boundary values find that are not fixed yet, in one place.

Each entry names a bug and says what PyTorch (2.15, the suite's reference) gives. While an entry is here:
  - its regression tests, the cases of tests/fixtures/boundary_grid.json (make_boundary_grid_fixtures.py)
    whose "bug" string is the entry's name and the tests marked with xfail(name), are xfail(strict=True):
    they must fail, so a fix that lands shows up as an XPASS;
  - the property tests leave out the drawn examples that hit it (`dodge`), and check everything else.
When the fix lands, delete the entry: its regression tests then run as plain tests and the property
tests check those examples again.
"""
from __future__ import annotations

import numpy as np
import pytest

KNOWN = {
    # Issue 27's boundary bugs (shrink-nan, median-nan, heaviside-nan, bucketize-nan, lerp-inf, huber-inf-grad,
    # bce-grad-eps, bce-outside-range, scatter-amax-inf, norm-zero-variance, scatter-prod-order, ...) and a few
    # the boundary values found (clamp-grad-at-bound, median-grad-ties, hypot-range, ...) are fixed; their
    # regression cases stay in the fixture.
    # The op database's boundary values (tests/fixtures/op_db.json) found these:
    "igamma-large-a": "P(a, x) and Q(a, x) for a above about 1e4 lose accuracy, and are NaN at a = x = "
                      "1.8e308: Ember has no large-a asymptotic expansion; PyTorch gives 0.5 there",
    "igammac-small-a": "Q(a, x) of a tiny a is computed as 1 - P(a, x), so it is 2.2e-16 where Q is about a "
                       "(PyTorch: Q(5e-324, 0.5) = 5e-324)",
}

# Differences kept on purpose and documented (python/README.md, "Where Ember deliberately differs from
# PyTorch"): handled as the open bugs are, so that the regression cases keep PyTorch's answer in view.
DELIBERATE = {
    "norm-inf-weight": "batch_norm, instance_norm and group_norm with an infinite weight give +-inf, "
                       "(x - mean) * scale; PyTorch's x * scale + (bias - mean * scale) gives NaN",
}


def xfail(bug: str):
    """Marks a regression test of `bug`: a strict xfail while the bug is known (or the difference
    deliberate), a plain test after."""
    known = bug in KNOWN or bug in DELIBERATE
    return pytest.mark.xfail(known, reason=KNOWN.get(bug, DELIBERATE.get(bug, "")), strict=True)


def dodge(bug: str, hit) -> bool:
    """True when a drawn example hits `bug` (hit: a bool or a bool array, any element counting) and the
    bug is still known: the property test then skips the example."""
    return (bug in KNOWN or bug in DELIBERATE) and bool(np.any(hit))
