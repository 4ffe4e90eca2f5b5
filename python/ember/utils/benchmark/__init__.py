"""ember.utils.benchmark, as torch.utils.benchmark: Timer, Measurement, Compare."""

from ember.utils.benchmark import utils  # noqa: F401
from ember.utils.benchmark.utils.common import *  # noqa: F401,F403
from ember.utils.benchmark.utils.compare import *  # noqa: F401,F403
from ember.utils.benchmark.utils.timer import *  # noqa: F401,F403
