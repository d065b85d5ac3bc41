"""torch.autograd.Function: user-defined forward/backward pairs recorded as graph nodes."""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ..tensor import Tensor, wrap
from . import grad_mode
from .node import FREED_MSG, Node, describe, modified_error


class FunctionCtx:
    """The ``ctx`` a Function's forward and backward share."""

    def __init__(self):
        self._to_save = ()
        self._saved = ()
        self._dirty = ()
        self._non_diff = ()
        self._node = None
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors) -> None:
        # Versions are taken when apply() finishes, as PyTorch builds its SavedVariables
        # after wrapping the outputs (mark_dirty's bump included).
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self):
        node = self._node
        if node is not None and node._freed and self._saved:
            raise RuntimeError(FREED_MSG)
        out = []
        for t, version in self._saved:
            if isinstance(t, Tensor) and t._version != version:
                raise modified_error(t._version, version, describe(t), t.grad_fn, t._output_nr)
            out.append(t)
        return tuple(out)

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def _freeze_saved(self) -> None:
        self._saved = tuple((t, t._version) if isinstance(t, Tensor) else (t, None)
                            for t in self._to_save)


class BackwardNode(Node):
    """The graph node of one ``Function.apply`` call; unknown attributes read from ``ctx``."""

    def __init__(self, cls, ctx, args, outputs_meta):
        tensors = [a for a in args if isinstance(a, Tensor)]
        super().__init__([t._edge() if t.requires_grad else (None, 0) for t in tensors])
        self._name = f"{cls.__name__}Backward"
        self._cls, self.ctx, self._meta = cls, ctx, outputs_meta
        # Per forward argument: (shape, dtype) of a tensor that needs a gradient, else None.
        self._in_meta = [(a._shape, a.dtype) if isinstance(a, Tensor) and a.requires_grad
                         else None for a in args]
        self._arg_is_tensor = [isinstance(a, Tensor) for a in args]
        self._freed = False
        ctx._node = self

    def __getattr__(self, name):  # PyTorch's grad_fn *is* the ctx: grad_fn.saved_tensors
        if name.startswith("_") or name == "ctx":
            raise AttributeError(name)
        return getattr(self.ctx, name)

    def release(self) -> None:
        self._freed = True

    def check_saved(self) -> None:
        if self._freed and self.ctx._saved:
            raise RuntimeError(FREED_MSG)

    def apply(self, grads, create_graph):
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
            n = len(self._in_meta)
            if len(result) < n or any(r is not None for r in result[n:]):
                raise RuntimeError(
                    f"function {self._name} returned an incorrect number of gradients (expected "
                    f"{n}, got {len(result)})"
                )
            out = []
            args = zip(result, self._in_meta, self._arg_is_tensor, strict=False)
            for i, (g, meta, is_t) in enumerate(args):
                if not is_t and g is not None:
                    raise RuntimeError(
                        f"function {self._name} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
                if is_t:
                    out.append(self._validate(i, g, meta))
            return out

    def _validate(self, i, g, meta):
        """PyTorch's validate_outputs: sum a broadcast gradient down, cast its dtype."""
        if g is not None and not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        if g is None:
            return None
        if meta is None:  # no edge: the engine drops it, but hooks see it, as in PyTorch
            return g
        shape, dtype = meta
        if g._shape != shape:
            if not _expandable(shape, g._shape):
                raise RuntimeError(
                    f"Function {self._name} returned an invalid gradient at index {i} - got "
                    f"{list(g._shape)} but expected shape compatible with {list(shape)}"
                )
            g = _sum_to(g, shape)
        return g if g.dtype is dtype else g.to(dtype)


def _expandable(shape, target) -> bool:
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target), strict=False))


def _sum_to(g: Tensor, shape) -> Tensor:
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + d for d, s in enumerate(shape) if s == 1 and g._shape[lead + d] != 1)
    return g.sum(dims, keepdim=True).view(shape) if dims else g.view(shape)


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; ``.apply``."""

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
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        record = grad_mode._state.enabled and any(
            isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        new_style = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if new_style:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = _wrap_outputs(cls, ctx, args, (outputs,) if single else outputs, record)
        ctx._freeze_saved()
        return outs[0] if single else tuple(outs)


def _wrap_outputs(cls, ctx, args, outs, record: bool):
    """PyTorch's _wrap_outputs: fresh aliases for returned inputs, dirty bumps, graph edges."""
    meta = [(o._shape, o.dtype.np) if isinstance(o, Tensor) and o.dtype._kind >= 2
            and not any(o is n for n in ctx._non_diff) else None for o in outs]
    node = BackwardNode(cls, ctx, args, meta) if record else None
    inputs = [a for a in args if isinstance(a, Tensor)]
    result = []
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            result.append(o)
            continue
        if any(o is d for d in ctx._dirty):
            if record:
                from ..views import check_inplace

                check_inplace(o)
            o._vc.version += 1  # PyTorch bumps a dirty output once more when wrapping it
        elif any(o is i for i in inputs):
            with grad_mode.no_grad():
                o = o.view_as(o)  # an input returned as-is comes back as a new tensor
        if node is not None and meta[nr] is not None:
            o._grad_fn, o._output_nr = node, nr
        result.append(o)
    return result


def once_differentiable(fn):
    """Run ``backward`` without recording; differentiating its result again raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or not any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = _DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            len(outs))
        wrapped = []
        for nr, o in enumerate(outs):
            if isinstance(o, Tensor) and o.dtype._kind >= 2:
                o = o.detach()
                o._grad_fn, o._output_nr = err, nr
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


class _DelayedError(Node):
    """A node whose backward raises: the result of a once_differentiable backward."""

    _name = "DelayedError"

    def __init__(self, msg: str, n_outputs: int):
        super().__init__([(None, 0)] * n_outputs)
        self._msg = msg

    def apply(self, grads, create_graph):
        raise RuntimeError(self._msg)
