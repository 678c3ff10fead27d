"""Run the ground-truth programs on a real GPU and time every kernel.

For each program and size of programs.PROGRAMS this script
  - compiles the program with XLA's dump flags on, and keeps the before- and
    after-optimizations HLO and the buffer assignment of that very compile;
  - keeps compiled.cost_analysis() and compiled.memory_analysis() (a real GPU
    compile has both; a deviceless one has no cost analysis);
  - runs it --warmup times, then --runs times under jax.profiler, and reads the
    trace (jax.profiler.ProfileData over the .xplane.pb) for the device's kernel
    events: each carries the HLO instruction (hlo_op) and module (hlo_module) it
    belongs to;
  - writes kernels.json: per HLO instruction its kernels (name, launches per
    run), the median and spread of its time per run over the timed runs, and
    the program's median wall time per run.
Inputs are random (numpy, fixed seed), never zeros; index arguments are uniform
below their bound. Arguments are not donated, so every run sees the same inputs
(an in-place update then copies its operand first, and the dumped HLO says so).

Nsight Compute was tried for launch dimensions and DRAM bytes (2026-11-24, ncu
from CUDA 13 with jax 0.11.2's CUDA 13 plugin): it profiled no kernel of the JAX
process, with or without a cuProfilerStart range, and the process crashed; the
kernel times therefore come from CUPTI through jax.profiler only.

The device run of 2026-11-24 (testdata/groundtruth/*/h100-measured/) was:
  python3 measure_gpu.py --out /tmp/h100 --deadline 240 --autotune-cache /tmp/atc
then, here: python3 import_measured.py h100.tgz (the tarball of /tmp/h100).

Usage (on the GPU machine; nothing here runs in `make test`):
  python3 measure_gpu.py --out DIR [--programs a,b] [--sizes small,large]
         [--runs 30] [--warmup 5] [--deadline SECONDS]
DIR/<program>/<size>/ receives the files; DIR/env.json the device and versions.
--platform cpu runs the same on the CPU (host thunks carry hlo_op too), to test
this script on a machine without a GPU.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--programs", default="")
    p.add_argument("--sizes", default="small,large")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--deadline", type=float, default=0, help="stop starting new programs after this many seconds")
    p.add_argument("--platform", default="cuda")
    p.add_argument("--autotune-cache", default="",
                   help="XLA's per-fusion autotuning cache directory: a second process reusing it picks the "
                        "same kernels as the first")
    return p.parse_args()


ARGS = parse_args()
OUT = os.path.abspath(ARGS.out)
DUMP = os.path.join(OUT, "_dump")
os.makedirs(DUMP, exist_ok=True)
# XLA reads its flags once, when the backend starts: set them before jax is imported.
# Command buffers (CUDA graphs) are off: inside one, kernels carry the command
# buffer's name instead of their own HLO instruction's.
FLAGS = f" --xla_dump_to={DUMP} --xla_dump_hlo_as_text"
if ARGS.platform == "cuda":
    FLAGS += " --xla_gpu_enable_command_buffer="
    if ARGS.autotune_cache:
        FLAGS += f" --xla_gpu_per_fusion_autotune_cache_dir={ARGS.autotune_cache}"
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + FLAGS).strip()
os.environ.setdefault("JAX_PLATFORMS", ARGS.platform)

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.profiler import ProfileData  # noqa: E402

sys.path.insert(0, HERE)
import programs  # noqa: E402

# Dump files kept per program (suffix of XLA's file name -> our name).
KEEP = {
    "before_optimizations.txt": "before_optimizations.txt",
    "after_optimizations.txt": "after_optimizations.txt",
    "after_optimizations-buffer-assignment.txt": "buffer-assignment.txt",
    "after_optimizations-memory-usage-report.txt": "memory-usage-report.txt",
}


def make_inputs(args, rng):
    vals = []
    for a in args:
        if a.index_bound > 0:
            v = rng.integers(0, a.index_bound, size=a.shape, dtype=np.int64)
            if jnp.dtype(a.dtype).kind == "i" and jnp.dtype(a.dtype).itemsize == 1:
                v = v - a.index_bound // 2  # int8 operands: signed values
            v = v.astype(jnp.dtype(a.dtype))
        else:
            v = rng.standard_normal(size=a.shape, dtype=np.float32).astype(jnp.dtype(a.dtype))
        vals.append(jax.device_put(v))
    return vals


def device_events(pd, module_prefix):
    """(timestamp, duration_ns, kernel, hlo_op) of each device event of the module."""
    out = []
    for plane in pd.planes:
        if ARGS.platform == "cpu":
            if plane.name != "/host:CPU":
                continue
        elif not plane.name.startswith("/device:GPU"):
            continue
        for line in plane.lines:
            for e in line.events:
                st = {k: v for k, v in e.stats}
                op, mod = st.get("hlo_op"), st.get("hlo_module", "")
                mod = str(mod)
                if not op or not (mod == module_prefix or (mod.startswith(module_prefix) and
                                                            not (mod[len(module_prefix)].isalnum() or
                                                                 mod[len(module_prefix)] == "_"))):
                    continue
                out.append((e.start_ns, e.duration_ns, e.name, str(op), line.name))
    out.sort()
    return out


def per_op_times(events, runs):
    """Group kernel events by HLO op; the time of an op in a run is the sum of its
    kernels in that run. Events come in time order, so the k launches of an op per
    run are consecutive groups of its events."""
    by_op = {}
    for ts, dur, kernel, op, line in events:
        by_op.setdefault(op, []).append((ts, dur, kernel, line))
    result = {}
    for op, evs in by_op.items():
        n = len(evs)
        entry = {"events": n, "kernels": sorted({k for _, _, k, _ in evs}),
                 "streams": sorted({ln for _, _, _, ln in evs})}
        if n % runs != 0:
            entry["note"] = f"{n} events are not a multiple of {runs} runs"
            per = max(1, n // runs)
        else:
            per = n // runs
        entry["launches_per_run"] = per
        sums = [sum(d for _, d, _, _ in evs[i * per:(i + 1) * per]) / 1e3 for i in range(n // per)]
        sums.sort()
        entry["median_us"] = statistics.median(sums)
        entry["min_us"] = sums[0]
        entry["p90_us"] = sums[min(len(sums) - 1, int(0.9 * len(sums)))]
        entry["samples"] = len(sums)
        # the first kernel's order of appearance in a run
        entry["first_ts_in_run"] = evs[0][0]
        result[op] = entry
    order = sorted(result, key=lambda op: result[op]["first_ts_in_run"])
    for i, op in enumerate(order):
        result[op]["order"] = i
        del result[op]["first_ts_in_run"]
    return result


def jsonable(d):
    if d is None:
        return None
    if isinstance(d, (list, tuple)):
        return [jsonable(x) for x in d]
    if isinstance(d, dict):
        return {str(k): jsonable(v) for k, v in d.items()}
    if isinstance(d, (int, float, str, bool)):
        return d
    try:
        return float(d)
    except Exception:
        return str(d)


def memory_json(ma):
    if ma is None:
        return None
    fields = ["argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
              "temp_size_in_bytes", "generated_code_size_in_bytes", "host_argument_size_in_bytes",
              "host_output_size_in_bytes", "host_alias_size_in_bytes", "host_temp_size_in_bytes",
              "peak_memory_in_bytes"]
    return {f: getattr(ma, f) for f in fields if hasattr(ma, f)}


def keep_dumps(name, dest, seen):
    new = sorted(set(os.listdir(DUMP)) - seen)
    seen.update(new)
    kept = []
    for f in new:
        if f".jit_{name}." not in f:
            continue
        for suffix, ours in KEEP.items():
            if f.endswith(suffix):
                shutil.copy(os.path.join(DUMP, f), os.path.join(dest, ours))
                kept.append(f)
    return kept


def measure(prog, size, rng, seen):
    dest = os.path.join(OUT, prog.name, size)
    os.makedirs(dest, exist_ok=True)
    args = prog.args(size)
    inputs = make_inputs(args, rng)
    jitted = jax.jit(prog.fn)
    t0 = time.perf_counter()
    compiled = jitted.lower(*inputs).compile()
    compile_s = time.perf_counter() - t0
    kept = keep_dumps(prog.name, dest, seen)
    info = {"program": prog.name, "size": size, "doc": prog.doc,
            "args": [{"shape": list(a.shape), "dtype": a.dtype, "index_bound": a.index_bound} for a in args],
            "compile_s": compile_s, "dump_files": kept, "runs": ARGS.runs, "warmup": ARGS.warmup,
            "donated": [], "timing": "jax.profiler (CUPTI) kernel events, sum per HLO op per run, median over runs"}
    try:
        ca = compiled.cost_analysis()
        if isinstance(ca, list):
            ca = ca[0] if ca else None
    except Exception as e:  # deviceless compiles have none
        ca = {"error": str(e)}
    with open(os.path.join(dest, "cost_analysis.json"), "w") as f:
        json.dump(jsonable(ca), f, indent=1, sort_keys=True)
    with open(os.path.join(dest, "memory_analysis.json"), "w") as f:
        json.dump(jsonable(memory_json(compiled.memory_analysis())), f, indent=1, sort_keys=True)

    def run_once():
        out = compiled(*inputs)
        jax.block_until_ready(out)
        return out

    for _ in range(ARGS.warmup):
        run_once()
    time_kernels(prog, run_once, info)
    with open(os.path.join(dest, "kernels.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    return info


def time_kernels(prog, run_once, info):
    walls = []
    tracedir = tempfile.mkdtemp(prefix="trace_")
    with jax.profiler.trace(tracedir):
        for _ in range(ARGS.runs):
            t = time.perf_counter()
            run_once()
            walls.append((time.perf_counter() - t) * 1e6)
    paths = glob.glob(os.path.join(tracedir, "**", "*.xplane.pb"), recursive=True)
    if not paths:
        raise RuntimeError("the profiler wrote no .xplane.pb")
    events = device_events(ProfileData.from_file(paths[0]), "jit_" + prog.name)
    shutil.rmtree(tracedir, ignore_errors=True)
    ops = per_op_times(events, ARGS.runs)
    info["wall_us_median"] = statistics.median(walls)
    info["kernel_us_median_sum"] = sum(v["median_us"] for v in ops.values())
    info["ops"] = ops
    # The launches of the first run, in order (runs are sequential: the first
    # len(events)/runs events): how often each op runs per run (a while
    # body's ops once per iteration).
    first = events[:len(events) // ARGS.runs] if ARGS.runs else []
    info["sequence"] = [[kernel, op] for _, _, kernel, op, _ in first]


def env_json():
    env = {"jax": jax.__version__, "jaxlib": getattr(jax.lib, "__version__", None) or jax.__version__,
           "platform": ARGS.platform, "devices": [str(d) for d in jax.devices()],
           "device_kind": jax.devices()[0].device_kind, "python": sys.version}
    try:
        import jaxlib
        env["jaxlib"] = jaxlib.__version__
    except Exception:
        pass
    for pkg in ("jax_cuda13_plugin", "jax_cuda13_pjrt"):
        try:
            from importlib.metadata import version
            env[pkg] = version(pkg.replace("_", "-"))
        except Exception:
            pass
    try:
        env["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
             "power.limit,memory.total,pstate", "--format=csv"], capture_output=True, text=True, timeout=20).stdout
    except Exception as e:
        env["nvidia_smi"] = f"unavailable: {e}"
    return env


def main():
    start = time.time()
    names = [n for n in ARGS.programs.split(",") if n] or list(programs.PROGRAMS)
    sizes = [s for s in ARGS.sizes.split(",") if s]
    env = env_json()
    with open(os.path.join(OUT, "env.json"), "w") as f:
        json.dump(env, f, indent=1, sort_keys=True)
    print(json.dumps({k: env[k] for k in ("jax", "jaxlib", "device_kind")}), flush=True)
    seen = set(os.listdir(DUMP))
    rng = np.random.default_rng(20261124)
    summary = []
    for size in sizes:
        for name in names:
            if ARGS.deadline and time.time() - start > ARGS.deadline:
                print(f"deadline: skipping {name}/{size}", flush=True)
                summary.append((name, size, "skipped: deadline"))
                continue
            try:
                info = measure(programs.PROGRAMS[name], size, rng, seen)
                line = (f"{name:22s} {size:5s} compile {info['compile_s']:6.1f}s ops {len(info['ops']):3d} "
                        f"kernels {info['kernel_us_median_sum']:10.1f}us wall {info['wall_us_median']:10.1f}us")
                summary.append((name, size, "ok"))
            except Exception as e:  # keep going: one failure must not lose the rest
                line = f"{name:22s} {size:5s} FAILED {type(e).__name__}: {e}"
                summary.append((name, size, f"failed: {type(e).__name__}: {e}"))
            print(line, flush=True)
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    shutil.rmtree(DUMP, ignore_errors=True)


if __name__ == "__main__":
    main()
