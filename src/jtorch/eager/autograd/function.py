"""torch.autograd.Function: user-defined forward/backward pairs recorded as graph nodes."""

from __future__ import annotations

from ..tensor import Tensor, wrap
from . import grad_mode
from .node import Node, describe


class FunctionCtx:
    """The ``ctx`` a Function's forward and backward share."""

    def __init__(self):
        self._saved = ()
        self._dirty = ()
        self._non_diff = ()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors) -> None:
        self._saved = tuple((t, t._version) if isinstance(t, Tensor) else (t, None)
                            for t in tensors)

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self):
        node = getattr(self, "_node", None)
        if node is not None and node._freed:
            from .node import FREED_MSG

            raise RuntimeError(FREED_MSG)
        out = []
        for i, (t, version) in enumerate(self._saved):
            if isinstance(t, Tensor) and t._version != version:
                name = node._name if node is not None else "Function"
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{describe(t)}], which is output {i} of {name}, is at "
                    f"version {t._version}; expected version {version} instead. Hint: enable "
                    "anomaly detection to find the operation that failed to compute its gradient, "
                    "with torch.autograd.set_detect_anomaly(True)."
                )
            out.append(t)
        return tuple(out)

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


class BackwardNode(Node):
    """The graph node of one ``Function.apply`` call."""

    def __init__(self, cls, ctx, edges, outputs_meta):
        super().__init__(edges)
        self._name = f"{cls.__name__}Backward"
        self._cls, self.ctx, self._meta = cls, ctx, outputs_meta
        self._freed = False
        ctx._node = self

    def release(self) -> None:
        self._freed = True

    def check_saved(self) -> None:
        if self._freed and self.ctx._saved:
            from .node import FREED_MSG

            raise RuntimeError(FREED_MSG)

    def apply(self, grads, create_graph):
        import jax.numpy as jnp

        full = []
        for i, meta in enumerate(self._meta):
            g = grads[i] if i < len(grads) else None
            if g is None and self.ctx.materialize_grads and meta is not None:
                g = jnp.zeros(meta[0], meta[1])
            full.append(None if g is None else (g if isinstance(g, Tensor) else wrap(g)))
        with grad_mode.set_grad_enabled(create_graph):
            result = self._cls.backward(self.ctx, *full)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.ctx._arg_is_tensor)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(
                f"function {self._name} returned an incorrect number of gradients (expected {n}, "
                f"got {len(result)})"
            )
        out = []
        for (node, _), g, is_t in zip(self._all_edges, result, self.ctx._arg_is_tensor):
            if is_t:
                out.append(g if node is not None else None)
        return out


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``.apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        return _SETUP_NOT_OVERRIDDEN

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = grad_mode._state.enabled and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        custom_setup = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            outputs = cls.forward(*args, **kwargs) if custom_setup else cls.forward(
                ctx, *args, **kwargs)
        if custom_setup:
            cls.setup_context(ctx, args, outputs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if record:
            outs = _connect(cls, ctx, args, outs)
        return outs[0] if single else tuple(outs)


_SETUP_NOT_OVERRIDDEN = object()


def _connect(cls, ctx, args, outs):
    edges = [a._edge() if a.requires_grad else (None, 0) for a in args if isinstance(a, Tensor)]
    meta = [(o._shape, o.dtype.np) if isinstance(o, Tensor) and o.dtype._kind >= 2
            and not any(o is n for n in ctx._non_diff) else None for o in outs]
    node = BackwardNode(cls, ctx, [e for e in edges], meta)
    node._all_edges = [a._edge() if isinstance(a, Tensor) and a.requires_grad else (None, 0)
                       for a in args]
    node.next_functions = tuple(edges)
    result = []
    inputs = [a for a in args if isinstance(a, Tensor)]
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor) or meta[nr] is None:
            result.append(o)
            continue
        if any(o is i for i in inputs) and not any(o is d for d in ctx._dirty):
            o = o.view_as(o)  # an input returned as-is becomes a view, as in PyTorch
        if any(o is d for d in ctx._dirty):
            from ..views import check_inplace

            check_inplace(o)
        o._grad_fn, o._output_nr = node, nr
        result.append(o)
    return result
