"""torchvision-style datasets: ``MNIST`` and ``FashionMNIST``."""
from .mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "FashionMNIST"]
