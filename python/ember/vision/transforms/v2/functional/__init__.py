"""ember.vision.transforms.v2.functional: torchvision 0.29's functionals. Each dispatches on its input's type: a
plain tensor or tv_tensors.Image/Video is an image, Mask, BoundingBoxes and KeyPoints have their own kernels (the
``*_image``, ``*_mask``, ``*_bounding_boxes``, ``*_keypoints`` functions), PIL images go through a uint8 tensor.
``register_kernel`` adds kernels for custom TVTensor classes."""

from ...functional import InterpolationMode  # noqa: F401
from . import _pil  # noqa: F401,E402  (Pillow's kernels for PIL images, when Pillow is installed)
from ._augment import *  # noqa: F401,F403
from ._augment import erase_image, jpeg_image, jpeg_video  # noqa: F401
from ._color import *  # noqa: F401,F403
from ._color import (  # noqa: F401
    adjust_brightness_image,
    adjust_contrast_image,
    adjust_gamma_image,
    adjust_hue_image,
    adjust_saturation_image,
    adjust_sharpness_image,
    autocontrast_image,
    equalize_image,
    grayscale_to_rgb_image,
    invert_image,
    permute_channels_image,
    posterize_image,
    rgb_to_grayscale_image,
    solarize_image,
)
from ._geometry import *  # noqa: F401,F403
from ._geometry import (  # noqa: F401
    affine_bounding_boxes,
    affine_image,
    affine_keypoints,
    affine_mask,
    affine_video,
    center_crop_bounding_boxes,
    center_crop_image,
    center_crop_keypoints,
    center_crop_mask,
    crop_bounding_boxes,
    crop_image,
    crop_keypoints,
    crop_mask,
    elastic_bounding_boxes,
    elastic_image,
    elastic_keypoints,
    elastic_mask,
    five_crop_image,
    horizontal_flip_bounding_boxes,
    horizontal_flip_image,
    horizontal_flip_keypoints,
    horizontal_flip_mask,
    pad_bounding_boxes,
    pad_image,
    pad_keypoints,
    pad_mask,
    perspective_bounding_boxes,
    perspective_image,
    perspective_keypoints,
    perspective_mask,
    resize_bounding_boxes,
    resize_image,
    resize_keypoints,
    resize_mask,
    resized_crop_bounding_boxes,
    resized_crop_image,
    resized_crop_keypoints,
    resized_crop_mask,
    rotate_bounding_boxes,
    rotate_image,
    rotate_keypoints,
    rotate_mask,
    ten_crop_image,
    vertical_flip_bounding_boxes,
    vertical_flip_image,
    vertical_flip_keypoints,
    vertical_flip_mask,
)
from ._meta import *  # noqa: F401,F403
from ._meta import _image_dims as _dims  # noqa: E402
from ._misc import *  # noqa: F401,F403
from ._misc import gaussian_blur_image, gaussian_noise_image, normalize_image, to_dtype_image  # noqa: F401
from ._temporal import *  # noqa: F401,F403
from ._type_conversion import *  # noqa: F401,F403
from ._utils import is_pure_tensor, register_kernel  # noqa: F401

# The per-type kernel names of torchvision (a video is an image with more leading dims, so they are the same kernels).
adjust_brightness_video = adjust_brightness_image  # noqa: F405
adjust_contrast_video = adjust_contrast_image
adjust_gamma_video = adjust_gamma_image
adjust_hue_video = adjust_hue_image
adjust_saturation_video = adjust_saturation_image
adjust_sharpness_video = adjust_sharpness_image
autocontrast_video = autocontrast_image
equalize_video = equalize_image
invert_video = invert_image
posterize_video = posterize_image
solarize_video = solarize_image
permute_channels_video = permute_channels_image
gaussian_blur_video = gaussian_blur_image
gaussian_noise_video = gaussian_noise_image
normalize_video = normalize_image
erase_video = erase_image
from ._geometry import (  # noqa: E402,F401
    center_crop_video,
    crop_video,
    elastic_video,
    five_crop_video,
    horizontal_flip_video,
    pad_video,
    perspective_video,
    resize_video,
    resized_crop_video,
    rotate_video,
    ten_crop_video,
    vertical_flip_video,
)
from ._misc import to_dtype_video  # noqa: E402,F401
from ._temporal import uniform_temporal_subsample_video  # noqa: E402,F401


def get_dimensions_image(image):
    return _dims(image)


def get_num_channels_image(image):
    return _dims(image)[0]


def get_size_image(image):
    return _dims(image)[1:]


get_dimensions_video, get_num_channels_video, get_size_video = (
    get_dimensions_image,
    get_num_channels_image,
    get_size_image,
)


def get_num_frames_video(video):
    return video.shape[-4]


def get_size_mask(mask):
    return list(mask.shape[-2:])


def get_size_bounding_boxes(bounding_box):
    return list(bounding_box.canvas_size)


get_size_keypoints = get_size_bounding_boxes
