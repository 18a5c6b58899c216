"""tinytorch.utils.tensorboard.SummaryWriter: event files read back with tensorboard's EventAccumulator,
compared with what PyTorch's own SummaryWriter writes for the same calls, and served by tensorboard."""
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

import tinytorch  # noqa: E402
from tinytorch.utils.tensorboard import SummaryWriter  # noqa: E402


def _acc(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def test_import_tinytorch_leaves_tensorboard_out():
    code = "import sys, tinytorch; print('tensorboard' in sys.modules, 'tinytorch.utils.tensorboard' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_missing_tensorboard_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    monkeypatch.delitem(sys.modules, "tinytorch.utils.tensorboard", raising=False)
    with pytest.raises(ImportError, match="pip install tensorboard"):
        import tinytorch.utils.tensorboard  # noqa: F401


def test_default_log_dir_and_signature(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    import inspect
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    def params(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(SummaryWriter.__init__) == params(TorchWriter.__init__)
    for name in ("add_scalar", "add_scalars", "add_histogram", "add_image", "add_images", "add_figure", "add_text",
                 "add_hparams", "add_graph", "add_embedding"):
        assert params(getattr(SummaryWriter, name)) == params(getattr(TorchWriter, name)), name
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as w:
        log_dir = w.get_logdir()
    assert log_dir.startswith("runs" + os.sep) and log_dir.endswith(socket.gethostname() + "_lr0.1")
    assert glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))
    del torch


def test_scalars_and_add_scalars(tmp_path):
    with SummaryWriter(tmp_path, filename_suffix=".tt") as w:
        for step in range(5):
            w.add_scalar("loss", tinytorch.tensor(1.0 / (step + 1)), step)
            w.add_scalars("run", {"a": step, "b": 2 * step}, step)
    assert glob.glob(str(tmp_path / "events.out.tfevents.*.tt"))
    acc = _acc(tmp_path)
    events = acc.Scalars("loss")
    assert [e.step for e in events] == list(range(5))
    np.testing.assert_allclose([e.value for e in events], [1.0 / (s + 1) for s in range(5)], rtol=1e-6)
    assert sorted(os.listdir(tmp_path / "run_b")) and [e.value for e in _acc(tmp_path / "run_b").Scalars("run")] == \
        [0.0, 2.0, 4.0, 6.0, 8.0]
    with pytest.raises(AssertionError, match="one element"):
        SummaryWriter(tmp_path / "x").add_scalar("bad", tinytorch.ones(3))


def test_histogram_matches_pytorchs(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    values = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    with SummaryWriter(tmp_path / "tt") as w:
        w.add_histogram("w", tinytorch.tensor(values), 3)
        w.add_histogram("auto", tinytorch.tensor(values), 3, bins="auto")
        w.add_histogram("few", tinytorch.tensor(values), 3, bins=64, max_bins=10)
    with TorchWriter(tmp_path / "pt") as w:
        w.add_histogram("w", torch.tensor(values), 3)
        w.add_histogram("auto", torch.tensor(values), 3, bins="auto")
        w.add_histogram("few", torch.tensor(values), 3, bins=64, max_bins=10)
    mine, theirs = _acc(tmp_path / "tt"), _acc(tmp_path / "pt")
    for tag in ("w", "auto", "few"):
        a, b = mine.Histograms(tag)[0], theirs.Histograms(tag)[0]
        assert a.step == b.step == 3
        h, g = a.histogram_value, b.histogram_value
        assert (h.min, h.max, h.num) == pytest.approx((g.min, g.max, g.num))
        assert h.sum == pytest.approx(g.sum, rel=1e-5) and h.sum_squares == pytest.approx(g.sum_squares, rel=1e-5)
        np.testing.assert_allclose(h.bucket_limit, g.bucket_limit, rtol=1e-6)
        np.testing.assert_array_equal(h.bucket, g.bucket)


def _decode(encoded):
    from PIL import Image
    import io
    return np.asarray(Image.open(io.BytesIO(encoded)))


@pytest.mark.parametrize("shape, fmt, call", [
    ((3, 8, 5), "CHW", "add_image"), ((8, 5, 3), "HWC", "add_image"), ((1, 8, 5), "CHW", "add_image"),
    ((8, 5), "HW", "add_image"), ((10, 3, 4, 6), "NCHW", "add_images"), ((4, 4, 6, 1), "NHWC", "add_images"),
])
def test_images_match_pytorchs(tmp_path, shape, fmt, call):
    torch = pytest.importorskip("torch")
    pytest.importorskip("PIL")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    img = np.random.default_rng(1).random(shape).astype(np.float32)
    with SummaryWriter(tmp_path / "tt") as w:
        getattr(w, call)("img", tinytorch.tensor(img), 0, dataformats=fmt)
        getattr(w, call)("u8", tinytorch.tensor((img * 255).astype(np.uint8)), 0, dataformats=fmt)
    with TorchWriter(tmp_path / "pt") as w:
        getattr(w, call)("img", torch.tensor(img), 0, dataformats=fmt)
        getattr(w, call)("u8", torch.tensor((img * 255).astype(np.uint8)), 0, dataformats=fmt)
    for tag in ("img", "u8"):
        a, b = _acc(tmp_path / "tt").Images(tag)[0], _acc(tmp_path / "pt").Images(tag)[0]
        assert (a.width, a.height) == (b.width, b.height)
        np.testing.assert_array_equal(_decode(a.encoded_image_string), _decode(b.encoded_image_string))


def test_figure_text_hparams(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 1)
        w.add_text("note", "hello **world**", 2)
        w.add_hparams({"lr": 0.1, "bsize": 64, "opt": "sgd", "nesterov": False}, {"hparam/acc": 0.9}, run_name="hp")
    acc = _acc(tmp_path)
    image = acc.Images("fig")[0]
    assert (image.width, image.height) == (100, 50)
    assert not plt.fignum_exists(fig.number)
    text = acc.Tensors("note/text_summary")[0]
    assert text.step == 2 and text.tensor_proto.string_val == [b"hello **world**"]
    hp = _acc(tmp_path / "hp")
    assert hp.Scalars("hparam/acc")[0].value == pytest.approx(0.9)
    from tensorboard.plugins.hparams import plugin_data_pb2
    content = hp.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["opt"].string_value == "sgd"
    assert start.hparams["nesterov"].bool_value is False
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    with pytest.raises(TypeError, match="should be dictionary"):
        w.add_hparams([1], {})


def test_graph_has_the_modules(tmp_path):
    tinytorch.manual_seed(0)
    model = tinytorch.nn.Sequential(tinytorch.nn.Flatten(), tinytorch.nn.Linear(12, 5), tinytorch.nn.ReLU(),
                                    tinytorch.nn.Linear(5, 2))
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, tinytorch.rand(4, 3, 4))
    graph = _acc(tmp_path).Graph()
    ops = [n.op for n in graph.node]
    assert ops == ["IO Node", "Flatten", "Linear", "ReLU", "Linear", "IO Node"]
    linear = graph.node[2]
    assert linear.name.startswith("Sequential/Linear[1]/") and list(linear.input) == [graph.node[1].name]
    assert [d.size for d in linear.attr["_output_shapes"].list.shape[0].dim] == [4, 5]
    assert linear.attr["attr"].s == b"in_features=12, out_features=5, bias=True"
    assert graph.node[-1].input == [graph.node[-2].name]


def test_embedding_files(tmp_path):
    mat = tinytorch.rand(6, 3)
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(mat, metadata=list("abcdef"), label_img=tinytorch.rand(6, 1, 4, 4), global_step=2, tag="my emb")
    folder = tmp_path / "00002" / "my%20emb"
    rows = [list(map(float, line.split("\t"))) for line in (folder / "tensors.tsv").read_text().splitlines()]
    np.testing.assert_allclose(rows, mat.numpy(), rtol=1e-6)
    assert (folder / "metadata.tsv").read_text() == "a\nb\nc\nd\ne\nf\n"
    assert (folder / "sprite.png").read_bytes().startswith(b"\x89PNG")
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "my emb:00002"' in config and 'metadata_path: "00002/my%20emb/metadata.tsv"' in config


def test_purge_step_and_reopen(tmp_path):
    w = SummaryWriter(tmp_path, purge_step=3)
    w.add_scalar("x", 1.0, 3)
    w.close()
    w.add_scalar("x", 2.0, 4)  # a closed writer reopens a new event file
    w.flush()
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tensorboard_serves_the_run(tmp_path):
    with SummaryWriter(tmp_path / "myrun") as w:
        for step in range(3):
            w.add_scalar("train/loss", 3.0 - step, step)
    port = _free_port()
    exe = shutil.which("tensorboard")
    cmd = ([exe] if exe else [sys.executable, "-m", "tensorboard.main"]) + [
        "--logdir", str(tmp_path), "--port", str(port), "--host", "127.0.0.1"]
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline, body = time.monotonic() + 30, None
        url = f"http://127.0.0.1:{port}/data/plugin/scalars/scalars?run=myrun&tag=train%2Floss"
        while time.monotonic() < deadline and body is None:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    body = json.loads(r.read())
            except (OSError, ValueError):
                time.sleep(0.5)
        if body is None:
            pytest.skip("tensorboard did not answer within 30 s on this machine")
        assert [(row[1], row[2]) for row in body] == [(0, 3.0), (1, 2.0), (2, 1.0)]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/runs", timeout=5) as r:
            assert "myrun" in json.loads(r.read())
    finally:
        proc.kill()
        proc.wait(timeout=10)
        log.close()
