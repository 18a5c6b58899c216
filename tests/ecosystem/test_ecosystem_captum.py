"""captum on tinytorch: Integrated Gradients (with its convergence delta), Saliency, DeepLift, GradientShap
and a NoiseTunnel on captum's README model print PyTorch's attributions."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import torch.nn as nn
from captum.attr import IntegratedGradients, Saliency, DeepLift, GradientShap, NoiseTunnel

class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(3, 3)
        self.relu = nn.ReLU()
        self.lin2 = nn.Linear(3, 2)
        self.lin1.weight = nn.Parameter(torch.ones(3, 3))
        self.lin1.bias = nn.Parameter(torch.tensor([-10.0, 1.0, -4.0]))
        self.lin2.weight = nn.Parameter(torch.ones(2, 3))
        self.lin2.bias = nn.Parameter(torch.ones(2))
    def forward(self, x):
        return self.lin2(self.relu(self.lin1(x)))

model = ToyModel().eval()
torch.manual_seed(123)
inp = torch.rand(2, 3)
baseline = torch.zeros(2, 3)
ig = IntegratedGradients(model)
attr, delta = ig.attribute(inp, baseline, target=0, return_convergence_delta=True)
res = {"ig": attr.tolist(), "delta": delta.tolist()}
res["saliency"] = Saliency(model).attribute(inp, target=1).tolist()
res["deeplift"] = DeepLift(model).attribute(inp, baseline, target=0).tolist()
torch.manual_seed(0)
res["gshap"] = GradientShap(model).attribute(inp, torch.zeros(5, 3), target=0, n_samples=4).tolist()
torch.manual_seed(0)
res["nt"] = NoiseTunnel(ig).attribute(inp, nt_type="smoothgrad", nt_samples=3, target=0).tolist()
print(json.dumps(res))
"""


def test_attributions_match_pytorch():
    ours = on_tinytorch(CODE, "captum")
    assert len(ours["ig"]) == 2 and abs(max(ours["delta"], key=abs)) < 1e-5
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
