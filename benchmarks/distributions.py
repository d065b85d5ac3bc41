"""torch.distributions eager cost: jtorch vs PyTorch, measured in one process.

    python benchmarks/distributions.py           # full run
    python benchmarks/distributions.py --quick   # fewer, shorter repeats

Cases (float32 on CPU, validation on as by default):
  normal-logprob   Normal(mu, sigma).log_prob(x).sum().backward(), batch 256
  normal-rsample   Normal(mu, sigma).rsample().sum().backward(), batch 256
  policy-step      Categorical(logits).sample(); -(log_prob * reward).sum().backward(),
                   64 states x 6 actions (the REINFORCE inner step)
  kl-normal        kl_divergence(Normal(mu, sigma), Normal(0, 1)).sum().backward(), batch 256

Each figure is the median, over several repeats, of (time of a batch of N calls) / N, after
warm-up (so compilation is excluded). The ratio is what matters.
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import torch  # noqa: E402

import jtorch  # noqa: E402


def cases(t) -> dict:
    """{case: step} for backend ``t``; each step returns a tensor to wait for."""
    t.manual_seed(0)
    mu = t.zeros(256, requires_grad=True)
    sigma = t.ones(256, requires_grad=True)
    x = t.randn(256)
    logits = t.zeros(64, 6, requires_grad=True)
    reward = t.randn(64)
    D = t.distributions

    def normal_logprob():
        mu.grad = sigma.grad = None
        lp = D.Normal(mu, sigma).log_prob(x).sum()
        lp.backward()
        return mu.grad

    def normal_rsample():
        mu.grad = sigma.grad = None
        D.Normal(mu, sigma).rsample().sum().backward()
        return mu.grad

    def policy_step():
        logits.grad = None
        dist = D.Categorical(logits=logits)
        a = dist.sample()
        (-(dist.log_prob(a) * reward).sum()).backward()
        return logits.grad

    def kl_normal():
        mu.grad = sigma.grad = None
        D.kl_divergence(D.Normal(mu, sigma), D.Normal(0.0, 1.0)).sum().backward()
        return mu.grad

    return {"normal-logprob": normal_logprob, "normal-rsample": normal_rsample,
            "policy-step": policy_step, "kl-normal": kl_normal}


def measure(step, sync, n, repeats) -> float:
    for _ in range(3):
        sync(step())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            out = step()
        sync(out)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, repeats = (20, 3) if args.quick else (100, 7)
    torch.set_num_threads(1)
    j, p = cases(jtorch), cases(torch)
    print(f"{'case':16s} {'jtorch us':>10s} {'PyTorch us':>11s} {'ratio':>7s}")
    for name in j:
        tj = measure(j[name], lambda x: x._value.block_until_ready(), n, repeats)
        tp = measure(p[name], lambda x: None, n, repeats)
        print(f"{name:16s} {tj:10.0f} {tp:11.0f} {tj / tp:6.1f}x")


if __name__ == "__main__":
    main()
