#!/usr/bin/python3
"""Generates src/tetrad/sched/model_zoo_{resnet,vision,bert,sequence}.cc, the layer
tables of the model zoo (sched/model_zoo.h), and model_zoo_tables.cc, their index, from
the reference module definitions.

Vision models come from Debian's python3-torchvision (resnet50, resnet101, vgg16,
inception_v3 with its auxiliary classifier), or, where it is not installed, from
scripts/zoo_vision.py (the same definitions in plain PyTorch, same names and counts); resnet18-cifar is the CIFAR ResNet-18 of the
PowerSGD paper's code (github.com/epfml/powersgd, paper-code/tasks/cifar_architectures:
3x3 stem, no max-pool); the language models are plain PyTorch modules written here after
their reference definitions (BERT: Devlin et al. 2019 / Hugging Face BertModel with the
pooler; GPT-2 small: Radford et al. 2019, LM head tied to the token embedding; lstm: the
PowerSGD paper's language model, github.com/epfml/powersgd paper-code/tasks/
language_modeling: 3 LSTM layers, 650 hidden units, embedding 650 tied with the decoder,
WikiText-2 vocabulary as PyTorch's word_language_model example builds it, 33,278 tokens).

Per layer (a module owning parameters, in registration order) it records the tensors'
names and shapes and the forward FLOPs per sample, measured by forward hooks on a batch
of one: 2 per multiply-add of convolutions, linear layers (a tied linear layer's FLOPs
go to the layer that owns its weight), LSTM gates and the attention products (QK^T and
AV, charged to the attention's output projection); 4 per output element of BatchNorm;
LayerNorm, embeddings, activations and pooling count 0. Sequence models record
FLOPs = c0 + c1 L + c2 L^2 per sequence of L tokens, fitted exactly from L = 4, 8, 16.

Run: /usr/bin/python3 scripts/gen_model_zoo.py [FOLDER]   (default src/tetrad/sched)
"""
import math
import re
import sys

import torch
from torch import nn


# --- language models -------------------------------------------------------------------
class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        b, l, d = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        split = lambda t: t.view(b, l, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.heads), -1)
        out = (a @ v).transpose(1, 2).reshape(b, l, d)
        ATTENTION[0] += 4.0 * l * l * d  # QK^T and AV, 2 FLOPs per multiply-add
        return out


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.attention = nn.Module()
        self.attention.self = SelfAttention(d, heads)
        self.attention.output = nn.Module()
        self.attention.output.dense = nn.Linear(d, d)
        self.attention.output.LayerNorm = nn.LayerNorm(d)
        self.intermediate = nn.Module()
        self.intermediate.dense = nn.Linear(d, ff)
        self.output = nn.Module()
        self.output.dense = nn.Linear(ff, d)
        self.output.LayerNorm = nn.LayerNorm(d)

    def forward(self, x):
        before = ATTENTION[0]
        a = self.attention.output.dense(self.attention.self(x))
        PENDING.append((self.attention.output.dense, ATTENTION[0] - before))
        x = self.attention.output.LayerNorm(x + a)
        h = torch.nn.functional.gelu(self.intermediate.dense(x))
        return self.output.LayerNorm(x + self.output.dense(h))


class Bert(nn.Module):
    def __init__(self, d, layers, heads, vocab=30522, positions=512):
        super().__init__()
        self.embeddings = nn.Module()
        self.embeddings.word_embeddings = nn.Embedding(vocab, d)
        self.embeddings.position_embeddings = nn.Embedding(positions, d)
        self.embeddings.token_type_embeddings = nn.Embedding(2, d)
        self.embeddings.LayerNorm = nn.LayerNorm(d)
        self.encoder = nn.Module()
        self.encoder.layer = nn.ModuleList(BertLayer(d, heads, 4 * d) for _ in range(layers))
        self.pooler = nn.Module()
        self.pooler.dense = nn.Linear(d, d)

    def forward(self, ids):
        e = self.embeddings
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = e.LayerNorm(e.word_embeddings(ids) + e.position_embeddings(pos) +
                        e.token_type_embeddings(torch.zeros_like(ids)))
        for layer in self.encoder.layer:
            x = layer(x)
        return torch.tanh(self.pooler.dense(x[:, 0]))


class Gpt2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(d, 3 * d)
        self.attn.c_proj = nn.Linear(d, d)
        self.attn.heads = heads
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(d, 4 * d)
        self.mlp.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        b, l, d = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(d, -1)
        split = lambda t: t.view(b, l, self.attn.heads, -1).transpose(1, 2)
        a = torch.softmax(split(q) @ split(k).transpose(-1, -2), -1) @ split(v)
        PENDING.append((self.attn.c_proj, 4.0 * l * l * d))
        x = x + self.attn.c_proj(a.transpose(1, 2).reshape(b, l, d))
        return x + self.mlp.c_proj(torch.nn.functional.gelu(self.mlp.c_fc(self.ln_2(x))))


class Gpt2(nn.Module):
    def __init__(self, d=768, layers=12, heads=12, vocab=50257, positions=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(positions, d)
        self.h = nn.ModuleList(Gpt2Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]).unsqueeze(0))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class LstmLm(nn.Module):
    def __init__(self, vocab=33278, d=650, layers=3):
        super().__init__()
        self.encoder = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, layers)
        self.decoder = nn.Linear(d, vocab)
        self.decoder.weight = self.encoder.weight

    def forward(self, ids):
        out, _ = self.rnn(self.encoder(ids.t()))
        return self.decoder(out)


# --- CIFAR ResNet-18 (PowerSGD's code) -------------------------------------------------
class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class ResNet18Cifar(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        cin, stages = 64, []
        for i, (cout, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)]):
            blocks = [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
            setattr(self, f"layer{i + 1}", nn.Sequential(*blocks))
        self.linear = nn.Linear(512, classes)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.linear(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


ATTENTION = [0.0]
PENDING = []  # (module, extra FLOPs) of the attention products


# --- measurement -----------------------------------------------------------------------
def layers_of(model):
    """[(name, [(tensor name, shape)], module)] in registration order; nn.LSTM split per layer."""
    out, owner = [], {}
    for path, module in model.named_modules():
        own = [(n, p) for n, p in module.named_parameters(recurse=False) if id(p) not in owner]
        if not own:
            continue
        if isinstance(module, nn.LSTM):
            for k in range(module.num_layers):
                mine = [(n, p) for n, p in own if n.endswith(f"_l{k}")]
                out.append((f"{path}.l{k}", [(f"{path}.{n}", tuple(p.shape)) for n, p in mine], module))
                for _, p in mine:
                    owner[id(p)] = len(out) - 1
            continue
        out.append((path, [(f"{path}.{n}", tuple(p.shape)) for n, p in own], module))
        for _, p in own:
            owner[id(p)] = len(out) - 1
    return out, owner


def measure(model, x, layers, owner):
    """Forward FLOPs per layer for input x (batch 1)."""
    flops = [0.0] * len(layers)
    index = {id(m): i for i, (_, _, m) in enumerate(layers) if not isinstance(m, nn.LSTM)}

    def target(m):
        if id(m) in index:
            return index[id(m)]
        return owner.get(id(getattr(m, "weight", None)))

    def hook(m, inputs, output):
        i = target(m)
        if i is None:
            return
        if isinstance(m, nn.Conv2d):
            flops[i] += 2.0 * m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1] * output.numel()
        elif isinstance(m, nn.Linear):
            flops[i] += 2.0 * m.in_features * output.numel()
        elif isinstance(m, nn.BatchNorm2d):
            flops[i] += 4.0 * output.numel()

    def lstm_hook(m, inputs, output):
        steps = inputs[0].shape[0]
        for k in range(m.num_layers):
            i = index_lstm[(id(m), k)]
            cin = m.input_size if k == 0 else m.hidden_size
            flops[i] += 2.0 * 4 * m.hidden_size * (cin + m.hidden_size) * steps

    index_lstm = {}
    for i, (name, _, m) in enumerate(layers):
        if isinstance(m, nn.LSTM):
            index_lstm[(id(m), int(name.rsplit(".l", 1)[1]))] = i
    handles = []
    for m in model.modules():
        if isinstance(m, nn.LSTM):
            handles.append(m.register_forward_hook(lstm_hook))
        else:
            handles.append(m.register_forward_hook(hook))
    PENDING.clear()
    with torch.no_grad():
        model.eval()
        model(x)
    for m, extra in PENDING:
        flops[index[id(m)]] += extra
    for h in handles:
        h.remove()
    return flops


def stage_of(name):
    if re.search(r"\.l\d+$", name):  # one layer of a multi-layer LSTM
        return name
    parts = name.split(".")
    for i, p in enumerate(parts):
        if p.isdigit():
            return ".".join(parts[: i + 1])
    return parts[0]


def vision(name, model, size):
    layers, owner = layers_of(model)
    flops = measure(model, torch.zeros(1, 3, size, size), layers, owner)
    return name, layers, [(f, 0.0, 0.0) for f in flops], 0


def language(name, model, default_seq):
    layers, owner = layers_of(model)
    at = {}
    for l in (4, 8, 16):
        at[l] = measure(model, torch.zeros(1, l, dtype=torch.long), layers, owner)
    coeffs = []
    for i in range(len(layers)):
        f4, f8, f16 = at[4][i], at[8][i], at[16][i]
        # f(L) = c0 + c1 L + c2 L^2 through three points.
        c2 = ((f16 - f8) / 8 - (f8 - f4) / 4) / 12
        c1 = (f8 - f4) / 4 - 12 * c2
        c0 = f4 - 4 * c1 - 16 * c2
        coeffs.append((round(c0), round(c1), round(c2)))
    return name, layers, coeffs, default_seq


def models():
    if "--no-vision" not in sys.argv:
        yield from vision_models()
    yield from language_models()


def vision_models():
    try:
        import torchvision.models as tv
        inception = lambda: tv.inception_v3(aux_logits=True, init_weights=False)
    except ImportError:  # the same definitions in plain PyTorch (zoo_vision.py)
        import zoo_vision as tv
        inception = tv.inception_v3
    yield vision("resnet50", tv.resnet50(), 224)
    yield vision("resnet101", tv.resnet101(), 224)
    yield vision("vgg16", tv.vgg16(), 224)
    yield vision("inception3", inception(), 299)
    yield vision("resnet18-cifar", ResNet18Cifar(), 32)


def language_models():
    yield language("bert-base", Bert(768, 12, 12), 128)
    yield language("bert-large", Bert(1024, 24, 16), 128)
    yield language("gpt2", Gpt2(), 1024)
    yield language("lstm", LstmLm(), 30)


# The generated files, one per family (each under the 400-line rule), and the
# models of each.
FAMILIES = {
    "resnet": ["resnet50", "resnet101", "resnet18-cifar"],
    "vision": ["vgg16", "inception3"],
    "bert": ["bert-base", "bert-large"],
    "sequence": ["gpt2", "lstm"],
}
HEADER = ("// Generated by scripts/gen_model_zoo.py from the reference module definitions\n"
          "// (its docstring says which); do not edit. {what}\n"
          "// clang-format off\n"
          "#include \"tetrad/sched/model_zoo_rows.h\"\n\nnamespace tetrad::sched::zoo {{\n\n")
FOOTER = "}  // namespace tetrad::sched::zoo\n"


def ident_of(name):
    return "k" + re.sub(r"(^|-)(\w)", lambda m: m.group(2).upper(), name.replace("-", "_")).replace("_", "")


def family_ident(family):
    return "k" + family.capitalize() + "Tables"


def emit_model(out, name, layers, coeffs):
    """Writes one model's rows; returns its parameter count."""
    ident = ident_of(name)
    params = 0
    out.write(f"const ZooRow {ident}[] = {{\n")
    for (lname, tensors, module), (c0, c1, c2) in zip(layers, coeffs):
        spec = ";".join(f"{t}=" + "x".join(str(d) for d in shape) for t, shape in tensors)
        params += sum(math.prod(s) for _, s in tensors)
        bn = "true" if isinstance(module, nn.BatchNorm2d) else "false"
        out.write(f'    {{"{lname}", "{stage_of(lname)}", "{spec}", {c0:.17g}, {c1:.17g}, {c2:.17g}, {bn}}},\n')
    out.write("};\n\n")
    return params


def emit(folder):
    """Writes model_zoo_FAMILY.cc for every family with a model and model_zoo_tables.cc,
    the index of the families, into `folder`."""
    built = {name: (layers, coeffs, seq) for name, layers, coeffs, seq in models()}
    written = []
    for family, names in FAMILIES.items():
        names = [n for n in names if n in built]
        if not names:
            continue
        with open(f"{folder}/model_zoo_{family}.cc", "w") as out:
            out.write(HEADER.format(what="Rows: layer, stage, tensors (name=d0xd1..;...),\n"
                                         "// forward FLOPs per sample c0 + c1 L + c2 L^2, BatchNorm."))
            tables = family_ident(family)
            out.write(f"extern const ZooTable {tables}[];\nextern const size_t {tables[:-6]}TableCount;\n\n")
            rows = []
            for name in names:
                layers, coeffs, seq = built[name]
                params = emit_model(out, name, layers, coeffs)
                rows.append((name, ident_of(name), params, seq))
                print(f"{name}: {params} parameters", file=sys.stderr)
            out.write(f"const ZooTable {tables}[] = {{\n")
            for name, ident, params, seq in rows:
                out.write(f'    {{"{name}", {ident}, std::size({ident}), {params}u, {seq}}},\n')
            out.write(f"}};\nconst size_t {tables[:-6]}TableCount = std::size({tables});\n\n" + FOOTER)
        written.append(family)
    with open(f"{folder}/model_zoo_tables.cc", "w") as out:
        out.write(HEADER.format(what="The model zoo's families, each\n"
                                     "// in model_zoo_FAMILY.cc."))
        for family in written:
            tables = family_ident(family)
            out.write(f"extern const ZooTable {tables}[];\nextern const size_t {tables[:-6]}TableCount;\n")
        out.write("\nconst ZooFamily kZooFamilies[] = {\n")
        for family in written:
            tables = family_ident(family)
            out.write(f'    {{"{family}", {tables}, &{tables[:-6]}TableCount}},\n')
        out.write("};\nconst size_t kZooFamilyCount = std::size(kZooFamilies);\n\n" + FOOTER)


if __name__ == "__main__":
    torch.manual_seed(0)
    emit(next((a for a in sys.argv[1:] if not a.startswith("--")), "src/tetrad/sched"))
