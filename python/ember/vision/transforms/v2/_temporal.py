"""UniformTemporalSubsample (transforms.v2)."""

from ... import tv_tensors
from . import functional as F
from ._transform import Transform
from .functional._utils import is_pure_tensor

__all__ = ["UniformTemporalSubsample"]


class UniformTemporalSubsample(Transform):
    """num_samples evenly spaced frames of a video ([..., T, C, H, W])."""

    _transformed_types = (is_pure_tensor, tv_tensors.Video)

    def __init__(self, num_samples):
        super().__init__()
        self.num_samples = num_samples

    def transform(self, inpt, params):
        return self._call_kernel(F.uniform_temporal_subsample, inpt, self.num_samples)
