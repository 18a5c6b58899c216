"""Names the libraries PyTorch users install reach at import and in their quickstarts (transformers, timm,
accelerate, diffusers): ``torch.utils.hooks``, ``torch.hub``, ``torch.__config__``, serialization's constants,
compared with PyTorch where it is installed."""
from __future__ import annotations

import collections
import pickle
import warnings

import pytest

import tinytorch


def test_utils_hooks_handle(torch):
    # accelerate keeps its own OrderedDict tables and removes through torch.utils.hooks.RemovableHandle
    from tinytorch.utils import hooks

    assert set(torch.utils.hooks.__all__) <= set(dir(hooks))
    for mod in (hooks, torch.utils.hooks):
        table, flags = collections.OrderedDict(), collections.OrderedDict()
        handle = mod.RemovableHandle(table, extra_dict=flags)
        table[handle.id], flags[handle.id] = "hook", True
        back = pickle.loads(pickle.dumps((table, handle)))[1]  # pickled with the tables it removes from
        with handle:
            pass
        assert table == {} and flags == {} and isinstance(back, mod.RemovableHandle)
    m = tinytorch.nn.Linear(2, 2)
    handle = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    assert isinstance(handle, hooks.RemovableHandle)
    handle.remove()
    assert not m._forward_hooks and not m._forward_hooks_with_kwargs and not m._forward_hooks_always_called
    t = tinytorch.ones(2, requires_grad=True)
    t.register_hook(hooks.unserializable_hook(lambda g: g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hooks.warn_if_has_hooks(t)
    t.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="on tensor will not be serialized"):
        hooks.warn_if_has_hooks(t)


def test_hub_names_and_cached_checkpoints(torch, tmp_path, monkeypatch):
    # timm: ``from torch.hub import HASH_REGEX, download_url_to_file, urlparse``; a checkpoint already in the hub
    # cache loads without any network, as in PyTorch
    import zipfile

    hub = tinytorch.hub
    assert set(torch.hub.__all__) <= set(dir(hub))
    for name in ("HASH_REGEX", "ENV_TORCH_HOME", "ENV_XDG_CACHE_HOME", "DEFAULT_CACHE_DIR", "VAR_DEPENDENCY",
                 "MODULE_HUBCONF", "READ_DATA_CHUNK"):
        assert getattr(hub, name) == getattr(torch.hub, name), name
    assert hub.urlparse is torch.hub.urlparse and hub.HASH_REGEX.search("resnet18-f37072fd.pth").group(1) == "f37072fd"
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "home" / "hub")
    sd = {"w": torch.arange(6.).reshape(2, 3), "b": torch.tensor([1, 2])}
    folder = tmp_path / "home" / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save(sd, folder / "net-0123abcd.pth")
    with zipfile.ZipFile(folder / "old-89ab.zip", "w") as zf:  # a hand-zipped legacy checkpoint
        zf.write(folder / "net-0123abcd.pth", "old.pth")
    for url in ("https://example.invalid/models/net-0123abcd.pth", "https://example.invalid/old-89ab.zip"):
        for mod in (tinytorch, torch):
            out = mod.hub.load_state_dict_from_url(url, progress=False, weights_only=True)
            assert out["w"].tolist() == sd["w"].tolist() and out["b"].tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="could not download https://example.invalid/none.pth .* place the file at "
                                           + str(folder / "none.pth")):
        hub.load_state_dict_from_url("https://example.invalid/none.pth", progress=False)
    assert not (folder / "none.pth").exists()
    with pytest.raises(RuntimeError, match="does not fetch hub repositories"):
        hub.load("pytorch/vision", "resnet18")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "hubconf.py").write_text("dependencies = ['numpy']\n"
                                                  "def tiny(n=2):\n    import torch\n    return torch.nn.Linear(n, 1)\n")
    m = hub.load(str(tmp_path / "repo"), "tiny", 3, source="local")
    assert m.weight.shape == (1, 3)
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(str(tmp_path / "repo"), "nope", source="local")


def test_config_show_and_parallel_info(torch):
    # PyG and environment dumps call these; launchers parse the "Build settings" line's KEY=VALUE pairs
    for mod in (tinytorch, torch):
        text = mod.__config__.show()
        settings = dict(kv.split("=", 1) for kv in text.split("Build settings: ")[1].strip().rstrip(",").split(", "))
        assert settings["USE_CUDA"] == "0" and settings["TORCH_VERSION"] == "2.13.0"
        assert "CPU capability usage:" in text and isinstance(mod.__config__._cxx_flags(), str)
        assert f"get_num_threads() : {mod.get_num_threads()}" in mod.__config__.parallel_info()
    assert "numpy" in tinytorch.__config__.show() and tinytorch.backends.cpu.kernels()["blas"] in tinytorch.__config__.show()


def test_serialization_constants(torch):
    for name in ("DEFAULT_PROTOCOL", "LONG_SIZE", "INT_SIZE", "SHORT_SIZE", "MAGIC_NUMBER", "PROTOCOL_VERSION",
                 "STORAGE_KEY_SEPARATOR", "MAP_SHARED", "MAP_PRIVATE"):
        assert getattr(tinytorch.serialization, name) == getattr(torch.serialization, name), name
    for name in ("MAP_LOCATION", "STORAGE", "FILE_LIKE"):
        assert hasattr(tinytorch.serialization, name)


def test_random_factories_take_layout_and_pin_memory(torch):
    # diffusers' randn_tensor passes layout= to torch.randn
    for mod in (tinytorch, torch):
        mod.manual_seed(0)
        got = [mod.randn(3, layout=mod.strided, pin_memory=False).tolist(), mod.rand(2, layout=mod.strided).tolist(),
               mod.randint(0, 5, (3,), layout=mod.strided).tolist(), mod.randperm(4, layout=mod.strided).tolist()]
        if mod is tinytorch:
            ours = got
    assert ours == got
    with pytest.raises(NotImplementedError):
        tinytorch.randn(2, layout=tinytorch.sparse_coo)


def test_view_dtype_and_storage_from_file(torch, tmp_path):
    # what safetensors' loader does with a checkpoint: the file's bytes as an UntypedStorage, each tensor's byte
    # range sliced out of it, then viewed as its dtype
    path = tmp_path / "bytes.bin"
    path.write_bytes(bytes(range(24)))
    res = []
    for mod in (tinytorch, torch):
        s = mod.UntypedStorage.from_file(str(path), shared=False, nbytes=16)
        part = s[4:12]
        u8 = mod.asarray(part, dtype=mod.uint8)
        a = mod.arange(6.).requires_grad_()
        v = a.view(dtype=mod.int32)
        res.append((s.nbytes(), type(part).__name__, part.untyped() is part, u8.tolist(), u8.view(mod.int16).tolist(),
                    u8.view(dtype=mod.float32).tolist(), u8.view(mod.bfloat16).view(mod.int16).tolist(), v.tolist(),
                    v.requires_grad, v.grad_fn, a.view(mod.float32).requires_grad))
        for bad in (lambda: mod.zeros(2, 3)[:, ::2].view(mod.float16), lambda: mod.zeros(3, dtype=mod.uint8).view(mod.int16),
                    lambda: mod.tensor(1.).view(mod.float16),
                    lambda: mod.UntypedStorage.from_file(str(path), shared=False, nbytes=99)):
            with pytest.raises(RuntimeError) as err:
                bad()
            res.append(str(err.value).replace(str(path), "FILE"))
    assert res[0] == res[len(res) // 2] and res[1:len(res) // 2] == res[len(res) // 2 + 1:]
    shared = tinytorch.UntypedStorage.from_file(str(path), shared=True, nbytes=8)
    tinytorch.asarray(shared, dtype=tinytorch.uint8)[0] = 200  # a shared mapping writes through to the file
    del shared
    assert path.read_bytes()[0] == 200


def test_safetensors_save_file_load_file_round_trip(tmp_path):
    # safetensors.torch, unchanged, under install_as_torch: its default loader maps the file through
    # UntypedStorage.from_file
    from _ecosystem import run_on_tinytorch

    out = run_on_tinytorch(f"""
        from safetensors.torch import load, load_file, save, save_file
        from safetensors import safe_open
        t = {{"w": torch.arange(6.).reshape(2, 3), "i": torch.tensor([1, -2, 3], dtype=torch.int16),
              "h": torch.tensor([0.5, -1.5], dtype=torch.bfloat16), "e": torch.zeros(0, 4)}}
        save_file(t, {str(tmp_path / "m.safetensors")!r}, metadata={{"format": "pt"}})
        back = load_file({str(tmp_path / "m.safetensors")!r})
        with safe_open({str(tmp_path / "m.safetensors")!r}, framework="pt") as f:
            meta, part = f.metadata(), f.get_slice("w")[:, 1:].tolist()
        again = load(save(t))
        print(json.dumps({{"keys": sorted(back), "same": all(bool((back[k] == t[k]).all()) and back[k].dtype == t[k].dtype
                                                             and back[k].shape == t[k].shape for k in t),
                          "again": all(bool((again[k] == t[k]).all()) for k in t), "meta": meta, "part": part}}))
    """, ("safetensors",))
    assert out == {"keys": ["e", "h", "i", "w"], "same": True, "again": True, "meta": {"format": "pt"},
                   "part": [[1.0, 2.0], [4.0, 5.0]]}


def test_pytree_container_functions_and_keys(torch):
    # diffusers and transformers register their output classes with the dict's functions (and their keys)
    ours, theirs = tinytorch.utils._pytree, torch.utils._pytree
    d = {"b": 1, "a": [2, 3]}
    for name in ("_dict_flatten", "_list_flatten", "_tuple_flatten"):
        arg = d if "dict" in name else [1, 2] if "list" in name else (1, 2)
        assert getattr(ours, name)(arg) == getattr(theirs, name)(arg)
        with_keys = [(str(k), v) for k, v in getattr(ours, name + "_with_keys")(arg)[0]]
        assert with_keys == [(str(k), v) for k, v in getattr(theirs, name + "_with_keys")(arg)[0]]
    assert ours._dict_unflatten([1, 2], ["x", "y"]) == theirs._dict_unflatten([1, 2], ["x", "y"])
    assert ours.MappingKey("k").get({"k": 5}) == 5 and str(ours.GetAttrKey("w")) == str(theirs.GetAttrKey("w"))


def test_attention_backends_and_flex_attention_module(torch):
    ta, pa = tinytorch.nn.attention, torch.nn.attention
    assert {k: int(v) for k, v in ta.SDPBackend.__members__.items()} == \
        {k: int(v) for k, v in pa.SDPBackend.__members__.items()}
    assert str(ta.SDPBackend.MATH) == str(pa.SDPBackend.MATH)
    q = tinytorch.randn(1, 2, 3, 4)
    with ta.sdpa_kernel([ta.SDPBackend.MATH, ta.SDPBackend.FLASH_ATTENTION]):
        assert tinytorch.nn.functional.scaled_dot_product_attention(q, q, q).shape == (1, 2, 3, 4)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with ta.sdpa_kernel(["MATH"]):
            pass
    from tinytorch.nn.attention import flex_attention as tf
    from torch.nn.attention import flex_attention as pf

    assert set(pf.__all__) <= set(dir(tf)) and tf._DEFAULT_SPARSE_BLOCK_SIZE == pf._DEFAULT_SPARSE_BLOCK_SIZE

    def causal(b, h, q, kv):
        return q >= kv

    def window(b, h, q, kv):
        return q - kv < 3

    for combine in ("and_masks", "or_masks"):
        ours = tf.create_mask(getattr(tf, combine)(causal, window), 2, 1, 5, 6)
        theirs = pf.create_mask(getattr(pf, combine)(causal, window), 2, 1, 5, 6, device="cpu")
        assert ours.tolist() == theirs.tolist()
    assert tf.create_mask(tf.noop_mask, 1, 2, 3, 4).tolist() == pf.create_mask(pf.noop_mask, 1, 2, 3, 4, "cpu").tolist()
    assert tf.AuxRequest(lse=True) == (True, False)
    for refused in (lambda: tf.flex_attention(q, q, q), lambda: tf.create_block_mask(causal, 1, 1, 4, 4),
                    lambda: tf.BlockMask()):
        with pytest.raises(NotImplementedError, match="flex attention is a kernel torch.compile generates"):
            refused()


def test_sharding_streams_and_cuda_names_refuse_as_a_cpu_build(torch):
    from tinytorch.distributed.device_mesh import DeviceMesh, init_device_mesh
    from tinytorch.distributed.tensor import DTensor, Shard, distribute_tensor

    assert not isinstance(tinytorch.nn.Parameter(tinytorch.ones(2)), DTensor) and issubclass(DTensor, tinytorch.Tensor)
    for refused in (lambda: DTensor(), lambda: Shard(0), lambda: distribute_tensor(tinytorch.ones(2), None),
                    lambda: DeviceMesh("cpu", [0]), lambda: init_device_mesh("cpu", (1,))):
        with pytest.raises(NotImplementedError, match="tinytorch has no"):
            refused()
    assert tinytorch.distributed.device_mesh.DeviceMesh is DeviceMesh
    for mod in (tinytorch, torch):
        s, e = mod.Stream(), mod.Event()
        assert (repr(s), s.query(), s.synchronize(), e.query(), str(s.device)) == \
            ("torch.Stream device_type=cpu, device_index=-1, stream_id=0", True, None, True, "cpu")
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events."):
            s.record_event()
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events."):
            e.record()
        for call, message in ((lambda: mod.cuda.Stream(), "torch.cuda.Stream requires CUDA support"),
                              (lambda: mod.cuda.Event(), "Tried to instantiate dummy base class Event"),
                              (lambda: mod.cuda.CUDAGraph(), "Tried to instantiate dummy base class CUDAGraph")):
            with pytest.raises(RuntimeError, match=message):
                call()
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            mod.cuda.get_device_capability()
        with mod.cuda.stream(None):
            pass
        assert (mod.cuda.memory_allocated(), mod.cuda.max_memory_allocated(), mod.cuda.memory_reserved(),
                mod.cuda.is_bf16_supported(), tuple(mod.cuda.default_generators)) == (0, 0, 0, False, ())
    with pytest.raises(NotImplementedError, match="no torch-function modes"):
        with tinytorch.overrides.TorchFunctionMode():
            pass
    assert not isinstance(tinytorch.nn.Linear(1, 1), tinytorch._dynamo.eval_frame.OptimizedModule)
