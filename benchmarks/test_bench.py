"""Checks of the benchmark's own machinery (no timings): ``pytest benchmarks``.

The numpy floor must compute what the frameworks compute, or the comparison with it means nothing;
the synthetic files must be valid IDX; the verdicts in the table must follow the figures."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common  # noqa: E402
import _numpy_mlp  # noqa: E402
import _report  # noqa: E402


def _reference_step(params, x, y, lr):
    """One SGD step of the same MLP by PyTorch's autograd in float64: the reference."""
    torch = pytest.importorskip("torch")
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params]
    h = torch.from_numpy(x.reshape(len(x), -1).astype(np.float64))
    for i in range(0, 6, 2):
        h = h @ ts[i].T + ts[i + 1]
        if i < 4:
            h = torch.relu(h)
    loss = torch.nn.functional.cross_entropy(h, torch.from_numpy(y))
    loss.backward()
    return loss.item(), [(t - lr * t.grad).detach().numpy() for t in ts]


def test_numpy_floor_step_matches_torch():
    rng = np.random.default_rng(1)
    x = rng.random((64, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, 64)
    mlp = _numpy_mlp.NumpyMLP(seed=3)
    before = [p.copy() for p in mlp.params]
    expected_loss, expected_params = _reference_step(before, x, y, lr=0.5)
    loss = mlp.step(x, y, lr=0.5)
    assert loss.dtype == np.float32
    np.testing.assert_allclose(float(loss), expected_loss, rtol=1e-5)
    for got, want, old in zip(mlp.params, expected_params, before):
        assert got.dtype == np.float32
        assert np.abs(want - old).max() > 1e-4  # the step moved every parameter
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_flop_count_of_one_step():
    # 3 forward matmuls, 3 weight gradients and 2 input gradients (none for the input images)
    shapes = [(784, 512), (512, 512), (512, 10)]
    forward = sum(2 * 64 * i * o for i, o in shapes)
    expected = 3 * forward - 2 * 64 * 784 * 512
    matmuls = _numpy_mlp._step_matmuls(np.random.default_rng(0))
    assert len(matmuls) == 8
    assert sum(flops for _, flops, _ in matmuls) == expected
    for _, flops, thunk in matmuls:
        out = thunk()
        assert (
            2 * out.size * (flops // (2 * out.size)) == flops
        )  # flops = 2 * output size * inner size


def test_synthetic_files_are_valid_idx(tmp_path):
    _common.write_synthetic_dataset(str(tmp_path))
    images, labels = _common.load_split(str(tmp_path), train=True)
    assert images.shape == (_common.SYNTHETIC_TRAIN, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (_common.SYNTHETIC_TRAIN,) and set(np.unique(labels)) == set(range(10))
    tiled, tiled_labels = _common.tiled_training_set(str(tmp_path), 20000)
    assert np.array_equal(tiled[_common.SYNTHETIC_TRAIN + 5], images[5])
    assert np.array_equal(tiled_labels[2 * _common.SYNTHETIC_TRAIN + 7], labels[7])
    datasets = pytest.importorskip("tinytorch.data.datasets")
    ds = datasets.FashionMNIST(str(tmp_path), train=False)
    test_images, test_labels = _common.load_split(str(tmp_path), train=False)
    assert np.array_equal(ds.data.numpy(), test_images)
    assert np.array_equal(ds.targets.numpy(), test_labels)


def test_batches_cover_the_tiled_epoch_once():
    images = np.arange(130 * 28 * 28, dtype=np.uint32).reshape(130, 28, 28).astype(np.uint8)
    labels = np.arange(130) % 10
    batches = _common.shuffled_float_batches(images, labels, seed=0, samples=300)
    assert [len(y) for _, y in batches] == [64] * 4 + [44]
    xs = np.concatenate([x for x, _ in batches])
    ys = np.concatenate([y for _, y in batches])
    assert xs.shape == (300, 1, 28, 28) and xs.dtype == np.float32
    tiled = np.arange(300) % 130
    order = tiled[np.random.default_rng(0).permutation(300)]
    np.testing.assert_array_equal(xs[:, 0], images[order] / np.float32(255))
    np.testing.assert_array_equal(ys, labels[order])
    assert np.bincount(order, minlength=130).tolist() == np.bincount(tiled, minlength=130).tolist()


def _summary(tt_step, torch_step, np_step, bound):
    chain = {"10000": {"backward_s": 1.0}, "20000": {"backward_s": 2.0}}
    raw = {
        "torch": {
            "prebatched": [{"epoch_s": 1, "step_median_s": torch_step, "peak_rss_mib": 400}],
            "micro": [{"op_us": {"add": 3.0, "sum": 2.0}, "chain": chain}],
        },
        "tinytorch": {
            "prebatched": [
                {"epoch_s": 1, "step_median_s": s, "peak_rss_mib": 100} for s in tt_step
            ],
            "micro": [  # overheads per round: add 3.5, 1.0, 4.0 (median 3.5); sum 1.0, 1.0, 1.0
                {
                    "op_us": {"add": 6.5, "sum": 4.0},
                    "numpy_op_us": {"add": 3.0, "sum": 3.0},
                    "chain": {"10000": {"backward_s": 1.0}, "20000": {"backward_s": 4.0}},
                },
                {
                    "op_us": {"add": 9.0, "sum": 9.0},
                    "numpy_op_us": {"add": 8.0, "sum": 8.0},
                    "chain": chain,
                },
                {
                    "op_us": {"add": 7.0, "sum": 4.5},
                    "numpy_op_us": {"add": 3.0, "sum": 3.5},
                    "chain": {"10000": {"backward_s": 1.0}, "20000": {"backward_s": 4.0}},
                },
            ],
        },
        "numpy": {
            "prebatched": [{"epoch_s": 1, "step_median_s": np_step, "peak_rss_mib": 90}],
            "micro": [{"flop_bound": {"step_s": bound, "step_flops": 1e9}}],
        },
    }
    return _report.summarize(raw)


def _row(table: str, label: str) -> list:
    line = next(line for line in table.splitlines() if line.startswith(f"| {label}"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_table_verdicts_follow_the_figures():
    s = _summary(tt_step=[0.004, 0.001, 0.002], torch_step=0.0025, np_step=0.0019, bound=0.0010)
    assert s["tinytorch"]["prebatched_step_median_s"] == 0.002  # median over rounds
    table = _report.main_table(s, 938)
    assert _row(table, "pre-batched step, median")[4:] == ["0.80x PyTorch", "≤ 1.00x", "✓"]
    assert _row(table, "pre-batched step vs numpy floor")[4:] == [
        "1.05x numpy floor",
        "≤ 1.08x",
        "✓",
    ]
    assert _row(table, "pre-batched step vs FLOP bound")[4:] == ["2.00x FLOP bound", "≤ 1.25x", "✗"]
    assert _row(table, "peak memory")[4:] == ["0.25x PyTorch", "≤ 0.50x", "✓"]
    assert _row(table, "per-op overhead")[4:] == ["3.5 µs (add)", "≤ 3 µs", "✗"]
    ops = _report.op_table(s)
    assert _row(ops, "add")[1:] == ["3.0", "7.0", "3.0", "3.5", "✗"]
    assert _row(ops, "sum")[1:] == ["3.5", "4.5", "2.0", "1.0", "✓"]
    assert (
        _row(table, "chain 20k / 10k")[1:3] == ["2.00", "4.00"]
        and _row(table, "chain 20k / 10k")[-1] == "✗"
    )
    assert _row(table, "quickstart epoch")[-1] == "n/a"  # not measured: no verdict either way


def test_failed_task_is_reported_not_hidden():
    raw = {"tinytorch": {"prebatched": [{"error": "AttributeError: no nn"}]}, "numpy": {}}
    s = _report.summarize(raw)
    assert _report.error_notes(s) == ["- tinytorch prebatched failed: AttributeError: no nn"]
    assert _row(_report.main_table(s, 938), "pre-batched step, median")[-1] == "n/a"


def test_rng_table_verdicts_follow_the_figures():
    import _rng

    raw = {
        "torch": {"rng": [{"rng_ms": {"randn_f32_1m": 2.0, "randperm_60k": 0.3, "linear_init": 1.0}}] * 3},
        "tinytorch": {"rng": [{"rng_ms": {"randn_f32_1m": r, "randperm_60k": 4.0, "linear_init": 2.5}}
                              for r in (9.0, 11.0, 12.0)]},
    }
    table = _rng.rng_table(_report.summarize(raw))
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines() if line.startswith("| ")}
    assert "| 2.00 | 11.00 | 5.50x | ≤ 5x PyTorch | ✗ |" in rows["randn(1M) float32"]  # median of rounds
    assert "≤ 5 ms | ✓" in rows["randperm(60000)"]
    assert "| 2.50x | ≤ 2x PyTorch | ✗ |" in rows["nn.Linear(784, 512) init"]
    assert rows["rand(1M) float32"].endswith("| — | — |  |")

def test_cnn_gemm_floor_shapes_and_flops():
    import _cnn

    gemms = _cnn.step_gemms(np.random.default_rng(0), b=4)
    assert len(gemms) == 11
    for name, flops, thunk in gemms:
        out = thunk()
        assert out.dtype == np.float32
        assert flops % (2 * out.size) == 0, name  # 2 * output size * inner size
    # the conv2 products have the im2col shapes: 64 filters of 32*3*3 over 4 images of 24x24 positions
    conv2 = {name: thunk() for name, _, thunk in gemms if name.startswith("conv2")}
    assert conv2["conv2 forward"].shape == (64, 4 * 24 * 24)
    assert conv2["conv2 weight grad"].shape == (64, 288)
    assert conv2["conv2 input grad (columns)"].shape == (288, 4 * 24 * 24)


def test_cnn_model_runs_under_tinytorch():
    tinytorch = pytest.importorskip("tinytorch")
    import _cnn

    net = _cnn.cnn_model(tinytorch)
    out = net(tinytorch.zeros(2, 1, 28, 28))
    assert tuple(out.shape) == (2, 10)


def test_trace_regions_reports_each_kind_of_region(capsys, monkeypatch):
    tinytorch = pytest.importorskip("tinytorch")
    import trace_regions

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, "1")  # (the tool sets them for its own process: put back afterwards)
    monkeypatch.setattr(tinytorch._ops._kernels.parallel, "_threads", tinytorch.get_num_threads(), raising=False)

    trace_regions.main(["--row", "cnn", "--threads", "2", "--steps", "1"])
    out = capsys.readouterr().out
    assert "regions a step" in out
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert any("_conv_fwd" in line for line in rows), out  # the convolution's split forward was traced


def test_install_of_names_each_combination():
    import bench_installs

    assert bench_installs.install_of(numba=False, mkl=False) == "default"
    assert bench_installs.install_of(numba=True, mkl=False) == "fast"
    assert bench_installs.install_of(numba=True, mkl=True) == "fast+mkl"
    assert bench_installs.install_of(numba=False, mkl=True) not in bench_installs.INSTALLS
    assert bench_installs._installs_arg("default,[fast],[fast,mkl]") == ["default", "fast", "fast+mkl"]
    with pytest.raises(SystemExit, match="'mkl' is not one of"):
        bench_installs._installs_arg("fast,mkl")


def test_installs_probe_reports_what_the_switches_give():
    pytest.importorskip("tinytorch")
    import glob
    import importlib.util

    import bench_installs

    numba = importlib.util.find_spec("numba") is not None
    mkl = any(glob.glob(os.path.join(root, "lib", "libmkl_rt.so.2")) for root in (sys.prefix, sys.base_prefix))
    assert bench_installs.probe("default")["install"] == "default"  # both switches on: numpy only, always
    assert bench_installs.probe("fast")["install"] == ("fast" if numba else "default")
    got = bench_installs.probe("fast+mkl")
    assert got["install"] == bench_installs.install_of(numba, mkl)
    assert ("GEMMs MKL" in got["kernels"]) == mkl


def test_installs_worker_checks_its_install():
    pytest.importorskip("tinytorch")
    import json

    import bench_installs as b

    got = b.run("quickstart1-step", "tinytorch", "default", True, 1, 1)
    assert got["install"] == "default" and got["threads"] == 1, got
    assert "compiled kernels: off (TINYTORCH_NO_NUMBA)" in got["kernels"] and "GEMMs" not in got["kernels"]
    # a worker whose environment gives another install than the one it is asked to measure fails loudly
    wrong = b._subprocess(["--worker", json.dumps(["quickstart1-step", "tinytorch", "fast", False, 1, 1])],
                          b._env("default", 1), 600)
    assert wrong["error"].startswith("install mismatch: asked for fast, the kernels are default"), wrong


def test_installs_left_out_with_a_note():
    import bench_installs as b

    answers = {"default": {"install": "default", "kernels": "numpy"},
               "fast": {"error": "ModuleNotFoundError: No module named 'numba'"},
               "fast+mkl": {"install": "fast", "kernels": "numpy, compiled kernels: numba"}}
    kept, kernels, notes = b.choose_installs(list(b.INSTALLS), answers.__getitem__)
    assert kept == ["default"] and kernels == {"default": "numpy"}
    assert notes == ["- [fast] left out: ModuleNotFoundError: No module named 'numba'",
                     "- [fast,mkl] left out: its switches give fast here (numpy, compiled kernels: numba)"]


def test_installs_tables_for_a_fake_result():
    import bench_installs as b

    def r(s, threads=1):
        return {"cpu": s, "wall": 2 * s, "threads": threads}

    results = {
        "gpt|1|torch": [r(0.010), r(0.012), r(0.011)],
        "gpt|1|default/eager": [r(0.022), r(0.020), r(0.021)],
        "gpt|1|default/compiled": [{"error": "boom"}],
        "gpt|1|fast/eager": [r(0.0055), r(0.0050), r(0.0060)],
        "gpt|0|torch": [r(0.004, 2)],
        "gpt|0|default/eager": [r(0.003, 2)],
    }
    text = b.tables(results, ["gpt"], ["default", "fast"], [1, 0], 3)
    one, default = text.split("### ")[1:]
    assert one.startswith("1 thread: CPU time per step, median of 3 interleaved rounds")
    assert default.startswith("the default thread count (the libraries chose 2): wall time")
    head = "| row | PyTorch eager | default eager | default compiled | [fast] eager | [fast] compiled |"
    assert head in one and head in default
    assert f"| {b.ROWS['gpt'][1]} | 11 ms | 21 ms (1.91x) | failed | 5.5 ms (0.50x) | — |" in one
    assert f"| {b.ROWS['gpt'][1]} | 8 ms | 6 ms (0.75x) | — | — | — |" in default
