"""torch.onnx.errors: the exceptions of the ONNX exporter."""

from __future__ import annotations

__all__ = ["OnnxExporterError", "UnsupportedOperatorError", "SymbolicValueError",
           "CheckerError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operation the exporter has no ONNX conversion for."""


class SymbolicValueError(OnnxExporterError):
    """A value the exporter cannot represent."""


class CheckerError(OnnxExporterError):
    """The ONNX checker rejected the exported model."""
