"""The torch.X submodules scripts import at their top: each imports as in PyTorch, and each
public function works or raises naming what jtorch lacks (hub from a local directory and
file:// checkpoints, TensorBoard's ImportError without the package, benchmark timers,
futures, storages, hooks, FX/package entry points)."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest
import torch
from conftest import check

import jtorch

MODULES = ["multiprocessing", "testing", "utils.checkpoint", "profiler", "autograd.profiler",
           "hub", "utils.benchmark", "utils.hooks", "utils.model_zoo", "overrides", "types",
           "version", "random", "storage", "futures", "package", "fx", "optim.swa_utils",
           "nn.modules.lazy", "nn.utils.stateless", "nn.utils.fusion", "nn.attention",
           "nn.grad", "nn.common_types", "nn.modules.utils", "nn.utils.memory_format"]


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_and_names(name):
    """Every public name of PyTorch's module that jtorch covers is there (a sample)."""
    tm, jm = importlib.import_module(f"torch.{name}"), importlib.import_module(f"jtorch.{name}")
    exported = getattr(tm, "__all__", [])
    missing = [n for n in exported if not hasattr(jm, n) and not n.startswith("_")]
    allowed = {"utils.checkpoint": {"CheckpointPolicy", "SelectiveCheckpointContext",
                                    "create_selective_checkpoint_contexts",
                                    "SAC_IGNORED_OPS", "GraphExecGroup"},
               "overrides": {"redispatch_function"},
               # nvprof (CUDA) trace loaders and Kineto internals
               "autograd.profiler": {"load_nvprof", "parse_nvprof_trace", "EnforceUnique",
                                     "KinetoStepTracker", "MemRecordsAcc"}}
    assert set(missing) <= allowed.get(name, set()), missing


def test_attribute_access_without_import():
    for name in ("testing", "hub", "profiler", "multiprocessing", "random", "overrides"):
        assert getattr(jtorch, name).__name__ == f"jtorch.{name}"
    assert jtorch.version.cuda is None and jtorch.version.__version__ == jtorch.__version__


def test_tensorboard_without_the_package_raises_as_torch():
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        check(lambda t: importlib.import_module(f"{t.__name__}.utils.tensorboard"),
              raises=ModuleNotFoundError)
    else:
        pytest.skip("tensorboard is installed: test_tensorboard_writes_events covers it")


def test_tensorboard_writes_events(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from jtorch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("loss", jtorch.tensor(0.5), 1)
        w.add_histogram("h", jtorch.arange(10.0), 0)
        w.add_text("t", "hello", 0)
    ea = EventAccumulator(str(tmp_path))
    ea.Reload()
    assert [(e.step, e.value) for e in ea.Scalars("loss")] == [(1, 0.5)]
    assert ea.Histograms("h")[0].histogram_value.num == 10


def test_hub_local_repo_and_file_url(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "hubconf.py").write_text(
        "dependencies = ['numpy']\n"
        "def tiny(n=2):\n    '''A tiny model.'''\n    import jtorch\n"
        "    return jtorch.nn.Linear(n, 1)\n")
    repo = str(tmp_path / "repo")
    assert jtorch.hub.list(repo, source="local") == ["tiny"]
    assert jtorch.hub.help(repo, "tiny", source="local") == "A tiny model."
    assert jtorch.hub.load(repo, "tiny", 3, source="local").in_features == 3
    with pytest.raises(RuntimeError, match="GitHub"):
        jtorch.hub.load("owner/repo", "tiny")
    torch.save({"w": torch.arange(3.0)}, tmp_path / "ckpt.pt")
    jtorch.hub.set_dir(str(tmp_path / "hub"))
    try:
        sd = jtorch.hub.load_state_dict_from_url((tmp_path / "ckpt.pt").as_uri())
        assert jtorch.hub.get_dir() == str(tmp_path / "hub")
    finally:
        jtorch.hub.set_dir(os.path.join(jtorch.hub._torch_home(), "hub"))
    np.testing.assert_array_equal(sd["w"].numpy(), [0.0, 1.0, 2.0])
    assert os.path.exists(tmp_path / "hub" / "checkpoints" / "ckpt.pt")
    with pytest.raises(RuntimeError, match="could not download"):
        jtorch.hub.download_url_to_file((tmp_path / "nope.pt").as_uri(), str(tmp_path / "x"))


def test_benchmark_timer():
    from jtorch.utils.benchmark import Timer

    t = Timer("x + 1", setup="x = torch.ones(3)", label="add", description="ones")
    m = t.timeit(20)
    assert m.number_per_run == 20 and len(m.times) == 1 and m.mean > 0
    assert "add" in repr(m) and "20 runs" in repr(m)
    b = t.blocked_autorange(min_run_time=0.01)
    assert len(b.times) >= 1 and b.median > 0


def test_futures_match_torch():
    def prog(t):
        f = t.futures.Future()
        g = f.then(lambda fut: fut.wait() * 2)
        all_done = t.futures.collect_all([f, g])
        before = (f.done(), all_done.done())
        f.set_result(21)
        return before, g.wait(), t.futures.wait_all([f, g]), all_done.done()

    check(prog)


def test_unsupported_entry_points_name_themselves():
    for fn in (lambda: jtorch.fx.symbolic_trace(jtorch.nn.Linear(1, 1)),
               lambda: jtorch.package.PackageExporter("x"),
               lambda: jtorch.profiler.ExecutionTraceObserver(),
               lambda: jtorch.testing.FileCheck()):
        with pytest.raises(RuntimeError, match="not supported in jtorch"):
            fn()
    assert jtorch.fx.wrap(len) is len


def test_storage_basics():
    s = jtorch.storage.TypedStorage([1.0, 2.0, 3.0])
    u = jtorch.storage.UntypedStorage(4)
    assert (s.dtype, s.size(), s[1], s.element_size()) == (jtorch.float32, 3, 2.0, 4)
    assert (u.size(), u.nbytes(), u.tolist()) == (4, 4, [0, 0, 0, 0])
    assert s.share_memory_().is_shared()
