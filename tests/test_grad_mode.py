"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode) and anomaly mode."""

from __future__ import annotations

from autograd_inputs import A3, A23, A33, B23, _x  # noqa: F401
from conftest import check

# ------------------------------------------------------------------ grad modes


def test_grad_mode_context_managers_nested():
    def prog(torch):
        x = _x(torch)
        states = [torch.is_grad_enabled()]
        with torch.no_grad():
            states.append(torch.is_grad_enabled())
            a = x * 2
            with torch.enable_grad():
                states.append(torch.is_grad_enabled())
                b = x * 2
                with torch.set_grad_enabled(False):
                    states.append(torch.is_grad_enabled())
                    c = x * 2
                states.append(torch.is_grad_enabled())
            states.append(torch.is_grad_enabled())
        states.append(torch.is_grad_enabled())
        return states, a.requires_grad, b.requires_grad, c.requires_grad

    check(prog)


def test_grad_mode_decorators():
    def prog(torch):
        x = _x(torch)

        @torch.no_grad()
        def f1(t):
            return t * 2, torch.is_grad_enabled()

        @torch.no_grad
        def f2(t):
            return t * 2

        @torch.enable_grad()
        def f3(t):
            return t * 2

        @torch.set_grad_enabled(False)
        def f4(t):
            return t * 2

        @torch.inference_mode()
        def f5(t):
            return t * 2

        after_defs = torch.is_grad_enabled()
        with torch.no_grad():
            in_no_grad = f3(x).requires_grad
        y1, enabled = f1(x)
        return (y1.requires_grad, enabled, f2(x).requires_grad, in_no_grad,
                f4(x).requires_grad, f5(x).requires_grad, after_defs, torch.is_grad_enabled(),
                f1.__name__)

    check(prog)


def test_grad_mode_decorator_on_generator():
    def prog(torch):
        x = _x(torch)

        @torch.no_grad()
        def gen():
            for i in range(2):
                got = yield (x * i).requires_grad, torch.is_grad_enabled()
                yield got

        @torch.enable_grad()
        def gen2():
            yield (x * 2).requires_grad

        out = []
        g = gen()
        out.append(next(g))
        out.append(torch.is_grad_enabled())
        out.append(g.send("sent"))
        out.append(list(g))
        with torch.no_grad():
            out.append(list(gen2()))
        return out

    check(prog)


def test_set_grad_enabled_as_function():
    def prog(torch):
        x = _x(torch)
        torch.set_grad_enabled(False)
        try:
            a = (x * 2).requires_grad, torch.is_grad_enabled()
        finally:
            torch.set_grad_enabled(True)
        return a, (x * 2).requires_grad, torch.is_grad_enabled()

    check(prog)


def test_set_grad_enabled_context_restores():
    def prog(torch):
        x = _x(torch)
        with torch.no_grad():
            with torch.set_grad_enabled(True):
                inner = (x * 2).requires_grad
            after = torch.is_grad_enabled()
        return inner, after, torch.is_grad_enabled()

    check(prog)


def test_inference_mode():
    def prog(torch):
        x = _x(torch)
        with torch.inference_mode():
            y = x * 2
            enabled = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
            with torch.inference_mode(False):
                z = x * 2
        return (y.requires_grad, y.is_inference(), x.is_inference(), enabled,
                torch.is_inference_mode_enabled(), z.requires_grad)

    check(prog)


def test_grad_mode_restored_after_exception():
    def prog(torch):
        try:
            with torch.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        return torch.is_grad_enabled()

    check(prog)


def test_autograd_namespace_grad_modes():
    def prog(torch):
        x = _x(torch)
        with torch.autograd.no_grad():
            a = (x * 2).requires_grad, torch.is_grad_enabled()
            with torch.autograd.enable_grad():
                b = (x * 2).requires_grad
        with torch.autograd.set_grad_enabled(False):
            c = torch.is_grad_enabled()
        with torch.autograd.inference_mode():
            d = torch.is_inference_mode_enabled()
        return a, b, c, d, torch.is_grad_enabled()

    check(prog)


# ------------------------------------------------------------------ anomaly mode, graph.Node


def test_detect_anomaly_nan():
    def prog(torch):
        import warnings

        x = torch.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.detect_anomaly():
                (x.sqrt() * 0).sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_set_detect_anomaly_without_nan_check():
    def prog(torch):
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            (x.sqrt() * 0).sum().backward()
        return x.grad

    check(prog)


def test_graph_node_isinstance():
    def prog(torch):
        x = _x(torch)
        y = (x * 2).sum()
        acc = (x * 2).grad_fn.next_functions[0][0]
        return (isinstance(y.grad_fn, torch.autograd.graph.Node),
                isinstance(acc, torch.autograd.graph.Node), acc.name())

    check(prog)
