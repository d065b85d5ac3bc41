"""torch.amp.GradScaler: loss scaling for reduced-precision training.

Differences from PyTorch: the scale and growth tracker are ordinary tensors updated by
small eager ops (PyTorch uses fused ``_amp_update_scale_``); whether an optimizer step is
skipped is decided on the host, which synchronizes once per ``step`` as PyTorch does.
"""

from __future__ import annotations

import warnings

from .. import _device as _dev

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda" and not _dev.gpu_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._growth_factor = init_scale, growth_factor
        self._backoff_factor, self._growth_interval = backoff_factor, growth_interval
        self._scale = None
        self._growth_tracker = None
        self._per_optimizer: dict = {}

    def _lazy_init(self, like) -> None:
        import jtorch

        self._scale = jtorch.full((), self._init_scale, dtype=jtorch.float32, device=like.device)
        self._growth_tracker = jtorch.zeros((), dtype=jtorch.int32, device=like.device)

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor or nested sequence of them) times the current scale."""
        if not self._enabled:
            return outputs
        from ..eager.tensor import Tensor

        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs)
            return outputs * self._scale.to(device=outputs.device)
        if isinstance(outputs, list | tuple):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled) if isinstance(outputs, tuple) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": 0.0})

    def unscale_(self, optimizer) -> None:
        """Divide the optimizer's gradients by the scale, in place; note any inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        state["found_inf"] = self._unscale_grads(optimizer, allow_fp16=False)
        state["stage"] = _UNSCALED

    def _unscale_grads(self, optimizer, allow_fp16: bool) -> float:
        import jtorch

        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate "
                                 "your script did not use scaler.scale(loss or outputs) earlier "
                                 "in the iteration.")
        inv = self._scale.double().reciprocal().float()
        found = []
        with jtorch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not allow_fp16 and p.grad.dtype is jtorch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    p.grad.mul_(inv.to(p.grad.device))
                    found.append((~jtorch.isfinite(p.grad)).any().to("cpu"))
        return float(jtorch.stack(found).any()) if found else 0.0

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients hold an inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Back off the scale after an inf/NaN step, grow it after ``growth_interval`` good
        ones (or set ``new_scale``)."""
        if not self._enabled:
            return
        import jtorch

        if new_scale is not None:
            value = float(new_scale)
            self._scale = jtorch.full((), value, dtype=jtorch.float32, device=self._scale.device)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            tracker = int(self._growth_tracker)
            if any(found):
                self._scale.mul_(self._backoff_factor)
                tracker = 0
            else:
                tracker += 1
                if tracker == self._growth_interval:
                    self._scale.mul_(self._growth_factor)
                    tracker = 0
            self._growth_tracker.fill_(tracker)
        self._per_optimizer = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": 0 if self._growth_tracker is None
                else int(self._growth_tracker)}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        import jtorch

        self._init_scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        dev = self._scale.device if self._scale is not None else "cpu"
        self._scale = jtorch.full((), float(state_dict["scale"]), dtype=jtorch.float32,
                                  device=dev)
        self._growth_tracker = jtorch.full((), state_dict["_growth_tracker"],
                                           dtype=jtorch.int32, device=dev)
