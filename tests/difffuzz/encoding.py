"""Tensors and numbers as strict JSON, in the layout of tests/fixtures/fixture_writer.py's tensor_entry:
{"dtype": "float32", "shape": [2, 3], "data": [...]}, the data flattened in C order, floats as numbers
except "nan", "inf" and "-inf" (strings, as JSON has no such numbers), ints and bools as ints.

Used for program inputs, for the results the workers send back and for the saved cases, so one layout
goes everywhere. Needs only NumPy (no torch, no ember): the CI replay imports it.
"""
import math

import numpy as np

NUMPY_DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_,
                "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "float16": np.float16}
FLOAT_DTYPES = ("float16", "float32", "float64")


def number(v):
    """A Python number as strict JSON: non-finite floats become "nan", "inf", "-inf"."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def unnumber(v):
    """The inverse of number()."""
    return float(v) if isinstance(v, str) else v


def entry(array, dtype=None):
    """A NumPy array (or anything np.asarray takes) as a tensor entry; dtype names it (default: the array's)."""
    a = np.asarray(array)
    name = dtype or a.dtype.name
    if a.dtype.kind == "f":
        flat = a.astype(np.float64).ravel()
        if np.isfinite(flat).all():
            data = flat.tolist()
        else:
            data = [number(v) for v in flat.tolist()]
    elif a.dtype.kind == "b":
        data = a.ravel().astype(np.int64).tolist()
    else:
        data = a.astype(np.int64).ravel().tolist()
    return {"dtype": name, "shape": list(a.shape), "data": data}


def array(e, dtype=None):
    """The NumPy array of a tensor entry (in its own dtype unless dtype is given)."""
    np_dtype = NUMPY_DTYPES[dtype or e["dtype"]]
    data = e["data"]
    if data and any(isinstance(v, str) for v in data):
        data = [unnumber(v) for v in data]
    return np.array(data, dtype=np_dtype).reshape(e["shape"])


def scalar(e):
    """The Python value of a {"scalar": ...} entry."""
    return unnumber(e["scalar"])
