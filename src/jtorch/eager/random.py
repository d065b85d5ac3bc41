"""torch.Generator on JAX keys: a seed plus a counter folded into the key per draw.

The counter travels into the jitted sampling kernel as an operand, so drawing numbers
costs no extra dispatch and no retrace; ``get_state``/``set_state`` round-trip both.
"""

from __future__ import annotations

import os

import jax
import numpy as np

from .._device import CPU, device
from . import hooks

_DEFAULT_SEED = 67280421310721


class Generator:
    """A random stream: ``torch.Generator().manual_seed(0)``."""

    def __init__(self, device=CPU):
        self.device = device if not isinstance(device, str) else _as_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed) -> Generator:
        seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._key = None  # made on first draw: importing jtorch must not start JAX's backends
        self._counter = 0
        return self

    def seed(self) -> int:
        """Reseed from the OS's entropy (a non-deterministic 64-bit seed, as PyTorch)."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def next(self):
        """(key, counter) for one draw; the kernel folds the counter into the key."""
        if hooks.RECORDER is not None:  # torch.compile: the key and counter are traced inputs
            return hooks.RECORDER.rng(self)
        c = self._counter
        self._counter = c + 1
        if self._key is None:
            self._key = self._make_key()
        return self._key, c

    def _peek(self, n: int = 0):
        """(key, counter) of the draw ``n`` draws ahead, without drawing."""
        if self._key is None:
            self._key = self._make_key()
        return self._key, self._counter + n

    def _make_key(self):
        with jax.ensure_compile_time_eval():  # concrete even when first drawn in a trace
            if jax.config.jax_default_prng_impl == "threefry2x32":
                # PRNGKey's threefry key is the seed's high and low 32 bits: built on the
                # host, not by the two programs JAX compiles for it (once per process).
                seed = self._seed
                return jax.device_put(np.array([seed >> 32, seed & 0xFFFFFFFF], np.uint32))
            return jax.random.key_data(jax.random.PRNGKey(np.uint64(self._seed)))

    def get_state(self):
        """A uint8 tensor of 16 bytes: the seed and the number of draws made since."""
        from .tensor import wrap

        raw = np.array([self._seed, self._counter], dtype=np.uint64).view(np.uint8)
        return wrap(jax.numpy.asarray(raw))

    def set_state(self, state) -> Generator:
        from .. import _dtypes as D
        from .tensor import Tensor

        if not isinstance(state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(state).__name__}")
        if state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.asarray(state._value, dtype=np.uint8)
        if raw.size != 16:
            raise RuntimeError(
                f"Expected a jtorch Generator state of size 16 but found the input RNG state "
                f"size to be {raw.size}"
            )
        seed, counter = raw.view(np.uint64).tolist()
        self.manual_seed(seed)
        self._counter = counter
        return self


def _as_device(d):
    return device(d)


# PyTorch seeds its default generator non-deterministically in every process (a fresh
# ``Generator()`` keeps the fixed default seed); ``manual_seed`` makes a run reproducible.
default_generator = Generator()
default_generator.seed()


# One default generator per accelerator device (PyTorch's ``torch.cuda.default_generators``),
# made on first use with PyTorch's fixed default seed; draws on that device use it.
device_generators: dict = {}  # (type, index) -> Generator


def generator_for(dev) -> Generator:
    """The default generator of ``dev`` (a resolved device, None for the CPU)."""
    if dev is None or dev.type == "cpu":
        return default_generator
    key = (dev.type, dev.index or 0)
    gen = device_generators.get(key)
    if gen is None:
        gen = device_generators[key] = Generator(device(dev.type, key[1]))
        if _seed_all[0] is not None:
            gen.manual_seed(_seed_all[0])
    return gen


def manual_seed(seed) -> Generator:
    """Seed the CPU generator and every accelerator's, as PyTorch."""
    for gen in device_generators.values():
        gen.manual_seed(seed)
    _seed_all[0] = seed
    return default_generator.manual_seed(seed)


def seed() -> int:
    s = default_generator.seed()
    for gen in device_generators.values():
        gen.manual_seed(s)
    _seed_all[0] = s
    return s


# The seed the last torch.manual_seed/seed gave every device: a device generator made
# later starts from it, as PyTorch seeds all CUDA generators (made lazily) at once.
_seed_all: list = [None]


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)
