"""ember.distributions: PyTorch's torch.distributions, composed in Python of Ember's ops.

    import ember.distributions as D
    dist = D.Categorical(logits=policy(x))
    a = dist.sample()
    loss = -(dist.log_prob(a) * advantage).mean()

Each distribution has its own file; `distribution.py` holds the base class, `constraints.py` the
supports validation checks, `kl.py` the closed-form KL divergences, `transforms.py` the maps TransformedDistribution
(and LogNormal) push a base distribution through. Sampling draws from Ember's
default generator (ember.manual_seed makes it repeatable; the values are not torch's)."""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform, SigmoidTransform, Transform
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential", "Gamma",
           "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson",
           "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl", "transforms",
           "AffineTransform", "ExpTransform", "SigmoidTransform", "Transform"]
