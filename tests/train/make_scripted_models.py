#!/usr/bin/python3
"""Writes the TorchScript models the scripted-model tests train.

  make_scripted_models.py DIR

DIR/cnn.pt      the built-in cnn's layers as four top-level Sequential children
                (forward is their chain: four stages, same FLOPs as the cnn)
DIR/bn.pt       a small conv net with batch norm (running statistics are buffers)
DIR/custom.pt   a net whose forward() adds a skip connection (one stage)
DIR/wrong.pt    a net with 7 outputs (refused on a 10-class data set)
DIR/frozen.pt   a net with a parameter that does not require a gradient
DIR/not-a-module.pt   a text file
"""
import os
import sys

import torch
from torch import nn


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))
        self.conv2 = nn.Sequential(nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))
        self.fc1 = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 512), nn.ReLU())
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        return self.fc2(self.fc1(self.conv2(self.conv1(x))))


class BatchNormNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(4))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(8 * 7 * 7, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class Custom(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(784, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, classes)

    def forward(self, x):
        h = torch.relu(self.fc1(x.flatten(1)))
        return self.out(h + torch.relu(self.fc2(h)))


def save(model, path):
    # Written under a temporary name and renamed: a concurrent reader sees
    # the whole file or none.
    torch.jit.script(model).save(path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(7)
    save(Cnn(), os.path.join(out, "cnn.pt"))
    torch.manual_seed(7)
    save(BatchNormNet(), os.path.join(out, "bn.pt"))
    torch.manual_seed(7)
    save(Custom(), os.path.join(out, "custom.pt"))
    torch.manual_seed(7)
    save(Custom(classes=7), os.path.join(out, "wrong.pt"))
    frozen = Custom()
    frozen.fc1.weight.requires_grad_(False)
    save(frozen, os.path.join(out, "frozen.pt"))
    # Written last: its presence means the folder is complete.
    with open(os.path.join(out, "not-a-module.pt.tmp"), "w") as f:
        f.write("not a TorchScript archive\n")
    os.replace(os.path.join(out, "not-a-module.pt.tmp"), os.path.join(out, "not-a-module.pt"))


if __name__ == "__main__":
    main()
