"""torch.optim.Muon against PyTorch: parameters and state_dict after several steps from
identical starts (to bfloat16 precision: the Newton-Schulz products run in bfloat16), and
the errors PyTorch raises."""

import numpy as np
import pytest
from conftest import BACKENDS, check

RNG = np.random.default_rng(5)
W_WIDE, W_TALL = RNG.standard_normal((3, 5)), RNG.standard_normal((6, 2))
X = RNG.standard_normal((4, 5))


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.02, nesterov=False, weight_decay=0.0),
                                dict(adjust_lr_fn="match_rms_adamw", momentum=0.9, ns_steps=3)],
                         ids=["default", "plain-momentum", "adamw-rms"])
def test_muon_steps_and_state_dict(kw):
    def program(tm):
        wide = tm.tensor(W_WIDE, dtype=tm.float32, requires_grad=True)
        tall = tm.tensor(W_TALL, dtype=tm.float32, requires_grad=True)
        opt = tm.optim.Muon([wide, tall], **kw)
        x = tm.tensor(X, dtype=tm.float32)
        for _ in range(4):
            opt.zero_grad()
            h = (x @ wide.T).tanh()
            (h @ tall[:3]).square().mean().backward()  # (4, 3) @ (3, 2)
            opt.step()
        return wide, tall, opt.state_dict()

    check(program, atol=2e-3, rtol=2e-2)


@pytest.mark.parametrize("bad", [dict(lr=-1.0), dict(momentum=-0.1), dict(weight_decay=-1.0),
                                 dict(adjust_lr_fn="other")])
@pytest.mark.parametrize("lib", ["torch", "jtorch"])
def test_muon_rejects_bad_options(lib, bad):
    t = BACKENDS[lib]
    with pytest.raises(ValueError):
        t.optim.Muon([t.zeros(2, 2, requires_grad=True)], **bad)


@pytest.mark.parametrize("lib", ["torch", "jtorch"])
def test_muon_rejects_vectors(lib):
    t = BACKENDS[lib]
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        t.optim.Muon([t.zeros(3, requires_grad=True)])
