"""Training and inference steps of the model families the speed issue names, written once for ember and PyTorch
(`lib` is the library module; `vision` is ember.vision.models or torchvision.models). Each entry is
(name, setup, step): `setup` builds the model, optimizer and batch; `step` runs one step."""

_TRAIN = """
loss = lib.nn.functional.cross_entropy(out(), target)
opt.zero_grad()
loss.backward()
opt.step()
"""

MLP = """
nn = lib.nn
lib.manual_seed(0)
model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
x, target = lib.randn(128, 784), lib.randint(0, 10, (128,))
out = lambda: model(x)
"""

# Neural collaborative filtering: user and item embeddings, an MLP over their concatenation, batch 1024.
NCF = """
nn = lib.nn
lib.manual_seed(0)
class NCF(nn.Module):
    def __init__(self):
        super().__init__()
        self.users, self.items = nn.Embedding(6040, 64), nn.Embedding(3706, 64)
        self.mlp = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 2))
    def forward(self, u, i):
        return self.mlp(lib.cat([self.users(u), self.items(i)], 1))
model = NCF()
opt = lib.optim.Adam(model.parameters(), lr=1e-3)
u, i, target = lib.randint(0, 6040, (1024,)), lib.randint(0, 3706, (1024,)), lib.randint(0, 2, (1024,))
out = lambda: model(u, i)
"""

# The small CNN of the demo (examples/python/fashion_mnist.py) at batch 64.
CNN = """
nn = lib.nn
lib.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(inplace=True), nn.Linear(128, 10))
opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
x, target = lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,))
out = lambda: model(x)
"""

# A small GPT: 4 pre-norm layers, 256 wide, 4 heads, causal, sequence 128, batch 8, vocabulary 1000.
GPT = """
nn = lib.nn
lib.manual_seed(0)
class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(1000, 256), nn.Embedding(128, 256)
        layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.norm, self.head = nn.LayerNorm(256), nn.Linear(256, 1000)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(128))
    def forward(self, idx):
        h = self.tok(idx) + self.pos.weight
        return self.head(self.norm(self.blocks(h, mask=self.mask, is_causal=True)))
model = GPT()
opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
idx, target = lib.randint(0, 1000, (8, 128)), lib.randint(0, 1000, (8 * 128,))
out = lambda: model(idx).reshape(-1, 1000)
"""

# A 2-layer LSTM language model (word_language_model's shape): 256 wide, sequence 35, batch 20, 10k words.
LSTM = """
nn = lib.nn
lib.manual_seed(0)
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.rnn, self.head = nn.Embedding(10000, 256), nn.LSTM(256, 256, 2), nn.Linear(256, 10000)
    def forward(self, x):
        return self.head(self.rnn(self.emb(x))[0])
model = LM()
opt = lib.optim.SGD(model.parameters(), lr=0.1)
x, target = lib.randint(0, 10000, (35, 20)), lib.randint(0, 10000, (35 * 20,))
out = lambda: model(x).reshape(-1, 10000)
"""

RESNET18 = """
lib.manual_seed(0)
model = vision.resnet18(num_classes=10)
opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x, target = lib.randn(32, 3, 32, 32), lib.randint(0, 10, (32,))
out = lambda: model(x)
"""

_EVAL = "with lib.no_grad():\n    model(x)"
_EVAL_SETUP = """
lib.manual_seed(0)
model = vision.{}().eval()
x = lib.randn(1, 3, {size}, {size})
"""

TRAIN_STEPS = [
    ("MLP train b128", MLP, _TRAIN),
    ("NCF train b1024", NCF, _TRAIN),
    ("CNN train b64", CNN, _TRAIN),
    ("GPT train 4x256 s128 b8", GPT, _TRAIN),
    ("LSTM LM train s35 b20", LSTM, _TRAIN),
    ("ResNet-18 CIFAR train b32", RESNET18, _TRAIN),
]

INFERENCE_STEPS = [
    ("ResNet-18 CIFAR eval b1", RESNET18.replace("(32, 3", "(1, 3") + "model.eval()", _EVAL),
    ("ResNet-50 eval b1 224", _EVAL_SETUP.format("resnet50", size=224), _EVAL),
    ("MobileNetV3-L eval b1 224", _EVAL_SETUP.format("mobilenet_v3_large", size=224), _EVAL),
]


def namespace(lib_name):
    """The globals a step's setup expects: lib and the vision model zoo of the same library."""
    lib = __import__(lib_name)
    if lib_name == "torch":
        import torchvision.models as vision
    else:
        import ember.vision.models as vision
    return {"lib": lib, "vision": vision}
