"""The layering rules of DESIGN.md: ``functional/`` is pure JAX (it never imports the eager
layer, the torch namespace or torch itself), and jtorch never imports PyTorch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jtorch
from jtorch import functional as F

SRC = Path(jtorch.__file__).resolve().parent
FUNCTIONAL = sorted((SRC / "functional").rglob("*.py"))
# What functional/ may not depend on: the stateful layer, the torch namespace built on it
# (jtorch/__init__.py imports eager), and PyTorch.
FORBIDDEN = ("jtorch.eager", "jtorch.nn", "jtorch.optim", "jtorch.autograd", "jtorch.utils",
             "jtorch.compile", "jtorch.cuda", "torch")


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement in ``path`` may load, with its line (nested ones too)."""
    sub = path.parent.relative_to(SRC / "functional").parts if path.is_relative_to(SRC) else ()
    package = ".".join(("jtorch", "functional", *sub))
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module
            if node.module:  # ``from .. import x`` loads only the package and ``x``
                out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return out


def _is_forbidden(module: str) -> bool:
    return module == "jtorch" or any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def test_functional_files_found():
    assert {p.name for p in FUNCTIONAL} >= {"__init__.py", "creation.py", "random.py"}


@pytest.mark.parametrize("path", FUNCTIONAL,
                         ids=lambda p: str(p.relative_to(SRC / "functional")))
def test_functional_imports_nothing_from_eager(path):
    bad = [(line, m) for line, m in _imported_modules(path) if _is_forbidden(m)]
    assert not bad, f"{path.name} imports {bad}"


def test_import_checker_catches_violations(tmp_path):
    """The static check itself: relative, absolute and function-local forms are all seen."""
    src = tmp_path / "x.py"
    src.write_text(
        "from ..eager import tensor\nfrom .. import eager\nimport jtorch.nn\n"
        "def f():\n    from ..eager.views import write\n    import torch\n"
        "from .. import _dtypes\nfrom ._util import cast\nimport jax.numpy\nimport jtorch\n"
    )
    bad = sorted({m for _, m in _imported_modules(src) if _is_forbidden(m)})
    assert bad == ["jtorch", "jtorch.eager", "jtorch.eager.tensor", "jtorch.eager.views",
                   "jtorch.eager.views.write", "jtorch.nn", "torch"]


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_functional_loads_without_eager():
    """Load jtorch.functional alone (a bare package stands in for jtorch/__init__.py, which
    builds the torch namespace on eager) and check that no eager module came with it."""
    code = f"""
import sys, types
pkg = types.ModuleType("jtorch")
pkg.__path__ = [{str(SRC)!r}]
sys.modules["jtorch"] = pkg
import jax.numpy as jnp
import jtorch.functional as F
import jtorch.functional.distributions
loaded = sorted(m for m in sys.modules if m == "torch" or m.startswith(("torch.", "jtorch.")))
bad = [m for m in loaded if not m.startswith(("jtorch.functional", "jtorch._dtypes",
                                              "jtorch._strides"))]
assert not bad, bad
print(F.sum(F.exp(jnp.zeros(3))))
"""
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3.0"


def test_jtorch_never_imports_torch():
    code = """
import sys
import jtorch
x = jtorch.ones(2) + 1
y = jtorch.tensor([1.0, 2.0], requires_grad=True)
(y * x).sum().backward()
assert y.grad.tolist() == [2.0, 2.0]
assert "torch" not in sys.modules, "jtorch imported torch"
assert not any(m.startswith("torch.") for m in sys.modules)
"""
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ functional is pure JAX


def test_functional_under_grad():
    x = jnp.array([0.0, 1.0, -2.0])
    g = jax.grad(lambda x: F.sum(F.exp(x)))(x)
    np.testing.assert_allclose(g, np.exp([0.0, 1.0, -2.0]), rtol=1e-6)
    g2 = jax.grad(lambda x: F.mean(F.mul(x, x)))(x)
    np.testing.assert_allclose(g2, 2 * np.asarray(x) / 3, rtol=1e-6)


def test_functional_under_jit_keeps_torch_dtypes():
    @jax.jit
    def f(x, y):
        return F.add(x, 1.5), F.div(x, 2), F.mul(x, y), F.sum(x)

    a, b, c, d = f(jnp.array([1, 2], jnp.int64), jnp.array([2.0, 3.0], jnp.float32))
    assert (a.dtype, b.dtype, c.dtype, d.dtype) == (jnp.float32, jnp.float32, jnp.float32,
                                                   jnp.int64)
    assert a.tolist() == [2.5, 3.5] and b.tolist() == [0.5, 1.0] and int(d) == 3


def test_functional_factories_under_jit():
    @jax.jit
    def f(x):
        return x + F.arange(3), F.full((3,), 2) * x, F.linspace(0, 1, 3) + F.zeros((3,))

    a, b, c = f(jnp.ones(3, jnp.float32))
    assert a.tolist() == [1.0, 2.0, 3.0] and b.dtype == jnp.float32 and c.tolist() == [0, 0.5, 1]
    assert F.full((2,), 3).dtype == jnp.int64 and F.full((2,), True).dtype == jnp.bool_


def test_functional_random_takes_explicit_keys():
    key = jax.random.PRNGKey(0)
    a = jax.jit(lambda k: F.rand(k, (4,)))(key)
    assert a.dtype == jnp.float32 and a.tolist() == F.rand(key, (4,)).tolist()
    keys = jax.random.split(key, 3)
    b = jax.vmap(lambda k: F.randn(k, (2,)))(keys)
    assert b.shape == (3, 2) and len({tuple(r) for r in b.tolist()}) == 3
    c = jax.jit(lambda k, lo, hi: F.randint(k, lo, hi, (50,)))(key, 3, 7)
    assert c.dtype == jnp.int64 and set(c.tolist()) <= {3, 4, 5, 6}
    n = F.normal(key, jnp.zeros(2000, jnp.float64), 1.0, 0.5)
    assert n.dtype == jnp.float64 and abs(float(n.mean()) - 1.0) < 0.05


def test_functional_raises_torch_errors():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        F.arange(0, 5, 0)
    with pytest.raises(NotImplementedError):
        F.rand(jax.random.PRNGKey(0), (2,), dtype=jtorch.int64)
