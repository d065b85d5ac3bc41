"""torch.special: the ``special_*`` registry ops (``_ops/special.py``), the torch ops it
re-exports under its own names (gammaln = lgamma, expit = sigmoid, ...), and ``round``.

The Bessel, Airy and polynomial functions have no derivative in PyTorch: their results
never require grad (they run under no_grad), as PyTorch's do.
"""

from __future__ import annotations

# The torch ops PyTorch re-exports under these names, taken from the torch namespace (so
# that wrappers installed there, e.g. sparse support, apply alike).
from .. import (
    _dtypes,
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    i0,
    log1p,
    log_softmax,
    logit,
    logsumexp,
    polygamma,
    sinc,
    softmax,
    xlogy,
)
from .. import igamma as gammainc
from .. import igammac as gammaincc
from .. import lgamma as gammaln
from .. import mvlgamma as multigammaln
from .. import sigmoid as expit
from ..eager.autograd.grad_mode import no_grad as _no_grad
from ..eager.bind import bound as _bound
from ..eager.bind import export as _export
from ..eager.tensor import Tensor  # noqa: F401 - torch.special.Tensor
from ..functional import special_bessel as _B
from ..functional import special_poly as _P

_export(globals(), "special")


def _without_grad(fn):
    def f(*args, **kwargs):
        with _no_grad():
            return fn(*args, **kwargs)

    f.__name__ = f.__qualname__ = fn.__name__.removeprefix("special_")
    f.__doc__ = fn.__doc__
    return f


for _name in (*_B.__all__, *_P.__all__):
    globals()[_name] = _without_grad(globals()[_name])

psi = digamma


def round(input, *, decimals=0, out=None):  # noqa: A001 - torch's public name
    """torch.special.round: torch.round, refusing non-floating inputs as PyTorch's kernel."""
    if input.dtype._kind != 2:
        raise NotImplementedError(
            f"\"round_vml_cpu\" not implemented for '{_dtypes.legacy_name(input.dtype)}'")
    return _bound("round")(input, decimals=decimals, out=out)
