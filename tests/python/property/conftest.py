"""Hypothesis profiles of the property suite.

    .venv/bin/python -m pytest -q tests/python/property                                # "ember": fast, reproducible
    .venv/bin/python -m pytest -q tests/python/property --hypothesis-profile=thorough  # many more examples

"ember" (the default here) draws few examples from a fixed seed (derandomize), so CI is reproducible and
the whole folder runs in well under two minutes on 2 cores. "thorough" draws 25x as many, from a new seed
each run; a failure prints the @reproduce_failure blob that replays it. "sanitized" (make test-asan) draws
half of "ember"'s examples. Neither writes an example database
into the work tree.
"""
from hypothesis import HealthCheck, settings

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
    # NB: a hook rather than a load at import: this conftest is imported after the hypothesis plugin has
    # applied --hypothesis-profile when pytest starts from tests/python, and must not undo it.
    settings.load_profile(config.getoption("hypothesis_profile", None) or "ember")
