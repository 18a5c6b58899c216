"""A long run of the random view/in-place programs, outside pytest: ``python tests/autograd/fuzz_views.py N``
runs N seeded programs through each of the two generators (the observing one of
``test_autograd_views_property.py`` and the larger vocabulary of ``test_autograd_inplace_rules.py``) on
PyTorch and on tinytorch, and sorts every disagreement by kind:

- tt-accepts: PyTorch refuses a step that tinytorch runs;
- tt-refuses: tinytorch refuses a step that PyTorch runs;
- after-refusal-state: both refuse a step, with another error or another state left behind;
- other: values, flags, versions or gradients differ.

Overlapping writes (which PyTorch leaves undefined) end a program's comparison, as in the tests, and a
program whose in-place step reads a tensor that partly overlaps the one it writes is counted apart. It prints the
counts and the first programs of each kind; the pytest suite runs the same generators on fewer programs."""
from __future__ import annotations

import os
import random
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tinytorch  # noqa: E402
import test_autograd_inplace_rules as more  # noqa: E402
import test_autograd_views_property as base  # noqa: E402


def _program(rng: random.Random, names: list) -> list:
    return [(rng.choice(names), rng.randint(0, 40), rng.randint(0, 40), rng.randint(0, 40))
            for _ in range(rng.randint(1, 10))]


def _is_error(row) -> bool:
    return (len(row) == 2 and isinstance(row[1], tuple) and row[1][:1] == ("raised",)) or \
        (len(row) == 4 and isinstance(row[1], str))


def _writes_through_an_alias(program: list) -> bool:
    """Whether an in-place step of the larger vocabulary reads another tensor that partly overlaps the one it
    writes (PyTorch's result then depends on its loop order; numpy reads a copy)."""
    w = tinytorch.tensor(base.W0, dtype=tinytorch.float64, requires_grad=True)
    c = tinytorch.tensor(1.5, dtype=tinytorch.float64, requires_grad=True)
    env = [w, w * 1, tinytorch.tensor(base.P0, dtype=tinytorch.float64)]
    for name, i, a, b in program:
        t = env[i % len(env)]
        if t.dim() < more.NEEDS_DIMS.get(name, 0) or 0 in t.shape:
            continue
        try:
            if name in ("sub_t", "mul_t", "copy_t"):
                x, y = t._data, more._other(env, t, b)._data
                if np.shares_memory(x, y) and not (x.__array_interface__ == y.__array_interface__):
                    return True
            out = more.WITH_OTHER[name](tinytorch, env, t, a, b, c) if name in more.WITH_OTHER else \
                more.OPS[name](tinytorch, t, a, b, c)
        except Exception:  # noqa: BLE001  (a refused step: the program goes on, as in run)
            continue
        if out is not t:
            env.append(out)
    return False


def classify(expected: list, got: list) -> str | None:
    if expected and expected[-1] == ("overlap",) or got and got[-1] == ("overlap",):
        n = min(len(expected), len(got)) - 1
        expected, got = expected[:n], got[:n]
    for rows in (expected, got):  # a write through an expanded view in backward: which node fails first is
        if rows and rows[-1][0] == "backward" and more._OVERLAP in str(rows[-1]):  # PyTorch's sequence order
            expected, got = expected[:-1], got[:-1]
            break
    for e, g in zip(expected, got):
        if base._same(g, e):
            continue
        if e[0] == g[0] and e[0] not in ("grads", "backward"):
            ee, ge = _is_error(e), _is_error(g)
            if ee and not ge:
                return "tt-accepts"
            if ge and not ee:
                return "tt-refuses"
            if ee and ge:
                return "after-refusal-state"
        return "other"
    return None if len(expected) == len(got) else "other"


def main(n: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    generators = {"observing": (base.run, sorted(base.OPS)),
                  "more-ops": (more.run, sorted(more.OPS) + sorted(more.WITH_OTHER))}
    found: dict = {}
    for i in range(n):
        for gen, (run, names) in generators.items():
            program = _program(rng, names)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kind = classify(run(torch, program), run(tinytorch, program))
            if kind is not None and gen == "more-ops" and _writes_through_an_alias(program):
                kind = "aliased-write (set aside)"
            if kind is not None:
                found.setdefault(kind, []).append((gen, program))
        if (i + 1) % 5000 == 0:
            print(f"{i + 1} programs per generator: " + ", ".join(f"{k} {len(v)}" for k, v in found.items()),
                  flush=True)
    print(f"{n} programs per generator ({2 * n} in all), seed {seed}: " +
          (", ".join(f"{k} {len(v)}" for k, v in sorted(found.items())) or "no disagreement"))
    for kind, rows in sorted(found.items()):
        for gen, program in rows[:3]:
            print(f"  {kind} ({gen}): {program}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
