"""nn.Module, Parameter, containers, Identity/Flatten/Unflatten: differential against torch."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import pytest
import torch
from conftest import check

import jtorch


def same(prog, **tol):
    """check(), insisting that torch ran the program without raising."""
    check(prog, **tol)


def _net(t, bias=True):
    """A two-level module built from matmul and Parameters (layers are written elsewhere)."""
    nn = t.nn

    class Lin(nn.Module):
        def __init__(self, n, m):
            super().__init__()
            self.weight = nn.Parameter(t.arange(n * m, dtype=t.float32).reshape(m, n) / 10)
            self.bias = nn.Parameter(t.ones(m)) if bias else None
            if not bias:
                self.register_parameter("bias", None)
            self.register_buffer("count", t.zeros((), dtype=t.int64))
            self.register_buffer("scratch", t.zeros(m), persistent=False)

        def forward(self, x):
            y = t.matmul(x, self.weight.t())
            return y if self.bias is None else y + self.bias

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = Lin(3, 4)
            self.act = nn.Identity()
            self.block = nn.Sequential(OrderedDict(flat=nn.Flatten(), fc2=Lin(4, 2)))
            self.scale = nn.Parameter(t.tensor(2.0))

        def forward(self, x):
            return self.block(self.act(self.fc1(x))) * self.scale

    return Net()


def test_names_order_and_state_dict():
    def prog(t):
        m = _net(t)
        sd = m.state_dict()
        return dict(
            params=[n for n, _ in m.named_parameters()],
            buffers=[n for n, _ in m.named_buffers()],
            mods=[n for n, _ in m.named_modules()],
            children=[n for n, _ in m.named_children()],
            prefixed=[n for n, _ in m.fc1.named_parameters(prefix="p", recurse=False)],
            keys=list(sd), meta=dict(sd._metadata), sd=dict(sd),
            kinds=[type(v).__name__ for v in sd.values()],
            keep=[type(v).__name__ for v in m.state_dict(keep_vars=True).values()],
            sub=list(m.block.state_dict(prefix="x.")),
        )

    same(prog)


def test_shared_members_and_duplicates():
    def prog(t):
        nn = t.nn
        shared = nn.Flatten()
        m = nn.Sequential(shared, nn.Identity(), shared)
        p = nn.Parameter(t.ones(1))
        m[1].a, m[1].b = p, p
        return ([n for n, _ in m.named_modules()],
                [n for n, _ in m.named_modules(remove_duplicate=False)],
                [n for n, _ in m.named_children()], [n for n, _ in m.named_parameters()],
                [n for n, _ in m.named_parameters(remove_duplicate=False)],
                list(m.state_dict()), len(list(m.modules())))

    same(prog)


def test_state_dict_hooks():
    def prog(t):
        m = _net(t)
        log = []
        m.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", prefix)))
        m.fc1.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: log.append(("post", prefix, len(sd))))
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(
            (k, v) for k, v in sd.items() if "bias" not in k))
        sd = m.state_dict()

        def pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
            log.append(("load_pre", prefix, sorted(sd)))

        m.fc1.register_load_state_dict_pre_hook(pre)
        m.register_load_state_dict_post_hook(
            lambda mod, keys: (log.append(("load_post", list(keys.missing_keys))),
                               keys.missing_keys.clear())[0])
        res = m.load_state_dict(sd)
        return list(sd), log, str(res)

    same(prog)


def test_state_dict_shares_storage_and_detaches(tt):
    m = _net(tt)
    sd = m.state_dict()
    w = sd["fc1.weight"]
    assert not w.requires_grad and w.data_ptr() == m.fc1.weight.data_ptr()
    with tt.no_grad():
        m.fc1.weight.add_(1)
    assert float(w[0, 0]) == 1.0
    assert isinstance(sd, OrderedDict)


def test_forward_backward_grads():
    def prog(t):
        m = _net(t)
        out = m(t.ones(5, 3))
        out.sum().backward()
        return out, [p.grad for p in m.parameters()]

    same(prog)


def test_load_state_dict_roundtrip_and_errors():
    def prog(t):
        a, b = _net(t), _net(t)
        with t.no_grad():
            for p in a.parameters():
                p.mul_(3)
        w_before = b.fc1.weight
        res = b.load_state_dict(a.state_dict())
        sd = a.state_dict()
        sd["extra.key"] = t.ones(1)
        sd["fc1.nope"] = t.ones(1)
        del sd["scale"]
        res2 = b.load_state_dict(sd, strict=False)
        try:
            b.load_state_dict(sd)
            msg = None
        except RuntimeError as e:
            msg = str(e)
        sd2 = a.state_dict()
        sd2["fc1.weight"] = t.ones(2, 2)
        try:
            b.load_state_dict(sd2)
            msg2 = None
        except RuntimeError as e:
            msg2 = str(e)
        return (str(res), res2.missing_keys, res2.unexpected_keys, msg, msg2,
                b.fc1.weight is w_before, b.fc1.weight)

    same(prog)


def test_load_state_dict_assign_and_type_error():
    def prog(t):
        m = _net(t)
        sd = {k: v.clone() * 2 if v.is_floating_point() else v for k, v in
              m.state_dict().items()}
        old = m.fc1.weight
        m.load_state_dict(sd, assign=True)
        out = (m.fc1.weight is old, type(m.fc1.weight).__name__, m.fc1.weight.requires_grad,
               m.fc1.weight)
        try:
            m.load_state_dict([1, 2])
        except TypeError:
            out += ("TypeError",)
        return out

    same(prog)


def test_repr_nested():
    def prog(t):
        nn = t.nn
        m = _net(t)
        ml = nn.ModuleList([nn.Identity(), nn.Identity(), nn.Flatten(0), nn.Identity()])
        m.block.add_module("list", ml)
        m.block.add_module("none", None)
        return repr(m), repr(nn.Sequential()), repr(nn.ModuleList()), str(m.scale)

    same(prog)


def test_setattr_semantics():
    def prog(t):
        nn = t.nn
        m = nn.Module()
        m.w = nn.Parameter(t.ones(2))
        out = []
        for bad in (lambda: setattr(m, "w", t.ones(2)),
                    lambda: m.register_buffer("w", t.ones(1)),
                    lambda: m.register_buffer("a.b", t.ones(1)),
                    lambda: m.register_buffer("", t.ones(1)),
                    lambda: m.register_buffer("c", 3),
                    lambda: m.register_parameter("p", t.ones(1)),
                    lambda: m.register_parameter("q", nn.Parameter(t.ones(1)) * 2),
                    lambda: m.add_module("x", 3),
                    lambda: m.add_module("a.b", nn.Identity()),
                    lambda: m.get_submodule("nope"),
                    lambda: m.get_parameter("nope"),
                    lambda: m.get_buffer("w"),
                    lambda: m.train(1),
                    lambda: nn.Module(3),
                    lambda: m.nothing):
            try:
                bad()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        m.w = None
        m.sub = nn.Identity()
        m.register_buffer("buf", t.zeros(2))
        m.buf = t.ones(3)
        m.plain = t.ones(1)
        m.buf2 = nn.Buffer(t.ones(2), persistent=False)
        try:
            m.sub = 3
        except TypeError as e:
            out.append(str(e))
        m.sub = None
        out.append(list(m.state_dict()))
        out.append([n for n, _ in m.named_buffers()])
        del m.buf
        out.append(sorted(k for k in dir(m) if k in ("w", "sub", "buf", "buf2", "plain")))
        out.append([m.w, m.sub, "buf" in m._buffers, m.plain])
        return out

    same(prog)


def test_train_eval_apply_requires_grad_zero_grad():
    def prog(t):
        m = _net(t)
        m.eval()
        modes = [x.training for x in m.modules()]
        seen = []
        m.apply(lambda x: seen.append(type(x).__name__))
        m(t.ones(1, 3)).sum().backward()
        m.zero_grad(set_to_none=False)
        zeros = [p.grad for p in m.parameters()]
        m.zero_grad()
        none = [p.grad for p in m.parameters()]
        m.requires_grad_(False)
        return modes, seen, zeros, none, [p.requires_grad for p in m.parameters()], \
            m.train().training

    same(prog)


def test_to_conversion_keeps_parameters():
    def prog(t):
        m = _net(t)
        m(t.ones(1, 3)).sum().backward()
        w = m.fc1.weight
        m.double()
        out = [w is m.fc1.weight, type(w).__name__, w.dtype, w.grad.dtype, m.fc1.count.dtype]
        m.to(t.float16)
        out += [w.dtype, m.fc1.count.dtype]
        m.to(t.ones(1, dtype=t.float32))
        out += [w.dtype, w.requires_grad]
        m.float().half().bfloat16()
        out.append(w.dtype)
        m.type(t.float64)
        out.append(m.fc1.count.dtype)
        try:
            m.to(t.int32)
        except TypeError as e:
            out.append(str(e))
        m.cpu()
        return out

    same(prog)


def test_forward_hooks():
    def prog(t):
        nn = t.nn
        m = _net(t)
        log = []
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,), prepend=True)
        m.register_forward_pre_hook(
            lambda mod, args, kw: log.append(("prekw", sorted(kw))), with_kwargs=True)
        h = m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(lambda mod, args, kw, out: log.append(("kw", out.shape)),
                                with_kwargs=True)
        m.fc1.register_forward_hook(lambda mod, args, out: log.append(("fc1", out.shape)))
        y1 = m(t.ones(2, 3))
        h.remove()
        y2 = m(t.ones(2, 3))

        class Bad(nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        b = Bad()
        b.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
        b.register_forward_hook(lambda mod, args, out: log.append("never"))
        try:
            b(t.ones(1))
        except ValueError:
            log.append("raised")
        return y1, y2, log

    same(prog)


def test_full_backward_hooks():
    def prog(t):
        nn = t.nn
        m = _net(t)
        log = []

        def pre(mod, gout):
            log.append(("pre", [g.shape for g in gout]))
            return (gout[0] * 2,)

        def post(mod, gin, gout):
            log.append(("post", [None if g is None else g for g in gin], gout))
            return (gin[0] * 3,)

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(post)
        x = t.ones(2, 3, requires_grad=True)
        m(x).sum().backward()

        class Two(nn.Module):
            def forward(self, a, n, b):
                return a * b, a + n

        two = Two()
        two.register_full_backward_hook(lambda mod, gin, gout: log.append(("two", gin, gout)))
        a = t.ones(2, requires_grad=True)
        b = t.full((2,), 3.0, requires_grad=True)
        p, q = two(a, 1, b)
        (p + q).sum().backward()
        try:
            m.register_backward_hook(lambda *a: None)
        except RuntimeError as e:
            log.append(str(e))
        return x.grad, a.grad, log, [p.grad for p in m.parameters()]

    same(prog)


def test_backward_hook_no_input_grad():
    def prog(t):
        nn = t.nn
        m = _net(t)
        log = []
        m.register_full_backward_hook(lambda mod, gin, gout: log.append((gin, gout)))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(t.ones(1, 3)).sum().backward()
        del nn
        return log

    same(prog)


def test_containers():
    def prog(t):
        nn = t.nn
        ids = [nn.Identity() for _ in range(4)]
        s = nn.Sequential(*ids[:3])
        out = [len(s), s[-1] is ids[2], type(s[1:]).__name__, list(s[1:]._modules),
               list(s[::2]._modules)]
        s.append(ids[3])
        s.insert(0, nn.Flatten())
        s.extend([nn.Identity()])
        popped = s.pop(1)
        out += [popped is ids[0], list(s._modules), len(s + s), repr(s * 2)]
        del s[0]
        out.append(repr(s))
        ml = nn.ModuleList(ids[:2])
        ml += [nn.Flatten()]
        ml.append(nn.Identity()).extend([nn.Identity()])
        ml.insert(1, nn.Flatten(0))
        out += [len(ml), ml[-1] is ml[4], repr(ml[1:3]), repr(ml), type(ml + ml).__name__]
        del ml[0]
        out.append(list(ml._modules))
        md = nn.ModuleDict({"b": nn.Identity(), "a": nn.Flatten()})
        md["c"] = nn.Identity()
        md.update([("d", nn.Identity())])
        out += [list(md), "a" in md, list(md.keys()), repr(md.pop("b")), len(md), repr(md)]
        for bad in (lambda: s[10], lambda: ml[-10], lambda: md["zz"], lambda: s + 3,
                    lambda: md.update([("a",)]), lambda: s * 0):
            try:
                bad()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
        return out

    same(prog)


def test_parameter_containers():
    def prog(t):
        nn = t.nn
        pl = nn.ParameterList([t.ones(2), nn.Parameter(t.zeros(3)), "x"])
        pl.append(t.ones(1, 2))
        pd = nn.ParameterDict({"b": t.ones(2), "a": nn.Parameter(t.zeros(1))})
        pd["c"] = t.ones(3, dtype=t.float64)
        pd2 = pd | nn.ParameterDict(OrderedDict(z=t.ones(1)))
        m = nn.Module()
        m.pl, m.pd = pl, pd
        return (repr(pl), repr(pd), list(pd), list(pd2), len(pl), list(m.state_dict()),
                [type(p).__name__ for p in pl], pd.get("zz", 5), repr(pl[1:]),
                pd.pop("a"), list(pd))

    same(prog)


def test_flatten_unflatten_identity():
    def prog(t):
        nn = t.nn
        x = t.arange(24.0).reshape(2, 3, 4)
        out = [nn.Flatten()(x), nn.Flatten(0, 1)(x), nn.Unflatten(2, (2, 2))(x),
               nn.Unflatten(-1, [2, -1])(x), nn.Identity(3, k=4)(x),
               repr(nn.Flatten(0, 1)), repr(nn.Unflatten(1, (3, 1)))]
        for bad in (lambda: nn.Unflatten(1, 3), lambda: nn.Unflatten(1, (2.0, 1))):
            try:
                bad()
            except TypeError as e:
                out.append(str(e))
        return out

    same(prog)


def test_parameter_basics():
    def prog(t):
        nn = t.nn
        base = t.ones(2, 2)
        p = nn.Parameter(base)
        q = nn.Parameter(t.ones(2), requires_grad=False)
        e = nn.Parameter()
        out = [repr(p), str(q), p.requires_grad, q.requires_grad, p.is_leaf,
               type(p * 2).__name__, isinstance(p, t.Tensor), e.shape,
               p.data_ptr() == base.data_ptr(), type(p.detach()).__name__]
        try:
            nn.Parameter(t.ones(2, dtype=t.int64))
        except RuntimeError:
            out.append("int-error")
        out.append(nn.Parameter(t.ones(2, dtype=t.int64), requires_grad=False).dtype)
        b = nn.Buffer(t.ones(2), persistent=False)
        out += [isinstance(b, nn.Buffer), type(b).__name__, b.persistent,
                isinstance(t.ones(1), nn.Buffer)]
        return out

    same(prog)


def test_deepcopy_and_pickle(tt):
    m = tt.nn.Sequential(_Lin(tt), tt.nn.Flatten())
    m.register_buffer("count", tt.zeros((), dtype=tt.int64))
    m(tt.ones(1, 3)).sum().backward()
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(clone[0].weight).__name__ == "Parameter"
        assert clone[0].weight is not m[0].weight
        assert clone[0].weight.requires_grad
        assert clone[0].weight.data_ptr() != m[0].weight.data_ptr()
        assert list(clone.state_dict()) == list(m.state_dict())
        for a, b in zip(clone.state_dict().values(), m.state_dict().values()):
            assert (a == b).all()
        with tt.no_grad():
            clone[0].weight.add_(1)
        assert float(m[0].weight.detach()[0, 0]) == 1.0
        assert clone(tt.ones(1, 3)).shape == (1, 2)
        assert clone[0].weight.grad is None  # Parameter.__deepcopy__ drops it
    p = tt.nn.Parameter(tt.ones(2), requires_grad=False)
    p2 = pickle.loads(pickle.dumps(p))
    assert type(p2).__name__ == "Parameter" and not p2.requires_grad


class _LinBase:
    def __init__(self):
        super().__init__()
        self.weight = self._nn.Parameter(self._t.ones(2, 3))

    def forward(self, x):
        return self._t.matmul(x, self.weight.t())


class _LinTorch(_LinBase, torch.nn.Module):
    _t, _nn = torch, torch.nn


class _LinJ(_LinBase, jtorch.nn.Module):
    _t, _nn = jtorch, jtorch.nn


def _Lin(t):
    return _LinTorch() if t is torch else _LinJ()


def test_uninitialized_parameter(tt):
    nn = tt.nn
    p = nn.UninitializedParameter()
    assert nn.parameter.is_lazy(p)
    assert isinstance(p, nn.Parameter)
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.requires_grad
    assert not nn.parameter.is_lazy(p)


def test_global_forward_hook(tt):
    mod = tt.nn.modules.module
    log = []
    h = mod.register_module_forward_hook(lambda m, a, o: log.append(type(m).__name__))
    try:
        tt.nn.Sequential(tt.nn.Identity())(tt.ones(1))
    finally:
        h.remove()
    tt.nn.Identity()(tt.ones(1))
    assert log == ["Identity", "Sequential"]


@pytest.mark.parametrize("name", ["get_submodule", "get_parameter", "get_buffer"])
def test_get_by_path(name):
    def prog(t):
        m = _net(t)
        target = {"get_submodule": "block.fc2", "get_parameter": "block.fc2.weight",
                  "get_buffer": "fc1.count"}[name]
        got = getattr(m, name)(target)
        return repr(got) if name == "get_submodule" else got

    same(prog)


def test_jtorch_module_is_not_torch():
    assert jtorch.nn.Module is not torch.nn.Module



def _function_post_hook_prog(t):
    class F(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, g * 2

    x = t.ones(2, requires_grad=True)
    out = F.apply(x, t.ones(2))
    seen = []
    out.grad_fn.register_hook(lambda gi, go: seen.append(gi))
    out.sum().backward()
    return seen


def test_function_post_hook_sees_returned_grads():
    check(_function_post_hook_prog)
