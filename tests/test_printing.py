"""Compare jtorch's tensor formatter against PyTorch's own ``repr``."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch

try:
    from jtorch.eager import printing
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from jtorch.eager import printing

nan, inf = float("nan"), float("inf")


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, scale: float = 1.0, seed: int = 0, dtype=torch.float32) -> torch.Tensor:
    return (torch.randn(*shape, generator=_gen(seed), dtype=torch.float64) * scale).to(dtype)


def _randint(lo: int, hi: int, *shape: int, dtype=torch.int64, seed: int = 0) -> torch.Tensor:
    return torch.randint(lo, hi, shape, generator=_gen(seed), dtype=dtype)


def _show_dtype(t: torch.Tensor) -> bool:
    """PyTorch's ``has_default_dtype`` rule from ``_str_intern``, negated."""
    default = torch.get_default_dtype()
    default_complex = torch.cdouble if default == torch.double else torch.cfloat
    return t.dtype not in (default, default_complex, torch.int64, torch.bool)


def _values(t: torch.Tensor) -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


def _grad_suffixes(t: torch.Tensor) -> list[str]:
    if t.grad_fn is not None:
        return [f"grad_fn=<{type(t.grad_fn).__name__}>"]
    return ["requires_grad=True"] if t.requires_grad else []


def _ours(t: torch.Tensor, suffixes: list[str] | None = None) -> str:
    extra = _grad_suffixes(t) if suffixes is None else suffixes
    return printing.format_tensor(
        _values(t), dtype_name=str(t.dtype), show_dtype=_show_dtype(t), suffixes=extra
    )


@pytest.fixture(autouse=True)
def _restore_options():
    torch_opts = torch._tensor_str.get_printoptions()
    ours = printing.get_printoptions()
    default_dtype = torch.get_default_dtype()
    yield
    torch.set_printoptions(**torch_opts)
    printing.set_printoptions(**ours)
    torch.set_default_dtype(default_dtype)


def _set_both(**kwargs) -> None:
    torch.set_printoptions(**kwargs)
    printing.set_printoptions(**kwargs)


CASES = {
    # floats, various magnitudes
    "f32_randn": lambda: _randn(7),
    "f32_randn_2d": lambda: _randn(3, 4, seed=1),
    "f32_small": lambda: _randn(5, scale=1e-3, seed=2),
    "f32_tiny": lambda: _randn(5, scale=1e-6, seed=3),
    "f32_large": lambda: _randn(5, scale=1e5, seed=4),
    "f32_huge": lambda: _randn(4, scale=1e9, seed=5),
    "f32_ratio_sci": lambda: torch.tensor([1.0, 2000.5, 3.25]),
    "f32_ratio_edge": lambda: torch.tensor([1.5, 1500.0]),
    "f32_min_edge": lambda: torch.tensor([1e-4, 0.5]),
    "f32_below_min": lambda: torch.tensor([9e-5, 0.5]),
    "f32_int_valued": lambda: torch.arange(6.0),
    "f32_int_neg": lambda: torch.tensor([-3.0, 10.0, 200.0]),
    "f32_int_sci": lambda: torch.tensor([1.0, 1e9]),
    "f32_int_ratio_sci": lambda: torch.tensor([1.0, 5000.0]),
    "f32_zeros": lambda: torch.zeros(3),
    "f32_neg_zero": lambda: torch.tensor([-0.0, 1.0]),
    "f32_neg_zero_only": lambda: torch.tensor([-0.0, 0.0]),
    "f32_neg_zero_frac": lambda: torch.tensor([-0.0, 1.5]),
    "f32_rounds_neg_zero": lambda: torch.tensor([-0.00001, 1.5]),
    "f32_nan_inf_int": lambda: torch.tensor([nan, inf, -inf, 1.0, 2.0]),
    "f32_nan_inf_frac": lambda: torch.tensor([nan, inf, -inf, 1.5]),
    "f32_nan_inf_sci": lambda: torch.tensor([nan, -inf, 1e-7, 3.0]),
    "f32_all_nan": lambda: torch.tensor([nan, nan]),
    "f32_all_inf": lambda: torch.tensor([inf, -inf, 0.0]),
    "f32_mixed_sign": lambda: torch.tensor([-1.25, 3.5, -100.125]),
    "f32_3d": lambda: _randn(2, 3, 4, seed=6),
    "f32_4d": lambda: _randn(2, 2, 2, 3, seed=7),
    "f32_long_row": lambda: _randn(40, seed=8),
    "f32_long_row_2d": lambda: _randn(3, 25, seed=9),
    "f32_long_row_3d_sci": lambda: _randn(2, 2, 20, scale=1e-6, seed=10),
    "f32_summarized_1d": lambda: _randn(2000, seed=11),
    "f32_summarized_2d": lambda: _randn(50, 50, seed=12),
    "f32_summarized_3d": lambda: _randn(20, 10, 10, seed=13),
    "f32_summarized_narrow": lambda: _randn(1001, 2, seed=14),
    "f32_summarized_int": lambda: torch.arange(3000.0).reshape(30, 100),
    "f32_summarized_edge_outlier": lambda: torch.cat([torch.ones(2000), torch.tensor([1e9])]),
    # 0-d
    "f32_scalar_int": lambda: torch.tensor(3.0),
    "f32_scalar_frac": lambda: torch.tensor(-2.5),
    "f32_scalar_tiny": lambda: torch.tensor(1e-8),
    "f32_scalar_nan": lambda: torch.tensor(nan),
    "f32_scalar_neg_zero": lambda: torch.tensor(-0.0),
    "i64_scalar": lambda: torch.tensor(42),
    "bool_scalar": lambda: torch.tensor(True),
    "c64_scalar": lambda: torch.tensor(1 - 2j, dtype=torch.complex64),
    "f64_scalar": lambda: torch.tensor(0.1, dtype=torch.float64),
    # empty
    "empty_f32": lambda: torch.tensor([]),
    "empty_2d": lambda: torch.zeros(0, 3),
    "empty_3d": lambda: torch.zeros(2, 0, 4),
    "empty_i64": lambda: torch.zeros(0, dtype=torch.int64),
    "empty_i64_2d": lambda: torch.zeros(3, 0, dtype=torch.int64),
    "empty_bool": lambda: torch.zeros(0, dtype=torch.bool),
    "empty_f64": lambda: torch.zeros(0, dtype=torch.float64),
    "empty_c64": lambda: torch.zeros(0, dtype=torch.complex64),
    "empty_bf16": lambda: torch.zeros(0, 2, dtype=torch.bfloat16),
    # other dtypes
    "f64_randn": lambda: _randn(6, seed=15, dtype=torch.float64),
    "f64_int_valued": lambda: torch.arange(4, dtype=torch.float64),
    "f64_sci": lambda: torch.tensor([1e-10, 1.0], dtype=torch.float64),
    "f16_randn": lambda: _randn(6, seed=16, dtype=torch.float16),
    "f16_large": lambda: torch.tensor([65504.0, 1.0, 0.5], dtype=torch.float16),
    "f16_inf": lambda: torch.tensor([inf, 1.0, 2.0], dtype=torch.float16),
    "f16_tiny": lambda: torch.tensor([6e-5, 1.0], dtype=torch.float16),
    "bf16_randn": lambda: _randn(2, 5, seed=17, dtype=torch.bfloat16),
    "bf16_big": lambda: torch.tensor([1e10, 3.0], dtype=torch.bfloat16),
    "bf16_scalar": lambda: torch.tensor(1.5, dtype=torch.bfloat16),
    "i64_vec": lambda: torch.arange(10),
    "i64_neg": lambda: torch.tensor([-5, 100, 7]),
    "i64_2d": lambda: torch.tensor([[1, 2], [3, 4]]),
    "i64_big": lambda: torch.tensor([2**62, -3]),
    "i64_long_row": lambda: _randint(-1000, 1000, 60, seed=18),
    "i64_summarized": lambda: torch.arange(5000).reshape(50, 100),
    "i32_vec": lambda: _randint(-50, 50, 3, 4, dtype=torch.int32, seed=19),
    "i16_vec": lambda: torch.tensor([1, -2, 300], dtype=torch.int16),
    "i8_vec": lambda: torch.tensor([-128, 127], dtype=torch.int8),
    "u8_vec": lambda: torch.arange(0, 256, 17, dtype=torch.uint8),
    "u8_summarized": lambda: torch.arange(1200).to(torch.uint8),
    "bool_vec": lambda: torch.tensor([True, False, True]),
    "bool_2d": lambda: torch.tensor([[True, False], [False, False]]),
    "bool_long": lambda: torch.arange(40) % 3 == 0,
    "c64_vec": lambda: torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64),
    "c64_frac": lambda: torch.tensor([1.5 + 2.25j, -3 - 0.5j], dtype=torch.complex64),
    "c64_neg_zero_imag": lambda: torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([-0.0, 0.0])),
    "c64_sci": lambda: torch.tensor([1e-6 + 1j, 2 + 3e5j], dtype=torch.complex64),
    "c64_nan": lambda: torch.complex(torch.tensor([nan, 1.0]), torch.tensor([inf, nan])),
    "c64_2d_long": lambda: torch.complex(_randn(3, 12, seed=20), _randn(3, 12, seed=21)),
    "c64_summarized": lambda: torch.complex(_randn(1500, seed=22), _randn(1500, seed=23)),
    "c128_vec": lambda: torch.tensor([0.1 + 0.2j, -4j], dtype=torch.complex128),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_repr(name: str) -> None:
    t = CASES[name]()
    assert _ours(t) == repr(t)


OPTION_CASES = [
    ("precision2", {"precision": 2}, lambda: _randn(5, seed=30)),
    ("precision0", {"precision": 0}, lambda: torch.tensor([1.5, 2.25, 3.0])),
    ("precision8", {"precision": 8}, lambda: _randn(2, 3, seed=31, dtype=torch.float64)),
    ("sci_on", {"sci_mode": True}, lambda: torch.tensor([1.5, 2.0])),
    ("sci_on_int", {"sci_mode": True}, lambda: torch.arange(4.0)),
    ("sci_off", {"sci_mode": False}, lambda: torch.tensor([1e-6, 1e6])),
    ("sci_off_huge", {"sci_mode": False}, lambda: torch.tensor([1e10, 3.0])),
    ("threshold5", {"threshold": 5}, lambda: torch.arange(10)),
    ("threshold5_2d", {"threshold": 5}, lambda: torch.arange(64.0).reshape(8, 8) / 3),
    ("threshold0_scalar", {"threshold": 0}, lambda: torch.tensor(2.5)),
    ("edgeitems1", {"threshold": 10, "edgeitems": 1}, lambda: _randn(4, 5, 6, seed=32)),
    ("edgeitems0_1d", {"threshold": 10, "edgeitems": 0}, lambda: torch.arange(20)),
    ("edgeitems0_2d", {"threshold": 10, "edgeitems": 0}, lambda: _randn(5, 5, seed=33)),
    ("edgeitems0_small", {"edgeitems": 0}, lambda: torch.arange(4.0)),
    ("linewidth40", {"linewidth": 40}, lambda: _randn(3, 12, seed=34)),
    ("linewidth10", {"linewidth": 10}, lambda: torch.arange(8)),
    ("linewidth200", {"linewidth": 200}, lambda: _randn(60, seed=35)),
    ("profile_short", {"profile": "short"}, lambda: _randn(10, 10, seed=36)),
    ("profile_full", {"profile": "full"}, lambda: torch.arange(1500)),
    ("profile_default", {"profile": "default", "precision": 6}, lambda: _randn(4, seed=37)),
    ("full_then_threshold", {"profile": "full", "threshold": 20}, lambda: torch.arange(30)),
]


@pytest.mark.parametrize(
    "kwargs, make", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES]
)
def test_matches_torch_with_printoptions(kwargs, make) -> None:
    _set_both(**kwargs)
    t = make()
    assert _ours(t) == repr(t)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()


GRAD_CASES = {
    "ones_requires_grad": lambda: torch.ones(2, requires_grad=True),
    "scalar_requires_grad": lambda: torch.tensor(1.5, requires_grad=True),
    "f64_requires_grad": lambda: torch.ones(3, dtype=torch.float64, requires_grad=True),
    "grad_fn_mul": lambda: torch.ones(2, requires_grad=True) * 2,
    "grad_fn_add_f64": lambda: torch.ones(2, dtype=torch.float64, requires_grad=True) + 1,
    "wrap_suffix": lambda: torch.arange(9.0, dtype=torch.float64).requires_grad_() * 1.5,
    "wrap_long_row": lambda: (_randn(30, seed=40, dtype=torch.float16)).requires_grad_(),
    "empty_requires_grad": lambda: torch.zeros(0, 2, requires_grad=True),
    "sum_scalar": lambda: torch.ones(3, requires_grad=True).sum(),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_matches_torch_with_autograd_suffixes(name: str) -> None:
    t = GRAD_CASES[name]()
    assert _ours(t) == repr(t)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.tensor([1.5, 2.0]),
        lambda: torch.zeros(0),
        lambda: torch.zeros(0, dtype=torch.float32),
        lambda: torch.tensor([1 + 1j]),
        lambda: torch.tensor([1 + 1j], dtype=torch.complex64),
        lambda: torch.arange(3, dtype=torch.float32),
    ],
    ids=["f64_default", "empty_default", "empty_f32", "c128_default", "c64", "f32"],
)
def test_matches_torch_with_float64_default(make) -> None:
    torch.set_default_dtype(torch.float64)
    t = make()
    assert _ours(t) == repr(t)


def test_device_goes_before_dtype_and_grad() -> None:
    values = np.array([1.0], dtype=np.float64)
    got = printing.format_tensor(
        values,
        dtype_name="torch.float64",
        show_dtype=True,
        suffixes=["device='cuda:0'", "requires_grad=True"],
    )
    assert got == "tensor([1.], device='cuda:0', dtype=torch.float64, requires_grad=True)"


def test_device_goes_before_size_for_empty() -> None:
    values = np.zeros((0, 3), dtype=np.int64)
    got = printing.format_tensor(
        values, dtype_name="torch.int64", show_dtype=False, suffixes=["device='cuda:0'"]
    )
    assert got == "tensor([], device='cuda:0', size=(0, 3), dtype=torch.int64)"


def test_set_printoptions_resets_sci_mode_like_torch() -> None:
    _set_both(sci_mode=True)
    _set_both(precision=3)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    assert printing.get_printoptions()["sci_mode"] is None


def test_default_options_match_torch() -> None:
    _set_both(profile="default")
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
