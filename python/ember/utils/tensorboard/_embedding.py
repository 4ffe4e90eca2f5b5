"""Files of the embedding projector: tensors.tsv, metadata.tsv, sprite.png and projector_config.pbtxt."""

import math
import os

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ._convert import encode_png, make_grid, make_np, to_uint8


def write_tensors(mat, save_path):
    """One row per data point, tab-separated, each value written as its shortest round-trip decimal."""
    np.savetxt(os.path.join(save_path, "tensors.tsv"), mat, fmt="%s", delimiter="\t")


def write_metadata(metadata, save_path, metadata_header=None):
    if metadata_header:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
    else:
        lines = [str(x) for x in metadata]
    with open(os.path.join(save_path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(label_img, save_path):
    """The label images tiled into a square sprite (the projector needs rows == columns)."""
    images = make_np(label_img)
    side = int(math.ceil(images.shape[0] ** 0.5))
    grid = make_grid(images, ncols=side).transpose(1, 2, 0)  # HWC, width = side * W
    gh, gw, c = grid.shape
    square = np.zeros((max(gh, gw), max(gh, gw), c), dtype=grid.dtype)
    square[:gh, :gw] = grid
    with open(os.path.join(save_path, "sprite.png"), "wb") as f:
        f.write(encode_png(to_uint8(square)))


def embedding_info(metadata, label_img, subdir, global_step, tag):
    info = EmbeddingInfo()
    info.tensor_name = "{}:{}".format(tag, str(global_step).zfill(5))
    info.tensor_path = subdir + "/tensors.tsv"
    if metadata is not None:
        info.metadata_path = subdir + "/metadata.tsv"
    if label_img is not None:
        info.sprite.image_path = subdir + "/sprite.png"
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info
