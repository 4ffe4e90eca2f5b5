"""ConvertBoundingBoxFormat, ClampBoundingBoxes, ClampKeyPoints, SetClampingMode (transforms.v2)."""

from ... import tv_tensors
from . import functional as F
from ._transform import Transform

__all__ = ["ConvertBoundingBoxFormat", "ClampBoundingBoxes", "ClampKeyPoints", "SetClampingMode"]


class ConvertBoundingBoxFormat(Transform):
    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, format):
        super().__init__()
        self.format = tv_tensors._format(format)

    def transform(self, inpt, params):
        return F.convert_bounding_box_format(inpt, new_format=self.format)


class ClampBoundingBoxes(Transform):
    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode="auto"):
        super().__init__()
        self.clamping_mode = clamping_mode

    def transform(self, inpt, params):
        return F.clamp_bounding_boxes(inpt, clamping_mode=self.clamping_mode)


class ClampKeyPoints(Transform):
    _transformed_types = (tv_tensors.KeyPoints,)

    def transform(self, inpt, params):
        return F.clamp_keypoints(inpt)


class SetClampingMode(Transform):
    """Sets the clamping_mode of the sample's BoundingBoxes."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode):
        super().__init__()
        if clamping_mode not in (None, "soft", "hard"):
            raise ValueError("clamping_mode must be soft, hard or None, got %s" % (clamping_mode,))
        self.clamping_mode = clamping_mode

    def transform(self, inpt, params):
        out = inpt.clone()
        out.clamping_mode = self.clamping_mode
        return out
