"""Autograd from Python: backward, .grad, grad(), no_grad, hooks, and gradients of ops checked
against central finite differences computed here in Python."""
import threading

import numpy as np
import pytest

import ember


def numeric_grad(fn, x, eps=1e-6):
    """d fn(x).sum() / dx by central differences, x float64."""
    base = x.detach().numpy().copy()
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        plus, minus = base.copy(), base.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (fn(ember.tensor(plus)).sum().item() - fn(ember.tensor(minus)).sum().item()) / (2 * eps)
    return grad


@pytest.mark.parametrize("name, fn, make", [
    ("mul_broadcast", lambda x: x * ember.tensor([[1.0, -2.0, 3.0]], dtype=ember.float64), lambda: ember.randn(2, 3)),
    ("rsub_rdiv", lambda x: (1 - x) / (2 + x * x), lambda: ember.randn(4)),
    ("rpow", lambda x: 2 ** x + x ** 3, lambda: ember.randn(3)),
    ("matmul", lambda x: x @ x.t(), lambda: ember.randn(2, 3)),
    ("tanh_sigmoid", lambda x: x.tanh() * x.sigmoid(), lambda: ember.randn(5)),
    ("softmax", lambda x: x.softmax(-1) * ember.arange(3, dtype=ember.float64), lambda: ember.randn(2, 3)),
    ("logsumexp_var", lambda x: x.logsumexp(dim=1) + x.var(dim=0).sum(), lambda: ember.randn(3, 4)),
    ("getitem_views", lambda x: x[1:, ::2] * x[0, None, ::2], lambda: ember.randn(3, 4)),
    ("getitem_advanced", lambda x: x[ember.tensor([2, 0, 2])] * x[x.detach() > 0].sum(), lambda: ember.randn(3, 2)),
    ("conv2d", lambda x: ember.conv2d(x, ember.tensor(np.arange(8.0).reshape(2, 1, 2, 2) / 8), padding=1),
     lambda: ember.randn(1, 1, 3, 3)),
])
def test_gradients_match_finite_differences(name, fn, make):
    x = make().double().requires_grad_()
    fn(x).sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape
    np.testing.assert_allclose(x.grad.numpy(), numeric_grad(fn, x), rtol=1e-5, atol=1e-6)


def test_gradcheck_binding():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    y = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: (a * b.exp()).sum(), (x, y))
    assert ember.autograd.gradgradcheck(lambda a: (a ** 3).sum(), [x])


def test_gradcheck_reports_a_wrong_gradient():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)

    def wrong(a):
        # the hook doubles the gradient, so autograd disagrees with the finite differences
        b = a * 1.0
        b.register_hook(lambda g: g * 2)
        return (b * b).sum()

    with pytest.raises(RuntimeError):
        ember.autograd.gradcheck(wrong, [x])


def test_backward_accumulates_into_grad_and_grad_is_settable():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad is None and w.grad_fn is None
    y = (w * w).sum()
    assert not y.is_leaf and y.grad_fn.name() == "SumBackward"
    y.backward()
    assert w.grad.tolist() == [2.0, 4.0]
    (w * 3).sum().backward()
    assert w.grad.tolist() == [5.0, 7.0]
    w.grad = None
    assert w.grad is None
    w.grad = ember.zeros(2)
    assert w.grad.tolist() == [0.0, 0.0]


def test_backward_with_gradient_and_retain_graph():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.backward(ember.tensor([1.0, 0.0, 1.0]), retain_graph=True)
    assert x.grad.tolist() == [2.0, 0.0, 6.0]
    y.backward(ember.ones(3))
    assert x.grad.tolist() == [4.0, 4.0, 12.0]
    with pytest.raises(RuntimeError):
        y.backward(ember.ones(3))  # the graph was freed
    with pytest.raises((RuntimeError, ValueError)):
        (x * 2).backward()  # non-scalar output without a gradient


def test_requires_grad_setter_detach_and_retain_grad():
    x = ember.ones(2)
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    x.requires_grad_()
    h = x * 2
    h.retain_grad()
    d = h.detach()
    assert not d.requires_grad and d.data_ptr() == h.data_ptr()
    (h * h).sum().backward()
    assert h.retains_grad and h.grad.tolist() == [4.0, 4.0] and x.grad.tolist() == [8.0, 8.0]


def test_autograd_grad_returns_gradients_without_touching_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    z = ember.tensor([5.0], requires_grad=True)
    y = (x ** 3).sum()
    (gx,) = ember.autograd.grad(y, x, create_graph=True)
    assert gx.tolist() == [3.0, 12.0] and x.grad is None and gx.requires_grad
    (ggx,) = ember.autograd.grad(gx.sum(), [x])
    assert ggx.tolist() == [6.0, 12.0]
    gx2, gz = ember.autograd.grad([(x * 2).sum()], [x, z], allow_unused=True)
    assert gx2.tolist() == [2.0, 2.0] and gz is None
    with pytest.raises(Exception):
        ember.autograd.grad((x * 2).sum(), [x, z])


def test_autograd_backward_function():
    a = ember.tensor([1.0], requires_grad=True)
    b = ember.tensor([2.0], requires_grad=True)
    ember.autograd.backward([(a * 3).sum(), (b * b).sum()])
    assert a.grad.tolist() == [3.0] and b.grad.tolist() == [4.0]


def test_no_grad_as_context_manager():
    w = ember.ones(2, requires_grad=True)
    assert ember.is_grad_enabled()
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        y = w * 2
        with ember.enable_grad():
            assert (w * 2).requires_grad
    assert not y.requires_grad and y.grad_fn is None and ember.is_grad_enabled()


def test_no_grad_as_decorator_restores_mode_on_exceptions():
    w = ember.ones(2, requires_grad=True)

    @ember.no_grad()
    def step(scale):
        w.sub_(w * scale)  # in-place on a leaf is allowed without recording
        return w * 1

    assert not step(0.5).requires_grad and w.tolist() == [0.5, 0.5]
    assert step.__name__ == "step" and ember.is_grad_enabled()

    @ember.no_grad()
    def fails():
        raise KeyError("boom")

    with pytest.raises(KeyError):
        fails()
    assert ember.is_grad_enabled()


def test_set_grad_enabled():
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()
    ember.set_grad_enabled(False)
    try:
        assert not (ember.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        ember.set_grad_enabled(True)


def test_grad_mode_is_per_thread():
    seen = []
    with ember.no_grad():
        t = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_inplace_on_leaf_requiring_grad_is_a_runtime_error():
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="add_"):
        w.add_(1.0)


def test_hooks_see_and_replace_gradients_and_can_be_removed():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h1 = x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 3
    h2 = y.register_hook(lambda g: g * 10)  # non-leaf hook replaces the gradient
    y.sum().backward()
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [30.0, 30.0]
    h1.remove()
    h2.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [3.0, 3.0]


def test_exception_in_a_hook_reaches_python():
    x = ember.tensor([1.0], requires_grad=True)

    def bad(g):
        raise ValueError("hook failed")

    x.register_hook(bad)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 2).sum().backward()


def test_hook_must_return_tensor_or_none():
    x = ember.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="must return a Tensor or None"):
        (x * 2).sum().backward()


def test_backward_releases_the_gil():
    # A hook running on another Python thread's backward can only make progress if backward
    # released the GIL; two threads running backward at once must both finish.
    results = []

    def work():
        x = ember.randn(200, 200, requires_grad=True)
        for _ in range(5):
            (x @ x).sum().backward()
        results.append(x.grad.shape)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert results == [(200, 200), (200, 200)]


def test_grad_fn_next_functions():
    a = ember.ones(1, requires_grad=True)
    y = a * 2 + 1
    names = [fn.name() for fn, _ in y.grad_fn.next_functions if fn is not None]
    assert names == ["MulBackward"]


# ---- assignment into tensors is recorded, as in PyTorch (regressions: y[1:3] = v left y without
# a history, so v.grad was silently None)

def values(t):
    return t.tolist()


def _weights(*shape):
    return ember.arange(1, 1 + int(np.prod(shape)), dtype=ember.float64).reshape(*shape)


@pytest.mark.parametrize("index", [
    (slice(1, 3),),                                   # y[1:3] = v
    (ember.tensor([3, 0]),),                          # y[idx] = v
    (ember.tensor([True, False, True, False]),),      # y[mask] = v
    (slice(None), ember.tensor([4, 1])),              # y[:, idx] = v
])
def test_setitem_of_a_value_requiring_grad_makes_the_target_depend_on_it(index):
    y = ember.zeros(4, 5, dtype=ember.float64)
    target_shape = np.zeros((4, 5))[tuple(i.numpy() if isinstance(i, ember.Tensor) else i for i in index)].shape
    v = ember.randn(*target_shape, dtype=ember.float64, requires_grad=True)
    y[index] = v
    assert y.requires_grad and not y.is_leaf
    w = _weights(4, 5)
    (y * w).sum().backward()
    key = tuple(i.numpy() if isinstance(i, ember.Tensor) else i for i in index)
    np.testing.assert_array_equal(v.grad.numpy(), w.numpy()[key])


def test_setitem_on_a_tensor_requiring_grad_routes_gradients_around_the_written_part():
    a = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    x = a * 2
    x[:, 0] = 5.0                          # was an error
    x[x.detach() > 100] = 0.0              # a mask over everything, no element chosen
    x[ember.tensor([1]), 1:3] = ember.tensor([7.0, 8.0])
    assert values(x[1, :3]) == [5.0, 7.0, 8.0]
    x.sum().backward()
    expected = np.full((3, 4), 2.0)
    expected[:, 0] = 0
    expected[1, 1:3] = 0
    np.testing.assert_array_equal(a.grad.numpy(), expected)


def test_views_taken_before_an_assignment_see_the_assigned_values_and_their_history():
    y = ember.zeros(4, dtype=ember.float64)
    early = y[:2]
    v = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    y[1:3] = v
    assert early.requires_grad and values(early) == [0.0, 1.0]
    (early * 10).sum().backward()
    assert values(v.grad) == [10.0, 0.0]


def test_setitem_through_a_view_of_a_parameter_is_refused_unless_no_grad():
    w = ember.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf tensor that requires grad"):
        w[0, 1] = 1.0
    with ember.no_grad():
        w[0, 1] = 1.0
    assert values(w[0]) == [0.0, 1.0, 0.0]


def test_duplicate_indices_keep_the_last_value_as_pytorch_on_cpu():
    x = ember.zeros(3)
    x[ember.tensor([0, 0, 2])] = ember.tensor([1.0, 2.0, 3.0])
    assert values(x) == [2.0, 0.0, 3.0]
