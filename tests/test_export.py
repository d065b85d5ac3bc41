"""torch.export: exported programs equal eager jtorch (and PyTorch's own eager model with
the same weights) for the examples' model families, at other batch sizes through dynamic
dims, after save/load in a fresh process; signatures, guards and errors as PyTorch's."""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import numpy as np
import pytest
import torch
import torch._dynamo.exc
from conftest import assert_same, check
from programs import deploy_models as dm
from torch.fx.experimental.symbolic_shapes import (
    ConstraintViolationError,
    GuardOnDataDependentSymNode,
)

import jtorch

NAMES = list(dm.MODELS)


@pytest.fixture(scope="module")
def exported():
    """Each model exported once with a dynamic batch (shared by the tests below)."""
    out = {}
    for name in NAMES:
        tm, tx, jm, jx = dm.pair(name)
        ep = jtorch.export.export(jm, (jx,), dynamic_shapes={"x": {0: jtorch.export.Dim("b")}})
        out[name] = (tm, tx, jm, jx, ep)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_exported_module_matches_eager_and_torch(exported, name):
    tm, tx, jm, jx, ep = exported[name]
    mod = ep.module()
    x, xt = dm.batch_of(jx, 3), dm.batch_of(tx, 3)  # not the example's batch size
    with torch.no_grad():
        expected = tm(xt)
    assert_same(expected, mod(x), rtol=1e-5, atol=1e-5)
    assert list(mod.state_dict()) == list(tm.state_dict())
    assert mod.get_parameter("head.weight" if name != "cnn" else "fc.weight") is \
        ep.state_dict["head.weight" if name != "cnn" else "fc.weight"]


def test_signature_like_torch(exported):
    tm, tx, jm, jx, ep = exported["cnn"]
    tep = torch.export.export(tm, (tx,))

    def specs(e):
        return [(s.kind.name, s.target, s.persistent) for s in e.graph_signature.input_specs]

    assert specs(ep) == specs(tep)
    assert ep.graph_signature.parameters == tep.graph_signature.parameters
    assert ep.graph_signature.buffers == tep.graph_signature.buffers
    assert ep.graph_signature.user_inputs == tep.graph_signature.user_inputs
    assert list(ep.state_dict) == list(tep.state_dict)
    assert ep.state_dict["fc.weight"] is jm.fc.weight  # shared, as in PyTorch
    assert str(ep.range_constraints["b"]) == "VR[1, int_oo]"
    assert "stablehlo" in str(ep) and "USER_INPUT" in str(ep)
    assert ep.run_decompositions() is ep
    assert_same(tep.example_inputs[0][0], ep.example_inputs[0][0])


def test_save_load_fresh_process(exported, tmp_path):
    """The file runs in a new interpreter that never sees the models' classes."""
    for name in NAMES:
        _, _, _, jx, ep = exported[name]
        jtorch.export.save(ep, tmp_path / f"{name}.pt2", extra_files={"note": name})
        np.save(tmp_path / f"{name}.npy", dm.batch_of(jx, 3).numpy())
    code = (
        "import json, sys, jax, numpy as np, jtorch\n"
        "d = sys.argv[1]; res = {}\n"
        "for name in sys.argv[2:]:\n"
        "    extra = {'note': ''}\n"
        "    ep = jtorch.export.load(f'{d}/{name}.pt2', extra_files=extra)\n"
        "    out = ep.module()(jtorch.from_numpy(np.load(f'{d}/{name}.npy')))\n"
        "    leaves = jax.tree.leaves(out, is_leaf=lambda t: isinstance(t, jtorch.Tensor))\n"
        "    res[name] = [extra['note'], list(ep.state_dict)[:2]] + "
        "[t.numpy().tolist() for t in leaves]\n"
        "print(json.dumps(res))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path), *NAMES],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in NAMES:
        tm, tx, _, _, _ = exported[name]
        with torch.no_grad():
            expected = torch.utils._pytree.tree_leaves(tm(dm.batch_of(tx, 3)))
        note, keys, *values = got[name]
        assert note == name and keys == list(tm.state_dict())[:2]
        for e, v in zip(expected, values):
            np.testing.assert_allclose(np.asarray(v), e.numpy(), rtol=1e-5, atol=1e-6)


def _leaves(out):
    return [t for t in jax.tree.leaves(out, is_leaf=lambda t: isinstance(t, jtorch.Tensor))]


def _linear_program(T):
    m = T.nn.Linear(3, 2)
    with T.no_grad():
        m.weight.copy_(T.arange(6.0).reshape(2, 3))
        m.bias.fill_(0.5)
    return m, T.ones(4, 3)


@pytest.mark.parametrize("n", [2, 11, 4])
def test_dim_range_guards(n):
    def program(T):
        m, x = _linear_program(T)
        Dim = T.export.Dim
        ep = T.export.export(m, (x,), dynamic_shapes={"input": {0: Dim("b", min=3, max=10)}})
        return ep.module()(T.ones(n, 3)), str(list(ep.range_constraints.values()))

    check(program, raises=None if 3 <= n <= 10 else AssertionError)  # the guard's failure


ERRORS = {"below_min": ConstraintViolationError, "static_wrong_size": AssertionError,
          "bad_structure": ValueError, "call_program": RuntimeError,
          "eval_module": NotImplementedError, "dim_of_specialised": torch._dynamo.exc.UserError,
          "data_dependent": GuardOnDataDependentSymNode}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    def program(T):
        m, x = _linear_program(T)
        Dim = T.export.Dim
        if case == "below_min":
            T.export.export(m, (x,), dynamic_shapes={"input": {0: Dim("b", min=5)}})
        ep = T.export.export(m, (x,))
        if case == "static_wrong_size":
            ep.module()(T.ones(5, 3))
        if case == "bad_structure":
            ep.module()(x, x)
        if case == "call_program":
            ep(x)
        if case == "eval_module":
            ep.module().eval()
        if case == "dim_of_specialised":
            T.export.export(m, (x,), dynamic_shapes={"input": {1: Dim("f")}})
        if case == "data_dependent":
            class Branchy(T.nn.Module):
                def forward(self, x):
                    return x if x.sum() > 0 else -x

            T.export.export(Branchy(), (x,))
        return ep.module()(x)

    check(program, raises=ERRORS[case])


def test_training_mode_buffers_and_dropout_follow_eager():
    """BatchNorm statistics update through module() and dropout draws what eager draws."""
    def run(exporting):
        jm, jx = dm.build(jtorch, "cnn", fresh=True)
        jm.train()
        if exporting:
            jm = jtorch.export.export(jm, (jx,)).module()
        jtorch.manual_seed(5)
        outs = [jm(jx).detach() for _ in range(2)]
        return outs, jm.get_buffer("bn1.running_mean"), jm.get_buffer("bn1.num_batches_tracked")

    eager, exported = run(False), run(True)
    for a, b in zip(_leaves(eager),
                    _leaves(exported)):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(exported[0][0].numpy(), exported[0][1].numpy())  # fresh masks


def test_auto_dims_and_symbolic_reshape():
    """Dim.AUTO keeps what the code allows dynamic; a flatten of a dynamic batch works."""
    m, x = dm.build(jtorch, "cnn")
    ep = jtorch.export.export(m, (x,), dynamic_shapes={"x": {0: jtorch.export.Dim.AUTO,
                                                             2: jtorch.export.Dim.AUTO}})
    assert ep._meta["inputs"][0][2][0] == "s0"
    assert ep._meta["inputs"][0][2][2] == 8  # the Linear after flatten fixes H
    with jtorch.no_grad():
        np.testing.assert_allclose(ep.module()(dm.batch_of(x, 5)).numpy(),
                                   m(dm.batch_of(x, 5)).numpy(), rtol=1e-5, atol=1e-6)
