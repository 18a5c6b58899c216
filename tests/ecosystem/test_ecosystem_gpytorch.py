"""gpytorch on tinytorch: its exact-GP regression quickstart (ScaleKernel(RBF), Gaussian likelihood, 50 Adam
steps on the marginal log likelihood, fast predictive variances) prints PyTorch's losses, hyperparameters and
predictions, within float32 rounding (the Cholesky solves amplify the last bits; PyTorch's own CPU paths
differ by as much)."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import math
import gpytorch

train_x = torch.linspace(0, 1, 100)
noise = torch.randn(train_x.size(), generator=torch.Generator().manual_seed(0)) * math.sqrt(0.04)
train_y = torch.sin(train_x * (2 * math.pi)) + noise

class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())
    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

likelihood = gpytorch.likelihoods.GaussianLikelihood()
model = ExactGPModel(train_x, train_y, likelihood)
model.train()
likelihood.train()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
losses = []
for i in range(50):
    optimizer.zero_grad()
    loss = -mll(model(train_x), train_y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
model.eval()
likelihood.eval()
with torch.no_grad(), gpytorch.settings.fast_pred_var():
    pred = likelihood(model(torch.linspace(0, 1, 11)))
    lower, upper = pred.confidence_region()
print(json.dumps({"losses": losses, "mean": pred.mean.tolist(), "lower": lower.tolist(), "upper": upper.tolist(),
                  "lengthscale": model.covar_module.base_kernel.lengthscale.item(),
                  "noise": likelihood.noise.item()}))
"""


def test_exact_gp_regression_matches_pytorch():
    ours = on_tinytorch(CODE, "gpytorch")
    assert ours["losses"][-1] < ours["losses"][0] and len(ours["mean"]) == 11
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-4, atol=5e-5)
