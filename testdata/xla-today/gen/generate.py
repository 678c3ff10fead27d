"""Compile a handful of JAX programs with today's XLA and keep its HLO dumps.

hlo-opt must read every module the pinned jax/jaxlib/libtpu/CUDA plugin print
(issue 17). This script compiles the programs below for TPU (ahead of time, no
TPU needed), for an H100 (deviceless) and for the CPU, with XLA dumping HLO
text, and copies each program's before- and after-optimization modules to
OUT/<backend>/<program>.{before,after}.hlo, and compiled.cost_analysis() to
OUT/<backend>/<program>.cost.json (null for the deviceless H100). The generating
script's own file paths are stripped from the FileNames table (only the base name
is kept).

It also writes OUT/xla-get-tuple-elements.tsv (the get-tuple-elements XLA's
own parser makes for "%t#k" operands) and OUT/syntax/syntax.hlo (syntax.py: the
modules of syntax_in.hlo as XLA prints them).

Usage: python generate.py OUT [--backends tpu-v5e,tpu-v6e,tpu-v4,gpu-h100,cpu]
(`make corpus-today` runs it in a pinned venv). Each backend is compiled in a
child process of its own, since XLA reads XLA_FLAGS once per process.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gen"))
from h100 import h100_target_config  # noqa: E402  (testdata/gen/h100.py)

BACKENDS = ("tpu-v5e", "tpu-v6e", "tpu-v4", "gpu-h100", "cpu")

# The programs, in the order they are compiled (see programs()).
PROGRAM_NAMES = ("while_loop", "scan", "sort", "top_k", "multi_output", "fft", "embeddings",
                 "transformer_block", "train_step", "all_reduce", "async_copy")

# Which programs each backend compiles (TPU v6e and v4 compile the
# collectives and the transformer only, to keep the data small).
SUBSETS = {
    "tpu-v6e": ("all_reduce", "transformer_block", "train_step", "top_k"),
    "tpu-v4": ("all_reduce", "scan", "sort"),
}

TOPOLOGIES = {"tpu-v5e": "v5e:2x2", "tpu-v6e": "v6e:2x2", "tpu-v4": "v4:2x2x1"}

# An H100 for deviceless compiles (values as the CUDA runtime reports them).
H100_TARGET_CONFIG = h100_target_config(device_memory_size=84929347584, dnn_version="major: 9 minor: 8",
                                        runtime_version="major: 13 minor: 0")


def programs(mesh=None):
    """The programs: name -> (function, argument specs, needs the 4-device mesh)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f32, bf16, i32 = jnp.float32, jnp.bfloat16, jnp.int32

    def while_loop(x):
        # A data-dependent trip count: a real while loop.
        def cond(c):
            i, v = c
            return (jnp.sum(v) < 1e6) & (i < 100)

        def body(c):
            i, v = c
            return i + 1, v * 1.5 + 1.0

        return lax.while_loop(cond, body, (0, x))

    def scan(w, xs, h0):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, jnp.sum(h, axis=-1)

        return lax.scan(step, h0, xs)

    def sort(keys, vals):
        return lax.sort((keys, vals), dimension=1, num_keys=1)

    def top_k(x):
        return lax.top_k(x, 8)

    def multi_output(x, y):
        z = jnp.exp(x) * y
        return z, jnp.sum(z, axis=1), jnp.max(x + y, axis=1)

    def fft(x):
        return jnp.fft.irfft(jnp.fft.rfft(x, axis=-1) * 0.5, axis=-1)

    def embeddings(table, ids):
        def loss(t):
            return jnp.sum(jnp.take(t, ids, axis=0) ** 2)

        return jax.grad(loss)(table)

    def layer_norm(x, g):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-6) * g

    def block(p, x):
        h = layer_norm(x, p["g1"])
        q, k, v = (h @ p[w] for w in ("wq", "wk", "wv"))
        b, s, d = q.shape
        q, k, v = (t.reshape(b, s, 4, d // 4) for t in (q, k, v))
        a = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // 4).astype(x.dtype)
        a = jnp.where(jnp.tril(jnp.ones((s, s), bool)), a, -1e9)
        a = jax.nn.softmax(a.astype(f32), axis=-1).astype(x.dtype)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, s, d) @ p["wo"]
        x = x + o
        h = layer_norm(x, p["g2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def transformer_block(p, x):
        return block(p, x)

    def train_step(p, x, y):
        def loss(p):
            return jnp.mean((block(p, x).astype(f32) - y) ** 2)

        l, g = jax.value_and_grad(loss)(p)
        return l, jax.tree.map(lambda w, gw: w - 0.01 * gw.astype(w.dtype), p, g)

    def all_reduce(x):
        # Runs on a 4-device mesh: sum over the devices, then a ring shift.
        from jax.sharding import PartitionSpec as P

        def f(b):
            s = lax.psum(b, "x")
            r = lax.ppermute(b, "x", [(i, (i + 1) % 4) for i in range(4)])
            g = lax.all_gather(b, "x", tiled=True)
            return s + r, jnp.sum(g, axis=0, keepdims=True)

        return jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")))(x)

    def async_copy(w, x):
        # A weight read by a loop: TPU memory-space assignment prefetches
        # it with copy-start/copy-done.
        def body(i, h):
            return jnp.tanh(h @ w)

        return lax.fori_loop(0, 4, body, x)

    d = 64
    params = {w: ((d, d), bf16) for w in ("wq", "wk", "wv", "wo")}
    params.update(w1=((d, 4 * d), bf16), w2=((4 * d, d), bf16), g1=((d,), bf16), g2=((d,), bf16))
    return {
        "while_loop": (while_loop, [((8, 128), f32)], False),
        "scan": (scan, [((16, 16), f32), ((12, 8, 16), f32), ((8, 16), f32)], False),
        "sort": (sort, [((4, 256), f32), ((4, 256), i32)], False),
        "top_k": (top_k, [((16, 1024), f32)], False),
        "multi_output": (multi_output, [((64, 256), f32), ((64, 256), f32)], False),
        "fft": (fft, [((8, 256), f32)], False),
        "embeddings": (embeddings, [((512, 64), f32), ((4, 32), i32)], False),
        "transformer_block": (transformer_block, [params, ((2, 32, d), bf16)], False),
        "train_step": (train_step, [params, ((2, 32, d), bf16), ((2, 32, d), f32)], False),
        "all_reduce": (all_reduce, [((16, 128), f32)], True),
        "async_copy": (async_copy, [((512, 512), bf16), ((128, 512), bf16)], False),
    }


def compile_backend(backend: str, dump: str) -> None:
    """Runs in a child process with XLA_FLAGS set: compile every program of backend."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

    if backend == "cpu":
        jax.config.update("jax_num_cpu_devices", 4)
        devices = jax.devices("cpu")
    elif backend == "gpu-h100":
        topo = topologies.get_topology_desc(platform="cuda", target_config=H100_TARGET_CONFIG, topology="1x1x4")
        devices = topo.devices
    else:
        topo = topologies.get_topology_desc(topology_name=TOPOLOGIES[backend], platform="tpu")
        devices = topo.devices
    mesh = jax.sharding.Mesh(devices[:4], ("x",))
    one = SingleDeviceSharding(devices[0])
    only = SUBSETS.get(backend)
    progs = programs(mesh)
    assert tuple(progs) == PROGRAM_NAMES, "PROGRAM_NAMES is out of date"
    for name, (fn, specs, meshed) in progs.items():
        if only and name not in only:
            continue

        def arg(spec):
            shape, dtype = spec
            sharding = NamedSharding(mesh, P("x")) if meshed else one
            return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)

        args = jax.tree.map(arg, specs, is_leaf=lambda s: isinstance(s, tuple) and isinstance(s[0], tuple))
        fn.__name__ = name
        jit = jax.jit(fn)
        compiled = jit.trace(*args).lower().compile()
        # compiled.cost_analysis(): None for a deviceless GPU compile.
        ca = compiled.cost_analysis()
        if isinstance(ca, list):
            ca = ca[0] if ca else None
        with open(os.path.join(dump, f"{name}.cost_analysis.json"), "w") as f:
            json.dump(None if ca is None else {k: float(v) for k, v in ca.items()}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{backend}: compiled {name}", flush=True)


def strip_paths(text: str) -> str:
    """Keep only the base name of every file in the FileNames table."""
    out, in_table = [], False
    for line in text.split("\n"):
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            in_table = line == "FileNames"
        elif in_table:
            m = re.match(r'^(\d+) "(.*)"$', line)
            if m:
                line = f'{m.group(1)} "{os.path.basename(m.group(2))}"'
        out.append(line)
    text = "\n".join(out)
    # Paths may also appear in metadata (source_file=...).
    return re.sub(r'source_file="[^"]*/([^"/]*)"', r'source_file="\1"', text)


def collect(backend: str, dump: str, out: str) -> int:
    """Copy the program's before/after modules of dump to out/backend/."""
    dest = os.path.join(out, backend)
    os.makedirs(dest, exist_ok=True)
    for old in glob.glob(os.path.join(dest, "*.hlo")) + glob.glob(os.path.join(dest, "*.cost.json")):
        os.remove(old)
    for path in glob.glob(os.path.join(dump, "*.cost_analysis.json")):
        name = os.path.basename(path)[: -len(".cost_analysis.json")]
        shutil.copy(path, os.path.join(dest, f"{name}.cost.json"))
    n = 0
    for path in sorted(glob.glob(os.path.join(dump, "module_*.txt"))):
        base = os.path.basename(path)
        m = re.match(r"module_\d+\.jit_(\w+?)(?:\.cl_\d+)?\.(before_optimizations|[\w.]*after_optimizations)\.txt$", base)
        if not m or m.group(1) not in PROGRAM_NAMES:
            continue
        stage = "before" if m.group(2) == "before_optimizations" else "after"
        with open(path) as f:
            text = strip_paths(f.read())
        with open(os.path.join(out, backend, f"{m.group(1)}.{stage}.hlo"), "w") as f:
            f.write(text)
        n += 1
    return n


def xla_tuple_elements(out: str) -> None:
    """Write xla-get-tuple-elements.tsv: the get-tuple-element instructions
    XLA's own parser makes for the "%t#k" operands of every dump (parsed and
    printed back by the pinned jaxlib), so that hlo-opt's tests can check
    its implicit ones against them: computation, name, tuple operand, index,
    and in scheduled modules the instruction XLA puts after it ("-" in
    others, where XLA prints in post order)."""
    from jaxlib import _hlo

    rows = ["# file\tcomputation\tname\toperand\tindex\tnext"]
    comp_re = re.compile(r"^(?:ENTRY )?%(\S+) .*\{$")
    inst_re = re.compile(r"^\s+(?:ROOT )?%(\S+) = ")
    gte_re = re.compile(r"^\s+(?:ROOT )?%(\S+) = .* get-tuple-element\((?:.* )?%([^ ,)]+)\), index=(\d+)$")
    paths = [p for b in BACKENDS for p in sorted(glob.glob(os.path.join(out, b, "*.hlo")))]
    for path in paths:
        with open(path) as f:
            text = f.read()
        if "#" not in text:
            continue
        scheduled = "is_scheduled=true" in text.split("\n", 1)[0]
        lines = _hlo.hlo_module_from_text(text).to_string().split("\n")
        name = os.path.relpath(path, out)
        comp = None
        for i, line in enumerate(lines):
            m = comp_re.match(line)
            if m:
                comp = m.group(1)
                continue
            m = gte_re.match(line)
            if not m:
                continue
            nxt = "-"
            if scheduled:
                n = inst_re.match(lines[i + 1])
                nxt = n.group(1) if n else "-"
            rows.append("\t".join((name, comp, m.group(1), m.group(2), m.group(3), nxt)))
    with open(os.path.join(out, "xla-get-tuple-elements.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        compile_backend(a.child, a.dump)
        return
    for backend in a.backends.split(","):
        if backend not in BACKENDS:
            sys.exit(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
        dump = tempfile.mkdtemp(prefix="xla-dump-")
        env = dict(os.environ)
        env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
        env["JAX_SKIP_CUDA_CONSTRAINTS_CHECK"] = "1"
        env["JAX_PLATFORMS"] = "cpu" if backend == "cpu" else ""
        if backend.startswith("gpu"):
            env["CUDA_VISIBLE_DEVICES"] = "-1"
        subprocess.run([sys.executable, __file__, a.out, "--child", backend, "--dump", dump], env=env, check=True)
        n = collect(backend, dump, a.out)
        shutil.rmtree(dump)
        print(f"{backend}: {n} modules", flush=True)
    xla_tuple_elements(a.out)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import syntax

    syntax.main(a.out)


if __name__ == "__main__":
    main()
