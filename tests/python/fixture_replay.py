"""Replays a torch fixture case (tests/fixtures/*.json, written by the make_*_fixtures.py scripts
through fixture_writer.py) in Ember: rebuilds the inputs, evaluates the same expression, and compares
the output's shape, dtype and values and, for a differentiable case, the gradient of every input torch
recorded one for. The test files that replay fixtures share it."""
import json
import os

import numpy as np

import ember

DTYPES = {"float64": ember.float64, "float32": ember.float32, "float16": ember.float16, "bfloat16": ember.bfloat16,
          "int64": ember.int64, "int32": ember.int32, "uint8": ember.uint8, "bool": ember.bool}
# NB: NumPy has no bfloat16: its values are held exactly in float32
NUMPY = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": np.float32,
         "int64": np.int64, "int32": np.int32, "uint8": np.uint8, "bool": np.bool_}


def numpy_of(t):
    """t's values as NumPy (a bfloat16 tensor's in float32, which holds them exactly)."""
    t = t.detach()
    return (t.float() if t.dtype == ember.bfloat16 else t).numpy()


def load_cases(file_name):
    with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", file_name)) as f:
        return json.load(f)["cases"]


def array(entry):
    data = [float(v) if isinstance(v, str) else v for v in entry["data"]]
    return np.array(data, dtype=NUMPY.get(entry["dtype"], np.int64)).reshape(entry["shape"])


def tensor(entry, requires_grad=False):
    t = ember.tensor(array(entry), dtype=DTYPES[entry["dtype"]])
    return t.requires_grad_() if requires_grad else t


def evaluate(case, namespace):
    """(inputs, output) of the case's expression in Ember; namespace holds the names it uses besides its
    inputs (T, F, ...). An input requires grad exactly when torch's did: the fixture holds its gradient."""
    tensors, expr = case["tensors"], case["strings"]["expr"]
    inputs = {k[len("input."):]: tensor(v, f"grad.{k[len('input.'):]}" in tensors)
              for k, v in tensors.items() if k.startswith("input.")}
    out = eval(expr, {**namespace, **inputs})
    return inputs, out[0] if isinstance(out, (tuple, list)) else out


def replay(case, namespace, out_rtol=1e-10, out_atol=1e-12, grad_rtol=1e-8, grad_atol=1e-12, equal_nan=True,
           by_dtype=None):
    """Checks one case (see evaluate for namespace).
    by_dtype: {dtype name: (output rtol, gradient rtol, atol)}, overriding the tolerances per dtype."""
    tensors, expr = case["tensors"], case["strings"]["expr"]
    inputs, out = evaluate(case, namespace)
    want, want_dtype = array(tensors["output"]), tensors["output"]["dtype"]
    assert tuple(out.shape) == want.shape, f"{expr}: shape {tuple(out.shape)}, torch's {want.shape}"
    assert str(out.dtype) == "ember." + want_dtype, f"{expr}: {out.dtype}, torch's {want_dtype}"
    if by_dtype is not None:
        out_rtol, _, out_atol = by_dtype.get(want_dtype, (0, 0, 0))
    got = numpy_of(out)
    np.testing.assert_allclose(got.astype(want.dtype), want, rtol=out_rtol, atol=out_atol, equal_nan=equal_nan,
                               err_msg=expr)
    if case["strings"]["grad"] != "1":
        return
    out.backward(tensor(tensors["grad_output"]))
    for k, entry in tensors.items():
        if k.startswith("grad."):
            leaf = inputs[k[len("grad."):]]
            grad = numpy_of(leaf.grad) if leaf.grad is not None else np.zeros(leaf.shape)
            rtol, atol = grad_rtol, grad_atol
            if by_dtype is not None:
                _, rtol, atol = by_dtype[entry["dtype"]]  # a float32 input's gradient is float32
            np.testing.assert_allclose(grad, array(entry), rtol=rtol, atol=atol, err_msg=f"{expr}: {k}")
