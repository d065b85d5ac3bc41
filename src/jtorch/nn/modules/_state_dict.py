"""``Module.load_state_dict``: PyTorch's key matching, in-place copies and error messages."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Mapping

from ...eager.autograd import grad_mode
from ...eager.tensor import Tensor
from ..parameter import Parameter, is_lazy

_EXTRA = "_extra_state"


def _copy_in(module, name, key, param, input_param, assign, error_msgs) -> None:
    if not is_lazy(param) and param.dim() == 0 and input_param.dim() == 1 \
            and input_param.shape[0] == 1:
        input_param = input_param[0]  # checkpoints from PyTorch 0.3 saved scalars as [1]
    if not is_lazy(param) and input_param.shape != param.shape:
        error_msgs.append(
            f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
            f"checkpoint, the shape in current model is {param.shape}.")
        return
    try:
        with grad_mode.no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)
                setattr(module, name, input_param)
            else:
                param.copy_(input_param)
    except Exception as ex:  # noqa: BLE001 - reported in PyTorch's words, not raised
        error_msgs.append(
            f'While copying the parameter named "{key}", whose dimensions in the model are '
            f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
            f"an exception occurred : {ex.args}.")


def load_from_state_dict(module, state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs) -> None:
    """``Module._load_from_state_dict``: load this module's own parameters and buffers."""
    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    persistent = {k: v for k, v in module._buffers.items()
                  if k not in module._non_persistent_buffers_set}
    local_state = {k: v for k, v in itertools.chain(module._parameters.items(),
                                                    persistent.items()) if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            _copy_in(module, name, key, param, input_param, assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra_key = prefix + _EXTRA
    from .module import Module

    if type(module).set_extra_state is not Module.set_extra_state:
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                first, *rest = key[len(prefix):].split(".", 1)
                if (rest and first not in module._modules) or (
                        not rest and first not in local_state):
                    unexpected_keys.append(key)


def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
    """``Module.load_state_dict``."""
    from .module import _IncompatibleKeys

    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                     missing_keys, unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items()
                             if k.startswith(child_prefix)}, child_prefix)
        incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace.")

    load(self, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)

