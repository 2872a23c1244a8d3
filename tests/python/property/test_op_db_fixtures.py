"""Every case of the op database against PyTorch at the boundary values (tests/fixtures/op_db.json,
written by tests/fixtures/make_op_db_fixtures.py with torch 2.15): 0, -0, +-1, the subnormals, the
largest finite value, +-inf and NaN, and every pair of them for two operands, in each dtype the case
takes; values and gradients. A dtype PyTorch refuses, Ember refuses too. A case the file lacks fails,
naming the script that records it."""
import warnings

import numpy as np
import pytest

import fixture_replay as fr
import known_failures
import op_db

FIXTURES = fr.load_cases("op_db.json")
# NB: atol covers the subnormals: a result flushed to 0 where PyTorch keeps a subnormal (or the reverse)
# passes; rtol covers the last bits of float32 transcendental functions.
TOLERANCE = {"float64": (1e-10, 1e-8, 1e-300), "float32": (1e-5, 1e-4, 1e-37), "int64": (0, 0, 0),
             "bool": (0, 0, 0)}
# Where PyTorch's own values are less accurate (python/README.md, "Where Ember deliberately differs"):
# its float64 trigamma is off by about 1e-9 relative; its float32 gelu cancels in the lower tail.
LOOSER = {"db/polygamma 1/float64": {"float64": (1e-8, 1e-8, 1e-300)},
          "db/gelu/float32": {"float32": (2e-4, 1e-4, 1e-37)}}
# fixture case -> the known_failures bug it shows (a strict xfail while the bug is open)
KNOWN = {"db/igamma/float64": "igamma-large-a", "db/igammac/float64": "igammac-small-a",
         "db/igammac/float32": "igammac-small-a"}


def params():
    for case in op_db.CASES:
        names = sorted(k for k in FIXTURES if k.startswith(f"db/{case.name}/"))
        for name in names or [f"db/{case.name}/(none)"]:
            bug = KNOWN.get(name)
            yield pytest.param(case, name, id=name, marks=known_failures.xfail(bug) if bug else ())


@pytest.mark.parametrize("case,name", list(params()))
def test_matches_torch_at_boundary_values(case, name):
    assert name in FIXTURES, (f"{case.name}: op_db.json has no case for it; run "
                              ".venv-bench/bin/python tests/fixtures/make_op_db_fixtures.py")
    fixture = FIXTURES[name]
    assert fixture["strings"]["expr"] == case.call, (
        f"{case.name}: its call changed ({fixture['strings']['expr']!r} recorded, {case.call!r} now); "
        "rerun tests/fixtures/make_op_db_fixtures.py")
    namespace = op_db.names()
    if "error" in fixture["strings"]:  # PyTorch refuses this dtype
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            fr.evaluate(fixture, namespace)
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        fr.replay(fixture, namespace, by_dtype={**TOLERANCE, **LOOSER.get(name, {})})
