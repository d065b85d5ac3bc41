"""torch.save / torch.load: checkpoints cross between PyTorch and jtorch both ways, value for
value, with storage sharing, dtypes and PyTorch's weights_only rules."""

from __future__ import annotations

import datetime
import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch
from conftest import assert_same, check

import jtorch

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128"]


def _sample(t):
    """A checkpoint-like object built with backend ``t``: shared storages, views, dtypes."""
    base = t.arange(12, dtype=t.float32).reshape(3, 4)
    return {
        "base": base, "row": base[1], "col": base[:, 2], "t": base.t(), "scalar": t.tensor(2.5),
        "empty": t.zeros(0, 3), "ints": t.tensor([1, -2, 3]), "flag": t.tensor([True, False]),
        "half": t.tensor([1.5, -2.25], dtype=t.float16),
        "bf": t.tensor([1.5, -2.25], dtype=t.bfloat16),
        "nested": [base, (1, 2.5, "s", None), {"k": t.ones(2, dtype=t.float64)}],
        "size": base.shape, "dtype": t.int32, "device": t.device("cpu"), "raw": b"\x00\xff",
        "set": {1, 2}, "complex": 1 + 2j,
    }


def _roundtrip(src, dst, obj, **load_kw):
    buf = io.BytesIO()
    src.save(obj, buf)
    buf.seek(0)
    return dst.load(buf, **load_kw)


@pytest.mark.parametrize("direction", ["torch->jtorch", "jtorch->torch"])
def test_checkpoints_cross_both_ways(direction):
    src, dst = (torch, jtorch) if direction == "torch->jtorch" else (jtorch, torch)
    loaded = _roundtrip(src, dst, _sample(src))
    expected = _sample(torch)
    if dst is torch:  # compare in jtorch terms: convert the torch results
        loaded = _roundtrip(torch, jtorch, loaded)
    assert_same(expected, loaded)


@pytest.mark.parametrize("direction", ["torch->jtorch", "jtorch->torch"])
def test_storage_sharing_survives(direction):
    src, dst = (torch, jtorch) if direction == "torch->jtorch" else (jtorch, torch)
    loaded = _roundtrip(src, dst, _sample(src))
    loaded["base"][1, 2] = 100.0  # row, col and t view the same storage
    assert float(loaded["row"][2]) == 100.0
    assert float(loaded["col"][1]) == 100.0
    assert float(loaded["t"][2, 1]) == 100.0
    assert float(loaded["nested"][0][1, 2]) == 100.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_crosses(dtype):
    def prog(t):
        x = t.tensor([[0, 1, 2], [3, 4, 5]]).to(getattr(t, dtype))
        there = _roundtrip(t, jtorch if t is torch else torch, x)
        return _roundtrip(jtorch if t is torch else torch, t, there)

    check(prog)


def test_jtorch_round_trip_keeps_values_and_requires_grad():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = _roundtrip(t, t, {"x": x, "y": x.detach() * 2})
        return y["x"], y["x"].requires_grad, y["x"].is_leaf, y["y"].requires_grad

    check(prog)


def test_module_state_dict_metadata_loads_in_torch():
    sd = torch.nn.Linear(3, 2).state_dict()
    loaded = _roundtrip(torch, jtorch, sd)
    assert isinstance(loaded, OrderedDict) and list(loaded) == ["weight", "bias"]
    assert loaded._metadata == sd._metadata
    back = _roundtrip(jtorch, torch, loaded)
    assert back._metadata == sd._metadata
    torch.nn.Linear(3, 2).load_state_dict(back)
    assert_same(sd, _roundtrip(jtorch, jtorch, loaded))


def test_file_paths_and_archive_name(tmp_path):
    path = tmp_path / "model.ckpt"
    jtorch.save({"w": jtorch.ones(2)}, str(path))
    import zipfile

    names = zipfile.ZipFile(path).namelist()
    assert "model/data.pkl" in names and "model/data/0" in names
    assert_same(torch.load(path)["w"], jtorch.load(path)["w"])
    torch.save({"w": torch.ones(2)}, path)
    assert_same(torch.ones(2), jtorch.load(str(path))["w"])


def test_records_are_aligned_for_pytorch_reader():
    import zipfile

    buf = io.BytesIO()
    jtorch.save([jtorch.ones(3), jtorch.zeros(5, dtype=jtorch.int64)], buf)
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    raw = buf.getvalue()
    for info in zf.infolist():
        if "/data/" in info.filename:
            name_len, extra_len = np.frombuffer(raw[info.header_offset + 26:
                                                    info.header_offset + 30], "<u2")
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


@pytest.mark.parametrize("backend", ["torch", "jtorch"])
def test_legacy_format_written_by_torch(backend):
    buf = io.BytesIO()
    base = torch.arange(6.0).reshape(2, 3)
    torch.save({"a": base, "b": base[1], "i": torch.tensor([7])}, buf,
               _use_new_zipfile_serialization=False)
    buf.seek(0)
    loaded = jtorch.load(buf)
    assert_same({"a": base, "b": base[1], "i": torch.tensor([7])}, loaded)
    loaded["a"][1, 1] = -1.0
    assert float(loaded["b"][1]) == -1.0


def test_weights_only_rejects_arbitrary_globals():
    def prog(t):
        buf = io.BytesIO()
        t.save({"when": datetime.date(2020, 1, 2)}, buf)
        buf.seek(0)
        return t.load(buf)

    e, a = check(prog, raises=pickle.UnpicklingError)
    assert isinstance(a, pickle.UnpicklingError)


def test_weights_only_false_and_safe_globals():
    def prog(t):
        obj = {"when": datetime.date(2020, 1, 2), "x": t.ones(2)}
        buf = io.BytesIO()
        t.save(obj, buf)
        out = []
        buf.seek(0)
        out.append(t.load(buf, weights_only=False)["when"])
        buf.seek(0)
        with t.serialization.safe_globals([datetime.date]):
            out.append(t.load(buf)["when"])
        buf.seek(0)
        t.serialization.add_safe_globals([datetime.date])
        try:
            out.append(t.load(buf, weights_only=True)["when"])
            out.append(datetime.date in t.serialization.get_safe_globals())
        finally:
            t.serialization.clear_safe_globals()
        return out

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_LOCATION_ERRORS = {
    'cuda': RuntimeError,
}


@pytest.mark.parametrize("where", ["cpu", "device", "dict", "callable", "cuda"])
def test_map_location(where, request):
    def prog(t):
        loc = {"cpu": "cpu", "device": t.device("cpu"), "dict": {"cpu": "cpu"},
               "callable": lambda storage, location: storage, "cuda": "cuda"}[where]
        buf = io.BytesIO()
        t.save({"x": t.arange(3.0)}, buf)
        buf.seek(0)
        x = t.load(buf, map_location=loc)["x"]
        return x, str(x.device)

    check(prog, raises=_LOCATION_ERRORS.get(request.node.callspec.id))


def test_tensor_saved_on_cuda_without_gpu_raises():
    import zipfile

    buf = io.BytesIO()
    torch.save({"x": torch.ones(2)}, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:  # the same checkpoint, saved "from a GPU"
        for name in src.namelist():
            data = src.read(name)
            if name.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            dst.writestr(name, data)
    data = out.getvalue()
    e, a = check(lambda t: t.load(io.BytesIO(data)), raises=RuntimeError)
    assert isinstance(e, RuntimeError)
    check(lambda t: t.load(io.BytesIO(data), map_location="cpu")["x"])


def _model_and_optimizer(t):
    t.manual_seed(0)
    # No bias feeds the BatchNorm: its gradient would be rounding noise that Adam amplifies.
    model = t.nn.Sequential(t.nn.Linear(3, 4, bias=False), t.nn.BatchNorm1d(4), t.nn.ReLU(),
                            t.nn.Linear(4, 2))
    opt = t.optim.Adam(model.parameters(), lr=0.01)
    x = t.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=t.float32)
    for _ in range(2):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return model, opt, x


@pytest.mark.parametrize("direction", ["torch->jtorch", "jtorch->torch"])
def test_module_and_optimizer_state_dicts_cross(direction):
    """A training checkpoint (model with BatchNorm buffers + Adam state) written by one
    library resumes in the other: after loading and one more step, both agree."""
    src, dst = (torch, jtorch) if direction == "torch->jtorch" else (jtorch, torch)
    model, opt, x_src = _model_and_optimizer(src)
    ckpt = _roundtrip(src, dst, {"model": model.state_dict(), "optim": opt.state_dict()})
    model2, opt2, x_dst = _model_and_optimizer(dst)  # trained from its own init, then loaded
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optim"])
    for m, o, x in ((model, opt, x_src), (model2, opt2, x_dst)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    pairs = ((model, opt), (model2, opt2)) if src is torch else ((model2, opt2), (model, opt))
    (tm, to), (jm, jo) = pairs
    assert_same(tm.state_dict(), jm.state_dict(), rtol=1e-4, atol=1e-5)  # float32 + Adam
    assert_same(to.state_dict(), jo.state_dict(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("direction", ["torch->jtorch", "jtorch->torch"])
def test_parameters_stay_parameters(direction):
    src, dst = (torch, jtorch) if direction == "torch->jtorch" else (jtorch, torch)
    p = src.nn.Parameter(src.arange(3.0))
    frozen = src.nn.Parameter(src.ones(2), requires_grad=False)
    out = _roundtrip(src, dst, {"p": p, "frozen": frozen})
    assert type(out["p"]).__name__ == "Parameter" and out["p"].requires_grad
    assert type(out["frozen"]).__name__ == "Parameter" and not out["frozen"].requires_grad
    assert out["p"].tolist() == [0.0, 1.0, 2.0]
