"""The main job prints README's lines: every line of README's block under "The main job" (the run on the shared
subset; "..." stands for the epochs left out, the per-batch ``loss:`` lines are not shown there) appears in the
job's output, in README's order.

    python train_fashion_mnist.py --data-root ../shared/datasets --no-download | python .ci/readme_lines.py

Exits 1, naming the first README line the output lacks."""
import os
import re
import sys

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def readme_block() -> list:
    text = open(README, encoding="utf-8").read()
    section = text.split("## The main job", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() not in ("", "...")]


def main() -> int:
    printed = [line.rstrip() for line in sys.stdin.read().splitlines()]
    at = 0
    for want in readme_block():
        try:
            at = printed.index(want.rstrip(), at) + 1
        except ValueError:
            print(f"the main job did not print README's line {want!r} (in README's order)", file=sys.stderr)
            return 1
    print(f"the main job printed README's {len(readme_block())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
