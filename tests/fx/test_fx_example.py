"""examples/fx_conv_bn_fuser.py: it runs, prints what it prints under PyTorch, and its fused model computes what the
eager model computes (under tinytorch, and PyTorch's eager model with the same weights)."""
import os
import re
import runpy
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "fx_conv_bn_fuser.py")


def _normalise(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "ADDR", text.replace("tinytorch", "torch"))


def test_fuser_example_prints_pytorchs_output(torch):
    pytest.importorskip("tabulate")  # PyTorch's print_tabular needs it
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    outs = []
    for extra in ([], ["--torch"]):
        proc = subprocess.run([sys.executable, SCRIPT, *extra], capture_output=True, text=True, timeout=300, cwd=ROOT,
                              env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs.append(_normalise(proc.stdout))
    ours, theirs = outs
    assert "BatchNorm modules left: 0" in theirs and "within 1e-5 of the eager model's: True" in theirs
    assert ours == theirs


def _example(under_torch: bool) -> dict:
    """The example's module namespace, imported under PyTorch (``--torch``) or tinytorch."""
    argv = sys.argv
    sys.argv = [SCRIPT] + (["--torch"] if under_torch else [])
    try:
        return runpy.run_path(SCRIPT, run_name="fx_conv_bn_fuser")
    finally:
        sys.argv = argv


def test_fused_model_computes_the_eager_models_numbers(torch):
    models, examples = [], [_example(False), _example(True)]
    for example in examples:
        lib, nn = example["torch"], example["nn"]
        lib.manual_seed(0)
        model = example["SmallCNN"]()
        with lib.no_grad():  # the same statistics in both (the generators draw the same numbers)
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.5, 0.5)
                    m.running_var.uniform_(0.5, 2.0)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
        models.append(model.eval())
    tt = examples[0]["torch"]
    assert tt.__name__ == "tinytorch" and examples[1]["torch"] is torch
    x = np.random.default_rng(0).standard_normal((3, 1, 14, 14)).astype("float32")
    fused = examples[0]["fuse"](models[0])
    ours = fused(tt.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ours, models[0](tt.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours, models[1](torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    assert not any(isinstance(m, tt.nn.BatchNorm2d) for m in fused.modules())
