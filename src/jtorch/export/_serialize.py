"""``torch.export.save``/``load``: one self-contained zip file.

It holds the serialised ``jax.export`` program (StableHLO, versioned by JAX), a JSON
description of inputs, outputs and state, and the weights and example inputs in
``torch.save``'s format. It loads and runs in a fresh process without the model's Python
code. It is jtorch's format, not PyTorch's ``.pt2``.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections import OrderedDict

from jax import export as jex

from .. import serialization
from ..nn.parameter import Parameter
from . import _pytree
from ._program import ExportedProgram

_DIR = "jtorch_export/"
FORMAT_VERSION = 1


def save(ep: ExportedProgram, f, *, extra_files=None, opset_version=None,
         pickle_protocol: int = 2) -> None:
    """Write ``ep`` to ``f`` (a path or a binary file object).

    ``opset_version`` is accepted for PyTorch's signature; the program's version is
    ``jax.export``'s serialization version, recorded in the file.
    """
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got "
                        f"'{type(ep).__name__}' instead.")
    meta = dict(ep._meta)
    meta["format_version"] = FORMAT_VERSION
    meta["requires_grad"] = [ep._state[n].requires_grad for n, _, _ in meta["state"]]
    weights = io.BytesIO()
    example = []
    if ep.example_inputs is not None:
        _pytree.flatten(ep.example_inputs, example)
    serialization.save({"state": OrderedDict((n, ep._state[n]) for n, _, _ in meta["state"]),
                        "example": [t.detach() for _, t in example]}, weights,
                       pickle_protocol=pickle_protocol)
    opened = isinstance(f, str | os.PathLike)
    fh = open(f, "wb") if opened else f
    try:
        with zipfile.ZipFile(fh, "w") as z:
            z.writestr(_DIR + "version", str(FORMAT_VERSION))
            z.writestr(_DIR + "program.jax", bytes(ep._exported.serialize()))
            z.writestr(_DIR + "meta.json", json.dumps(meta))
            z.writestr(_DIR + "weights.pt", weights.getvalue())
            for name, data in (extra_files or {}).items():
                z.writestr(_DIR + "extra/" + name,
                           data.encode() if isinstance(data, str) else bytes(data))
    finally:
        if opened:
            fh.close()


def load(f, *, extra_files=None, expected_opset_version=None) -> ExportedProgram:
    """Read a program written by ``save`` (or ``torch.jit.save``); ``extra_files`` (a
    dict of names) receives those files' contents as strings."""
    opened = isinstance(f, str | os.PathLike)
    fh = open(f, "rb") if opened else f
    try:
        with zipfile.ZipFile(fh) as z:
            names = set(z.namelist())
            if _DIR + "program.jax" not in names:
                raise RuntimeError("not a jtorch exported program (jtorch reads the files that "
                                   "jtorch's torch.export.save/torch.jit.save write, not "
                                   "PyTorch's .pt2 or TorchScript archives)")
            exported = jex.deserialize(bytearray(z.read(_DIR + "program.jax")))
            meta = json.loads(z.read(_DIR + "meta.json"))
            blob = serialization.load(io.BytesIO(z.read(_DIR + "weights.pt")))
            for name in list(extra_files or {}):
                if _DIR + "extra/" + name in names:
                    extra_files[name] = z.read(_DIR + "extra/" + name).decode()
    finally:
        if opened:
            fh.close()
    if meta.get("format_version", 0) > FORMAT_VERSION:
        raise RuntimeError(f"this file was written by a newer jtorch (format "
                           f"{meta['format_version']}); this jtorch reads format "
                           f"{FORMAT_VERSION}")
    state = OrderedDict()
    for (name, kind, _), rg in zip(meta["state"], meta.pop("requires_grad")):
        t = blob["state"][name]
        state[name] = Parameter(t, requires_grad=rg) if kind == "parameter" else t
    example = None
    if blob["example"]:
        example = _pytree.unflatten(meta["in_spec"], blob["example"])
    return ExportedProgram(exported, meta, state, example)
