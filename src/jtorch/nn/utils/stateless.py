"""``functional_call``: run a module with some parameters and buffers swapped for given
tensors, restoring the originals afterwards (PyTorch's ``torch.nn.utils.stateless``)."""

from __future__ import annotations

import contextlib
import warnings

__all__ = ["functional_call"]

_MISSING = object()


def _untie(module, given: dict) -> dict:
    """Extend ``given`` to every name tied to (the same tensor as) a given name."""
    names_of: dict = {}
    for name, t in [*module.named_parameters(remove_duplicate=False),
                    *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    out = dict(given)
    for name in [n for n in given if n in tied]:
        group = tied[name]
        if len(group & given.keys()) > 1 and len({id(given[n]) for n in group
                                                  if n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
        out.update(dict.fromkeys(group, given[name]))
    return out


def _swap(module, path: str, value):
    """Put ``value`` at dotted ``path``; return what was there (``_MISSING`` if nothing)."""
    *owners, name = path.split(".")
    for o in owners:
        module = getattr(module, o)
    for table in (module._parameters, module._buffers):
        if name in table:
            old, table[name] = table[name], value
            return old
    old = getattr(module, name, _MISSING)
    if value is _MISSING:
        delattr(module, name)
    else:
        setattr(module, name, value)
    return old


def _check_keys(module, given: dict) -> None:
    expected = {n for n, _ in [*module.named_parameters(remove_duplicate=False),
                               *module.named_buffers(remove_duplicate=False)]}
    msgs = []
    unexpected = sorted(set(given) - expected)
    missing = sorted(expected - set(given))
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(msgs)))


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights: bool = False,
                          strict: bool = False, stack_weights: bool = False):
    given = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_keys(module, given)
    originals: dict = {}
    try:
        for name, value in given.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        items = reversed(originals.items()) if stack_weights else originals.items()
        current = {name: _swap(module, name, old) for name, old in items}
        # A forward that replaced entries of _parameters/_buffers hands them back.
        parameters_and_buffers.update({k: current[k] for k in parameters_and_buffers
                                       if k in current})


def functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` in place of its own."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                     tie_weights: bool = True, strict: bool = False):
    from ..parallel import DataParallel

    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)
