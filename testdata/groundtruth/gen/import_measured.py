"""Unpack a measure_gpu.py result (a tarball of its --out directory) into the
committed layout: testdata/groundtruth/<program>/h100-measured/<size>/.

The machine's paths in the dumps' FileNames tables are made relative to the
repository root; env.json (device, clocks, versions) goes to
testdata/groundtruth/h100-measured-env.json.

Usage: python3 import_measured.py RESULT.tgz [--backend h100-measured]
"""

import argparse
import os
import re
import shutil
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # testdata/groundtruth
FILES = ["after_optimizations.txt", "before_optimizations.txt", "buffer-assignment.txt",
         "memory-usage-report.txt", "cost_analysis.json", "memory_analysis.json", "kernels.json"]
# "/any/where/testdata/groundtruth/gen/x.py" -> "testdata/groundtruth/gen/x.py"
PATH = re.compile(r'"[^"\n]*/(testdata/groundtruth/gen/[^"/\n]+)"')


def main():
    p = argparse.ArgumentParser()
    p.add_argument("tarball")
    p.add_argument("--backend", default="h100-measured")
    a = p.parse_args()
    tmp = tempfile.mkdtemp()
    with tarfile.open(a.tarball) as t:
        t.extractall(tmp, filter="data")
    (top,) = os.listdir(tmp)
    src = os.path.join(tmp, top)
    n = 0
    for prog in sorted(os.listdir(src)):
        pdir = os.path.join(src, prog)
        if not os.path.isdir(pdir):
            continue
        for size in sorted(os.listdir(pdir)):
            dest = os.path.join(ROOT, prog, a.backend, size)
            os.makedirs(dest, exist_ok=True)
            for f in FILES:
                s = os.path.join(pdir, size, f)
                if not os.path.exists(s):
                    continue
                with open(s) as fh:
                    text = fh.read()
                if f.endswith(".txt"):
                    text = PATH.sub(r'"\1"', text)
                with open(os.path.join(dest, f), "w") as fh:
                    fh.write(text)
            n += 1
    shutil.copy(os.path.join(src, "env.json"), os.path.join(ROOT, f"{a.backend}-env.json"))
    shutil.rmtree(tmp)
    print(f"imported {n} program sizes into {ROOT}/<program>/{a.backend}/")


if __name__ == "__main__":
    main()
