"""Special-function declarations: the torch.X forms (lgamma, digamma, polygamma, mvlgamma,
i0, sinc, igamma/igammac, logaddexp/logaddexp2, gcd/lcm, frexp, ldexp) and the ops that
live only in torch.special (``special_<name>``, exported as ``torch.special.<name>``).
``Tensor.polygamma``/``polygamma_`` take ``n`` after self: hand-written in _api/special.py.
"""

from __future__ import annotations

from .. import return_types as R
from .._registry import BIN, op
from ..functional import special as F
from ..functional import special_bessel as B
from ..functional import special_poly as P

for _name in ("lgamma", "digamma", "i0", "sinc", "igamma", "igammac", "gcd", "lcm", "ldexp"):
    op(_name, getattr(F, _name), saves="none" if _name in ("gcd", "lcm") else "inputs", **BIN)


def _int_n(operands, statics) -> None:
    """Checked before the kernel cache is consulted: 1.0 == 1 would share n=1's kernel."""
    F.check_polygamma_n(statics["n"])


op("polygamma", F.polygamma, static=("n",), method=False, out=True, pointwise=True,
   extra={"check": _int_n})
op("mvlgamma", F.mvlgamma, static=("p",), **BIN)
op("logaddexp", F.logaddexp, out=True, pointwise=True)
op("logaddexp2", F.logaddexp2, out=True, pointwise=True)
# PyTorch saves only the exponent output, so writes to the mantissa are no error.
op("frexp", F.frexp, returns=R.frexp, saves="unchecked", pointwise=True)

_SPECIAL = dict(out=True, pointwise=True, function=False, method=False, modules=("special",))
_SAVES = {"erfcx": "all", "log_ndtr": "all", "ndtri": "out"}
_NAMES = {"i0e": "SpecialI0EBackward0", "i1e": "SpecialI1EBackward0",
          "xlog1py": "SpecialXlog1PyBackward0"}
for _name in ("entr", "erfcx", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "xlog1py",
              "zeta"):
    op(f"special_{_name}", getattr(F, _name), saves=_SAVES.get(_name, "inputs"),
       grad_name=_NAMES.get(_name, ""), **_SPECIAL)
# PyTorch defines no derivatives for these: jtorch/special records them without a graph.
for _name in (*B.__all__, *P.__all__):
    op(f"special_{_name}", getattr(B, _name, None) or getattr(P, _name), saves="none",
       **_SPECIAL)
