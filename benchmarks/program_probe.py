"""Run one program as ``python SCRIPT ARGS`` would, recording when its training steps end.

    python benchmarks/program_probe.py OUT.json torch|jtorch|alias [--stop N] SCRIPT [ARGS...]

``torch`` and ``jtorch`` import that library first (a script that picks its library by
``TORCH_BACKEND`` gets the same module); ``alias`` is ``python -m jtorch SCRIPT``. The
probe hooks the library's optimizer (every ``optimizer.step()`` end), ``Tensor.backward``
and the first module call, runs the script as ``__main__`` and writes the timestamps to
OUT.json. ``--stop N`` ends the program after N steps (a short run of a script that has
no knob for it). ``benchmarks/programs.py`` drives it.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
import time

START = time.time()


class _Stop(Exception):
    """Raised from the step hook to end a program early (``--stop``)."""


def _install(lib: str):
    if lib == "torch":
        import torch
    else:
        import jtorch as torch

        if lib == "alias":
            torch.install_alias()
    return torch


def main(argv: list[str]) -> int:
    out, lib, *rest = argv
    stop = 0
    if rest[0] == "--stop":
        stop, rest = int(rest[1]), rest[2:]
    torch = _install(lib)
    record = {"start": START, "imported": time.time(), "forward": None, "steps": [],
              "backwards": [], "stopped": False}

    def on_step(*_):
        record["steps"].append(time.time())
        if stop and len(record["steps"]) >= stop:
            raise _Stop

    def on_forward(*_):
        if record["forward"] is None:
            record["forward"] = time.time()

    lib_name = torch.__name__
    optimizer = importlib.import_module(f"{lib_name}.optim.optimizer")
    optimizer.register_optimizer_step_post_hook(on_step)
    module = importlib.import_module(f"{lib_name}.nn.modules.module")
    module.register_module_forward_pre_hook(on_forward)
    backward = torch.Tensor.backward

    def timed_backward(self, *args, **kwargs):
        if record["forward"] is None:
            record["forward"] = record["imported"]
        result = backward(self, *args, **kwargs)
        record["backwards"].append(time.time())
        if stop and not record["steps"] and len(record["backwards"]) >= stop:
            raise _Stop
        return result

    torch.Tensor.backward = timed_backward
    script = rest[0]
    sys.argv = list(rest)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except _Stop:
        record["stopped"] = True
    except SystemExit as e:  # ``sys.exit(main())``: recorded, then the script's own status
        code = e.code
    record["end"] = time.time()
    with open(out, "w") as f:
        json.dump(record, f)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
