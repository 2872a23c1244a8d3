"""The functional options PyTorch scripts use, against torch (tests/fixtures/functional.json, written
by make_functional_fixtures.py): cross_entropy with class weights and label smoothing together, with
ignore_index, with class-probability targets and on unbatched inputs, nll_loss with weights, BCE with
logits with weight and pos_weight (through F and through the nn loss modules), pad in every mode with
its gradient, histc's bins, and the errors torch raises for multinomial, pad and cross_entropy (each
message torch gives appears in Ember's, which adds the values involved)."""
import json
import os
import re

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "functional.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]

DTYPES = {"float32": ember.float32, "float64": ember.float64, "int64": ember.int64}


def tensor(case, name):
    t = case["tensors"][name]
    data = np.array([float(v) if isinstance(v, str) else v for v in t["data"]]).reshape(t["shape"])
    return ember.tensor(data, dtype=DTYPES[t["dtype"]])


def names(prefix):
    return sorted(n for n in CASES if n.startswith(prefix))


def tolerances(case):
    return (1e-10, 1e-12) if case["tensors"]["input"]["dtype"] == "float64" else (1e-5, 1e-6)


def module_of(case, weight, pos_weight):
    """The nn loss module that computes the case's function."""
    s, kind = case["scalars"], case["strings"]["loss"]
    reduction = case["strings"]["reduction"]
    if kind == "cross_entropy":
        return nn.CrossEntropyLoss(weight=weight, ignore_index=int(s["ignore_index"]), reduction=reduction,
                                   label_smoothing=s["label_smoothing"])
    if kind == "nll_loss":
        return nn.NLLLoss(weight=weight, ignore_index=int(s["ignore_index"]), reduction=reduction)
    return nn.BCEWithLogitsLoss(weight=weight, reduction=reduction, pos_weight=pos_weight)


@pytest.mark.parametrize("name", names("loss_"))
@pytest.mark.parametrize("through", ["functional", "module"])
def test_losses_match_torch(name, through):
    case = CASES[name]
    s, kind = case["scalars"], case["strings"]["loss"]
    x = tensor(case, "input").requires_grad_(True)
    target = tensor(case, "target")
    weight = tensor(case, "weight") if "weight" in case["tensors"] else None
    pos_weight = tensor(case, "pos_weight") if "pos_weight" in case["tensors"] else None
    reduction = case["strings"]["reduction"]
    if through == "module":
        out = module_of(case, weight, pos_weight)(x, target)
    elif kind == "cross_entropy":
        out = F.cross_entropy(x, target, weight=weight, ignore_index=int(s["ignore_index"]), reduction=reduction,
                              label_smoothing=s["label_smoothing"])
    elif kind == "nll_loss":
        out = F.nll_loss(x, target, weight=weight, ignore_index=int(s["ignore_index"]), reduction=reduction)
    else:
        out = F.binary_cross_entropy_with_logits(x, target, weight=weight, reduction=reduction, pos_weight=pos_weight)
    rtol, atol = tolerances(case)
    want = tensor(case, "output").numpy()
    assert tuple(out.shape) == want.shape
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=rtol, atol=atol)
    (out * tensor(case, "grad_output")).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tensor(case, "grad.input").numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", names("pad_"))
def test_pad_matches_torch(name):
    case = CASES[name]
    x = tensor(case, "input").requires_grad_(True)
    amounts = [int(v) for v in case["tensors"]["pad"]["data"]]
    out = F.pad(x, amounts, mode=case["strings"]["mode"])
    np.testing.assert_array_equal(out.detach().numpy(), tensor(case, "output").numpy())
    (out * tensor(case, "grad_output")).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tensor(case, "grad.input").numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", names("histc_"))
def test_histc_matches_torch(name):
    case = CASES[name]
    s = case["scalars"]
    got = ember.histc(tensor(case, "input"), bins=int(s["bins"]), min=s["min"], max=s["max"])
    np.testing.assert_array_equal(got.numpy(), tensor(case, "output").numpy())


# torch's exception types as Ember raises them (Ember's errors name Python's built-in exceptions)
EMBER_TYPE = {"RuntimeError": (ValueError, TypeError), "NotImplementedError": (NotImplementedError,),
              "ValueError": (ValueError,), "IndexError": (IndexError,)}
# torch's scalar type names as Ember spells dtypes
DTYPE_NAMES = {"Long": "int64", "Float": "float32", "Double": "float64", "Bool": "bool", "Int": "int32"}


def expected_message(message):
    message = re.sub(r"^Argument #\d+: ", "", message).rstrip(".")
    return re.sub(r"\b(" + "|".join(DTYPE_NAMES) + r")\b$", lambda m: DTYPE_NAMES[m.group(1)], message)


@pytest.mark.parametrize("name", names("error_"))
def test_errors_carry_torchs_message(name):
    case = CASES[name]["strings"]
    with pytest.raises(EMBER_TYPE[case["type"]]) as info:
        eval(case["call"], {"torch": ember, "F": F})  # noqa: S307  (the fixture's own expressions)
    assert expected_message(case["message"]) in str(info.value), (case["call"], str(info.value))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_padding_modules_are_f_pad(dims):
    x = ember.randn(*([2, 3] + [4] * dims), dtype=ember.float64)
    amounts = tuple(range(1, 2 * dims + 1)) if dims < 3 else (1, 0, 2, 1, 0, 3)
    small = tuple(min(a, 3) for a in amounts)
    for prefix, mode in (("Reflection", "reflect"), ("Replication", "replicate"), ("Circular", "circular")):
        layer = getattr(nn, f"{prefix}Pad{dims}d")(small)
        assert ember.equal(layer(x), F.pad(x, small, mode=mode))
        assert repr(layer) == f"{prefix}Pad{dims}d({small})"
        assert ember.equal(getattr(nn, f"{prefix}Pad{dims}d")(1)(x), F.pad(x, (1,) * (2 * dims), mode=mode))
    assert ember.equal(getattr(nn, f"ConstantPad{dims}d")(amounts, 2.5)(x), F.pad(x, amounts, value=2.5))
    assert ember.equal(getattr(nn, f"ZeroPad{dims}d")(2)(x), F.pad(x, (2,) * (2 * dims)))
    assert list(getattr(nn, f"ZeroPad{dims}d")(2).parameters()) == []
    with pytest.raises(ValueError, match=f"ReflectionPad{dims}d: padding must be an int or {2 * dims} ints"):
        getattr(nn, f"ReflectionPad{dims}d")((1, 2, 3, 4, 5, 6, 7))
