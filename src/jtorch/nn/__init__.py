"""torch.nn: modules, parameters, functional, init and utils."""

from . import attention, common_types, functional, grad, init, utils
from .modules import *
from .parameter import *


def factory_kwargs(kwargs):
    """The device/dtype/memory_format keywords of ``kwargs`` (merging a nested
    ``factory_kwargs``), for modules that forward them to tensor factories."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r
