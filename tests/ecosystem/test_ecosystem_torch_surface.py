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
