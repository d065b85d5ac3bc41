"""A character-level LSTM language model over the Zen of Python (shipped with Python).

Each line is one sequence; a batch of lines of different lengths is padded with
``pad_sequence`` and fed through ``pack_padded_sequence`` (unsorted, so
``enforce_sorted=False``), an ``nn.LSTM``, ``pad_packed_sequence`` and a cross-entropy
that ignores the padding. It runs unchanged on either backend:

    python examples/lstm_lm.py                        # jtorch (default)
    python examples/lstm_lm.py --compile              # each training step as one program
    TORCH_BACKEND=torch python examples/lstm_lm.py    # PyTorch, for comparison

It prints the loss and perplexity per epoch and a greedy sample, and exits non-zero if
the loss did not fall by half.
"""

import argparse
import codecs
import contextlib
import importlib
import io
import math
import os

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
nn = torch.nn
rnn_utils = torch.nn.utils.rnn

EPOCHS = 60
BATCH = 4
PAD = 0


def load_lines() -> list[str]:
    with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints the poem
        import this
    text = codecs.decode(this.s, "rot13")
    return [line for line in text.splitlines() if line.strip()]


class CharLM(nn.Module):
    def __init__(self, vocab: int, embed: int = 24, hidden: int = 64):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed, padding_idx=PAD)
        self.lstm = nn.LSTM(embed, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, lengths, state=None):
        packed = rnn_utils.pack_padded_sequence(self.embed(x), lengths, batch_first=True,
                                                enforce_sorted=False)
        out, state = self.lstm(packed, state)
        out, _ = rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=x.size(1))
        return self.head(out), state


def main() -> None:
    parser = argparse.ArgumentParser(description="A character-level LSTM language model.")
    parser.add_argument("--compile", action="store_true", help="torch.compile each step")
    args = parser.parse_args()
    torch.manual_seed(0)
    lines = load_lines()
    chars = sorted(set("".join(lines)))
    stoi = {c: i + 2 for i, c in enumerate(chars)}  # 0 padding, 1 end of line
    itos = {i: c for c, i in stoi.items()}
    vocab = len(chars) + 2
    seqs = [torch.tensor([stoi[c] for c in line] + [1]) for line in lines]

    model = CharLM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)

    # Fixed batches (visited in a random order each epoch), all padded to one length: every
    # step has one of a few shapes, so an XLA backend compiles each kernel only a few times.
    width = max(len(s) for s in seqs)
    batches = []
    for start in range(0, len(seqs), BATCH):
        batch = seqs[start:start + BATCH]
        padded = rnn_utils.pad_sequence(batch, batch_first=True, padding_value=PAD)
        padded = torch.nn.functional.pad(padded, (0, width - padded.size(1)), value=PAD)
        batches.append((padded, [len(s) - 1 for s in batch]))

    def train_step(inputs, targets, lengths):
        logits, _ = model(inputs, lengths)
        loss = loss_fn(logits.reshape(-1, vocab), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss

    if args.compile:  # lengths are Python ints: one program per batch's lengths
        train_step = torch.compile(train_step)

    first = last = None
    for epoch in range(1, EPOCHS + 1):
        model.train()
        total, count = 0.0, 0
        for b in torch.randperm(len(batches)).tolist():
            padded, lengths = batches[b]
            loss = train_step(padded[:, :-1], padded[:, 1:], lengths)
            total += loss.item()
            count += 1
        scheduler.step()
        last = total / count
        first = first if first is not None else last
        if epoch % 10 == 0 or epoch == 1:
            print(f"epoch {epoch:2d}  loss {last:.3f}  perplexity {math.exp(last):6.2f}")

    model.eval()
    text, x, state = "Beautiful", None, None
    with torch.no_grad():
        x = torch.tensor([[stoi[c] for c in text]])
        for _ in range(60):
            logits, state = model(x, torch.tensor([x.size(1)]), state)
            nxt = int(logits[0, -1].argmax())
            if nxt == 1:
                break
            text += itos.get(nxt, "?")
            x = torch.tensor([[nxt]])
    print(f"sample: {text!r}")
    if not last < first / 2:
        raise SystemExit(f"FAIL: loss {last:.3f} did not fall below half of {first:.3f}")
    print("OK")


if __name__ == "__main__":
    main()
