"""``ExportedProgram``: a traced forward as one StableHLO program plus its state."""

from __future__ import annotations

import functools
from collections import OrderedDict

import jax
import numpy as np

from ..eager.autograd import grad_mode
from ..eager.random import default_generator
from ..eager.tensor import Tensor, wrap
from ..nn.modules.module import Module
from . import _pytree
from .graph_signature import build

__all__ = ["ExportedProgram"]


class ValueRange:
    """A dynamic size's range, printed as PyTorch prints ``VR[lo, hi]``."""

    def __init__(self, lower: int, upper):
        self.lower, self.upper = lower, upper

    def __repr__(self) -> str:
        return f"VR[{self.lower}, {'int_oo' if self.upper is None else self.upper}]"

    def __eq__(self, other) -> bool:
        return isinstance(other, ValueRange) and (self.lower, self.upper) == (other.lower,
                                                                              other.upper)


class ExportedProgram:
    """A module's forward recorded as one ``jax.export`` program (StableHLO) whose inputs
    are the parameters, buffers and user inputs.

    Differences from PyTorch: there is no FX ``graph``/``graph_module``; the program is
    StableHLO (``str(ep)`` prints it, ``ep.exported`` is the ``jax.export.Exported``).
    ``module()`` computes forward values only (its outputs do not require grad).
    """

    def __init__(self, exported, meta: dict, state: dict, example_inputs=None):
        self._exported = exported
        self._meta = meta
        self._state = state  # name -> tensor, every parameter and buffer (shared, not copied)
        self._example_inputs = example_inputs
        self.graph_signature = build(meta)

    # ------------------------------------------------------------------ PyTorch's API

    @property
    def state_dict(self) -> dict:
        return OrderedDict((n, self._state[n]) for n, kind, _ in self._meta["state"]
                           if kind != "constant")

    @property
    def constants(self) -> dict:
        return OrderedDict((n, self._state[n]) for n, kind, _ in self._meta["state"]
                           if kind == "constant")

    @property
    def example_inputs(self):
        return self._example_inputs

    @property
    def range_constraints(self) -> dict:
        return {n: ValueRange(lo, hi) for n, (lo, hi) in self._meta["ranges"].items()}

    @property
    def exported(self):
        """The ``jax.export.Exported`` (jtorch's addition, for JAX interop)."""
        return self._exported

    def named_parameters(self):
        for n, kind, _ in self._meta["state"]:
            if kind == "parameter":
                yield n, self._state[n]

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def named_buffers(self):
        for n, kind, _ in self._meta["state"]:
            if kind != "parameter":
                yield n, self._state[n]

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    def module(self) -> Module:
        """An ``nn.Module`` that runs the program, with the same state_dict keys; its
        parameters and buffers are this program's (shared)."""
        return ExportedModule(self)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program is already StableHLO, XLA's core operation set: returns ``self``."""
        return self

    def validate(self) -> None:
        """The program was checked by ``jax.export`` when it was made."""

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def __str__(self) -> str:
        text = self._exported.mlir_module()
        ranges = self.range_constraints
        return (f"ExportedProgram:\n{text}\nGraph signature: {self.graph_signature}\n"
                f"Range constraints: {ranges}\n")

    __repr__ = __str__

    # ------------------------------------------------------------------ running

    @functools.cached_property
    def _jitted(self):
        return jax.jit(self._exported.call)

    def _run(self, state_tensors, inputs):
        """Outputs, and the new values of mutated state and inputs, for tensors ``inputs``."""
        meta = self._meta
        key, counter = default_generator._peek(0)
        default_generator._counter += meta["draws"]
        arrays = [t._value for t in state_tensors]
        arrays += [key, np.int64(counter)] + [t._value for t in inputs]
        results = self._jitted(*arrays)
        n = meta["n_outputs"]
        outputs = [wrap(v) for v in results[:n]]
        k = len(meta["mutated_state"])
        with grad_mode.no_grad():
            for i, v in zip(meta["mutated_state"], results[n:n + k]):
                state_tensors[i].copy_(wrap(v))
            for i, v in zip(meta["mutated_inputs"], results[n + k:]):
                inputs[i].copy_(wrap(v))
        return _pytree.unflatten(meta["out_spec"], outputs)


class ExportedModule(Module):
    """What ``ExportedProgram.module()`` returns: a module whose forward is the program.

    Its submodules are plain ``Module`` containers, so ``state_dict()`` keys are the
    exported module's. As in PyTorch, ``train()``/``eval()`` raise: the program was
    recorded in one mode.
    """

    def __init__(self, program: ExportedProgram):
        super().__init__()
        object.__setattr__(self, "_program", program)
        for name, kind, _ in program._meta["state"]:
            owner, leaf = self._owner(name, create=True)
            t = program._state[name]
            if kind == "parameter":
                owner.register_parameter(leaf, t)
            else:
                owner.register_buffer(leaf, t, persistent=kind == "buffer")
        self.training = program._meta.get("training", True)

    def _owner(self, name: str, create: bool = False):
        *path, leaf = name.split(".")
        m = self
        for p in path:
            if p not in m._modules:
                if not create:
                    raise AttributeError(name)
                m.add_module(p, Module())
            m = m._modules[p]
        return m, leaf

    def _state_tensors(self) -> list:
        out = []
        for name, _, _ in self._program._meta["state"]:
            owner, leaf = self._owner(name)
            out.append(owner._parameters.get(leaf, owner._buffers.get(leaf)))
        return out

    def forward(self, *args, **kwargs):
        program = self._program
        leaves = []
        spec = _pytree.flatten((args, kwargs), leaves)
        if not _pytree.same_structure(program._meta["in_spec"], spec):
            raise ValueError(
                "Trying to flatten user inputs with exported input tree spec:\n"
                f"{program._meta['in_spec']}\nbut actually got inputs with tree spec of:\n"
                f"{spec}.\nPlease check that the inputs have the same number and type of "
                "args and kwargs as the ones you used when tracing.")
        inputs = [t for _, t in leaves]
        for (name, dtype, shape), t in zip(program._meta["inputs"], inputs):
            _guard(name, dtype, shape, t, program._meta["ranges"])
        return program._run(self._state_tensors(), inputs)

    def train(self, mode: bool = True):
        raise NotImplementedError(f"Calling {'train' if mode else 'eval'}() is not supported "
                                  "yet.")

    def eval(self):
        raise NotImplementedError("Calling eval() is not supported yet.")


def _guard(name, dtype, shape, t: Tensor, ranges) -> None:
    """PyTorch's input guards: static sizes, ranks and dynamic sizes' bounds."""
    if str(t.dtype).removeprefix("torch.") != dtype:
        raise AssertionError(f"Guard failed: {name}.dtype == torch.{dtype}")
    if t.dim() != len(shape):
        raise AssertionError(f"Guard failed: {name}.dim() == {len(shape)}")
    for d, (want, got) in enumerate(zip(shape, t.shape)):
        if isinstance(want, int):
            if want != got:
                raise AssertionError(f"Guard failed: {name}.size()[{d}] == {want}")
        elif want in ranges:
            lo, hi = ranges[want]
            if got < lo:
                raise AssertionError(f"Guard failed: {name}.size()[{d}] >= {lo}")
            if hi is not None and got > hi:
                raise AssertionError(f"Guard failed: {name}.size()[{d}] <= {hi}")
