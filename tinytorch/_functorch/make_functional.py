"""functorch's ``make_functional`` era, as PyTorch keeps it in ``torch._functorch.make_functional``: a module
turned into a function of its parameters (``func(params, x)``), and an ensemble's states stacked for
``vmap`` (``combine_state_for_ensemble``). ``torch.func.functional_call`` and ``stack_module_state``
replaced them; old tutorials and papers' code still call them."""
from __future__ import annotations

import copy

from .. import nn
from .._ops.shape.join import stack
from .._ops.creation.factory import empty_like
from ..func._functional_call import _resolve

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "make_functional", "make_functional_with_buffers",
           "combine_state_for_ensemble", "extract_weights", "extract_buffers", "load_weights"]


def _extract_members(mod, named, subclass):
    """Remove every member ``named()`` lists from ``mod``, putting an empty meta placeholder of its shape where
    each was (one per tensor, tied names sharing it): (tensors, names, {name: every name tied to it})."""
    all_named = tuple(named(remove_duplicate=False))
    unique_named = tuple(named(remove_duplicate=True))
    by_id = {id(t): (name, []) for name, t in unique_named}
    for name, t in all_named:
        by_id[id(t)][1].append(name)
    names_map = dict(by_id.values())
    memo = {}
    for name, t in all_named:
        if id(t) not in memo:
            memo[id(t)] = subclass(empty_like(t, device="meta"))
        _set(mod, name, memo[id(t)])
    if not unique_named:
        return (), (), names_map
    names, tensors = zip(*unique_named)
    return tensors, names, names_map


def extract_weights(mod):
    """Take the parameters out of ``mod`` (left as meta placeholders): (params, names, {name: tied names})."""
    return _extract_members(mod, mod.named_parameters, nn.Parameter)


def extract_buffers(mod):
    return _extract_members(mod, mod.named_buffers, lambda x: x)


def _set(mod, name: str, value) -> None:
    owner, attr = _resolve(mod, name)
    for table in ("_parameters", "_buffers"):
        store = owner.__dict__.get(table)
        if store is not None and attr in store:
            store[attr] = value
            return
    owner.__dict__[attr] = value


def _get(mod, name: str):
    owner, attr = _resolve(mod, name)
    for table in ("_parameters", "_buffers"):
        store = owner.__dict__.get(table)
        if store is not None and attr in store:
            return store[attr]
    return getattr(owner, attr)


def load_weights(mod, names, params, as_params: bool = False) -> None:
    """Put ``params`` back into ``mod`` under ``names`` (as plain tensors unless ``as_params``)."""
    for name, p in zip(names, params):
        _set(mod, name, nn.Parameter(p) if as_params else p)


def _swap_state(mod, names_map: dict, elems) -> list:
    result = []
    for (_, attr_names), elem in zip(names_map.items(), elems):
        for i, attr_name in enumerate(attr_names):
            if i == 0:
                result.append(_get(mod, attr_name))
            _set(mod, attr_name, elem)
    return result


class FunctionalModule(nn.Module):
    """What ``make_functional`` returns: ``func(params, *args)`` runs the model with ``params``."""

    def __init__(self, stateless_model, param_names, names_map) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    @staticmethod
    def _create_from(model, disable_autograd_tracking: bool = False):
        model_copy = copy.deepcopy(model)
        params, param_names, names_map = extract_weights(model_copy)
        if disable_autograd_tracking:
            for param in params:
                param.requires_grad_(False)
        return FunctionalModule(model_copy, param_names, names_map), params

    def forward(self, params, *args, **kwargs):
        old_state = _swap_state(self.stateless_model, self.names_map, params)
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.names_map, old_state)


class FunctionalModuleWithBuffers(nn.Module):
    """What ``make_functional_with_buffers`` returns: ``func(params, buffers, *args)``."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map, buffer_names_map) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = dict(param_names_map)
        self.all_names_map.update(buffer_names_map)

    @staticmethod
    def _create_from(model, disable_autograd_tracking: bool = False):
        model_copy = copy.deepcopy(model)
        params, param_names, param_names_map = extract_weights(model_copy)
        buffers, buffer_names, buffer_names_map = extract_buffers(model_copy)
        if disable_autograd_tracking:
            for param in params:
                param.requires_grad_(False)
        return (FunctionalModuleWithBuffers(model_copy, param_names, buffer_names, param_names_map,
                                            buffer_names_map), params, buffers)

    def forward(self, params, buffers, *args, **kwargs):
        old_state = _swap_state(self.stateless_model, self.all_names_map, tuple(params) + tuple(buffers))
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.all_names_map, old_state)


def make_functional(model, disable_autograd_tracking: bool = False):
    """(func, params): ``func(params, x)`` is ``model(x)`` with ``params`` as its parameters."""
    if len(list(model.buffers())) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    return FunctionalModule._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking: bool = False):
    """(func, params, buffers): ``func(params, buffers, x)`` is ``model(x)`` with that state."""
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """(func, params, buffers) for an ensemble of same-class models: each parameter and buffer stacked
    along a new first dimension, ``func`` the functional version of the first model (``vmap`` it)."""
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    model0_typ = type(models[0])
    if not all(type(m) is model0_typ for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    funcs, params, buffers = zip(*[make_functional_with_buffers(model) for model in models])
    return funcs[0], _transpose_stack(params), _transpose_stack(buffers)


def _transpose_stack(per_model) -> tuple:
    """The i-th tensors of every model stacked, detached: one tensor per name."""
    return tuple(stack(shards).detach() for shards in zip(*per_model))
