"""torch.nn.init: in-place initializers."""
