"""torch.sym_* helpers, torch.cond and torch.conv_tbc against PyTorch."""

import numpy as np
import pytest
from conftest import BACKENDS, check


def test_sym_helpers():
    check(lambda t: [t.sym_int(3.7), t.sym_int(-3.7), t.sym_int(4), t.sym_float(3),
                     t.sym_max(2, 5.0), t.sym_min(2, 5.0), t.sym_not(True), t.sym_ite(False, 1, 2),
                     t.sym_sum([1, 2, 3]), t.sym_sqrt(4), t.sym_fresh_size(4),
                     t.sym_constrain_range(2, min=0, max=3),
                     t.sym_constrain_range_for_size(2, min=0)])


@pytest.mark.parametrize("fn", ["sym_constrain_range", "sym_constrain_range_for_size"])
@pytest.mark.parametrize("lib", ["torch", "jtorch"])
def test_sym_constrain_range_rejects(lib, fn):
    with pytest.raises(RuntimeError, match=r"Invalid value range for 5 between \[0, 3\]"):
        getattr(BACKENDS[lib], fn)(5, min=0, max=3)


@pytest.mark.parametrize("pred", [True, False, "tensor_true", "tensor_false"])
def test_cond_branches_and_gradient(pred):
    def program(t):
        p = t.tensor(pred.endswith("true")) if isinstance(pred, str) else pred
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.cond(p, lambda a, b: a * b, lambda a, b: a - b, (x, t.tensor(3.0)))
        y.sum().backward()
        return y, x.grad

    check(program)


@pytest.mark.parametrize("lib", ["torch", "jtorch"])
def test_cond_rejects_a_multi_element_predicate(lib):
    t = BACKENDS[lib]
    with pytest.raises(RuntimeError, match="Expected pred to be bool or single-element tensor"):
        t.cond(t.tensor([True, False]), lambda x: x, lambda x: x, (t.ones(2),))


def test_conv_tbc_at_top_level():
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((5, 2, 3), (3, 3, 4), (4,)))
    check(lambda t: t.conv_tbc(t.tensor(x), t.tensor(w), t.tensor(b), 1), atol=1e-5)
