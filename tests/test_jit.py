"""torch.jit on torch.compile: traced and scripted modules give PyTorch's outputs and keep
the module interface; save/load round-trips at another batch size; the TorchScript
annotations behave as in PyTorch's eager code."""

from __future__ import annotations

import typing

import pytest
from conftest import check
from programs import deploy_models as dm


@pytest.mark.parametrize("name", ["cnn", "lstm_lm"])
def test_trace_keeps_interface_and_values(name):
    dm.pair(name)  # the torch and jtorch models share weights

    def program(T):
        m, x = dm.build(T, name)
        traced = T.jit.trace(m, x)
        first = traced(dm.batch_of(x, 3))
        return (first, list(traced.state_dict()), traced.training, type(traced).__name__,
                traced.get_parameter("embed.weight" if name != "cnn" else "fc.weight")
                is m.get_parameter("embed.weight" if name != "cnn" else "fc.weight"))

    check(program, rtol=1e-5, atol=1e-5)


def test_save_load_round_trip(tmp_path):
    dm.pair("cnn")

    def program(T):
        m, x = dm.build(T, "cnn")
        path = str(tmp_path / f"{T.__name__}.pt")
        T.jit.save(T.jit.trace(m, x), path, _extra_files={"meta": "digits"})
        extra = {"meta": ""}
        loaded = T.jit.load(path, _extra_files=extra)
        return (loaded(dm.batch_of(x, 3)), list(loaded.state_dict()), loaded.training,
                extra["meta"], type(loaded.eval()).__name__ == type(loaded).__name__)

    check(program, rtol=1e-5, atol=1e-5)


class _Scaled:
    """A module class written once for both libraries, with TorchScript annotations."""

    @staticmethod
    def make(T):
        class Scaled(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.factor = 2.0
                self.lin = T.nn.Linear(3, 2)
                with T.no_grad():
                    self.lin.weight.copy_(T.arange(6.0).reshape(2, 3) / 10)
                    self.lin.bias.fill_(0.1)

            @T.jit.ignore
            def helper(self, x):
                return x + 1

            @T.jit.unused
            def unused_path(self, x):
                return x

            @T.jit.export
            def extra(self, x):
                return self.lin(x) * 3

            def forward(self, x):
                return self.lin(x) * self.factor + self.helper(x).sum(1, keepdim=True)

        return Scaled()


def test_script_module_and_function():
    def double_plus(x, n: int):
        return x * 2 + n

    def program(T):
        scripted = T.jit.script(_Scaled.make(T))
        x = T.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        fn = T.jit.script(double_plus)
        return (scripted(x), scripted.extra(x), list(scripted.state_dict()), fn(x, 3),
                T.jit.is_scripting(), T.jit.is_tracing())

    check(program)


@pytest.mark.parametrize("case", ["freeze_training", "freeze_plain", "trace_no_inputs",
                                  "trace_function_no_inputs"])
def test_errors_like_torch(case):
    def program(T):
        m = _Scaled.make(T)
        if case == "freeze_training":
            return T.jit.freeze(T.jit.script(m))
        if case == "freeze_plain":
            return T.jit.freeze(m.eval())
        if case == "trace_function_no_inputs":
            return T.jit.trace(lambda x: x)
        return T.jit.trace(m)

    e, a = check(program, raises=TypeError if case == "trace_function_no_inputs" else RuntimeError)
    assert str(a) == str(e)


def test_annotations_like_torch():
    def program(T):
        j = T.jit
        fut = j.fork(lambda a, b: a * b, T.ones(2), 3)
        frozen = j.freeze(j.script(_Scaled.make(T)).eval())
        # TorchScript-era scripts spell types with typing's aliases.
        kinds = (typing.List[int], typing.Dict[str, T.Tensor],  # noqa: UP006
                 typing.Tuple[int, str], typing.Optional[int])  # noqa: UP006, UP045
        return (j.isinstance([1, 2], kinds[0]), j.isinstance([1, "a"], kinds[0]),
                j.isinstance({"a": T.ones(1)}, kinds[1]), j.isinstance((1, "a"), kinds[2]),
                j.isinstance(None, kinds[3]), j.isinstance([3], list[int]), j.annotate(int, 4),
                j.Final is typing.Final,
                j.Attribute(5, int), j.wait(fut), frozen(T.ones(1, 3)),
                j.optimize_for_inference(j.script(_Scaled.make(T)).eval())(T.ones(1, 3)))

    check(program)
