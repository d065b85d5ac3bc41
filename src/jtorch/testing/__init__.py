"""torch.testing: ``assert_close`` and ``make_tensor``, as PyTorch's."""

from __future__ import annotations

import warnings

from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose", "FileCheck"]


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: ``assert_close`` with ``check_dtype=False`` (and NumPy-like defaults)."""
    import jtorch

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, jtorch.Tensor):
        actual = jtorch.tensor(actual)
    if not isinstance(expected, jtorch.Tensor):
        expected = jtorch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        from ._comparison import default_tolerances

        rtol, atol = default_tolerances(actual, expected)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False,
                 msg=msg or None)


class FileCheck:
    """TorchScript's IR pattern checker: jtorch has no TorchScript IR to check."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.testing.FileCheck checks TorchScript IR, which jtorch does not "
                           "have (it is not supported in jtorch)")
