"""Small versions of the examples' models (digits CNN, LSTM language model, transformer),
written once against a torch-like module ``T`` (torch or jtorch), for the deployment tests
(torch.export, torch.jit, torch.onnx). ``build(T, name)`` gives ``(model, example input)``
in eval mode; ``same_weights`` copies a torch model's weights into a jtorch one."""

from __future__ import annotations

import numpy as np

VOCAB, BATCH = 12, 2


def cnn(T):
    nn, F = T.nn, T.nn.functional

    class DigitsCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.dropout = nn.Dropout(0.25)
            self.fc = nn.Linear(4 * 4 * 4, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            return self.fc(self.dropout(T.flatten(x, 1)))

    return DigitsCNN(), np.random.default_rng(0).standard_normal((BATCH, 1, 8, 8), "float32")


def lstm_lm(T):
    nn = T.nn

    class CharLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, 6, padding_idx=0)
            self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
            self.head = nn.Linear(8, VOCAB)

        def forward(self, x):
            out, (h, c) = self.lstm(self.embed(x))
            return self.head(out), (h, c)

    return CharLM(), np.random.default_rng(1).integers(0, VOCAB, (BATCH, 5))


def transformer(T):
    nn = T.nn

    class TinyTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, 8)
            layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.head = nn.Linear(8, VOCAB)

        def forward(self, x):
            return self.head(self.encoder(self.embed(x)))

    return TinyTransformer(), np.random.default_rng(2).integers(0, VOCAB, (BATCH, 5))


MODELS = {"cnn": cnn, "lstm_lm": lstm_lm, "transformer": transformer}


_built: dict = {}
_copied: set = set()


def build(T, name: str, fresh: bool = False):
    """``(model in eval mode, example input tensor)`` made with seed 0; the same objects
    for every test of a process unless ``fresh`` (building jtorch models compiles their
    initialisers' kernels, which dominates these tests' time): do not modify them."""
    key = (T.__name__, name)
    if fresh or key not in _built:
        T.manual_seed(0)
        model, x = MODELS[name](T)
        if fresh:
            return model.eval(), T.tensor(x)
        _built[key] = (model.eval(), T.tensor(x))
    return _built[key]


def pair(name: str):
    """``(torch model, its input, jtorch model with the same weights, its input)``."""
    import torch

    import jtorch

    tm, tx = build(torch, name)
    jm, jx = build(jtorch, name)
    if name not in _copied:
        same_weights(tm, jm)
        _copied.add(name)
    return tm, tx, jm, jx


def same_weights(torch_model, jtorch_model) -> None:
    import jtorch

    jtorch_model.load_state_dict({k: jtorch.tensor(v.detach().numpy())
                                  for k, v in torch_model.state_dict().items()})


def batch_of(x, n: int):
    """``n`` rows cycled from ``x`` (another batch size for dynamic-shape checks)."""
    reps = -(-n // x.shape[0])
    return x.repeat(reps, *([1] * (x.dim() - 1)))[:n]
