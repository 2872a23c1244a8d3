"""PyTorch's values and gradients at boundary values, replayed (tests/fixtures/boundary_grid.json,
written by tests/fixtures/make_boundary_grid_fixtures.py with torch 2.15): unary and binary ops over
every boundary value and pair of them, and the smallest input of each boundary bug, which is a strict
xfail while known_failures.py lists the bug. (tests/python/test_boundary_semantics.py replays
boundary.json, the Python-composed ops' cases.)"""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
import fixture_replay as fr
import known_failures

CASES = fr.load_cases("boundary_grid.json")
# NB: atol covers the subnormals: a result flushed to 0 where PyTorch keeps a subnormal (or the reverse)
# passes; rtol covers the last bits of float32 transcendental functions.
TOLERANCE = {"float64": (1e-10, 1e-8, 1e-300), "float32": (1e-5, 1e-4, 1e-37), "int64": (0, 0, 0),
             "bool": (0, 0, 0)}


PARAMS = [pytest.param(name, marks=known_failures.xfail(case["strings"]["bug"]) if case["strings"]["bug"] else ())
          for name, case in sorted(CASES.items())]


@pytest.mark.parametrize("name", PARAMS)
def test_matches_torch_at_boundary_values(name):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        fr.replay(CASES[name], {"T": ember, "F": F}, by_dtype=TOLERANCE)



@known_failures.xfail("bce-outside-range")
@pytest.mark.parametrize("p", [1.5, -0.25, float("nan"), float("inf")])
def test_binary_cross_entropy_refuses_a_probability_outside_0_1(p):
    # PyTorch: RuntimeError "all elements of input should be between 0 and 1"
    with pytest.raises((ValueError, RuntimeError)):
        F.binary_cross_entropy(ember.tensor([p, 0.5]), ember.tensor([1.0, 0.0]))
