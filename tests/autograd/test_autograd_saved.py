"""The values a node saved for its backward, compared with PyTorch: ``grad_fn._saved_<name>`` and
``_raw_saved_<name>`` (``register_hooks``) over op_db's samples (names, values, None where PyTorch's is
None; the known differences are in ``saved_known.py``), the order ``saved_tensors_hooks`` sees them in
(pack at save, unpack at each use), ``save_on_cpu``, the PyTorch tutorial "Hooks for saved tensors"
printed line for line, and a 0-d mul's saved inputs (version checks, pack hooks, release)."""
from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import uuid

import pytest

import tinytorch
from test_autograd_helpers import normalise
import saved_known as K


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


_ADDRESS = re.compile(r"0x[0-9a-f]+")


def _text(x) -> str:
    return _ADDRESS.sub("0x?", normalise(str(x)))


def _run(snippet, lib) -> list:
    """What ``snippet(lib, show)`` shows (its ``show`` calls and what it prints), or the error it raises."""
    seen = []

    def show(*values):
        seen.append(tuple(_text(v) for v in values))

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            snippet(lib, show)
    except Exception as exc:  # the exception is part of what is compared
        seen.append(("raised", type(exc).__name__, _text(exc)))
    seen.extend(("printed", _text(line)) for line in out.getvalue().splitlines())
    return seen


def same(snippet, torch) -> list:
    expected, got = _run(snippet, torch), _run(snippet, tinytorch)
    assert got == expected, "\n".join(f"tinytorch: {g}\npytorch:   {e}" for g, e in zip(got, expected)
                                      if g != e) or f"\ntinytorch: {got}\npytorch:   {expected}"
    return got


# -- op_db: names, values, pack order --------------------------------------------------------------------
def test_op_db_saved_names_and_values(torch):
    import _saved_compare as C
    found = C.walk(torch, limit=2)
    unexpected = {cls: {p: e for p, e in problems.items() if (cls, e) not in K.ENTRY_VALUES}
                  for cls, problems in found.items() if cls not in K.VALUES}
    unexpected = {cls: problems for cls, problems in unexpected.items() if problems}
    assert not unexpected, "\n".join(f"{cls}: {p}   [{e}]" for cls, ps in unexpected.items() for p, e in ps.items())


def test_op_db_saved_after_backward(torch):
    """After a backward that freed the graph, each ``_saved_<name>`` of every node reads as PyTorch's: its
    "freed" error for a slot that held a tensor (a list of them too), None for one that never did, the value
    for sizes, ints and flags."""
    import _saved_compare as C
    found = C.walk_released(torch, limit=2)
    unexpected = {cls: {p: e for p, e in problems.items() if (cls, e) not in K.ENTRY_VALUES}
                  for cls, problems in found.items() if cls not in K.VALUES}
    unexpected = {cls: problems for cls, problems in unexpected.items() if problems}
    assert not unexpected, "\n".join(f"{cls}: {p}   [{e}]" for cls, ps in unexpected.items() for p, e in ps.items())


def _released_reads(lib):
    """Each ``_saved_<name>`` of a few nodes after backward: "freed", None, or the value's type."""
    x = lib.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    c = lib.tensor([[0.5, 1.5], [2.0, 1.0]])
    outs = {
        "mul by a constant": x * c,          # self never saved (the constant needs no gradient)
        "mul by a number": x * 2,            # other: a wrapped number, saved
        "constant times x": c * x,
        "mm with a constant": x.mm(c),       # mat2 never saved (it is self's partner)
        "mm": x.mm(x),
        "pow": x ** 3,
        "div by a constant": x / c,
        "atan2 with a constant": lib.atan2(x, c),
        "matmul of vectors": x[0] @ c[1],
        "index": x[lib.tensor([1, 0])],
        "where": lib.where(c > 1, x, c),
    }
    loss = sum(o.sum() for o in outs.values())
    nodes = {k: o.grad_fn for k, o in outs.items()}
    loss.backward()
    read = {}
    for key, node in nodes.items():
        for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
            try:
                v = getattr(node, name)
                read[key, name] = None if v is None else type(v).__name__
            except RuntimeError as e:
                read[key, name] = "freed" if "backward through the graph a second time" in str(e) else str(e)
        if key in ("mul by a number", "index"):
            # before any backward already: tinytorch's _raw_saved_other of a number unpacks None (PyTorch's the
            # wrapped number), and it lists no _raw_saved_indices
            continue
        for name in sorted(n for n in dir(node) if n.startswith("_raw_saved_")):
            for what, call in (("unpack", lambda: getattr(node, name).unpack()),
                               ("register_hooks", lambda: getattr(node, name).register_hooks(id, id))):
                try:
                    v = call()
                    read[key, name, what] = None if v is None else type(v).__name__
                except RuntimeError as e:
                    read[key, name, what] = str(e)[:70]
    return read


def test_released_slots_read_as_pytorchs(torch):
    want = _released_reads(torch)
    assert want[("mul by a constant", "_saved_self")] is None and want[("mm with a constant", "_saved_self")] is None
    assert _released_reads(tinytorch) == want


def test_op_db_pack_order_is_pytorchs(torch):
    """Each node class's saved tensors reach the pack hook in PyTorch's order."""
    import _saved_compare as C
    found = C.walk_orders(torch, limit=2)
    assert not found, "\n".join(f"{cls}: PyTorch {w}, tinytorch {h}   [{e}]" for cls, (w, h, e) in found.items())


def test_op_db_packed_tensors(torch):
    """What a graph hands ``saved_tensors_hooks``' pack hook: as PyTorch's but for the listed entries."""
    import _saved_compare as C
    found = C.walk_packs(torch, limit=2)
    unexpected = {e: d for e, d in found.items() if e not in K.PACKS}
    assert not unexpected, "\n".join(f"{e}: {d}" for e, d in unexpected.items())


# -- the attributes one by one ---------------------------------------------------------------------------
def test_inputs_are_saved_as_themselves_outputs_as_new_tensors(torch):
    def snippet(lib, show):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x.pow(2)
        show(y.grad_fn._saved_self is x, y.grad_fn._saved_self.equal(x), y.grad_fn._saved_exponent)
        z = x.exp()
        r = z.grad_fn._saved_result
        show(r is z, r.equal(z), r.grad_fn is z.grad_fn, r.requires_grad, r.is_leaf, r._version)
        w = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        m = x * w
        show(m.grad_fn._saved_self is x, m.grad_fn._saved_other is w)
        show(sorted(n for n in dir(m.grad_fn) if "saved" in n))
        show(sorted(n for n in dir(x.sum(-1).grad_fn) if "saved" in n))
    same(snippet, torch)


def test_numbers_and_int_arguments_read_back_as_pytorch_keeps_them(torch):
    def snippet(lib, show):
        x = lib.ones(2, 3, requires_grad=True)
        for y in (x * 2, x * 2.5, x + 1, x - 3, x.sum(-1), x.sum((0, -1), keepdim=True), x.mean(1), x.unsqueeze(-1),
                  x.transpose(-1, 0), x.permute(1, 0), x.squeeze(0), x.expand(4, 2, 3), x.view(-1), x[1:], x[-1],
                  x[:, None], x[..., -2], x.select(-1, 1), x.narrow(1, 0, 2), x.cumsum(-1), x.softmax(-1),
                  x.unbind(-1)[0], lib.cat([x, x], -1), x.clamp(min=0.5), x.pow(3), 2 ** x, x.max(-1)[0],
                  x.norm(dim=-1), lib.dist(x, x * 2), lib.linalg.vector_norm(x, 3, dim=-1), x.gather(-1, lib.zeros(
                      2, 1, dtype=lib.int64)), x.index_select(-1, lib.tensor([0, -1]).abs()), x.flip(-1), x.roll(1, -1),
                  x.diagonal(0, -2, -1), x.tril(-1), x.repeat(2, 1), x.std(-1), x.var(-1, correction=0)):
            fn = y.grad_fn
            show(fn.name(), [(n, getattr(fn, n)) for n in sorted(dir(fn)) if n.startswith("_saved_")])
    same(snippet, torch)


def test_nn_layers_nodes(torch):
    def snippet(lib, show):
        lib.manual_seed(0)
        x = lib.randn(2, 3, 6, 6, dtype=lib.float64, requires_grad=True)
        F = lib.nn.functional
        for y in (F.max_pool2d(x, 3), F.max_pool2d(x, (3, 2), stride=1, padding=1), F.avg_pool2d(x, 3, 2, 1, True),
                  F.adaptive_avg_pool2d(x, 4), F.adaptive_max_pool2d(x, 3), F.pad(x, (1, 2)),
                  F.pad(x, (1, 2, 0, 1), mode="reflect"), F.interpolate(x, scale_factor=2),
                  F.interpolate(x, size=(3, 4), mode="bilinear"), F.layer_norm(x, (6,)), F.group_norm(x, 3),
                  F.batch_norm(x, None, None, training=True), F.embedding(lib.tensor([[1, 2], [0, 1]]), x[0, 0]),
                  F.leaky_relu(x, 0.3), F.elu(x), F.gelu(x, approximate="tanh"), F.softplus(x, 2.0, 10.0),
                  F.hardtanh(x, -0.5, 0.5), F.mse_loss(x, x.detach()), F.unfold(x, 2), F.logsigmoid(x)):
            fn = y.grad_fn
            show(fn.name(), [(n, getattr(fn, n)) for n in sorted(dir(fn)) if n.startswith("_saved_")])
        lin = lib.nn.Linear(6, 4, dtype=lib.float64)
        fn = lin(x).grad_fn
        show(fn.name(), fn.next_functions[0][0].name())
        fn = lin(x[0, 0]).grad_fn
        show(fn.name(), [(n, getattr(fn, n)) for n in sorted(dir(fn)) if n.startswith("_saved_")])
    same(snippet, torch)


def test_tensor_values_of_saved_fields(torch):
    """The tensors themselves (not just their shapes): argmax indices, batch statistics, LU factors."""
    import numpy as np

    def values(lib):
        lib.manual_seed(0)
        x = lib.randn(2, 3, 5, 5, dtype=lib.float64, requires_grad=True)
        F = lib.nn.functional
        out = []
        for y, names in ((F.max_pool2d(x, 2), ("result1",)), (F.adaptive_max_pool2d(x, 2), ("result1",)),
                         (F.batch_norm(x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64),
                                       training=True), ("result1", "result2", "running_mean", "running_var")),
                         (F.layer_norm(x, (5, 5)), ("result1", "result2")), (F.group_norm(x, 3), ("result1", "result2")),
                         (lib.linalg.det(x[0, 0]), ("LU", "pivots")), (lib.linalg.slogdet(x[0, 0])[1], ("LU", "pivots")),
                         (lib.linalg.solve(x[0, 0], x[0, 1, 0]), ("LU", "pivots")),
                         (F.logsigmoid(x), ("buffer",)), (lib.linalg.svd(x[0, 0])[1], ("S", "U", "Vh"))):
            out.append([np.array(getattr(y.grad_fn, "_saved_" + n).tolist()) for n in names])
        return out

    for want, got in zip(values(torch), values(tinytorch)):
        for w, g in zip(want, got):
            assert w.shape == g.shape and np.allclose(w, g, atol=1e-10)


# -- _raw_saved_<name> and register_hooks -----------------------------------------------------------------
def test_register_hooks_packs_at_once_and_unpacks_at_each_use(torch):
    def snippet(lib, show):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        y = a * b
        raw = y.grad_fn._raw_saved_self
        show(type(raw).__name__, raw.unpack_hook)
        log = []
        raw.register_hooks(lambda t: (log.append("pack"), t * 10)[1], lambda t: (log.append("unpack"), t)[1])
        show(list(log))
        show(y.grad_fn._saved_self, y.grad_fn._saved_self, list(log))
        show(raw.unpack_hook is not None)
        y.sum().backward()
        show(list(log), b.grad)
    same(snippet, torch)


@pytest.mark.parametrize("case", ["none", "one", "not_callable", "twice", "none_slot", "freed", "freed_read"])
def test_register_hooks_errors(torch, case):
    def snippet(lib, show):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])
        y = a * b
        ident = lambda t: t  # noqa: E731
        if case == "none":
            y.grad_fn._raw_saved_other.register_hooks(None, None)
        elif case == "one":
            y.grad_fn._raw_saved_other.register_hooks(ident)
        elif case == "not_callable":
            y.grad_fn._raw_saved_other.register_hooks(1, 2)
        elif case == "twice":
            y.grad_fn._raw_saved_other.register_hooks(ident, ident)
            y.grad_fn._raw_saved_other.register_hooks(ident, ident)
        elif case == "none_slot":  # a does not need b's gradient: PyTorch saves no self
            show(y.grad_fn._saved_self)
            y.grad_fn._raw_saved_self.register_hooks(ident, ident)
        elif case == "freed":
            y.sum().backward()
            y.grad_fn._raw_saved_other.register_hooks(ident, ident)
        else:
            y.sum().backward()
            show(y.grad_fn._saved_other)
    got = same(snippet, torch)
    assert got[-1][0] == "raised"


def test_modified_saved_tensor_refuses_on_read(torch):
    def snippet(lib, show):
        c = lib.tensor([1.0, 2.0], requires_grad=True)
        d = lib.tensor([3.0, 4.0])
        w = c * d
        d.add_(1)
        show(w.grad_fn._saved_self)
        show(w.grad_fn._saved_other)
    got = same(snippet, torch)
    assert got[-1][0] == "raised"


# -- saved_tensors_hooks and save_on_cpu ---------------------------------------------------------------------
def test_saved_tensors_hooks_order(torch):
    def snippet(lib, show):
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape), [round(v, 10) for v in t.reshape(-1).tolist()]))
            return t

        def unpack(t):
            log.append(("unpack", tuple(t.shape)))
            return t

        a = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 0.6, 0.7], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            z = (a * b).exp().sin().pow(2)
            m = lib.mm(a[None], b[:, None])
            c = lib.clamp(a, b * 0, b)
        show(log)
        log.clear()
        show(z.grad_fn._saved_self, z.grad_fn._saved_self, log)
        log.clear()
        z.sum().backward(retain_graph=True)
        show(log, a.grad)
        log.clear()
        (m.sum() + c.sum()).backward()
        show(log)
    same(snippet, torch)


def test_unpack_hook_results(torch):
    def snippet(lib, show):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (t,), lambda t: t[0]):
            r = a.exp()
        show(r.grad_fn._saved_result)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
            r = a * b
        show(r.grad_fn._saved_self)
    got = same(snippet, torch)
    assert got[-1][0] == "raised"


def test_save_on_cpu(torch):
    def snippet(lib, show):
        a = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
        b = lib.tensor([0.5, 0.6, 0.7], requires_grad=True)
        with lib.autograd.graph.save_on_cpu(pin_memory=False):
            q = (a * b).exp().tanh()
        show(q.grad_fn._saved_result, q.grad_fn._saved_result.device)
        q.sum().backward()
        show(a.grad, b.grad)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
        for p in model.parameters():
            lib.nn.init.constant_(p, 0.1)
        with lib.autograd.graph.save_on_cpu():
            loss = model(a[None] * 2).sum()
        loss.backward()
        show(loss, [p.grad for p in model.parameters()])
    same(snippet, torch)


# -- PyTorch's tutorial "Hooks for saved tensors", line for line ------------------------------------------------
def test_tutorial_hooks_for_saved_tensors(torch):
    def snippet(lib, show):
        x = lib.tensor([0.5, -1.0, 2.0, 0.25, 1.5], requires_grad=True)
        y = x.pow(2)
        print(y.equal(x.pow(2)))
        print(x.equal(y.grad_fn._saved_self))
        print(x is y.grad_fn._saved_self)
        y = x.exp()
        print(y.equal(y.grad_fn._saved_result))
        print(y is y.grad_fn._saved_result)

        def pack_hook(x):
            print("Packing", x)
            return x

        def unpack_hook(x):
            print("Unpacking", x)
            return x

        a = lib.ones(5, requires_grad=True)
        b = lib.ones(5, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = a * b
        y.sum().backward()

        x = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        y = x.pow(2)
        y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
        y.sum().backward()

        # saving to disk, as the tutorial's SelfDeletingTempFile does
        tmp_dir = tempfile.mkdtemp()

        def pack_to_disk(tensor):
            name = os.path.join(tmp_dir, str(uuid.uuid4()))
            lib.save(tensor, name)
            return name

        def unpack_from_disk(name):
            return lib.load(name, weights_only=True)

        x = lib.tensor([0.1, 0.2, 0.3, 0.4, 0.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack_to_disk, unpack_from_disk):
            y = x.pow(2).sin()
        y.sum().backward()
        print(x.grad)
        print(len(os.listdir(tmp_dir)))

        class SaveToDisk(lib.autograd.graph.saved_tensors_hooks):
            def __init__(self):
                super().__init__(pack_to_disk, unpack_from_disk)

        x.grad = None
        with SaveToDisk():
            y = (x * 3).cos()
        y.sum().backward()
        print(x.grad)
    same(snippet, torch)


@pytest.mark.bitexact
def test_mul_saved_inputs_are_checked_hooked_and_released_as_pytorch(torch):
    def run(lib):
        out = []
        a = lib.tensor(1.5, requires_grad=True)
        b = lib.tensor(2.5, requires_grad=True)
        y = a * b
        out.append([type(t).__name__ for t in y.grad_fn.next_functions[0]][:1])
        b.detach().add_(1)  # a saved input modified: backward refuses
        with pytest.raises(RuntimeError) as err:
            y.backward()
        out.append(str(err.value).split(";")[0].split("]")[1])
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.item()) or t * 2, lambda t: t):
            z = a * b
        z.backward(retain_graph=True)
        out.append((sorted(packed), a.grad.item(), b.grad.item()))
        z.backward()
        with pytest.raises(RuntimeError) as err:
            z.backward()
        out.append(str(err.value)[:40])
        w = lib.tensor(3.0, requires_grad=True)
        c = w * lib.tensor(4.0)  # only the other input is saved
        c.backward()
        out.append(w.grad.item())
        return out
    assert run(tinytorch) == run(torch)


def _after_backward(lib):
    """What each ``_saved_<name>`` of nll_loss's node reads after a backward that freed the graph: its value
    as text, or "freed" (a saved tensor is released; sizes, ints and flags stay)."""
    logp = lib.tensor([[-0.5, -1.0, -2.0], [-1.5, -0.25, -3.0]], requires_grad=True)
    loss = lib.nn.functional.nll_loss(logp, lib.tensor([0, 2]))
    node = loss.grad_fn
    loss.backward()
    out = {}
    for name in (n for n in dir(node) if n.startswith("_saved_")):
        try:
            value = getattr(node, name)
        except RuntimeError as e:
            assert "backward through the graph a second time" in str(e)
            value = "freed"
        out[name] = value if isinstance(value, (int, str)) else type(value).__name__
    return out


def test_saved_tensors_computed_on_request_are_freed_like_pytorchs(torch):
    assert _after_backward(tinytorch) == _after_backward(torch)
