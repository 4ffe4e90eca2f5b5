"""LeNet-5 (LeCun et al., 1998), in its common modern form: ReLU and max pooling instead of the original's scaled
tanh and trainable subsampling. torchvision has no LeNet; the state_dict keys are ember's own:

    conv1.weight [6, in_channels, 5, 5]   conv1.bias [6]
    conv2.weight [16, 6, 5, 5]            conv2.bias [16]
    fc1.weight   [120, 400]               fc1.bias   [120]
    fc2.weight   [84, 120]                fc2.bias   [84]
    fc3.weight   [num_classes, 84]        fc3.bias   [num_classes]

61,706 parameters for 1 input channel and 10 classes. Inputs are 28x28 (MNIST; conv1 pads by 2, which makes the
paper's 32x32) or, with padding=0, 32x32.
"""

from ... import nn
from ._api import ClassifierMixin, _resolve, register_model

__all__ = ["LeNet", "lenet"]


class LeNet(ClassifierMixin, nn.Module):
    def __init__(self, num_classes=10, in_channels=1, padding=2):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 6, kernel_size=5, padding=padding)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        if x.shape[-2:] != (5, 5):
            raise ValueError(
                "LeNet expects 28x28 inputs (padding=2) or 32x32 (padding=0); the features are %s, not "
                "5x5" % (list(x.shape[-2:]),)
            )
        x = x.flatten(1)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


@register_model()
def lenet(*, weights=None, progress=True, **kwargs):
    """LeNet-5 (see the module's docstring for its state_dict keys)."""
    _, kwargs = _resolve("lenet", weights, kwargs)  # torchvision has no LeNet weights: only None passes
    return LeNet(**kwargs)
