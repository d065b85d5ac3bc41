"""``torch.export.graph_signature``: what each input and output of an exported program is."""

from __future__ import annotations

import dataclasses
import enum

__all__ = ["InputKind", "OutputKind", "TensorArgument", "InputSpec", "OutputSpec",
           "ExportGraphSignature"]


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
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()
    PARAMETER_MUTATION = enum.auto()


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument
    target: str | None
    persistent: bool | None = None


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument
    target: str | None


@dataclasses.dataclass
class ExportGraphSignature:
    """The program's inputs (parameters, buffers, user inputs) and outputs (user outputs,
    buffer and input mutations), as PyTorch's ``ExportGraphSignature``."""

    input_specs: list
    output_specs: list

    def _targets(self, kind, persistent=None):
        return tuple(s.target for s in self.input_specs if s.kind is kind
                     and (persistent is None or s.persistent == persistent))

    @property
    def parameters(self) -> tuple:
        return self._targets(InputKind.PARAMETER)

    @property
    def buffers(self) -> tuple:
        return self._targets(InputKind.BUFFER)

    @property
    def non_persistent_buffers(self) -> tuple:
        return self._targets(InputKind.BUFFER, persistent=False)

    @property
    def user_inputs(self) -> tuple:
        return tuple(s.arg.name for s in self.input_specs if s.kind is InputKind.USER_INPUT)

    @property
    def user_outputs(self) -> tuple:
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    def _map(self, specs, kind) -> dict:
        return {s.arg.name: s.target for s in specs if s.kind is kind}

    @property
    def inputs_to_parameters(self) -> dict:
        return self._map(self.input_specs, InputKind.PARAMETER)

    @property
    def inputs_to_buffers(self) -> dict:
        return self._map(self.input_specs, InputKind.BUFFER)

    @property
    def buffers_to_mutate(self) -> dict:
        return self._map(self.output_specs, OutputKind.BUFFER_MUTATION)

    @property
    def parameters_to_mutate(self) -> dict:
        return self._map(self.output_specs, OutputKind.PARAMETER_MUTATION)

    @property
    def user_inputs_to_mutate(self) -> dict:
        return self._map(self.output_specs, OutputKind.USER_INPUT_MUTATION)

    def __str__(self) -> str:
        def line(s):
            text = f"{s.arg.name}: {s.kind.name}"
            if s.target is not None:
                text += f" target={s.target!r}"
            if getattr(s, "persistent", None) is not None:
                text += f" persistent={s.persistent}"
            return text

        ins = "\n".join(line(s) for s in self.input_specs)
        outs = "\n".join(line(s) for s in self.output_specs)
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"


def build(meta) -> ExportGraphSignature:
    """The signature of a traced program from its metadata (see ``_trace``)."""
    ins, outs = [], []
    for name, kind, _ in meta["state"]:
        arg = TensorArgument(("p_" if kind == "parameter" else "b_") + _ident(name))
        if kind == "parameter":
            ins.append(InputSpec(InputKind.PARAMETER, arg, name))
        else:
            ins.append(InputSpec(InputKind.BUFFER, arg, name, persistent=kind == "buffer"))
    ins += [InputSpec(InputKind.USER_INPUT, TensorArgument(n), None) for n, _, _ in meta["inputs"]]
    outs += [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(f"output_{i}"), None)
             for i in range(meta["n_outputs"])]
    for i in meta["mutated_state"]:
        name, kind, _ = meta["state"][i]
        k = OutputKind.PARAMETER_MUTATION if kind == "parameter" else OutputKind.BUFFER_MUTATION
        outs.append(OutputSpec(k, TensorArgument(f"mutated_{_ident(name)}"), name))
    for i in meta["mutated_inputs"]:
        name = meta["inputs"][i][0]
        outs.append(OutputSpec(OutputKind.USER_INPUT_MUTATION,
                               TensorArgument(f"mutated_{name}"), name))
    return ExportGraphSignature(ins, outs)


def _ident(name: str) -> str:
    return name.replace(".", "_")
