"""Data-parallel training of the digits CNN (examples/cnn_digits.py) across N devices.

Ordinary PyTorch data parallelism: ``torch.distributed`` with an env:// rendezvous, a
``DistributedSampler`` giving each rank its share of the data, and
``DistributedDataParallel`` averaging gradients after every backward pass (or
``nn.DataParallel`` with ``--dp``). The same file runs on either backend:

    # jtorch, one process driving 4 (simulated) devices: the batch is split over them
    python examples/ddp_cnn.py --devices 4
    # jtorch, 2 processes (ranks) over loopback, jax.distributed underneath
    python examples/ddp_cnn.py --nprocs 2
    # PyTorch for comparison: 2 processes on gloo, or DataParallel in one process
    TORCH_BACKEND=torch python examples/ddp_cnn.py --nprocs 2
    TORCH_BACKEND=torch python examples/ddp_cnn.py --dp

Every rank prints its result; rank 0 checks that all ranks hold identical parameters
and exits non-zero if the test accuracy is below 90%.
"""

import argparse
import importlib
import os
import socket
import subprocess
import sys
import time

import numpy as np

BACKEND = os.environ.get("TORCH_BACKEND", "jtorch")
EPOCHS = 4
GLOBAL_BATCH = 64


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nprocs", type=int, default=1, help="ranks to launch (processes)")
    p.add_argument("--devices", type=int, default=0,
                   help="jtorch on CPU: simulated XLA devices per process")
    p.add_argument("--dp", action="store_true", help="nn.DataParallel instead of DDP")
    return p.parse_args()


def launch(args) -> None:
    """Start ``--nprocs`` copies of this script as ranks 0..n-1 (what torchrun does)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(args.nprocs):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(args.nprocs),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, *sys.argv], env=env))
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"FAIL: exit codes {codes}")


def main(args) -> None:
    if args.devices and BACKEND == "jtorch":  # must precede JAX's start
        os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"
    torch = importlib.import_module(BACKEND)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from cnn_digits import DigitsCNN, evaluate, load_data  # the same backend, by env

    dist, nn, F = torch.distributed, torch.nn, torch.nn.functional
    data = torch.utils.data

    if not args.dp:
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29517")
        dist.init_process_group("gloo")  # env:// rendezvous
    rank = dist.get_rank() if not args.dp else 0
    world = dist.get_world_size() if not args.dp else 1

    torch.manual_seed(rank)  # DDP broadcasts rank 0's parameters at construction
    train_set, test_set = load_data()
    sampler = None if args.dp else data.DistributedSampler(train_set, shuffle=True, seed=0)
    loader = data.DataLoader(train_set, batch_size=GLOBAL_BATCH // world, sampler=sampler,
                             shuffle=sampler is None, drop_last=True)
    test_loader = data.DataLoader(test_set, batch_size=256)
    model = DigitsCNN()
    net = nn.DataParallel(model) if args.dp else nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    start = time.time()
    for epoch in range(1, EPOCHS + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"rank {rank}/{world} epoch {epoch} train loss {total / len(loader):.4f}  "
              f"{time.time() - start:.1f}s", flush=True)

    accuracy = evaluate(model, test_loader)
    print(f"rank {rank}: test accuracy {accuracy:.3f}", flush=True)
    if not args.dp:
        flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
        gathered = [torch.zeros_like(flat) for _ in range(world)]
        dist.all_gather(gathered, flat)
        same = all(np.array_equal(g.numpy(), gathered[0].numpy()) for g in gathered)
        dist.destroy_process_group()
        if not same:
            raise SystemExit("FAIL: ranks disagree on the parameters")
    if accuracy < 0.9:
        raise SystemExit(f"FAIL: test accuracy {accuracy:.3f} < 0.90")
    if rank == 0:
        print("OK")


if __name__ == "__main__":
    arguments = parse()
    if arguments.nprocs > 1 and "RANK" not in os.environ:
        launch(arguments)
    else:
        main(arguments)
