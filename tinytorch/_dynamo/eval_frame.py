"""``torch._dynamo.eval_frame``: what a compiled callable does when called, and ``OptimizedModule``.

``torch.compile(fn)`` returns a function that keeps a cache of ``Entry``s, each a guard (``guards.py``) and what
to run when it holds: a captured graph (``capture.py``), replayed and handed out through one
``CompiledFunctionBackward`` node (``compiled_function.py``), or ``None``, meaning "this call had a graph break:
run the program eagerly". A call whose inputs pass no entry's guard is captured again (a recompile), until
``config.recompile_limit`` entries exist; past that the callable logs PyTorch's warning once and runs eagerly
whatever misses the cache. ``torch._dynamo.reset()`` empties every cache. A graph's plans (its forward and
backward, written out as Python) are made at the first call of each input shape (``Entry.planned``); the graph
passes they go through are listed, in order, in ``graph_passes``.

``torch.compile(module)`` returns an ``OptimizedModule``: a Module holding the original as ``_orig_mod`` (so its
``state_dict`` keys start with ``_orig_mod.``, as PyTorch's do), whose ``forward`` is the compiled
``_orig_mod.__call__`` (hooks included) and which forwards every other attribute to the original."""
from __future__ import annotations

import functools
import inspect
import logging
import threading
import weakref

from ..nn.modules.module import Module, _register_compile
from ..tensor import Tensor
from ..utils import _pytree as pytree
from . import backends, capture as _capture, config, exc
from .. import _logging, _meta
from .._inductor import config as _inductor_config
from .._functorch.aot_autograd import joint_graph, partition
from .compiled_function import AOTPlans, hide_graph, run_planned
from .split_gradients import fill_slots
from .pointwise import fuse_pointwise
from .lowering import keep_cross_entropy, keep_forward_state, skip_renames
from .replay import Plan
from .step_plan import FusedSgd
from .guards import Guard

__all__ = ["OptimizedModule", "compile", "compile_callable", "disable", "reset_caches"]

log = logging.getLogger("tinytorch._dynamo.convert_frame")
_RECOMPILES = _logging.getArtifactLogger("tinytorch._dynamo.guards", "recompiles")
_FRAMES: "weakref.WeakSet" = weakref.WeakSet()   # every live cache, for reset()
_frame_ids = [0]


class _Local(threading.local):
    disabled = 0  # inside a torch.compiler.disable'd call: compiled callables run eagerly


_LOCAL = _Local()


class Entry:
    def __init__(self, guard: Guard, program):
        self.guard, self.program = guard, program
        self.plans: dict = {}  # the input and state shapes -> AOTPlans (None: no joint graph, replay stage 1)
        self.compiled = None   # what a callable backend returned for the graph (run at each replay)
        self.last = None       # the plans made last
        self.sgd = False       # a training step's fused SGD (step_plan.FusedSgd), None where it has none

    def planned(self, tensors: list, state: list):
        """The forward and backward plans for these inputs' shapes, made at the first call that meets them."""
        if self.guard.fixed_shapes and self.plans:  # the guard held every shape the plans depend on: one plan
            return self.last
        key = tuple(t.shape for t in tensors) + tuple(t.shape for t in state)
        try:
            return self.plans[key]
        except KeyError:
            pass
        try:
            plans = _make_plans(self.program, tensors, state)
        except Exception as e:  # noqa: BLE001 - an op the joint trace cannot record (a backward computed on
            # arrays only, an index with no ATen form): stage 1's replay through autograd gives the same results
            log.debug("torch.compile replays this graph through autograd: %s: %s", type(e).__name__, e)
            plans = None
        self.plans[key] = self.last = plans
        return plans


def _make_plans(program, tensors: list, state: list) -> AOTPlans:
    """The forward and backward plans of a captured graph at these inputs: its joint graph (the forward and its
    backward, traced on fake tensors: ``_functorch/aot_autograd.py``), put through ``graph_passes``, cut in two
    (``partition``), each half written out as one Python function (``replay.Plan``)."""
    was_on = _meta._installed[0]
    try:
        gm, need, out_grad = joint_graph(program.gm.graph, tensors, program.constants, state)
    finally:
        if not was_on:
            # the trace's fake tensors turned every op's meta check on; no meta tensor of the program's is left,
            # so the ops go back to skipping it (eager calls after a compile cost what they cost before)
            _meta.uninstall()
    n_primals = len(tensors) + len(state)
    graph_passes(gm, n_primals)
    part = partition(gm, n_primals, len(out_grad))
    forward = Plan("forward", part.primals, part.forward, part.fw_outputs + part.saved, attrs=gm)
    backward = Plan("backward", part.saved + part.tangents, part.backward, part.bw_outputs, attrs=gm)
    plans = AOTPlans(forward, backward, need, out_grad, len(out_grad), n_primals)
    plans.partition = (part, gm)  # (for a training step's backward planned again with its update: step_plan.py)
    return plans


def graph_passes(gm, n_primals: int) -> None:
    """torch.compile's graph passes, in order: what the joint graph goes through before it is cut into plans.
    Each checks or rewrites ``gm.graph`` in place; a check that raises leaves the call to stage 1 (the graph
    replayed through autograd, ``Entry.planned``)."""
    graph = gm.graph
    refuse_fake_constants(gm)         # a tensor the fake trace made below the ops: plans would compute on no data
    keep_forward_state(graph)         # lowering.py: a backward reuses what its forward's node kept (gelu, pooling)
    refuse_unpaired_flash(graph)      # flash attention's operators left without their pair
    skip_renames(graph)               # lowering.py: detach(x) and t(t(x)) are x once autograd is off
    keep_cross_entropy(graph)         # lowering.py: eager's fused loss and its nodes (once the renames are gone)
    fill_slots(graph)                 # split_gradients.py: a sum of zero-padded slice gradients as one node
    fuse_pointwise(graph, n_primals)  # pointwise.py: each run of pointwise nodes as one generated function


def refuse_fake_constants(gm) -> None:
    """Refuse a joint graph that holds a tensor the fake trace made below the recorded ops (a fake constant)."""
    for node in gm.graph.nodes:
        held = [getattr(gm, node.target, None)] if node.op == "get_attr" else [*node.args, *node.kwargs.values()]
        if any(isinstance(t, Tensor) and t._meta for t in pytree.tree_leaves(held)):
            # a tensor the fake trace made below the recorded ops: the plans would compute on no data
            raise NotImplementedError(f"the joint graph holds a fake constant ({node.name})")


_FLASH = ("aten._scaled_dot_product_flash_attention_for_cpu.default",
          "aten._scaled_dot_product_flash_attention_for_cpu_backward.default")


def refuse_unpaired_flash(graph) -> None:
    """Refuse the flash attention operators ``keep_forward_state`` left without their pair: their replay would
    depend on the data taking the flash path."""
    for node in graph.nodes:
        if node.op == "call_function" and str(node.target) in _FLASH:
            raise NotImplementedError(f"{node.target} left unpaired in the joint graph")


class Frame:
    """The cache of one compiled callable (PyTorch keeps one per code object; here, one per compile call)."""

    def __init__(self, fn, module: Module | None, fullgraph: bool, dynamic, backend="inductor"):
        self.fn, self.module, self.fullgraph, self.dynamic = fn, module, fullgraph, dynamic
        self.backend = backends.lookup(backend)  # a callable is shown each graph captured (see _capture)
        # "eager" and a callable backend run the graph as it is, every op recording its own autograd node, as
        # PyTorch's do; the others (inductor, aot_eager...) hand the results out through one compiled node
        self.aot = not (callable(self.backend) or self.backend in backends.EAGER)
        self.entries: list = []
        self.id = None              # PyTorch's frame number in its logs, given at the first capture
        self.auto_dynamic = False   # a recompile caused by sizes: capture the next graph as dynamic
        self.gave_up = False
        self.names = None
        self.limit = None  # torch.compile(recompile_limit=...): this callable's own limit
        self.plain_specs: dict = {}  # the input structure of a call of n plain tensors, by n (see _flatten)
        _FRAMES.add(self)

    def __call__(self, *args, **kwargs):
        if _LOCAL.disabled or _capture.CAPTURING.capture is not None:
            return self.fn(*args, **kwargs)  # a disabled region, or inside another capture: inlined there
        leaves, spec = self._flatten(args, kwargs)
        reason = None
        failed = []
        for entry in self.entries:
            reason = entry.guard.check(leaves, spec)
            if reason is None:
                return self._run(entry, leaves, args, kwargs)
            failed.append(reason)
        if len(self.entries) >= (self.limit or config.limit()):
            if not self.gave_up:
                self.gave_up = True
                self._warn_limit(reason)
            return self.fn(*args, **kwargs)
        if reason is not None and ("size mismatch" in reason) and self.dynamic is None:
            self.auto_dynamic = True
        if failed and (config.error_on_recompile or _logging.enabled("recompiles")):
            name, where = self._code()
            text = (f"Recompiling function {name} in {where}\n    triggered by the following guard failure(s):\n"
                    + "\n".join(f"    - {self.id}/{k}: {r}" for k, r in reversed(list(enumerate(failed)))))
            if config.error_on_recompile:
                raise exc.RecompileError(text)
            _RECOMPILES.warning("%s", text)
        return self._capture(args, kwargs, leaves, spec)

    def _flatten(self, args: tuple, kwargs: dict):
        """``tree_flatten((args, kwargs))``; a call of plain tensors only (a model's usual call) skips the walk: its
        leaves are the arguments, its structure the one kept for that count (the same object at every call, so
        the guard's comparison of structures is an identity)."""
        if not kwargs and all(type(a) is Tensor for a in args):
            spec = self.plain_specs.get(len(args))
            if spec is None:
                spec = self.plain_specs[len(args)] = pytree.tree_flatten((args, kwargs))[1]
            return list(args), spec
        return pytree.tree_flatten((args, kwargs))

    def _capture(self, args, kwargs, leaves, spec):
        if self.id is None:
            self.id = _frame_ids[0]
            _frame_ids[0] += 1
        out, program, _ = _capture.capture(self.fn, args, kwargs, self.module, self.fullgraph)
        dynamic = self.dynamic is True or (self.dynamic is None and self.auto_dynamic)
        dynamic = dynamic and program is not None and not program.sizes_read
        names = _capture.input_names(self.module.forward if self.module is not None else self.fn, args, kwargs)
        guard = Guard(names, leaves, spec, self.module, program.used_paths if program else [],
                      program.free if program else {}, dynamic, program.roots if program else (),
                      program.rooted if program else None, program.python_reads if program else None)
        self.entries.append(Entry(guard, program))
        if program is None:
            return out
        tensors = [t for t in leaves if isinstance(t, Tensor)]
        if callable(self.backend):
            # PyTorch hands a backend each graph and its example inputs, and runs what it returns at each call;
            # here the first call was the capture's eager run, the later ones run what the backend returned
            self.entries[-1].compiled = self.backend(program.gm, tensors)
        if not self.aot:
            return out
        flat, out_spec = pytree.tree_flatten(out)
        hidden = iter(hide_graph([t for t in flat if isinstance(t, Tensor)], tensors + program.state(self.module)))
        return pytree.tree_unflatten([next(hidden) if isinstance(t, Tensor) else t for t in flat], out_spec)

    def _run(self, entry: Entry, leaves, args, kwargs):
        program = entry.program
        if program is None:
            return self.fn(*args, **kwargs)
        if program.step is not None:  # a training step: its calls below the ops around the graph (train_step.py)
            before, after, n_out = program.step
            for call in before:
                call.run(leaves, None)
            flat = self._outputs(entry, leaves)
            if entry.sgd is False:
                entry.sgd = FusedSgd.make(program) if self.aot and entry.compiled is None else None
            if entry.sgd is None or not entry.sgd.run(leaves, flat):
                for call in after:
                    call.run(leaves, flat)
            return program.assemble(flat[:n_out])
        return program.assemble(self._outputs(entry, leaves))

    def _outputs(self, entry: Entry, leaves) -> list:
        """The graph's output tensors for this call: from a callable backend's result, the graph run op by op
        (``backend="eager"``), the plans, or (no plans could be made) the graph run through autograd and handed
        out through one compiled node."""
        program = entry.program
        tensors = [t for t in leaves if isinstance(t, Tensor)]
        guard = entry.guard
        state = program.state(self.module, guard.found if self.module is not None else None, guard.found_rooted)
        if entry.compiled is not None:
            program.rebind(state)  # the graph's get_attr reads the tensors the guard just found
            out = entry.compiled(*tensors)
            return list(out) if isinstance(out, (tuple, list)) else [out]
        if not self.aot:
            return program.outputs(self.module, tensors, guard.found_rooted)
        plans = entry.planned(tensors, state)
        if plans is not None:
            return run_planned(plans, tensors + state)
        return hide_graph(program.outputs(self.module, tensors, guard.found_rooted), tensors + state)

    def _code(self):
        """The compiled code's name and ``file:line`` (the module's forward for a module), as PyTorch's logs
        name a frame; ``(None, repr)`` where there is no code object."""
        fn = inspect.unwrap(self.fn)
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is None and self.module is not None:
            code = type(self.module).forward.__code__
        if code is None:
            return None, repr(fn)
        return code.co_name, f"{code.co_filename}:{code.co_firstlineno}"

    def _warn_limit(self, reason) -> None:
        name, place = self._code()
        where = f"'{name}' ({place})" if name is not None else place
        log.warning("torch._dynamo hit config.recompile_limit (%s)\n   function: %s\n   last reason: %s/%s: %s\n"
                    "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n"
                    "To diagnose recompilation issues, see https://docs.pytorch.org/docs/main/user_guide/"
                    "torch_compiler/compile/programming_model.recompilation.html",
                    self.limit or config.limit(), where, self.id, len(self.entries) - 1, reason)

    def reset(self) -> None:
        self.entries.clear()
        self.id, self.auto_dynamic, self.gave_up = None, False, False


def reset_caches() -> None:
    """Forget every captured graph (``torch._dynamo.reset()``): the next call of each compiled callable
    captures again."""
    for frame in list(_FRAMES):
        frame.reset()
    _frame_ids[0] = 0


def compile_callable(fn, *, fullgraph: bool = False, dynamic=None, module: Module | None = None,
                     backend="inductor", recompile_limit=None):
    """The compiled form of a function (or of a module's ``__call__``, with the module whose state it reads)."""
    frame = Frame(fn, module, fullgraph, dynamic, backend)
    frame.limit = recompile_limit

    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return frame(*args, **kwargs)
    compiled._torchdynamo_orig_callable = fn
    compiled._tinytorch_frame = frame
    return compiled


def disable(fn=None, recursive: bool = True, *, reason=None, wrapping: bool = True):
    """``fn`` (or, called without it, a decorator) run eagerly even inside a compiled call: a compiled program
    that calls it breaks the graph there (and in stage 1 runs eagerly), and compiled callables it calls run
    eagerly too."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason, wrapping=wrapping)
    if isinstance(fn, OptimizedModule):
        return fn._orig_mod
    if isinstance(fn, Module):
        fn.forward = disable(fn.forward, recursive, reason=reason)
        return fn

    orig = getattr(fn, "_torchdynamo_orig_callable", fn)

    @functools.wraps(orig)
    def disabled(*args, **kwargs):
        cap = _capture.CAPTURING.capture
        if cap is not None:
            name = getattr(orig, "__qualname__", repr(orig))
            cap.graph_break(f"Skip calling `torch.compiler.disable()`d function {name}", "disable")
        _LOCAL.disabled += 1
        try:
            return orig(*args, **kwargs)
        finally:
            _LOCAL.disabled -= 1
    disabled._torchdynamo_disable = True
    return disabled


class OptimizedModule(Module):
    """A module compiled by ``torch.compile``: ``_orig_mod`` is the module, its forward the compiled call."""

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "get_compiler_config",
                           "forward", "_forward", "__dict__", "named_children_walk", "_super_module_initialized"}

    def __init__(self, mod: Module, dynamo_ctx=None) -> None:
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx
        options = dynamo_ctx or {}
        self.forward = compile_callable(mod.__call__, fullgraph=options.get("fullgraph", False),
                                        dynamic=options.get("dynamic"), module=mod,
                                        backend=options.get("backend", "inductor"),
                                        recompile_limit=options.get("recompile_limit"))

    @property
    def training(self) -> bool:
        return self._orig_mod.training if "_orig_mod" in self.__dict__.get("_modules", {}) else True

    @training.setter
    def training(self, value: bool) -> None:
        # Module.__init__ sets the default before _orig_mod exists; after, the flag is the original's
        if "_orig_mod" in self.__dict__.get("_modules", {}):
            self._orig_mod.training = value

    def __len__(self) -> int:
        if hasattr(self._orig_mod, "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __getattr__(self, name: str):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name: str, value) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            super().__delattr__(name)
        else:
            delattr(self._orig_mod, name)

    def __dir__(self) -> list:
        mine = self._orig_mod.__dir__()
        return mine + [a for a in super().__dir__() if a not in mine]

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("forward", None)
        return state

    def __setstate__(self, state):
        self.__dict__ = state


_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")  # PyTorch's, in its order


def _check_options(options: dict) -> None:
    """Refuse an ``options=`` key that is no inductor setting (a misspelling would otherwise change nothing
    silently), as PyTorch's inductor backend does when ``torch.compile`` is called. The known names are
    ``torch._inductor.config``'s, a section's as ``triton.cudagraphs``."""
    section = type(_inductor_config.triton)
    known = []
    for name, value in _inductor_config.get_config_copy().items():
        grouped = isinstance(getattr(_inductor_config, name), section)
        known += [f"{name}.{k}" for k in value] if grouped else [name]
    for key in options:
        if key not in known:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {known}")


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend=None, mode=None,  # noqa: A001
            options=None, name=None, disable: bool = False, recompile_limit=None, isolate_recompiles: bool = False,
            shapes_spec=None):
    """``torch.compile``: a Module becomes an ``OptimizedModule``, a function a compiled function, which capture
    the program as a graph at their first call and replay it (``tinytorch/_dynamo``). Used as
    ``@tinytorch.compile`` or ``@tinytorch.compile(mode=...)`` it decorates too; ``disable=True`` returns
    ``model`` itself. ``backend=None``: the default backend (``torch.compiler.set_default_backend``);
    ``recompile_limit``: this callable's own limit (``config.recompile_limit`` otherwise); ``name`` and
    ``isolate_recompiles`` change nothing here (each compiled callable keeps its own cache)."""
    if model is None:
        def decorate(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return decorate
    if shapes_spec is not None:
        raise NotImplementedError("tinytorch's torch.compile takes no shapes_spec: its graphs have no symbolic "
                                  "sizes (dynamic=True captures a graph for any sizes that read none)")
    backend = backends.default() if backend is None else backend
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")
    backends.lookup(backend)  # an unknown name: PyTorch's InvalidBackend, at once
    if options and backend == "inductor":
        _check_options(options)
    if disable:
        return model
    if isinstance(model, Module):
        if isinstance(model, OptimizedModule):
            model = model._orig_mod
        return OptimizedModule(model, {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend,
                                       "mode": mode, "options": options, "recompile_limit": recompile_limit})
    # Module.compile's bound _call_impl: the module's state is read as an OptimizedModule's is. PyTorch's dynamo
    # skips frames of its own library code, so a module whose forward is torch.nn's (Linear, Sequential, ...)
    # captures nothing that way and runs eagerly, where torch.compile(module) captures it
    owner = getattr(model, "__self__", None) if getattr(model, "__func__", None) is Module._call_impl else None
    if owner is not None and getattr(type(owner).forward, "__module__", "").startswith("tinytorch."):
        return model
    return compile_callable(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, module=owner,
                            recompile_limit=recompile_limit)


_register_compile(compile)  # Module.compile() calls it
