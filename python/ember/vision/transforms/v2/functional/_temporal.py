"""uniform_temporal_subsample (transforms.v2.functional)."""

import ember

from .... import tv_tensors
from ._utils import _dispatch, _register

__all__ = ["uniform_temporal_subsample"]


@_dispatch
def uniform_temporal_subsample(inpt, num_samples):
    """num_samples frames (dim -4) at evenly spaced indices, first and last included."""


def uniform_temporal_subsample_video(video, num_samples):
    t = video.shape[-4]
    if num_samples < 1:
        raise ValueError("num_samples should be a positive integer, got %s" % (num_samples,))
    idx = ember.linspace(0, t - 1, num_samples, device=video.device).to(ember.int64)
    return video.index_select(-4, idx)


for _t in (ember.Tensor, tv_tensors.Video):
    _register(uniform_temporal_subsample, _t)(uniform_temporal_subsample_video)
