"""torch.optim: optimizers (one per file) and lr_scheduler."""
