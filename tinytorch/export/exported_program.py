"""``ExportedProgram``: the graph ``export`` recorded, its signature and its lifted state, and ``module()``, the module
that runs it (PyTorch's ``torch.export.exported_program``)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..utils import _pytree as pytree
from . import _decompose, dynamic_shapes as _dyn
from .graph_signature import ExportGraphSignature, InputKind, OutputKind

__all__ = ["ExportedProgram"]


class ExportedProgram:
    """A module's forward as a graph (``graph_module``, ``graph``), its signature and its lifted state."""

    def __init__(self, graph_module: GraphModule, graph_signature: ExportGraphSignature, state_dict: dict,
                 out_spec, user_names: list, range_constraints: dict | None = None, guards: list | None = None,
                 constants: dict | None = None):
        self.graph_module = graph_module
        self.graph_signature = graph_signature
        self.state_dict = state_dict
        self.constants = constants or {}  # the lifted plain tensors (CONSTANT_TENSOR inputs), by target
        self.range_constraints: dict = range_constraints or {}
        self._out_spec = out_spec
        self._user_names = user_names
        self._guards = guards or []
        self._in_spec = None  # the structure of the example's (args, kwargs), which calls must have (set by export)

    @property
    def graph(self):
        return self.graph_module.graph

    def module(self) -> Module:
        """A module running the graph with this program's state: ``ep.module()(*args)`` is ``module(*args)``,
        for inputs that pass the program's guards (its static sizes, its symbols' ranges)."""
        return _Unlifted(self)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops: bool = False) -> ExportedProgram:
        """The program lowered to core ATen (see ``_decompose``)."""
        return _decompose.run_decompositions(self, decomp_table)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def __str__(self) -> str:
        code = self.graph_module.print_readable(print_output=False).replace("\n", "\n    ")
        signature = str(self.graph_signature).replace("\n", "\n    ")
        return (f"ExportedProgram:\n    {code}\nGraph signature: {signature}\n"
                f"Range constraints: {self.range_constraints}\n")


class _Unlifted(Module):
    """``ExportedProgram.module()``: the lifted state held again as parameters and buffers of this module, each at
    its place in the exported module's tree (``m.bn.running_mean``, in plain ``Module`` children), the lifted
    constants as plain attributes, as PyTorch's unlifted module holds them. A call reads them from there and
    writes a functionalised program's new values of them back there."""

    def __init__(self, ep: ExportedProgram):
        super().__init__()
        self._ep = ep
        for spec in ep.graph_signature.input_specs:
            if spec.kind is InputKind.USER_INPUT:
                continue
            *path, name = spec.target.split(".")
            owner = self
            for part in path:
                if part not in owner._modules:
                    owner.add_module(part, Module())
                owner = owner._modules[part]
            if spec.kind is InputKind.PARAMETER:
                owner.register_parameter(name, ep.state_dict[spec.target])
            elif spec.kind is InputKind.BUFFER:
                value = ep.state_dict.get(spec.target)
                owner.register_buffer(name, ep.constants[spec.target] if value is None else value,
                                      persistent=spec.persistent is not False)
            else:  # a lifted constant (a plain tensor attribute, or one the forward made of Python values)
                object.__setattr__(owner, name, ep.constants[spec.target])

    def _state(self, target: str):
        """The tensor held at ``target`` (``"sub.running_mean"``) now: one the caller set there is read."""
        path, _, name = target.rpartition(".")
        return getattr(self.get_submodule(path), name)

    def forward(self, *args, **kwargs):
        ep = self._ep
        if ep._in_spec is not None:
            kwargs = _check_inputs(ep._in_spec, args, kwargs)
        if ep._guards:
            _dyn.check_guards(ep._guards, _dyn.tensor_leaves(args, kwargs))
        sig = ep.graph_signature
        state = [self._state(s.target) for s in sig.input_specs if s.kind is not InputKind.USER_INPUT]
        leaves = pytree.tree_leaves((args, kwargs))
        out = ep.graph_module(*state, *leaves)
        return pytree.tree_unflatten(_written_back(self, leaves, out), ep._out_spec)


def _written_back(unlifted: _Unlifted, leaves: list, out) -> list:
    """The user's outputs of a run of ``ep``'s graph, after its other outputs, the new values of the inputs the
    program wrote (a functionalised program's ``BUFFER_MUTATION``/``USER_INPUT_MUTATION``), were copied into
    those inputs (the module's buffers and parameters, the caller's tensors), as PyTorch's unlifted module does."""
    sig = unlifted._ep.graph_signature
    users = list(sig.user_inputs)
    kept = []
    for spec, value in zip(sig.output_specs, out):
        if spec.kind in (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION):
            written = unlifted._state(spec.target)
        elif spec.kind is OutputKind.USER_INPUT_MUTATION:
            written = leaves[users.index(spec.target)]
        else:
            kept.append(value)
            continue
        with no_grad():
            written.copy_(value)
    return kept


def _check_inputs(in_spec, args: tuple, kwargs: dict) -> dict:
    """``kwargs`` in the example's order, or PyTorch's refusal of a call whose inputs are not structured as the
    example's (other keywords, an extra argument)."""
    expected = in_spec.children_specs[1].context
    if set(kwargs) != set(expected):
        raise ValueError(f"Ran into a kwarg keyword mismatch: Got the following keywords {list(kwargs)} but "
                         f"expected {expected}")
    kwargs = {k: kwargs[k] for k in expected}
    spec = pytree.tree_flatten((args, kwargs))[1]
    if spec != in_spec:
        raise ValueError(f"Trying to flatten user inputs with exported input tree spec: \n{in_spec}\nbut actually "
                         f"got inputs with tree spec of: \n{spec}.\nPlease check that the inputs have the same number "
                         "and type of args and kwargs as the ones you used when tracing.")
    return kwargs
