"""torch.nn.utils."""
