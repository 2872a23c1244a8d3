"""Module hooks (forward pre-hooks, forward hooks, full backward hooks) on built-in layers called
from Python and from inside C++ containers, and on modules written in Python; then the module
traversals, non-persistent buffers, nn.ParameterList / nn.ParameterDict, and Python subclasses of
built-in layers inside a Sequential. Gradients seen by backward hooks are checked against NumPy."""
import gc
import weakref

import numpy as np
import pytest

import ember
from ember import nn


def x_of(*shape, requires_grad=False):
    ember.manual_seed(0)
    return ember.randn(*shape, requires_grad=requires_grad)


class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, bias=0.0):
        return x * self.k + bias


# ---- forward pre-hooks and forward hooks

def test_hooks_on_a_built_in_layer_called_from_python_see_and_replace_args_and_output():
    lin = nn.Linear(3, 2)
    x = x_of(4, 3)
    calls = []

    def pre(module, args):
        calls.append(("pre", module is lin, len(args)))
        return args[0] * 2  # a single value stands for (value,)

    def post(module, args, output):
        calls.append(("post", module is lin, args[0].tolist() == (x * 2).tolist()))
        return output + 1

    h1, h2 = lin.register_forward_pre_hook(pre), lin.register_forward_hook(post)
    out = lin(x)
    expected = (x * 2) @ lin.weight.T + lin.bias + 1
    assert np.allclose(out.detach().numpy(), expected.detach().numpy())
    assert calls == [("pre", True, 1), ("post", True, True)]
    h1.remove()
    h2.remove()
    h2.remove()  # removing twice does nothing
    assert np.allclose(lin(x).detach().numpy(), (x @ lin.weight.T + lin.bias).detach().numpy())
    assert len(calls) == 2


def test_hooks_run_inside_a_cpp_sequential_for_built_in_and_python_children():
    seq = nn.Sequential(nn.Linear(3, 3), Scale(2.0), nn.ReLU())
    first, second = seq[0], seq[1]
    seen = []
    first.register_forward_hook(lambda m, args, out: seen.append((type(m).__name__, m is first, len(args))))
    second.register_forward_pre_hook(lambda m, args: seen.append(("Scale", m is second, len(args))))
    second.register_forward_hook(lambda m, args, out: -out)
    x = x_of(2, 3)
    out = seq(x)
    assert seen == [("Linear", True, 1), ("Scale", True, 1)]
    assert np.allclose(out.detach().numpy(), np.maximum(-(first(x) * 2.0).detach().numpy(), 0))


def test_with_kwargs_prepend_and_order():
    m = Scale(3.0)
    order = []
    m.register_forward_hook(lambda mod, args, out: order.append("b"))
    m.register_forward_hook(lambda mod, args, out: order.append("a"), prepend=True)

    def pre(mod, args, kwargs):
        order.append(("pre", dict(kwargs)))
        return args, {"bias": 10.0}

    def post(mod, args, kwargs, out):
        order.append(("post", dict(kwargs)))
        return out * 0 + kwargs["bias"]

    m.register_forward_pre_hook(pre, with_kwargs=True)
    m.register_forward_hook(post, with_kwargs=True)
    out = m(ember.ones(2), bias=1.0)
    assert out.tolist() == [10.0, 10.0]
    assert order == [("pre", {"bias": 1.0}), "a", "b", ("post", {"bias": 10.0})]
    m2 = Scale(1.0)
    m2.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"new_args, new_kwargs"):
        m2(ember.ones(1))


def test_always_call_hooks_run_when_forward_raises_from_python_and_from_cpp():
    class Broken(nn.Module):
        def forward(self, x):
            raise ValueError("broken forward")

    for call_from_cpp in (False, True):
        broken = Broken()
        ran = []
        broken.register_forward_hook(lambda m, args, out: ran.append(("always", out)), always_call=True)
        broken.register_forward_hook(lambda m, args, out: ran.append("normal"))
        caller = nn.Sequential(broken) if call_from_cpp else broken
        with pytest.raises(ValueError, match="broken forward"):
            caller(ember.ones(2))
        assert ran == [("always", None)]


def test_a_hook_may_remove_itself_and_handles_are_context_managers():
    lin = nn.Linear(2, 2)
    calls = []

    def once(module, args, out):
        calls.append(1)
        handle.remove()

    handle = lin.register_forward_hook(once)
    seq = nn.Sequential(lin)
    seq(ember.ones(1, 2))
    seq(ember.ones(1, 2))
    lin(ember.ones(1, 2))
    assert calls == [1]
    with lin.register_forward_pre_hook(lambda m, args: calls.append(2)):
        lin(ember.ones(1, 2))
    lin(ember.ones(1, 2))
    assert calls == [1, 2] and isinstance(handle.id, int)


def test_a_hook_returning_several_inputs_to_a_cpp_caller_is_an_error():
    lin = nn.Linear(2, 2)
    lin.register_forward_pre_hook(lambda m, args: (args[0], args[0]))
    with pytest.raises(TypeError, match="forward pre-hook of Linear returned 2 values"):
        nn.Sequential(lin)(ember.ones(1, 2))
    lin2 = nn.Linear(2, 2)
    lin2.register_forward_hook(lambda m, args, out: "not a tensor")
    with pytest.raises(TypeError, match="forward hook of Linear must return a Tensor or None, got str"):
        nn.Sequential(lin2)(ember.ones(1, 2))


def test_errors_raised_in_hooks_reach_the_caller_with_their_type():
    lin = nn.Linear(2, 2)

    def bad(m, args):
        raise KeyError("from the hook")

    lin.register_forward_pre_hook(bad)
    with pytest.raises(KeyError, match="from the hook"):
        nn.Sequential(lin)(ember.ones(1, 2))
    with pytest.raises(KeyError, match="from the hook"):
        lin(ember.ones(1, 2))


def test_hooks_do_not_keep_their_module_alive():
    lin = nn.Linear(2, 2)
    lin.register_forward_hook(lambda m, args, out: None)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    r = weakref.ref(lin)
    del lin
    gc.collect()
    assert r() is None


# ---- full backward hooks

@pytest.mark.parametrize("from_cpp", [False, True])
def test_a_full_backward_hook_sees_the_gradients_and_may_replace_grad_input(from_cpp):
    lin = nn.Linear(3, 2)
    x = x_of(4, 3, requires_grad=True)
    c = ember.tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((module is lin, [g.numpy().copy() for g in grad_input], [g.numpy().copy() for g in grad_output]))
        return (grad_input[0] * 10,)

    lin.register_full_backward_hook(hook)
    caller = nn.Sequential(lin) if from_cpp else lin
    (caller(x) * c).sum().backward()
    [(is_lin, gi, go)] = seen
    w = lin.weight.detach().numpy()
    assert is_lin and len(gi) == 1 and len(go) == 1
    assert np.allclose(go[0], c.numpy())
    assert np.allclose(gi[0], c.numpy() @ w, atol=1e-6)
    assert np.allclose(x.grad.numpy(), 10 * c.numpy() @ w, atol=1e-5)
    assert np.allclose(lin.weight.grad.numpy(), c.numpy().T @ x.detach().numpy(), atol=1e-5)


@pytest.mark.parametrize("from_cpp", [False, True])
def test_a_backward_hook_of_a_module_whose_input_needs_no_grad_gets_none(from_cpp):
    lin = nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].shape)))
    caller = nn.Sequential(lin) if from_cpp else lin
    caller(x_of(4, 3)).sum().backward()
    assert seen == [((None,), (4, 2))]
    lin.register_full_backward_hook(lambda m, gi, go: (ember.ones(4, 3),))
    with pytest.raises(ValueError if from_cpp else RuntimeError, match="should always return None|must return None"):
        caller(x_of(4, 3)).sum().backward()


def test_backward_hooks_with_several_inputs_that_need_grad_are_not_supported():
    class Add(nn.Module):
        def forward(self, a, b):
            return a + b

    m = Add()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    a, b = x_of(2, requires_grad=True), x_of(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="at most one"):
        m(a, b)
    seen = []
    m2 = Add()
    m2.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    (m2(a, ember.ones(2)) * 3).sum().backward()
    assert len(seen) == 1 and seen[0][1] is None and seen[0][0].tolist() == [3.0, 3.0]
    with pytest.raises(NotImplementedError, match="register_full_backward_pre_hook"):
        m2.register_full_backward_pre_hook(lambda mod, go: None)


def test_backward_hooks_are_not_wired_without_grad_mode():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    x = x_of(1, 2, requires_grad=True)
    with ember.no_grad():
        out = lin(x)
    assert not out.requires_grad


# ---- python subclasses of built-in layers, buffers, traversal

def test_a_python_subclass_of_a_built_in_layer_runs_its_forward_inside_a_sequential():
    class Doubling(nn.Linear):
        def forward(self, x):
            return super().forward(x) * 2

    d = Doubling(2, 2)
    seq = nn.Sequential(d, nn.Identity())
    x = x_of(3, 2)
    expected = ((x @ d.weight.T + d.bias) * 2).detach().numpy()
    assert np.allclose(seq(x).detach().numpy(), expected)
    d.register_forward_hook(lambda m, args, out: out * 0)
    assert seq(x).abs().sum().item() == 0


def test_non_persistent_buffers_are_moved_but_not_saved():
    m = nn.Module()
    m.register_buffer("kept", ember.ones(2))
    m.register_buffer("scratch", ember.zeros(2), persistent=False)
    assert list(m.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == ["kept", "scratch"]
    m.double()
    assert m.scratch.dtype == ember.float64


def test_traversals_match_pytorchs_order_and_dedup():
    shared = nn.Linear(2, 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.body = nn.Sequential(nn.ReLU(), shared)
            self.head = nn.Linear(2, 1)

    net = Net()
    assert [n for n, _ in net.named_modules()] == ["", "a", "body", "body.0", "head"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "a", "body", "body.0", "body.1", "head"]
    assert [n for n, _ in net.named_modules(prefix="net")][:2] == ["net", "net.a"]
    assert len(list(net.modules())) == 5 and [n for n, _ in net.named_children()] == ["a", "body", "head"]
    assert len(list(net.children())) == 3
    visited = []
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited[-1] == "Net" and visited.count("Linear") == 3  # apply visits a shared child each time it appears


# ---- ParameterList and ParameterDict

def test_parameter_list_holds_registered_parameters_under_indices():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.taps = nn.ParameterList([nn.Parameter(ember.ones(2)), ember.zeros(3)])

    net = Net()
    assert list(net.state_dict()) == ["taps.0", "taps.1"]
    taps = net.taps
    assert len(taps) == 2 and isinstance(taps[1], nn.Parameter) and taps[1].requires_grad
    assert taps[-1] is taps[1] and [p.shape for p in taps] == [(2,), (3,)]
    taps.append(ember.ones(1))
    taps += [ember.ones(4)]
    assert list(net.state_dict()) == ["taps.0", "taps.1", "taps.2", "taps.3"]
    assert [p is q for p, q in zip(net.parameters(), taps)] == [True] * 4
    new = nn.Parameter(ember.full((2,), 7.0))
    taps[0] = new
    assert net.taps[0] is new and net.state_dict()["taps.0"].tolist() == [7.0, 7.0]
    assert len(taps[1:3]) == 2
    with pytest.raises(IndexError, match="out of range"):
        taps[4]
    with pytest.raises(TypeError, match="cannot unregister"):
        del taps[0]
    opt = ember.optim.SGD(net.parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["taps.0", "taps.1", "taps.2", "taps.3"]
    assert "(0): Parameter containing: [ember.float32 of size 2]" in repr(taps)


def test_parameter_dict_holds_registered_parameters_under_keys():
    pd = nn.ParameterDict({"scale": ember.ones(2), "shift": nn.Parameter(ember.zeros(2))})
    assert list(pd.state_dict()) == ["scale", "shift"] and list(pd) == ["scale", "shift"]
    assert isinstance(pd["scale"], nn.Parameter) and pd["scale"] is pd.scale
    pd["extra"] = ember.ones(1)
    pd.update([("more", ember.ones(3))])
    assert pd.keys() == ["scale", "shift", "extra", "more"] and "extra" in pd and len(pd) == 4
    assert [v.shape for v in pd.values()] == [(2,), (2,), (1,), (3,)] and pd.get("nope") is None
    pd["scale"] = nn.Parameter(ember.full((2,), 3.0))
    assert pd.state_dict()["scale"].tolist() == [3.0, 3.0] and len(list(pd.parameters())) == 4
    with pytest.raises(KeyError):
        pd["nope"]
    with pytest.raises(TypeError, match="cannot unregister"):
        del pd["scale"]
