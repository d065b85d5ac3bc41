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

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
nn, F = torch.nn, torch.nn.functional


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


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
