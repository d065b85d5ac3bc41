"""Complete PyTorch programs (tests/programs/) give the same metric trajectory on jtorch.

Every program runs for a few steps under PyTorch and under ``python -m jtorch``, all of
them in one process per library (``run_all.py``), and every number they print (losses per
step, accuracies, fitted coefficients) must agree within the program's tolerance. The
programs start from NumPy-drawn weights and unshuffled data, so both libraries take the
same steps; only the VAE draws its noise from the library's own generator.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"
# Each program with short-run arguments, and the relative tolerance of its metrics.
RUNS = {
    "lstm_digits.py": ("--steps 3 --log-every 1 --shuffle 0", 1e-4),
    "mnist_cnn.py": ("--steps 3 --log-every 1 --shuffle 0 --dropout 0 --batch-size 16", 1e-4),
    "polynomial.py": ("--steps 300 --log-every 100", 1e-4),
    "vae.py": ("--steps 4 --log-every 1 --shuffle 0", 3e-2),  # randn_like: another stream
    "diabetes_regression.py": ("--steps 5 --log-every 1 --shuffle 0", 1e-4),
    "gcn.py": ("--steps 5 --log-every 1 --dropout 0", 1e-4),
    "lbfgs_sine.py": ("--steps 1 --length 30 --future 10 --max-iter 10", 1e-6),
}
_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def _start(prefix, env):
    args = [*prefix, str(PROGRAMS / "run_all.py"),
            *(f"{name} {args}" for name, (args, _) in RUNS.items())]
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _sections(out: str) -> dict:
    parts = re.split(r"^=== (\S+)\n", out, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.fixture(scope="module")
def outputs():
    # PyTorch on one thread: the test's machine may have fewer free cores than it has.
    env = dict(os.environ, PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1")
    procs = {"torch": _start([], env), "jtorch": _start(["-m", "jtorch"], env)}
    result = {}
    for lib, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{lib}: {err}"
        result[lib] = _sections(out)
    return result


@pytest.mark.parametrize("name", RUNS)
def test_program_trajectory_matches_pytorch(outputs, name):
    expected, actual = outputs["torch"][name], outputs["jtorch"][name]
    assert _NUMBER.sub("#", actual) == _NUMBER.sub("#", expected)
    e = [float(v) for v in _NUMBER.findall(expected)]
    a = [float(v) for v in _NUMBER.findall(actual)]
    assert len(e) >= 3, f"{name} printed too few metrics:\n{expected}"
    assert a == pytest.approx(e, rel=RUNS[name][1], abs=1e-6)
