"""Options PyTorch users pass that jtorch once ignored: each is applied or raises."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check


def _coo(t, index, check_invariants=None):
    return t.sparse_coo_tensor(t.tensor([[0, index]]), t.tensor([1.0, 2.0]), (3,),
                               check_invariants=check_invariants).to_dense()


@pytest.mark.parametrize("index", [2, 3, -1])
def test_sparse_coo_check_invariants(index):
    check(lambda t: _coo(t, index, check_invariants=True),
          raises=None if index == 2 else RuntimeError)


def test_check_sparse_tensor_invariants_context():
    def prog(t):
        with t.sparse.check_sparse_tensor_invariants():
            assert t.sparse.check_sparse_tensor_invariants.is_enabled()
            _coo(t, 3)

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)
    check(lambda t: (t.sparse.check_sparse_tensor_invariants.is_enabled(), _coo(t, 2)))


def test_load_mmap(tmp_path):
    import torch

    def prog(t, legacy=False):
        path = tmp_path / f"{t.__name__}_{legacy}.pt"  # torch's tensors keep reading the map
        torch.save({"w": torch.arange(6.0).reshape(2, 3), "n": 3}, path,
                   _use_new_zipfile_serialization=not legacy)
        return t.load(path, mmap=True)

    check(prog)
    check(lambda t: prog(t, legacy=True), raises=RuntimeError)

    def from_buffer(t):
        import io

        buf = io.BytesIO()
        t.save(t.ones(2), buf)
        buf.seek(0)
        return t.load(buf, mmap=True)

    check(from_buffer, raises=ValueError)


def test_deterministic_algorithms_flags():
    def prog(t):
        t.use_deterministic_algorithms(True, warn_only=True)
        state = (t.are_deterministic_algorithms_enabled(),
                 t.is_deterministic_algorithms_warn_only_enabled(),
                 t.get_deterministic_debug_mode())
        t.use_deterministic_algorithms(False)
        return state, t.are_deterministic_algorithms_enabled()

    check(prog)
    check(lambda t: t.use_deterministic_algorithms(True, warn_only=1), raises=TypeError)


def test_deterministic_sets_xla_flag_before_backends_start():
    import subprocess
    import sys

    code = ("import os, jtorch as torch\n"
            "torch.backends.cudnn.deterministic = True\n"
            "print(os.environ['XLA_FLAGS'], torch.backends.cudnn.deterministic)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "XLA_FLAGS": ""}, check=True)
    assert out.stdout.split() == ["--xla_gpu_deterministic_ops=true", "True"]



@pytest.mark.parametrize("kw", [dict(check_forward_ad=True),
                                dict(check_forward_ad=True, check_backward_ad=False,
                                     check_batched_forward_grad=True)],
                         ids=["forward-and-backward", "forward-batched"])
def test_gradcheck_forward_mode(kw):
    rng = np.random.default_rng(4)
    a0, b0 = rng.standard_normal(3), rng.standard_normal((3, 2))

    def program(t):
        a = t.tensor(a0, requires_grad=True)
        b = t.tensor(b0, requires_grad=True)
        good = t.autograd.gradcheck(lambda x, y: (x.sin() * 2, (x * y[:, 0]).sum()), (a, b),
                                    **kw)
        # A forward-mode Jacobian is checked against finite differences: a wrong one fails.
        bad = t.autograd.gradcheck(lambda x: x.detach() * x, (a,), raise_exception=False,
                                   check_forward_ad=True, check_backward_ad=False)
        return good, bad

    check(program)


def test_gradgradcheck_forward_over_reverse():
    x0 = np.random.default_rng(5).standard_normal(3)

    def program(t):
        x = t.tensor(x0, requires_grad=True)
        return (t.autograd.gradgradcheck(lambda a: (a.sin() * a).sum(), (x,),
                                         check_fwd_over_rev=True),
                t.autograd.gradgradcheck(lambda a: a.exp() * a, (x,), check_fwd_over_rev=True,
                                         check_rev_over_rev=False, check_undefined_grad=False))

    check(program)
    check(lambda t: t.autograd.gradgradcheck(lambda a: a * a, (t.tensor(x0, requires_grad=True),),
                                             check_fwd_over_rev=True, check_rev_over_rev=False),
          raises=AssertionError)
