"""torchvision's ResNet-18, ResNet-50 and MobileNetV2 for the whole-model rows of python_bench.py,
written out from torchvision's definitions (torchvision is not installed) against whichever library
is passed in as `nn`, Ember's or PyTorch's, so both run the same layers in the same order."""


def _stem(nn, stem):
    if stem == "cifar":  # adapted to 32x32 inputs: a 3x3 stem, no max pooling
        return [nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True)]
    return [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, 1)]


def _downsample(nn, inplanes, planes, stride):
    return nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))


def resnet(nn, depth=18, stem="torchvision", classes=10):
    """torchvision's ResNet-18 (basic blocks) or ResNet-50 (bottlenecks, the stride on the 3x3 as in
    torchvision's v1.5); stem="cifar" adapts it to 32x32 inputs."""

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = _downsample(nn, inplanes, planes, stride)

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += x if self.downsample is None else self.downsample(x)
            return self.relu(out)

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or inplanes != planes * 4:
                self.downsample = _downsample(nn, inplanes, planes * 4, stride)

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            out += x if self.downsample is None else self.downsample(x)
            return self.relu(out)

    block, counts = {18: (BasicBlock, (2, 2, 2, 2)), 50: (Bottleneck, (3, 4, 6, 3))}[depth]
    layers, inplanes = _stem(nn, stem), 64
    for planes, count, stride in zip((64, 128, 256, 512), counts, (1, 2, 2, 2)):
        for i in range(count):
            layers.append(block(inplanes, planes, stride if i == 0 else 1))
            inplanes = planes * block.expansion
    layers += [nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(inplanes, classes)]
    return nn.Sequential(*layers)


def mobilenet_v2(nn, classes=10):
    """torchvision's MobileNetV2 (width 1.0): inverted residuals of a 1x1 expansion, a 3x3 depthwise
    convolution and a 1x1 projection, each with batch norm, ReLU6 between."""

    def conv_bn(c_in, c_out, k, stride=1, groups=1, act=True):
        layers = [nn.Conv2d(c_in, c_out, k, stride, (k - 1) // 2, groups=groups, bias=False),
                  nn.BatchNorm2d(c_out)]
        return layers + [nn.ReLU6(inplace=True)] if act else layers

    class InvertedResidual(nn.Module):
        def __init__(self, c_in, c_out, stride, expand):
            super().__init__()
            hidden = c_in * expand
            self.use_res_connect = stride == 1 and c_in == c_out
            layers = conv_bn(c_in, hidden, 1) if expand != 1 else []
            layers += conv_bn(hidden, hidden, 3, stride, groups=hidden) + conv_bn(hidden, c_out, 1, act=False)
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res_connect else self.conv(x)

    features, c = conv_bn(3, 32, 3, 2), 32
    for t, width, n, stride in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                                (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            features.append(InvertedResidual(c, width, stride if i == 0 else 1, t))
            c = width
    features += conv_bn(c, 1280, 1)
    return nn.Sequential(*features, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(1280, classes))


def tutorial_cnn(nn, classes=10):
    """pytorch/tutorials' per-sample-gradients SimpleCNN (28x28 inputs), as a Sequential: conv 1->32 and
    32->64 (3x3, ReLU), 2x2 max pooling, 9216-128-10 with a ReLU, log-softmax."""
    return nn.Sequential(nn.Conv2d(1, 32, 3, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(), nn.Linear(128, classes), nn.LogSoftmax(1))
