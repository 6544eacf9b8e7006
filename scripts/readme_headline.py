"""Regenerates (or, with --check, verifies) every headline table in a markdown file from the receipts it names.

A headline table is the markdown table that follows a fenced `sh` block whose command line is one of the generators
(`build/release/tilewise headline ARGS...`, `python3 bench/peers/step_table.py ARGS...`): the table is that
command's output, run from the repository root.

    python3 scripts/readme_headline.py [--check] [--tilewise BIN] [FILE...]     (default FILE: README.md)
"""
import argparse
import pathlib
import shlex
import subprocess
import sys

# A generator's command line as the file shows it, and how to run it: (tilewise binary) -> argv before ARGS.
GENERATORS = {
    "build/release/tilewise headline ": lambda tilewise: [tilewise, "headline"],
    "python3 bench/peers/step_table.py ": lambda tilewise: [sys.executable, "bench/peers/step_table.py"],
}


def headline_blocks(lines):
    """Yields (command, args, first table line, end) for each generator's block followed by a table."""
    for i, line in enumerate(lines):
        command = next((c for c in GENERATORS if line.startswith(c)), None)
        if command is None:
            continue
        start = i + 1
        while start < len(lines) and not lines[start].startswith("|"):
            if lines[start].strip() not in ("", "```"):
                break
            start += 1
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        if end > start:
            yield command, shlex.split(line[len(command):]), start, end


def regenerate(path, tilewise, root):
    lines = path.read_text().splitlines()
    stale = []
    for command, args, start, end in reversed(list(headline_blocks(lines))):
        run = subprocess.run([*GENERATORS[command](tilewise), *args], cwd=root, capture_output=True, text=True)
        shown = command + " ".join(args)
        if run.returncode != 0:
            raise SystemExit(f"{path}: `{shown}` failed: {run.stderr.strip()}")
        table = [l for l in run.stdout.splitlines() if l.startswith("|")]
        if table != lines[start:end]:
            stale.append(shown)
            lines[start:end] = table
    return lines, stale


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", default=["README.md"])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs from its receipts")
    ap.add_argument("--tilewise", default="build/release/tilewise")
    o = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    tilewise = str(pathlib.Path(o.tilewise).resolve())
    failed = False
    for name in o.files:
        path = root / name
        lines, stale = regenerate(path, tilewise, root)
        for args in stale:
            print(f"{name}: the table after `{args}` {'differs from' if o.check else 'regenerated from'} its receipts")
        if stale and o.check:
            failed = True
        elif stale:
            path.write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
