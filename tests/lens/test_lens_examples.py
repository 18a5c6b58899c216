"""The lens on PyTorch and on tinytorch prints the same text for the same program: the twelve examples of
``lens_examples`` run on both, section by section (the graph before backward, the trace, the graph
after, the table).

Where the texts differ, the lens shows a real difference between tinytorch's engine and PyTorch's: each
such row is a strict xfail naming it, so that fixing tinytorch turns it into a failure to delete."""
import pytest

import tinytorch

from lens_examples import EXAMPLES

torch = pytest.importorskip("torch")

SECTIONS = ("show", "trace", "show after", "table")

KNOWN = {
    ("double_backward", "trace"): "PowBackward0's double-backward graph: PyTorch multiplies by the exponent "
                                  "as a Python scalar (MulBackward1), tinytorch as a tensor (MulBackward0)",
}
# both record one MkldnnRnnLayerBackward0 per layer, but PyTorch's has 7 edges (input, the four weights, hx,
# cx) and its _saved_* attributes; tinytorch's has 8 edges (the weights from edge 3 on) and shows none
for _section in ("show", "trace", "show after"):
    KNOWN[("lstm_step", _section)] = "nn.LSTM: MkldnnRnnLayerBackward0's edges and _saved_* attributes"


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
