"""The modified Bessel functions of the first kind i0, i1 and their exponentially scaled forms i0e,
i1e (exp(-|x|) i0(x), exp(-|x|) i1(x)), as torch's (torch.i0, torch.special.i0e, i1, i1e).

The values are Cephes's (Stephen L. Moshier's Cephes Math Library, 3-clause BSD, which PyTorch's CPU
kernels use too): a Chebyshev series in x / 2 - 2 on [0, 8] and one in 32 / x - 2 beyond, summed by
Clenshaw's recurrence with Ember's elementwise ops; i1 and i1e are odd, i0 and i0e even. Each
function is an autograd.Function whose backward is torch's formula (d i0 = i1, d i0e = i1e -
sgn(x) i0e, d i1 = i0 - i1 / x, d i1e = i0e - i1e (sgn(x) + 1 / x), 1/2 at 0 for the last two),
written in Ember's ops, so double backward works."""
from __future__ import annotations

from . import _C
from ._C import Tensor
from ._autograd_function import Function

# exp(-x) i0(x) on [0, 8] (A) and exp(-x) sqrt(x) i0(x) on [8, inf) in 32 / x - 2 (B); likewise
# exp(-x) i1(x) / x and exp(-x) sqrt(x) i1(x). Cephes's i0.c and i1.c.
_I0E_A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0E_B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9, 2.26666899049817806459E-8,
    2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1)
_I1E_A = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1)
_I1E_B = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16, 3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11, 3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)


def _chbevl(y: Tensor, coefficients: tuple) -> Tensor:
    """sum_k c_k T_k(y / 2), Cephes's chbevl (Clenshaw's recurrence)."""
    b0, b1, b2 = _C.full_like(y, coefficients[0]), _C.zeros_like(y), _C.zeros_like(y)
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return (b0 - b2) * 0.5


def _scaled(x: Tensor, small: tuple, large: tuple, times_x: bool) -> Tensor:
    """exp(-|x|) i_n(|x|) from the two series (times |x| on [0, 8] for i1, whose series is i1e / x)."""
    ax = x.abs()
    near = _C.clamp(ax, None, 8.0)
    far = _C.clamp(ax, 8.0, None)  # NB: clamped, so 32 / x never sees 0 where its branch is unused
    inner = _chbevl(near * 0.5 - 2.0, small)
    if times_x:
        inner = inner * near
    outer = _chbevl(32.0 / far - 2.0, large) / far.sqrt()
    return _C.where(ax <= 8.0, inner, outer)


def _float(x: Tensor) -> Tensor:
    # NB: integer and bool inputs give the default float dtype, as torch's.
    return x if x.is_floating_point() else x.to(_C.float32)


def _in_double(fn):
    """fn computed in float64 for a narrower float x, rounded once to x's dtype: the series summed in
    float32 was an ulp or two off (i0(0.01868) 0x1.0005b6p+0, not 0x1.0005b8p+0), which atanh(i0(x))'s
    1 / (1 - y^2) turned into 1e-3 of its gradient."""
    def wide(x: Tensor) -> Tensor:
        return fn(x) if x.dtype == _C.float64 else fn(x.double()).to(x.dtype)
    return wide


@_in_double
def _i0e(x: Tensor) -> Tensor:
    return _scaled(x, _I0E_A, _I0E_B, False)


@_in_double
def _i1e(x: Tensor) -> Tensor:
    return _scaled(x, _I1E_A, _I1E_B, True) * _C.sign(x)


@_in_double
def _i0(x: Tensor) -> Tensor:
    return _scaled(x, _I0E_A, _I0E_B, False) * x.abs().exp()


@_in_double
def _i1(x: Tensor) -> Tensor:
    return _scaled(x, _I1E_A, _I1E_B, True) * _C.sign(x) * x.abs().exp()


class _I0(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i0(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * i1(x)


class _I0e(Function):
    @staticmethod
    def forward(ctx, x):
        y = _i0e(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (i1e(x) - _C.sign(x) * y)


class _I1(Function):
    @staticmethod
    def forward(ctx, x):
        y = _i1(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        safe = _C.where(x == 0, _C.ones_like(x), x)
        return grad * _C.where(x == 0, _C.full_like(x, 0.5), i0(x) - y / safe)


class _I1e(Function):
    @staticmethod
    def forward(ctx, x):
        y = _i1e(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        safe = _C.where(x == 0, _C.ones_like(x), x)
        return grad * _C.where(x == 0, _C.full_like(x, 0.5), i0e(x) - y * (_C.sign(x) + 1.0 / safe))


def i0(input: Tensor) -> Tensor:  # noqa: A002  (PyTorch's name)
    """The modified Bessel function of the first kind of order 0; its gradient is i1."""
    return _I0.apply(_float(input))


def i0e(input: Tensor) -> Tensor:  # noqa: A002
    """exp(-|input|) * i0(input), which does not overflow."""
    return _I0e.apply(_float(input))


def i1(input: Tensor) -> Tensor:  # noqa: A002
    """The modified Bessel function of the first kind of order 1 (odd)."""
    return _I1.apply(_float(input))


def i1e(input: Tensor) -> Tensor:  # noqa: A002
    """exp(-|input|) * i1(input)."""
    return _I1e.apply(_float(input))


__all__ = ["i0", "i0e", "i1", "i1e"]
