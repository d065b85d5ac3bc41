"""torch.optim.lr_scheduler against PyTorch: each scheduler's learning-rate (and momentum)
sequence over 20 steps, its state_dict, the optimizer's param_groups (``initial_lr`` and
the like) and the step-order warning.

The optimizer's parameters never get gradients, so ``optimizer.step()`` is a no-op and
these tests compile nothing.
"""

from __future__ import annotations

import warnings

import pytest
from conftest import check, raising

STEPS = 20


def make_opt(tm, name="SGD", groups=1, **kw):
    ps = [{"params": [tm.zeros(2, requires_grad=True)], "lr": 0.1 * (i + 1)}
          for i in range(groups)]
    return getattr(tm.optim, name)(ps, **({"lr": 0.1, "momentum": 0.9} | kw)
                                   if name == "SGD" else kw)


def run(tm, opt, sched, steps=STEPS, metrics=None):
    """The learning rates (and momenta) after construction and after every step."""
    out = [sched.get_last_lr()]
    for i in range(steps):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        g = opt.param_groups
        out.append((sched.get_last_lr(), [x.get("momentum", x.get("betas")) for x in g]))
    return out


SCHEDULERS = {
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 0.9**e),
    "LambdaLR-list": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5]),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.95),
    "StepLR": lambda L, o: L.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, milestones=[2, 5, 5, 11], gamma=0.3),
    "ConstantLR": lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4),
    "LinearLR": lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=7),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, gamma=0.8),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, total_iters=8, power=2.0),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, T_max=6, eta_min=0.01),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001),
    "CyclicLR": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "CyclicLR-tri2": lambda L, o: L.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=2,
                                             step_size_down=3, mode="triangular2"),
    "CyclicLR-exp": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=4, mode="exp_range",
                                            gamma=0.9, base_momentum=0.7, max_momentum=0.95),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=STEPS + 1),
    "OneCycleLR-3": lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 2.0], epochs=3, steps_per_epoch=7,
                                              anneal_strategy="linear", three_phase=True),
    "SequentialLR": lambda L, o: L.SequentialLR(o, [L.ConstantLR(o, factor=0.1, total_iters=2),
                                                    L.ExponentialLR(o, gamma=0.9)],
                                                milestones=[5]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ConstantLR(o, factor=0.1,
                                                                      total_iters=3),
                                                         L.ExponentialLR(o, gamma=0.9)]),
}


# Schedulers given one value per parameter group: they need the two-group optimizer.
_PER_GROUP = {"LambdaLR-list", "CyclicLR-tri2", "OneCycleLR-3"}


@pytest.mark.parametrize("name,groups", [(n, g) for g in (1, 2) for n in SCHEDULERS
                                         if g == 2 or n not in _PER_GROUP])
def test_lr_sequence(name, groups):
    def program(tm):
        opt = make_opt(tm, groups=groups)
        sched = SCHEDULERS[name](tm.optim.lr_scheduler, opt)
        seq = run(tm, opt, sched)
        groups_ = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        # ChainedScheduler has no last_epoch in PyTorch 2.13.
        return seq, groups_, getattr(sched, "last_epoch", "no last_epoch")

    check(program)


@pytest.mark.parametrize("name", [n for n in SCHEDULERS if "Lambda" not in n
                                  and "Multiplicative" not in n])
def test_state_dict(name):
    def program(tm):
        opt = make_opt(tm, groups=2 if name in _PER_GROUP else 1)
        sched = SCHEDULERS[name](tm.optim.lr_scheduler, opt)
        run(tm, opt, sched, steps=5)
        sd = sched.state_dict()
        sd.pop("_schedulers", None)
        return sd

    check(program)


def test_state_dict_resume():
    def program(tm):
        L = tm.optim.lr_scheduler
        opt = make_opt(tm)
        sched = L.CosineAnnealingLR(opt, T_max=5)
        run(tm, opt, sched, steps=3)
        sd, osd = sched.state_dict(), opt.state_dict()
        opt2 = make_opt(tm, lr=7.0)
        opt2.load_state_dict(osd)
        sched2 = L.CosineAnnealingLR(opt2, T_max=5, last_epoch=2)
        sched2.load_state_dict(sd)
        return run(tm, opt2, sched2, steps=6), opt2.param_groups[0]["initial_lr"]

    check(program)


def test_lambda_state_dict_keeps_callable_objects():
    def program(tm):
        class Scale:
            def __init__(self):
                self.k = 0.5

            def __call__(self, epoch):
                return self.k**epoch

        opt = make_opt(tm, groups=2)
        sched = tm.optim.lr_scheduler.LambdaLR(opt, [Scale(), lambda e: 1.0])
        sd = sched.state_dict()
        sd["lr_lambdas"][0]["k"] = 0.25
        sched.load_state_dict(sd)
        return sd["lr_lambdas"], sched.lr_lambdas[0].k, run(tm, opt, sched, steps=3)

    check(program)


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9,
               0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
    configs = [dict(patience=2), dict(mode="max", patience=1, factor=0.5, cooldown=2),
               dict(threshold_mode="abs", threshold=0.05, patience=0, min_lr=[0.05, 0.001]),
               dict(patience=0, factor=0.5, min_lr=0.09, eps=0.001)]

    def program(tm):
        out = []
        for kw in configs:
            opt = make_opt(tm, groups=2)
            sched = tm.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
            out.append((run(tm, opt, sched, metrics=metrics), sched.best,
                        sched.num_bad_epochs, sched.cooldown_counter))
        return out

    check(program)


def test_cyclic_with_adam_betas():
    def program(tm):
        opt = make_opt(tm, "Adam", lr=0.1)
        sched = tm.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=10)
        return run(tm, opt, sched, steps=9)

    check(program)


def test_warm_restarts_fractional_epochs():
    def program(tm):
        opt = make_opt(tm)
        sched = tm.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in range(6):
                for i in range(4):
                    opt.step()
                    sched.step(epoch + i / 4)
                    out.append((sched.get_last_lr(), sched.T_cur, sched.T_i))
        return out

    check(program)


def test_closed_form_with_epoch():
    def program(tm):
        L = tm.optim.lr_scheduler
        out = []
        for make in (lambda o: L.StepLR(o, 2), lambda o: L.MultiStepLR(o, [1, 4]),
                     lambda o: L.ExponentialLR(o, 0.5), lambda o: L.CosineAnnealingLR(o, 4),
                     lambda o: L.PolynomialLR(o, 4), lambda o: L.LinearLR(o),
                     lambda o: L.ConstantLR(o)):
            opt = make_opt(tm)
            sched = make(opt)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for e in (3, 1, 6):
                    opt.step()
                    sched.step(e)
                    out.append(sched.get_last_lr())
        return out

    check(program)


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message)[:60] for w in caught if w.category is UserWarning]


def test_step_order_warning():
    def program(tm):
        def wrong_order():
            opt = make_opt(tm)
            sched = tm.optim.lr_scheduler.StepLR(opt, 2)
            sched.step()
            opt.step()

        def right_order():
            opt = make_opt(tm)
            sched = tm.optim.lr_scheduler.StepLR(opt, 2)
            opt.step()
            sched.step()

        def overridden():
            opt = make_opt(tm)
            sched = tm.optim.lr_scheduler.ExponentialLR(opt, 0.5)
            opt.step = lambda: None
            sched.step()

        def get_lr_outside_step():
            opt = make_opt(tm)
            tm.optim.lr_scheduler.ExponentialLR(opt, 0.5).get_lr()

        return [_caught(f) for f in (wrong_order, right_order, overridden,
                                     get_lr_outside_step)]

    expected, actual = check(program)
    assert actual[0][0].startswith("Detected call of `lr_scheduler.step()` before")


ERRORS = [
    raising(TypeError, lambda m, o, tm: m.StepLR(object(), 2)),
    raising(ValueError, lambda m, o, tm: m.ConstantLR(o, factor=2)),
    raising(ValueError, lambda m, o, tm: m.LinearLR(o, start_factor=0)),
    raising(KeyError, lambda m, o, tm: m.StepLR(o, 2, last_epoch=3)),
    raising(ValueError, lambda m, o, tm: m.LambdaLR(o, [lambda e: 1, lambda e: 1])),
    raising(TypeError, lambda m, o, tm: m.MultiplicativeLR(o, 0.5)),
    raising(ValueError, lambda m, o, tm: m.CosineAnnealingWarmRestarts(o, T_0=0)),
    raising(ValueError, lambda m, o, tm: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5)),
    raising(ValueError, lambda m, o, tm: m.CyclicLR(o, 0.1, 1.0, mode="bad")),
    raising(ValueError,
            lambda m, o, tm: m.CyclicLR(tm.optim.Adagrad(o.param_groups[0]["params"]), 0.1, 1.0)),
    raising(ValueError, lambda m, o, tm: m.OneCycleLR(o, 1.0)),
    raising(ValueError, lambda m, o, tm: m.OneCycleLR(o, 1.0, total_steps=10, pct_start=2.0)),
    raising(ValueError,
            lambda m, o, tm: m.OneCycleLR(o, 1.0, total_steps=10, anneal_strategy="exp")),
    raising(ValueError, lambda m, o, tm: m.ReduceLROnPlateau(o, factor=1.0)),
    raising(ValueError, lambda m, o, tm: m.ReduceLROnPlateau(o, mode="avg")),
    raising(ValueError, lambda m, o, tm: m.ReduceLROnPlateau(o, min_lr=[0.1, 0.2])),
    raising(ValueError,
            lambda m, o, tm: m.SequentialLR(o, [m.ExponentialLR(o, 0.5)], milestones=[2])),
    raising(ValueError, lambda m, o, tm: m.ChainedScheduler([])),
    raising(TypeError,
            lambda m, o, tm: m.StepLR(o, 2, verbose=True)),  # removed from PyTorch 2.13: TypeError
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    def program(tm):
        return repr(ERRORS[i](tm.optim.lr_scheduler, make_opt(tm), tm))

    check(program, raises=ERRORS[i].expected_error)


def test_one_cycle_too_many_steps():
    def program(tm):
        opt = make_opt(tm)
        sched = tm.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()

    check(program, raises=ValueError)
