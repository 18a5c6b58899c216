"""install_as_torch(): ``import torch`` resolves to tinytorch, through the function, ``python -m tinytorch.run``
and the ``.pth`` line; spawned DataLoader workers follow; PyTorch already imported is refused. Each case runs
in a fresh interpreter (the test process may have PyTorch imported)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(code: str, *args, env=None, cwd=None, script=None, tmp_path=None):
    environ = dict(os.environ)
    environ["PYTHONPATH"] = ROOT + os.pathsep + environ.get("PYTHONPATH", "")
    environ.pop("TINYTORCH_AS_TORCH", None)
    environ.update(env or {})
    if script is not None:
        path = os.path.join(str(tmp_path), "prog.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(script))
        cmd = [sys.executable, *args, path]
    else:
        cmd = [sys.executable, "-c", textwrap.dedent(code), *args]
    res = subprocess.run(cmd, capture_output=True, text=True, env=environ, cwd=cwd or ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_install_maps_torch_and_submodules():
    out = run("""
        import tinytorch
        tinytorch.install_as_torch()
        tinytorch.install_as_torch()  # idempotent
        import torch, torch.nn.functional as F
        from torch.utils.data import DataLoader
        from torch.utils.data.dataloader import default_collate
        import torch.utils.checkpoint, torch.utils._pytree, torch.library, torch._C
        assert torch is tinytorch and F is tinytorch.nn.functional and DataLoader is tinytorch.data.DataLoader
        assert default_collate is tinytorch.data.default_collate
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            print("missing", e.name)
        print(torch.__name__, type(torch.ones(1)))
    """)
    assert out.split("\n")[:2] == ["missing torch.no_such_module", "torch <class 'tinytorch.Tensor'>"]


def test_reprs_name_the_package_as_torch():
    # the package answers to "torch", so what names it in reprs says "torch" too, as PyTorch prints it
    out = run("""
        import tinytorch
        before = [repr(tinytorch.float16), repr(tinytorch.ones(2).shape)]
        tinytorch.install_as_torch()
        import torch
        x = torch.zeros(2, 3, dtype=torch.float64)
        print(before, [repr(x.dtype), str(x.shape), repr(x[0, :0]), torch.__name__])
        print(repr(torch.arange(30, dtype=torch.float16).reshape(3, 10)))
    """)
    first, rest = out.split("\n", 1)
    assert first == ("['tinytorch.float16', 'tinytorch.Size([2])'] "
                     "['torch.float64', 'torch.Size([2, 3])', 'tensor([], dtype=torch.float64)', 'torch']")
    torch = pytest.importorskip("torch")
    assert rest.strip() == repr(torch.arange(30, dtype=torch.float16).reshape(3, 10))


_VALUE_REPRS = """
    import torch
    x = torch.tensor([[3.0, 1.0], [2.0, 4.0]])
    print(torch.max(x, 1), torch.sort(x[0]), torch.aminmax(x), torch.cummin(x, 0), torch.slogdet(torch.eye(2)))
    print(type(torch.topk(x, 1)).__qualname__, type(torch.linalg.qr(x)).__qualname__,
          torch.return_types.max((x, x)).indices is x, type(torch.max(x, 0)) is torch.return_types.max)
    print(x.type(), x.long().type(), torch.strided, torch.sparse_coo, torch.channels_last, torch.per_tensor_affine)
    print(x.untyped_storage().nbytes(), torch.tensor([1.5]).untyped_storage(), torch.tensor([1.5]).storage())
    print(torch.ones(2).to_sparse(), torch.ones(2, 2).to_sparse_csr())
    print(torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8))
    for call in (lambda: torch.cat([]), lambda: torch.ones(2).to("cpu", "x"),
                 lambda: torch.nn.Embedding(5, 2)(torch.tensor([1.0]))):
        try:
            call()
        except (ValueError, TypeError, RuntimeError) as e:
            print(e)
    a = torch.ones(3, requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    try:
        b.sum().backward()
    except RuntimeError as e:
        print(e)
"""


def test_value_reprs_name_torch_as_pytorchs(tmp_path):
    # what values print under install_as_torch (named tuples, layouts, legacy type names, storages, the
    # in-place error learners meet) names the package "torch", as PyTorch's own output does
    pytest.importorskip("torch")
    theirs = run("import warnings\nwarnings.simplefilter('ignore')\n" + textwrap.dedent(_VALUE_REPRS))
    ours = run("import warnings\nwarnings.simplefilter('ignore')\nimport tinytorch\ntinytorch.install_as_torch()\n"
               + textwrap.dedent(_VALUE_REPRS))
    assert "tinytorch" not in ours
    assert ours == theirs


def test_one_module_object_per_name():
    # a submodule first imported through its torch name (the lazily loaded ones, a nested package's module)
    # is one module object under both names: its file runs once, and the attribute set on the parent is it
    out = run("""
        import sys, tinytorch
        tinytorch.install_as_torch()
        import torch
        names = sorted(tinytorch._LAZY_SUBMODULES) + ["distributions.kl", "utils.checkpoint", "utils.hooks",
                                                       "onnx.symbolic_opset11", "nn.init"]
        for name in names:
            __import__("torch." + name)
        pairs = [n for n in sys.modules if n.startswith("tinytorch.") and "torch" + n[9:] in sys.modules]
        split = [n for n in pairs if sys.modules[n] is not sys.modules["torch" + n[9:]]]
        print(len(pairs) > 40, split, torch.distributions.kl is tinytorch.distributions.kl,
              torch.hub.__spec__.name, torch.hub.__name__)
    """)
    assert out.split() == ["True", "[]", "True", "tinytorch.hub", "tinytorch.hub"]


def test_metadata_finds_torch_in_this_process_only():
    # libraries that detect PyTorch through importlib.metadata (diffusers, accelerate) find the torch they
    # import; an installer's view of site-packages (pip's, folder by folder) still has no tinytorch "torch"
    out = run("""
        import sys, tinytorch
        from importlib import metadata
        tinytorch.install_as_torch()
        import torch
        dist = metadata.distribution("torch")
        print(metadata.version("torch"), dist.metadata["Name"], metadata.packages_distributions()["torch"][0],
              sum(d.metadata["Name"] == "torch" and d.version == torch.__version__ for d in metadata.distributions()))
        print(any(d.version == torch.__version__ for p in sys.path for d in metadata.distributions(path=[p])))
        from pip._internal.metadata import get_default_environment
        pip_dist = get_default_environment().get_distribution("torch")
        print(pip_dist is None or str(pip_dist.version) != torch.__version__)
    """)
    assert out.split() == ["2.13.0+tinytorch", "torch", "torch", "1", "False", "True"]


def test_install_refused_when_pytorch_is_imported():
    pytest.importorskip("torch")
    out = run("""
        import torch, tinytorch
        try:
            tinytorch.install_as_torch()
        except RuntimeError as e:
            print(e)
    """)
    assert "a module named 'torch' is already imported" in out and "before anything imports torch" in out


def test_run_module_and_spawned_workers(tmp_path):
    script = """
        import sys
        import torch
        from torch.utils.data import DataLoader, Dataset

        class D(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                return torch.tensor([float(i)])

        if __name__ == "__main__":
            import os
            os.environ.pop("TINYTORCH_AS_TORCH")  # the workers must follow without the variable's .pth hook
            print(torch.__name__, sys.argv[1:])
            batches = list(DataLoader(D(), batch_size=2, num_workers=2, multiprocessing_context="spawn"))
            print([b.flatten().tolist() for b in batches])
    """
    out = run(None, "-m", "tinytorch.run", script=script, tmp_path=tmp_path)
    # the script's own arguments come after its path
    assert out.splitlines() == ["torch []", "[[0.0, 1.0], [2.0, 3.0]]"]


def test_run_passes_arguments(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("import sys, torch\nprint(torch.__name__, sys.argv)\n")
    environ = dict(os.environ, PYTHONPATH=ROOT)
    res = subprocess.run([sys.executable, "-m", "tinytorch.run", str(path), "a", "--b"], capture_output=True,
                         text=True, env=environ, cwd=ROOT, timeout=120)
    assert res.stdout.strip() == f"torch {[str(path), 'a', '--b']}", res.stderr


@pytest.mark.parametrize("given", [["missing.py"], ["./missing.py"], ["folder"], ["-m", "missing_module"],
                                   ["-m", "pkg"]], ids=str)
def test_run_refuses_what_python_refuses_in_its_words(tmp_path, given):
    # a path or module Python cannot run is its one line on stderr and its exit status, not a traceback
    (tmp_path / "folder").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    environ = dict(os.environ, PYTHONPATH=ROOT)
    got = [subprocess.run([sys.executable, *pre, *given], capture_output=True, text=True, env=environ,
                          cwd=str(tmp_path), timeout=120) for pre in ([], ["-m", "tinytorch.run"])]
    assert got[0].returncode != 0 and got[0].stderr.count("\n") == 1
    assert (got[1].returncode, got[1].stderr) == (got[0].returncode, got[0].stderr)


def test_pth_line_reads_the_variable():
    from tinytorch.run import PTH_LINE

    code = PTH_LINE + "import sys\nprint(sys.modules.get('torch').__name__ if 'torch' in sys.modules else None)\n"
    assert run(code, env={"TINYTORCH_AS_TORCH": "1"}).strip() == "torch"
    assert run(code, env={"TINYTORCH_AS_TORCH": "0"}).strip() == "None"


def test_version_compares_as_the_api_it_mirrors():
    import tinytorch

    v = tinytorch.__version__
    assert v == "2.13.0+tinytorch" and str(v).startswith("2.13.0")
    assert v >= "2.0" and v > "2.12.9" and v < "2.14" and v >= (2, 13) and v < (2, 14, 0)
    assert tinytorch.version.tinytorch_version == "0.1.0" and tinytorch.version.cuda is None
    from importlib import metadata

    with pytest.raises(metadata.PackageNotFoundError):  # tinytorch never answers for a "torch" distribution
        if "torch" not in {d.metadata["Name"] for d in metadata.distributions()}:
            metadata.version("torch")
        else:
            raise metadata.PackageNotFoundError("torch")  # real PyTorch installed beside: nothing to check
