"""tinytorch.profiler against PyTorch's: the rows of a ResNet-18 forward (op names, input shapes, call counts, in
PyTorch's order), the nested ATen calls of single ops, the table's layout, the schedule's steps, the Chrome trace,
and the namespaces a profiling program asks about (torch.xpu, torch.mtia)."""
import json
import re

import pytest

import tinytorch
from tinytorch.autograd.grad_mode import _Active

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def resnet18(T, num_classes: int = 1000):
    """torchvision's resnet18, written out (torchvision is not a test dependency)."""
    nn = T.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1, self.layer2 = self._layer(64, 1), self._layer(128, 2)
            self.layer3, self.layer4 = self._layer(256, 2), self._layer(512, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def _layer(self, planes, stride):
            down = None
            if stride != 1 or self.inplanes != planes:
                down = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))
            blocks = [BasicBlock(self.inplanes, planes, stride, down), BasicBlock(planes, planes)]
            self.inplanes = planes
            return nn.Sequential(*blocks)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(T.flatten(self.avgpool(x), 1))

    return ResNet()


def _profile_resnet(T, train: bool, shape=(2, 3, 64, 64)):
    T.manual_seed(0)
    model = resnet18(T)
    model.train(train)
    x = T.randn(*shape)
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        with T.profiler.record_function("model_inference"):
            model(x)
    return prof


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_resnet18_rows_are_pytorchs(train):
    # the recipe's model in both modes (training adds num_batches_tracked's aten::add_ and two more statistics)
    t, p = _profile_resnet(tinytorch, train), _profile_resnet(torch, train)
    for grouped in (False, True):
        ours = [(e.key, str(e.input_shapes), e.count) for e in t.key_averages(group_by_input_shape=grouped)]
        theirs = [(e.key, str(e.input_shapes), e.count) for e in p.key_averages(group_by_input_shape=grouped)]
        assert ours == theirs
    assert {"aten::conv2d", "aten::mkldnn_convolution", "aten::max_pool2d", "aten::linear", "aten::addmm"} <= \
        {e.key for e in t.key_averages()}


def _mask_times(table: str) -> list:
    """The table with its times and percentages blanked (cells keep their width)."""
    return [re.sub(r"-?[\d.]+(us|ms|s|%)(?=\s|$)", lambda m: "#" * len(m.group(0)), line) for line in
            table.splitlines()]


def test_table_layout_is_pytorchs():
    t, p = _profile_resnet(tinytorch, False), _profile_resnet(torch, False)
    for kwargs in ({}, {"group_by_input_shape": True}):
        ours = t.key_averages(**kwargs).table(sort_by="count", row_limit=12)
        theirs = p.key_averages(**kwargs).table(sort_by="count", row_limit=12)
        a, b = _mask_times(ours), _mask_times(theirs)
        # the table's cells keep their widths; the total under it is as wide as its time ("9.98ms", "10.02ms")
        assert [len(x) for x in a if not x.startswith("Self CPU time total:")] == \
            [len(x) for x in b if not x.startswith("Self CPU time total:")]
        # names, counts and shapes sit in the same columns; a time may take more or fewer characters
        assert [re.sub(r"#+", "#", x.replace(" ", "")) for x in a] == [re.sub(r"#+", "#", x.replace(" ", ""))
                                                                       for x in b]
    assert ours.endswith("\n") and ours.splitlines()[-1].startswith("Self CPU time total: ")


def _programs(T):
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    x4, w, b = T.randn(2, 3, 8, 8), T.randn(4, 3, 3, 3), T.randn(4)
    bn = nn.BatchNorm2d(3)
    a2, b2, w34, x3, b3 = T.randn(3, 4), T.randn(4, 5), T.randn(3, 4), T.randn(2, 5, 4), T.randn(3)
    logits, target = T.randn(4, 5), T.tensor([1, 2, 3, 0])
    return {
        "conv2d_slow_path": lambda: F.conv2d(x4[:1, :, :5, :5], w), "conv2d_bias": lambda: F.conv2d(x4, w, b, padding=1),
        "batch_norm_eval": lambda: (bn.eval(), bn(x4)), "batch_norm_train": lambda: (bn.train(), bn(x4)),
        "relu": lambda: F.relu(x4), "relu_": lambda: nn.ReLU(inplace=True)(x4),
        "linear_3d": lambda: F.linear(x3, w34, b3), "linear_no_bias": lambda: F.linear(a2.t(), w34.t().contiguous()),
        "linear_2d": lambda: F.linear(a2, T.randn(5, 4), b2[0]), "matmul": lambda: a2 @ b2,
        "matmul_3d": lambda: x3 @ b2[:4, :3], "mm": lambda: T.mm(a2, b2), "addmm": lambda: T.addmm(b2[0], a2, b2),
        "add": lambda: x4 + x4, "mul_scalar": lambda: x4 * 2, "add__scalar": lambda: x4.add_(1.5),
        "sum": lambda: x4.sum(), "mean": lambda: x4.mean(), "softmax": lambda: F.softmax(x4, dim=1),
        "log_softmax": lambda: F.log_softmax(x4, 1), "cross_entropy": lambda: F.cross_entropy(logits, target),
        "flatten": lambda: T.flatten(x4, 1), "view": lambda: x4.view(2, -1), "reshape": lambda: x4.reshape(6, -1),
        "adaptive_avg_pool_2x2": lambda: F.adaptive_avg_pool2d(x4, (2, 2)),
        "adaptive_avg_pool_1x1": lambda: F.adaptive_avg_pool2d(x4, 1), "dropout_eval": lambda: F.dropout(x4, 0.5, False),
        "tanh": lambda: T.tanh(x4), "t": lambda: a2.t(), "max_pool2d": lambda: F.max_pool2d(x4, 2),
        "clone": lambda: x4.clone(), "contiguous": lambda: x4.transpose(0, 1).contiguous(),
        "contiguous_of_contiguous": lambda: x4.contiguous(), "select": lambda: x4[0], "slice": lambda: x4[:, 1:],
        "select_select": lambda: x4[0, 1], "zeros": lambda: T.zeros(3), "ones": lambda: T.ones(3),
        "randn": lambda: T.randn(3), "rand": lambda: T.rand(3), "gelu": lambda: F.gelu(x4),
        "sigmoid": lambda: T.sigmoid(x4), "cat": lambda: T.cat([x4, x4]),
    }


def _tree(T, name):
    program = _programs(T)[name]
    with T.profiler.profile(record_shapes=True) as prof:
        program()
    lines = []

    def walk(e, depth):
        lines.append(("  " * depth) + f"{e.name} {e.input_shapes}")
        for c in e.cpu_children:
            walk(c, depth + 1)
    for e in prof.events():
        if e.cpu_parent is None:
            walk(e, 0)
    return lines


@pytest.mark.parametrize("name", list(_programs(torch)))
def test_nested_aten_calls_are_pytorchs(name):
    assert _tree(tinytorch, name) == _tree(torch, name)


def _training_steps(T):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(10, 20), T.nn.ReLU(), T.nn.Linear(20, 2))
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    x, y = T.randn(8, 10), T.randint(0, 2, (8,))
    with T.profiler.profile(record_shapes=True) as prof:
        for _ in range(2):
            loss = T.nn.functional.cross_entropy(m(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return prof


def test_backward_pass_is_not_recorded():
    # tinytorch's backward formulas are not PyTorch's kernels: the forward's rows are PyTorch's, the pass adds none
    ours = {e.key: e.count for e in _training_steps(tinytorch).key_averages()}
    theirs = {e.key: e.count for e in _training_steps(torch).key_averages()}
    assert ours and all(theirs.get(k, 0) >= n for k, n in ours.items()), (ours, theirs)
    assert ours["aten::addmm"] == 4 and ours["aten::t"] == 4  # the forward's, none from AddmmBackward0


@pytest.mark.parametrize("program", ["resnet", "training"])
def test_times_nest(program):
    prof = _profile_resnet(tinytorch, False, shape=(1, 3, 32, 32)) if program == "resnet" else \
        _training_steps(tinytorch)
    events = prof.events()
    for e in events:
        assert e.time_range.start <= e.time_range.end
        assert e.self_cpu_time_total >= -1e-6, e  # children lie inside their parent
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= e.time_range.end
    top = [e for e in events if e.cpu_parent is None]
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(sum(e.cpu_time_total for e in top))
    if program == "resnet":
        assert [e.name for e in top] == ["model_inference"]


def test_schedule_and_on_trace_ready_are_pytorchs():
    def run(T):
        seen = []

        def handler(p):
            seen.append((p.step_num, sorted((e.key, e.count) for e in p.key_averages())))
        x = T.ones(3)
        sched = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
        with T.profiler.profile(schedule=sched, on_trace_ready=handler) as p:
            for i in range(12):
                (x + i).sum()
                p.step()
        return seen
    with pytest.warns(UserWarning, match="Profiler clears events at the end of each cycle"):
        ours = run(tinytorch)
    assert ours == run(torch)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        tinytorch.profiler.schedule(wait=1, warmup=0, active=1)


def test_export_chrome_trace(tmp_path):
    prof = _profile_resnet(tinytorch, False, shape=(1, 3, 32, 32))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    ranges = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(ranges) == len(prof.events())
    assert {e["cat"] for e in ranges} == {"cpu_op", "user_annotation"}
    conv = next(e for e in ranges if e["name"] == "aten::conv2d")
    assert conv["args"]["Input Dims"] == [[1, 3, 32, 32], [64, 3, 7, 7], [], [], [], [], []]
    assert all(e["dur"] >= 0 and isinstance(e["ts"], (int, float)) for e in ranges)


def test_record_function_and_legacy_profiler():
    @tinytorch.profiler.record_function("decorated")
    def f(x):
        return x * 2

    x = tinytorch.ones(2)
    with tinytorch.autograd.profiler.profile(record_shapes=True) as prof:
        with tinytorch.profiler.record_function("outer"):
            f(x)
    names = [(e.name, e.cpu_parent.name if e.cpu_parent else None) for e in prof.function_events]
    assert names[:3] == [("outer", None), ("decorated", "outer"), ("aten::mul", "decorated")]
    with tinytorch.autograd.profiler.profile(enabled=False) as off:
        tinytorch.ones(2) + 1
    assert off.profiler is None


def test_nothing_is_swapped_while_no_profile_records():
    add, iadd, relu_ = tinytorch.Tensor.__add__, tinytorch.Tensor.__iadd__, tinytorch.Tensor.relu_
    with tinytorch.profiler.profile():
        assert tinytorch.Tensor.__add__ is not add  # recording wrappers while it records
        with pytest.raises(RuntimeError, match="already enabled"):
            tinytorch.profiler.profile().start()
    assert (tinytorch.Tensor.__add__, tinytorch.Tensor.__iadd__, tinytorch.Tensor.relu_) == (add, iadd, relu_)
    assert not _Active.profiler


def test_accelerator_namespaces_report_none():
    for name in ("xpu", "mtia"):
        t, p = getattr(tinytorch, name), getattr(torch, name)
        assert (t.is_available(), t.device_count(), t.is_initialized()) == (p.is_available(), p.device_count(),
                                                                            p.is_initialized())
        for fn in ("current_device", "synchronize", "init"):
            with pytest.raises(Exception) as theirs:
                getattr(p, fn)()
            with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
                getattr(t, fn)()
    assert tinytorch.profiler.supported_activities() == {tinytorch.profiler.ProfilerActivity.CPU}
    assert {a.name: a.value for a in tinytorch.profiler.ProfilerActivity} == \
        {k: v.value for k, v in torch.profiler.ProfilerActivity.__members__.items()}
