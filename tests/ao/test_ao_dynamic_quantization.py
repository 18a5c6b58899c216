"""Dynamic quantization against PyTorch's x86 build: quantized tensors (bits of quantize_per_tensor, dequantize,
reprs), fbgemm's dynamic linear, ``quantize_dynamic`` of an MLP and of LSTM models (outputs, reprs, state_dict keys
and versions, the generator left where PyTorch leaves it), and the quantized state_dict's file both ways.

The bit-for-bit claims hold where PyTorch runs fbgemm's AVX2 kernels (its default ``x86`` quantized engine, on a CPU
with AVX2 and FMA: ``_fbgemm_paths``) and, for the LSTM's gates, ATen's AVX2/AVX512 sigmoid (``tests/_paths.py``);
the LSTM's tanh is MKL's in PyTorch (not public), correctly rounded here: see ``test_gates_as_pytorchs``."""
import io
import os
import zipfile

import numpy as np
import pytest

import tinytorch
from tinytorch._quantized import aten_math, fbgemm

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
import _paths  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore:torch.quantize_per_tensor")


def _fbgemm_path() -> bool:
    """PyTorch quantizes with fbgemm's AVX2+FMA kernels here (the x86 engine on such a CPU)."""
    return torch.backends.quantized.engine in ("x86", "fbgemm") and _paths.torch_path() in _paths.FMA_PATHS


exact = pytest.mark.skipif(not _fbgemm_path(), reason="PyTorch does not run fbgemm's AVX2 kernels here")

# The LSTM's tanh is MKL's vsTanh in PyTorch, whose code MKL picks by CPU vendor: it parts from the correctly rounded
# tanh (tinytorch's) by one ulp on 199-227 of test_gates_as_pytorchs' 200,000 values on an AMD EPYC (Zen 4) and on
# 1,573 on an Intel Xeon (Sapphire Rapids). A state an ulp away can round the next step's int8 activation otherwise,
# so the quantized LSTMs' outputs equal PyTorch's where they were measured: on the AMD EPYC.
mkl_tanh_measured = pytest.mark.skipif(
    _paths.cpu_vendor() != "AMD", reason="the quantized LSTM's outputs were measured equal to PyTorch's on an AMD "
    f"CPU; MKL's vsTanh rounds more values otherwise on this {_paths.cpu_vendor()} CPU")


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a.detach().numpy() if hasattr(a, "detach") else a)
    return a.view(np.uint8).reshape(a.size, -1) if a.size else a.view(np.uint8)


def _same_bits(a, b) -> bool:
    return np.array_equal(_bits(a), _bits(b))


# -- quantized tensors -----------------------------------------------------------------------------------
@exact
@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["qint8", "quint8", "qint32"])
@pytest.mark.parametrize("scale, zero_point", [(0.0123456789, 3), (0.1, 0), (1 / 3, 5), (1.0, 1), (0.5, 100)])
def test_quantize_per_tensor_bits(dtype, scale, zero_point):
    rng = np.random.default_rng(0)
    x = np.concatenate([(rng.standard_normal(50001) * 3).astype(np.float32),
                        np.arange(-8, 8, 0.5, dtype=np.float32),  # halfway cases: the zero point is added first
                        np.array([1e30, -1e30, np.inf, -np.inf, 0.0, -0.0], np.float32)])
    t, p = tinytorch.quantize_per_tensor(tinytorch.tensor(x), scale, zero_point, getattr(tinytorch, dtype)), \
        torch.quantize_per_tensor(torch.tensor(x), scale, zero_point, getattr(torch, dtype))
    assert np.array_equal(t.int_repr().numpy(), p.int_repr().numpy())
    assert _same_bits(t.dequantize(), p.dequantize())
    assert (t.q_scale(), t.q_zero_point(), str(t.dtype)) == (p.q_scale(), p.q_zero_point(), str(p.dtype).replace(
        "torch", "tinytorch"))


def test_quantized_tensor_surface():
    x = [1.0, -2.5, 3.0, 0.25]
    t = tinytorch.quantize_per_tensor(tinytorch.tensor(x), 0.5, 2, tinytorch.quint8)
    p = torch.quantize_per_tensor(torch.tensor(x), 0.5, 2, torch.quint8)
    for f in (lambda q: q, lambda q: q.view(2, 2).t(), lambda q: q[1:], lambda q: q.clone(), lambda q: q.reshape(4, 1),
              lambda q: q[0], lambda q: q.detach(), lambda q: q.int_repr(), lambda q: q.dequantize()):
        assert repr(f(t)).replace("tinytorch", "torch") == repr(f(p))
    assert repr(tinytorch.quantize_per_tensor(tinytorch.ones(0), 0.1, 0, tinytorch.qint8)).replace("tinytorch", "torch") \
        == repr(torch.quantize_per_tensor(torch.ones(0), 0.1, 0, torch.qint8))
    assert t.is_quantized and not tinytorch.ones(1).is_quantized and t.qscheme() is tinytorch.per_tensor_affine
    assert tinytorch.equal(t, t.clone()) and t[2].item() == p[2].item()
    with pytest.raises(NotImplementedError, match="'QuantizedCPU' backend"):
        t + 1
    with pytest.raises(NotImplementedError, match="'QuantizedCPU' backend"):
        t.sum()
    with pytest.raises(TypeError, match="Got unsupported ScalarType QUInt8"):
        t.numpy()
    with pytest.raises(RuntimeError, match="Quantize only works on Float Tensor, got Double"):
        tinytorch.quantize_per_tensor(tinytorch.ones(2, dtype=tinytorch.float64), 0.1, 0, tinytorch.qint8)
    assert tinytorch.dequantize(tinytorch.ones(2)).tolist() == [1.0, 1.0]


# -- fbgemm's dynamic linear ------------------------------------------------------------------------------
@exact
@pytest.mark.bitexact
@pytest.mark.parametrize("seed", range(6))
def test_linear_dynamic_bits(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        m, k, n = rng.integers(1, 20), rng.integers(1, 70), rng.integers(1, 40)
        x = (rng.standard_normal((m, k)) * rng.choice([1e-6, 1e-3, 1, 10, 1000])).astype(np.float32)
        x = np.abs(x) if trial % 7 == 0 else -np.abs(x) if trial % 11 == 0 else x  # zero point at an end
        w = (rng.standard_normal((n, k)) * 0.3).astype(np.float32)
        b = (rng.standard_normal(n) * rng.choice([1e-3, 1, 100])).astype(np.float32) if trial % 3 else None
        scale = float(np.float32(np.abs(w).max()) / np.float32(127.5))
        qw = torch.quantize_per_tensor(torch.tensor(w), scale, 0, torch.qint8)
        packed = torch.ops.quantized.linear_prepack(qw, None if b is None else torch.tensor(b))
        theirs = torch.ops.quantized.linear_dynamic(torch.tensor(x), packed, reduce_range=True)
        wq = fbgemm.quantize(w, scale, 0, np.int8)
        ours = fbgemm.linear_dynamic(x, wq, scale, 0, fbgemm.column_offsets(wq, 0), b, True)
        assert _same_bits(ours, theirs), (m, k, n, trial)


def test_choose_qparams_cases():
    # PyTorch's ChooseQuantizationParams on 7 bits: the range widened to hold 0, tiny scales raised to fp16's min
    assert fbgemm.choose_qparams(0.0, 0.0, 0, 255, True) == (0.1, 0)
    assert fbgemm.choose_qparams(-1.0, 1.0, 0, 255, False) == (2.0 / 255, 128)
    scale, zp = fbgemm.choose_qparams(1e-7, 2e-6, 0, 255, True)
    assert scale == fbgemm.SMALL_SCALE_THRESHOLD and zp == 0
    with pytest.raises(RuntimeError, match="min should be less than or equal to max"):
        fbgemm.choose_qparams(1.0, 0.0, 0, 255)


@pytest.mark.bitexact
@pytest.mark.parametrize("n", [1, 7, 31, 32, 33, 64, 100, 256])
def test_gates_as_pytorchs(n):
    # sigmoid: ATen's vector formula (SLEEF's expf) on whole blocks of each row, glibc's expf on the rest; the rows
    # of a gate's chunk (B, H) of the (B, 4H) gates are separate inner loops, as here
    rng = np.random.default_rng(n)
    gates = np.concatenate([(rng.standard_normal((4, n)) * s).astype(np.float32) for s in (0.5, 4, 30)], axis=1)
    gates[0, :3] = [-87.0, 90.0, 0.0][:min(3, n)]
    theirs = torch.tensor(gates)[:, n:2 * n].sigmoid()
    if _paths.torch_path() in _paths.FMA_PATHS and os.environ.get("ATEN_CPU_CAPABILITY", "").upper() != "DEFAULT":
        assert _same_bits(aten_math.sigmoid(gates[:, n:2 * n]), theirs)
        assert _same_bits(aten_math.sigmoid(gates[:1]), torch.tensor(gates[:1]).sigmoid())
    # tanh: MKL's vsTanh in PyTorch; correctly rounded here, an ulp apart only next to a rounding midpoint. How many
    # values part depends on the CPU's vendor (mkl_tanh_measured): at most 227 of the 200,000 on an AMD EPYC, 1,573
    # on an Intel Xeon; the bound of 1% holds on both
    big = (rng.standard_normal(200000) * 3).astype(np.float32)
    a, b = aten_math.tanh(big), torch.tanh(torch.tensor(big)).numpy()
    assert np.max(np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32))) <= 1
    assert np.count_nonzero(a != b) <= 0.01 * big.size


# -- quantize_dynamic -------------------------------------------------------------------------------------
def _from_numpy(T, model, scale=0.3):
    """The model's float weights drawn by numpy, the same in both libraries: PyTorch's own float32 init
    rounds differently on its DEFAULT CPU path (no FMA), and one weight an ulp away can quantize to another
    integer, so a test comparing the quantized models starts from one float model."""
    rng = np.random.default_rng(0)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return model


def _mlp(T, sizes=(16, 32, 4), bias=True):
    T.manual_seed(0)
    nn = T.nn
    return _from_numpy(T, nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(),
                                        nn.Linear(sizes[1], sizes[2], bias=bias)))


def _printed(x) -> str:
    return str(x).replace("tinytorch.", "torch.")


@exact
@pytest.mark.bitexact
@pytest.mark.parametrize("sizes, batch, bias", [((16, 32, 4), 3, True), ((784, 512, 10), 64, True),
                                                ((33, 7, 5), 1, False)])
def test_quantize_dynamic_mlp(sizes, batch, bias):
    got = {}
    for T in (tinytorch, torch):
        m = _mlp(T, sizes, bias)
        x = T.randn(batch, sizes[0]) * 3
        q = T.ao.quantization.quantize_dynamic(m, {T.nn.Linear}, dtype=T.qint8)
        sd = q.state_dict()
        got[T] = (q(x), _printed(q), list(sd), _printed(sd._metadata), T.randn(3), q.training, q[0].training,
                  m.training)
    ours, theirs = got[tinytorch], got[torch]
    assert _same_bits(ours[0], theirs[0])
    assert ours[1:4] == theirs[1:4]
    assert _same_bits(ours[4], theirs[4])  # the generator is where PyTorch leaves it
    assert ours[5:] == theirs[5:]


def _lstm(T, i, h, layers=1, bi=False, bf=False, seq=7, batch=3):
    T.manual_seed(0)
    m = T.nn.LSTM(i, h, layers, bidirectional=bi, batch_first=bf)
    x = T.randn(*((batch, seq, i) if bf else (seq, batch, i)))
    q = T.ao.quantization.quantize_dynamic(T.nn.Sequential(m), {T.nn.LSTM}, dtype=T.qint8)
    out, (hn, cn) = q[0](x)
    return [out, hn, cn, T.randn(3)], _printed(q), list(q.state_dict()), _printed(q.state_dict()._metadata)


@exact
@mkl_tanh_measured
@pytest.mark.bitexact
@pytest.mark.parametrize("config", [dict(i=8, h=8, seq=20, batch=1), dict(i=10, h=20, layers=2),
                                    dict(i=5, h=6, bi=True, seq=4, batch=2),
                                    dict(i=5, h=6, layers=2, bi=True, bf=True, seq=4, batch=2)],
                         ids=["recipe", "two_layers", "bidirectional", "batch_first"])
def test_quantize_dynamic_lstm(config):
    ours, theirs = _lstm(tinytorch, **config), _lstm(torch, **config)
    assert ours[1:] == theirs[1:]
    for a, b in zip(ours[0], theirs[0]):
        assert _same_bits(a, b)


def test_quantize_dynamic_lstm_language_model():
    # the tutorial's word language model: the decoder's logits are PyTorch's bit for bit; an LSTM state may sit an
    # ulp away where MKL's tanh and the correctly rounded one part (see test_gates_as_pytorchs)
    def run(T, ntoken=1000, ninp=64, nhid=128):
        nn = T.nn

        class LSTMModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.5)
                self.encoder = nn.Embedding(ntoken, ninp)
                self.rnn = nn.LSTM(ninp, nhid, 2, dropout=0.5)
                self.decoder = nn.Linear(nhid, ntoken)

            def forward(self, input, hidden):
                output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
                return self.decoder(self.drop(output)), hidden
        T.manual_seed(0)
        q = T.ao.quantization.quantize_dynamic(_from_numpy(T, LSTMModel(), 0.1), {nn.LSTM, nn.Linear},
                                               dtype=T.qint8)
        x = T.randint(0, ntoken, (35, 4))
        with T.no_grad():
            out, (hn, cn) = q(x, (T.zeros(2, 4, nhid), T.zeros(2, 4, nhid)))
        return _printed(q), out.numpy(), hn.numpy(), cn.numpy()
    ours, theirs = run(tinytorch), run(torch)
    assert ours[0] == theirs[0]
    if _fbgemm_path():
        assert np.count_nonzero(ours[1] != theirs[1]) <= 1e-4 * ours[1].size
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)


def _recipe(T):
    """The dynamic quantization recipe's data and models: its inputs are drawn before the LSTM's weights."""
    T.manual_seed(29592)
    inputs = T.randn(20, 1, 8)
    hidden = (T.randn(1, 1, 8), T.randn(1, 1, 8))

    class lstm_for_demonstration(T.nn.Module):
        def __init__(self, in_dim, out_dim, depth):
            super().__init__()
            self.lstm = T.nn.LSTM(in_dim, out_dim, depth)

        def forward(self, inputs, hidden):
            return self.lstm(inputs, hidden)
    float_lstm = lstm_for_demonstration(8, 8, 1)
    quantized_lstm = T.quantization.quantize_dynamic(float_lstm, {T.nn.LSTM, T.nn.Linear}, dtype=T.qint8)
    return float_lstm, quantized_lstm, inputs, hidden


def test_dynamic_quantization_recipe_model_sizes(tmp_path, monkeypatch):
    # the recipe's print_size_of_model (torch.save of the state_dict to temp.p, the file's size) prints PyTorch's
    # lines: tinytorch's files are torch.save's, byte for byte
    def print_size_of_model(T, model, label=""):
        T.save(model.state_dict(), "temp.p")
        size = os.path.getsize("temp.p")
        with open("temp.p", "rb") as fh:
            files.append(fh.read())
        print("model: ", label, " \t", "Size (KB):", size / 1e3, file=out)
        os.remove("temp.p")
        return size

    got = {}
    for T in (torch, tinytorch):
        (tmp_path / T.__name__).mkdir()
        monkeypatch.chdir(tmp_path / T.__name__)
        files: list = []
        out = io.StringIO()
        float_lstm, quantized_lstm = _recipe(T)[:2]
        f = print_size_of_model(T, float_lstm, "fp32")
        q = print_size_of_model(T, quantized_lstm, "int8")
        print("{0:.2f} times smaller".format(f / q), file=out)
        got[T] = out.getvalue(), files
    assert got[torch][0] == "model:  fp32  \t Size (KB): 4.479\nmodel:  int8  \t Size (KB): 3.455\n1.30 times smaller\n"
    assert got[tinytorch][0] == got[torch][0]
    if _paths.torch_path() in _paths.FMA_PATHS:
        # the files hold the recipe's initial weights, which PyTorch's DEFAULT path rounds otherwise (no FMA);
        # the writer's bytes are held on every path by tests/serialization/test_serialization_torch_bytes.py
        assert got[tinytorch][1] == got[torch][1]


def test_dynamic_quantization_recipe_prints():
    # the recipe's lines about the quantized model (the float LSTM's own outputs are tinytorch's float LSTM)
    def recipe(T):
        float_lstm, quantized_lstm, inputs, hidden = _recipe(T)
        out2, hidden2 = quantized_lstm(inputs, hidden)
        mag2 = T.mean(abs(out2)).item()
        return [_printed(float_lstm), _printed(quantized_lstm),
                f"mean absolute value of output tensor values in the INT8 model is {mag2:.5f}"]
    assert recipe(tinytorch) == recipe(torch)


# -- the state_dict's file ----------------------------------------------------------------------------------
def _records(path) -> dict:
    return {i.filename.split("/", 1)[1]: i.file_size for i in zipfile.ZipFile(path).infolist()}


def test_quantized_state_dict_file_both_ways(tmp_path):
    qt = tinytorch.ao.quantization.quantize_dynamic(_mlp(tinytorch), {tinytorch.nn.Linear}, dtype=tinytorch.qint8)
    qp = torch.ao.quantization.quantize_dynamic(_mlp(torch), {torch.nn.Linear}, dtype=torch.qint8)
    (tmp_path / "t").mkdir()
    (tmp_path / "p").mkdir()
    tinytorch.save(qt.state_dict(), tmp_path / "t" / "q.pt")
    torch.save(qp.state_dict(), tmp_path / "p" / "q.pt")
    # torch.save's file, byte for byte: the int8 weights one byte an element (a QInt8Storage), the biases float32
    assert _records(tmp_path / "t" / "q.pt")["data/2"] == 32 * 16
    assert (tmp_path / "t" / "q.pt").read_bytes() == (tmp_path / "p" / "q.pt").read_bytes()
    tinytorch.save(qt.state_dict(), tmp_path / "t.pt")
    torch.save(qp.state_dict(), tmp_path / "p.pt")
    x = torch.randn(5, 16)
    loaded = torch.load(tmp_path / "t.pt")  # weights_only: the quantized tensors rebuild
    qp2 = torch.ao.quantization.quantize_dynamic(_mlp(torch), {torch.nn.Linear}, dtype=torch.qint8)
    qp2.load_state_dict(loaded)
    assert _same_bits(qp2(x), qp(x))
    qt2 = tinytorch.ao.quantization.quantize_dynamic(_mlp(tinytorch, (16, 32, 4)), {tinytorch.nn.Linear},
                                                    dtype=tinytorch.qint8)
    qt2.load_state_dict(tinytorch.load(tmp_path / "p.pt"))
    xt = tinytorch.tensor(x.numpy())
    assert np.array_equal(qt2(xt).numpy(), qt(xt).numpy())


def _lstm_files(tmp_path):
    """tinytorch's quantized LSTM and PyTorch's, each with the state_dict read from the other's file."""
    tinytorch.manual_seed(0)
    mt, mt_back = (tinytorch.ao.quantization.quantize_dynamic(tinytorch.nn.Sequential(tinytorch.nn.LSTM(8, 8)),
                                                              {tinytorch.nn.LSTM}, dtype=tinytorch.qint8)
                   for _ in range(2))
    tinytorch.save(mt.state_dict(), tmp_path / "t.pt")
    for T in (torch, tinytorch):  # a TorchScript object is no weights-only content, in either library
        with pytest.raises(Exception, match="Weights only load failed"):
            T.load(tmp_path / "t.pt")
    mp = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(torch.nn.LSTM(8, 8)), {torch.nn.LSTM},
                                                dtype=torch.qint8)
    mp.load_state_dict(torch.load(tmp_path / "t.pt", weights_only=False))  # PyTorch rebuilds tinytorch's objects
    torch.save(mp.state_dict(), tmp_path / "p.pt")
    mt_back.load_state_dict(tinytorch.load(tmp_path / "p.pt", weights_only=False))
    return mt, mp, mt_back


def test_quantized_lstm_file_is_pytorchs_script_object(tmp_path):
    mt, _, mt_back = _lstm_files(tmp_path)
    param = mt_back[0]._all_weight_values[0].param
    assert repr(param) == "ScriptObject <__torch__.torch.classes.rnn.CellParamsBase>" and param.reduce_range
    # PyTorch's file carries tinytorch's quantized weights as they went in (the same arithmetic on both sides)
    x = tinytorch.tensor(np.random.default_rng(0).standard_normal((5, 1, 8)).astype(np.float32))
    assert np.array_equal(mt_back(x)[0].numpy(), mt(x)[0].numpy())


@mkl_tanh_measured
def test_quantized_lstm_file_runs_in_pytorch_as_in_tinytorch(tmp_path):
    mt, mp, _ = _lstm_files(tmp_path)
    x = np.random.default_rng(0).standard_normal((5, 1, 8)).astype(np.float32)
    np.testing.assert_allclose(mt(tinytorch.tensor(x))[0].numpy(), _lstm_from(mp, x), rtol=0, atol=1e-6)


def _lstm_from(mp, x) -> np.ndarray:
    with torch.no_grad():
        return mp(torch.tensor(x))[0].numpy()
