"""The main job, end to end: train_fashion_mnist.py on the shared FashionMNIST subset, in subprocesses."""
import _repo
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tinytorch
from conftest import data_root

ROOT = _repo.ROOT
SCRIPT = os.path.join(ROOT, "train_fashion_mnist.py")

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(data_root(), "FashionMNIST", "raw", "train-images-idx3-ubyte.gz")),
    reason="the shared FashionMNIST subset is not there")


# one BLAS thread: on a busy 2-core machine OpenBLAS's spinning threads slow a run many times over
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run_script(tmp_path, *args, timeout=300):
    cmd = [sys.executable, SCRIPT, "--data-root", data_root(), "--no-download", "--no-progress",
           "--save", str(tmp_path / "model.pth"), "--checkpoint", str(tmp_path / "ckpt.pth"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp_path, env=ENV)


def weights(path):
    ckpt = tinytorch.load(path)
    state = ckpt["model"] if "model" in ckpt else ckpt
    return {k: v.numpy().copy() for k, v in state.items()}


def test_quickstart_trains_saves_reloads_and_predicts(tmp_path):
    proc = run_script(tmp_path, "--epochs", "5", "--lr", "0.1", "--seed", "0")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Using cpu device" in out
    assert "(linear_relu_stack): Sequential(" in out
    assert re.search(r"loss: \d+\.\d{6}  \[ 6400/ 8192\]", out)
    accuracies = [float(a) for a in re.findall(r"Accuracy: ([\d.]+)%", out)]
    assert len(accuracies) == 5
    # PyTorch's same run reaches 77-82% over seeds 0-4
    assert accuracies[-1] >= 75.0, out
    assert "Saved PyTorch Model State to" in out
    assert re.search(r'Predicted: "[^"]+", Actual: "Ankle boot"', out)
    saved = weights(tmp_path / "model.pth")
    assert sorted(saved) == sorted(["linear_relu_stack.0.weight", "linear_relu_stack.0.bias",
                                    "linear_relu_stack.2.weight", "linear_relu_stack.2.bias",
                                    "linear_relu_stack.4.weight", "linear_relu_stack.4.bias"])
    assert saved["linear_relu_stack.0.weight"].shape == (512, 784)


def test_offline_without_data_gives_a_clear_message(tmp_path):
    cmd = [sys.executable, SCRIPT, "--data-root", str(tmp_path / "nowhere"), "--no-download", "--epochs", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=ENV)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "Dataset not found" in proc.stderr
    assert os.path.join("nowhere", "FashionMNIST", "raw") in proc.stderr


def test_resume_at_an_epoch_boundary_is_bit_identical(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    common = ("--lr", "0.05", "--momentum", "0.9", "--seed", "3", "--batch-size", "256")
    full = run_script(tmp_path / "a", "--epochs", "2", *common)
    assert full.returncode == 0, full.stderr
    first = run_script(tmp_path / "b", "--epochs", "1", *common)
    assert first.returncode == 0, first.stderr
    resumed = run_script(tmp_path / "b", "--epochs", "2", "--resume", str(tmp_path / "b" / "ckpt.pth"), *common)
    assert resumed.returncode == 0, resumed.stderr
    a, b = weights(tmp_path / "a" / "ckpt.pth"), weights(tmp_path / "b" / "ckpt.pth")
    for k in a:
        assert a[k].tobytes() == b[k].tobytes(), k
    opt_a = tinytorch.load(tmp_path / "a" / "ckpt.pth")["optimizer"]["state"]
    opt_b = tinytorch.load(tmp_path / "b" / "ckpt.pth")["optimizer"]["state"]
    for k in opt_a:
        assert opt_a[k]["momentum_buffer"].numpy().tobytes() == opt_b[k]["momentum_buffer"].numpy().tobytes()


def test_ctrl_c_stops_at_a_step_boundary_and_resume_neither_repeats_nor_skips(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    common = ("--lr", "0.05", "--momentum", "0.9", "--seed", "1", "--batch-size", "16", "--epochs", "1")
    full = run_script(tmp_path / "a", *common)
    assert full.returncode == 0, full.stderr

    cmd = [sys.executable, "-u", SCRIPT, "--data-root", data_root(), "--no-download", "--no-progress",
           "--save", str(tmp_path / "b" / "model.pth"), "--checkpoint", str(tmp_path / "b" / "ckpt.pth"), *common]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path / "b",
                            env=ENV)
    # wait until training has started, then interrupt in the middle of the epoch
    for line in proc.stdout:
        if line.startswith("loss:"):
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    ckpt = tinytorch.load(tmp_path / "b" / "ckpt.pth")
    assert 0 < ckpt["step"] < 512 and ckpt["epoch"] == 0
    resumed = run_script(tmp_path / "b", "--resume", str(tmp_path / "b" / "ckpt.pth"), *common)
    assert resumed.returncode == 0, resumed.stderr
    a, b = weights(tmp_path / "a" / "ckpt.pth"), weights(tmp_path / "b" / "ckpt.pth")
    for k in a:
        assert np.array_equal(a[k], b[k]) and a[k].tobytes() == b[k].tobytes(), k


# ------------------------------------------- user errors, one line, no traceback

def _one_line_error(proc):
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines, proc.stdout
    return lines[-1]


@pytest.mark.parametrize("args, message", [
    (["--num-workers", "-1"], "--num-workers must be 0 or more, got -1"),
    (["--lr", "-1"], "--lr must be a non-negative number, got -1.0"),
    (["--momentum", "-1"], "--momentum must be a non-negative number, got -1.0"),
    (["--lr", "nan"], "--lr must be a non-negative number, got nan"),
    (["--resume", "missing.pth"], "--resume: missing.pth is not a file"),
    (["--batch-size", str(10**20)], "--batch-size must be a positive integer of at most 9223372036854775807"),
    (["--save", "."], "--save: . is a folder; give a file name (for example ./x)"),
    (["--checkpoint", "."], "--checkpoint: . is a folder; give a file name (for example ./x)"),
    (["--draw-graph", "nowhere/g.dot"], "--draw-graph: the folder"),
])
def test_bad_arguments_are_usage_errors(tmp_path, args, message):
    proc = run_script(tmp_path, "--epochs", "1", *args, timeout=60)
    assert proc.returncode == 2 and "usage:" in proc.stderr
    line = _one_line_error(proc)
    assert line.endswith(f"error: {message}") or f"error: {message}" in line
    assert "Epoch 1" not in proc.stdout


def test_checkpoint_folder_is_checked_before_training(tmp_path):
    cmd = [sys.executable, SCRIPT, "--data-root", data_root(), "--no-download", "--no-progress",
           "--epochs", "1", "--checkpoint", str(tmp_path / "no" / "ckpt.pth")]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV)
    assert proc.returncode == 2 and "Epoch 1" not in proc.stdout
    assert _one_line_error(proc).endswith(f"--checkpoint: the folder {tmp_path / 'no'} does not exist")
    assert time.monotonic() - t0 < 30  # no epoch was trained first


def _bad_resume_files(tmp_path):
    good = {"model": {"w": tinytorch.ones(2)}, "optimizer": {}, "epoch": 1, "step": 0}
    tinytorch.save(good, tmp_path / "full.pth")
    blob = (tmp_path / "full.pth").read_bytes()
    (tmp_path / "truncated.pth").write_bytes(blob[: len(blob) // 2])
    (tmp_path / "junk.pth").write_bytes(b"this is not a checkpoint at all\n" * 4)
    tinytorch.save(tinytorch.nn.Linear(784, 512).state_dict(), tmp_path / "model.pth")
    # the right kind of file, for another model: its weights do not fit
    tinytorch.save({"model": tinytorch.nn.Linear(3, 2).state_dict(), "optimizer": {}, "epoch": 1,
                    "step": 0, "rng_state": tinytorch.get_rng_state(), "seed": 0, "batch_size": 64,
                    "shuffle": True}, tmp_path / "other_model.pth")
    return {"truncated.pth": "malformed PyTorch checkpoint",
            "junk.pth": "not a checkpoint: the file is text",
            "model.pth": "it holds a model's weights (a state_dict), not a training checkpoint",
            "other_model.pth": "Error(s) in loading state_dict for NeuralNetwork:"}


@pytest.mark.parametrize("key, value, message", [
    ("epoch", "x", "its epoch is 'x'; it must be an integer >= 0"),
    ("epoch", 1.5, "its epoch is 1.5; it must be an integer >= 0"),
    ("epoch", -1, "its epoch is -1; it must be an integer >= 0"),
    ("step", -3, "its step is -3; it must be an integer >= 0"),
    ("batch_size", "64", "its batch_size is '64'; it must be an integer >= 1"),
    ("batch_size", 0, "its batch_size is 0; it must be an integer >= 1"),
    ("shuffle", 1, "its shuffle is 1; it must be true or false"),
])
def test_corrupt_resume_fields_give_one_line(tmp_path, key, value, message):
    ckpt = {"model": {"w": tinytorch.ones(2)}, "optimizer": {}, "epoch": 1, "step": 0, "seed": 0, "batch_size": 64,
            "shuffle": True}
    ckpt[key] = value
    tinytorch.save(ckpt, tmp_path / "bad.pth")
    proc = run_script(tmp_path, "--epochs", "2", "--resume", "bad.pth", timeout=120)
    assert proc.returncode == 1 and "Epoch" not in proc.stdout
    assert _one_line_error(proc) == f"Cannot resume from bad.pth: {message}"


def test_bad_resume_files_give_one_line(tmp_path):
    expected = _bad_resume_files(tmp_path)
    for name, message in expected.items():
        cmd = [sys.executable, SCRIPT, "--data-root", data_root(), "--no-download", "--no-progress",
               "--epochs", "1", "--resume", name, "--checkpoint", "out.pth", "--save", "m.pth"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=ENV)
        line = _one_line_error(proc)
        assert proc.returncode == 1, (name, proc.stderr)
        assert line.startswith(f"Cannot resume from {name}: ") and message in line, (name, line)
        assert "Epoch 1" not in proc.stdout

CNN = ("--model", "cnn", "--limit", "256", "--batch-size", "32", "--seed", "2")


def test_cnn_trains_saves_reloads_and_predicts(tmp_path):
    proc = run_script(tmp_path, *CNN, "--epochs", "2")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "(conv1): Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1))" in out
    assert "(dropout2): Dropout(p=0.5, inplace=False)" in out
    assert len(re.findall(r"Accuracy: ([\d.]+)%", out)) == 2
    assert re.search(r'Predicted: "[^"]+", Actual: "Ankle boot"', out)
    saved = weights(tmp_path / "model.pth")
    assert {k: v.shape for k, v in saved.items()} == {
        "conv1.weight": (32, 1, 3, 3), "conv1.bias": (32,), "conv2.weight": (64, 32, 3, 3), "conv2.bias": (64,),
        "fc1.weight": (128, 9216), "fc1.bias": (128,), "fc2.weight": (10, 128), "fc2.bias": (10,)}
    ckpt = tinytorch.load(tmp_path / "ckpt.pth")
    assert ckpt["model_kind"] == "cnn"
    # the CNN's defaults: SGD lr 0.05 with momentum 0.9
    assert ckpt["optimizer"]["param_groups"][0]["lr"] == 0.05
    assert ckpt["optimizer"]["param_groups"][0]["momentum"] == 0.9


def test_cnn_resume_is_bit_identical_and_refuses_the_wrong_model(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    full = run_script(tmp_path / "a", *CNN, "--epochs", "2")
    assert full.returncode == 0, full.stderr
    first = run_script(tmp_path / "b", *CNN, "--epochs", "1")
    assert first.returncode == 0, first.stderr
    ckpt = str(tmp_path / "b" / "ckpt.pth")
    wrong = run_script(tmp_path / "b", "--model", "mlp", "--epochs", "2", "--resume", ckpt)
    assert wrong.returncode != 0
    assert "Traceback" not in wrong.stderr
    assert "holds a cnn model, but --model is mlp" in wrong.stderr
    resumed = run_script(tmp_path / "b", *CNN, "--epochs", "2", "--resume", ckpt)
    assert resumed.returncode == 0, resumed.stderr
    a, b = weights(tmp_path / "a" / "ckpt.pth"), weights(tmp_path / "b" / "ckpt.pth")
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k].tobytes() == b[k].tobytes(), k


# ------------------------------------------------------ metrics.csv, TensorBoard logs, curves

def test_metrics_csv_tensorboard_and_plot(tmp_path):
    pytest.importorskip("tensorboard")
    pytest.importorskip("matplotlib")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    proc = run_script(tmp_path, "--limit", "512", "--batch-size", "4", "--epochs", "2", "--lr", "0.05",
                      "--tensorboard", str(tmp_path / "tb"), "--plot", str(tmp_path / "curves.png"),
                      "--metrics", str(tmp_path / "m.csv"))
    assert proc.returncode == 0, proc.stderr
    import csv
    rows = list(csv.DictReader(open(tmp_path / "m.csv")))
    assert list(rows[0]) == ["epoch", "step", "loss", "accuracy", "lr", "seconds", "run"]
    assert [(r["epoch"], r["step"], r["lr"]) for r in rows] == [("1", "128", "0.05"), ("2", "256", "0.05")]
    accuracies = [float(a) / 100 for a in re.findall(r"Accuracy: ([\d.]+)%", proc.stdout)]
    assert [float(r["accuracy"]) for r in rows] == pytest.approx(accuracies, abs=1e-3)
    assert float(rows[1]["loss"]) < float(rows[0]["loss"]) and float(rows[1]["seconds"]) > 0
    acc = EventAccumulator(str(tmp_path / "tb"), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    logged = re.findall(r"^loss: +(\d+\.\d+)", proc.stdout, re.M)
    train_loss = acc.Scalars("Loss/train")
    assert [e.step for e in train_loss] == [100, 228]
    assert [e.value for e in train_loss] == pytest.approx([float(v) for v in logged], abs=1e-5)
    assert [e.value for e in acc.Scalars("Accuracy/test")] == pytest.approx(accuracies, abs=1e-3)
    assert [e.value for e in acc.Scalars("LearningRate")] == pytest.approx([0.05, 0.05])
    assert "linear_relu_stack.0.weight" in acc.Tags()["histograms"]
    assert (tmp_path / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert "Wrote the loss and accuracy curves to" in proc.stdout


def _metrics(path):
    import csv
    return list(csv.DictReader(open(path)))


def test_metrics_of_a_run_resumed_mid_epoch_are_an_uninterrupted_runs(tmp_path):
    # before, the resumed epoch's row held the mean of its post-resume batches only
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    common = ("--lr", "0.05", "--seed", "2", "--batch-size", "16", "--epochs", "2")
    full = run_script(tmp_path / "a", *common)
    assert full.returncode == 0, full.stderr
    cmd = [sys.executable, "-u", SCRIPT, "--data-root", data_root(), "--no-download", "--no-progress",
           "--save", str(tmp_path / "b" / "model.pth"), "--checkpoint", str(tmp_path / "b" / "ckpt.pth"), *common]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path / "b",
                            env=ENV)
    for line in proc.stdout:  # interrupted in the middle of the first epoch
        if line.startswith("loss:"):
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    ckpt = tinytorch.load(tmp_path / "b" / "ckpt.pth")
    assert ckpt["epoch"] == 0 and 0 < ckpt["step"] < 512 and ckpt["loss_count"] == ckpt["step"]
    resumed = run_script(tmp_path / "b", "--resume", str(tmp_path / "b" / "ckpt.pth"), *common)
    assert resumed.returncode == 0, resumed.stderr
    a, b = _metrics(tmp_path / "a" / "metrics.csv"), _metrics(tmp_path / "b" / "metrics.csv")
    keys = ("epoch", "step", "loss", "accuracy", "lr")
    assert [[r[k] for k in keys] for r in b] == [[r[k] for k in keys] for r in a]
    assert {r["run"] for r in b} == {ckpt["run"]} and not (tmp_path / "b" / "metrics.csv.1").exists()


def test_two_runs_in_one_folder_never_share_a_metrics_file(tmp_path):
    # before, a resumed run appended to whatever metrics.csv the folder held: another run's rows
    args = ("--limit", "256", "--batch-size", "32")
    first = run_script(tmp_path, *args, "--epochs", "1", "--checkpoint", str(tmp_path / "c1.pth"))
    assert first.returncode == 0, first.stderr
    run1 = _metrics(tmp_path / "metrics.csv")[0]["run"]
    second = run_script(tmp_path, *args, "--epochs", "2", "--checkpoint", str(tmp_path / "c2.pth"))
    assert second.returncode == 0, second.stderr
    assert f"{tmp_path / 'metrics.csv'} held another run's rows: moved to {tmp_path / 'metrics.csv.1'}" in second.stderr
    assert [r["run"] for r in _metrics(tmp_path / "metrics.csv.1")] == [run1]
    rows2 = _metrics(tmp_path / "metrics.csv")
    assert [r["epoch"] for r in rows2] == ["1", "2"] and len({r["run"] for r in rows2} | {run1}) == 2
    # the first run resumed: its own rows only, in a file of its own; the second run's moved aside, kept
    resumed = run_script(tmp_path, *args, "--epochs", "2", "--checkpoint", str(tmp_path / "c1.pth"),
                         "--resume", str(tmp_path / "c1.pth"))
    assert resumed.returncode == 0, resumed.stderr
    assert [(r["epoch"], r["run"]) for r in _metrics(tmp_path / "metrics.csv")] == [("2", run1)]
    assert _metrics(tmp_path / "metrics.csv.2") == rows2
    # the second run resumed from its epoch 1 (an older copy of its checkpoint): its file, without the epoch it
    # trains again
    tinytorch.save({**tinytorch.load(tmp_path / "c2.pth"), "epoch": 1}, tmp_path / "c2_epoch1.pth")
    again = run_script(tmp_path, *args, "--epochs", "2", "--metrics", str(tmp_path / "metrics.csv.2"),
                       "--checkpoint", str(tmp_path / "c2.pth"), "--resume", str(tmp_path / "c2_epoch1.pth"))
    assert again.returncode == 0, again.stderr
    assert [r["epoch"] for r in _metrics(tmp_path / "metrics.csv.2")] == ["1", "2"]


def test_default_metrics_file_and_missing_matplotlib(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "run").mkdir()
    proc = run_script(tmp_path / "run", "--limit", "64", "--epochs", "1", "--checkpoint", str(tmp_path / "out" / "c.pth"))
    assert proc.returncode == 0, proc.stderr
    # beside the checkpoint, the run's other output
    lines = (tmp_path / "out" / "metrics.csv").read_text().splitlines()
    assert lines[0] == "epoch,step,loss,accuracy,lr,seconds,run" and lines[1].startswith("1,1,")
    assert not (tmp_path / "run" / "metrics.csv").exists()
    # the script's folder first on sys.path, as `python train_fashion_mnist.py` puts it (its sibling
    # package fashion_mnist_job is imported from there)
    code = ("import os, runpy, sys; sys.modules['matplotlib'] = None; sys.argv = sys.argv[1:]; "
            "sys.path.insert(0, os.path.dirname(sys.argv[0])); runpy.run_path(sys.argv[0], run_name='__main__')")
    cmd = [sys.executable, "-c", code, SCRIPT, "--data-root", data_root(), "--no-download", "--plot", "x.png"]
    bad = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV)
    assert bad.returncode == 2
    assert _one_line_error(bad).endswith("error: --plot needs the matplotlib package: pip install matplotlib")


def test_a_gpu_machines_checkpoint_resumes_on_the_cpu(tmp_path):
    import zipfile

    proc = run_script(tmp_path, "--epochs", "1", "--limit", "64", timeout=120)
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / "ckpt.pth"
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    pkl = next(name for name in files if name.endswith("data.pkl"))
    # every storage tagged as saved on a GPU, as torch.save on a CUDA machine writes it
    retagged = files[pkl].replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    assert retagged != files[pkl]
    files[pkl] = retagged
    with zipfile.ZipFile(tmp_path / "gpu.pth", "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    proc = run_script(tmp_path, "--epochs", "2", "--limit", "64", "--resume", "gpu.pth", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Resumed from gpu.pth: epoch 2, batch 0" in proc.stdout


def test_console_entry_point_is_the_scripts_main():
    # pyproject's [project.scripts] command runs train_fashion_mnist:main; the script and its
    # sibling package fashion_mnist_job are installed beside tinytorch for it
    import importlib

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)
    target = project["project"]["scripts"]["tinytorch-train-fashion-mnist"]
    module_name, _, attr = target.partition(":")
    assert module_name in project["tool"]["setuptools"]["py-modules"]
    assert "fashion_mnist_job*" in project["tool"]["setuptools"]["packages"]["find"]["include"]
    sys.path.insert(0, ROOT)
    try:
        module = importlib.import_module(module_name)
    finally:
        sys.path.remove(ROOT)
    assert callable(getattr(module, attr))
    with pytest.raises(SystemExit) as e:  # the command line's usage errors, as from the script
        module.main(["--epochs", "0"])
    assert e.value.code == 2
