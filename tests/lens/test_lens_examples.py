"""The lens on PyTorch and on tinytorch prints the same text for the same program: the twelve examples of
``lens_examples`` run on both, section by section (the graph before backward, the trace, the graph
after, the table).

Where the texts differ, the lens shows a real difference between tinytorch's engine and PyTorch's: each
such row is a strict xfail naming it, so that fixing tinytorch turns it into a failure to delete."""
import pytest

import tinytorch

from lens_examples import EXAMPLES

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

SECTIONS = ("show", "trace", "show after", "table")

KNOWN: dict = {}  # (example, section): reason, while tinytorch's text differs from PyTorch's


def _sections(text: str) -> dict:
    out, current = {}, None
    for line in text.split("\n"):
        if line.startswith("== "):
            current = line[3:]
            out[current] = []
        else:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


_CACHE: dict = {}


def _texts(example):
    if example.__name__ not in _CACHE:
        _CACHE[example.__name__] = (_sections(example(tinytorch)), _sections(example(torch)))
    return _CACHE[example.__name__]


CASES = []
for _example in EXAMPLES:
    for _section in SECTIONS:
        reason = KNOWN.get((_example.__name__, _section))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        CASES.append(pytest.param(_example, _section, marks=marks, id=f"{_example.__name__}-{_section}"))


@pytest.mark.parametrize("example, section", CASES)
def test_same_text_on_both_libraries(example, section):
    ours, theirs = _texts(example)
    assert set(ours) == set(SECTIONS) == set(theirs)
    assert ours[section] == theirs[section]


def test_texts_are_deterministic():
    # no ids or addresses: a second run prints the same characters
    example = EXAMPLES[3]
    assert example(torch) == example(torch)
    assert example(tinytorch) == example(tinytorch)
