"""FakeData: random images, the same for an index every time (torchvision.datasets.FakeData)."""

import ember

from .vision import VisionDataset, _as_pil

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """size random uint8 images of image_size (C, H, W) with labels in [0, num_classes).

    Sample i comes from its own generator seeded with i + random_offset (ember's default generator is untouched),
    so it is the same in every process and epoch. The image is a PIL image with Pillow (as torchvision), else a uint8
    NumPy array [H, W, C] ([H, W] for C = 1); the values differ from torchvision's (a different generator).
    """

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        super().__init__(None, transform=transform, target_transform=target_transform)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError("size must be a non-negative int, got %r" % (size,))
        image_size = tuple(image_size)
        if len(image_size) != 3 or not all(isinstance(s, int) and s > 0 for s in image_size):
            raise ValueError("image_size must be (C, H, W) with positive ints, got %r" % (image_size,))
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError("num_classes must be a positive int, got %r" % (num_classes,))
        self.size, self.num_classes, self.image_size, self.random_offset = size, num_classes, image_size, random_offset

    def __getitem__(self, index):
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError("dataset indices must be integers, not %s" % type(index).__name__)
        index = index.__index__()
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("%s index out of range" % self.__class__.__name__)
        gen = ember.Generator()
        gen.manual_seed(index + self.random_offset)
        img = ember.randint(0, 256, self.image_size, generator=gen, dtype=ember.uint8)
        target = int(ember.randint(0, self.num_classes, (1,), generator=gen).item())
        img = img[0] if self.image_size[0] == 1 else img.permute(1, 2, 0)
        img = _as_pil(img.contiguous().numpy())
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.size
