"""The activations of torch.nn.functional that are compositions of ops Ember has (so their gradients
are those ops'): the hard and scaled ones of mobile and self-normalising networks, the shrinkage
functions, softmin and the gated linear unit. Each follows PyTorch's definition, value for value."""
from __future__ import annotations

from .. import _C
from .._C.nn.functional import logsigmoid  # noqa: F401  (C++: nn/margin_loss.h)
from ..autograd.function import Function
from .._upcast import in_float32

# SELU's constants (Klambauer et al., as PyTorch's).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class _ExponentialBelowZero(Function):
    """alpha * (e^(rate x) - 1) where x <= 0, x elsewhere, with PyTorch's gradient: grad * rate * alpha *
    e^(rate x) where x <= 0, grad elsewhere (a NaN too: the identity's 1). The exponential is taken of the
    input, not as the result + alpha, which is 0 once e^(rate x) is below alpha's rounding (x = -45)."""

    @staticmethod
    def forward(ctx, x, alpha, rate):
        ctx.save_for_backward(x)
        ctx.alpha, ctx.rate = alpha, rate
        below = x <= 0
        # NB: the exponential sees only the inputs it is picked for (e^(rate * inf) would overflow needlessly)
        return _C.where(below, _C.expm1(_C.where(below, x, 0.0) * rate) * alpha, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        below = x <= 0
        slope = grad * ctx.rate * ctx.alpha * _C.exp(_C.where(below, x, 0.0) * ctx.rate)
        return _C.where(below, slope, grad), None, None


def _exponential_below_zero(input, alpha: float, rate: float):  # noqa: A002
    """ELU's shape (and CELU's and SELU's)."""
    return _ExponentialBelowZero.apply(input, alpha, rate)


@in_float32
def hardsigmoid(input, inplace: bool = False):  # noqa: A002  (PyTorch's names)
    """0 below -3, 1 above 3, input / 6 + 1/2 between."""
    return _C.clamp(input + 3.0, 0.0, 6.0) / 6.0


class _Hardswish(Function):
    """input * hardsigmoid(input), with PyTorch's gradient by cases: 0 up to -3, input / 3 + 1/2
    below 3, 1 from 3 up and where input is NaN (the product's derivative is NaN there)."""

    @staticmethod
    def forward(ctx, input):  # noqa: A002
        ctx.save_for_backward(input)
        # NB: PyTorch's order, x * relu6(x + 3) / 6: past 3e38 / 6 the product overflows to inf, as PyTorch's
        return input * _C.clamp(input + 3.0, 0.0, 6.0) / 6.0

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        middle = grad * (x / 3.0 + 0.5)
        return _C.where(x <= -3.0, _C.zeros_like(middle), _C.where(x < 3.0, middle, grad))


@in_float32
def hardswish(input, inplace: bool = False):  # noqa: A002
    """input * hardsigmoid(input)."""
    return _Hardswish.apply(input)


def _check_elu_input(input) -> None:  # noqa: A002
    # NB: as PyTorch, the elu family takes floating tensors only (an integer or bool one is refused).
    if not input.is_floating_point():
        raise NotImplementedError(f"\"elu\" not implemented for '{str(input.dtype).split('.')[-1]}'")


@in_float32
def selu(input, inplace: bool = False):  # noqa: A002
    """scale * (input where > 0, else alpha * (e^input - 1)), with PyTorch's alpha and scale."""
    _check_elu_input(input)
    return _exponential_below_zero(input, _SELU_ALPHA, 1.0) * _SELU_SCALE


@in_float32
def celu(input, alpha: float = 1.0, inplace: bool = False):  # noqa: A002
    """input where > 0, else alpha * (e^(input / alpha) - 1)."""
    _check_elu_input(input)
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    return _exponential_below_zero(input, alpha, 1.0 / alpha)


@in_float32
def softsign(input):  # noqa: A002
    """input / (1 + |input|)."""
    return input / (_C.abs(input) + 1.0)


def softmin(input, dim: int | None = None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    """softmax(-input) along dim."""
    if dim is None:
        raise ValueError("softmin: give dim (PyTorch's implicit choice is deprecated)")
    x = input if dtype is None else input.to(dtype)
    return _C.softmax(-x, dim)


@in_float32
def glu(input, dim: int = -1):  # noqa: A002
    """a * sigmoid(b), where a and b are the halves of input along dim."""
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim} is size {n}")
    a, b = _C.chunk(input, 2, dim)
    return a * _C.sigmoid(b)


def threshold(input, threshold: float, value: float, inplace: bool = False):  # noqa: A002
    """value where input <= threshold, else input (NaN stays NaN), in input's dtype."""
    fill = _C.full((), value, dtype=input.dtype, device=input.device)
    return _C.where(input <= threshold, fill, input)


class _Tanhshrink(Function):
    """x - tanh(x), with the gradient tanh(x)^2 taken as that product: autograd's 1 - (1 - tanh(x)^2)
    cancels (8e-5 relative error in float32 at |x| = 0.01, as PyTorch's composite has)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x - _C.tanh(x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        t = _C.tanh(x)
        return grad * (t * t)


@in_float32
def tanhshrink(input):  # noqa: A002
    """input - tanh(input)."""
    return _Tanhshrink.apply(input)


# NB: NaN gives NaN, and its gradient passes (1), as PyTorch's scalar loop gives it; PyTorch's
# vectorized loop, which takes the elements of a tensor in chunks of 16 (float32) or 8 (float64)
# and leaves the rest to the scalar loop, gives 0. Its answer depends on where the NaN sits; Ember
# gives the scalar loop's everywhere (hardtanh too).


def softshrink(input, lambd: float = 0.5):  # noqa: A002
    """input - lambd above lambd, input + lambd below -lambd, 0 between; NaN for NaN."""
    if lambd < 0:
        raise ValueError(f"softshrink: lambda must be greater or equal to 0, but found to be {lambd}.")
    inside = (input >= -lambd) & (input <= lambd)
    # NB: the zeros (signed as the input) are a constant: inside the band the gradient is 0, a NaN one too
    return _C.where(inside, (input * 0).detach(), _C.where(input > lambd, input - lambd, input + lambd))


def hardshrink(input, lambd: float = 0.5):  # noqa: A002
    """0 where -lambd <= input <= lambd, else input (NaN too)."""
    return _C.where((input >= -lambd) & (input <= lambd), _C.zeros_like(input), input)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          inplace: bool = False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, and is
    (lower + upper) / 2 otherwise."""
    if not training:
        return _C.where(input >= 0, input, input * ((lower + upper) / 2))
    slope = _C.rand(*input.shape, dtype=input.dtype, device=input.device) * (upper - lower) + lower
    return _C.where(input >= 0, input, input * slope)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):  # noqa: A002
    """Dropout that keeps SELU's self-normalisation (mean 0, variance 1): dropped elements take SELU's
    negative saturation value, then an affine map restores the moments. Identity when not training."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0.0
    alpha_prime = -_SELU_ALPHA * _SELU_SCALE
    keep = (_C.rand(*input.shape, device=input.device) >= p).to(input.dtype)
    a = ((1 - p) * (1 + p * alpha_prime ** 2)) ** -0.5
    b = -a * alpha_prime * p
    return (input * keep + alpha_prime * (1 - keep)) * a + b


def gumbel_softmax(logits, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """softmax((logits + g) / tau) with Gumbel(0, 1) noise g; hard=True returns the one-hot of its
    argmax, whose gradient is the soft sample's (straight-through)."""
    u = _C.rand(*logits.shape, dtype=logits.dtype, device=logits.device)
    gumbels = -_C.log(-_C.log(u + eps) + eps)  # NB: eps keeps log(0) out for u == 0
    soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = _C.zeros_like(soft).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):  # noqa: A002
    """input / (k + alpha * mean over `size` neighbouring channels of input^2)^beta, the channels dim 1
    (AlexNet's normalisation, as PyTorch computes it)."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    n, c = input.shape[0], input.shape[1]
    squares = (input * input).reshape(n, 1, c, -1)  # channels as rows of a plane
    squares = _C.pad(squares, [0, 0, size // 2, (size - 1) // 2])
    div = _C.avg_pool2d(squares, (size, 1), 1).reshape(*input.shape)
    return input / (div * alpha + k) ** beta



__all__ = ["logsigmoid", "rrelu", "alpha_dropout", "gumbel_softmax", "local_response_norm", "hardsigmoid", "hardswish", "selu", "celu", "softsign", "softmin", "glu", "threshold", "tanhshrink",
           "softshrink", "hardshrink"]
