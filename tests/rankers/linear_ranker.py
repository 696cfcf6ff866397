"""A small external ranker for the tests (kind: command): ridge regression of labels on features.

    python tests/rankers/linear_ranker.py TRAIN VALI TEST OUT [--seed S] [--alpha A]

Reads LETOR text with its own few lines of parsing (no ltrbv), writes one score per line of TEST.
The seed jitters nothing but the ridge penalty a little, so a test can see that {seed} arrives.
"""

import argparse

import numpy as np


def read(path):
    labels, rows = [], []
    with open(path) as handle:
        for line in handle:
            tokens = line.split("#", 1)[0].split()
            if not tokens:
                continue
            labels.append(float(tokens[0]))
            rows.append([float(token.split(":", 1)[1]) for token in tokens[2:]])
    return np.array(rows), np.array(labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("train")
    parser.add_argument("vali")
    parser.add_argument("test")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=1.0)
    args = parser.parse_args()
    X, y = read(args.train)
    alpha = args.alpha * (1.0 + (args.seed % 7) / 100.0)
    mean = X.mean(axis=0)
    Xc = X - mean
    w = np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T @ (y - y.mean()))
    T, _ = read(args.test)
    np.savetxt(args.out, (T - mean) @ w, fmt="%.17g")
    print(f"trained on {len(y)} documents")


if __name__ == "__main__":
    main()
