"""One C++ tensor, one Python object (python/src/tensor_identity.cpp): identity from every path a
script takes to a tensor, hashing by identity, Python attributes that stay, and the object's
lifetime (it dies exactly when both Python and C++ have let go, with and without the GIL, from
several threads); then pickling and deepcopy, which DataLoader's process workers and
copy.deepcopy(model) rely on."""
import copy
import gc
import pickle
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from ember import nn


def object_state(t):
    """(has an object, C++ owns it, C++ handles besides the caller's)."""
    has, owned, handles = ember._C._tensor_object_state(t)
    return has, owned, handles


# ---- identity

def test_grad_and_parameters_are_one_object_each_time():
    x = ember.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad is x.grad
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    p = model[0].weight
    assert p is model[0].weight and isinstance(p, nn.Parameter)
    params = list(model.parameters())
    assert params[0] is p and list(model.parameters())[1] is params[1]
    assert dict(model.named_parameters())["2.bias"] is params[3]
    sd = model.state_dict(keep_vars=True)
    assert sd["0.weight"] is p and isinstance(sd["2.bias"], nn.Parameter)
    assert model.state_dict()["0.weight"] is not p  # detached, as in PyTorch
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    assert opt.param_groups[0]["params"][0] is p
    assert all(a is b for a, b in zip(opt.param_groups[0]["params"], params))


def test_a_parameter_assigned_in_python_is_the_object_read_back():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(ember.ones(2))
            self.register_buffer("mean", ember.zeros(2))

    net = Net()
    scale = net.scale
    assert net.scale is scale and net.mean is net.mean
    assert next(iter(net.parameters())) is scale
    assert net.state_dict(keep_vars=True)["mean"] is net.mean


def test_a_tensor_made_in_cpp_and_returned_twice_is_the_same_object():
    opt = ember.optim.Adam([("w", ember.ones(2, requires_grad=True))])
    w = opt.param_groups[0]["params"][0]
    w.grad = ember.ones(2)
    opt.step()
    first, second = opt.state_dict(), opt.state_dict()
    assert first["state"]["w"]["exp_avg"] is second["state"]["w"]["exp_avg"]
    assert opt.state[w]["exp_avg"] is opt.state["w"]["exp_avg"]
    a, b = ember.ones(2, 3).unbind(0)
    assert a is not b


def test_hashing_is_by_identity_and_equality_stays_elementwise():
    t, u = ember.ones(3), ember.ones(3)
    assert hash(t) == id(t) and hash(t) != hash(u)
    d = {t: "t", u: "u"}
    assert d[t] == "t" and d[u] == "u" and t in {t} and u not in {t}
    assert (t == u).tolist() == [True, True, True]
    model = nn.Linear(2, 2)
    seen = {id(p) for p in model.parameters()}
    assert all(id(p) in seen for p in model.parameters())
    assert {model.weight: 1}[model.weight] == 1


def test_python_attributes_stay_with_the_tensor():
    model = nn.Linear(3, 2)
    model.weight.no_decay = True
    model.bias._my_flag = 1
    assert model.weight.no_decay is True and model.bias._my_flag == 1
    assert [getattr(p, "no_decay", False) for p in model.parameters()] == [True, False]
    x = ember.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    x.grad.tag = "g"
    assert x.grad.tag == "g"
    del x.grad.tag
    assert not hasattr(x.grad, "tag")


def test_a_built_in_layers_weight_becomes_a_parameter_everywhere_at_once():
    model = nn.Linear(2, 2)
    plain = dict(model._named_parameters("", True))["weight"]  # reaches Python as a plain Tensor first
    assert type(plain) is ember.Tensor
    assert model.weight is plain and type(plain) is nn.Parameter


def test_nn_parameter_of_a_tensor_is_a_new_tensor_on_the_same_memory():
    t = ember.ones(3, requires_grad=True)
    p = nn.Parameter(t)
    assert p is not t and isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf
    with ember.no_grad():
        p.add_(1.0)
    assert t.tolist() == [2.0, 2.0, 2.0]
    assert not nn.Parameter(t, requires_grad=False).requires_grad


# ---- lifetimes

def test_a_tensor_only_python_holds_dies_with_its_last_reference():
    t = ember.randn(4)
    r = weakref.ref(t)
    del t
    assert r() is None


def test_a_parameter_object_outlives_python_names_while_its_module_holds_it():
    model = nn.Linear(2, 3)
    w = model.weight
    w.flag = "kept"
    r = weakref.ref(w)
    del w
    gc.collect()
    assert r() is not None and r().shape == (3, 2)  # usable through the weak reference
    assert object_state(r())[1], "the C++ module owns the object now"
    assert model.weight is r() and model.weight.flag == "kept"
    assert not object_state(model.weight)[1], "Python owns it again while it holds it"
    del model
    gc.collect()
    assert r() is None


def test_an_object_without_weak_references_dies_as_soon_as_cpp_lets_go():
    model = nn.Linear(2, 3)
    model.weight.marker = "no weakref"
    assert live_marked("no weakref") == 1 and object_state(model.weight)[0]
    del model  # no collection needed: nothing refers to the object but the tensor
    assert live_marked("no weakref") == 0


def live_marked(marker):
    """How many tensor objects alive carry this marker attribute (the collector tracks them all)."""
    return sum(1 for o in gc.get_objects() if isinstance(o, ember.Tensor) and o.__dict__.get("marker") == marker)


def test_the_object_of_a_leaf_saved_for_backward_dies_when_backward_frees_the_graph():
    x = ember.randn(5, requires_grad=True)
    x.marker = "saved leaf"
    y = (x * x).sum()
    del x
    assert live_marked("saved leaf") == 1  # the graph keeps the tensor, and the tensor its object
    y.backward()  # frees the graph with the GIL released: the object's release is queued
    ember.zeros(1)  # the next tensor to reach Python drains the queue
    assert live_marked("saved leaf") == 0


def test_no_object_leaks_over_many_training_steps():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    refs = []
    for _ in range(50):
        x = ember.randn(16, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        refs += [weakref.ref(x), weakref.ref(loss)]
        x.note = "batch"
    del x, loss
    ember.zeros(1)
    gc.collect()
    assert sum(r() is not None for r in refs) == 0
    params = [weakref.ref(p) for p in model.parameters()]
    del model, opt
    gc.collect()
    assert all(r() is None for r in params)


def test_a_tensor_held_only_by_cpp_gets_a_plain_new_object_after_a_slotted_subclass_died():
    class Slotted(ember.Tensor):
        __slots__ = ("extra",)  # adds instance layout: CPython's own dealloc, not preserved

    model = nn.Module()
    s = Slotted.__new__(Slotted)
    ember.Tensor.__init__(s, ember.ones(2))
    model.register_buffer("b", s)
    assert model.b is s
    del s
    gc.collect()
    b = model.b
    assert type(b) is ember.Tensor and b.tolist() == [1.0, 1.0]


def test_a_subclass_without_slots_is_preserved_with_its_class_and_attributes():
    class Tagged(ember.Tensor):
        pass

    model = nn.Module()
    t = Tagged.__new__(Tagged)
    ember.Tensor.__init__(t, ember.ones(2))
    t.kind = "tagged"
    model.register_buffer("b", t)
    del t
    gc.collect()
    assert type(model.b) is Tagged and model.b.kind == "tagged"


def test_identity_and_lifetimes_hold_across_threads():
    model = nn.Linear(8, 8)
    errors = []

    def work():
        try:
            for i in range(300):
                w = model.weight
                assert w is model.weight
                t = ember.randn(32)
                t.i = i
                (t * w.sum()).sum()
                x = ember.randn(4, 8, requires_grad=True)
                model(x).sum().backward()
                assert x.grad is x.grad
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    r = weakref.ref(model.weight)
    del model
    ember.zeros(1)
    gc.collect()
    assert r() is None


# ---- pickling and deepcopy

DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32, ember.int16,
          ember.int8, ember.uint8, ember.bool]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
       step=st.integers(1, 2), requires_grad=st.booleans(), protocol=st.integers(2, pickle.HIGHEST_PROTOCOL),
       data=st.data())
def test_pickle_round_trips_dtype_shape_values_and_requires_grad(dtype, shape, step, requires_grad, protocol, data):
    n = int(np.prod(shape)) * (step if shape else 1)
    values = np.array(data.draw(st.lists(st.integers(0, 100), min_size=n, max_size=n)), dtype=np.float64)
    full = ember.tensor(values.reshape(*shape[:-1], shape[-1] * step) if shape else values.reshape(()),
                        dtype=dtype)
    t = full[..., ::step] if shape else full  # non-contiguous when step > 1
    if requires_grad and t.is_floating_point():
        t.requires_grad_(True)
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert type(back) is ember.Tensor and back.dtype == t.dtype and back.shape == t.shape
    assert back.requires_grad == t.requires_grad and back.is_leaf
    assert back.detach().float().tolist() == t.detach().float().tolist()


def test_pickle_keeps_parameters_subclasses_and_attributes_but_not_grads():
    p = nn.Parameter(ember.randn(2, 3))
    p.grad = ember.ones(2, 3)
    p.no_decay = True
    back = pickle.loads(pickle.dumps(p))
    assert isinstance(back, nn.Parameter) and back.requires_grad and back.no_decay
    assert back.grad is None and back.tolist() == p.tolist()
    frozen = pickle.loads(pickle.dumps(nn.Parameter(ember.ones(1), requires_grad=False)))
    assert not frozen.requires_grad
    x = ember.randn(3, requires_grad=True)
    y = pickle.loads(pickle.dumps(x * 2))  # a non-leaf pickles as a leaf, as in PyTorch
    assert y.is_leaf and y.requires_grad
    with_ints = pickle.loads(pickle.dumps({"a": ember.arange(5), "b": [ember.zeros(0)]}))
    assert with_ints["a"].tolist() == [0, 1, 2, 3, 4] and with_ints["b"][0].shape == (0,)


def test_a_pickled_tensor_shares_nothing_with_the_original():
    t = ember.zeros(3)
    back = pickle.loads(pickle.dumps(t))
    back.fill_(5)
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_deepcopy_copies_values_grad_class_and_attributes():
    p = nn.Parameter(ember.randn(3))
    p.grad = ember.ones(3)
    p.tag = ["a"]
    c = copy.deepcopy(p)
    assert isinstance(c, nn.Parameter) and c is not p and c.tolist() == p.tolist()
    assert c.grad.tolist() == [1.0, 1.0, 1.0] and c.grad is not p.grad
    assert c.tag == ["a"] and c.tag is not p.tag
    with ember.no_grad():
        c.add_(1.0)
    assert c.tolist() != p.tolist()
    shared = copy.deepcopy([p, p])
    assert shared[0] is shared[1]
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(p * 2)


def test_static_properties_hold_a_whole_property_object():
    # Regression (Python 3.12+): pybind11's static_property type came out 8 bytes long under the
    # fixed-offset __dict__ that Tensor needs, and importing ember wrote past every enum's
    # properties (a crash at import on Python 3.12). python/src/module.cpp sets its size.
    static_property = type(ember._C.nn.EntryKind.__dict__["__members__"])
    assert static_property.__name__ == "pybind11_static_property"
    assert static_property.__basicsize__ >= property.__basicsize__
    if static_property.__dictoffset__:
        assert property.__basicsize__ <= static_property.__dictoffset__ < static_property.__basicsize__
    assert ember._C.nn.EntryKind.__members__  # reads through one
