"""nn.Module: attribute-based registration of parameters, buffers and submodules.

Mirrors ``torch.nn.modules.module``: the same dicts (``_parameters``, ``_buffers``,
``_modules``, hook tables), the same traversal order and names, ``state_dict`` /
``load_state_dict`` with PyTorch's keys, metadata and error messages, forward and full
backward hooks, and in-place conversion (``to``/``float``/...) that keeps each
Parameter object.

Differences from PyTorch: TorchScript, swap-tensors conversion and the deprecated non-full
``register_backward_hook`` corner cases are not modelled.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping

from ...eager import hooks
from ...eager.autograd import grad_mode
from ...eager.tensor import Tensor
from ..parameter import Buffer, Parameter
from ._hooks import RemovableHandle, add_hook

__all__ = ["Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# Hooks every module runs (torch.nn.modules.module.register_module_*_hook).
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook run by every module before its own."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook run by every module before its own."""
    extra = [d for d, on in ((_global_forward_hooks_with_kwargs, with_kwargs),
                             (_global_forward_hooks_always_called, always_call)) if on]
    return add_hook(_global_forward_hooks, hook, extra=extra)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    return add_hook(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    return add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    return add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    return add_hook(_global_parameter_registration_hooks, hook)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_: str, num_spaces: int) -> str:
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    rest = [(num_spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def _typename(obj) -> str:
    """torch.typename: ``torch.FloatTensor`` for tensors, the qualified type otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    else:
        module, qualname = type(obj).__module__, type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _run_hooks(hooks, *args):
    for hook in hooks.values():
        hook(*args)


def _note_change(module, d, name, value) -> None:
    """Tell torch.compile about an attribute change: a buffer replaced inside a trace is a
    tensor slot (replayed by the program); anything else is a Python change."""
    buffers = d.get("_buffers")
    if buffers is not None and name in buffers:
        if buffers[name] is value:
            return
        if hooks.RECORDER is not None and isinstance(value, Tensor):
            hooks.slot_write(buffers, name)
            return
    elif d.get(name, _UNSET) is value:
        return
    elif name == "training":  # a compiled program guards the flags of the modules it calls
        hooks.EPOCH[2] += 1
        if hooks.RECORDER is not None:
            hooks.RECORDER.python_write(module)
        return
    else:
        for table in ("_parameters", "_modules"):
            t = d.get(table)
            if t is not None and name in t and t[name] is value:
                return
    hooks.python_write(module)


_UNSET = object()


class Module:
    """Base class for all neural network modules."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        if hooks.RECORDER is not None:  # a module built inside a compile trace is its own
            hooks.RECORDER.born_object(self)
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        for name in ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            setattr_(name, OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------ registration

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (in state_dict unless not persistent)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            tensor = _or(hook(self, name, tensor), tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def _check_name(self, name, kind: str, table: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"" if kind != "module"
                           else f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, which state_dict and conversions skip)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            param = _or(hook(self, name, param), param)
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as the attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._check_name(name, "module", self._modules)
        for hook in _global_module_registration_hooks.values():
            module = _or(hook(self, name, module), module)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _get_leaf(self, target: str):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name

    def get_parameter(self, target: str) -> Parameter:
        mod, name = self._get_leaf(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        mod, name = self._get_leaf(target)
        buf = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def get_extra_state(self):
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    # ------------------------------------------------------------ attributes

    def __getattr__(self, name: str):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        _note_change(self, d, name, value)
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module) or (d.get("_modules") is not None
                                           and name in d["_modules"]):
            modules = d.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if value is not None and not isinstance(value, Module):
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            _remove(name, d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                value = _or(hook(self, name, value), value)
            modules[name] = value
        elif isinstance(value, Buffer) or (d.get("_buffers") is not None and name in d["_buffers"]):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = (value.persistent if isinstance(value, Buffer)
                          else name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
        else:
            super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        hooks.python_write(self)
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = [*dir(self.__class__), *self.__dict__, *self._parameters, *self._modules,
                *self._buffers]
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------ traversal

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # ------------------------------------------------------------ modes and grads

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()

    def share_memory(self) -> Module:
        """Move every parameter, gradient and buffer to shared memory (``share_memory_``)."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------ conversion

    def _apply(self, fn, recurse: bool = True) -> Module:
        """Apply ``fn`` to every parameter (in place: the Parameter object stays), its grad
        and every buffer."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with grad_mode.no_grad():
                applied = fn(param)
            _set_data(param, applied)
            if param._grad is not None:
                with grad_mode.no_grad():
                    _set_data(param._grad, fn(param._grad))
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first), then on ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers in place (dtype: floating ones only)."""
        from ...eager.methods import _parse_to

        device, dtype, _ = _parse_to(args, kwargs)
        memory_format = kwargs.get("memory_format")
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers. Please file an issue at "
                    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if "
                    "a complex module does not work as expected.", stacklevel=2)

        def convert(t):
            kw = {} if device is None else {"device": device}
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kw["dtype"] = dtype
            if memory_format is not None and t.dim() in (4, 5):  # as PyTorch: 4-d/5-d only
                kw["memory_format"] = memory_format
            return t.to(**kw) if kw else t

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        import jtorch

        return self._apply(lambda t: jtorch.empty_like(t, device=device), recurse=recurse)

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ------------------------------------------------------------ hooks

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``(module, args, kwargs)``) before ``forward``."""
        extra = [self._forward_pre_hooks_with_kwargs] if with_kwargs else []
        return add_hook(self._forward_pre_hooks, hook, prepend=prepend, extra=extra)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` after ``forward``; a non-None return replaces it."""
        extra = [d for d, on in ((self._forward_hooks_with_kwargs, with_kwargs),
                                 (self._forward_hooks_always_called, always_call)) if on]
        return add_hook(self._forward_hooks, hook, prepend=prepend, extra=extra)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` before the module's input gradients are computed."""
        return add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)``: gradients w.r.t. inputs and outputs."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated: the hook sees the gradients of the output's last node."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        return add_hook(self._backward_hooks, hook)

    def _get_backward_hooks(self):
        full, non_full = [], []
        if self._is_full_backward_hook is True or _global_backward_hooks:
            full = [*_global_backward_hooks.values()]
            if self._is_full_backward_hook is True:
                full += self._backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full = list(self._backward_hooks.values())
        return full, non_full

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after; must return None."""
        hook._from_public_api = True
        return add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
        error_msgs)`` before this module loads."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False) -> RemovableHandle:
        fn = functools.partial(hook, self) if with_module else hook
        return add_hook(self._load_state_dict_pre_hooks, fn)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after loading; may edit the key lists."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------ calling

    def _call_impl(self, *args, **kwargs):
        if hooks.RECORDER is not None:  # torch.compile guards this module's training flag
            hooks.RECORDER.module_called(self)
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        from ._hooks import call_with_hooks

        return call_with_hooks(self, forward_call, args, kwargs)

    def _wrapped_call_impl(self, *args, **kwargs):
        compiled = self.__dict__.get("_compiled_call_impl")
        if compiled is not None:
            return compiled(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__ = _wrapped_call_impl

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's ``__call__`` with ``jtorch.compile``."""
        import jtorch

        self._compiled_call_impl = jtorch.compile(self._call_impl, *args, **kwargs)

    # ------------------------------------------------------------ state dict

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of parameters and persistent buffers (detached aliases, sharing
        storage), keyed by dotted names; it carries ``_metadata`` (each module's version)."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                "state_dict for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        from ._state_dict import load_from_state_dict

        load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False):
        """Copy ``state_dict`` into parameters and buffers in place (or assign them).

        Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``; with ``strict`` a
        mismatch raises PyTorch's RuntimeError.
        """
        from ._state_dict import load_state_dict

        return load_state_dict(self, state_dict, strict, assign)

    # ------------------------------------------------------------ printing

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def _replicate_for_data_parallel(self) -> Module:
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica


def _or(value, default):
    return default if value is None else value


def _remove(name, *tables) -> None:
    for t in tables:
        if name in t:
            if isinstance(t, dict):
                del t[name]
            else:
                t.discard(name)


def _set_data(t: Tensor, new: Tensor) -> None:
    """Point ``t`` at ``new``'s data (``t.data = new``), device included."""
    if new is t:
        return
    t.data = new
    t._device = new._device

