"""Shipping a model: torch.export, torch.onnx.export and torch.jit on the digits CNN.

The model is exported three ways, and each artefact is loaded back and checked against
the eager model at a batch size it was not exported with:

    python examples/deploy_digits.py                        # jtorch (default)
    TORCH_BACKEND=torch python examples/deploy_digits.py    # PyTorch, for comparison

ONNX needs ``pip install 'jtorch[onnx]' onnxruntime`` (PyTorch: ``onnx``); without them
that step is skipped. jtorch's .pt2 and TorchScript-named files are jtorch's own format.
"""

import importlib
import os
import tempfile

import numpy as np
from cnn_digits import DigitsCNN  # the flagship example's model (same TORCH_BACKEND)

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))


def check(name, got, expected) -> None:
    err = float(np.abs(np.asarray(got) - expected).max())
    print(f"{name:<14} max |difference| {err:.2e}")
    if err > 1e-4:
        raise SystemExit(f"FAIL: {name} differs from the eager model")


def main() -> None:
    torch.manual_seed(0)
    model = DigitsCNN().eval()
    example, other = torch.randn(4, 1, 8, 8), torch.randn(7, 1, 8, 8)
    with torch.no_grad():
        expected = model(other).numpy()
    tmp = tempfile.mkdtemp()

    batch = torch.export.Dim("batch")
    ep = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    torch.export.save(ep, os.path.join(tmp, "digits.pt2"))
    loaded = torch.export.load(os.path.join(tmp, "digits.pt2")).module()
    check("torch.export", loaded(other).detach().numpy(), expected)

    traced = torch.jit.trace(model, example)
    torch.jit.save(traced, os.path.join(tmp, "digits_jit.pt"))
    check("torch.jit", torch.jit.load(os.path.join(tmp, "digits_jit.pt"))(other).detach()
          .numpy(), expected)

    try:
        import onnxruntime
    except ImportError:
        print("torch.onnx     skipped (onnxruntime is not installed)")
    else:
        path = os.path.join(tmp, "digits.onnx")
        torch.onnx.export(model, (example,), path, input_names=["x"], dynamo=False,
                          dynamic_axes={"x": {0: "batch"}})
        session = onnxruntime.InferenceSession(path)
        check("torch.onnx", session.run(None, {"x": other.numpy()})[0], expected)
    print("OK")


if __name__ == "__main__":
    main()
