"""Views alias their base: geometry, write-through both ways, versions and data_ptr vs torch.

Every program builds its base from the same NumPy data with ``torch.tensor`` (a root that
owns its storage), takes a view, and returns the view's geometry, how it relates to the
root (``data_ptr`` difference, ``_base is root``), and the values of root and view after
writes through either side.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

ARR = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
MAT = np.arange(12, dtype=np.float32).reshape(3, 4)


def geom(t):
    """Everything torch reports about a tensor's layout (the tensor itself carries values)."""
    return dict(t=t, size=t.size(), shape=t.shape, stride=t.stride(),
                offset=t.storage_offset(), contiguous=t.is_contiguous(), dim=t.dim(),
                numel=t.numel())


def ptr_delta(root, v):
    """``data_ptr`` difference of a view from its root (empty tensors are tested apart)."""
    return v.data_ptr() - root.data_ptr() if v.numel() else None


def relation(root, v):
    """How a view relates to its root: shared storage offset in bytes, base identity, version."""
    return dict(ptr=ptr_delta(root, v), base=v._base is root,
                is_view=v._is_view(), version=(root._version, v._version),
                byte_offset=v.storage_offset() * v.element_size())


# Each case maps a (3, 4, 5) float32 tensor to a view of it.
VIEWS = {
    "getitem_basic": lambda x: x[0, 2:, 1:5:2],
    "getitem_none_ellipsis": lambda x: x[None, ..., 1, None],
    "getitem_ellipsis_mid": lambda x: x[1, ..., 2],
    "getitem_negative": lambda x: x[-1, -3:-1, -1],
    "getitem_0dim": lambda x: x[1, 2, 3],
    "getitem_int": lambda x: x[2],
    "getitem_ellipsis": lambda x: x[...],
    "getitem_oob_bounds": lambda x: x[1:100, -100:2],
    "getitem_step": lambda x: x[::2, 1::2, ::3],
    "getitem_none_first": lambda x: x[None, 1, None, :, 2],
    "getitem_tensor_int": lambda x: x[x.new_tensor(1).long(), 1:3],
    "getitem_two_ellipses": lambda x: x[..., 0, ...],
    "getitem_ellipses_none": lambda x: x[1, ..., None, ...],
    "as_strided": lambda x: x.as_strided((2, 3), (5, 1), 3),
    "as_strided_default_offset": lambda x: x.as_strided((4, 2), (1, 4)),
    "detach": lambda x: x.detach(),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_dims": lambda x: x.diagonal(1, 1, 2),
    "diagonal_neg": lambda x: x.diagonal(-1, -1, 0),
    "expand_new_dim": lambda x: x[:, :1].expand(2, 3, 4, 5),
    "expand_minus1": lambda x: x[:, :, 2:3].expand(-1, -1, 6),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "narrow_neg": lambda x: x.narrow(-1, -2, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "permute_neg": lambda x: x.permute(-1, 1, 0),
    "select": lambda x: x.select(1, -1),
    "squeeze_all": lambda x: x[:, :1, None].squeeze(),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "squeeze_dim_noop": lambda x: x.squeeze(0),
    "squeeze_tuple": lambda x: x[:1, :1].squeeze((0, 1, 2)),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "unsqueeze_neg": lambda x: x.unsqueeze(-1),
    "unsqueeze_mid": lambda x: x[:, 1:].unsqueeze(2),
    "transpose": lambda x: x.transpose(0, 2),
    "t": lambda x: x[0].t(),
    "T": lambda x: x[1].T,
    "mT": lambda x: x.mT,
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold_step": lambda x: x.unfold(1, 2, 2),
    "view_flat": lambda x: x.view(-1),
    "view_infer": lambda x: x.view(12, -1),
    "view_split": lambda x: x.view(3, 2, 2, 5),
    "view_noncontig_split": lambda x: x.transpose(0, 1).view(2, 2, 3, 5),
    "view_as": lambda x: x.view_as(x.new_zeros(6, 10)),
    "reshape_view": lambda x: x.reshape(3, 20),
    "flatten": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (5, 1)),
    "movedim": lambda x: x.movedim(0, -1),
    "movedim_multi": lambda x: x.movedim((0, 1), (2, 0)),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "view_of_views": lambda x: x.transpose(0, 2)[1:, ::2].unsqueeze(0).select(2, 1),
}
# Expanded views (a stride-0 dim of size > 1) refuse in-place arithmetic.
OVERLAPPING = {"expand_new_dim", "expand_minus1"}
# Overlapping windows are "too hard" for torch's overlap check: an in-place op then reads
# elements it already wrote, in torch's loop order. That is undefined, so not compared.
WINDOWED = {"unfold"}


def _base(torch, kind):
    root = torch.tensor(ARR)
    if kind == "root":
        return root, root
    return root, root.transpose(0, 1).transpose(0, 1)[:, :, :]  # a non-root, same geometry


@pytest.mark.parametrize("name", VIEWS)
def test_view_aliases_base(name):
    """Geometry, then a write to the base seen by the view, then a write through the view."""

    def prog(torch):
        root = torch.tensor(ARR)
        v = VIEWS[name](root)
        before = geom(v), relation(root, v), v.clone()
        root.mul_(-1)
        root[0] = 7
        seen = v.clone(), relation(root, v)
        if name in WINDOWED or name in OVERLAPPING:  # see test_write_to_overlapping_view_raises
            return before, seen
        v.add_(100)
        return before, seen, root, v, relation(root, v)

    check(prog, strides=True)


@pytest.mark.parametrize("name", ["getitem_basic", "getitem_0dim", "as_strided", "diagonal",
                                  "expand_new_dim", "permute", "squeeze_all", "unfold_step",
                                  "view_noncontig_split", "reshape_view", "view_of_views"])
def test_write_through_view_of_a_view(name):
    def prog(torch):
        root, x = _base(torch, "view")
        v = VIEWS[name](x)
        v.add_(100)
        return root, v, relation(root, v), x._version

    check(prog, strides=True, raises=RuntimeError if name in OVERLAPPING else None)


WRITES = {
    "fill_": lambda v: v.fill_(-3),
    "zero_": lambda v: v.zero_(),
    "setitem": lambda v: v.__setitem__(..., -5),
    "copy_": lambda v: v.copy_(v * 2 + 1),
    "mul_": lambda v: v.mul_(v),
    "iadd": lambda v: v.__iadd__(1),
}


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("name", ["getitem_basic", "getitem_0dim", "transpose", "diagonal",
                                  "unfold_step", "as_strided", "view_noncontig_split",
                                  "detach"])
def test_write_kinds(name, write):
    def prog(torch):
        root = torch.tensor(ARR)
        v = VIEWS[name](root)
        other = root.permute(1, 2, 0)  # a sibling view sees the same writes
        out = WRITES[write](v)
        return root, v, other, out is v, relation(root, v), other._version

    check(prog, strides=True)


@pytest.mark.parametrize("name", sorted(OVERLAPPING) + ["overlap_as_strided"])
def test_write_to_overlapping_view_raises(name):
    def prog(torch):
        root = torch.tensor(ARR)
        if name == "overlap_as_strided":
            v = root.as_strided((3, 3), (0, 1))
        else:
            v = VIEWS[name](root)
        v.add_(1)
        return v

    check(prog, raises=RuntimeError)


# The samples both libraries reject, by test id, and the exception class.
_OVERLAP_ERRORS = {
    'shifted_add': RuntimeError, 'shifted_copy': RuntimeError, 'transposed_copy': RuntimeError,
}


@pytest.mark.parametrize("case", [
    "shifted_copy", "shifted_add", "transposed_copy",
    "same_copy", "same_add", "disjoint", "column_copy", "strided_overlap", "reshaped_copy",
])
def test_partial_overlap_with_source(case, request):
    def prog(torch):
        x = torch.arange(12.0).view(3, 4)
        f = x.view(-1)
        {
            "shifted_copy": lambda: f[1:].copy_(f[:-1]),
            "shifted_add": lambda: f[1:].add_(f[:-1]),
            "transposed_copy": lambda: x.t().copy_(x.view(4, 3)),
            "same_copy": lambda: x[1].copy_(x[1]),
            "same_add": lambda: x.add_(x),
            "disjoint": lambda: f[:6].copy_(f[6:]),
            "column_copy": lambda: x[:, 0].copy_(x[:, 1]),
            "strided_overlap": lambda: x[:, :2].copy_(x[:, 1:3]),
            "reshaped_copy": lambda: x.copy_(x.t().reshape(3, 4)),
        }[case]()
        return x, x._version

    check(prog, raises=_OVERLAP_ERRORS.get(request.node.callspec.id))


def test_expanded_read_and_out_of_place_ops():
    def prog(torch):
        x = torch.tensor([[1.0], [2.0]])
        e = x.expand(2, 3)
        y = e + 1
        x.add_(10)  # the expanded view sees the base write
        return geom(e), y, e.contiguous(), e._version, e.is_contiguous()

    check(prog, strides=True)


# ------------------------------------------------------------------ indexing errors


# The samples both libraries reject, by test id, and the exception class.
_INDEX_ERRORS = {
    '0dim_int': IndexError, 'ellipses_overrun': IndexError, 'float_index': IndexError,
    'float_slice': TypeError, 'int_oob': IndexError, 'neg_oob': IndexError, 'neg_step': ValueError,
    'none_too_many': IndexError, 'oob_in_tuple': IndexError, 'slice_of_0dim': IndexError,
    'step0': ValueError, 'too_many': IndexError,
}


@pytest.mark.parametrize("index", [
    "step0", "neg_step", "too_many", "int_oob", "neg_oob", "0dim_int", "two_ellipsis",
    "oob_in_tuple", "float_index", "ellipses_overrun", "none_too_many", "slice_of_0dim",
    "float_slice",
])
def test_basic_index_errors(index, request):
    idx = {
        "step0": (slice(None, None, 0),),
        "neg_step": (slice(None, None, -1),),
        "too_many": (0, 0, 0, 0),
        "int_oob": (3,),
        "neg_oob": (-4,),
        "0dim_int": "0dim",
        "two_ellipsis": (Ellipsis, 0, Ellipsis),
        "oob_in_tuple": (0, 4),
        "float_index": (1.5,),
        "ellipses_overrun": (Ellipsis, 0, Ellipsis, 1),
        "none_too_many": (None, 0, 0, 0, None, 0),
        "slice_of_0dim": "0dim_slice",
        "float_slice": (slice(0.5, 2),),
    }[index]

    def prog(torch):
        x = torch.tensor(ARR)
        if idx == "0dim":
            return x[0, 0, 0][0]
        if idx == "0dim_slice":
            return x[0, 0, 0][:1]
        return x[idx]

    check(prog, raises=_INDEX_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize("index", [(slice(5, 1),), (slice(None), slice(-1, 0)),
                                   (slice(10, 20),), (Ellipsis, slice(4, 5))])
def test_empty_slices(index):
    def prog(torch):
        x = torch.tensor(ARR)
        v = x[index]
        return geom(v), v.numel(), v.sum()

    check(prog, strides=True)


def test_empty_tensor_data_ptr_is_zero():
    def prog(torch):
        x = torch.tensor(ARR)
        return x[:, 2:2].data_ptr(), x.narrow(0, 1, 0).data_ptr(), torch.zeros(0).data_ptr()

    check(prog)


def test_zero_dim_tensor_indexing():
    def prog(torch):
        s = torch.tensor(3.0)
        a, b, c = s[...], s[None], s[None, ..., None]
        a.add_(1)
        return geom(a), geom(b), geom(c), s, a._base is s, s._version

    check(prog, strides=True)


# ------------------------------------------------------------------ as_strided


@pytest.mark.parametrize("base", ["root", "transposed", "clone_of_transposed", "slice",
                                  "select", "offset_root"])
def test_as_strided_bases(base):
    def prog(torch):
        root = torch.tensor(MAT)
        x = {
            "root": lambda: root,
            "transposed": lambda: root.t(),
            "clone_of_transposed": lambda: root.t().clone(),
            "slice": lambda: root[1:, 1:],
            "select": lambda: root[:, 2],
            "offset_root": lambda: root.view(-1)[3:],
        }[base]()
        v = x.as_strided((2, 2), (1, 3), 1)
        w = x.as_strided((3,), (2,))  # storage_offset defaults to x's
        first = (v.clone(), w.clone())
        v.mul_(-1)
        return first, geom(v), geom(w), root, x, v._base is root, v.data_ptr() - x.data_ptr()

    check(prog, strides=True)


@pytest.mark.parametrize("layout", ["contiguous", "transposed_clone"])
def test_as_strided_on_detached_view(layout):
    def prog(torch):
        root = torch.tensor(MAT)
        if layout == "transposed_clone":
            root = root.t().clone()  # owns a storage in column-major order
        d = root[1:, 1:].detach()
        a = d.as_strided((2, 3), (1, 2), 1)
        a.add_(100)
        return geom(a), root, d, a._base is d, a.data_ptr() - d.data_ptr()

    check(prog, strides=True)


def test_as_strided_of_as_strided_and_errors():
    def prog(torch):
        root = torch.tensor(MAT)
        a = root.as_strided((3, 3), (4, 1), 1)
        b = a.as_strided((2,), (5,), 2)
        b.fill_(-1)
        return geom(a), geom(b), root

    check(prog, strides=True)

    check(lambda torch: torch.tensor(MAT).as_strided((4, 4), (4, 1)), raises=RuntimeError)
    check(lambda torch: torch.tensor(MAT).as_strided((2, 2), (1,)), raises=RuntimeError)


# ------------------------------------------------------------------ detach


def test_detach_shares_storage_and_version():
    def prog(torch):
        x = torch.tensor(MAT, requires_grad=True)
        y = x * 2
        d = y.detach()
        d[0, 0] = 100
        return (y, d, d.requires_grad, d.grad_fn is None, y._version, d._version,
                d.data_ptr() == y.data_ptr(), d._base is None)

    check(prog, strides=True)


# ------------------------------------------------------------------ diagonal, expand, etc


# The samples both libraries reject, by test id, and the exception class.
_DIAGONAL_ERRORS = {
    'args7': RuntimeError,
}


@pytest.mark.parametrize("args", [(0,), (2,), (-2,), (5,), (-4,), (0, 0, 2), (1, -1, -2),
                                  (0, 1, 1)])
def test_diagonal_variants(args, request):
    def prog(torch):
        x = torch.tensor(ARR)
        d = x.diagonal(*args)
        d.add_(0.5)
        return geom(d), x, ptr_delta(x, torch.diagonal(x, *args))

    check(prog, strides=True, raises=_DIAGONAL_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_EXPAND_ERRORS = {
    'size5': RuntimeError, 'size6': RuntimeError,
}


@pytest.mark.parametrize("size", [(3, 4), (2, 3, 4), (-1, 4), (2, -1, 4), (3, 3),
                                  (4,), (-1, -1, 4), (0, 3, 4), (3, 0)])
def test_expand_sizes(size, request):
    def prog(torch):
        x = torch.tensor([[1.0], [2.0], [3.0]])
        e = x.expand(*size)
        return geom(e), e._base is x

    check(prog, strides=True, raises=_EXPAND_ERRORS.get(request.node.callspec.id))


def test_expand_as_and_scalar():
    def prog(torch):
        x = torch.tensor([1.0, 2.0])
        s = torch.tensor(5.0)
        return geom(x.expand_as(torch.zeros(3, 2))), geom(s.expand(2, 3)), geom(s.expand(()))

    check(prog, strides=True)


# The samples both libraries reject, by test id, and the exception class.
_NARROW_ERRORS = {
    'args3': RuntimeError, 'args4': IndexError, 'args5': IndexError,
}


@pytest.mark.parametrize("args", [(0, 0, 3), (1, 2, 2), (2, 5, 0), (1, 3, 2), (0, -4, 1),
                                  (3, 0, 1)])
def test_narrow_variants(args, request):
    check(lambda torch: geom(torch.tensor(ARR).narrow(*args)), strides=True,
          raises=_NARROW_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_PERMUTE_ERRORS = {
    'dims0': RuntimeError, 'dims1': RuntimeError, 'dims2': IndexError,
}


@pytest.mark.parametrize("dims", [(0, 1), (0, 0, 1), (0, 1, 3), (2, 1, 0)])
def test_permute_variants(dims, request):
    check(lambda torch: geom(torch.tensor(ARR).permute(*dims)), strides=True,
          raises=_PERMUTE_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_SELECT_ERRORS = {
    'args0': IndexError, 'args2': IndexError, 'args3': IndexError, 'args4': IndexError,
}


@pytest.mark.parametrize("args", [(0, 3), (-1, -5), (3, 0), (2, 5), (1, -5)])
def test_select_variants(args, request):
    check(lambda torch: geom(torch.tensor(ARR).select(*args)), strides=True,
          raises=_SELECT_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_SQUEEZE_ERRORS = {
    'dim6': RuntimeError,
}


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2), (), (1, 1), 3])
def test_squeeze_variants(dim, request):
    def prog(torch):
        x = torch.zeros(1, 3, 1, 2)
        s = x.squeeze() if dim is None else x.squeeze(dim)
        return geom(s), geom(torch.tensor(2.0).squeeze()), geom(torch.tensor(2.0).squeeze(0))

    check(prog, strides=True, raises=_SQUEEZE_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_UNSQUEEZE_ERRORS = {
    '-5': IndexError, '4': IndexError,
}


@pytest.mark.parametrize("dim", [0, 1, 3, -1, -4, 4, -5])
def test_unsqueeze_variants(dim, request):
    check(lambda torch: geom(torch.tensor(ARR)[:, ::2].unsqueeze(dim)), strides=True,
          raises=_UNSQUEEZE_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_TRANSPOSE_ERRORS = {
    'mT1d': RuntimeError, 'oob': IndexError, 't3d': RuntimeError,
}


@pytest.mark.parametrize("prog", [
    lambda torch: geom(torch.tensor(ARR).transpose(-1, 0)),
    lambda torch: geom(torch.tensor(ARR).transpose(1, 1)),
    lambda torch: geom(torch.tensor(ARR).transpose(0, 3)),
    lambda torch: geom(torch.tensor(5.0).t()),
    lambda torch: geom(torch.tensor([1.0, 2.0]).t()),
    lambda torch: geom(torch.tensor(ARR).t()),
    lambda torch: geom(torch.tensor(5.0).T),
    lambda torch: geom(torch.tensor(MAT).T),
    lambda torch: geom(torch.tensor(MAT).mT),
    lambda torch: geom(torch.tensor([1.0]).mT),
    lambda torch: geom(torch.tensor(5.0).transpose(0, -1)),
], ids=["neg", "same", "oob", "t0d", "t1d", "t3d", "T0d", "T2d", "mT2d", "mT1d", "tr0d"])
def test_transpose_family(prog, request):
    check(prog, strides=True, raises=_TRANSPOSE_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_UNFOLD_ERRORS = {
    'args2': RuntimeError, 'args3': RuntimeError,
}


@pytest.mark.parametrize("args", [(0, 3, 1), (2, 5, 5), (2, 6, 1), (1, 2, 0), (-1, 1, 3),
                                  (1, 0, 1)])
def test_unfold_variants(args, request):
    def prog(torch):
        x = torch.tensor(ARR)
        u = x.unfold(*args)
        return geom(u), ptr_delta(x, u)

    check(prog, strides=True, raises=_UNFOLD_ERRORS.get(request.node.callspec.id))


def test_unfold_0dim():
    check(lambda torch: geom(torch.tensor(2.0).unfold(0, 1, 1)), strides=True)


# ------------------------------------------------------------------ view and reshape


# The samples both libraries reject, by test id, and the exception class.
_RESHAPE_ERRORS = {
    'contig-shape3': RuntimeError, 'contig-shape4': RuntimeError, 'contig-shape5': RuntimeError,
    'contig-shape6': RuntimeError, 'contig-shape7': RuntimeError, 'contig-shape8': RuntimeError,
}


@pytest.mark.parametrize("make,shape", [
    ("contig", (-1,)), ("contig", (5, -1)), ("contig", (2, -1, 5)), ("contig", (5,)),
    ("contig", (-1, -1)), ("contig", (7, -1)), ("contig", (0, -1)), ("contig", (60, 0)),
    ("contig", (-2, 30)), ("transposed", (-1,)), ("transposed", (5, 2, 2, 3)),
    ("transposed", (5, 4, 3)), ("sliced", (3, 2, 5)), ("sliced", (6, 5)), ("sliced", (-1,)),
    ("expanded", (2, 3, 20)), ("expanded", (6, 20)), ("expanded", (6, 4, 5)),
    ("size1", (4, 1)), ("size1", (1, 4)), ("scalar", (1, 1)), ("scalar", ()),
    ("scalar", (-1,)), ("empty", (0, 5)), ("empty", (-1, 2)),
])
def test_view_and_reshape(make, shape, request):
    def prog(torch):
        root = torch.tensor(ARR)
        x = {
            "contig": lambda: root,
            "transposed": lambda: root.transpose(0, 2),
            "sliced": lambda: root[:, 1:3],
            "expanded": lambda: root[None, 0].expand(2, 4, 5).transpose(0, 1)[:3].permute(
                1, 0, 2).reshape(2, 3, 5).unsqueeze(2).expand(2, 3, 4, 5),
            "size1": lambda: root[0, 0, :4].unsqueeze(0).t(),
            "scalar": lambda: root[1, 1, 1],
            "empty": lambda: root[:, :0, :2],
        }[make]()
        r = x.reshape(shape)
        is_view = r._base is root
        try:
            v = geom(x.view(shape))
        except RuntimeError as e:
            v = ("RuntimeError", "view" in str(e) or "invalid" in str(e))
        return geom(r), is_view, r.data_ptr() == x.data_ptr(), v

    check(prog, strides=True, raises=_RESHAPE_ERRORS.get(request.node.callspec.id))


def test_view_errors_and_messages():
    def prog(torch):
        x = torch.tensor(ARR)
        msgs = []
        for bad in [(5,), (7, -1), (-1, -1), (2, -2, 15)]:
            try:
                x.view(bad)
            except RuntimeError as e:
                msgs.append(str(e))
        try:
            x.transpose(0, 1).view(-1)
        except RuntimeError as e:
            msgs.append(str(e)[:40])
        return msgs

    check(prog)


def test_view_noncontiguous_split_succeeds():
    def prog(torch):
        x = torch.tensor(ARR).permute(2, 0, 1)  # (5, 3, 4), strides (1, 20, 5)
        v = x.view(5, 3, 2, 2)
        v[:, :, 1, 0] = -1
        return geom(v), x, v._base is x._base, v.data_ptr() - x.data_ptr()

    check(prog, strides=True)


# The samples both libraries reject, by test id, and the exception class.
_FLATTEN_ERRORS = {
    'args5': RuntimeError, 'args6': IndexError,
}


@pytest.mark.parametrize("args", [(), (1,), (0, 1), (1, 2), (-2, -1), (2, 1), (0, 3)])
def test_flatten_variants(args, request):
    def prog(torch):
        root = torch.tensor(ARR)
        flat = root.flatten(*args)
        tflat = root.transpose(1, 2).flatten(*args)
        return (geom(flat), flat._base is root, geom(tflat), tflat._base is root,
                geom(torch.tensor(1.0).flatten()), geom(torch.flatten(root[0, 0, 0], 0, -1)))

    check(prog, strides=True, raises=_FLATTEN_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_UNFLATTEN_ERRORS = {
    'args4': RuntimeError, 'args5': RuntimeError,
}


@pytest.mark.parametrize("args", [(0, (3, 1)), (1, (2, 2)), (-1, (-1, 5)), (2, (1, 5, 1)),
                                  (1, (3, 2)), (1, (-1, -1))])
def test_unflatten_variants(args, request):
    def prog(torch):
        x = torch.tensor(ARR)
        u = x.unflatten(*args)
        return geom(u), u._base is x

    check(prog, strides=True, raises=_UNFLATTEN_ERRORS.get(request.node.callspec.id))


def test_contiguous_identity_and_copy():
    def prog(torch):
        x = torch.tensor(ARR)
        t = x.transpose(0, 2)
        c = t.contiguous()
        c[0] = -1
        size1 = torch.zeros(1, 4).t()
        return (x.contiguous() is x, geom(c), c._base is None, c.data_ptr() == t.data_ptr(),
                x, size1.is_contiguous(), size1.contiguous() is size1,
                x[:, :, 1:2].is_contiguous(), x[:, 1:2, :].is_contiguous(),
                x[:1, :, :].is_contiguous(), x[:, :0].is_contiguous(),
                torch.zeros(3, 1, 2)[:, :, :1].is_contiguous())

    check(prog, strides=True)


CLONE_LAYOUTS = {
    "expanded": lambda x: x[:, :1].expand(3, 4, 5),
    "permuted_strided": lambda x: x.permute(2, 0, 1)[:, ::2],
    "transposed_sliced": lambda x: x.transpose(0, 1)[:, :, 1:3],
    "expanded_middle": lambda x: x[:, None, 1].expand(3, 2, 5),
    "expanded_permuted": lambda x: x.unsqueeze(0).expand(2, 3, 4, 5).permute(3, 1, 0, 2),
    "overlapping_windows": lambda x: x.view(-1).as_strided((3, 3), (1, 1)),
    "size1_permuted": lambda x: x[1:2, :, ::2].permute(2, 1, 0),
    "dense_permuted": lambda x: x.permute(1, 2, 0),
}


@pytest.mark.parametrize("name", CLONE_LAYOUTS)
def test_clone_keeps_memory_order(name):
    """preserve_format: dense strides are kept, others become dense in the same order."""

    def prog(torch):
        v = CLONE_LAYOUTS[name](torch.tensor(ARR))
        c = v.clone()
        return geom(c), geom(v.contiguous()), c._base is None

    check(prog, strides=True)


# The samples both libraries reject, by test id, and the exception class.
_MOVEDIM_ERRORS = {
    'args4': RuntimeError, 'args5': IndexError, 'args6': RuntimeError,
}


@pytest.mark.parametrize("args", [(0, 2), (-1, 0), ((0, 1), (-1, -2)), ((0, 1), (1, 0)),
                                  ((0, 1), (2,)), (3, 0), ((0, 0), (1, 2))])
def test_movedim_variants(args, request):
    def prog(torch):
        x = torch.tensor(ARR)
        m = x.movedim(*args)
        return geom(m), geom(torch.moveaxis(x, *args)), m._base is x

    check(prog, strides=True, raises=_MOVEDIM_ERRORS.get(request.node.callspec.id))


# ------------------------------------------------------------------ multi-output views


# The samples both libraries reject, by test id, and the exception class.
_SPLIT_ERRORS = {
    'op6': RuntimeError,
}


@pytest.mark.parametrize("op", [
    ("unbind", 0), ("unbind", -1), ("split", 2, 1), ("split", [1, 3], 1), ("split", 3, -1),
    ("split", [2, 0, 1], 0), ("split", [1, 1], 0), ("chunk", 2, 2), ("chunk", 3, 1),
    ("chunk", 6, 2), ("split", 10, 0), ("tensor_split", 3, 1), ("tensor_split", [3, 1], 2),
    ("tensor_split", [-1, 10], 1), ("tensor_split", 5, 0),
])
def test_multi_output_views(op, request):
    name, *args = op

    def prog(torch):
        x = torch.tensor(ARR)
        parts = getattr(x, name)(*args)
        parts[-1].fill_(-1)
        parts[0].mul_(2)
        return ([geom(p) for p in parts], [p._base is x for p in parts], x, x._version,
                [p._version for p in parts], [ptr_delta(x, p) for p in parts],
                type(parts).__name__)

    check(prog, strides=True, raises=_SPLIT_ERRORS.get(request.node.callspec.id))


GRAD_FN_NAMES = {
    "x[0]": lambda y: y[0], "x[:, 1:]": lambda y: y[:, 1:], "x[0:3]": lambda y: y[0:3],
    "x[1:, 0]": lambda y: y[1:, 0], "x[0, 1:]": lambda y: y[0, 1:],
    "x[:, None]": lambda y: y[:, None], "x[0, None, :]": lambda y: y[0, None, :],
    "x[...]": lambda y: y[...], "x[:, :]": lambda y: y[:, :], "x[0, ...]": lambda y: y[0, ...],
    "x[[0]]": lambda y: y[[0]], "x[0, [1]]": lambda y: y[0, [1]], "x[x > 0]": lambda y: y[y > 0],
    "view": lambda y: y.view(-1), "reshape_view": lambda y: y.reshape(12, 5),
    "reshape_copy": lambda y: y.transpose(0, 1).reshape(-1),
    "flatten_copy": lambda y: y.transpose(0, 1).flatten(),
    "contiguous": lambda y: y.transpose(0, 1).contiguous(), "t": lambda y: y[0].t(),
    "T": lambda y: y[0].T, "mT": lambda y: y.mT, "permute": lambda y: y.permute(2, 0, 1),
    "movedim": lambda y: y.movedim(0, 2), "unsqueeze": lambda y: y.unsqueeze(1),
    "expand": lambda y: y[:, :1].expand(2, 3, 4, 5), "unfold": lambda y: y.unfold(0, 2, 1),
    "diagonal": lambda y: y.diagonal(), "as_strided": lambda y: y.as_strided((2,), (1,)),
    "unbind": lambda y: y.unbind(1)[2], "split": lambda y: y.split(2)[1],
    "split_sizes": lambda y: y.split([1, 2])[0], "chunk": lambda y: y.chunk(2, 2)[1],
    "tensor_split": lambda y: y.tensor_split(2)[1], "select": lambda y: y.select(1, 2),
    "view_as": lambda y: y.view_as(y), "unflatten": lambda y: y.unflatten(1, (2, 2)),
}


@pytest.mark.parametrize("name", GRAD_FN_NAMES)
def test_view_grad_fn_names(name):
    def prog(torch):
        x = torch.tensor(ARR, requires_grad=True)
        y = x * 1
        v = GRAD_FN_NAMES[name](y)
        v.sum().backward()
        return v.grad_fn.name(), v._base is y, x.grad

    check(prog)


def test_split_errors():
    check(lambda torch: torch.tensor(ARR).split([1, 1], 0), raises=RuntimeError)
    check(lambda torch: torch.tensor(ARR).chunk(0), raises=RuntimeError)
    check(lambda torch: torch.tensor(ARR).unbind(3), raises=IndexError)
    check(lambda torch: torch.tensor(ARR).split(0, 1), raises=RuntimeError)


# ------------------------------------------------------------------ versions and chains


def test_versions_shared_by_all_aliases():
    def prog(torch):
        x = torch.tensor(ARR)
        a, b, c = x[0], x.t() if x.dim() == 2 else x.transpose(0, 1), x.view(-1)[5:]
        d = a.detach()
        seen = []
        for w in (lambda: a.add_(1), lambda: b.zero_(), lambda: c.fill_(2),
                  lambda: d.mul_(3), lambda: x.copy_(x)):
            w()
            seen.append((x._version, a._version, b._version, c._version, d._version))
        fresh = x.data
        fresh.add_(1)
        seen.append((x._version, fresh._version))
        return seen, x

    check(prog)


def test_views_of_views_chain():
    def prog(torch):
        x = torch.tensor(ARR)
        v1 = x.permute(1, 2, 0)  # (4, 5, 3)
        v2 = v1[1:3]  # (2, 5, 3)
        v3 = v2.reshape(10, 3)  # a view: dims 0, 1 of v2 merge
        v4 = v3.t()[::2]  # (2, 10)
        v5 = v4.unfold(1, 3, 3)
        v5.add_(1000)
        v3[0].fill_(-7)
        return [geom(v) for v in (v1, v2, v3, v4, v5)], x, [v._base is x for v in
                                                           (v1, v2, v3, v4, v5)]

    check(prog, strides=True)


def test_reading_after_many_writes():
    def prog(torch):
        x = torch.zeros(4, 4)
        rows, cols = x.unbind(0), x.unbind(1)
        for i in range(4):
            rows[i].add_(i)
            cols[i].add_(10 * i)
        return x, rows[2], cols[3], x._version

    check(prog)

