"""torch.onnx: ``export`` writes a standard ONNX file through the ``jax2onnx`` package.

The model's forward is traced into one pure JAX function of its inputs (weights as
constants, or as graph inputs with ``export_params=False``) and converted by jax2onnx;
install it with ``pip install 'jtorch[onnx]'``. Importing ``torch.onnx`` never needs it.
"""

from __future__ import annotations

import contextlib

from . import errors
from ._export import ONNXProgram, OperatorExportTypes, TrainingMode, export, is_in_onnx_export
from .errors import OnnxExporterError

__all__ = ["export", "ONNXProgram", "is_in_onnx_export", "OperatorExportTypes",
           "TrainingMode", "register_custom_op_symbolic", "unregister_custom_op_symbolic",
           "select_model_mode_for_export", "errors", "OnnxExporterError", "producer_name",
           "producer_version", "dynamo_export"]

producer_name = "jtorch"
producer_version = "0.1.0"


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn, opset_version: int) -> None:
    """Raises: symbolic functions build TorchScript-exporter graphs, which jtorch's
    exporter (jax2onnx, from the JAX program) does not use."""
    raise OnnxExporterError(
        f"register_custom_op_symbolic({symbolic_name!r}): jtorch exports ONNX through "
        "jax2onnx from the model's JAX program and cannot call TorchScript symbolic "
        "functions; every jtorch op is made of JAX primitives that jax2onnx converts")


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    """Nothing can be registered (see ``register_custom_op_symbolic``), so nothing to undo."""


@contextlib.contextmanager
def select_model_mode_for_export(model, mode: TrainingMode):
    """Put ``model`` in ``mode``'s train/eval state for the block, then restore it."""
    was = model.training
    if mode is not TrainingMode.PRESERVE:
        model.train(mode is TrainingMode.TRAINING)
    try:
        yield
    finally:
        model.train(was)


def dynamo_export(model, /, *model_args, export_options=None, **model_kwargs):
    """The deprecated ``dynamo_export``: ``export(model, args, kwargs=..., dynamo=True)``."""
    return export(model, model_args, kwargs=model_kwargs, dynamo=True)
