"""``tinytorch.ao.quantization.quantize``: ``quantize_dynamic``, PyTorch's eager dynamic quantization: every layer
whose type (or dotted name) the spec names gets a qconfig, then each such ``nn.Linear`` / ``nn.LSTM`` is swapped
for its dynamic quantized layer (``from_float``), children first, and the qconfigs are removed again."""
from __future__ import annotations

import copy
import itertools
import warnings

from ... import _dtype
from ...nn.modules.linear import Linear as _Linear
from ...nn.modules.rnn import LSTM as _LSTM
from ..nn.quantized.dynamic.modules.linear import Linear as _DynamicLinear
from ..nn.quantized.dynamic.modules.rnn import LSTM as _DynamicLSTM
from .qconfig import default_dynamic_qconfig

__all__ = ["quantize_dynamic", "propagate_qconfig_", "get_default_dynamic_quant_module_mappings", "swap_module"]

DEPRECATION_WARNING = (
    "torch.ao.quantization is deprecated and will be removed in 2.10. \n"
    "For migrations of users: \n"
    "1. Eager mode quantization (torch.ao.quantization.quantize, torch.ao.quantization.quantize_dynamic), please "
    "migrate to use torchao eager mode quantize_ API instead \n"
    "2. FX graph mode quantization (torch.ao.quantization.quantize_fx.prepare_fx,torch.ao.quantization.quantize_fx."
    "convert_fx, please migrate to use torchao pt2e quantization API instead (prepare_pt2e, convert_pt2e) \n"
    "3. pt2e quantization has been migrated to torchao (https://github.com/pytorch/ao/tree/main/torchao/quantization/"
    "pt2e) \n"
    "see https://github.com/pytorch/ao/issues/2259 for more details")


def get_default_dynamic_quant_module_mappings() -> dict:
    """Float layer type -> its dynamic quantized layer (the ones tinytorch has kernels for)."""
    return {_Linear: _DynamicLinear, _LSTM: _DynamicLSTM}


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None) -> None:
    """Give every layer the qconfig its type or dotted name maps to (a parent's passes to its children)."""
    _propagate(module, qconfig_dict or {}, None, "")


def _propagate(module, qconfig_dict: dict, parent, prefix: str) -> None:
    qconfig = qconfig_dict.get(type(module), parent)
    qconfig = qconfig_dict.get(prefix, qconfig)
    qconfig = getattr(module, "qconfig", qconfig)
    module.qconfig = qconfig
    for name, child in module.named_children():
        _propagate(child, qconfig_dict, qconfig, f"{prefix}.{name}" if prefix else name)


def swap_module(mod, mapping: dict, custom_module_class_mapping=None, use_precomputed_fake_quant: bool = False):
    """``mod``'s quantized layer when it has a qconfig and its type is mapped; ``mod`` itself otherwise."""
    if getattr(mod, "qconfig", None) is None or type(mod) not in mapping:
        return mod
    new = mapping[type(mod)].from_float(mod, use_precomputed_fake_quant=use_precomputed_fake_quant)
    for hook in mod._forward_pre_hooks.values():
        new.register_forward_pre_hook(hook)
    for hook in mod._forward_hooks.values():
        new.register_forward_hook(hook)
    return new


def _convert(module, mapping: dict) -> None:
    swapped = {}
    for name, child in module.named_children():
        _convert(child, mapping)
        swapped[name] = swap_module(child, mapping)
    for name, new in swapped.items():
        module._modules[name] = new


def _remove_qconfig(module) -> None:
    for child in module.children():
        _remove_qconfig(child)
    if "qconfig" in vars(module):
        del module.qconfig


def quantize_dynamic(model, qconfig_spec=None, dtype=_dtype.qint8, mapping=None, inplace: bool = False):
    """A copy of ``model`` (``model`` itself with ``inplace``) whose ``nn.Linear`` and ``nn.LSTM`` layers named by
    ``qconfig_spec`` (a set of types or names, or a dict of them to qconfigs; default: every such layer) run with
    qint8 weights, quantizing their activations on the fly; the model is put in eval mode."""
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
    if dtype is not _dtype.qint8:
        raise NotImplementedError(f"tinytorch's quantize_dynamic makes qint8 layers; {dtype} is not there yet")
    if qconfig_spec is None:
        qconfig_spec = {_Linear: default_dynamic_qconfig, _LSTM: default_dynamic_qconfig}
    elif isinstance(qconfig_spec, set):
        qconfig_spec = dict(zip(qconfig_spec, itertools.repeat(default_dynamic_qconfig)))
    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    unknown = {type(m).__name__ for m in model.modules() if getattr(m, "qconfig", None) is not None
               and type(m) not in mapping and type(m).__module__.startswith("tinytorch.nn.modules.")
               and type(m).__name__ in ("GRU", "LSTMCell", "RNNCell", "GRUCell", "EmbeddingBag", "Embedding")}
    if unknown:
        raise NotImplementedError(f"tinytorch's quantize_dynamic has no quantized {', '.join(sorted(unknown))} yet "
                                  "(nn.Linear and nn.LSTM are there)")
    _convert(model, mapping)
    _remove_qconfig(model)
    return model
