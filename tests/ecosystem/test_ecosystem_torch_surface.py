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
