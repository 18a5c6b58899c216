"""An exported program's signature: which graph inputs are parameters, buffers, constants or the user's, and which
outputs the user's (PyTorch's ``torch.export.graph_signature``)."""
from __future__ import annotations

import dataclasses
import enum

__all__ = ["InputKind", "OutputKind", "TensorArgument", "InputSpec", "OutputSpec", "ExportGraphSignature"]


class InputKind(enum.Enum):
    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    PARAMETER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument
    target: str | None
    persistent: bool | None = None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument
    target: str | None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


@dataclasses.dataclass
class ExportGraphSignature:
    """Which graph inputs are parameters, buffers or the user's, and which outputs the user's."""
    input_specs: list
    output_specs: list

    def _names(self, kind) -> tuple:
        return tuple(s.arg.name for s in self.input_specs if s.kind is kind)

    @property
    def parameters(self) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.PARAMETER)

    @property
    def buffers(self) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.BUFFER)

    @property
    def user_inputs(self) -> tuple:
        return self._names(InputKind.USER_INPUT)

    @property
    def user_outputs(self) -> tuple:
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self) -> dict:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self) -> dict:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.BUFFER}

    @property
    def lifted_tensor_constants(self) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.CONSTANT_TENSOR)

    @property
    def inputs_to_lifted_tensor_constants(self) -> dict:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.CONSTANT_TENSOR}

    def __str__(self) -> str:
        inputs = "\n".join(map(str, self.input_specs))
        outputs = "\n".join(map(str, self.output_specs))
        return f"\n# inputs\n{inputs}\n\n# outputs\n{outputs}\n"
