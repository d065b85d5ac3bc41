"""torch.backends: cuda.matmul / cudnn flags."""
