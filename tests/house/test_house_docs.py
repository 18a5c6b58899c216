"""The docs stay references, not logs: README and docs/performance.md within their word budgets (README's
Performance section is one table and a link; performance.md one table set per machine kind), with no dated
"since ..." paragraphs (history is git's)."""
import os
import re

import pytest

from _repo import ROOT

# words as ``wc -w`` counts them (runs of non-space characters, table cells and code included)
BUDGETS = {"README.md": 2800, "docs/performance.md": 2000}


def _text(name: str) -> str:
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name", sorted(BUDGETS))
def test_within_word_budget(name):
    words = len(_text(name).split())
    assert words <= BUDGETS[name], f"{name} has {words} words, over its budget of {BUDGETS[name]}"


def test_performance_page_has_no_history_paragraphs():
    text = _text("docs/performance.md")
    dated = re.findall(r"^(?:Since|Before|After) (?:the|that|these|this)\b.*$", text, flags=re.M)
    assert not dated, f"docs/performance.md keeps history in paragraphs (git has it): {dated}"
    headings = re.findall(r"^#+ .*\b20\d\d-\d\d-\d\d\b.*$", text, flags=re.M)
    assert not headings, f"docs/performance.md dates its sections: {headings}"


def test_readme_performance_section_is_one_table():
    text = _text("README.md")
    section = text.split("\n## Performance\n", 1)[1].split("\n## ", 1)[0]
    tables = re.findall(r"^\|---", section, flags=re.M)
    assert len(tables) == 1, f"README's Performance section holds {len(tables)} tables, one is its budget"
    assert "docs/performance.md" in section
