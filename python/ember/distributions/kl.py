"""kl_divergence(p, q): KL(p || q) = E_p[log p(x) - log q(x)] in closed form, per batch element,
for the pairs registered with register_kl. Lookup picks the most specific registered pair by
subclass order, as torch's does (a subclass of Normal gets Normal's formula)."""
from __future__ import annotations

import math
import warnings
from functools import total_ordering
from typing import Any, Callable, Dict, Tuple

import ember
import ember.nn.functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_shapes, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: Dict[Tuple[type, type], Callable] = {}
_KL_MEMOIZE: Dict[Tuple[type, type], Any] = {}
_EULER_GAMMA = 0.57721566490153286060


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator: registers fun(p, q) as KL(p || q) for p of type_p and q of type_q (subclasses
    included, unless a more specific pair is registered)."""
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected a Distribution subclass but got {t}")

    def decorator(fun: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the most specific match may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: Any) -> bool:
        return self.types == other.types

    def __le__(self, other: Any) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    # NB: the left- and right-lexicographic orders must agree, else the match is ambiguous.
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> ember.Tensor:
    """KL(p || q), of shape batch_shape; NotImplementedError for a pair with no formula."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fun(p, q)


def _set_where(t: ember.Tensor, mask: ember.Tensor, value: float) -> ember.Tensor:
    # NB: torch writes t[mask] = value in place; a where keeps the graph the same for gradients.
    return ember.where(mask, ember.full_like(t, value), t)


# ---- same family
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> ember.Tensor:
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = _set_where(_set_where(t1, q.probs == 0, math.inf), p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = _set_where(_set_where(t2, q.probs == 1, math.inf), p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> ember.Tensor:
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_params_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_params_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * ember.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * ember.digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * ember.digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> ember.Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _set_where(t, (q.probs == 0).expand_as(t), math.inf)
    t = _set_where(t, (p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> ember.Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> ember.Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> ember.Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = ember.lgamma(q.concentration) - ember.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * ember.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> ember.Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> ember.Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         f"computed: {p.event_shape} vs {q.event_shape}")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2]))
    n = p.event_shape[0]
    # tr(Sigma_q^-1 Sigma_p) = |Lq^-1 Lp|_F^2; tril: a triangular solve reads Lq's lower triangle only
    term2 = ember.linalg.solve(ember.tril(lq).expand(batch + (n, n)), lp.expand(batch + (n, n))).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> ember.Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> ember.Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> ember.Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> ember.Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _set_where(result, (q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> ember.Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independent distributions that reinterpret different numbers of "
                                  f"batch dims: {p.reinterpreted_batch_ndims} vs {q.reinterpreted_batch_ndims}")
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> ember.Tensor:
    # NB: KL is invariant under one bijection applied to both sides.
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions with different transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


# ---- across families
@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> ember.Tensor:
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> ember.Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ember.log(ratio)
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER_GAMMA - (1 + _EULER_GAMMA)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> ember.Tensor:
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = ember.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * ember.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * ember.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))
