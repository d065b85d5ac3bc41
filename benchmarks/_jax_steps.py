"""Hand-written JAX training steps for benchmarks/training_step.py: the floor compiled jtorch
is measured against. Each is one ``jax.jit`` of ``value_and_grad`` plus the optimizer's
update, with the same shapes, losses and optimizer algorithms as the PyTorch programs
(initial values differ: only time is compared).
"""

import math

import jax
import jax.numpy as jnp
from jax import lax

F32 = jnp.float32  # jtorch turns on JAX's 64-bit mode in the same process


def _dense(key, a, b):
    return {"w": jax.random.normal(key, (a, b), F32) / math.sqrt(a), "b": jnp.zeros(b, F32)}


def _xent(logits, y):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))


def _sgd_momentum(lr=0.01, momentum=0.9):
    def init(ps):
        return jax.tree.map(jnp.zeros_like, ps)

    def update(ps, buf, g, n):  # PyTorch's first step sets the buffer to the gradient
        buf = jax.tree.map(lambda b, d: jnp.where(n == 1, d, momentum * b + d), buf, g)
        return jax.tree.map(lambda p, b: p - lr * b, ps, buf), buf

    return init, update


def _adam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, decay=None):
    """Adam, or AdamW when ``decay`` (a pytree of per-leaf weight decays) is given."""
    def init(ps):
        return jax.tree.map(jnp.zeros_like, ps), jax.tree.map(jnp.zeros_like, ps)

    def update(ps, state, g, n):
        m, v = state
        m = jax.tree.map(lambda a, d: b1 * a + (1 - b1) * d, m, g)
        v = jax.tree.map(lambda a, d: b2 * a + (1 - b2) * d * d, v, g)
        c1, c2 = 1 - b1**n, 1 - b2**n
        if decay is not None:
            ps = jax.tree.map(lambda p, wd: p * (1 - lr * wd), ps, decay)
        ps = jax.tree.map(lambda p, a, b: p - lr * (a / c1) / (jnp.sqrt(b / c2) + eps), ps, m, v)
        return ps, (m, v)

    return init, update


def _runner(loss_fn, params, opt, data, aux=None):
    """A ``run()`` closure over jitted (params, opt state, aux) -> (..., loss)."""
    init, update = opt

    @jax.jit
    def step(ps, st, aux, n, key):
        (loss, aux), g = jax.value_and_grad(loss_fn, has_aux=True)(ps, aux, key, *data)
        ps, st = update(ps, st, g, n)
        return ps, st, aux, loss

    state = {"ps": params, "st": init(params), "aux": aux, "n": 1, "key": jax.random.key(1)}

    def run():
        s = state
        s["key"], key = jax.random.split(s["key"])
        s["ps"], s["st"], s["aux"], loss = step(s["ps"], s["st"], s["aux"], float(s["n"]), key)
        s["n"] += 1
        return loss

    return run


def mlp(x, y):
    k = jax.random.split(jax.random.key(0), 3)
    params = [_dense(k[0], 784, 256), _dense(k[1], 256, 256), _dense(k[2], 256, 10)]

    def loss_fn(ps, aux, key, x, y):
        h = x
        for i, layer in enumerate(ps):
            h = h @ layer["w"] + layer["b"]
            if i < len(ps) - 1:
                h = jax.nn.relu(h)
        return _xent(h, y), aux

    return _runner(loss_fn, params, _sgd_momentum(), (x, y))


def _conv(key, cin, cout):
    w = jax.random.normal(key, (cout, cin, 3, 3), F32) / math.sqrt(cin * 9)
    return {"w": w, "b": jnp.zeros(cout, F32)}


def _pool(h):
    return lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def cnn(x, y):
    k = jax.random.split(jax.random.key(0), 4)
    params = {"c1": _conv(k[0], 1, 16), "bn": {"w": jnp.ones(16, F32), "b": jnp.zeros(16, F32)},
              "c2": _conv(k[1], 16, 32), "l1": _dense(k[2], 128, 64), "l2": _dense(k[3], 64, 10)}
    running = (jnp.zeros(16, F32), jnp.ones(16, F32))

    def conv(h, p):
        out = lax.conv_general_dilated(h, p["w"], (1, 1), ((1, 1), (1, 1)))
        return out + p["b"][None, :, None, None]

    def loss_fn(ps, aux, key, x, y):
        h = conv(x, ps["c1"])
        mean, var = h.mean((0, 2, 3)), h.var((0, 2, 3))
        n = h.size / h.shape[1]
        aux = (0.9 * aux[0] + 0.1 * mean, 0.9 * aux[1] + 0.1 * var * n / (n - 1))
        h = (h - mean[None, :, None, None]) * lax.rsqrt(var + 1e-5)[None, :, None, None]
        h = h * ps["bn"]["w"][None, :, None, None] + ps["bn"]["b"][None, :, None, None]
        h = _pool(jax.nn.relu(h))
        h = _pool(jax.nn.relu(conv(h, ps["c2"]))).reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ ps["l1"]["w"] + ps["l1"]["b"])
        return _xent(h @ ps["l2"]["w"] + ps["l2"]["b"], y), jax.lax.stop_gradient(aux)

    return _runner(loss_fn, params, _adam(), (x, y), running)


def gpt(x, y, *, vocab, block, width=128, layers=4, heads=4, p_drop=0.1):
    keys = iter(jax.random.split(jax.random.key(0), 4 + 4 * layers))

    def normal(*shape):
        return 0.02 * jax.random.normal(next(keys), shape, F32)

    def ln():
        return {"w": jnp.ones(width, F32), "b": jnp.zeros(width, F32)}

    def lin(a, b):
        return {"w": normal(a, b), "b": jnp.zeros(b, F32)}

    params = {"tok": normal(vocab, width), "pos": normal(block, width), "ln_f": ln(),
              "blocks": [{"ln1": ln(), "ln2": ln(), "qkv": lin(width, 3 * width),
                          "proj": lin(width, width), "fc": lin(width, 4 * width),
                          "out": lin(4 * width, width)} for _ in range(layers)]}
    decay = jax.tree.map(lambda p: 0.1 if p.ndim >= 2 else 0.0, params)

    def norm(h, p):
        mu = h.mean(-1, keepdims=True)
        var = jnp.square(h - mu).mean(-1, keepdims=True)
        return (h - mu) * lax.rsqrt(var + 1e-5) * p["w"] + p["b"]

    def drop(h, key):
        keep = jax.random.bernoulli(key, 1 - p_drop, h.shape)
        return jnp.where(keep, h / (1 - p_drop), 0.0)

    def attention(h, p, key):
        b, t, c = h.shape
        q, k, v = jnp.split(h @ p["qkv"]["w"] + p["qkv"]["b"], 3, axis=2)
        q, k, v = (z.reshape(b, t, heads, c // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
        s = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(c // heads)
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -jnp.inf)
        a = drop(jax.nn.softmax(s, -1), key)
        out = (a @ v).transpose(0, 2, 1, 3).reshape(b, t, c)
        return out @ p["proj"]["w"] + p["proj"]["b"]

    def loss_fn(ps, aux, key, x, y):
        ks = iter(jax.random.split(key, 1 + 3 * layers))
        h = drop(ps["tok"][x] + ps["pos"][: x.shape[1]], next(ks))
        for p in ps["blocks"]:
            h = h + drop(attention(norm(h, p["ln1"]), p, next(ks)), next(ks))
            m = jax.nn.gelu(norm(h, p["ln2"]) @ p["fc"]["w"] + p["fc"]["b"], approximate=False)
            h = h + drop(m @ p["out"]["w"] + p["out"]["b"], next(ks))
        logits = norm(h, ps["ln_f"]) @ ps["tok"].T
        return _xent(logits.reshape(-1, vocab), y.reshape(-1)), aux

    return _runner(loss_fn, params, _adam(3e-4, 0.9, 0.95, decay=decay), (x, y))
