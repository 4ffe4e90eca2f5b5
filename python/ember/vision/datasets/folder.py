"""DatasetFolder and ImageFolder: root/<class>/.../<file>, classes sorted by folder name (torchvision's layout)."""

import os

from .. import _pil
from .. import io as _io
from .vision import VisionDataset, _check_index

__all__ = [
    "DatasetFolder",
    "ImageFolder",
    "IMG_EXTENSIONS",
    "default_loader",
    "pil_loader",
    "ImageDecodeError",
    "has_file_allowed_extension",
    "find_classes",
    "make_dataset",
]

# torchvision's list. With Pillow every one of them is read; without it, JPEG, PNG and binary PGM/PPM are (through
# ember.vision.io) and the others raise a clear error when loaded.
IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename, extensions):
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


class ImageDecodeError(OSError, RuntimeError):
    """A file Pillow cannot decode (truncated, corrupt, not an image). An OSError like Pillow's own errors (so
    `except OSError` works as with torchvision) and a RuntimeError like ember.vision.io's."""


def pil_loader(path):
    """The file opened by Pillow and converted to RGB (torchvision's pil_loader); needs Pillow. A file Pillow
    cannot decode raises ImageDecodeError naming it (Pillow's own error is its __cause__)."""
    Image = _pil.require("pil_loader")
    with open(path, "rb") as f:
        try:
            img = Image.open(f)
            return img.convert("RGB")
        except (MemoryError, KeyboardInterrupt):
            raise
        except Exception as e:  # Pillow raises OSError, SyntaxError, ValueError, AttributeError ... on bad files
            raise ImageDecodeError("pil_loader: cannot decode '%s': %s: %s" % (path, type(e).__name__, e)) from e


def default_loader(path):
    """An image file as RGB: a PIL image when Pillow is installed (every format Pillow reads, as torchvision's
    default_loader), else a uint8 NumPy array [H, W, 3] decoded by ember.vision.io (JPEG, PNG, binary PGM/PPM)."""
    if _pil.available():
        return pil_loader(path)
    return _io._read_hwc(path, _io.ImageReadMode.RGB).numpy()


def find_classes(directory):
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError("Couldn't find any class folder in %s." % directory)
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None):
    """(path, class index) for every valid file under directory/<class>/, sorted by class, then path."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    both_none = extensions is None and is_valid_file is None
    both_something = extensions is not None and is_valid_file is not None
    if both_none or both_something:
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:

        def is_valid_file(path):
            return has_file_allowed_extension(path, extensions)

    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        class_index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_index))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty:
        msg = "Found no valid file for the classes %s. " % ", ".join(sorted(empty))
        if extensions is not None:
            msg += "Supported extensions are: %s" % (
                extensions if isinstance(extensions, str) else ", ".join(extensions)
            )
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """Samples in root/<class>/<file>, loaded by loader(path). Attributes: classes, class_to_idx, samples
    [(path, class index)], targets."""

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None, is_valid_file=None):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if not os.path.isdir(self.root):
            raise FileNotFoundError("%s: root %s is not a directory" % (type(self).__name__, self.root))
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions, is_valid_file=is_valid_file)

    def find_classes(self, directory):
        return find_classes(directory)

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(DatasetFolder):
    """Images in root/<class>/<file> with torchvision's IMG_EXTENSIONS; dataset[i] is (the transform of the image
    default_loader gives: an RGB PIL image with Pillow, else a uint8 [H, W, 3] array, class index)."""

    def __init__(self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None):
        super().__init__(
            root,
            loader,
            IMG_EXTENSIONS if is_valid_file is None else None,
            transform=transform,
            target_transform=target_transform,
            is_valid_file=is_valid_file,
        )
        self.imgs = self.samples
