"""Which XLA programs a jtorch program compiles, and how long each kind takes.

    python benchmarks/compile_census.py jtorch --stop 60 examples/lstm_lm.py
    python benchmarks/compile_census.py alias tests/programs/vae.py --epochs 3

The arguments are ``benchmarks/program_probe.py``'s without its output file: ``jtorch`` for
a script that picks its library itself (``examples/``), ``alias`` for one that imports
``torch`` (``tests/programs/``), ``--stop N`` to end after N optimizer steps. The program
runs in this process with JAX's compile events counted; each compile is attributed, from
the Python stack at the time, to what asked for it: an op's forward kernel (``fwd``), its
forward-with-VJP kernel (``vjp``), a node's backward (``bwd``), a view's read or write, an
optimizer update, or the nearest jtorch/user frames (``other``). Use an empty compilation
cache to see a first run (``JTORCH_CACHE_DIR=$(mktemp -d)``); a warm cache compiles
nothing. ``--top N`` rows are printed (default 30).
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import threading
import time

from jax import monitoring

_COMPILE = "/jax/core/compile/backend_compile_duration"
_TIME: dict = collections.defaultdict(float)
_COUNT: collections.Counter = collections.Counter()


def _op(key) -> str:
    while type(key) is tuple and key and key[0] == "backward":  # a replayed VJP's key
        key = key[1]
    return str(key[0] if type(key) is tuple and key else key)


def _attribute() -> tuple[str, str]:
    if threading.current_thread().name == "jtorch-compile":  # jtorch's compiles ahead of need
        return "background", ""
    frame = sys._getframe(2)
    while frame is not None:
        name, local = frame.f_code.co_name, frame.f_locals
        if name == "apply_vjp" and "self" in local:
            replay = local["self"]._replay
            return "bwd", _op(replay[0]) if replay else "?"
        if name in ("_forward", "_apply_with_grad", "_apply") and "key" in local:
            return ("fwd" if name == "_forward" else "vjp"), _op(local["key"])
        if name in ("read_chain", "_scatter", "_apply_chain"):
            return "view", name
        if name == "try_fused":
            return "fused backward", ""
        if name == "step" and os.sep + "optim" + os.sep in frame.f_code.co_filename:
            return "optimizer", os.path.basename(frame.f_code.co_filename)
        frame = frame.f_back
    frame, chain = sys._getframe(2), []
    while frame is not None and len(chain) < 3:
        if os.sep + "jax" + os.sep not in frame.f_code.co_filename:
            chain.append(frame.f_code.co_name)
        frame = frame.f_back
    return "other", "/".join(chain)


def _listen(event: str, secs: float, **_) -> None:
    if event == _COMPILE:
        what = _attribute()
        _TIME[what] += secs
        _COUNT[what] += 1


def main(argv: list[str]) -> int:
    top = 30
    if argv[:1] == ["--top"]:
        top, argv = int(argv[1]), argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import program_probe

    monitoring.register_event_duration_secs_listener(_listen)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        program_probe.main([os.path.join(tmp, "probe.json"), *argv])
    wall = time.perf_counter() - start
    print(f"\n{sum(_COUNT.values())} programs compiled in {sum(_TIME.values()):.2f} s "
          f"(program wall {wall:.2f} s)")
    print(f"{'count':>5} {'seconds':>8}  kind, op")
    for what in sorted(_TIME, key=_TIME.get, reverse=True)[:top]:
        print(f"{_COUNT[what]:5d} {_TIME[what]:8.2f}  {', '.join(w for w in what if w)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
