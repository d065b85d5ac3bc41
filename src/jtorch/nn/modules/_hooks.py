"""Module hook plumbing: removable handles and the full backward hooks.

A full backward hook sees the gradients w.r.t. a module's inputs and outputs. As in
PyTorch, the module's tensor inputs and outputs each pass through an identity autograd
Function (``BackwardHookFunction``); a post hook on the output node captures the output
gradients (running backward pre-hooks, which may replace them), and a post hook on the
input node calls the user's hooks with both (they may replace the input gradients).
"""

from __future__ import annotations

import functools
import itertools
import warnings

from ...eager.autograd import grad_mode
from ...eager.autograd.function import Function
from ...eager.tensor import Tensor


class RemovableHandle:
    """What ``register_*_hook`` returns: ``.remove()`` drops the hook (and its flags)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._next_id)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dicts = tuple(extra_dict)

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)
        for d in self.extra_dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def add_hook(hooks: dict, hook, *, prepend: bool = False, extra=()) -> RemovableHandle:
    """Store ``hook`` in ``hooks`` (first when ``prepend``); ``extra``: dicts flagging it."""
    handle = RemovableHandle(hooks, extra_dict=list(extra))
    hooks[handle.id] = hook
    for d in extra:
        d[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class BackwardHookFunction(Function):
    """Identity on tensors; its node is where module backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _pack(indices, values, size):
    out = [None] * size
    for i, v in zip(indices, values, strict=True):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """Calls a module's full backward (pre-)hooks once its gradients are known."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module, self.user_hooks, self.user_pre_hooks = module, user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = self.n_inputs = -1
        self.output_tensors_index = self.input_tensors_index = None

    def _apply_on_tensors(self, fn, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        fn(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(idx, new, strict=True):
            out[i] = t
        return tuple(out), idx

    def _input_hook(self, grad_input, _):
        if self.grad_outputs is None:
            return None
        res = _pack(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)

    def setup_input_hook(self, args):
        res, self.input_tensors_index = self._apply_on_tensors(
            lambda fn: fn.register_hook(self._input_hook), args)
        self.n_inputs = len(args)
        return res

    def _output_hook(self, _, grad_output):
        self.grad_outputs = _pack(self.output_tensors_index, grad_output, self.n_outputs)
        for pre in self.user_pre_hooks:
            new = pre(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        args = (result,) if single else result
        res, self.output_tensors_index = self._apply_on_tensors(
            lambda fn: fn.register_hook(self._output_hook), args)
        self.n_outputs = len(args)
        return res[0] if single else res


def _run_forward_pre_hooks(module, G, args, kwargs):
    for hook_id, hook in (*G._global_forward_pre_hooks.items(),
                          *module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            res = hook(module, args, kwargs)
            if res is not None:
                if not (isinstance(res, tuple) and len(res) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {res}.")
                args, kwargs = res
        else:
            res = hook(module, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
    return args, kwargs


def _forward_hooks(module, G):
    return (*G._global_forward_hooks.items(), *module._forward_hooks.items())


def _with_kwargs(module, G, hook_id) -> bool:
    return (hook_id in module._forward_hooks_with_kwargs
            or hook_id in G._global_forward_hooks_with_kwargs)


def call_with_hooks(module, forward_call, args, kwargs):
    """``Module._call_impl`` when some hook is registered (PyTorch's order and rules)."""
    from . import module as G

    called = set()
    state = {"args": args, "kwargs": kwargs, "result": None}
    try:
        return _inner(module, G, forward_call, state, called)
    except Exception:
        for hook_id, hook in _forward_hooks(module, G):
            always = (hook_id in module._forward_hooks_always_called
                      or hook_id in G._global_forward_hooks_always_called)
            if not always or hook_id in called:
                continue
            try:
                a, k, r = state["args"], state["kwargs"], state["result"]
                out = (hook(module, a, k, r) if _with_kwargs(module, G, hook_id)
                       else hook(module, a, r))
                if out is not None:
                    state["result"] = out
            except Exception as e:  # noqa: BLE001 - PyTorch silences these with a warning
                warnings.warn("module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=2)
        raise


def _inner(module, G, forward_call, state, called):
    full_hooks, non_full_hooks = [], []
    pre_hooks = []
    if module._backward_pre_hooks or G._global_backward_pre_hooks:
        pre_hooks = [*G._global_backward_pre_hooks.values(),
                     *module._backward_pre_hooks.values()]
    if module._backward_hooks or G._global_backward_hooks:
        full_hooks, non_full_hooks = module._get_backward_hooks()
    args, kwargs = _run_forward_pre_hooks(module, G, state["args"], state["kwargs"])
    state["args"], state["kwargs"] = args, kwargs
    bw_hook = None
    if full_hooks or pre_hooks:
        bw_hook = BackwardHook(module, full_hooks, pre_hooks)
        args = bw_hook.setup_input_hook(args)
        state["args"] = args
    result = state["result"] = forward_call(*args, **kwargs)
    for hook_id, hook in _forward_hooks(module, G):
        if (hook_id in module._forward_hooks_always_called
                or hook_id in G._global_forward_hooks_always_called):
            called.add(hook_id)
        out = (hook(module, args, kwargs, result) if _with_kwargs(module, G, hook_id)
               else hook(module, args, result))
        if out is not None:
            result = state["result"] = out
    if bw_hook:
        if not isinstance(result, Tensor | tuple):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or "
                          f"a tuple of Tensors but received {type(result)}", stacklevel=2)
        result = bw_hook.setup_output_hook(result)
    if non_full_hooks:
        var = result
        while not isinstance(var, Tensor):
            var = (next(v for v in var.values() if isinstance(v, Tensor))
                   if isinstance(var, dict) else var[0])
        if var.grad_fn is not None:
            for hook in non_full_hooks:
                var.grad_fn.register_hook(functools.partial(hook, module))
    return result
