"""torch.func's module utilities: functional_call, stack_module_state,
replace_all_batch_norm_modules_ and functionalize.

``functional_call`` swaps a module's parameters and buffers for the given tensors for one
call (autograd flows to them; in-place updates such as BatchNorm's running statistics land
in them) and restores the module afterwards, with PyTorch's rules for tied weights,
``strict`` and several dictionaries.
"""

from __future__ import annotations

import contextlib

from ..eager.tensor import Tensor

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "functionalize"]
_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors."""
    from ..nn.parallel.data_parallel import DataParallel

    pb = _merge(parameter_and_buffer_dicts)
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize(module, pb, tie_weights, strict):
        return module(*args, **kwargs)


def _merge(dicts):
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, list | tuple):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts: dict = {}
    for d in dicts:
        for k in d:
            counts[k] = counts.get(k, 0) + 1
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def _named_tensors(module):
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def _untie(module, given: dict) -> dict:
    """``given`` with every name tied to a given name (the same tensor) added."""
    names_of: dict = {}
    for name, t in _named_tensors(module):
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in given if n in tied]
    for n in given_tied:
        both = tied[n].intersection(given_tied)
        if len(both) > 1 and len({id(given[m]) for m in both}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[n])}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for m in tied[n]:
            out[m] = given[n]
    return out


def _check_keys(module, keys) -> None:
    valid = {name for name, _ in _named_tensors(module)}
    missing, unexpected = sorted(valid - set(keys)), sorted(set(keys) - valid)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(msgs)))


@contextlib.contextmanager
def _reparametrize(module, given: dict, tie_weights: bool, strict: bool):
    values = _untie(module, given) if tie_weights else given
    if strict:
        _check_keys(module, values)
    originals: dict = {}
    try:
        for name, t in values.items():
            originals[name] = _swap(module, name, t)
        yield
    finally:
        now = {name: _swap(module, name, t) for name, t in reversed(originals.items())}
        # A module that replaced a tensor (``self.x = self.x + 1``) leaves it in the dict.
        given.update({k: now[k] for k in given if k in now})


def _swap(module, path: str, tensor):
    """Put ``tensor`` at ``path`` (``"layer.weight"``); return what was there."""
    prefix, _, name = path.rpartition(".")
    owner = module.get_submodule(prefix)
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for table in (owner._parameters, owner._buffers):
        if name in table:
            orig = table[name]
            if tensor is _MISSING:
                del table[name]
            else:
                table[name] = tensor
            return orig
    orig = getattr(owner, name, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(owner, name, tensor)
    elif hasattr(owner, name):
        delattr(owner, name)
    return orig


def stack_module_state(models):
    """``(params, buffers)``: each name's tensors from ``models`` stacked on a new first
    dimension, as new leaves (requiring grad where the originals do), for ``vmap``."""
    import jtorch

    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tables):
        out = {}
        for k in tables[0]:
            ts = [t[k] for t in tables]
            grads = {t.requires_grad for t in ts}
            if len(grads) > 1:
                raise RuntimeError(f"Expected {k} from each model to have the same "
                                   ".requires_grad")
            s = jtorch.stack(ts)
            out[k] = s.detach().requires_grad_() if grads == {True} else s
        return out

    return (stacked([dict(m.named_parameters()) for m in models]),
            stacked([dict(m.named_buffers()) for m in models]))


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm under ``root`` stop tracking running statistics (in place)."""
    from ..nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


_REMOVE_ERROR = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid "
    "options are:\n     remove='mutations': all inplace and out= operators will be removed "
    "from the program, and replaced with their out-of-place equivalents.\n     "
    "remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove: str = "mutations"):
    """``func`` with PyTorch's functionalize semantics, which jtorch's eager mode already
    has: ops are pure JAX functions and in-place writes to inputs stay visible to callers.

    Differences from PyTorch: nothing is rewritten (there is no graph to rewrite); with
    ``remove="mutations_and_views"`` outputs that alias an input are returned as copies.
    """
    import functools

    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_ERROR.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        out = func(*args, **kwargs)
        if remove == "mutations":
            return out
        from ._core import tree_flatten, tree_unflatten

        storages = {id(t._storage) for t in tree_flatten((args, kwargs))[0]
                    if isinstance(t, Tensor)}
        leaves, treedef = tree_flatten(out)
        return tree_unflatten(treedef, [
            t.clone() if isinstance(t, Tensor) and id(t._storage) in storages else t
            for t in leaves])

    return wrapped
