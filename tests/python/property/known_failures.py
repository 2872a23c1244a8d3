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
    # ---- issue 27's list
    "shrink-nan": "hardshrink/softshrink(nan) give 0; PyTorch: nan",
    "median-nan": "median() and median(dim) skip NaN; PyTorch: NaN when the slice holds one",
    "heaviside-nan": "heaviside(nan, v) gives v; PyTorch: 0 (nan == 0 and nan > 0 are both false)",
    "bucketize-nan": "bucketize/searchsorted put NaN at 0; PyTorch: past the last boundary (NaN sorts last)",
    "lerp-inf": "lerp(start, end, w >= 0.5) uses start + w (end - start): lerp(inf, 1, .75) is NaN and "
                "lerp(0, inf, .75) inf; PyTorch's end - (end - start)(1 - w) gives inf and NaN",
    "huber-inf-grad": "huber_loss: the gradient at an infinite difference is NaN; PyTorch +-delta "
                      "(smooth_l1_loss's is fixed)",
    "bce-grad-eps": "binary_cross_entropy's gradient at p = 0 or 1 is NaN; PyTorch bounds the denominator "
                    "p (1 - p) at 1e-12 (gradient ~1e12; 0 through a saturated sigmoid)",
    "bce-outside-range": "binary_cross_entropy with p outside [0, 1] (or NaN) gives NaN; PyTorch raises",
    "scatter-amax-inf": "scatter_reduce(amax, include_self=True) over -inf/inf with a source that requires "
                        "grad gives NaN; PyTorch [.7, inf, 2]",
    "norm-zero-variance": "group_norm on a constant group gives ~1e-6 in float32; PyTorch exactly 0",
    # ---- found by the boundary values (not in issue 27's list)
    "max-all-grad-nan": "max()/min() over a tensor holding NaN give a NaN gradient; PyTorch shares g evenly "
                        "among the NaN elements (the result)",
    "smooth-l1-grad-nan": "smooth_l1_loss (beta > 0): the gradient at a NaN difference is 0; PyTorch NaN "
                          "(huber_loss and mse_loss agree with PyTorch)",
    "median-0d": "median(dim) of a 0-d tensor raises IndexError; PyTorch returns (the value, 0)",
    "relu-grad-nan": "relu's gradient at NaN is 0; PyTorch passes it (NaN <= 0 is false)",
    "logistic-grad-at-zero": "binary_cross_entropy_with_logits and logsigmoid: the gradient at a logit of "
                             "exactly 0 counts both branches (logsigmoid'(0) = 1); PyTorch: sigmoid(0) - y, 0.5",
    "median-grad-ties": "median() sends the whole gradient to one of the tied middle elements; PyTorch "
                        "shares it evenly among them",
    "activation-grad-overflow": "elu/selu/celu (at inf, 1e308, NaN), silu (at +-1.8e308) and softsign (at "
                                "-1.8e308) have a NaN gradient; PyTorch: the limit (1, 1.0507, 0, ...)",
    "softplus-grad-nan": "softplus's gradient at NaN is 0; PyTorch NaN",
    "div-grad-underflow": "a / b: the gradient for b is -g a / (b b), NaN or inf once b * b underflows; "
                          "PyTorch's -g (a / b) / b is 0 for a = 0",
    "atan2-grad-origin": "atan2(0, 0) (and atan2(0, subnormal)) has a NaN gradient; PyTorch 0",
    "xlogy-grad-zero": "xlogy(0, y <= 0): the gradient for x is NaN; PyTorch 0 (x = 0 is masked)",
    "hypot-range": "hypot(a, b) is sqrt(a * a + b * b): inf for a or b past ~1.8e19 (float32) / 1.3e154, "
                   "0 for tiny ones; PyTorch scales (hypot(0, 3.4e38) = 3.4e38 in float32)",
    "normalize-zero-grad": "normalize and cosine_similarity of a zero vector have a NaN gradient; PyTorch "
                           "clamps the norm at eps (gradient ~1e12, 1e8)",
    "sinc-grad-tiny": "sinc's gradient at subnormal and tiny inputs is NaN or inf; PyTorch 0",
    "hardsigmoid-grad-at-bounds": "hardsigmoid's gradient at x = +-3 is 1/6 (the inner branch); PyTorch 0",
    "group-norm-inf-weight": "group_norm with an infinite weight gives +-inf; PyTorch's "
                             "x * scale + (bias - mean * scale) gives NaN (instance_norm agrees with PyTorch)",
    "log-subnormal": "log of a float64 subnormal in a vectorized block is log of the smallest normal "
                     "(-708.4); PyTorch -744.4 for 5e-324",
}


def xfail(bug: str):
    """Marks a regression test of `bug`: a strict xfail while the bug is known, a plain test after."""
    return pytest.mark.xfail(bug in KNOWN, reason=KNOWN.get(bug, ""), strict=True)


def dodge(bug: str, hit) -> bool:
    """True when a drawn example hits `bug` (hit: a bool or a bool array, any element counting) and the
    bug is still known: the property test then skips the example."""
    return bug in KNOWN and bool(np.any(hit))
