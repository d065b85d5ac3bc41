"""How to time jtorch (and PyTorch on a GPU) correctly: work is asynchronous.

jtorch ops return as soon as XLA has queued the kernel (JAX's asynchronous dispatch), on
the CPU as on a GPU, exactly like CUDA kernels in PyTorch. A stopwatch around a loop of
ops therefore measures how fast Python *issues* them, not how long the device takes. To
time the device work:

1. synchronize before starting the clock (so earlier work is not counted) and again
   before stopping it: ``torch.cuda.synchronize()`` on a GPU; on the CPU, anything that
   reads values back (``.item()``, ``.cpu()``, ``.numpy()``, printing) waits for them;
2. or record ``torch.cuda.Event(enable_timing=True)`` before and after, and read
   ``start.elapsed_time(end)`` (milliseconds) once ``end.synchronize()`` returned;
3. warm up first: the first call of each op compiles its kernel.

    python benchmarks/timing.py                        # jtorch
    TORCH_BACKEND=torch python benchmarks/timing.py    # PyTorch, for comparison
"""

import importlib
import os
import time

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
N, STEPS = 512, 20


def work(x):
    for _ in range(STEPS):
        x = torch.tanh(x @ x / N)
    return x


def sync(x) -> None:
    """Wait for the device: ``torch.cuda.synchronize()``, or read a value back."""
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    else:
        x.sum().item()


def main() -> None:
    x = torch.randn(N, N, device=DEVICE)
    sync(work(x))  # warm-up: compile every kernel once

    sync(x)
    start = time.perf_counter()
    y = work(x)
    issued = time.perf_counter() - start  # WRONG as a timing: only the dispatch
    sync(y)
    done = time.perf_counter() - start  # right: the work has finished
    print(f"{torch.__name__} on {DEVICE}: {STEPS} matmul+tanh of {N}x{N}")
    print(f"  stopwatch without synchronize: {issued * 1e3:8.2f} ms  (ops issued, not run)")
    print(f"  stopwatch with synchronize:    {done * 1e3:8.2f} ms")

    if DEVICE == "cuda":
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        y = work(x)
        end.record()
        end.synchronize()
        print(f"  cuda.Event elapsed_time:       {begin.elapsed_time(end):8.2f} ms")


if __name__ == "__main__":
    main()
