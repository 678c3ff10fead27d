"""The heap traces behind XLA's peak_memory_in_bytes, for one generated program.

  python traces.py --seed S [--backend tpu-v5e] [--out DIR]

XLA's memory_analysis() peak replays the heap-simulator traces of the buffer
assignment (ComputePeakMemory in xla/service/buffer_assignment.cc): the
parameters, constants and outputs, then every trace's ALLOC, FREE and
SHARE_WITH events in turn. The text dumps do not hold the traces; the proto
dump does (HloProto.buffer_assignment.heap_simulator_traces). This compiles
randprog.generate(S) for the backend with --xla_dump_hlo_as_proto, decodes the
after-optimizations HloProto with a minimal protobuf reader (the venv has no
protobuf package), prints each trace (whole-module heap simulator, or the
alternate memory's as memory-space assignment exports it) with the memory it
holds above the static allocations, and checks the replay against
memory_analysis(). The text dumps go to --out. Not part of make test.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "groundtruth", "gen"))


def varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b: bytes) -> list[tuple[int, object]]:
    """The (field number, value) pairs of a protobuf message."""
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {w}")
        out.append((f, v))
    return out


def get(fs, f, d=0):
    return next((v for k, v in fs if k == f), d)


def replay(pb: bytes) -> int:
    """Prints the traces of an HloProto and returns ComputePeakMemory's peak."""
    ba = fields(get(fields(pb), 3, b""))  # HloProto.buffer_assignment
    bufs = {}  # LogicalBufferProto: id -> size, color, instruction, index
    for f, v in ba:
        if f == 1:
            lb = fields(v)
            loc = fields(get(lb, 3, b""))
            bufs[get(lb, 1)] = (get(lb, 2), get(lb, 4), get(loc, 2, b"").decode(), [x for k, x in loc if k == 3])
    ref = {b: 0 for b in bufs}
    under: dict[int, int] = {}
    static = 0
    for f, v in ba:  # AllocateStaticBuffers: the largest buffer of each
        if f != 3:
            continue
        al = fields(v)
        if get(al, 3) or not (get(al, 5) or get(al, 12) or get(al, 7)):
            continue
        ids = [get(fields(a), 1) for k, a in al if k == 9]
        if ids:
            big = max(ids, key=lambda b: bufs[b][0])
            ref[big] += 1
            static += bufs[big][0]
    mem = peak = static
    print(f"static (parameters, constants, outputs): {static}")

    def root(b):
        while b in under:
            b = under[b]
        return b

    for f, v in ba:
        if f != 4:
            continue
        tr = fields(v)
        print(f"trace of allocation {get(tr, 3)} ({'heap simulator' if get(tr, 2) else 'memory-space assignment'})")
        for k, e in tr:
            if k != 1:
                continue
            ev = fields(e)
            kind, b = get(ev, 1), get(ev, 2)
            if kind == 0:
                ref[b] += 1
                mem += bufs[b][0] if ref[b] == 1 else 0
            elif kind == 1:
                r = root(b)
                under.pop(b, None)
                ref[r] -= 1
                mem -= bufs[r][0] if ref[r] == 0 else 0
            else:
                r = root(get(ev, 5))
                under[b] = r
                ref[r] += 1
                mem += bufs[r][0] if ref[r] == 1 else 0
            peak = max(peak, mem)
            size, color, name, index = bufs[b]
            what = ["ALLOC", "FREE", "SHARE"][kind]
            with_ = f" with {get(ev, 5)}" if kind == 2 else ""
            print(f"  {what:5} {b:4} {name}{list(index) if index else ''} S({color}) {size}{with_}: {mem - static}")
    return peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--backend", default="tpu-v5e")
    ap.add_argument("--out", default="", help="keep the compile's text dumps here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xladiff-traces-") as tmp:
        dump = os.path.join(tmp, "dump")
        os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text --xla_dump_hlo_as_proto"
        os.environ.setdefault("JAX_PLATFORMS", "")
        os.environ["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import jax
        from jax.experimental import topologies

        import randprog
        import xladiff

        platform, topology, _ = xladiff.BACKENDS[a.backend]
        if platform != "tpu":
            sys.exit("traces.py compiles for the TPU backends")
        topo = topologies.get_topology_desc(topology_name=topology, platform="tpu")
        prog = randprog.generate(a.seed)
        dest = os.path.join(tmp, "out")
        job = {"program": prog.to_json(), "key": prog.key(), "backend": a.backend, "dest": dest}
        xladiff.compile_job(jax, topo, job, dump)
        pbs = glob.glob(os.path.join(dump, f"*{prog.key()}*after_optimizations.hlo.pb"))
        if not pbs:
            sys.exit("no after-optimizations proto dumped")
        with open(pbs[0], "rb") as f:
            peak = replay(f.read())
        with open(os.path.join(dest, "memory_analysis.json")) as f:
            want = json.load(f)["peak_memory_in_bytes"]
        print(f"replayed peak {peak}, memory_analysis() {want}: {'equal' if peak == want else 'DIFFERENT'}")
        if a.out:
            shutil.copytree(dest, a.out, dirs_exist_ok=True)


if __name__ == "__main__":
    main()
