"""ember.autograd.Function and ember.utils.checkpoint, as PyTorch's: custom backward, saved tensors
and their errors, several inputs and outputs, non-tensor arguments, non-differentiable and dirty
outputs, materialised grads, double backward (and @once_differentiable refusing it), both styles of
forward; checkpointing against the plain run, dropout included. Error texts are torch 2.15's."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import Function
from ember.autograd.function import FunctionCtx, once_differentiable
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class ScaledAddMul(Function):
    """(a * k + b, a * b) for a number k: two outputs, a non-tensor argument."""

    @staticmethod
    def forward(ctx, a, k, b):
        ctx.k = k
        ctx.save_for_backward(a, b)
        return a * k + b, a * b

    @staticmethod
    def backward(ctx, g_sum, g_prod):
        a, b = ctx.saved_tensors
        return g_sum * ctx.k + g_prod * b, None, g_sum + g_prod * a


def f64(*values, grad=True):
    return ember.tensor(list(values), dtype=ember.float64, requires_grad=grad)


def test_forward_backward_and_gradcheck():
    x = f64(0.5, -1.0, 2.0)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward" and not x.grad_fn
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, -1.0, 2.0]))
    assert ember.autograd.gradcheck(Exp.apply, (f64(0.3, 1.2),))
    assert ember.autograd.gradgradcheck(Exp.apply, (f64(0.3, 1.2),))


def test_several_outputs_and_a_number_argument():
    a, b = f64(1.0, 2.0), f64(3.0, -1.0)
    s, p = ScaledAddMul.apply(a, 2.5, b)
    (s * 2 + p * 3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * 2.5 + 3 * b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), 2 + 3 * a.detach().numpy())
    assert ember.autograd.gradcheck(lambda a, b: ScaledAddMul.apply(a, 2.5, b)[1], (f64(1.5, 2.0), f64(0.5, 3.0)))


def test_no_graph_without_an_input_that_requires_grad():
    y = Exp.apply(ember.tensor([1.0]))
    assert y.grad_fn is None and not y.requires_grad
    with ember.no_grad():
        assert Exp.apply(f64(1.0)).grad_fn is None


def test_needs_input_grad_and_an_unused_output_gets_zeros():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            return a * 2, b * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen["grads"] = (ga, gb)
            return ga * 2, gb * 3

    a = f64(1.0, 2.0)
    first, _ = Probe.apply(a, ember.tensor([1.0, 1.0], dtype=ember.float64))
    first.sum().backward()
    assert seen["needs"] == (True, False)
    assert seen["grads"][1].tolist() == [0.0, 0.0]  # materialised: the second output got no gradient
    assert a.grad.tolist() == [2.0, 2.0]


def test_set_materialize_grads_false_passes_none():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1

    x = f64(1.0)
    Two.apply(x)[0].sum().backward()
    assert seen == [None] and x.grad.tolist() == [1.0]


def test_non_differentiable_outputs_and_sorting():
    class SortWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            values, index = x.sort()
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(index)
            return values, index

        @staticmethod
        def backward(ctx, g_values, g_index):
            (index,) = ctx.saved_tensors
            return ember.zeros_like(g_values).scatter(0, index, g_values)

    x = f64(3.0, 1.0, 2.0)
    values, index = SortWithIndex.apply(x)
    assert not index.requires_grad and index.dtype == ember.int64
    (values * ember.tensor([1.0, 10.0, 100.0], dtype=ember.float64)).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]


def test_mark_dirty_moves_the_inputs_history():
    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = f64(1.0, 2.0)
    y = a * 2
    z = AddOneInPlace.apply(y)
    assert z is y and y.tolist() == [3.0, 5.0] and y.grad_fn.name() == "AddOneInPlaceBackward"
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad is being used in an in-place operation"):
        AddOneInPlace.apply(f64(1.0))


def test_an_input_returned_as_it_is_keeps_its_own_history():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = f64(1.0, 2.0)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_saved_tensors_are_freed_and_checked_for_in_place_writes():
    x = f64(1.0, 2.0)
    y = Exp.apply(x)
    loss = y.sum()
    loss.backward(retain_graph=True)
    loss.backward()  # retained once: works
    assert x.grad.tolist() == pytest.approx([2 * math.exp(1), 2 * math.exp(2)])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
    z = Exp.apply(x)
    with ember.no_grad():
        z.mul_(2)  # the saved output, written in place
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_bad_gradients_are_refused_and_broadcast_ones_summed():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x, mode):
            ctx.mode = mode
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if ctx.mode == "count":
                return g
            if ctx.mode == "shape":
                return ember.ones(5, dtype=ember.float64), None
            return g.expand(3, 2), None  # broadcast: summed back to the input's [2]

    x = f64(1.0, 2.0)
    with pytest.raises(RuntimeError, match=r"function WrongBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        Wrong.apply(x, "count").sum().backward()
    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got \[5\] but expected shape "
                                           r"compatible with \[2\]"):
        Wrong.apply(x, "shape").sum().backward()
    Wrong.apply(x, "broadcast").sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_an_exception_in_backward_reaches_the_caller_with_its_type():
    class Fails(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("no gradient for you")

    with pytest.raises(ValueError, match="no gradient for you"):
        Fails.apply(f64(1.0)).sum().backward()


def test_setup_context_style_and_once_differentiable():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    x = f64(2.0)
    (g,) = ember.autograd.grad(Cube.apply(x), x, create_graph=True)
    assert g.tolist() == [12.0] and not g.requires_grad  # as torch: nothing recorded for a constant cotangent
    (g,) = ember.autograd.grad(Cube.apply(x), x, grad_outputs=f64(1.0), create_graph=True)
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.backward()
    assert isinstance(FunctionCtx(), FunctionCtx)


def test_checkpoint_matches_the_plain_run_with_dropout():
    ember.manual_seed(3)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3))
    x = ember.randn(5, 4, requires_grad=True)
    runs = []
    for use_checkpoint in (True, False):
        model.zero_grad()
        x.grad = None
        ember.manual_seed(11)
        y = checkpoint(model, x, use_reentrant=False) if use_checkpoint else model(x)
        (y * ember.arange(3.0)).sum().backward()
        runs.append((y.detach().clone(), x.grad.clone(), model[0].weight.grad.clone(), model[3].bias.grad.clone()))
    for got, want in zip(*runs):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def test_checkpoint_sequential_and_keyword_arguments():
    ember.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(6, 6) for _ in range(4)])
    x = ember.randn(2, 6, requires_grad=True)
    checkpoint_sequential(model, 2, x).sum().backward()
    got = x.grad.clone()
    x.grad = None
    model(x).sum().backward()
    np.testing.assert_allclose(got.numpy(), x.grad.numpy(), rtol=1e-6)

    def scaled(t, *, scale):
        return t * scale

    w = ember.ones(3, requires_grad=True)
    checkpoint(scaled, w, scale=4.0).sum().backward()
    assert w.grad.tolist() == [4.0, 4.0, 4.0]
