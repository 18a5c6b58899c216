"""Pyro on tinytorch: its introductory SVI (a Beta-Bernoulli coin, a Beta guide with constrained
parameters, Trace_ELBO, Pyro's Adam) prints PyTorch's losses and parameters: the Beta samples are drawn from
PyTorch's random streams."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import pyro
import pyro.distributions as dist
from pyro.infer import SVI, Trace_ELBO
from pyro.optim import Adam
import torch.distributions.constraints as constraints

data = torch.tensor([1.] * 6 + [0.] * 4)
def model(data):
    f = pyro.sample("latent_fairness", dist.Beta(10., 10.))
    with pyro.plate("data", len(data)):
        pyro.sample("obs", dist.Bernoulli(f), obs=data)
def guide(data):
    a = pyro.param("alpha_q", torch.tensor(15.0), constraint=constraints.positive)
    b = pyro.param("beta_q", torch.tensor(15.0), constraint=constraints.positive)
    pyro.sample("latent_fairness", dist.Beta(a, b))
pyro.set_rng_seed(0)
pyro.clear_param_store()
svi = SVI(model, guide, Adam({"lr": 0.0005, "betas": (0.90, 0.999)}), loss=Trace_ELBO())
losses = [svi.step(data) for _ in range(200)]
print(json.dumps({"losses": losses, "alpha": pyro.param("alpha_q").item(), "beta": pyro.param("beta_q").item(),
                  "name": torch.__name__}))
"""


def test_svi_matches_pytorch():
    ours = on_tinytorch(CODE, "pyro")
    assert ours["name"] == "torch" and len(ours["losses"]) == 200
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
