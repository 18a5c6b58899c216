"""The package layout mirrors PyTorch's: every nn module class, optimizer and lr scheduler lives at
PyTorch's path with ``torch`` replaced by ``tinytorch`` (``tinytorch.nn.modules.activation.ReLU``,
``tinytorch.optim.adamw.AdamW``, ``tinytorch.optim.lr_scheduler.StepLR``), so whole-model pickles
and allow-lists name the same places; no source file carries a history name (``_extra``,
``_more``, a digit suffix)."""
import importlib
import inspect
import io
import pathlib
import pickle
import re

import numpy as np
import pytest

import tinytorch
import tinytorch.nn as tnn
import tinytorch.optim as toptim

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

PACKAGE = pathlib.Path(tinytorch.__file__).parent

# torch.optim classes tinytorch does not have yet; this list only shrinks
OPTIMIZERS_NOT_YET = {"SparseAdam", "Adafactor", "Muon"}

# history-named files other branches are moving away (delete a line once its branch is merged)
HISTORY_NAMES_BEING_MOVED: set = set()


def _classes(module):
    """The public nn and optim classes a PyTorch module has (not ``Tensor``, ``Any``, ...)."""
    return {name: obj for name, obj in vars(module).items()
            if inspect.isclass(obj) and not name.startswith("_")
            and obj.__module__.split(".")[:2] in (["torch", "nn"], ["torch", "optim"])}


def _shared_classes(torch_module, tt_module):
    return sorted((name, cls, getattr(tt_module, name)) for name, cls in _classes(torch_module).items()
                  if hasattr(tt_module, name))


def _assert_at_pytorch_path(name, torch_cls, tt_cls):
    assert tt_cls.__module__.replace("tinytorch", "torch", 1) == torch_cls.__module__, name
    assert tt_cls.__qualname__ == torch_cls.__qualname__
    # pickle finds a class by exactly this lookup
    assert getattr(importlib.import_module(tt_cls.__module__), tt_cls.__qualname__) is tt_cls


NN_CLASSES = _shared_classes(torch.nn, tnn)
OPTIM_CLASSES = _shared_classes(torch.optim, toptim)
SCHEDULER_CLASSES = _shared_classes(torch.optim.lr_scheduler, toptim.lr_scheduler)
SWA_CLASSES = _shared_classes(torch.optim.swa_utils, toptim.swa_utils)


@pytest.mark.parametrize("name, torch_cls, tt_cls", NN_CLASSES, ids=[c[0] for c in NN_CLASSES])
def test_nn_classes_live_at_pytorch_paths(name, torch_cls, tt_cls):
    _assert_at_pytorch_path(name, torch_cls, tt_cls)


def test_nn_classes_checked_cover_tinytorch_nn():
    # every class tinytorch.nn exports is one of PyTorch's, so all of them are checked above
    exported = {n for n in tnn.__all__ if inspect.isclass(getattr(tnn, n))}
    assert exported - {c[0] for c in NN_CLASSES} == set()
    assert len(NN_CLASSES) >= 97


@pytest.mark.parametrize("name, torch_cls, tt_cls", OPTIM_CLASSES + SCHEDULER_CLASSES + SWA_CLASSES,
                         ids=[f"{c[2].__module__}.{c[0]}" for c in OPTIM_CLASSES + SCHEDULER_CLASSES + SWA_CLASSES])
def test_optim_classes_live_at_pytorch_paths(name, torch_cls, tt_cls):
    _assert_at_pytorch_path(name, torch_cls, tt_cls)


def test_every_optimizer_and_scheduler_is_checked():
    optimizers = {n for n, c in _classes(torch.optim).items() if issubclass(c, torch.optim.Optimizer)}
    assert optimizers - {c[0] for c in OPTIM_CLASSES} == OPTIMIZERS_NOT_YET
    assert {c[0] for c in SCHEDULER_CLASSES} >= set(torch.optim.lr_scheduler.__all__)
    assert {"AveragedModel", "SWALR"} <= {c[0] for c in SWA_CLASSES}


@pytest.mark.parametrize("name", ["adam", "adamw", "asgd", "rprop", "nadam", "radam", "sgd", "adamax",
                                  "adagrad", "adadelta", "rmsprop", "lbfgs"])
def test_one_optimizer_per_file_as_pytorch(name):
    theirs = importlib.import_module(f"torch.optim.{name}")
    ours = importlib.import_module(f"tinytorch.optim.{name}")
    # the file holds its optimizer class and update function, and no other optimizer
    assert ours.__all__ == theirs.__all__
    for public in ours.__all__:
        assert getattr(ours, public).__module__ == ours.__name__


@pytest.mark.parametrize("package", ["nn.modules", "optim"])
def test_public_files_are_pytorch_modules(package):
    # a file without a leading underscore is one of PyTorch's modules; helpers are private
    folder = PACKAGE.joinpath(*package.split("."))
    public = [p.stem for p in folder.iterdir() if p.suffix == ".py" and not p.stem.startswith("_")]
    public += [p.name for p in folder.iterdir() if (p / "__init__.py").exists()]
    assert len(public) >= 10
    for name in public:
        importlib.import_module(f"torch.{package}.{name}")


def test_no_history_named_files():
    # files and packages alike, at every depth (the op families under _ops/ included)
    pattern = re.compile(r"(^|_)(extra|more|new|old|misc|other|rest|ext)$|\d$")
    # PyTorch's own module names: torch.onnx.symbolic_opset9..18, torch.distributions.chi2
    pytorch_names = re.compile(r"^(symbolic_opset\d+|chi2)$")
    # (__pycache__ holds what Python and numba write, named by them: numba's kernel cache by a hash)
    found = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
             if pattern.search(p.stem) and not pytorch_names.match(p.stem) and "__pycache__" not in p.parts}
    found |= {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*")
              if p.is_dir() and pattern.search(p.name) and "__pycache__" not in p.parts}
    assert found - HISTORY_NAMES_BEING_MOVED == set()


def test_tests_and_docs_have_no_history_names():
    """The tests mirror the package (``tests/<package>/``) and are named by what they test, as the docs
    are named by their subject: no file named by when or how it came (``_more``, ``_2``, ``_fixes``,
    ``_paths``, ``merge``, ``review``), and no test file left flat at the top of ``tests/``."""
    root = PACKAGE.parent
    pattern = re.compile(r"(^|[_-])(extra|more|new|old|misc|other|rest|ext|fixes|paths|merge|review)($|[_-])|_\d+$")
    names = [p for p in (root / "tests").rglob("test_*.py")] + [p for p in (root / "docs").rglob("*.md")]
    assert [str(p.relative_to(root)) for p in names if pattern.search(p.stem)] == []
    assert sorted(p.name for p in (root / "tests").glob("test_*.py")) == []


def test_ops_are_families():
    # tinytorch.ops is left for PyTorch's op namespace; the ops live in private family packages,
    # with no op module at _ops/'s top level
    ops = PACKAGE / "_ops"
    assert not (PACKAGE / "ops").exists()
    assert [p.name for p in ops.iterdir() if p.suffix == ".py"] == ["__init__.py"]
    families = {p.name for p in ops.iterdir() if (p / "__init__.py").exists()}
    assert families == {"_core", "_kernels", "pointwise", "reduce", "shape", "index", "linalg", "nn", "special",
                        "fft", "sparse", "random", "creation", "masked"}


def _model(nn, lib):
    lib.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.PReLU(), nn.Hardswish(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(8, 4), nn.GELU(), nn.Dropout(0.0), nn.LayerNorm(4), nn.Softshrink(),
        nn.ModuleDict({"embedding": nn.Embedding(3, 2), "upsample": nn.Upsample(scale_factor=2)}),
        nn.ModuleList([nn.ZeroPad2d(1), nn.CosineSimilarity(), nn.CrossEntropyLoss(), nn.KLDivLoss()]))


class _Recorder(pickle.Unpickler):
    """Unpickles, recording every global the pickle names."""

    def __init__(self, data):
        super().__init__(io.BytesIO(data))
        self.names = set()

    def find_class(self, module, name):
        self.names.add((module, name))
        return super().find_class(module, name)


def _globals(data):
    recorder = _Recorder(data)
    obj = recorder.load()
    return obj, recorder.names


def _nn_globals(names, root):
    return {(m.replace(root, "torch", 1), n) for m, n in names if m.startswith(f"{root}.nn.")}


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_model_pickle_names_pytorch_module_files(protocol):
    ours, theirs = _model(tnn, tinytorch), _model(torch.nn, torch)
    loaded, tt_names = _globals(pickle.dumps(ours, protocol=protocol))
    _, torch_names = _globals(pickle.dumps(theirs, protocol=protocol))
    torch_classes = {(m, n) for m, n in _nn_globals(torch_names, "torch") if m.startswith("torch.nn.modules.")}
    tt_classes = {(m, n) for m, n in _nn_globals(tt_names, "tinytorch") if m.startswith("torch.nn.modules.")}
    # the same classes at the same paths as PyTorch's pickle of the same model
    assert tt_classes == torch_classes and len(tt_classes) >= 17
    # and nothing else of tinytorch.nn but the parameter rebuilder
    assert {m for m, _ in _nn_globals(tt_names, "tinytorch")} - {m for m, _ in tt_classes} <= {"torch.nn.parameter"}
    x = np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32)
    ours.eval(), loaded.eval()
    with tinytorch.no_grad():
        np.testing.assert_array_equal(loaded[:10](tinytorch.tensor(x)).numpy(), ours[:10](tinytorch.tensor(x)).numpy())


def test_saved_model_loads_back(tmp_path):
    model = _model(tnn, tinytorch)
    path = tmp_path / "model.pt"
    tinytorch.save(model, path)
    loaded = tinytorch.load(path, weights_only=False)
    assert type(loaded[2]) is tnn.PReLU and type(loaded[-1][-1]) is tnn.KLDivLoss
    assert type(loaded[2]).__module__ == "tinytorch.nn.modules.activation"
    assert repr(loaded) == repr(model)


def _schedules(lib):
    def opt(cls):
        return getattr(lib.optim, cls)([lib.zeros(2, requires_grad=True)], lr=0.1)
    sched = lib.optim.lr_scheduler
    cycled = opt("AdamW")
    radam = opt("RAdam")
    return [sched.OneCycleLR(cycled, max_lr=0.5, total_steps=10),
            sched.SequentialLR(radam, [sched.ConstantLR(radam), sched.ExponentialLR(radam, 0.9)], [2]),
            sched.ReduceLROnPlateau(opt("Rprop")), sched.CyclicLR(opt("SGD"), 0.01, 0.1),
            sched.LambdaLR(opt("NAdam"), abs)]


@pytest.mark.parametrize("index", range(5))
def test_optimizer_and_scheduler_pickles_name_pytorch_paths(index):
    _, tt_names = _globals(pickle.dumps(_schedules(tinytorch)[index]))
    _, torch_names = _globals(pickle.dumps(_schedules(torch)[index]))
    tt_optim = {(m.replace("tinytorch", "torch", 1), n) for m, n in tt_names if m.startswith("tinytorch.optim")}
    torch_optim = {(m, n) for m, n in torch_names if m.startswith("torch.optim")}
    assert tt_optim == torch_optim and len(tt_optim) >= 2


def test_constraint_classes_live_at_pytorch_paths():
    # constraints.py defines some classes in helper modules (file length); they still carry PyTorch's
    # module name, so reprs of the classes and pickles of constraint objects name the same place
    import tinytorch.distributions.constraints as tt_constraints
    import torch.distributions.constraints as torch_constraints
    shared = [(n, c) for n, c in vars(torch_constraints).items()
              if inspect.isclass(c) and c.__module__ == torch_constraints.__name__ and hasattr(tt_constraints, n)]
    assert len(shared) >= 20
    for name, torch_cls in shared:
        _assert_at_pytorch_path(name, torch_cls, getattr(tt_constraints, name))
    for name in ("positive_definite", "lower_cholesky", "symmetric", "real", "simplex"):
        _, tt_names = _globals(pickle.dumps(getattr(tt_constraints, name)))
        _, torch_names = _globals(pickle.dumps(getattr(torch_constraints, name)))
        assert {(m.replace("tinytorch", "torch", 1), n) for m, n in tt_names} == set(torch_names), name
