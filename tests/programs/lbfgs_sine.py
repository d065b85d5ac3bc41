"""Learn sine waves with two LSTM cells and L-BFGS (PyTorch's time-sequence-prediction).

The program of pytorch/examples' ``time_sequence_prediction``: 100 phase-shifted sine
waves (generated here), a model of two ``nn.LSTMCell`` and a linear layer stepped through
time in a Python loop, in double precision, trained by ``optim.LBFGS`` with a closure
(which the optimizer calls many times per step), then asked to continue three test waves
into the future. Runs unchanged on PyTorch (``python lbfgs_sine.py``) and on jtorch
(``python -m jtorch lbfgs_sine.py``).
"""

import numpy as np
import torch
import torch.nn as nn
from _common import knobs, log, seeded_init


def sine_waves(length, n=100, period=20, seed=2):
    rng = np.random.RandomState(seed)
    x = np.arange(length) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype("float64")


class Sequence(nn.Module):
    def __init__(self, hidden=51):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # predict the future from the model's own output
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


def main():
    args = knobs(__doc__.splitlines()[0], steps=15, length=1000, future=1000, lr=0.8,
                 max_iter=20, log_every=1)
    torch.manual_seed(0)
    data = sine_waves(args.length)
    input, target = torch.from_numpy(data[3:, :-1]), torch.from_numpy(data[3:, 1:])
    test_input, test_target = torch.from_numpy(data[:3, :-1]), torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    seeded_init(seq)
    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=args.lr, max_iter=args.max_iter)
    evals = []  # the losses the optimizer asked for in the current step

    def closure():
        optimizer.zero_grad()
        loss = criterion(seq(input), target)
        evals.append(loss.item())
        loss.backward()
        return loss

    for i in range(args.steps):
        evals.clear()
        optimizer.step(closure)
        with torch.no_grad():
            pred = seq(test_input, future=args.future)
            loss = criterion(pred[:, :test_target.size(1)], test_target)
        if (i + 1) % args.log_every == 0:
            log(i + 1, evals=len(evals), train_loss=evals[-1], test_loss=loss.item())
    print(f"prediction tail {pred[:, -1].tolist()}")


if __name__ == "__main__":
    main()
