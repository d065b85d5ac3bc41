"""jtorch's own: how few objects an autograd graph holds. Python's collector walks every
tracked object of a live graph at each collection, so a graph of many nodes (an LSTM cell
stepped through a thousand time steps) keeps per node only what it needs."""

from __future__ import annotations


def test_a_leaf_used_many_times_shares_one_edge():
    # jtorch's own: the edge into a leaf's AccumulateGrad is one tuple, made once (a weight
    # is an edge of every node using it; each tuple is an object the collector walks).
    import jtorch

    w = jtorch.ones(3, requires_grad=True)
    big = jtorch.ones(5000, 3)  # past the recorded ops' size: the dispatcher's path
    ys = [w * float(i) for i in range(3)] + [w.exp(), big * w, w.sum()]
    edges = [y.grad_fn.next_functions[-1 if y.dim() == 2 else 0] for y in ys]
    assert all(e is edges[0] for e in edges)
    assert edges[0][0].variable is w and edges[0][1] == 0


def test_repeated_calls_record_few_objects_per_node():
    # jtorch's own: a graph of many calls (an LSTM cell through time) holds as few objects
    # per node as it can, each one the garbage collector walks: the saved operands are one
    # flat list (no tuple per operand) and every call's node shares the kernel key of the
    # first, even for an op whose tuple argument keeps it off the fast paths.
    import jtorch

    cell = jtorch.nn.LSTMCell(2, 3)
    x = jtorch.ones(4, 2)
    h = (jtorch.zeros(4, 3), jtorch.zeros(4, 3))
    nodes = []
    for _ in range(3):
        h = cell(x, h)
        nodes.append(h[0].grad_fn)
    big = jtorch.ones(5000, 3, requires_grad=True)  # the dispatcher's path
    nodes += [(big * big).grad_fn, (big * 2.0).exp().grad_fn]
    for n in nodes:
        assert n._saved and len(n._saved) % 7 == 0
        assert not any(type(v) is tuple and len(v) == 7 for v in n._saved)
    assert nodes[0]._replay[0] is nodes[1]._replay[0] is nodes[2]._replay[0]
    h[0].sum().backward()  # the flat entries checked and read
    assert cell.weight_ih.grad is not None
