"""Views that reinterpret complex elements as (real, imag) pairs and back. The lazy
conjugate, ``real``/``imag`` and ``view(dtype)`` build on the same steps in
``jtorch/_api/complex_views.py``."""

from __future__ import annotations

from .._registry import op
from ..functional import dtype_views as DV

op("view_as_real", DV.view_as_real, kind="view", saves="none", method=False,
   geometry=DV.g_view_as_real)
op("view_as_complex", DV.view_as_complex, kind="view", saves="none", method=False,
   geometry=DV.g_view_as_complex)
