"""make xla-diff: random JAX programs compiled by XLA against what hlo-opt reports.

  python xladiff.py --seed S --n N [--cache DIR] [--backends a,b] [--jobs 2]
                    [--reduce K] [--out testdata/xladiff] [--results FILE]

1. Programs: randprog.generate(seed) for seed in [S, S+N) (seeded, reproducible).
2. Compiles: each program for TPU v5e, v6e, v4 (ahead of time against a topology,
   no TPU; 4-device mesh for the programs that shard an argument), an H100
   (deviceless) and the CPU, with XLA's dumps, memory_analysis() and
   cost_analysis() kept as testdata/groundtruth/gen/generate.py keeps them, in
   the cache: DIR/compiles/<program key>/<backend>/. A compile is never redone:
   reruns are cheap. At most --jobs compiler processes run at once; each
   compiles a batch of programs (one XLA_FLAGS dump directory per process, the
   modules told apart by their jit names).
3. The comparison: cmd/xla-diff (built into DIR/bin with bin/hlo-opt) runs
   hlo-opt on every compile as a user would and prints the agreement table per
   backend and figure; the outcomes of every compile go to --results.
4. Reduction: for up to K disagreements (one per figure and backend first), the
   program is reduced, an operation replaced by a fresh argument or an output
   dropped at a time, while the same figure still disagrees on that backend,
   and written as a reproducer: --out/<figure>-<backend>-<key>/ with
   program.py, program.json and the backend's dumps. cmd/hlo-opt's tests replay
   every reproducer (TestXLADiffReproducers); one whose difference is XLA's
   rule that cannot be known offline lists the figure in known.json.

The venv is testdata/groundtruth/gen/requirements.txt's; nothing here is part
of make test.
"""

from __future__ import annotations

import argparse
import atexit
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "testdata", "groundtruth", "gen"))
import generate as gt  # noqa: E402  (testdata/groundtruth/gen/generate.py: dumps, paths, versions)
import randprog  # noqa: E402

# backend -> platform, topology, the jit name's suffix
BACKENDS = {
    "tpu-v5e": ("tpu", "v5e:2x2", "v5e"),
    "tpu-v6e": ("tpu", "v6e:2x2", "v6e"),
    # v4's topologies list each chip's two TensorCores as devices; the mesh
    # takes TensorCore 0 of each of the 4 chips.
    "tpu-v4": ("tpu", "v4:2x2x1", "v4"),
    "h100": ("cuda", "1x1x1", "h100"),
    "cpu": ("cpu", None, "cpu"),
}
# Files of a compile copied into a reproducer.
REPRO_FILES = ["before_optimizations.txt", "after_optimizations.txt", "buffer-assignment.txt",
               "memory_analysis.json", "cost_analysis.json", "compile.json"]
# Figures a disagreement is reduced for, in order of interest.
REDUCE_FIGURES = ["parse", "verify", "round trip", "arguments", "outputs", "aliased", "buffer sizes",
                  "peak within 5%", "TPU layouts", "xla-cost flops", "peak exact", "temporaries"]


def jit_name(key: str, backend: str) -> str:
    return f"x{key}_{BACKENDS[backend][2]}"


# ---------------------------------------------------------------- compiler process (child)


def child(jobs_path: str, dump: str) -> None:
    """Compiles the jobs of jobs_path in order; each lands in its dest."""
    import jax
    from jax.experimental import topologies

    with open(jobs_path) as f:
        jobs = json.load(f)
    topos = {}
    for i, job in enumerate(jobs):
        with open(jobs_path + ".current", "w") as f:
            f.write(str(i))
        if os.path.exists(os.path.join(job["dest"], "compile.json")):
            continue
        platform, topology, _ = BACKENDS[job["backend"]]
        if job["backend"] not in topos and platform != "cpu":
            if platform == "tpu":
                topos[job["backend"]] = topologies.get_topology_desc(topology_name=topology, platform="tpu")
            else:
                topos[job["backend"]] = topologies.get_topology_desc(platform="cuda", target_config=gt.H100_TARGET_CONFIG,
                                                                     topology=topology)
        topo = topos.get(job["backend"])
        try:
            compile_job(jax, topo, job, dump)
        except Exception as e:  # noqa: BLE001 - XLA refused the program: recorded
            fail(job, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        shutil.rmtree(dump)  # the next compile's files only
        os.makedirs(dump)


def fail(job: dict, why: str) -> None:
    os.makedirs(job["dest"], exist_ok=True)
    gt.write_json(os.path.join(job["dest"], "compile.json"),
                  {"backend": job["backend"], "key": job["key"], "error": gt.strip_paths(why)[:2000]})


def compile_job(jax, topo, job: dict, dump: str) -> None:
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

    prog = randprog.Program.from_json(job["program"])
    backend, name = job["backend"], jit_name(job["key"], job["backend"])
    ns: dict = {}
    exec(compile(prog.source(name), "program.py", "exec"), ns)
    fn = ns[name]
    info = {"backend": backend, "key": job["key"], "seed": prog.seed, "versions": gt.versions(),
            "xla_flags": "--xla_dump_to=DIR --xla_dump_hlo_as_text", "donate": prog.donate}
    if topo is None:
        shardings = [SingleDeviceSharding(jax.devices("cpu")[0])] * len(prog.args)
    elif prog.shard and BACKENDS[backend][0] == "tpu":
        mesh = jax.sharding.Mesh(np.array([d for d in topo.devices if d.core_on_chip == 0][:4]), ("x",))
        shardings = []
        for i, a in enumerate(prog.args):
            dims = [None] * len(a.shape)
            if i == prog.shard[0]:
                dims[prog.shard[1]] = "x"
            shardings.append(NamedSharding(mesh, PartitionSpec(*dims)))
        info["mesh"] = {"shape": [4], "axes": ["x"], "shard": list(prog.shard)}
    else:
        shardings = [SingleDeviceSharding(topo.devices[0])] * len(prog.args)
    if topo is not None:
        info["device_kind"] = topo.devices[0].device_kind
    structs = [jax.ShapeDtypeStruct(a.shape, jnp.dtype(a.dtype), sharding=s) for a, s in zip(prog.args, shardings)]
    t0 = time.perf_counter()
    compiled = jax.jit(fn, donate_argnums=tuple(prog.donate)).trace(*structs).lower().compile()
    info["compile_s"] = round(time.perf_counter() - t0, 2)
    tmp = job["dest"] + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    ma = compiled.memory_analysis()
    gt.write_json(os.path.join(tmp, "memory_analysis.json"),
                  None if ma is None else {f: getattr(ma, f) for f in gt.MEMORY_FIELDS if hasattr(ma, f)})
    try:
        ca = compiled.cost_analysis()
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        ca, info["cost_analysis_error"] = None, str(e)
    if isinstance(ca, list):
        ca = ca[0] if ca else None
    gt.write_json(os.path.join(tmp, "cost_analysis.json"), gt.plain(ca))
    info["dump_files"] = gt.keep_dumps(name, dump, tmp)
    gt.write_json(os.path.join(tmp, "compile.json"), info)
    shutil.rmtree(job["dest"], ignore_errors=True)
    os.replace(tmp, job["dest"])


# ---------------------------------------------------------------- driver (parent)


def compile_env(dump: str) -> dict:
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
    # The TPU and GPU compiles need no device; libtpu's lock file is shared.
    env["JAX_PLATFORMS"] = ""
    env["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"
    env["JAX_SKIP_CUDA_CONSTRAINTS_CHECK"] = "1"
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def run_batch(jobs: list[dict]) -> None:
    """Compiles jobs in one compiler process; a job that kills the process is
    recorded as failed and the rest go on in a new one."""
    while jobs:
        with tempfile.TemporaryDirectory(prefix="xladiff-") as tmp:
            jobs_path = os.path.join(tmp, "jobs.json")
            with open(jobs_path, "w") as f:
                json.dump(jobs, f)
            dump = os.path.join(tmp, "dump")
            os.makedirs(dump)
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", jobs_path, dump],
                               env=compile_env(dump), capture_output=True, text=True)
            done = [j for j in jobs if os.path.exists(os.path.join(j["dest"], "compile.json"))]
            rest = [j for j in jobs if j not in done]
            if not rest:
                return
            if p.returncode == 0:
                raise RuntimeError(f"compiler process ended without compiling {len(rest)} jobs")
            cur = 0
            if os.path.exists(jobs_path + ".current"):
                cur = int(open(jobs_path + ".current").read() or 0)
            err = [line for line in p.stderr.splitlines() if line.strip()]
            why = f"compiler process died (exit {p.returncode}): {err[-1] if err else ''}"
            fail(jobs[cur], why)
            jobs = [j for j in rest if j is not jobs[cur]]


def compile_all(items: list[tuple[randprog.Program, str]], cache: str, nproc: int, batch: int = 40) -> None:
    """Compiles each (program, backend) not yet in the cache."""
    jobs = []
    for prog, backend in items:
        key = prog.key()
        dest = compile_dir(cache, key, backend)
        if not os.path.exists(os.path.join(dest, "compile.json")):
            jobs.append({"program": prog.to_json(), "key": key, "backend": backend, "dest": dest})
    if not jobs:
        return
    print(f"compiling {len(jobs)} programs x backends ({nproc} processes)", flush=True)
    chunks = [jobs[i:i + batch] for i in range(0, len(jobs), batch)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=nproc) as pool:
        for _ in pool.map(run_batch, chunks):
            pass


def compile_dir(cache: str, key: str, backend: str) -> str:
    return os.path.join(cache, "compiles", key, backend)


def compiled_ok(d: str) -> bool:
    try:
        with open(os.path.join(d, "compile.json")) as f:
            return "error" not in json.load(f)
    except FileNotFoundError:
        return False


def build_tools(cache: str) -> tuple[str, str]:
    """Builds hlo-opt and xla-diff from this checkout into a directory of
    this run's own under the cache (two runs at once, from two checkouts,
    must not overwrite each other's binaries)."""
    os.makedirs(cache, exist_ok=True)
    bindir = tempfile.mkdtemp(prefix="bin-", dir=cache)
    atexit.register(shutil.rmtree, bindir, True)
    tools = []
    for pkg, name in [("./cmd/hlo-opt", "hlo-opt"), ("./cmd/xla-diff", "xla-diff")]:
        out = os.path.join(bindir, name)
        subprocess.run(["go", "build", "-o", out, pkg], cwd=REPO, check=True)
        tools.append(out)
    return tools[0], tools[1]


def xla_diff(tools: tuple[str, str], dirs: list[str], results: str, quiet: bool, jobs: int) -> list[dict]:
    if not dirs:
        return []
    cmd = [tools[1], "-hlo-opt", tools[0], "-results", results, "-jobs", str(jobs)] + (["-q"] if quiet else []) + dirs
    subprocess.run(cmd, check=True)
    with open(results) as f:
        return json.load(f)


def disagrees(result: dict, figure: str) -> bool:
    return any(o["figure"] == figure and not o["agree"] for o in result["outcomes"])


def candidates(p: randprog.Program) -> list[randprog.Program]:
    """Smaller programs: one output dropped, or one operation replaced by a
    fresh argument of its shape; smallest first."""
    out = []
    if len(p.outputs) > 1:
        for o in p.outputs:
            out.append(randprog.Program(p.seed, p.args, p.ops, [x for x in p.outputs if x != o], p.donate, p.shard).prune())
    names = {a.name for a in p.args}
    for k, op in enumerate(p.ops):
        if all(i in names for i in op.ins) and len(p.ops) == 1:
            continue
        n = 0
        while f"r{n}" in names:
            n += 1
        arg = randprog.Arg(f"r{n}", op.shape, op.dtype)
        ops = [dataclass_replace(o, [i if i != op.out else arg.name for i in o.ins]) for o in p.ops if o is not op]
        outs = [x if x != op.out else arg.name for x in p.outputs]
        if all(x in names or x == arg.name for x in outs):
            continue  # nothing would be computed
        out.append(randprog.Program(p.seed, p.args + [arg], ops, outs, p.donate, p.shard).prune())
    seen, uniq = set(), []
    for c in sorted(out, key=lambda c: (len(c.ops), len(c.args))):
        if c.key() not in seen and c.ops:
            seen.add(c.key())
            uniq.append(c)
    return uniq


def dataclass_replace(o: randprog.Op, ins: list[str]) -> randprog.Op:
    return randprog.Op(o.out, o.expr, ins, o.shape, o.dtype)


def reduce(prog: randprog.Program, backend: str, figure: str, cache: str, tools, nproc: int) -> randprog.Program:
    """The smallest program found on which figure still disagrees."""
    while True:
        cands = candidates(prog)
        if not cands:
            return prog
        compile_all([(c, backend) for c in cands], cache, nproc, batch=max(1, (len(cands) + nproc - 1) // nproc))
        dirs = [compile_dir(cache, c.key(), backend) for c in cands]
        ok = [d for d in dirs if compiled_ok(d)]
        res = {r["dir"]: r for r in xla_diff(tools, ok, os.path.join(cache, "reduce.json"), True, nproc)}
        for c, d in zip(cands, dirs):
            if d in res and disagrees(res[d], figure):
                print(f"  {figure} on {backend}: {len(prog.ops)} -> {len(c.ops)} operations", flush=True)
                prog = c
                break
        else:
            return prog


def slug(figure: str) -> str:
    return {"peak within 5%": "peak5", "peak exact": "peak", "round trip": "roundtrip", "buffer sizes": "sizes",
            "TPU layouts": "layouts", "xla-cost flops": "flops", "allocation classes": "classes"}.get(figure, figure)


def write_reproducer(prog: randprog.Program, backend: str, figure: str, cache: str, out: str) -> str:
    key = prog.key()
    dest = os.path.join(out, f"{slug(figure)}-{backend}-{key[:8]}")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, backend))
    with open(os.path.join(dest, "program.py"), "w") as f:
        f.write(prog.source())
    gt.write_json(os.path.join(dest, "program.json"), prog.to_json())
    src = compile_dir(cache, key, backend)
    for name in REPRO_FILES:
        if os.path.exists(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), os.path.join(dest, backend, name))
    return dest


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                                                    "hlo-opt-xladiff"))
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--jobs", type=int, default=2, help="compiler processes at once (and comparisons)")
    ap.add_argument("--reduce", type=int, default=8, help="disagreements reduced and written (0: none)")
    ap.add_argument("--reduce-on", default="", help="backends whose disagreements are reduced (default: all)")
    ap.add_argument("--reduce-figures", default="", help="figures whose disagreements are reduced (default: all)")
    ap.add_argument("--out", default=os.path.join(REPO, "testdata", "xladiff"))
    ap.add_argument("--results", default="", help="write every compile's outcomes here (JSON)")
    a = ap.parse_args()
    backends = [b for b in a.backends.split(",") if b]
    for b in backends:
        if b not in BACKENDS:
            sys.exit(f"unknown backend {b!r}; known: {', '.join(BACKENDS)}")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    seeds = range(a.seed, a.seed + a.n)
    progs = {s: randprog.generate(s) for s in seeds}
    compile_all([(p, b) for p in progs.values() for b in backends], a.cache, a.jobs)
    tools = build_tools(a.cache)
    dirs, failed = [], {}
    for s, p in progs.items():
        for b in backends:
            d = compile_dir(a.cache, p.key(), b)
            if compiled_ok(d):
                dirs.append(d)
            else:
                failed.setdefault(b, []).append(s)
    print(f"seeds {a.seed}..{a.seed + a.n - 1}: {len(progs)} programs, {len(dirs)} compiles")
    for b, ss in sorted(failed.items()):
        print(f"XLA refused {len(ss)} on {b} (seeds {', '.join(map(str, ss[:10]))}{', ...' if len(ss) > 10 else ''})")
    print()
    results = a.results or os.path.join(a.cache, f"results-{a.seed}-{a.n}.json")
    rs = xla_diff(tools, dirs, results, False, a.jobs)
    seed_of = {compile_dir(a.cache, p.key(), b): (s, b) for s, p in progs.items() for b in backends}
    firsts, rest, seen = [], [], set()
    figures = [f for f in a.reduce_figures.split(",") if f] or REDUCE_FIGURES
    on = [b for b in a.reduce_on.split(",") if b] or backends
    for fig in figures:
        for r in rs:
            if disagrees(r, fig) and r["backend"] in on:
                s, b = seed_of[r["dir"]]
                (rest if (fig, b) in seen else firsts).append((fig, b, s))
                seen.add((fig, b))
    todo = (firsts + rest)[:a.reduce]
    for fig, b, s in todo:
        print(f"reducing seed {s} on {b} ({fig})", flush=True)
        small = reduce(progs[s], b, fig, a.cache, tools, a.jobs)
        same = glob.glob(os.path.join(a.out, f"*-{b}-{small.key()[:8]}"))
        if same:  # the same small program found for another figure
            print("  already written as", os.path.relpath(same[0], REPO), flush=True)
            continue
        print("  wrote", os.path.relpath(write_reproducer(small, b, fig, a.cache, a.out), REPO), flush=True)


if __name__ == "__main__":
    main()
