"""``torch.onnx.export`` on jax2onnx: the traced JAX function of the inputs, as ONNX.

jtorch traces the forward itself (JAX's 64-bit mode on, as jtorch always runs, so int64
indices stay int64 as in PyTorch's ONNX files) and hands jax2onnx the resulting function
with jax2onnx's own ``jax.numpy`` substitutions switched off: jtorch's code is made of
JAX primitives, which jax2onnx converts one by one.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import warnings

import jax

from ..compiler._record import sandbox
from ..eager.autograd import grad_mode
from ..eager.tensor import Tensor, wrap
from ..export import _dims, _pytree
from ..export._trace import (
    DATA_DEPENDENT,
    data_dependent_message,
    flatten_inputs,
    state_entries,
)
from ..nn.modules.module import Module
from . import _diagnose, _proto
from .errors import OnnxExporterError

__all__ = ["export", "ONNXProgram", "is_in_onnx_export", "OperatorExportTypes", "TrainingMode"]

_DEFAULT_OPSET = 18
_exporting = [False]


class OperatorExportTypes(enum.IntEnum):
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TrainingMode(enum.IntEnum):
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export() -> bool:
    """True while ``torch.onnx.export`` runs the model's code."""
    return _exporting[0]


def _jax2onnx():
    try:
        import jax2onnx
        import onnx
        from jax2onnx import user_interface
        from jax2onnx.converter import conversion_api
        from jax2onnx.plugins.plugin_system import PLUGIN_REGISTRY, import_all_plugins
    except ImportError as e:
        raise ImportError("torch.onnx.export needs the jax2onnx and onnx packages: "
                          "pip install 'jtorch[onnx]'") from e
    return jax2onnx, onnx, user_interface, conversion_api, PLUGIN_REGISTRY, import_all_plugins


class ONNXProgram:
    """An exported ONNX model: ``model_proto``, ``save(path)``, and calling it runs
    onnxruntime (when installed) on tensors."""

    def __init__(self, model_proto, input_names, output_names):
        self.model_proto = model_proto
        self._input_names, self._output_names = input_names, output_names
        self._session = None

    def save(self, destination, *, include_initializers: bool = True,
             keep_initializers_as_inputs: bool = False, external_data=None) -> None:
        proto = self.model_proto
        if not include_initializers or keep_initializers_as_inputs:
            import onnx

            proto = onnx.ModelProto.FromString(proto.SerializeToString())
            if keep_initializers_as_inputs:
                _proto.initializers_as_inputs(proto)
            if not include_initializers:
                del proto.graph.initializer[:]
        _proto.write(proto, destination, external_data)

    def __call__(self, *args, **kwargs):
        import numpy as np

        try:
            import onnxruntime
        except ImportError as e:
            raise ImportError("running an ONNXProgram needs onnxruntime: pip install "
                              "onnxruntime") from e
        if self._session is None:
            self._session = onnxruntime.InferenceSession(self.model_proto.SerializeToString())
        leaves = []
        _pytree.flatten((args, kwargs), leaves)
        feed = {n: np.asarray(t.detach()._value) for n, (_, t) in zip(self._input_names, leaves)}
        return [wrap(jax.numpy.asarray(v)) for v in self._session.run(None, feed)]

    def optimize(self) -> None:
        """jax2onnx has optimised the graph already."""

    def __repr__(self) -> str:
        return (f"ONNXProgram(inputs={self._input_names}, outputs={self._output_names}, "
                f"opset={[o.version for o in self.model_proto.opset_import]})")


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo: bool = True,
           external_data: bool = True, dynamic_shapes=None, custom_translation_table=None,
           report: bool = False, optimize: bool = True, verify: bool = False,
           profile: bool = False, dump_exported_program: bool = False, artifacts_dir=".",
           fallback: bool = False, export_params: bool = True,
           keep_initializers_as_inputs: bool = False, dynamic_axes=None,
           training=TrainingMode.EVAL, operator_export_type=OperatorExportTypes.ONNX,
           do_constant_folding: bool = True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining: bool = True):
    """Export ``model`` to ONNX (written to ``f`` when given); returns an ``ONNXProgram``
    with ``dynamo=True`` (PyTorch's default), else None.

    Differences from PyTorch: both ``dynamo`` settings convert the same JAX program;
    ``optimize``, ``do_constant_folding``, ``fallback`` and ``autograd_inlining`` leave
    the result as jax2onnx optimises it; a default opset of 18.
    """
    _check_options(custom_translation_table, profile, operator_export_type, custom_opsets,
                   export_modules_as_functions)
    mod = _as_module(model)
    args, kwargs = _split_args(args, kwargs)
    with _mode(mod, training):
        proto, names = _convert(mod, args, kwargs, input_names, output_names,
                                opset_version or _DEFAULT_OPSET, dynamic_axes,
                                dynamic_shapes, export_params)
    if keep_initializers_as_inputs:
        _proto.initializers_as_inputs(proto)
    program = ONNXProgram(proto, *names)
    if verbose:
        import onnx

        print(onnx.helper.printable_graph(proto.graph))
    if verify:
        _verify(program, mod, args, kwargs)
    if report or dump_exported_program:
        _artifacts(program, mod, args, kwargs, artifacts_dir, report, dump_exported_program)
    if f is not None:
        _proto.write(proto, f, external_data)
    return program if dynamo else None


def _check_options(table, profile, export_type, opsets, as_functions) -> None:
    if table:
        raise OnnxExporterError("custom_translation_table: jtorch converts JAX primitives "
                                "with jax2onnx and cannot use onnxscript translations")
    if profile:
        raise OnnxExporterError("profile=True: jtorch's exporter has no profiler report")
    if int(export_type) != OperatorExportTypes.ONNX:
        raise OnnxExporterError(f"operator_export_type={export_type!r}: jtorch exports "
                                "standard ONNX operators only (OperatorExportTypes.ONNX)")
    if opsets:
        raise OnnxExporterError("custom_opsets: jtorch's exporter emits no custom domains")
    if as_functions:
        raise OnnxExporterError("export_modules_as_functions: jtorch exports one flat graph")


def _as_module(model) -> Module:
    from ..export import ExportedProgram
    from ..jit._script import LoadedScriptModule, ScriptFunction, ScriptModule

    if isinstance(model, ExportedProgram | LoadedScriptModule):
        raise OnnxExporterError("torch.onnx.export: jtorch converts a model by tracing its "
                                "Python code; export the nn.Module itself (a loaded "
                                "exported program has no code left to trace)")
    if isinstance(model, ScriptModule):
        return model._export_target()
    if isinstance(model, ScriptFunction):
        from ..jit._script import _FunctionModule

        return _FunctionModule(model._fn)
    if not isinstance(model, Module):
        raise TypeError(f"torch.onnx.export: expected an nn.Module, got {type(model)}")
    return model


def _split_args(args, kwargs):
    """PyTorch's forms: a tensor, a tuple, or a tuple ending in a dict of keywords."""
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict) and not kwargs:
        args, kwargs = args[:-1], dict(args[-1])
    return args, kwargs


@contextlib.contextmanager
def _mode(mod, training):
    was = mod.training
    if int(training) != TrainingMode.PRESERVE:
        mod.train(int(training) == TrainingMode.TRAINING)
    _exporting[0] = True
    try:
        yield
    finally:
        _exporting[0] = False
        mod.train(was)


def _convert(mod, args, kwargs, input_names, output_names, opset, dynamic_axes,
             dynamic_shapes, export_params):
    """``(model proto, (input names, output names))``."""
    jax2onnx = _jax2onnx()[0]
    in_spec, inputs = flatten_inputs(mod.forward, args, kwargs)
    given = list(input_names or [])
    if len(given) > len(inputs):
        raise ValueError(f"input_names has {len(given)} names for {len(inputs)} inputs")
    keys = list(mod.state_dict())
    state = [] if export_params else sorted(
        ((n, t) for n, t, _ in state_entries(mod)),
        key=lambda e: keys.index(e[0]) if e[0] in keys else len(keys))
    names = given + [n for n, _ in inputs[len(given):]] + [n for n, _ in state]
    specs = _specs(mod, args, kwargs, inputs + state, names, dynamic_axes, dynamic_shapes)
    tensors = [t for _, t in inputs] + [t for _, t, _ in state_entries(mod)]
    double = any(t.dtype.is_floating_point and t.element_size() == 8 for t in tensors)
    fn = _function(mod, in_spec, len(inputs), [t for _, t in state])
    try:
        with _plain_jax2onnx(), _quiet():
            proto = jax2onnx.to_onnx(fn, specs, model_name=type(mod).__name__, opset=opset,
                                     enable_double_precision=double, input_names=names)
    except NotImplementedError as e:
        raise _diagnose.unsupported(e, fn, specs, _jax2onnx()[4]) from e
    except DATA_DEPENDENT as e:
        raise OnnxExporterError(data_dependent_message(e, "torch.onnx.export")) from e
    if not double:
        _proto.demote_doubles(proto.graph)
    outs = _proto.name_outputs(proto, output_names)
    _proto.name_output_dims(proto, dynamic_axes)
    for key in set(dynamic_axes or {}) - set(names) - set(outs):
        warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name",
                      stacklevel=3)
    return proto, (names, outs)


def _specs(mod, args, kwargs, tensors, names, dynamic_axes, dynamic_shapes):
    """ShapeDtypeStructs with jax2onnx's string dims for dynamic axes."""
    dyn = {}
    for _, t, marks in _dims.bind_dynamic_shapes(mod.forward, args, kwargs, dynamic_shapes):
        dyn[id(t)] = {d: (m.__name__ if isinstance(m, _dims.Dim) else f"s{i}")
                      for i, (d, m) in enumerate(marks.items())}
    by_name = dict(zip(names, (t for _, t in tensors)))
    for name, axes in (dynamic_axes or {}).items():
        t = by_name.get(name)
        if t is not None:
            named = _proto.axis_names(name, axes)
            dyn[id(t)] = {int(d) % t.dim(): str(s) for d, s in named.items()}
    specs = []
    for _, t in tensors:
        marks = dyn.get(id(t), {})
        shape = tuple(marks.get(d, s) for d, s in enumerate(t.shape))
        specs.append(jax.ShapeDtypeStruct(shape, t._value.dtype))
    return specs


def _function(mod, in_spec, n_in, weights):
    """A pure JAX function of the flat inputs (and of the weights, if not constants)."""

    def draw(gen):
        raise OnnxExporterError(
            "torch.onnx.export: the model draws random numbers (dropout in training mode, "
            "torch.rand...), which jtorch's ONNX export would freeze into constants; "
            "export in eval mode (training=TrainingMode.EVAL)")

    def fn(*arrays):
        with sandbox(draw) as rec:
            for t, v in zip(weights, arrays[n_in:]):
                rec.bind(t._storage, v)
            a, kw = _pytree.unflatten(in_spec, [wrap(v) for v in arrays[:n_in]])
            with grad_mode.no_grad():
                out = mod(*a, **kw)
            leaves = []
            _pytree.flatten(out, leaves)
            return tuple(t._value for _, t in leaves)

    return fn


@contextlib.contextmanager
def _plain_jax2onnx():
    """jax2onnx as a converter of primitives only: JAX's x64 mode stays as jtorch sets it
    and jax2onnx's substitutions of ``jax.numpy`` functions stay off (jtorch's code is
    traced unchanged)."""
    _, _, user_interface, conversion_api, _, import_all_plugins = _jax2onnx()

    @contextlib.contextmanager
    def plugins_only():
        _load_plugins(import_all_plugins)
        yield

    @contextlib.contextmanager
    def keep_x64(_enabled):
        yield

    saved = (conversion_api._activate_plugin_worlds, conversion_api._force_jax_x64,
             user_interface._temporary_x64)
    conversion_api._activate_plugin_worlds = plugins_only
    conversion_api._force_jax_x64 = user_interface._temporary_x64 = keep_x64
    try:
        yield
    finally:
        (conversion_api._activate_plugin_worlds, conversion_api._force_jax_x64,
         user_interface._temporary_x64) = saved


_plugins_loaded = [False]


def _load_plugins(import_all_plugins) -> None:
    """The converters of JAX primitives only (``jax2onnx.plugins.jax``): jtorch's programs
    contain nothing else, and importing the Flax/Equinox/example plugins too costs
    several times as long."""
    if _plugins_loaded[0]:
        return
    from pathlib import Path

    from jax2onnx.plugins import plugin_system

    tree = getattr(plugin_system, "_import_tree", None)
    if tree is None:
        import_all_plugins()
    else:
        tree(Path(plugin_system.__file__).parent / "jax", "jax2onnx.plugins.jax")
    _plugins_loaded[0] = True


@contextlib.contextmanager
def _quiet():
    """jax2onnx's IR library logs a warning per constant whose type it infers later."""
    log = logging.getLogger("onnx_ir")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            yield
    finally:
        log.setLevel(level)


def _verify(program, mod, args, kwargs) -> None:
    import numpy as np

    with grad_mode.no_grad():
        expected = []
        _pytree.flatten(mod(*args, **kwargs), expected)
    got = program(*args, **kwargs)
    for (_, e), g in zip(expected, got):
        np.testing.assert_allclose(np.asarray(g._value), np.asarray(e.detach()._value),
                                   rtol=1e-4, atol=1e-5,
                                   err_msg="torch.onnx.export(verify=True)")


def _artifacts(program, mod, args, kwargs, artifacts_dir, report, dump) -> None:
    os.makedirs(artifacts_dir, exist_ok=True)
    name = type(mod).__name__
    if dump:
        from ..export import export as export_program
        from ..export import save

        save(export_program(mod, args, kwargs), os.path.join(artifacts_dir, f"{name}.pt2"))
    if report:
        counts = {}
        for node in program.model_proto.graph.node:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
        lines = [f"# ONNX export report: {name}", "", "| op | count |", "| --- | --- |"]
        lines += [f"| {k} | {v} |" for k, v in sorted(counts.items())]
        with open(os.path.join(artifacts_dir, f"onnx_export_{name}_report.md"), "w") as fh:
            fh.write("\n".join(lines) + "\n")

