"""ember.return_types (torch.return_types): the named tuples ops return live at a module path,
pickle and load in a fresh interpreter, and print as torch's do."""
import pickle
import subprocess
import sys

import pytest

import ember


def _results():
    x = ember.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]])
    return {
        "max": ember.max(x, 1), "min": x.min(0), "sort": ember.sort(x), "topk": x.topk(2),
        "kthvalue": ember.kthvalue(x, 2), "mode": ember.mode(x), "median": x.median(1),
        "cummax": ember.cummax(x, 1), "cummin": ember.cummin(x, 0),
        "linalg_slogdet": ember.linalg.slogdet(ember.eye(2) * 2),
        "linalg_svd": ember.linalg.svd(x, full_matrices=False), "linalg_qr": ember.linalg.qr(x.T),
        "linalg_eigh": ember.linalg.eigh(ember.eye(2)),
    }


@pytest.mark.parametrize("name", sorted(_results()))
def test_every_named_result_is_a_return_type_that_pickles(name):
    r = _results()[name]
    assert type(r) is getattr(ember.return_types, name)
    assert type(r).__module__ == "ember.return_types" and isinstance(r, tuple)
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back._fields == r._fields
    for a, b in zip(back, r):
        assert ember.equal(a, b)


def test_repr_is_torchs_form():
    r = ember.max(ember.tensor([[1.0, 5.0]]), 1)
    assert repr(r) == "ember.return_types.max(\nvalues=tensor([5.]),\nindices=tensor([1]))"


def test_a_pickled_result_loads_in_a_fresh_interpreter_before_any_op_ran():
    data = pickle.dumps(ember.sort(ember.tensor([2.0, 1.0])))
    code = ("import pickle, sys; r = pickle.loads(sys.stdin.buffer.read()); "
            "print(type(r).__module__, type(r).__name__, r.indices.tolist())")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True)
    assert out.stdout.decode().split() == ["ember.return_types", "sort", "[1,", "0]"]
