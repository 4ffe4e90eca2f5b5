"""ember.vision.datasets: torchvision's datasets read from local files (no downloads: download=True finds files that
are there and otherwise names the file and its URL). Images are PIL images with Pillow, as torchvision's, else
arrays or tensors decoded by ember."""

from . import utils  # noqa: F401
from ._tv_wrapper import wrap_dataset_for_transforms_v2
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .imagesets import CelebA, Flowers102, Food101, OxfordIIITPet
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .svhn import STL10, SVHN
from .vision import VisionDataset
from .voc_coco import CocoCaptions, CocoDetection, VOCDetection, VOCSegmentation

__all__ = [
    "MNIST",
    "FashionMNIST",
    "KMNIST",
    "EMNIST",
    "QMNIST",
    "CIFAR10",
    "CIFAR100",
    "SVHN",
    "STL10",
    "CelebA",
    "Flowers102",
    "Food101",
    "OxfordIIITPet",
    "VOCDetection",
    "VOCSegmentation",
    "CocoDetection",
    "CocoCaptions",
    "DatasetFolder",
    "ImageFolder",
    "FakeData",
    "VisionDataset",
    "wrap_dataset_for_transforms_v2",
]
