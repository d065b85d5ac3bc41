"""torch.onnx.export through jax2onnx: the ONNX files run in onnxruntime, match jtorch and
PyTorch's own ``torch.onnx.export`` of the same weights, keep dynamic batch axes, and
unsupported operations raise errors naming them."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import torch
from programs import deploy_models as dm

import jtorch

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("jax2onnx")
pytest.importorskip("onnx")


def _session(data: bytes):
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _run(session, x):
    return session.run(None, {session.get_inputs()[0].name: x})


def _export(backend, model, x, **kw):
    buf = io.BytesIO()
    backend.onnx.export(model, (x,), buf, input_names=["x"],
                        dynamic_axes={"x": {0: "batch"}}, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("name", list(dm.MODELS))
def test_onnx_matches_jtorch_and_torch_export(name):
    tm, tx, jm, jx = dm.pair(name)
    ours = _session(_export(jtorch, jm, jx))
    theirs = _session(_export(torch, tm, tx, dynamo=False))
    x3 = dm.batch_of(tx, 3).numpy()  # another batch size through the dynamic axis
    assert [i.type for i in ours.get_inputs()] == [i.type for i in theirs.get_inputs()]
    assert ours.get_inputs()[0].shape == ["batch", *x3.shape[1:]]
    with torch.no_grad():
        expected = torch.utils._pytree.tree_leaves(tm(torch.from_numpy(x3)))
    for a, b, e in zip(_run(ours, x3), _run(theirs, x3), expected):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(a, e.numpy(), rtol=1e-4, atol=1e-5)


def test_options_like_torch():
    """Names, export_params=False, keep_initializers_as_inputs, training mode, verify."""
    tm, tx, jm, jx = dm.pair("cnn")

    def exported(T, m, x, **kw):
        import onnx

        buf = io.BytesIO()
        T.onnx.export(m, (x,), buf, input_names=["image"], output_names=["logits"],
                      opset_version=18, dynamo=False,
                      dynamic_axes={"image": {0: "n"}, "logits": [0]}, **kw)
        return onnx.load_from_string(buf.getvalue())

    for kw in ({}, {"keep_initializers_as_inputs": True}):
        a, b = exported(jtorch, jm, jx, **kw), exported(torch, tm, tx, **kw)
        assert [i.name for i in a.graph.input][:1] == [i.name for i in b.graph.input][:1]
        assert [o.name for o in a.graph.output] == [o.name for o in b.graph.output]
        assert [str(o.type.tensor_type.shape) for o in a.graph.output] == \
            [str(o.type.tensor_type.shape) for o in b.graph.output]
        assert (len(a.graph.input) > 1) == (len(b.graph.input) > 1), kw
        assert a.opset_import[0].version == 18
    # export_params=False: the weights are graph inputs, named by state_dict keys.
    unbound = exported(jtorch, jm, jx, export_params=False)
    names = [i.name for i in unbound.graph.input]
    assert names == ["image", *jm.state_dict()]
    assert not {i.name for i in unbound.graph.initializer} & set(names)
    feed = {"image": tx.numpy()} | {k: v.numpy() for k, v in tm.state_dict().items()}
    with torch.no_grad():
        np.testing.assert_allclose(_session(unbound.SerializeToString()).run(None, feed)[0],
                                   tm(tx).numpy(), rtol=1e-4, atol=1e-5)
    assert not jm.training  # the exporter restores the module's mode
    program = jtorch.onnx.export(jm, (jx,), verify=True)
    np.testing.assert_allclose(program(jx)[0].numpy(), jm(jx).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_module_level_names_like_torch():
    seen = {}

    def program(T):
        class Probe(T.nn.Module):
            def forward(self, x):
                seen[T.__name__] = T.onnx.is_in_onnx_export()
                return x * 2

        T.onnx.export(Probe(), (T.ones(2),), io.BytesIO(), dynamo=False)
        return (seen[T.__name__], T.onnx.is_in_onnx_export(), int(T.onnx.TrainingMode.EVAL),
                T.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK.name,
                issubclass(T.onnx.errors.UnsupportedOperatorError, RuntimeError))

    assert program(torch) == program(jtorch)


def test_unsupported_operation_names_it():
    class Inverse(jtorch.nn.Module):
        def forward(self, x):
            return jtorch.linalg.inv(x @ x.mT + jtorch.eye(3))

    with pytest.raises(jtorch.onnx.errors.UnsupportedOperatorError) as info:
        jtorch.onnx.export(Inverse(), (jtorch.ones(3, 3),), io.BytesIO())
    message = str(info.value)
    assert "platform_index" in message and "jtorch's _lu" in message
    assert f"{__file__}:" in message and "Inverse.forward" in message
    _, _, jm, jx = dm.pair("cnn")
    with pytest.raises(jtorch.onnx.OnnxExporterError, match="random numbers"):
        jtorch.onnx.export(jm, (jx,), io.BytesIO(), training=jtorch.onnx.TrainingMode.TRAINING)
    assert not jm.training
    with pytest.raises(jtorch.onnx.OnnxExporterError, match="TorchScript"):
        jtorch.onnx.register_custom_op_symbolic("aten::foo", lambda g: None, 9)


def test_missing_jax2onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax2onnx", None)
    with pytest.raises(ImportError, match=r"jtorch\[onnx\]"):
        jtorch.onnx.export(jtorch.nn.Linear(2, 2), (jtorch.ones(1, 2),), io.BytesIO())
