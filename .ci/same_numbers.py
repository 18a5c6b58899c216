"""The main jobs print the same numbers under two Python environments (e.g. numpy's oldest supported 1.x and
its newest 2.x): the quickstart MLP for one epoch, the CNN job on a cut of the data, and the char-level
showcase for a few hundred steps. Everything a job prints on stdout must be equal, line for line.

    python .ci/same_numbers.py PYTHON_A PYTHON_B [--data-root ../shared/datasets]

Exits 1 with a diff when they differ. Each job runs in a temporary folder, so nothing lands in the checkout.

The matrix products are numpy's BLAS, bundled in numpy's wheel: numpy 1.24 ships OpenBLAS 0.3.21, numpy 2.4
OpenBLAS 0.3.31, and on some CPUs their kernels round a long dot product differently (PyTorch's own results
move with its BLAS in the same way). So before comparing, a probe multiplies the jobs' matrix shapes under
both: where the two BLAS agree, the jobs must print the same text; where they do not, the difference is the
BLAS's, said so, and each printed number must still agree to 1e-3 relative."""
from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jobs(data_root: str) -> dict:
    train = [os.path.join(REPO, "train_fashion_mnist.py"), "--data-root", data_root, "--no-download",
             "--no-progress", "--epochs", "1", "--save", "model.pth", "--checkpoint", "checkpoint.pth"]
    return {
        "quickstart MLP, 1 epoch": train,
        "CNN, 1 epoch of 2048 images": train + ["--model", "cnn", "--limit", "2048"],
        "char-level transformer, 300 steps": [os.path.join(REPO, "examples", "char_lm.py"), "--steps", "300",
                                              "--eval-every", "150", "--print-every", "50", "--no-progress"],
        "char-level LSTM, 200 steps": [os.path.join(REPO, "examples", "char_lm.py"), "--model", "lstm",
                                       "--steps", "200", "--eval-every", "100", "--print-every", "50",
                                       "--no-progress"],
    }


# float32 products of the shapes the jobs multiply (the CNN's 9216-long rows among them), hashed
_BLAS_PROBE = """
import hashlib, numpy as np
rng = np.random.default_rng(0)
h = hashlib.sha256()
for m, k, n in ((64, 784, 512), (64, 512, 512), (64, 9216, 128), (128, 64, 9216), (9216, 64, 128), (32, 288, 128)):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    h.update((a @ b).tobytes()); h.update((a.T.copy().T @ b).tobytes())
print(h.hexdigest())
"""


def blas_fingerprint(python: str) -> str:
    return subprocess.run([python, "-c", _BLAS_PROBE], capture_output=True, text=True, check=True).stdout.strip()


def numbers_close(a: str, b: str, rtol: float = 1e-3) -> bool:
    """The same text once the numbers are taken out, and every number within rtol of its counterpart."""
    pattern = r"-?\d+\.\d+(?:e[-+]?\d+)?"
    if re.sub(pattern, "#", a) != re.sub(pattern, "#", b):
        return False
    return all(abs(float(x) - float(y)) <= rtol * max(abs(float(x)), abs(float(y)), 1e-12)
               for x, y in zip(re.findall(pattern, a), re.findall(pattern, b)))


def run(python: str, argv: list) -> str:
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([python, *argv], cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{python} {' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("python_a")
    p.add_argument("python_b")
    p.add_argument("--data-root", default=os.path.join(os.path.dirname(REPO), "shared", "datasets"))
    args = p.parse_args()
    versions = {py: subprocess.run([py, "-c", "import sys, numpy; print(sys.version.split()[0], numpy.__version__)"],
                                   capture_output=True, text=True).stdout.split() for py in (args.python_a, args.python_b)}
    label = {py: f"Python {v[0]} + numpy {v[1]}" if len(v) == 2 else py for py, v in versions.items()}
    same_blas = blas_fingerprint(args.python_a) == blas_fingerprint(args.python_b)
    print(f"the two numpys' BLAS give {'the same' if same_blas else 'different'} float32 products", flush=True)
    bad = 0
    pool = ThreadPoolExecutor(2)  # each job under both Pythons at once (two processes: two cores' worth of work)
    for name, argv in jobs(os.path.abspath(args.data_root)).items():
        a, b = pool.map(run, (args.python_a, args.python_b), (argv, argv))
        same = a == b
        verdict = "same" if same else "DIFFERENT"
        if not same and not same_blas and numbers_close(a, b):
            verdict = "different in the BLAS's rounding only (every number within 1e-3)"
        else:
            bad += not same
        print(f"{verdict}: {name} ({len(a.splitlines())} lines) under "
              f"{label[args.python_a]} and {label[args.python_b]}", flush=True)
        if not same:
            sys.stdout.writelines(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                                       label[args.python_a], label[args.python_b]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
