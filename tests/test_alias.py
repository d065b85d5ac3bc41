"""``python -m jtorch``: PyTorch programs run unchanged; printed metrics match real PyTorch."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"
# Each program with its command-line arguments; each is run under both libraries.
RUNS = {"regression": ["--epochs", "3"], "classifier": ["2"], "checkpoint": [], "workers": []}
_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def _start(args):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=PROGRAMS.parent)


@pytest.fixture(scope="module")
def outputs():
    """Start every run at once (they are independent), then collect (rc, stdout, stderr)."""
    procs = {}
    for name, args in RUNS.items():
        script = str(PROGRAMS / f"{name}.py")
        procs[name, "torch"] = _start([script, *args])
        procs[name, "jtorch"] = _start(["-m", "jtorch", script, *args])
    procs["probe", "jtorch"] = _start(["-m", "jtorch", str(PROGRAMS / "alias_probe.py"),
                                       "x", "--flag"])
    return {k: (p.wait(timeout=300), *p.communicate()) for k, p in procs.items()}


@pytest.mark.parametrize("name", RUNS)
def test_program_metrics_match_pytorch(outputs, name):
    (rc_t, out_t, err_t), (rc_j, out_j, err_j) = outputs[name, "torch"], outputs[name, "jtorch"]
    assert rc_t == 0, err_t
    assert rc_j == 0, err_j
    assert _NUMBER.sub("#", out_j) == _NUMBER.sub("#", out_t)
    expected = [float(v) for v in _NUMBER.findall(out_t)]
    actual = [float(v) for v in _NUMBER.findall(out_j)]
    assert expected, "the program printed no metrics"
    assert actual == pytest.approx(expected, rel=1e-4, abs=2e-6)


def test_alias_probe(outputs):
    rc, out, err = outputs["probe", "jtorch"]
    assert rc == 0, err
    assert out.splitlines() == [
        "argv ['x', '--flag']",
        "main __main__",
        "path0 True",
        "same True True True",
        "dataloader DataLoader",
        "hasattr False False",
        "default fallback",
        "missing MissingTorchAPI jtorch does not implement torch.no_such_api (module torch)",
        "missing MissingTorchAPI jtorch does not implement torch.nn.NoSuchLayer "
        "(module torch.nn)",
        # Inside the program, Python's own error, as PyTorch's (no Tensor.__getattr__: it
        # would slow every attribute read); the runner names it if it ends the program.
        "missing AttributeError 'Tensor' object has no attribute 'no_such_method'",
        "import ModuleNotFoundError jtorch does not implement torch.no_such_module "
        "(module torch)",
        "main block ran",
    ]


def test_program_ended_by_a_missing_tensor_method_names_it(tmp_path):
    script = tmp_path / "uses_missing.py"
    script.write_text("import torch\n"
                      "x = torch.ones(2)\n"
                      "print(hasattr(x, 'no_such_method'), x.sum().item())\n"
                      "x.no_such_method()\n")
    proc = subprocess.run([sys.executable, "-m", "jtorch", str(script)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1
    assert proc.stdout == "False 2.0\n"
    last = proc.stderr.strip().splitlines()[-1]
    assert last == ("jtorch._alias.MissingTorchAPI: jtorch does not implement "
                    "torch.Tensor.no_such_method (class torch.Tensor)")
    assert "AttributeError: 'Tensor' object has no attribute 'no_such_method'" in proc.stderr
    # A private name, or one that exists, is not reported as a missing API.
    script.write_text("import torch\ntorch.ones(2)._no_such\n")
    proc = subprocess.run([sys.executable, "-m", "jtorch", str(script)], capture_output=True,
                          text=True, timeout=300)
    assert proc.stderr.strip().splitlines()[-1] == (
        "AttributeError: 'Tensor' object has no attribute '_no_such'")


def test_usage_and_missing_script():
    from jtorch.__main__ import main

    assert main(["--help"]) == 0
    assert main([str(PROGRAMS / "does_not_exist.py")]) == 2


def test_install_alias_refuses_when_real_torch_is_loaded():
    import torch  # noqa: F401 - the oracle is imported in this test process

    import jtorch

    with pytest.raises(RuntimeError, match="already imported"):
        jtorch.install_alias()
