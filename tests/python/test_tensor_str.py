"""repr(tensor) against PyTorch's printouts (tests/fixtures/repr.json, written by
make_repr_fixtures.py: every dtype, 0 to 4 dims, empty dims, nan/inf/-0, magnitudes that switch
notation, summarized tensors, line wrapping, suffixes, Parameter, under many print options), and
ember.set_printoptions / get_printoptions against PyTorch's semantics."""
import json
import math
import os
import re

import numpy as np
import pytest

import ember

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "repr.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]
FLOATS = ("float16", "bfloat16", "float32", "float64")
_GRAD_FN_SEPARATOR = re.compile(r",(?: |\n +)grad_fn=")
DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def default_printoptions():
    # Print options are global: every test starts and ends with the defaults.
    ember.set_printoptions(profile="default")
    yield
    ember.set_printoptions(profile="default")


def _decode(v):
    if isinstance(v, list):
        return complex(_decode(v[0]), _decode(v[1]))
    return float(v) if isinstance(v, str) else v


def host_values(case):
    """The case's values as NumPy (the layout make_repr_fixtures.py documents)."""
    dtype = case["dtype"]
    kind = np.bool_ if dtype == "bool" else np.complex128 if dtype.startswith("complex") else \
        np.float64 if dtype in FLOATS else np.int64
    n = int(np.prod(case["shape"]))
    gen = case.get("gen")
    if gen is None:
        flat = np.array([_decode(v) for v in case["values"]], dtype=kind)
    elif gen["kind"] == "arange":
        flat = (gen["start"] + gen["step"] * np.arange(n, dtype=np.float64)).astype(kind)
    else:
        ints = np.random.RandomState(gen["seed"]).randint(gen["low"], gen["high"], size=n)
        flat = (ints.astype(np.float64) * gen["scale"]).astype(kind)
    return flat.reshape(case["shape"])


def build(case):
    t = ember.tensor(host_values(case)).to(getattr(ember, case["dtype"]))
    view = case.get("view")
    if view == "t":
        t = t.t()
    elif view == "step":
        t = t[::2]
    elif isinstance(view, list):
        t = t.permute(*view)
    if case.get("requires_grad"):
        t.requires_grad_(True)
    op = case.get("op")
    if op == "add":
        t = t + 1
    elif op == "mul":
        t = t * 2
    elif op == "sum":
        t = t.sum()
    elif op == "neg":
        t = -t
    if case.get("parameter"):
        t = ember.nn.Parameter(t, requires_grad=case.get("requires_grad", True))
    return t


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_repr_matches_torch(case):
    ember.set_printoptions(**case.get("options", {}))
    t = build(case)
    want, got = case["repr"], repr(t)
    if "torch_grad_fn" in case:
        # NB: Ember's backward nodes have their own names (AddBackward where PyTorch has
        # AddBackward0), so that suffix is Ember's, and whether it starts a new line (the
        # last suffix does when it would pass linewidth) may differ from PyTorch's by the length
        # of the name: the separator before it is not compared. Everything else is PyTorch's.
        torch_suffix = f"grad_fn=<{case['torch_grad_fn']}>"
        assert want.count(torch_suffix) == 1
        want = _GRAD_FN_SEPARATOR.sub(", grad_fn=", want.replace(torch_suffix, f"grad_fn=<{t.grad_fn.name()}>"))
        got = _GRAD_FN_SEPARATOR.sub(", grad_fn=", got)
    assert got == want


def test_str_and_print_are_repr(capsys):
    t = ember.tensor([[0.5, -1.0], [2.0, 3.25]], requires_grad=True)
    assert str(t) == repr(t) == f"{t}"
    print(t)
    assert capsys.readouterr().out == repr(t) + "\n"


def test_grad_fn_suffix_names_embers_node():
    y = ember.tensor([1.0, 2.0], requires_grad=True) * 2
    assert repr(y) == f"tensor([2., 4.], grad_fn=<{y.grad_fn.name()}>)"


def test_get_printoptions_defaults():
    assert ember.get_printoptions() == DEFAULTS


def test_set_printoptions_profiles():
    ember.set_printoptions(profile="short")
    assert ember.get_printoptions() == {**DEFAULTS, "precision": 2, "edgeitems": 2}
    ember.set_printoptions(profile="full")
    assert ember.get_printoptions() == {**DEFAULTS, "threshold": math.inf}
    ember.set_printoptions(profile="default")
    assert ember.get_printoptions() == DEFAULTS


def test_set_printoptions_overrides_after_profile():
    ember.set_printoptions(profile="short", precision=6, linewidth=100)
    assert ember.get_printoptions() == {**DEFAULTS, "precision": 6, "edgeitems": 2, "linewidth": 100}
    assert repr(ember.tensor([1 / 3], dtype=ember.float64)) == "tensor([0.333333], dtype=ember.float64)"


def test_set_printoptions_keeps_options_not_given():
    ember.set_printoptions(precision=2)
    ember.set_printoptions(threshold=5)
    assert ember.get_printoptions() == {**DEFAULTS, "precision": 2, "threshold": 5}


def test_sci_mode_is_reset_by_any_call():
    # As PyTorch: sci_mode is assigned on every call, None when left out.
    ember.set_printoptions(sci_mode=True)
    assert repr(ember.tensor([1.0, 2.0])) == "tensor([1.0000e+00, 2.0000e+00])"
    ember.set_printoptions(precision=4)
    assert ember.get_printoptions()["sci_mode"] is None
    assert repr(ember.tensor([1.0, 2.0])) == "tensor([1., 2.])"


def test_unknown_profile_changes_nothing():
    ember.set_printoptions(precision=3)
    ember.set_printoptions(profile="nonsense")
    assert ember.get_printoptions() == {**DEFAULTS, "precision": 3}


def test_get_printoptions_round_trips():
    ember.set_printoptions(precision=7, edgeitems=1, linewidth=50, sci_mode=False)
    saved = ember.get_printoptions()
    ember.set_printoptions(profile="default")
    ember.set_printoptions(**saved)
    assert ember.get_printoptions() == saved


def test_large_tensor_prints_its_edges():
    assert repr(ember.arange(10 ** 6)) == "tensor([     0,      1,      2,  ..., 999997, 999998, 999999])"


@pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")
def test_cuda_tensor_prints_from_host_CUDA():
    assert repr(ember.tensor([1.0, 2.5]).cuda()) == "tensor([1.0000, 2.5000], device='cuda:0')"
