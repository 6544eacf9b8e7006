#!/usr/bin/env python3
"""Registers and the steady loop of decode GEMV kernels, counted from SASS without a GPU: each gemv_mma
instantiation is compiled from a kernels/ folder with nvcc for sm_90a, and the shortest backward-branching loop that
holds an HMMA (the check-free steps) is counted, instruction by instruction. Prints a markdown table.

  scripts/sass_loop.py --kernels OLD_KERNELS_DIR --kernels NEW_KERNELS_DIR "1, 4, 0, 0, 128, 32, 4, 2, 2, 1, 0, 0" ...

Each instantiation is gemv_mma's template arguments (kernels/gemv_mma.cuh). Needs nvcc and cuobjdump on PATH (or
CUOBJDUMP=path)."""
import argparse
import collections
import os
import re
import subprocess
import tempfile

SIGNATURE = "(const unsigned char*, long long, const unsigned char*, long long, const void*, void*, long long, int, int)"


def compile_and_count(kernels, args, work):
    source = os.path.join(work, "k.cu")
    cubin = os.path.join(work, "k.cubin")
    with open(source, "w") as f:
        f.write(f'#include "gemv_mma.cuh"\ntemplate __global__ void tilewise::kernels::gemv::gemv_mma<{args}>{SIGNATURE};\n')
    log = subprocess.run(["nvcc", "-arch=sm_90a", "-std=c++20", "-cubin", "-Xptxas", "-v", "-I", kernels, source,
                          "-o", cubin], capture_output=True, text=True, check=True).stderr
    registers = int(re.search(r"Used (\d+) registers", log)[1])
    spills = sum(int(n) for n in re.findall(r"(\d+) bytes spill", log))
    sass = subprocess.run([os.environ.get("CUOBJDUMP", "cuobjdump"), "-sass", cubin], capture_output=True, text=True,
                          check=True).stdout
    code = [(int(m[1], 16), m[2].strip()) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)]
    index = {address: i for i, (address, _) in enumerate(code)}
    loop = None
    for i, (address, text) in enumerate(code):
        target = re.search(r"BRA.*?0x([0-9a-f]+)", text)
        if target and int(target[1], 16) < address and int(target[1], 16) in index:
            body = code[index[int(target[1], 16)]:i + 1]
            if any("HMMA" in t for _, t in body) and (loop is None or len(body) < len(loop)):
                loop = body
    ops = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0] for _, t in loop or [])
    return registers, spills, len(loop or []), ops


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", action="append", required=True, help="a kernels/ folder (repeatable)")
    parser.add_argument("instantiations", nargs="+")
    a = parser.parse_args()
    print("| gemv_mma<...> | " + " | ".join(f"registers / loop ({k})" for k in a.kernels) + " | loop's largest counts |")
    print("|---|" + "---|" * (len(a.kernels) + 1))
    with tempfile.TemporaryDirectory() as work:
        for args in a.instantiations:
            cells, last = [], None
            for kernels in a.kernels:
                registers, spills, length, ops = compile_and_count(kernels, args, work)
                cells.append(f"{registers} / {length}" + (f", {spills} B spilled" if spills else ""))
                last = ops
            top = ", ".join(f"{op} {n}" for op, n in last.most_common(5))
            print(f"| `{args}` | " + " | ".join(cells) + f" | {top} |")


if __name__ == "__main__":
    main()
