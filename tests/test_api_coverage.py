"""How much of PyTorch's public API jtorch has, namespace by namespace.

The names come from the installed PyTorch: its public overridable functions
(``torch.overrides.get_testing_overrides()``, resolved to ``namespace.name``; names with a
leading underscore dropped), the other public callables of ``torch.__all__``, and the
``torch.nn`` module and ``torch.optim`` optimizer classes. A name counts as present when
jtorch has it where a program would look (``jtorch.X``, ``jtorch.Tensor.X`` or a tensor's
attribute, ``jtorch.nn.functional.X``, ...). The test prints the table and the missing
names, and fails when a namespace's share of its in-scope names drops below its floor.
Run it as a script (``python tests/test_api_coverage.py``) to print the table only.
"""

from __future__ import annotations

import fnmatch
import types
import warnings

import pytest
import torch

import jtorch

# ------------------------------------------------------------------ what is out of scope

# reason -> names or glob patterns; they are left out of every namespace's count. Each
# entry must still name something PyTorch has (a stale one fails the test).
OUT_OF_SCOPE = {
    "quantized tensors": "dequantize int_repr q_* quantize_* quantized_* fake_quantize_* "
                         "fused_moving_avg_obs_fake_quant choose_qparams_optimized qscheme "
                         "empty_quantized",
    "vendor kernels of one backend (cuDNN, MIOpen, oneDNN, FBGEMM) and their layouts":
        "cudnn_* miopen_* mkldnn_* fbgemm_* to_mkldnn",
    "CSR/CSC/BSR/BSC sparse layouts (jtorch has COO only)":
        "sparse_csr_tensor sparse_csc_tensor sparse_bsr_tensor sparse_bsc_tensor "
        "sparse_compressed_tensor crow_indices col_indices ccol_indices row_indices "
        "crow_indices_copy col_indices_copy ccol_indices_copy row_indices_copy",
    "complex32 (chalf), which JAX has no dtype for": "chalf",
    "results of a dtype jtorch lacks (hash_tensor returns uint64)": "hash_tensor",
    "TorchScript IR and futures (torch.jit is issue 16)":
        "import_ir_module import_ir_module_from_buffer parse_ir parse_schema "
        "parse_type_comment merge_type_from_type_comment unify_type_list fork wait",
    "first-class dimensions (functorch.dim)": "index",
    "device types JAX has no backend for (XPU, IPU, MTIA, MAIA, Vulkan)": "xpu ipu mtia",
    "kernels PyTorch's CPU build cannot run on dense tensors either (SyncBatchNorm's CUDA "
    "kernels, the sparse-only native_norm)":
        "batch_norm_stats batch_norm_elemt batch_norm_gather_stats "
        "batch_norm_gather_stats_with_counts batch_norm_backward_reduce "
        "batch_norm_backward_elemt batch_norm_update_stats native_norm",
    "deprecated: PyTorch warns on every call and names the replacement":
        "get_autocast_cpu_dtype get_autocast_gpu_dtype get_autocast_ipu_dtype "
        "get_autocast_xla_dtype set_autocast_cpu_dtype set_autocast_gpu_dtype "
        "set_autocast_ipu_dtype set_autocast_xla_dtype is_autocast_cpu_enabled "
        "is_autocast_ipu_enabled is_autocast_xla_enabled set_autocast_cpu_enabled "
        "set_autocast_ipu_enabled set_autocast_xla_enabled frobenius_norm nuclear_norm "
        "NLLLoss2d Container",
}

# Names known to be missing, with why (only used to annotate the printed worklist).
OTHERS = {
    "randomized low-rank and LOBPCG eigen solvers, not yet built":
        "lobpcg pca_lowrank svd_lowrank",
}

# ------------------------------------------------------------------ the namespaces

# namespace -> the fraction of its in-scope names jtorch must keep (raise as names land).
FLOORS = {
    "torch": 0.99,
    "torch (other functions)": 1.0,
    "torch.Tensor": 1.0,
    "torch.nn.functional": 1.0,
    "torch.nn.init": 1.0,
    "torch.linalg": 1.0,
    "torch.fft": 1.0,
    "torch.special": 1.0,
    "torch.nn (modules)": 0.99,
    "torch.optim (optimizers)": 1.0,
}


def _overridable() -> dict[str, set[str]]:
    """Public overridable names per namespace, from PyTorch's own override index."""
    index = torch.overrides._get_overridable_functions()[1]
    out: dict[str, set[str]] = {}
    for f in torch.overrides.get_testing_overrides():
        full = index.get(f)
        if full is None:  # a few functions live in torch without being in torch.__all__
            name = getattr(f, "__name__", "")
            full = f"torch.{name}" if getattr(torch, name, None) is f else None
        if full is None or full.endswith(".__set__"):
            continue
        ns, _, name = full.removesuffix(".__get__").rpartition(".")
        ns = "torch" if ns == "torch.functional" else ns  # torch.functional is re-exported
        if not name.startswith("_"):
            out.setdefault(ns, set()).add(name)
    return out


def _other_functions(overridable: set[str]) -> set[str]:
    """Public callables of ``torch.__all__`` that are not overridable (factories, flags...)."""
    out = set()
    for name in torch.__all__:
        f = getattr(torch, name, None)
        if name.startswith("_") or name in overridable or f is None:
            continue
        if callable(f) and not isinstance(f, type | types.ModuleType):
            out.add(name)
    return out


def _classes(module, base) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")
            and isinstance(getattr(module, n), type) and issubclass(getattr(module, n), base)}


def namespaces() -> dict[str, set[str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ns = _overridable()
        ns["torch"] -= {n for n in ns["torch"] if n not in torch.__dict__}
        ns["torch (other functions)"] = _other_functions(ns["torch"])
        ns["torch.nn (modules)"] = _classes(torch.nn, torch.nn.Module)
        ns["torch.optim (optimizers)"] = _classes(torch.optim, torch.optim.Optimizer)
    ns.pop("torch.distributed.distributed_c10d", None)  # counted by the distributed tests
    return ns


def _patterns(text: str) -> list[str]:
    return text.split()


_OUT = [p for text in OUT_OF_SCOPE.values() for p in _patterns(text)]


def out_of_scope(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in _OUT)


def _jtorch_object(ns: str):
    return {
        "torch": jtorch, "torch (other functions)": jtorch,
        "torch.nn (modules)": jtorch.nn, "torch.optim (optimizers)": jtorch.optim,
        "torch.Tensor": jtorch.Tensor,
    }.get(ns) or _submodule(ns)


def _submodule(ns: str):
    obj = jtorch
    for part in ns.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def present(ns: str, name: str) -> bool:
    """Whether jtorch has ``name`` where a program using ``ns`` would look it up."""
    obj = _jtorch_object(ns)
    if obj is None:
        return False
    if ns == "torch.Tensor" and not hasattr(obj, name):
        return hasattr(jtorch.zeros(2, 2), name)  # instance attributes (dtype) and properties
    return hasattr(obj, name)


def coverage() -> list[tuple[str, list[str], list[str], int]]:
    """(namespace, present names, missing names, out-of-scope count) per namespace."""
    rows = []
    for ns, names in sorted(namespaces().items()):
        scope = sorted(n for n in names if not out_of_scope(n))
        have = [n for n in scope if present(ns, n)]
        missing = [n for n in scope if n not in have]
        rows.append((ns, have, missing, len(names) - len(scope)))
    return rows


def _owner(name: str) -> str:
    for who, text in OTHERS.items():
        if any(fnmatch.fnmatchcase(name, p) for p in _patterns(text)):
            return who
    return ""


def report(rows) -> str:
    lines = ["| namespace | jtorch has | in scope | share | out of scope |",
             "| --- | --- | --- | --- | --- |"]
    total_have = total_scope = 0
    for ns, have, missing, skipped in rows:
        n = len(have) + len(missing)
        total_have, total_scope = total_have + len(have), total_scope + n
        lines.append(f"| `{ns}` | {len(have)} | {n} | {len(have) / max(n, 1):.0%} | {skipped} |")
    lines.append(f"| all | {total_have} | {total_scope} | "
                 f"{total_have / max(total_scope, 1):.0%} | |")
    for ns, _, missing, _ in rows:
        if missing:
            mine = [m for m in missing if not _owner(m)]
            theirs = [f"{m} ({_owner(m)})" for m in missing if _owner(m)]
            lines.append(f"\nmissing from {ns}: " + " ".join(mine + theirs))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def rows():
    return coverage()


def test_coverage_floors(rows):
    print("\n" + report(rows))
    below = []
    for ns, have, missing, _ in rows:
        share = len(have) / max(len(have) + len(missing), 1)
        if share < FLOORS.get(ns, 1.0):
            below.append(f"{ns}: {share:.1%} < floor {FLOORS.get(ns, 1.0):.0%}")
    assert not below, "coverage fell below its floor:\n" + "\n".join(below)


def test_every_namespace_has_a_floor(rows):
    assert {ns for ns, *_ in rows} == set(FLOORS)


def test_out_of_scope_entries_name_torch_apis():
    every = set().union(*namespaces().values())
    stale = [p for p in _OUT if not any(fnmatch.fnmatchcase(n, p) for n in every)]
    assert not stale, f"out-of-scope entries PyTorch does not have: {stale}"


if __name__ == "__main__":
    print(report(coverage()))
