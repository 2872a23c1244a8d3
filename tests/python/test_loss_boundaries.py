"""The losses at the boundary values, where Ember's C++ losses keep PyTorch's values and gradients,
and where they deliberately differ (python/README.md)."""
import math

import ember
import ember.nn.functional as F


def test_soft_margin_loss_stays_finite_where_pytorch_overflows():
    # log(1 + e^(-y x)) of y x = -65504 is 65504; PyTorch's log1p(exp(...)) overflows to inf, its
    # gradient to NaN. Ember computes it as -logsigmoid(y x).
    x = ember.tensor([65504.0, 1.0, -3.0], requires_grad=True)
    y = ember.tensor([-1.0, -65504.0, 1.0])
    loss = F.soft_margin_loss(x, y, reduction="none")
    assert loss.tolist()[:2] == [65504.0, 65504.0]
    assert abs(loss.tolist()[2] - math.log1p(math.exp(3.0))) < 1e-6
    loss.sum().backward()
    assert x.grad.tolist()[:2] == [1.0, 65504.0]


def test_binary_cross_entropy_gradient_is_finite_at_zero_and_one():
    p = ember.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    t = ember.tensor([0.0, 1.0, 1.0, 0.0])
    loss = F.binary_cross_entropy(p, t, reduction="sum")
    assert loss.item() == 200.0  # each log clamped at -100
    loss.backward()
    assert all(math.isfinite(g) for g in p.grad.tolist())
    assert p.grad.tolist()[:2] == [0.0, 0.0]


def test_rrelu_gradient_at_zero_is_the_slope():
    x = ember.tensor([-0.0, 0.0, 2.0], requires_grad=True)
    F.rrelu(x).sum().backward()
    slope = (1 / 8 + 1 / 3) / 2
    assert [round(g, 6) for g in x.grad.tolist()] == [round(slope, 6), round(slope, 6), 1.0]
