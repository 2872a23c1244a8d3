"""ember.promote_types, can_cast and result_type against PyTorch's answers for every pair of dtypes
(tests/fixtures/dtype_rules.json, written by make_dtype_fixtures.py), tensors with and without
dimensions and Python numbers on either side."""
import json
import os

import pytest

import ember

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "dtype_rules.json")
with open(FIXTURE) as _f:
    RULES = json.load(_f)
NUMBERS = {"True": True, "3": 3, "2.5": 2.5}


def operand(text):
    if text in NUMBERS:
        return NUMBERS[text]
    dtype, dims = text.split(":")
    return ember.zeros([2] * int(dims), dtype=getattr(ember, dtype))


@pytest.mark.parametrize("pair", sorted(RULES["promote_types"]))
def test_promote_types(pair):
    a, b = pair.split()
    assert ember.promote_types(getattr(ember, a), getattr(ember, b)) == getattr(ember, RULES["promote_types"][pair])


def test_can_cast_every_pair():
    wrong = [pair for pair, want in RULES["can_cast"].items()
             if ember.can_cast(*(getattr(ember, d) for d in pair.split())) != want]
    assert not wrong, f"can_cast differs from torch for {wrong}"


def test_result_type_every_pair():
    wrong = []
    for pair, want in RULES["result_type"].items():
        a, b = (operand(t) for t in pair.split())
        got = ember.result_type(a, b)
        if got != getattr(ember, want):
            wrong.append(f"{pair}: {got}, torch {want}")
    assert not wrong, "\n".join(wrong)


def test_keyword_names_are_torchs():
    assert ember.can_cast(from_=ember.int32, to=ember.float32)
    assert ember.promote_types(type1=ember.int32, type2=ember.float16) == ember.float16
    assert ember.result_type(tensor1=ember.zeros(2, dtype=ember.int32), tensor2=1.5) == ember.float32
