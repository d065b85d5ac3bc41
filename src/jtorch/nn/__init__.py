"""torch.nn: modules, parameters, functional, init and utils."""

from . import functional, init, utils
from .modules import *
from .parameter import *
