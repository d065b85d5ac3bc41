"""jtorch: PyTorch's Python API on JAX. ``import jtorch as torch``."""

from __future__ import annotations

import gc as _gc
import os as _os

from . import _cache, _dtypes  # _cache: the on-disk kernel cache, set up first
from ._device import device
from ._dtypes import (
    bfloat16,
    bool,
    can_cast,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from ._dtypes import dtype as dtype
from .eager import bind as _bind
from .eager import creation as _creation
from .eager import methods as _methods
from .eager.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .eager.printing import get_printoptions, set_printoptions
from .eager.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .eager.tensor import Size, Tensor

_bind.bind_all(globals())
_creation.bind_factories(globals())
_methods.attach()

from . import autograd, return_types  # noqa: E402
from ._api import *  # noqa: E402
from .eager.methods import chunk, clone, flatten, movedim, reshape, split, unbind  # noqa: E402

moveaxis = movedim


def result_type(tensor1, tensor2) -> _dtypes.dtype:
    """torch.result_type: tensors promote by category and dimensionality; scalars weakly."""
    ops = [(t.dtype, t.dim()) if isinstance(t, Tensor) else t for t in (tensor1, tensor2)]
    return _dtypes.result_type_of(ops)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def _require_tensor(name: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def numel(input) -> int:
    _require_tensor("numel", input)
    return input.numel()


def is_floating_point(input) -> bool:
    _require_tensor("is_floating_point", input)
    return input.is_floating_point()


def as_strided(input, size, stride, storage_offset=None):
    return input.as_strided(size, stride, storage_offset)


def from_jax(array) -> Tensor:
    """Wrap a JAX array as a tensor without copying."""
    import jax

    from .eager.tensor import wrap

    if not isinstance(array, jax.Array):
        raise TypeError(f"from_jax expects a jax.Array, got {type(array).__name__}")
    _dtypes.from_numpy_dtype(array.dtype)  # TypeError for dtypes torch lacks
    if array.weak_type:  # a weakly typed value would promote like a Python scalar
        array = jax.numpy.asarray(array, dtype=array.dtype)
    return wrap(array)


Tensor.jax = lambda self: self._value

# The namespaces above the op library; they import from the names bound above.
from . import backends, linalg, nn, optim, serialization, utils  # noqa: E402
from .serialization import load, save  # noqa: E402

__version__ = "0.1.0"

# Layouts, memory formats and sparse COO tensors (issue 7).
from . import _memory_format, sparse  # noqa: E402
from ._alias import install_alias  # noqa: E402
from ._memory_format import *  # noqa: E402,F403

_memory_format.attach()
sparse.bind(globals())

# Devices, torch.cuda, autocast and scale-out (issue 6).
# torch.compile, torch.func and torch.vmap (issue 11); torch.fft and torch.special (issue 13);
# distributions (issue 14); deployment (issue 16): torch.export, torch.jit, torch.onnx.
from . import (  # noqa: E402  # noqa: E402
    _dynamo,
    accelerator,
    amp,
    compiler,
    cuda,
    distributed,
    distributions,
    export,
    fft,
    func,
    jit,
    onnx,
    special,
)
from .amp.autocast_mode import (  # noqa: E402
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .compiler import compile  # noqa: E402
from .func import vmap  # noqa: E402

# What the import made (JAX's and jtorch's modules: ~120,000 objects, none garbage) moves to
# the collector's permanent generation, which its full collections skip: JAX's objects are
# slow to walk (~40 ms a collection on its own), and a program whose autograd graphs outlive
# the young generations (an LSTM cell through 1,000 steps) collects fully every few hundred
# milliseconds. ``JTORCH_GC_FREEZE=0`` leaves the collector as it was.
if _os.environ.get("JTORCH_GC_FREEZE", "1") != "0":
    _gc.freeze()

# Submodules scripts reach as attributes after a bare ``import torch`` (torch.testing,
# torch.hub, ...): imported on first use, so ``import jtorch`` pays nothing for them.
_LAZY_SUBMODULES = frozenset({"futures", "fx", "hub", "multiprocessing", "overrides", "package",
                              "profiler", "random", "storage", "testing", "types", "version"})


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
