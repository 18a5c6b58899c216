"""PyTorch's pruning tutorial (``torch.nn.utils.prune`` on LeNet), step by step, in PyTorch code run by tinytorch.

    python examples/pruning_tutorial.py            # tinytorch
    python examples/pruning_tutorial.py --torch    # the same script under real PyTorch

It inspects a conv layer, prunes its weight at random and its bias by L1 magnitude, prunes the weight
again along its output channels (iterative pruning: a PruningContainer), looks at the state_dict, makes
the pruning permanent, prunes a whole model layer by layer and then globally, and ends with a pruning
method of its own. The tutorial seeds nothing; this script seeds once at the start, and then prints the
same numbers under both libraries (the random pruning draws from the generator, which tinytorch
reproduces bit for bit). Only object addresses and the library's name in class paths differ."""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if "--torch" in sys.argv:
    import torch
    from torch import nn
    from torch.nn.utils import prune
    import torch.nn.functional as F
else:
    sys.path.insert(0, os.path.dirname(HERE))  # this checkout's tinytorch, wherever the script is run from
    import tinytorch as torch
    from tinytorch import nn
    from tinytorch.nn.utils import prune
    import tinytorch.nn.functional as F


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        # 1 input image channel, 6 output channels, 3x3 square conv kernel
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    """Prunes tensor corresponding to parameter called `name` in `module` by removing every other entry in the
    tensors. Modifies module in place (and also return the modified module) by: 1) adding a named buffer called
    `name+'_mask'` corresponding to the binary mask applied to the parameter `name` by the pruning method.
    The parameter `name` is replaced by its pruned version, while the original (unpruned) parameter is stored
    in a new parameter named `name+'_orig'`."""
    FooBarPruningMethod.apply(module, name)
    return module


def section(title):
    print(f"\n== {title}")


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = LeNet().to(device=device)

    section("Inspect a Module")
    module = model.conv1
    print(list(module.named_parameters()))
    print(list(module.named_buffers()))

    section("Pruning a Module")
    prune.random_unstructured(module, name="weight", amount=0.3)
    print(list(module.named_parameters()))
    print(list(module.named_buffers()))
    print(module.weight)
    print(module._forward_pre_hooks)

    prune.l1_unstructured(module, name="bias", amount=3)
    print(list(module.named_parameters()))
    print(list(module.named_buffers()))
    print(module.bias)
    print(module._forward_pre_hooks)

    section("Iterative Pruning")
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    # As we can verify, this will zero out all the connections corresponding to
    # 50% (3 out of 6) of the channels, while preserving the action of the
    # previous mask.
    print(module.weight)
    for hook in module._forward_pre_hooks.values():
        if hook._tensor_name == "weight":  # select out the correct hook
            break
    print(list(hook))  # pruning history in the container

    section("Serializing a pruned model")
    print(model.state_dict().keys())

    section("Remove pruning re-parametrization")
    print(list(module.named_parameters()))
    print(list(module.named_buffers()))
    print(module.weight)
    prune.remove(module, "weight")
    print(list(module.named_parameters()))
    print(list(module.named_buffers()))

    section("Pruning multiple parameters in a model")
    new_model = LeNet()
    for _name, module in new_model.named_modules():
        # prune 20% of connections in all 2D-conv layers
        if isinstance(module, torch.nn.Conv2d):
            prune.l1_unstructured(module, name="weight", amount=0.2)
        # prune 40% of connections in all linear layers
        elif isinstance(module, torch.nn.Linear):
            prune.l1_unstructured(module, name="weight", amount=0.4)
    print(dict(new_model.named_buffers()).keys())  # to verify that all masks exist

    section("Global pruning")
    model = LeNet()
    parameters_to_prune = (
        (model.conv1, "weight"),
        (model.conv2, "weight"),
        (model.fc1, "weight"),
        (model.fc2, "weight"),
        (model.fc3, "weight"),
    )
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
    for name in ("conv1", "conv2", "fc1", "fc2", "fc3"):
        weight = getattr(model, name).weight
        print("Sparsity in {}.weight: {:.2f}%".format(name, 100. * float(torch.sum(weight == 0))
                                                      / float(weight.nelement())))
    print("Global sparsity: {:.2f}%".format(
        100. * float(sum(torch.sum(getattr(model, n).weight == 0) for n in ("conv1", "conv2", "fc1", "fc2", "fc3")))
        / float(sum(getattr(model, n).weight.nelement() for n in ("conv1", "conv2", "fc1", "fc2", "fc3")))))
    # the forward pre-hooks recompute each pruned weight before every call
    x = torch.randn(4, 1, 28, 28)
    out = model(x)
    print(out)
    out.sum().backward()
    print(model.fc3.weight_orig.grad[:2])

    section("Extending torch.nn.utils.prune with custom pruning functions")
    model = LeNet()
    foobar_unstructured(model.fc3, name="bias")
    print(model.fc3.bias_mask)
    print(prune.is_pruned(model))


if __name__ == "__main__":
    main()
