"""Nothing cited disappears: every results/ path the README and docs/ name exists in the tree (a path written as
`REV:results/...`, for `git show`, names the file at that commit), and results/README.md
indexes exactly the files tracked under results/. A note whose paths are as of an old commit says so with the marker
`<!-- results as of commit REV -->` (it cites them for `git show REV:PATH`) and is left out of the first check.

    python3 tests/docs/citations_check.py REPO_ROOT
"""
import itertools
import pathlib
import re
import subprocess
import sys

CITED = re.compile(r"(?<![\w./:-])results/[\w./{},*-]*[\w*]")
OUTPUT_OPTION = re.compile(r"(?:-o|>)\s*$")  # `-o results/x.json` names a file a command writes, not a citation
AS_OF = "<!-- results as of commit"


def expand_braces(path):
    """results/a-{x,y}.json -> results/a-x.json, results/a-y.json"""
    parts = re.split(r"\{([^{}]*)\}", path)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def missing_citations(root):
    docs = [root / "README.md", root / "results" / "README.md", *sorted((root / "docs").rglob("*.md"))]
    for doc in docs:
        text = doc.read_text()
        if AS_OF in text:
            continue
        for line_no, line in enumerate(text.splitlines(), 1):
            for m in CITED.finditer(line):
                if OUTPUT_OPTION.search(line[: m.start()]):
                    continue
                for path in expand_braces(m.group(0).rstrip(".,")):
                    if not any(root.glob(path)):
                        yield f"{doc.relative_to(root)}:{line_no}: cites {path}, which is not in the tree"


def index_mismatches(root):
    index = (root / "results" / "README.md").read_text()
    listed = set()
    for row in index.splitlines():
        if row.startswith("| `"):
            listed.update(re.findall(r"`([^`]+)`", row.split("|")[1]))
    tracked = subprocess.run(["git", "-C", str(root), "ls-files", "results"], capture_output=True, text=True,
                             check=True).stdout.split()
    tracked = {t[len("results/"):] for t in tracked if t != "results/README.md"}
    for name in sorted(tracked - listed):
        yield f"results/{name} is tracked but results/README.md does not index it"
    for name in sorted(listed - tracked):
        yield f"results/README.md indexes {name}, which is not tracked under results/"


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = [*missing_citations(root), *index_mismatches(root)]
    for p in problems:
        print(p)
    print(f"citations: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
