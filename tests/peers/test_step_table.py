"""step_table.py: the committed decode-step receipt as a table, and what it refuses (standard library only)."""
import copy
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
import step_table  # noqa: E402

RECEIPT = "results/decode-step-llama3-8b.json"


class StepTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.receipt = json.loads((ROOT / RECEIPT).read_text())

    def test_a_row_per_step_with_each_arm_over_the_baseline(self):
        lines = step_table.table(self.receipt, RECEIPT, ["tilewise-bf16", "tilewise-int4-g128"])
        self.assertEqual(len(lines), 2 + len(self.receipt["results"]))
        first = self.receipt["results"][0]["arms"]
        by_arm = {a["arm"]: a["us_median"] for a in first}
        cells = [c.strip() for c in lines[2].strip("|").split("|")]
        self.assertEqual(cells[2], f"{by_arm['torch-bf16']:.0f} us")
        self.assertEqual(cells[3], f"{by_arm['torch-bf16'] / by_arm['tilewise-bf16']:.2f}x")
        self.assertEqual(cells[-1], RECEIPT)

    def test_an_arm_the_receipt_lacks_or_got_wrong_shows_a_dash(self):
        r = copy.deepcopy(self.receipt)
        r["results"][0]["arms"][1]["correct"] = False
        wrong = r["results"][0]["arms"][1]["arm"]
        lines = step_table.table(r, RECEIPT, [wrong, "no-such-arm"])
        self.assertEqual([c.strip() for c in lines[2].strip("|").split("|")][3:5], ["-", "-"])

    def test_refuses_an_invalid_receipt_and_one_without_the_baseline(self):
        r = copy.deepcopy(self.receipt)
        r["valid"] = False
        with self.assertRaisesRegex(ValueError, "not a valid receipt"):
            step_table.table(r, "x.json")
        r = copy.deepcopy(self.receipt)
        r["results"][0]["arms"] = [a for a in r["results"][0]["arms"] if a["arm"] != "torch-bf16"]
        with self.assertRaisesRegex(ValueError, "has no torch-bf16 time"):
            step_table.table(r, "x.json")

    def test_a_compressed_receipt_gives_the_same_table(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "step.json.gz")
            pathlib.Path(path).write_bytes(gzip.compress(json.dumps(self.receipt).encode(), mtime=0))
            run = subprocess.run([sys.executable, str(ROOT / "bench/peers/step_table.py"), path],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(run.stdout.splitlines(), step_table.table(self.receipt, path))

    def test_the_command_names_a_file_it_cannot_read(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            pathlib.Path(bad).write_text("{not json")
            cut = os.path.join(d, "cut.json.gz")
            pathlib.Path(cut).write_bytes(gzip.compress(b'{"valid": true}')[:-4])
            plain = os.path.join(d, "plain.json.gz")
            pathlib.Path(plain).write_text('{"valid": true}')
            for path in (bad, os.path.join(d, "missing.json"), cut, plain):
                run = subprocess.run([sys.executable, str(ROOT / "bench/peers/step_table.py"), path],
                                     capture_output=True, text=True)
                self.assertEqual(run.returncode, 1)
                self.assertIn("step_table: ", run.stderr)
                if path.endswith(".gz"):
                    self.assertIn(f"step_table: {path}: not valid gzip", run.stderr)


if __name__ == "__main__":
    unittest.main()
