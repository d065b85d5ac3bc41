"""Stochastic weight averaging and EMA: AveragedModel, SWALR, update_bn and the averaging
functions (PyTorch's ``torch.optim.swa_utils``)."""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import jtorch

from ..eager.autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._lr_base import LRScheduler, format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ema <- lerp(ema, current, 1 - decay)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        floating = ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex()
        for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
            if floating:
                p_ema.lerp_(p_model, 1 - decay)
            else:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean over lists of tensors."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        floating = (averaged_param_list[0].is_floating_point()
                    or averaged_param_list[0].is_complex())
        for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
            if floating:
                p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
            elif isinstance(num_averaged, jtorch.Tensor):
                p_avg.addcdiv_(p_model - p_avg, num_averaged + 1)
            else:
                p_avg.add_(p_model - p_avg, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor: decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Running mean of one tensor."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with ``use_buffers``) are a running
    average (SWA by default, or ``avg_fn``/``multi_avg_fn`` such as EMA) of ``model``'s."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", jtorch.tensor(0, dtype=jtorch.long, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _pairs(self, model):
        if self.use_buffers:
            return zip(itertools.chain(self.module.parameters(), self.module.buffers()),
                       itertools.chain(model.parameters(), model.buffers()), strict=False)
        return zip(self.parameters(), model.parameters(), strict=False)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current values into the average (the first call copies them)."""
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in self._pairs(model):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if first:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            self._average(averaged, current)
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _average(self, averaged, current) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_averaged, p_model in zip(averaged, current, strict=True):
                n = self.n_averaged.to(p_averaged.device)
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n))
            return
        groups: dict = {}  # PyTorch groups by (device, dtype) before averaging
        for a, c in zip(averaged, current, strict=True):
            groups.setdefault((a.device, a.dtype), ([], []))
            groups[(a.device, a.dtype)][0].append(a)
            groups[(a.device, a.dtype)][1].append(c)
        for (device, _), (avg_list, cur_list) in groups.items():
            n = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(avg_list, cur_list, n)
            elif device.type == "cuda":  # PyTorch's foreach path
                get_swa_multi_avg_fn()(avg_list, cur_list, n)
            else:
                avg_fn = get_swa_avg_fn()
                for p_averaged, p_model in zip(avg_list, cur_list, strict=True):
                    p_averaged.copy_(avg_fn(p_averaged, p_model, n))


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """Recompute every BatchNorm's running statistics with one pass over ``loader``."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, list | tuple):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module, momentum in momenta.items():
        bn_module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to its ``swa_lr`` over ``anneal_epochs`` epochs
    (cosine or linear), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        for lr, group in zip(format_param("swa_lr", optimizer, swa_lr),
                             optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
