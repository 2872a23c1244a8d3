"""Every public layer of ember.nn and optimizer of ember.optim is a C++ class (ember._C) that Python
binds, so a C++ program has it too (issue 30), except the documented orchestration classes, which
stay in Python as they do in PyTorch, and the list of classes still to be ported, which may only
shrink: a class ported to C++ must leave it, and no new Python-only class may join it."""
from __future__ import annotations

import inspect

import ember
import ember.nn as nn
import ember.optim as optim

# Python by design: they orchestrate Python objects (modules, replicas, processes), as in PyTorch.
PYTHON_ORCHESTRATION = {
    "Module",  # the base class itself (C++, its Python API bound in python/src/module_protocol.cpp)
    "DataParallel",  # replicates a Python module across devices
    "ParameterList", "ParameterDict",  # containers of Python Parameter objects
    "SyncBatchNorm",  # statistics over ember.distributed's Python process groups
    "LazyLinear",  # becomes a Linear on its first call
}

# Still written in Python; each is to move into C++ nn/ or optim/ (issue 30).
NOT_YET_IN_CPP: set = set()


def _is_cpp(cls: type) -> bool:
    return any(k.__module__.startswith("ember._C") and k.__name__ not in ("Module", "Optimizer") for k in cls.__mro__)


def _public_classes():
    layers = {n: getattr(nn, n) for n in nn.__all__}
    layers = {n: c for n, c in layers.items() if inspect.isclass(c) and issubclass(c, nn.Module)}
    optimizers = {n: getattr(optim, n) for n in dir(optim) if not n.startswith("_")}
    optimizers = {n: c for n, c in optimizers.items()
                  if inspect.isclass(c) and issubclass(c, optim.Optimizer) and c is not optim.Optimizer}
    return {**layers, **optimizers}


def test_every_layer_and_optimizer_is_cpp_or_listed():
    classes = _public_classes()
    python_only = {n for n, c in classes.items() if not _is_cpp(c)}
    unlisted = python_only - PYTHON_ORCHESTRATION - NOT_YET_IN_CPP
    assert not unlisted, f"Python-only classes missing a C++ class: {sorted(unlisted)}"
    ported = (NOT_YET_IN_CPP | PYTHON_ORCHESTRATION) & {n for n, c in classes.items() if _is_cpp(c)}
    assert not ported, f"now C++: take them off the lists: {sorted(ported)}"
    gone = (NOT_YET_IN_CPP | PYTHON_ORCHESTRATION) - set(classes)
    assert not gone, f"listed but not public: {sorted(gone)}"


def test_every_loss_is_cpp():
    losses = [n for n in _public_classes() if n.endswith("Loss")]
    assert len(losses) == 21
    assert all(_is_cpp(getattr(nn, n)) for n in losses)
    assert all(getattr(ember._C.nn, n).__module__ == "ember._C.nn" for n in losses)
