"""Finishing touches on the ONNX model jax2onnx returns, and writing it."""

from __future__ import annotations

import os

__all__ = ["demote_doubles", "name_outputs", "name_output_dims", "initializers_as_inputs",
           "write", "axis_names"]


def axis_names(name, axes) -> dict:
    """``{0: "batch"}``, or ``[0, 1]`` named as PyTorch names them."""
    if isinstance(axes, dict):
        return axes
    return {d: f"{name}_dynamic_axes_{i + 1}" for i, d in enumerate(axes)}


def demote_doubles(graph) -> None:
    """float32 graphs only: jtorch passes Python numbers to its kernels as float64 scalars
    (converted to float32 inside), which jax2onnx's float32 mode types as float but
    emits as double constants; make those constants float32 as their uses expect."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    dbl, flt = onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT

    def demote(tensor):
        if tensor.data_type == dbl:
            arr = numpy_helper.to_array(tensor).astype(np.float32)
            tensor.CopyFrom(numpy_helper.from_array(arr, tensor.name))

    for init in graph.initializer:
        demote(init)
    for vi in [*graph.value_info, *graph.input, *graph.output]:
        if vi.type.tensor_type.elem_type == dbl:
            vi.type.tensor_type.elem_type = flt
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                demote(attr.t)
            elif attr.name == "to" and node.op_type == "Cast" and attr.i == dbl:
                attr.i = flt
            elif attr.type == onnx.AttributeProto.GRAPH:
                demote_doubles(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    demote_doubles(g)


def name_outputs(proto, output_names) -> list:
    """Rename the graph's outputs (``output_names``, else ``output_0``, ...) through
    Identity nodes, which leaves every inner reference intact."""
    import onnx

    given = list(output_names or [])
    outputs = proto.graph.output
    if len(given) > len(outputs):
        raise ValueError(f"output_names has {len(given)} names for {len(outputs)} outputs")
    names = given + [f"output_{i}" for i in range(len(given), len(outputs))]
    for out, name in zip(outputs, names):
        if out.name != name:
            proto.graph.node.append(onnx.helper.make_node("Identity", [out.name], [name]))
            out.name = name
    return names


def name_output_dims(proto, dynamic_axes) -> None:
    outputs = {o.name: o for o in proto.graph.output}
    for name, axes in (dynamic_axes or {}).items():
        if name in outputs:
            dims = outputs[name].type.tensor_type.shape.dim
            for d, label in axis_names(name, axes).items():
                dims[int(d)].dim_param = str(label)


def initializers_as_inputs(proto) -> None:
    import onnx

    present = {i.name for i in proto.graph.input}
    for init in proto.graph.initializer:
        if init.name not in present:
            proto.graph.input.append(onnx.helper.make_tensor_value_info(
                init.name, init.data_type, list(init.dims)))


def write(proto, f, external_data) -> None:
    import onnx

    large = proto.ByteSize() > 2**31 - 1
    if isinstance(f, str | os.PathLike) and large and external_data is not False:
        onnx.save_model(proto, os.fspath(f), save_as_external_data=True,
                        location=os.path.basename(os.fspath(f)) + ".data")
    elif isinstance(f, str | os.PathLike):
        onnx.save_model(proto, os.fspath(f))
    else:
        f.write(proto.SerializeToString())
