"""A decode-step receipt (decode_step.py) as a markdown table: per model and step, torch-bf16's step time and each
other arm's speedup over it (step time, graph path), with the receipt it comes from. Reads JSON only (no torch), plain
or gzip-compressed (RECEIPT.json.gz).

    python3 bench/peers/step_table.py RECEIPT [--arms A,B,...]
"""
import argparse
import sys

from receipt import load

BASELINE = "torch-bf16"


def step_name(step):
    return f"T = {step['tokens']}" if step["kind"] == "decode" else f"prefill {step['tokens']}"


def table(receipt, path, arms=None):
    """The table's lines; refuses an invalid receipt or one without the baseline arm."""
    if not receipt.get("valid"):
        raise ValueError(f"{path} is not a valid receipt: `tilewise check {path}` says why")
    results = receipt["results"]
    names = arms or [a["arm"] for a in results[0]["arms"] if a["arm"] not in (BASELINE, "no-linears")]
    lines = ["| model | step | " + " | ".join([f"{BASELINE} step"] + names) + " | receipt |",
             "|---" * (len(names) + 4) + "|"]
    for r in results:
        by_arm = {a["arm"]: a for a in r["arms"]}
        base = by_arm.get(BASELINE)
        if not base or not base["us_median"]:
            raise ValueError(f"{path}: {r['problem']['name']} has no {BASELINE} time")
        step = base["step"]
        cells = [f"{step['model']} x{step['layers']}", step_name(step), f"{base['us_median']:.0f} us"]
        for n in names:
            a = by_arm.get(n)
            cells.append(f"{base['us_median'] / a['us_median']:.2f}x" if a and a["us_median"] and a["correct"] else "-")
        lines.append("| " + " | ".join(cells + [path]) + " |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("receipt")
    ap.add_argument("--arms", help="the arms' columns, in order (default: every arm but the baseline and no-linears)")
    a = ap.parse_args(argv)
    try:
        receipt = load(a.receipt)
        print("\n".join(table(receipt, a.receipt, a.arms.split(",") if a.arms else None)))
    except (OSError, ValueError, KeyError) as e:
        print(f"step_table: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
