"""ember.vision.datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageFolder/DatasetFolder and FakeData, read from
local files (no downloads)."""

from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "DatasetFolder", "ImageFolder", "FakeData", "VisionDataset"]
