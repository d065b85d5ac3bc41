"""torch.optim against PyTorch: parameters and state after several steps from identical
starts, state_dict layout and round trips, groups, hooks, closures, errors and LBFGS.

Every program builds the same small least-squares problem from NumPy data (a 3x2 weight
and a bias) and returns the parameters and ``optimizer.state_dict()`` (live state
tensors, per-group options, ``initial_lr`` and the like), compared by ``check``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check, counting_compiles

RNG = np.random.default_rng(7)
W0 = RNG.standard_normal((3, 2)) * 0.5
B0 = RNG.standard_normal((2,)) * 0.5
X = RNG.standard_normal((4, 3))
Y = RNG.standard_normal((4, 2))
TOL = dict(rtol=2e-5, atol=1e-6)


def params(tm, dtype="float32"):
    dt = getattr(tm, dtype)
    return (tm.tensor(W0, dtype=dt, requires_grad=True),
            tm.tensor(B0, dtype=dt, requires_grad=True))


def loss_of(tm, w, b):
    x, y = tm.tensor(X, dtype=w.dtype), tm.tensor(Y, dtype=w.dtype)
    r = x @ w + b - y
    return (r * r).mean()


def train(tm, opt, w, b, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss_of(tm, w, b).backward()
        opt.step()


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True, decoupled_weight_decay=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.2)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.9, 0.5))),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, alpha=0.5, weight_decay=0.1)),
]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_steps_and_state_dict(name, kw):
    def program(tm):
        w, b = params(tm)
        opt = getattr(tm.optim, name)([w, b], **kw)
        train(tm, opt, w, b, 6)
        return w, b, opt.state_dict()

    check(program, **TOL)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop",
                                  "Adagrad", "Adadelta", "Rprop", "ASGD"])
def test_defaults_and_repr(name):
    def program(tm):
        opt = getattr(tm.optim, name)(list(params(tm)))
        return opt.defaults, opt.param_groups[0]["lr"], repr(opt)

    check(program)


def test_float64_params_and_default_dtype():
    def program(tm):
        tm.set_default_dtype(tm.float64)
        w, b = params(tm, "float64")
        opt = tm.optim.Adam([w, b], lr=0.1, amsgrad=True)
        train(tm, opt, w, b, 4)
        return w, b, opt.state_dict()

    check(program, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad"])
def test_complex_parameters(name):
    def program(tm):
        z = tm.tensor(W0[:, 0] + 1j * W0[:, 1], dtype=tm.complex64, requires_grad=True)
        opt = getattr(tm.optim, name)([z], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
        for _ in range(3):
            z.grad = z.detach().clone()  # the gradient of |z|^2 / 2, in torch's convention
            opt.step()
        return z, opt.state_dict()["state"]

    check(program, **TOL)


def test_param_groups_options_and_mutation():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
        train(tm, opt, w, b, 2)
        opt.param_groups[0]["lr"] = 0.01
        opt.param_groups[1]["momentum"] = 0.1
        train(tm, opt, w, b, 2)
        extra = tm.zeros(2, requires_grad=True)
        opt.add_param_group({"params": [extra], "lr": 1.0})
        extra.grad = tm.ones(2)
        opt.step()
        return w, b, extra, opt.state_dict()

    check(program, **TOL)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("Adam", dict(lr=0.05, amsgrad=True)),
                                     ("NAdam", dict(lr=0.05)), ("ASGD", dict(lr=0.05, t0=2)),
                                     ("Rprop", dict(lr=0.01))])
def test_load_state_dict_round_trip(name, kw):
    def program(tm):
        w, b = params(tm)
        opt = getattr(tm.optim, name)([w, b], **kw)
        train(tm, opt, w, b, 3)
        sd = opt.state_dict()
        w2, b2 = w.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
        opt2 = getattr(tm.optim, name)([w2, b2], lr=123.0)
        opt2.load_state_dict(sd)
        shared = [opt2.state[w2][k] is v for k, v in sd["state"][0].items()]
        train(tm, opt, w, b, 3)
        train(tm, opt2, w2, b2, 3)
        return w2, b2, shared, opt2.param_groups[0]["lr"], opt2.state_dict()

    check(program, **TOL)


def test_load_state_dict_casts_to_param_dtype():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.Adam([w, b], lr=0.05)
        train(tm, opt, w, b, 2)
        w64 = w.detach().double().requires_grad_()
        b64 = b.detach().double().requires_grad_()
        opt64 = tm.optim.Adam([w64, b64])
        sd = opt.state_dict()
        opt64.load_state_dict(sd)
        st = opt64.state[w64]
        return (st["exp_avg"].dtype, st["step"].dtype, st["step"] is sd["state"][0]["step"],
                st["exp_avg"] is sd["state"][0]["exp_avg"])

    check(program)


def test_load_state_dict_errors():
    def groups(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([w, b])
        opt2 = tm.optim.SGD([{"params": [w]}, {"params": [b]}])
        return opt, opt2

    check(lambda tm: groups(tm)[0].load_state_dict(groups(tm)[1].state_dict()), raises=ValueError)
    check(lambda tm: tm.optim.SGD([params(tm)[0]]).load_state_dict(
        groups(tm)[0].state_dict()), raises=ValueError)


def test_state_is_live_and_inplace():
    def program(tm):
        w, b = params(tm)
        view = w[0]
        opt = tm.optim.Adam([w, b], lr=0.1)
        v0 = w._version
        train(tm, opt, w, b, 1)
        sd = opt.state_dict()
        exp_avg = sd["state"][0]["exp_avg"].clone()
        train(tm, opt, w, b, 1)
        changed = not bool((sd["state"][0]["exp_avg"] == exp_avg).all())
        return view, w._version > v0, changed, opt.state[w]["step"]

    check(program, **TOL)


def test_zero_grad():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([w, b], lr=0.1)
        loss_of(tm, w, b).backward()
        opt.zero_grad(set_to_none=False)
        zeros = (w.grad, b.grad)
        loss_of(tm, w, b).backward()
        opt.zero_grad()
        return zeros, w.grad is None, b.grad is None

    check(program)


def test_step_skips_params_without_grad():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.Adam([w, b], lr=0.1)
        w.grad = tm.ones(3, 2)
        opt.step()
        return w, b, sorted(opt.state_dict()["state"])

    check(program, **TOL)


def test_closure_runs_with_grad_and_returns_loss():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([w, b], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = loss_of(tm, w, b)
            loss.backward()
            return loss

        with tm.no_grad():
            losses = [opt.step(closure) for _ in range(3)]
        return w, b, [float(x.detach()) for x in losses]

    check(program, **TOL)


def test_step_hooks():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([w, b], lr=0.1)
        calls = []
        h1 = opt.register_step_pre_hook(
            lambda o, a, k: calls.append(("pre", o is opt, a[0] is opt, len(a), k)))
        opt.register_step_post_hook(lambda o, a, k: calls.append(("post", len(a), k)))
        opt.step()
        h1.remove()
        opt.step()
        return calls

    check(program)


HYPER_ERRORS = [
    ("SGD", dict(lr=-1)), ("SGD", dict(momentum=-0.1)), ("SGD", dict(weight_decay=-1)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-1)),
    ("AdamW", dict(betas=(0.9, 1))), ("Adamax", dict(eps=-1)),
    ("NAdam", dict(momentum_decay=-1)), ("RAdam", dict(betas=(-0.1, 0.9))),
    ("RMSprop", dict(alpha=-1)), ("RMSprop", dict(momentum=-1)),
    ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adadelta", dict(rho=1.5)), ("Rprop", dict(etas=(1.5, 2.0))), ("ASGD", dict(weight_decay=-1)),
    ("LBFGS", dict(lr=-1)),
]


@pytest.mark.parametrize("name,kw", HYPER_ERRORS, ids=[f"{n}-{i}" for i, (n, _) in
                                                        enumerate(HYPER_ERRORS)])
def test_hyperparameter_errors(name, kw, tt):
    with pytest.raises(ValueError) as info:
        getattr(tt.optim, name)([tt.zeros(2, requires_grad=True)], **kw)
    if kw.get("lr") == -1:
        assert str(info.value) == "Invalid learning rate: -1"


def test_param_list_errors():
    check(lambda tm: tm.optim.SGD([]), raises=ValueError)
    check(lambda tm: tm.optim.SGD(tm.zeros(2, requires_grad=True)), raises=TypeError)
    check(lambda tm: tm.optim.SGD([{"params": {tm.zeros(2, requires_grad=True)}}]),
          raises=TypeError)
    check(lambda tm: repr(tm.optim.SGD({tm.zeros(2, requires_grad=True)})))  # sets: top level
    check(lambda tm: tm.optim.SGD([tm.zeros(2, requires_grad=True) * 2]), raises=ValueError)
    check(lambda tm: tm.optim.SGD([1.0]), raises=TypeError)
    check(lambda tm: tm.optim.SGD([("w", tm.zeros(2, requires_grad=True)),
                                   tm.zeros(2, requires_grad=True)]), raises=ValueError)

    def duplicate(tm):
        w = tm.zeros(2, requires_grad=True)
        opt = tm.optim.SGD([w])
        opt.add_param_group({"params": [w]})

    check(duplicate, raises=ValueError)

    def duplicate_in_group(tm):
        w = tm.zeros(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tm.optim.SGD([w, w])
        return [str(c.message)[:50] for c in caught]

    check(duplicate_in_group)


def test_named_parameters():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([("weight", w), ("bias", b)], lr=0.1, momentum=0.9)
        train(tm, opt, w, b, 2)
        return opt.state_dict()

    check(program, **TOL)


def test_custom_optimizer_subclass():
    def program(tm):
        class SignSGD(tm.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            def step(self, closure=None):
                with tm.no_grad():
                    for group in self.param_groups:
                        for p in group["params"]:
                            p.sub_(p.grad * group["lr"])
                            self.state[p]["n"] = self.state[p].get("n", 0) + 1

        w, b = params(tm)
        opt = SignSGD([w, b])
        calls = []
        opt.register_step_post_hook(lambda *a: calls.append(1))
        train(tm, opt, w, b, 2)
        return w, b, opt.state_dict(), calls

    check(program, **TOL)


@pytest.mark.parametrize("kw", [dict(max_iter=6), dict(line_search_fn="strong_wolfe"),
                                dict(lr=0.5, history_size=2, max_iter=4),
                                dict(lr=0.5, history_size=12, max_iter=25)])
def test_lbfgs(kw):
    # float64: near convergence float32 rounding decides when L-BFGS stops (in torch too)
    def program(tm):
        w, b = params(tm, "float64")
        opt = tm.optim.LBFGS([w, b], **kw)

        def closure():
            opt.zero_grad()
            loss = loss_of(tm, w, b) + (w**4).sum()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(2)]
        st = opt.state[w]
        return (w, b, losses, st["func_evals"], st["n_iter"], sorted(st), st["d"],
                st["prev_flat_grad"], len(st["old_dirs"]), st["prev_loss"])

    check(program, rtol=1e-7, atol=1e-9)


def test_lbfgs_resumes_from_state_dict():
    """A fresh LBFGS loading another's state_dict continues with the same history."""

    def program(tm):
        w, b = params(tm, "float64")
        opt = tm.optim.LBFGS([w, b], history_size=5, max_iter=7)

        def closure():
            opt.zero_grad()
            loss = loss_of(tm, w, b) + (w**4).sum()
            loss.backward()
            return loss

        opt.step(closure)
        resumed = tm.optim.LBFGS([w, b], history_size=5, max_iter=7)
        resumed.load_state_dict(opt.state_dict())
        opt = resumed
        resumed.step(closure)
        st = resumed.state[w]
        return w, b, st["func_evals"], len(st["old_dirs"]), st["d"], [a is None for a in st["al"]]

    check(program, rtol=1e-7, atol=1e-9)


def test_module_parameters():
    def program(tm):
        class Affine(tm.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = tm.nn.Parameter(tm.tensor(W0, dtype=tm.float32))
                self.b = tm.nn.Parameter(tm.tensor(B0, dtype=tm.float32))

        m = Affine()
        opt = tm.optim.AdamW(m.parameters(), lr=0.05)
        train(tm, opt, m.w, m.b, 3)
        return m.w.detach(), m.b.detach(), type(m.w).__name__, opt.state_dict()

    check(program, **TOL)


def test_hyperparameter_changes_do_not_recompile():
    import jtorch
    from jtorch.optim import optimizer as O

    w, b = params(jtorch)
    opt = jtorch.optim.SGD([w, b], lr=0.1, momentum=0.9)
    sched = jtorch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
    train(jtorch, opt, w, b, 2)  # the first step (no momentum buffer yet), then the rest
    kernel = O._KERNELS[(jtorch.functional.optim.sgd, (("maximize", False), ("nesterov", False),
                                                      ("use_momentum", True)), False)]
    compiled = kernel._cache_size()
    for _ in range(6):  # lr and momentum change at every step
        train(jtorch, opt, w, b, 1)
        sched.step()
    assert kernel._cache_size() == compiled


def test_load_state_dict_with_python_step():
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.Adam([w, b], lr=0.05)
        train(tm, opt, w, b, 2)
        sd = opt.state_dict()
        sd["state"] = {k: dict(v, step=2) for k, v in sd["state"].items()}
        opt.load_state_dict(sd)
        train(tm, opt, w, b, 2)
        return w, b, opt.state_dict()

    check(program, **TOL)


@pytest.mark.parametrize("name, kw", [
    ("Adam", {"amsgrad": True}), ("Adagrad", {"initial_accumulator_value": 0.5}),
    ("Rprop", {}), ("ASGD", {}), ("Adafactor", {}), ("NAdam", {}),
])
def test_first_step_compiles_only_the_update(name, kw):
    """A first step's state (zeros, fills, step counters) is built on the host on the CPU
    backend: XLA compiles the group update and no fill program per parameter shape."""
    import jtorch

    shapes = [(3, 7, 11), (13,), (5, 17)]  # shapes no other test uses
    params = [jtorch.zeros(s, requires_grad=True) for s in shapes]
    for p in params:
        p.grad = jtorch.ones(p.shape)
    opt = getattr(jtorch.optim, name)(params, lr=0.1, **kw)
    with counting_compiles() as compiles:
        opt.step()
    assert len(compiles) <= 1, compiles
    state = opt.state[params[0]]
    assert all(not v._value.committed for v in state.values() if isinstance(v, jtorch.Tensor))
