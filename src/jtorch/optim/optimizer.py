"""torch.optim.Optimizer: parameter groups, per-parameter state, state dicts and hooks.

The optimizers of this package write one pure per-parameter update in
``jtorch.functional.optim``; ``_FunctionalOptimizer`` applies it to every parameter of a
group through one jitted kernel per (update, structural flags) (JAX keys it further by
shapes and dtypes). Hyperparameters are kernel operands, so changing ``lr`` in a group
(a scheduler) never recompiles. New values are written into the parameters' and state
tensors' storages in place: versions bump and views see them, as in PyTorch.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import jax

from .. import _kernels
from ..eager import hooks
from ..eager.autograd.grad_mode import enable_grad, no_grad
from ..eager.autograd.node import RemovableHandle
from ..eager.tensor import Tensor, wrap
from ..eager.views import write
from ..functional import optim as F

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()
_global_pre_hooks: OrderedDict = OrderedDict()
_global_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run before every optimizer's step."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run after every optimizer's step."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _hooked(step):
    """``step`` running the global and per-optimizer step hooks around it, as torch."""

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]  # hooks see the full ``args``, ``self`` included, as in PyTorch
        for pre in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for post in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            post(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


def _typename(x) -> str:
    """torch.typename: ``torch.FloatTensor`` for tensors, the qualified class name otherwise."""
    if isinstance(x, Tensor):
        from .._dtypes import legacy_name

        return f"torch.{legacy_name(x.dtype)}Tensor"
    return type(x).__module__ + "." + type(x).__qualname__


class Optimizer:
    """Base class for all optimizers: ``params`` is an iterable of tensors, of
    ``(name, tensor)`` pairs, or of dicts (parameter groups with their own options)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post",
                     "load_state_dict_pre", "load_state_dict_post"):
            self.__dict__.setdefault(f"_optimizer_{name}_hooks", OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    # ------------------------------------------------------------ hooks

    def _register(self, hooks: OrderedDict, hook, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------ state dicts

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: per-parameter state}, "param_groups": [options + indices]}``;
        the state tensors are the live ones (not copies), as in PyTorch."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start)
                            if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, out)
            if result is not None:
                out = result
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``. State tensors are shared, not copied, except that
        floating state is cast to its parameter's dtype (``step`` is kept as it is)."""
        hooks.python_write(self)
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = _cast(id_map[k], v)
            else:
                state[k] = v
        for g, ng in zip(groups, saved_groups, strict=True):
            ng["params"] = g["params"]
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ------------------------------------------------------------ groups and gradients

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients: to None (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Perform a single optimization step (implemented by each optimizer)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (missing ones from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        hooks.python_write(self)
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p
                                 for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(id(p) for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _cast(param: Tensor, value, key=None):
    """load_state_dict's copy of one parameter's state: floating state tensors take the
    parameter's dtype (``Tensor.to`` returns the same tensor when nothing changes)."""
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        return type(value)(_cast(param, v) for v in value)
    return value


# ------------------------------------------------------------------ functional optimizers

_KERNELS: dict = {}


def _kernel(update, statics: tuple, n: int):
    """The jitted step of a whole group of ``n`` parameters: ``update`` mapped over them."""
    many = n >= _kernels.MANY
    k = _KERNELS.get((update, statics, many))
    if k is None:
        one = functools.partial(F.real_view(update), **dict(statics))

        def group_step(params, grads, states, hyper):
            return [one(p, g, s, **hyper) for p, g, s in zip(params, grads, states, strict=True)]

        # One loop per parameter, with the eager kernels' options; a big group's many
        # small loops compile 1.5-3x faster with XLA's fusion emitters (see _kernels).
        name = ("optimizer", update, statics, many)  # kept on disk if jtorch's own update
        k = _kernels.jit(group_step, xla_defaults=many, name=name)
        _KERNELS[(update, statics, many)] = k
    return k


def _operand(x):
    """A hyperparameter as a kernel operand: a Python float, a tensor's 0-d value, or (in a
    torch.compile trace) a traced scalar."""
    if isinstance(x, Tensor):
        return x._value.reshape(())
    if isinstance(x, jax.Array):
        return x
    return float(x)


def scalar_dtype():
    """torch's dtype for scalar state (``step``): float64 when that is the default."""
    from .. import _dtypes as D

    return D.float64.np if D.get_default_dtype() is D.float64 else D.float32.np


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


class _FunctionalOptimizer(Optimizer):
    """An optimizer defined by a pure update from ``jtorch.functional.optim``.

    A subclass sets ``_update`` and says how a group maps onto it: ``_statics(group)``
    (structural flags: they key the compiled kernel), ``_hyper(group)`` (scalar operands)
    and ``_init_state(p, group)`` (the first state of a parameter, as arrays)."""

    _update = None

    def _statics(self, group) -> dict:
        return {}

    def _hyper(self, group) -> dict:
        return {}

    def _init_state(self, p: Tensor, group) -> dict:
        return {}

    def _dense_grad(self, grad, group):
        """A sparse gradient's values for the update, where PyTorch's optimizer takes one
        (SGD and Adagrad override this); others raise PyTorch's error."""
        raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")

    def __init__(self, params, defaults):
        if defaults.get("differentiable"):
            raise RuntimeError("jtorch optimizers do not support differentiable=True: the "
                               "update is not recorded by autograd")
        super().__init__(params, defaults)
        if _kernels.BACKGROUND and hooks.RECORDER is None:
            for group in self.param_groups:
                self._compile_ahead(group)

    def _compile_ahead(self, group) -> None:
        """Queue the compile of ``group``'s first step on the background thread (see
        ``_kernels.ahead_job``), for the call ``_step_group`` makes when every parameter
        requiring grad has a dense gradient of its own type and its first state."""
        params = [p for p in group["params"] if p.requires_grad]
        if not params or any(p.is_sparse or not isinstance(p._value, jax.Array)
                             or isinstance(p._value, jax.core.Tracer) for p in params):
            return
        kernel = _kernel(type(self)._update, tuple(sorted(self._statics(group).items())),
                         len(params))
        hyper = {k: _operand(v) for k, v in self._hyper(group).items()}
        values = [p._value for p in params]
        grads = [jax.ShapeDtypeStruct(v.shape, v.dtype, sharding=v.sharding if v.committed
                                      else None) for v in values]

        def job():  # the first states' types, traced here rather than built on the host
            states = [jax.eval_shape(lambda p=p: {k: v._value if isinstance(v, Tensor) else v
                                                  for k, v in self._init_state(p, group).items()})
                      for p in params]
            _kernels.compile_for(kernel.jitted(), values, grads, states, hyper)

        sig = (kernel, tuple((v.shape, v.dtype, v.committed) for v in values),
               tuple(sorted((k, type(v)) for k, v in hyper.items())))
        _kernels.ahead_job(sig, job)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # Old checkpoints hold ``step`` as a Python number; PyTorch turns it into a tensor.
        for s in self.state.values():
            if isinstance(s, dict) and "step" in s and not isinstance(s["step"], Tensor):
                s["step"] = wrap(jax.numpy.asarray(float(s["step"]), scalar_dtype()))

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group) -> None:
        params = [p for p in group["params"] if p.grad is not None]
        if not params:
            return
        states = []
        rec = hooks.RECORDER
        for p in params:
            if rec is not None:
                rec.slot_read(self.state, p)
            state = self.state.get(p)
            if not state:
                state = {k: _state_tensor(v, p) for k, v in self._init_state(p, group).items()}
                if state:
                    hooks.slot_write(self.state, p)
                    self.state[p] = state
                    if rec is not None:
                        rec.born_object(state)
            states.append(state or {})
        values = [{k: v._value for k, v in s.items() if isinstance(v, Tensor)} for s in states]
        hyper = self._hyper(group)
        statics = self._statics(group)
        if rec is not None:  # torch.compile: Python numbers become traced scalars
            hyper = rec.hyper(self, group, hyper)
            rec.group(self, group, statics)
        hyper = {k: _operand(v) for k, v in hyper.items()}
        kernel = _kernel(type(self)._update, tuple(sorted(statics.items())), len(params))
        grads = [self._dense_grad(p.grad, group) if p.grad.is_sparse else p.grad._value
                 for p in params]
        out = kernel([p._value for p in params], grads, values, hyper)
        for p, state, (new_p, new_s) in zip(params, states, out, strict=True):
            write(p, new_p)
            for k, v in new_s.items():
                t = state.get(k)
                if isinstance(t, Tensor) and t._shape == v.shape and t.dtype.np == v.dtype:
                    write(t, v)
                else:
                    _new_state(self.state, p, k, _state_tensor(v, p))


def _new_state(table, p, key, t) -> None:
    """Add state ``key`` of parameter ``p`` (torch.compile replays it as a slot)."""
    state = table.get(p)
    if state is None:
        hooks.slot_write(table, p)
        state = table[p] = {}
        if hooks.RECORDER is not None:
            hooks.RECORDER.born_object(state)
    else:
        hooks.slot_write(state, key)
    state[key] = t


def _state_tensor(value, p: Tensor) -> Tensor:
    return wrap(value)  # its device is its value's (``Tensor._device``)
