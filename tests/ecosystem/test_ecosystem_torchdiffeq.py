"""torchdiffeq on tinytorch: its ODE demo's spiral solved by dopri5 (adaptive steps) and rk4, and a neural
ODE's loss and parameter gradients through ``odeint`` (backpropagation through the solver) and
``odeint_adjoint`` (the adjoint ODE solved backwards), print PyTorch's numbers."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import torch.nn as nn
from torchdiffeq import odeint, odeint_adjoint

true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)
class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))
    def forward(self, t, y):
        return self.net(y ** 3)
y0 = torch.tensor([[2., 0.]])
t = torch.linspace(0., 2., 20)
res = {}
with torch.no_grad():
    res["true"] = odeint(Lambda(), y0, t, method="dopri5").tolist()
    res["rk4"] = odeint(Lambda(), y0, t, method="rk4").tolist()
torch.manual_seed(0)
func = ODEFunc()
for name, solve in (("plain", odeint), ("adjoint", odeint_adjoint)):
    func.zero_grad()
    pred = solve(func, y0, t)
    loss = torch.mean(torch.abs(pred - torch.tensor(res["true"])))
    loss.backward()
    res[name] = [loss.item(), [float(p.grad.abs().sum()) for p in func.parameters()]]
print(json.dumps(res))
"""


def test_odeint_plain_and_adjoint_match_pytorch():
    ours = on_tinytorch(CODE, "torchdiffeq")
    assert ours["plain"][0] == ours["adjoint"][0]  # the same forward solve
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=2e-5, atol=2e-6)
