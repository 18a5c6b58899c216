"""A convolution/BatchNorm fuser written with torch.fx, as in PyTorch's FX tutorial, on a small CNN in eval mode.

    python examples/fx_conv_bn_fuser.py            # tinytorch
    python examples/fx_conv_bn_fuser.py --torch    # the same script under real PyTorch

In inference a BatchNorm is an affine map per channel, so it can be folded into the weights and bias of the
convolution before it. The pass traces the model (``symbolic_trace``), finds each ``call_module`` of a
BatchNorm2d whose input is a ``call_module`` of a Conv2d read by nothing else, swaps the convolution for the
fused one, points the BatchNorm's users at the convolution (``replace_all_uses_with``), erases the BatchNorm
node and regenerates the code (``recompile``). It prints the graph before, the code and table after, and whether
the fused model's output matches the eager model's. Both libraries print the same text."""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if "--torch" in sys.argv:
    import torch
    import torch.fx as fx
    import torch.nn.functional as F
    from torch import nn
    from torch.nn.utils.fusion import fuse_conv_bn_eval
else:
    sys.path.insert(0, os.path.dirname(HERE))  # this checkout's tinytorch, wherever the script is run from
    import tinytorch as torch
    import tinytorch.fx as fx
    import tinytorch.nn.functional as F
    from tinytorch import nn
    from tinytorch.nn.utils.fusion import fuse_conv_bn_eval


class WrappedBatchNorm(nn.Module):
    """A BatchNorm inside a module of the user's: the trace goes through it, so the pass still finds it."""

    def __init__(self, channels: int):
        super().__init__()
        self.mod = nn.BatchNorm2d(channels)

    def forward(self, x):
        return self.mod(x)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.block = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.conv3 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn3 = WrappedBatchNorm(16)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(self.block(x), 2)
        x = torch.relu(self.bn3(self.conv3(x)))
        return self.fc(torch.flatten(x, 1))


def fuse(model: nn.Module) -> fx.GraphModule:
    """``model`` (in eval mode) traced, with every Conv2d -> BatchNorm2d pair folded into one Conv2d."""
    gm = fx.symbolic_trace(model)
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op != "call_module" or type(modules[node.target]) is not nn.BatchNorm2d:
            continue
        conv_node = node.args[0]
        if conv_node.op != "call_module" or type(modules[conv_node.target]) is not nn.Conv2d:
            continue
        if len(conv_node.users) > 1:  # the convolution's output is read elsewhere too: it must stay as it is
            continue
        fused = fuse_conv_bn_eval(modules[conv_node.target], modules[node.target])
        parent, _, name = conv_node.target.rpartition(".")
        setattr(modules[parent], name, fused)
        node.replace_all_uses_with(conv_node)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return gm


def main() -> None:
    torch.manual_seed(0)
    model = SmallCNN()
    with torch.no_grad():  # statistics as a trained model would have them (fresh ones make BatchNorm the identity)
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    model.eval()

    print("Before fusion:")
    print(fx.symbolic_trace(model).graph)
    fused = fuse(model)
    print("\nAfter fusion:")
    print(fused.code.strip())
    fused.graph.print_tabular()

    x = torch.randn(4, 1, 14, 14)
    with torch.no_grad():
        expected, got = model(x), fused(x)
    print(f"\nBatchNorm modules left: {sum(isinstance(m, nn.BatchNorm2d) for m in fused.modules())}")
    # the folded weights round differently from the two steps they replace, a few ulps apart
    print(f"fused output within 1e-5 of the eager model's: {bool(torch.allclose(expected, got, rtol=1e-4, atol=1e-5))}")
    print(f"same predictions: {bool((expected.argmax(1) == got.argmax(1)).all())}")


if __name__ == "__main__":
    main()
