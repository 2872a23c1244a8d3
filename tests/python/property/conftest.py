"""The property suite's oracles compute with inf, NaN and the largest values on purpose (strategies.py
draws them): NumPy's RuntimeWarnings about them (invalid value, overflow, divide by zero) are expected
there and not reported. Ember's own warnings, and NumPy's anywhere else, still are."""
import pytest

_NUMPY_ARITHMETIC = ("invalid value encountered", "overflow encountered", "divide by zero encountered",
                     "Mean of empty slice", "Degrees of freedom <= 0")


def pytest_collection_modifyitems(config, items):
    marks = [pytest.mark.filterwarnings(f"ignore:{message}:RuntimeWarning") for message in _NUMPY_ARITHMETIC]
    for item in items:
        if "/property/" in str(item.fspath).replace("\\", "/"):
            for mark in marks:
                item.add_marker(mark)
