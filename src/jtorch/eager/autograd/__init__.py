"""The eager autograd graph: nodes, the backward engine, grad mode and custom Functions."""
