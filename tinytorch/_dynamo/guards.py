"""Guards: when a captured graph may be replayed for a new call.

A graph is the record of one call. It is valid for another call when everything it took as fixed still holds;
PyTorch checks these facts before each replay, and so does ``Guard.check``:

  - the inputs' structure, and for each input tensor its rank, sizes (unless the graph is dynamic), dtype and
    ``requires_grad``; for each other input (an int, a flag) its value;
  - grad mode (a graph captured with grad enabled records differently from one without);
  - each submodule's ``training`` flag (dropout and batch norm act differently), and each module's children
    (a submodule assigned anew, ``model[1] = nn.Tanh()``, would replay the old one's ops);
  - the parameters and buffers the graph reads, as tensors (rank, sizes, dtype, ``requires_grad``): the replay
    reads them from the module at each call, so a reassigned parameter of the same kind is used without a
    recompile, as in PyTorch 2.13, whose graphs take them as inputs;
  - the identity of the global and closure tensors the graph reads (the graph holds those themselves);
  - the other Python values the program read, which the graph holds as constants: globals, closure variables,
    modules' and objects' attributes (``G['SCALE'] == 2.0``, ``python_reads.py``);
  - for each other module the program reaches (a global, a closure variable, an argument: ``capture.Root``),
    its type, its submodules' ``training`` flags and the tensors the graph reads from it, as for the compiled
    module: read through the name at each call, so a module bound anew to the name is used without a
    recompile while it matches, as in PyTorch 2.13.

A failing guard names the first fact that changed, in PyTorch's words (``tensor 'x' size mismatch at index 0.
expected 8, actual 9``): ``torch.compile`` then captures again (a recompile), and says that reason when it gives up
after ``config.recompile_limit`` captures.

Sizes: ``dynamic=False`` pins every size. ``dynamic=True`` pins none where the graph read no size into Python
(``capture.py`` notes that); ``dynamic=None`` (the default) starts pinned and, after a recompile caused by a size,
captures the next graph as dynamic, as PyTorch's automatic dynamic shapes do. A graph that read a size is pinned
whatever ``dynamic`` says (tinytorch has no symbolic sizes)."""
from __future__ import annotations

from ..autograd.grad_mode import _State
from .._dtype import to_np
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from ..utils import _pytree as pytree

__all__ = ["Guard", "resolve"]


class _NpDtypes(dict):
    def __missing__(self, dtype):
        try:
            np_dtype = to_np(dtype)
        except (KeyError, TypeError, AttributeError, ImportError):
            np_dtype = None
        self[dtype] = np_dtype
        return np_dtype


_NP_DTYPE = _NpDtypes()  # tinytorch dtype -> its numpy dtype (the object a tensor's array carries)
_PLAIN = (Tensor, Parameter)
_NO_TABLE: dict = {}

_SCALAR_TYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                 "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _scalar_type(dtype) -> str:
    name = str(dtype).rpartition(".")[2]
    return _SCALAR_TYPES.get(name, name)


def resolve(module, path):
    """``module.<path>`` (``"blocks.0.weight"``, or its parts as a list), read through the modules' own tables
    where it is found there (a ``getattr`` on a Module costs a ``__getattr__`` call per part)."""
    obj = module
    *parents, last = path.split(".") if type(path) is str else path
    for part in parents:
        children = obj.__dict__.get("_modules")
        obj = children[part] if children is not None and part in children else getattr(obj, part)
    own = obj.__dict__
    for table in ("_parameters", "_buffers"):
        entries = own.get(table)
        if entries is not None and last in entries:
            return entries[last]
    return getattr(obj, last)


def _facts(t: Tensor) -> tuple:
    return t.dim(), tuple(t.shape), t.dtype, t.requires_grad


def _tensor_mismatch(name: str, t, rank, sizes, dtype, requires_grad) -> str | None:
    """How ``t`` differs from the tensor a graph was captured with, in PyTorch's words (None: it does not)."""
    if type(t) in _PLAIN and t._requires_grad == requires_grad and t._data.dtype == _NP_DTYPE[dtype] and (
            t._data.shape == sizes if sizes is not None else t._data.ndim == rank):
        return None  # the common case, on the array (the properties cost more than the rest of a guard)
    if not isinstance(t, Tensor):
        return f"expected type of '{name}' to be a tensor type, ' but found {type(t)}"
    if t.dtype != dtype:
        return f"tensor '{name}' dtype mismatch. expected {_scalar_type(dtype)}, actual {_scalar_type(t.dtype)}"
    if t.requires_grad != requires_grad:
        return f"tensor '{name}' requires_grad mismatch. expected requires_grad={int(requires_grad)}"
    if t.dim() != rank:
        return f"tensor '{name}' rank mismatch. expected {rank}, actual {t.dim()}"
    if sizes is not None and tuple(t.shape) != sizes:
        k = next(k for k, (a, b) in enumerate(zip(sizes, t.shape)) if a != b)
        return f"tensor '{name}' size mismatch at index {k}. expected {sizes[k]}, actual {t.shape[k]}"
    return None


def _table(module, path: str) -> tuple:
    """(the ``_parameters`` or ``_buffers`` dict holding ``module.<path>``, or None for another attribute, and
    the name in it)."""
    *parents, last = path.split(".")
    obj = module
    for part in parents:
        obj = resolve(obj, part)
    for name in ("_parameters", "_buffers"):
        table = obj.__dict__.get(name)
        if table is not None and last in table:
            return table, last
    return None, last


def _children(modules: list) -> list:
    """(module, its children's table, the children as captured) for each module of ``modules`` that has any."""
    return [(m, m._modules, tuple(m._modules.values())) for m in modules if m._modules]


def _tree_changed(name: str, prefix: str, modules: list, training: tuple, children: list) -> str | None:
    """How a module tree differs from its capture, or None: a training flag (dropout and batch norm act
    otherwise), or a submodule assigned anew (``model[1] = nn.Tanh()``: the graph would replay the old one's
    ops)."""
    now = tuple(m.training for m in modules)
    if now != training:
        k = next(k for k, (a, b) in enumerate(zip(now, training)) if a != b)
        return f"a submodule's training flag changed ({prefix}module.training == {training[k]})"
    for m, table, kids in children:
        if m._modules is not table or tuple(table.values()) != kids:
            return f"a submodule of {name} was assigned anew ({type(m).__name__})"
    return None


class Guard:
    """The facts one capture took as fixed (see the module's docstring)."""

    def __init__(self, names: list, leaves: list, spec, module, used_paths, free: dict, dynamic: bool,
                 roots: list = (), rooted: dict | None = None, python_reads=None):
        self.names = names
        self.python_reads = python_reads  # the Python values the graph holds (``python_reads.PythonReads``)
        self.spec = spec
        self.grad_mode = _State.enabled
        self.tensors = []   # (position, name, rank, sizes or None, dtype, requires_grad)
        self.values = []    # (position, name, value) for the other inputs
        self.kinds = []     # (position, name, type) for the module inputs
        for i, (leaf, name) in enumerate(zip(leaves, names)):
            if isinstance(leaf, Tensor):
                self.tensors.append((i, name, leaf.dim(), None if dynamic else tuple(leaf.shape), leaf.dtype,
                                     leaf.requires_grad))
            elif isinstance(leaf, Module):
                self.kinds.append((i, name, type(leaf)))  # a module argument: a Root, read at each call
            else:
                self.values.append((i, name, leaf))
        self.module = module
        self.modules = list(module.modules()) if module is not None else []
        self.training = tuple(m.training for m in self.modules)
        self.children = _children(self.modules)
        # (path, its parts, the table its tensor was found in or None, the name there, the tensor's facts)
        self.attrs = [(p, p.split("."), *_table(module, p), *_facts(resolve(module, p)))
                      for p in used_paths] if module is not None else []
        self.found: list = []  # the module's tensors the last passing check read, in the order of used_paths
        self.free = [(name, ident, read) for ident, (name, read) in free.items()]
        # [root, its type, the object last read, its modules, their training flags, their types], per capture.Root
        self.roots = []
        for root in roots:
            obj = root.read(leaves)
            mods = list(obj.modules())
            self.roots.append([root, type(obj), obj, mods, tuple(m.training for m in mods),
                               tuple(type(m) for m in mods), _children(mods)])
        self.rooted = [(k, parts, ".".join(parts), *_facts(resolve(self.roots[k][2], parts)))
                       for k, parts in (rooted or {}).values()]
        self.found_rooted: list = []  # the other modules' tensors the last passing check read, in rooted's order
        # the rooted tensors as the common case compares them (each root bound to the object of the last passing
        # check): the table holding each and its facts on the array, as ``attr_facts``; None until refound
        self.rooted_facts = self._rooted_tables()
        # every tensor the graph reads has its sizes guarded (a global one only by identity: not fixed)
        self.fixed_shapes = not dynamic and not self.free
        # the module's tensors as the common case compares them (plain tensors: no property read)
        self.attr_facts = [(table, last, _NP_DTYPE[dtype], sizes, requires_grad)
                           for _, _, table, last, _, sizes, dtype, requires_grad in self.attrs]

    def check(self, leaves: list, spec) -> str | None:
        """None when a call with these input leaves may replay the graph, else the first changed fact."""
        if spec is not self.spec and spec != self.spec:
            return "the inputs' structure changed"
        for i, name, rank, sizes, dtype, requires_grad in self.tensors:
            reason = _tensor_mismatch(name, leaves[i], rank, sizes, dtype, requires_grad)
            if reason is not None:
                return reason
        for i, name, value in self.values:
            v = leaves[i]
            if type(v) is not type(value) or not (v is value or v == value):
                return f"{name} == {value!r}"
        if _State.enabled != self.grad_mode:
            return "___check_global_state() against grad_mode"
        if self.module is not None:
            reason = _tree_changed("self", "", self.modules, self.training, self.children)
            if reason is not None:
                return reason
            found = []
            for table, last, np_dtype, sizes, requires_grad in self.attr_facts:
                # the children checked above are the captured ones, so each tensor's module is too: read its
                # table (a path the module's own tables do not hold is resolved again below)
                t = table.get(last) if table is not None else None
                if (t is None or type(t) not in _PLAIN or t._requires_grad != requires_grad
                        or t._data.dtype != np_dtype or t._data.shape != sizes):
                    found = None
                    break
                found.append(t)
            if found is not None:
                self.found = found
            else:
                reason = self._attr_changed()
                if reason is not None:
                    return reason
        for i, name, kind in self.kinds:
            if type(leaves[i]) is not kind:
                return f"___check_type_id({name}, {id(kind)})"
        for name, ident, read in self.free:
            if id(read()) != ident:
                return f"___check_obj_id({name}, {ident})"
        if self.python_reads is not None:
            reason = self.python_reads.check()
            if reason is not None:
                return reason
        if self.roots:
            return self._check_roots(leaves)
        return None

    def _attr_changed(self) -> str | None:
        """The module's tensors, one of which the common case did not find as captured, checked fully: the first
        mismatch in PyTorch's words, or None (a path held outside the tables, a tensor subclass that matches)."""
        found = []
        for path, parts, table, last, rank, sizes, dtype, requires_grad in self.attrs:
            t = table.get(last) if table is not None else None
            if t is None:
                t = resolve(self.module, parts)
            reason = _tensor_mismatch(f"self.{path}", t, rank, sizes, dtype, requires_grad)
            if reason is not None:
                return reason
            found.append(t)
        self.found = found
        return None

    def _rooted_tables(self) -> list | None:
        """(its module's ``__dict__``, the table's name there, the tensor's name in it, numpy dtype, sizes,
        requires_grad) for each rooted tensor, found in the roots' objects as last seen; None where one is held
        outside a module's ``_parameters``/``_buffers``, or its sizes are not guarded."""
        out = []
        for k, parts, _, _, sizes, dtype, requires_grad in self.rooted:
            try:
                owner = resolve(self.roots[k][2], parts[:-1]) if len(parts) > 1 else self.roots[k][2]
            except (AttributeError, KeyError):
                return None
            own = getattr(owner, "__dict__", {})
            table = next((name for name in ("_parameters", "_buffers") if parts[-1] in own.get(name, ())), None)
            if table is None or sizes is None:
                return None
            out.append((own, table, parts[-1], _NP_DTYPE[dtype], sizes, requires_grad))
        return out

    def _check_roots(self, leaves: list) -> str | None:
        facts = self.rooted_facts
        if facts is not None:
            # the common case: every root bound to the object the last check saw, its tree unchanged (so each
            # tensor's module is the one seen, and its table too), each tensor found there as captured
            for root, kind, seen, mods, training, _, children in self.roots:
                if root.read(leaves) is not seen or _tree_changed(root.name, "", mods, training, children):
                    break
            else:
                found = []
                for own, table, last, np_dtype, sizes, requires_grad in facts:
                    t = own.get(table, _NO_TABLE).get(last)
                    if (t is None or type(t) not in _PLAIN or t._requires_grad != requires_grad
                            or t._data.dtype != np_dtype or t._data.shape != sizes):
                        break
                    found.append(t)
                else:
                    self.found_rooted = found
                    return None
        reason = self._check_roots_fully(leaves)
        if reason is None and facts is not None:
            self.rooted_facts = self._rooted_tables()  # (a root bound anew: the tables of the object now there)
        return reason

    def _check_roots_fully(self, leaves: list) -> str | None:
        """Each root read, its tree compared and each rooted tensor resolved anew (a root bound to another object
        of its kind, a tensor assigned anew): the first mismatch in PyTorch's words, or None."""
        now = []
        for entry in self.roots:
            root, kind, seen, mods, training, kinds, children = entry
            obj = root.read(leaves)
            if type(obj) is not kind:
                return f"___check_type_id({root.name}, {id(kind)})"
            if obj is not seen:  # bound anew: the same kinds of submodules, in the same places?
                mods = list(obj.modules())
                if tuple(type(m) for m in mods) != kinds:
                    return f"the submodules of {root.name} changed"
                entry[2], entry[3], entry[6] = obj, mods, _children(mods)
                children = entry[6]
            reason = _tree_changed(root.name, f"{root.name}: ", mods, training, children)
            if reason is not None:
                return reason
            now.append(obj)
        found = []
        for k, parts, path, rank, sizes, dtype, requires_grad in self.rooted:
            try:
                t = resolve(now[k], parts)
            except AttributeError:
                return f"{self.roots[k][0].name}.{path} is gone"
            reason = _tensor_mismatch(f"{self.roots[k][0].name}.{path}", t, rank, sizes, dtype, requires_grad)
            if reason is not None:
                return reason
            found.append(t)
        self.found_rooted = found
        return None

    @staticmethod
    def leaves(args: tuple, kwargs: dict):
        return pytree.tree_flatten((args, kwargs))
