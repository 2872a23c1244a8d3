"""Every class of ember.nn is where PyTorch keeps it (tests/fixtures/module_paths.json, written by
torch 2.15): ember.nn.modules.dropout.Dropout is ember.nn.Dropout, as torch.nn.modules.dropout.Dropout
is torch.nn.Dropout, so code written for PyTorch's paths finds Ember's classes there."""
import importlib
import json
import pathlib

import pytest

import ember.nn as nn

FIXTURE = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "module_paths.json").read_text())
PATHS = {name: path for name, path in FIXTURE["paths"].items() if hasattr(nn, name)}


def test_the_fixture_covers_every_class_of_ember_nn():
    classes = {name for name in nn.__all__ if isinstance(getattr(nn, name), type)}
    assert classes - set(PATHS) == set(), "classes of ember.nn that torch.nn does not have"
    assert len(PATHS) > 130


@pytest.mark.parametrize("name", sorted(PATHS))
def test_a_class_is_at_pytorchs_module_path(name):
    module = importlib.import_module("ember" + PATHS[name][len("torch"):])
    assert getattr(module, name) is getattr(nn, name)


def test_the_helpers_of_torch_nn_modules_utils():
    from ember.nn.modules.utils import _ntuple, _pair, _single, _triple
    assert _pair(3) == (3, 3) and _pair((2, 5)) == (2, 5) and _single(1) == (1,) and _triple([1, 2, 3]) == (1, 2, 3)
    assert _ntuple(4)(0) == (0, 0, 0, 0)
