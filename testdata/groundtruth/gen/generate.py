"""Compile the ground-truth programs with XLA for TPU, GPU and CPU, no accelerator needed,
and keep what XLA writes: testdata/groundtruth/<program>/<backend>/<size>/.

Backends (see BACKENDS):
  tpu-v5e, tpu-v6e  ahead-of-time TPU compiles against a topology description (libtpu),
                    on one device
  tpu-v5e-4way      the same on a 4-device v5e mesh, each argument split along its
                    Arg.shard dimension (replicated when that dimension does not divide by 4)
  h100              a deviceless compile for an H100 from a GPU target config (CUDA plugin)
  cpu               the host CPU

Each compile runs in its own process (XLA reads XLA_FLAGS once, and one dump directory
per compile keeps the files apart). Kept per compile:
  before_optimizations.txt, after_optimizations.txt   the HLO modules
  buffer-assignment.txt, memory-usage-report.txt,     XLA's buffer assignment of the
  live-range.txt                                      after-optimizations module
  memory_analysis.json, cost_analysis.json            compiled.memory_analysis() and
                                                      compiled.cost_analysis() (null where
                                                      XLA gives none: the deviceless GPU)
  compile.json                                        versions, target, arguments and their
                                                      shardings, and the error if it failed
The generating machine's file paths in the FileNames tables are made relative to the
repository root. Everything else XLA dumps (per-pass modules, MLIR, protos) is dropped.

Usage: python generate.py [--out DIR] [--programs a,b] [--backends cpu,h100] [--sizes small]
       [--jobs N]
       python generate.py --dump-dir DIR --batches 2,8 [--programs a] [--backends tpu-v5e] [--sizes small]
           a dump directory as XLA writes it, one per backend, with every batch's compile
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gen"))
from h100 import h100_target_config  # noqa: E402  (testdata/gen/h100.py)
ROOT = os.path.dirname(HERE)  # testdata/groundtruth

# backend -> how to compile: platform, topology and the number of devices the program
# is split over.
BACKENDS = {
    "tpu-v5e": {"platform": "tpu", "topology": "v5e:2x2", "devices": 1},
    "tpu-v6e": {"platform": "tpu", "topology": "v6e:2x2", "devices": 1},
    "tpu-v5e-4way": {"platform": "tpu", "topology": "v5e:2x2", "devices": 4},
    "h100": {"platform": "cuda", "topology": "1x1x1", "devices": 1},
    "cpu": {"platform": "cpu", "topology": None, "devices": 1},
}

# The H100 of the deviceless compiles, with the memory size and the cuDNN and CUDA
# runtime versions of the pinned plugin.
H100_TARGET_CONFIG = h100_target_config(device_memory_size=84978434048, dnn_version="major: 9 minor: 28 patch: 1",
                                        runtime_version="major: 13 minor: 0")

# Dump files kept: the end of XLA's file name -> ours. The after-optimizations module
# is "<platform>_after_optimizations" on CPU and GPU ("sm_9.0a_gpu_..."), plain on TPU.
KEEP = [
    ("after_optimizations-buffer-assignment.txt", "buffer-assignment.txt"),
    ("after_optimizations-memory-usage-report.txt", "memory-usage-report.txt"),
    ("after_optimizations-live-range.txt", "live-range.txt"),
    ("after_optimizations.txt", "after_optimizations.txt"),
    ("before_optimizations.txt", "before_optimizations.txt"),
]
# "/any/where/testdata/groundtruth/gen/x.py" -> "testdata/groundtruth/gen/x.py"; any
# other absolute path (a library's file) -> its base name.
REPO_PATH = re.compile(r'"[^"\n]*/(testdata/groundtruth/gen/[^"/\n]+)"')
OTHER_PATH = re.compile(r'"/[^"\n]*/([^"/\n]+)"')

MEMORY_FIELDS = ["argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                 "temp_size_in_bytes", "generated_code_size_in_bytes", "host_argument_size_in_bytes",
                 "host_output_size_in_bytes", "host_alias_size_in_bytes", "host_temp_size_in_bytes",
                 "peak_memory_in_bytes"]


def strip_paths(text: str) -> str:
    return OTHER_PATH.sub(r'"\1"', REPO_PATH.sub(r'"\1"', text))


def versions() -> dict:
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for pkg in ["jax", "jaxlib", "libtpu", "jax-cuda13-plugin", "jax-cuda13-pjrt"]:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def write_json(path: str, value) -> None:
    with open(path, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")


def plain(value):
    """cost_analysis() values as JSON: numbers stay numbers."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return float(value)


# ---------------------------------------------------------------- one compile (child)


def arg_structs(args, backend: str, info: dict) -> list:
    """The jax.ShapeDtypeStructs of a program's arguments on a backend's devices (one
    device, or a data-parallel mesh splitting each argument along its Arg.shard
    dimension); info gets the device kind, the mesh and the arguments' shardings."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

    spec = BACKENDS[backend]
    shardings = [None] * len(args)
    if spec["platform"] == "tpu":
        topo = topologies.get_topology_desc(topology_name=spec["topology"], platform="tpu")
    elif spec["platform"] == "cuda":
        topo = topologies.get_topology_desc(platform="cuda", target_config=H100_TARGET_CONFIG,
                                            topology=spec["topology"])
        info["target_config"] = H100_TARGET_CONFIG.strip()
    else:
        topo = None
    if topo is not None:
        info["device_kind"] = topo.devices[0].device_kind
    if spec["devices"] > 1:
        n = spec["devices"]
        mesh = topologies.make_mesh(topo, (n,), ("x",))
        for i, a in enumerate(args):
            dims = [None] * len(a.shape)
            if a.shard is not None and a.shape[a.shard] % n == 0:
                dims[a.shard] = "x"
            shardings[i] = NamedSharding(mesh, PartitionSpec(*dims))
        info["mesh"] = {"shape": [n], "axes": ["x"]}
    elif topo is not None:
        shardings = [SingleDeviceSharding(topo.devices[0])] * len(args)
    info["args"] = [{"shape": list(a.shape), "dtype": a.dtype, "shard": a.shard,
                     "sharding": str(s.spec) if isinstance(s, NamedSharding) else None}
                    for a, s in zip(args, shardings)]
    return [jax.ShapeDtypeStruct(a.shape, jnp.dtype(a.dtype), sharding=s) for a, s in zip(args, shardings)]


def compile_one(program: str, backend: str, size: str, dump: str, dest: str) -> None:
    """Compile one program for one backend in this process; XLA_FLAGS dumps to dump."""
    import jax

    sys.path.insert(0, HERE)
    import programs

    prog = programs.PROGRAMS[program]
    spec = BACKENDS[backend]
    info = {"program": program, "backend": backend, "size": size, "doc": prog.doc,
            "platform": spec["platform"], "topology": spec["topology"], "versions": versions(),
            "xla_flags": "--xla_dump_to=DIR --xla_dump_hlo_as_text", "donate": list(prog.donate)}
    structs = arg_structs(prog.args(size), backend, info)
    t0 = time.perf_counter()
    compiled = jax.jit(prog.fn, donate_argnums=prog.donate).trace(*structs).lower().compile()
    info["compile_s"] = round(time.perf_counter() - t0, 2)

    ma = compiled.memory_analysis()
    write_json(os.path.join(dest, "memory_analysis.json"),
               None if ma is None else {f: getattr(ma, f) for f in MEMORY_FIELDS if hasattr(ma, f)})
    try:
        ca = compiled.cost_analysis()
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        ca, info["cost_analysis_error"] = None, str(e)
    if isinstance(ca, list):
        ca = ca[0] if ca else None
    write_json(os.path.join(dest, "cost_analysis.json"), plain(ca))
    info["dump_files"] = keep_dumps(program, dump, dest)
    write_json(os.path.join(dest, "compile.json"), info)


def compile_batches(names: str, backend: str, size: str, batches: str) -> None:
    """Compile each program at each batch size in this process, one after the other,
    as a user trying batch sizes does: XLA_FLAGS dumps every compile into one directory.
    The batch is the dimension a data-parallel mesh shards (Arg.shard) of each argument
    that has one."""
    import jax

    sys.path.insert(0, HERE)
    import programs

    for name in names.split(","):
        prog = programs.PROGRAMS[name]
        for b in (int(x) for x in batches.split(",")):
            args = [dataclasses.replace(a, shape=tuple(b if i == a.shard else d for i, d in enumerate(a.shape)))
                    for a in prog.args(size)]
            structs = arg_structs(args, backend, {})
            jax.jit(prog.fn, donate_argnums=prog.donate).trace(*structs).lower().compile()


def keep_dumps(program: str, dump: str, dest: str) -> list[str]:
    """Copy the kept dump files of the jit_<program> module to dest under our names."""
    kept = []
    names = sorted(f for f in os.listdir(dump) if f".jit_{program}." in f)
    for suffix, ours in KEEP:
        match = [f for f in names if f.endswith(suffix) and f not in kept]
        if not match:
            continue
        if len(match) > 1:
            raise RuntimeError(f"several modules end in {suffix}: {match}")
        with open(os.path.join(dump, match[0])) as f:
            text = f.read()
        with open(os.path.join(dest, ours), "w") as f:
            f.write(strip_paths(text))
        kept.append(match[0])
    missing = [ours for _, ours in KEEP if not os.path.exists(os.path.join(dest, ours))]
    if "after_optimizations.txt" in missing or "before_optimizations.txt" in missing:
        raise RuntimeError(f"XLA wrote no {missing} for jit_{program} in {sorted(os.listdir(dump))}")
    return [re.sub(r"^module_\d+\.", "", f) for f in kept]


# ---------------------------------------------------------------- driver (parent)


def child_env(backend: str, dump: str) -> dict:
    """The environment of a child compiling for backend with XLA dumping to dump."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
    # The TPU and GPU compiles need no local device: only the CPU client starts.
    env["JAX_PLATFORMS"] = "cpu"
    # libtpu takes a machine-wide lock file unless told that other processes load it too.
    env["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"
    if BACKENDS[backend]["platform"] == "cuda":
        # No driver here: the CUDA plugin's cuPTI version check would fail.
        env["JAX_SKIP_CUDA_CONSTRAINTS_CHECK"] = "1"
        env["JAX_PLATFORMS"] = ""
    return env


def run_child(program: str, backend: str, size: str, out: str) -> tuple[str, str]:
    dest = os.path.join(out, program, backend, size)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    with tempfile.TemporaryDirectory(prefix="groundtruth-dump-") as dump:
        cmd = [sys.executable, os.path.abspath(__file__), "--one", program, backend, size, dump, dest]
        p = subprocess.run(cmd, env=child_env(backend, dump), capture_output=True, text=True)
    if p.returncode == 0:
        return "ok", ""
    err = p.stderr.strip().splitlines()
    last = next((line for line in reversed(err) if line and not line.startswith(" ")), "exit %d" % p.returncode)
    for f in os.listdir(dest):
        os.remove(os.path.join(dest, f))
    write_json(os.path.join(dest, "compile.json"),
               {"program": program, "backend": backend, "size": size, "error": last,
                "stderr_tail": strip_paths("\n".join(err[-20:]))})
    return "failed", last


# The files of an XLA dump directory --dump-dir keeps, by the end of their names: the
# modules before and after optimizations, the buffer assignments, memory-usage reports
# and live ranges beside them, and two that are not what hlo-opt reads (the module
# after buffer assignment, the execution options), as a dump has them. The rest (flag
# files, compiler environments, protos) is dropped.
DUMP_KEEP = ("before_optimizations.txt", "after_optimizations.txt", "after_optimizations-buffer-assignment.txt",
             "after_optimizations-memory-usage-report.txt", "after_optimizations-live-range.txt",
             "after_optimizations_after_buffer_assignment.txt", "execution_options.txt")


def raw_dump(names: list[str], backend: str, size: str, batches: str, out: str) -> None:
    """Compile the programs at each batch size in one process for backend and keep the
    dump directory XLA writes, as XLA names its files, in out/backend (paths stripped)."""
    dest = os.path.join(out, backend)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    with tempfile.TemporaryDirectory(prefix="groundtruth-rawdump-") as dump:
        cmd = [sys.executable, os.path.abspath(__file__), "--batches-one", ",".join(names), backend, size, batches]
        p = subprocess.run(cmd, env=child_env(backend, dump), capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{backend}: {p.stderr.strip().splitlines()[-1]}")
        kept = 0
        for f in sorted(os.listdir(dump)):
            if f.endswith(DUMP_KEEP):
                with open(os.path.join(dump, f)) as src, open(os.path.join(dest, f), "w") as dst:
                    dst.write(strip_paths(src.read()))
                kept += 1
    print(f"{backend}: {kept} files of {','.join(names)} at batches {batches} in {dest}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        compile_one(*sys.argv[2:7])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--batches-one":
        compile_batches(*sys.argv[2:6])
        return
    sys.path.insert(0, HERE)
    import programs

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=ROOT, help="where <program>/<backend>/<size>/ go (default: %(default)s)")
    p.add_argument("--programs", default="", help="comma-separated names (default: all)")
    p.add_argument("--backends", default=",".join(BACKENDS))
    p.add_argument("--sizes", default=",".join(programs.SIZES))
    p.add_argument("--jobs", type=int, default=2, help="compiles at once")
    p.add_argument("--dump-dir", default="", help="instead of the per-compile directories: compile --programs at "
                   "each of --batches (the first of --sizes otherwise) in one process per backend and keep the dump "
                   "directory XLA writes, as it names its files, in DUMP_DIR/<backend>")
    p.add_argument("--batches", default="", help="with --dump-dir: comma-separated batch sizes (the dimension "
                   "a data-parallel mesh shards)")
    a = p.parse_args()
    names = [n for n in a.programs.split(",") if n] or list(programs.PROGRAMS)
    backends = [b for b in a.backends.split(",") if b]
    sizes = [s for s in a.sizes.split(",") if s]
    for n in names:
        if n not in programs.PROGRAMS:
            sys.exit(f"unknown program {n!r}; known: {', '.join(programs.PROGRAMS)}")
    for b in backends:
        if b not in BACKENDS:
            sys.exit(f"unknown backend {b!r}; known: {', '.join(BACKENDS)}")
    if a.dump_dir:
        if not a.batches:
            sys.exit("--dump-dir needs --batches")
        for b in backends:
            raw_dump(names, b, sizes[0], a.batches, os.path.abspath(a.dump_dir))
        return
    jobs = [(n, b, s) for n in names for b in backends for s in sizes]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(run_child, n, b, s, os.path.abspath(a.out)): (n, b, s) for n, b, s in jobs}
        for f in concurrent.futures.as_completed(futures):
            n, b, s = futures[f]
            status, why = f.result()
            print(f"{status:6} {n}/{b}/{s} {why}", flush=True)
            if status != "ok":
                failed.append(f"{n}/{b}/{s}: {why}")
    print(f"{len(jobs) - len(failed)} of {len(jobs)} compiles kept under {a.out}")
    for f in sorted(failed):
        print("failed:", f)


if __name__ == "__main__":
    main()
