"""``tinytorch.distributions``: probability distributions, transforms and KL divergences with
``torch.distributions``' API, values and random streams."""
from __future__ import annotations

from . import constraints
from .bernoulli import Bernoulli, Geometric
from .categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from .cauchy import Cauchy
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .laplace import Laplace
from .normal import Normal
from .uniform import Uniform
