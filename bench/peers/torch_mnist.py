# PyTorch side of bench/peers' mnist suite: seed 003's CNN (the PyTorch examples' MNIST
# script: conv 1->32 3x3, ReLU, conv 32->64 3x3, ReLU, max-pool 2, dropout 0.25, fc
# 9216->128, ReLU, dropout 0.5, fc 128->10, log-softmax), Adadelta with lr 1.0, StepLR gamma
# 0.7 per epoch, batches of 64 from a reshuffled training set, the same images as sumac's.
#
# usage: python3 torch_mnist.py DIR THREADS SEED
# DIR holds train.u8 / train.lbl / test.u8 / test.lbl (raw 28x28 bytes and label bytes,
# written by the Go parent). Commands on stdin, one per line, each answered by one JSON
# line on stdout: "epoch" trains one epoch ({"seconds", "loss"}), "test" evaluates
# ({"accuracy", "loss"}), "info" ({"torch", "threads", "mkldnn"}).
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def load(d, name):
    raw = open(os.path.join(d, name + ".u8"), "rb").read()
    lbl = open(os.path.join(d, name + ".lbl"), "rb").read()
    x = torch.frombuffer(bytearray(raw), dtype=torch.uint8).float().div_(255)
    x = x.sub_(0.1307).div_(0.3081).view(-1, 1, 28, 28)
    y = torch.frombuffer(bytearray(lbl), dtype=torch.uint8).long()
    return x, y


def main():
    d, threads, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(seed)
    xtr, ytr = load(d, "train")
    xte, yte = load(d, "test")
    model = Net()
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
    batch = 64
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "info":
            out = {"torch": torch.__version__, "threads": torch.get_num_threads(),
                   "mkldnn": torch.backends.mkldnn.is_available()}
        elif cmd == "epoch":
            model.train()
            t0 = time.perf_counter()
            perm = torch.randperm(len(ytr))
            total = 0.0
            for i in range(0, len(ytr), batch):
                idx = perm[i:i + batch]
                opt.zero_grad()
                loss = F.nll_loss(model(xtr[idx]), ytr[idx])
                loss.backward()
                opt.step()
                total += loss.item() * len(idx)
            sched.step()
            out = {"seconds": time.perf_counter() - t0, "loss": total / len(ytr)}
        elif cmd == "test":
            model.eval()
            correct, total = 0, 0.0
            with torch.no_grad():
                for i in range(0, len(yte), 1000):
                    out_ = model(xte[i:i + 1000])
                    total += F.nll_loss(out_, yte[i:i + 1000], reduction="sum").item()
                    correct += (out_.argmax(1) == yte[i:i + 1000]).sum().item()
            out = {"accuracy": correct / len(yte), "loss": total / len(yte)}
        else:
            out = {"err": "unknown command " + cmd}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
