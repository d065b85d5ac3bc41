"""Named results (``torch.return_types.max(values=..., indices=...)``)."""

from __future__ import annotations

from collections import namedtuple


def _structseq(name: str, fields: str):
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


max = _structseq("max", "values indices")
min = _structseq("min", "values indices")
