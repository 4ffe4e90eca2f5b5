"""ember.vision.transforms.v2: torchvision 0.29's transforms.v2 on ember tensors, tv_tensors and PIL images.

A transform takes any nesting of tuples, lists and dicts; images, videos, masks, bounding boxes and keypoints in it
are transformed together with one draw of the random parameters (docs/vision.md)."""

from ..functional import InterpolationMode  # noqa: F401
from . import functional  # noqa: F401
from ._augment import *  # noqa: F401,F403
from ._auto_augment import *  # noqa: F401,F403
from ._color import *  # noqa: F401,F403
from ._container import *  # noqa: F401,F403
from ._geometry import *  # noqa: F401,F403
from ._meta import *  # noqa: F401,F403
from ._misc import *  # noqa: F401,F403
from ._temporal import *  # noqa: F401,F403
from ._transform import (  # noqa: F401
    Transform,
    check_type,
    get_bounding_boxes,
    get_keypoints,
    has_all,
    has_any,
    query_chw,
    query_size,
)
from ._type_conversion import *  # noqa: F401,F403
