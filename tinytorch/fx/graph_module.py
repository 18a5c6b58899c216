"""``GraphModule``: a Module whose ``forward`` is Python code generated from a ``Graph``.

It holds the submodules, parameters and buffers the graph names (copied from the module it was made from),
the graph itself, and ``code``, the generated source (``recompile()`` regenerates it after the graph is edited).
Each GraphModule gets a class of its own, so that its ``forward`` can be set on that class."""
from __future__ import annotations

import copy
import itertools
import linecache

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph, _PyTreeCodeGen

__all__ = ["GraphModule"]
_USER_PRESERVED_ATTRIBUTES_KEY = "_user_preserved_attributes"

_source_count = itertools.count()


def _forward_from_src(src: str, globals_: dict, co_fields: dict | None = None):
    """Exec ``src`` with ``globals_`` and return the function ``forward`` it defines. The source is put in
    ``linecache`` under a name of its own, so tracebacks and ``inspect`` show its lines."""
    key = f"<eval_with_key>.{next(_source_count)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    namespace = dict(globals_)
    exec(compile(src, key, "exec", dont_inherit=True), namespace)
    return namespace["forward"]


class _CodeOnlyModule(Module):
    """A Module made of a saved ``__dict__`` (what a deep copy or an unpickled GraphModule starts from)."""

    def __init__(self, body: dict) -> None:
        super().__init__()
        self.__dict__ = body


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Copy the attribute at the dotted path ``target`` of ``from_module`` onto ``to_module``, making empty
    Modules for the missing parents; a tensor that is not a Parameter becomes a buffer."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:  # a parent already copied whole
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module: Module, target: str) -> None:
    """Put ``from_obj`` at the dotted path ``target`` of ``to_module``, making empty Modules on the way."""
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _get_attr(model: Module, attr_name: str):
    out = model
    for atom in attr_name.split("."):
        out = getattr(out, atom)
    return out


def _indent(text: str, spaces: int) -> str:
    """Every line after the first indented by ``spaces``; blank lines stay empty."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])


def _readable(module: GraphModule, name: str) -> str:
    code = module.graph.python_code(root_module="self", verbose=True).src.lstrip("\n")
    text = _indent(f"class {name}(torch.nn.Module):\n" + code, 4)
    children = [_readable(child, child_name) for child_name, child in module.named_children()
                if isinstance(child, GraphModule)]
    return text + _indent("\n".join([""] + children), 4)


class GraphModule(Module):
    """A Module generated from a graph; see the module docstring."""

    def __new__(cls, *args, **kwargs):
        # a class of its own for each instance (its forward is set on the class); a copy's class derives
        # from the same user-visible class, not from another instance's own class
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root: Module | dict, graph: Graph, class_name: str = "GraphModule") -> None:
        """``root``: the Module the graph's ``get_attr``/``call_module`` targets are copied from, or a dict from
        those targets to the objects. ``class_name`` names the module (its repr, error messages)."""
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            if isinstance(root, _CodeOnlyModule):  # a copy: everything it had
                for k, _ in itertools.chain(root.named_children(), root.named_buffers(), root.named_parameters()):
                    _copy_attr(root, self, k)
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           "provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):  # parents before children
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        self._tracer_cls = None
        if graph._tracer_cls and "<locals>" not in graph._tracer_cls.__qualname__:
            self._tracer_cls = graph._tracer_cls
        self._tracer_extras = graph._tracer_extras or {}
        self.meta: dict = {}
        self._replace_hooks: list = []
        self._create_node_hooks: list = []
        self._erase_node_hooks: list = []
        self._deepcopy_hooks: list = []

    @property
    def graph(self) -> Graph:
        """The graph; assigning one regenerates ``code`` and ``forward``."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The source of the generated ``forward``."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate ``code`` and ``forward`` from ``graph`` (after editing it in place)."""
        if isinstance(self._graph._codegen, _PyTreeCodeGen):
            self._in_spec = self._graph._codegen.pytree_info.in_spec
            self._out_spec = self._graph._codegen.pytree_info.out_spec
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_src(self._code, python_code.globals, self._graph._co_fields)
        for _, child in self.named_children():
            if isinstance(child, GraphModule):
                child.recompile()
        return python_code

    # -- the module tree ------------------------------------------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at the dotted path ``target``, making empty Modules for missing parents; False when a
        parent on the path is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                setattr(mod, item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at the dotted path ``target``; False when there is none."""
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not isinstance(getattr(mod, name, None), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Remove the submodules no node calls or reads from (nor any of their children)."""
        used: list = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr") and isinstance(node.target, str):
                atoms = node.target.split(".")
                used.extend(".".join(atoms[:i + 1]) for i in range(len(atoms)))
                if node.op == "call_module":
                    try:
                        sub = self.get_submodule(node.target)
                    except AttributeError:
                        continue
                    used.extend(f"{node.target}.{name}" for name, _ in sub.named_modules() if name)
        for name in [name for name, _ in self.named_modules() if name not in used]:
            self.delete_submodule(name)

    # -- copies and text ----------------------------------------------------------------------------------
    def __deepcopy__(self, memo: dict) -> GraphModule:
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake = _CodeOnlyModule(copy.deepcopy(self.__dict__, memo))
        GraphModule.__init__(res, fake, fake.__dict__["_graph"])
        for attr in ("_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_replace_hooks", "_create_node_hooks", "_erase_node_hooks", "_deepcopy_hooks"):
            if attr in self.__dict__:
                setattr(res, attr, copy.deepcopy(self.__dict__[attr], memo))
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        for name, value in res.meta.get(_USER_PRESERVED_ATTRIBUTES_KEY, {}).items():
            setattr(res, name, value)
        for hook in getattr(self, "_deepcopy_hooks", ()):
            hook(res)
        return res

    def __copy__(self) -> GraphModule:
        res = GraphModule(self, self.graph)
        res.meta = getattr(self, "meta", {})
        return res

    def print_readable(self, print_output: bool = True, include_stride: bool = False, include_device: bool = False,
                       colored: bool = False) -> str:
        """The verbose code of this module and of its GraphModule children, as classes (printed by default)."""
        text = _readable(self, self._get_name())
        if print_output:
            print(text)
        return text

    def __str__(self) -> str:
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])
