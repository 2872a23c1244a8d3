"""Settings of the whole Python suite.

EMBER_TEST_MP_START (set by `make test-asan`): the multiprocessing start method of the run. Under
AddressSanitizer, a fork of the multi-threaded test process can copy a lock of ASan's allocator that
another thread holds at that moment, and the child (a DataLoader worker) then hangs at its first
allocation (GCC 12's runtime does not reset the lock at fork; CI hung once this way). forkserver
forks workers from a fresh single-threaded server instead. Tests that ask for fork still fork.

Hypothesis profiles (the property suite, tests/python/property, and the other tests that draw examples):

    .venv/bin/python -m pytest -q tests/python/property                                # "ember": fast, reproducible
    .venv/bin/python -m pytest -q tests/python/property --hypothesis-profile=thorough  # many more examples

"ember" (the default) draws few examples from a fixed seed (derandomize), so CI is reproducible and the
property folder runs in well under two minutes on 2 cores. "thorough" draws 25x as many, from a new seed
each run; a failure prints the @reproduce_failure blob that replays it. "sanitized" (make test-asan) draws
half of "ember"'s examples. None writes an example database into the work tree.
"""
import multiprocessing
import os
import random

import numpy as np
from hypothesis import HealthCheck, settings

# NB: registered here, in the suite's top conftest, which pytest imports before the hypothesis plugin
# applies --hypothesis-profile (a conftest one folder down is imported later: `pytest tests/python
# --hypothesis-profile=sanitized` then stopped at "Profile 'sanitized' is not registered").
_common = dict(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("ember", max_examples=40, derandomize=True, **_common)
settings.register_profile("thorough", max_examples=1000, print_blob=True, **_common)
# make test-asan: the same derandomized examples, half of them (the whole set runs in make test; the
# sanitizer looks for memory errors, which the code paths show, at 3x the time per example).
settings.register_profile("sanitized", max_examples=20, derandomize=True, **_common)


def pytest_configure(config):
    settings.load_profile(config.getoption("hypothesis_profile", None) or "ember")


def pytest_runtest_setup(item):
    # Every test starts from the same generator states, whatever ran before it in its process: with
    # pytest-xdist (make test runs `-n <cores>`) a test's neighbours depend on how the run was split.
    # NB: a hook, not an autouse fixture, which Hypothesis's function_scoped_fixture check refuses.
    import ember

    ember.manual_seed(0)
    random.seed(0)
    np.random.seed(0)

if os.environ.get("EMBER_TEST_MP_START"):
    multiprocessing.set_start_method(os.environ["EMBER_TEST_MP_START"], force=True)
    # NB: the server imports ember once, its workers inherit it (an instrumented import each took
    # seconds); importing starts no thread, so the server stays single-threaded.
    multiprocessing.set_forkserver_preload(["ember"])
