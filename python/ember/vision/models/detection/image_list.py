"""ImageList: a batch of padded images and their sizes before padding (torchvision.models.detection.image_list)."""

__all__ = ["ImageList"]


class ImageList:
    """tensors: the padded batch [N, C, H, W]; image_sizes: each image's (height, width) before padding."""

    def __init__(self, tensors, image_sizes):
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device):
        return ImageList(self.tensors.to(device), self.image_sizes)
