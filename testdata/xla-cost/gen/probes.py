"""Probe XLA's compiled.cost_analysis() one op family at a time.

Each probe is a small JAX program; it is compiled ahead of time (no accelerator) for
TPU v5e, v6e and v4 (libtpu's TpuHloCostAnalysis, closed source) and for the CPU, and
the optimized module (compiled.as_text()) and cost_analysis() are kept:

  testdata/xla-cost/probes/<backend>/<probe>.hlo    the module XLA costed
  testdata/xla-cost/probes/<backend>/<probe>.json   its cost_analysis(), every key

cost_analysis() gives module totals only, but with one key per operand position and
output ("bytes accessed0{}", "utilization1{}", "bytes accessedout{}", summed over the
instructions), so each probe pins down the rule of the op it isolates. The Go tests
(cost/xlacost_probes_test.go) cost each kept module with cost.XLACost and compare every
key. Pinned versions: testdata/groundtruth/gen/requirements.txt (jax/jaxlib 0.12.0.1,
libtpu 0.0.52). Not part of make test.

Usage: python probes.py [--out DIR] [--backends cpu,tpu-v5e] [--probes a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "probes")

BACKENDS = {
    "tpu-v5e": ("tpu", "v5e:2x2"),
    "tpu-v6e": ("tpu", "v6e:2x2"),
    "tpu-v4": ("tpu", "v4:2x2x1"),
    "cpu": ("cpu", None),
}


def probes():
    """name -> (fn, [(shape, dtype)], devices): devices > 1 runs fn under shard_map
    over a 1-D mesh "x" with every argument split along its first dimension."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f32, bf16, s32 = "float32", "bfloat16", "int32"
    p = {}

    def probe(name, *args, devices=1):
        def reg(fn):
            p[name] = (fn, list(args), devices)
            return fn
        return reg

    # elementwise: 1 flop per element, transcendentals apart
    probe("add", ((1024, 1024), f32), ((1024, 1024), f32))(lambda x, y: x + y)
    probe("add_padded", ((1000, 100), f32), ((1000, 100), f32))(lambda x, y: x + y)
    probe("add_bf16", ((1024, 1024), bf16), ((1024, 1024), bf16))(lambda x, y: x + y)
    probe("add_small", ((8, 128), f32), ((8, 128), f32))(lambda x, y: x + y)
    probe("exp", ((1024, 1024), f32))(jnp.exp)
    probe("tanh", ((1024, 1024), f32))(jnp.tanh)
    probe("logistic", ((1024, 1024), f32))(jax.nn.sigmoid)
    probe("rsqrt", ((1024, 1024), f32))(lax.rsqrt)
    probe("log1p", ((1024, 1024), f32))(jnp.log1p)
    probe("erf", ((1024, 1024), f32))(lax.erf)
    probe("sin", ((1024, 1024), f32))(jnp.sin)
    probe("power", ((1024, 1024), f32), ((1024, 1024), f32))(lax.pow)
    probe("divide", ((1024, 1024), f32), ((1024, 1024), f32))(lambda x, y: x / y)
    probe("convert", ((1024, 1024), f32))(lambda x: x.astype(jnp.bfloat16))
    probe("select", ((1024, 1024), f32), ((1024, 1024), f32))(lambda x, y: jnp.where(x > y, x, y))
    probe("exp_add_fusion", ((1024, 1024), f32), ((1024, 1024), f32))(lambda x, y: jnp.exp(x) + y)
    probe("exp_chain", ((1024, 1024), f32))(lambda x: jax.tree_util.tree_reduce(
        lambda c, _: jnp.exp(-c), list(range(32)), x))
    probe("add_chain", ((1024, 1024), f32))(lambda x: jax.tree_util.tree_reduce(
        lambda c, i: c * 1.0001 + i, list(range(64)), x))
    probe("broadcast_add", ((1024, 1024), f32), ((1024,), f32))(lambda x, y: x + y[None, :])
    probe("gelu", ((1024, 1024), f32))(jax.nn.gelu)
    # data movement
    probe("transpose", ((1024, 512), f32))(lambda x: x.T + 1)
    probe("transpose_only", ((1024, 512), f32))(lambda x: x.T)
    probe("reshape", ((1024, 1024), f32))(lambda x: x.reshape(512, 2048) * 2)
    probe("slice", ((1024, 1024), f32))(lambda x: x[:512, 128:640] * 2)
    probe("pad", ((1000, 1000), f32))(lambda x: jnp.pad(x, ((0, 24), (0, 24))))
    probe("concatenate", ((512, 1024), f32), ((512, 1024), f32))(lambda x, y: jnp.concatenate([x, y], 0))
    probe("reverse", ((1024, 1024), f32))(lambda x: x[::-1] * 2)
    probe("iota", ((1024, 1024), f32))(lambda x: x + jnp.arange(1024, dtype=jnp.float32))
    probe("dynamic_slice", ((1024, 1024), f32), ((), s32))(
        lambda x, i: lax.dynamic_slice(x, (i, 0), (8, 1024)) * 2)
    probe("dynamic_update_slice", ((1024, 1024), f32), ((8, 1024), f32), ((), s32))(
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0)))
    probe("gather", ((8192, 512), f32), ((1024,), s32))(lambda t, i: t[i])
    probe("scatter_add", ((8192, 512), f32), ((1024,), s32), ((1024, 512), f32))(
        lambda t, i, u: t.at[i].add(u))
    # reductions
    probe("reduce_row", ((1024, 1024), f32))(lambda x: x.sum(1))
    probe("reduce_col", ((1024, 1024), f32))(lambda x: x.sum(0))
    probe("reduce_all", ((1024, 1024), f32))(lambda x: x.sum())
    probe("reduce_max_bf16", ((1024, 1024), bf16))(lambda x: x.max(1))
    probe("argmax", ((1024, 1024), f32))(lambda x: jnp.argmax(x, 1))
    probe("softmax", ((1024, 1024), f32))(lambda x: jax.nn.softmax(x, -1))
    probe("layer_norm", ((1024, 1024), f32))(
        lambda x: (x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5))
    # reduce-window
    probe("cumsum", ((256, 1024), f32))(lambda x: jnp.cumsum(x, 1))
    probe("cumsum_rows", ((1024, 256), f32))(lambda x: jnp.cumsum(x, 0))
    probe("max_pool", ((8, 64, 64, 128), f32))(
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"))
    probe("avg_pool", ((8, 64, 64, 128), f32))(
        lambda x: lax.reduce_window(x, 0., lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4)
    # matmuls and convolutions
    probe("dot", ((1024, 1024), f32), ((1024, 1024), f32))(lambda a, b: a @ b)
    probe("dot_bf16", ((1024, 2048), bf16), ((2048, 512), bf16))(lambda a, b: a @ b)
    probe("dot_skinny", ((8, 1000), f32), ((1000, 100), f32))(lambda a, b: a @ b)
    probe("dot_batched", ((16, 256, 128), bf16), ((16, 128, 256), bf16))(
        lambda a, b: jnp.einsum("bij,bjk->bik", a, b))
    probe("dot_bias_relu", ((1024, 1024), bf16), ((1024, 1024), bf16), ((1024,), bf16))(
        lambda a, b, c: jax.nn.relu(a @ b + c))
    probe("dot_bf16_big", ((4096, 4096), bf16), ((4096, 4096), bf16))(lambda a, b: a @ b)
    probe("dot_int8_big", ((4096, 4096), "int8"), ((4096, 4096), "int8"))(
        lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32))
    probe("dot_f32_highest", ((2048, 2048), f32), ((2048, 2048), f32))(
        lambda a, b: jnp.matmul(a, b, precision=lax.Precision.HIGHEST))
    probe("matvec", ((4096, 4096), f32), ((4096,), f32))(lambda a, v: a @ v)
    probe("conv", ((8, 32, 32, 64), f32), ((3, 3, 64, 128), f32))(
        lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    probe("conv_strided", ((8, 32, 32, 64), bf16), ((3, 3, 64, 64), bf16))(
        lambda x, k: lax.conv_general_dilated(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    probe("conv_depthwise", ((8, 32, 32, 64), f32), ((3, 3, 1, 64), f32))(
        lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                              feature_group_count=64))
    # control flow
    probe("fori_loop", ((1024, 1024), f32))(
        lambda x: lax.fori_loop(0, 10, lambda i, c: jnp.sin(c) * 2, x))
    probe("scan", ((10, 1024, 1024), f32), ((1024, 1024), f32))(
        lambda xs, c: lax.scan(lambda c, x: (c * x + 1, None), c, xs)[0])
    probe("while_dynamic", ((1024, 1024), f32))(
        lambda x: lax.while_loop(lambda c: c[0].sum() < 100, lambda c: (c[0] * 2 + 1,), (x,))[0])
    probe("cond", ((1024, 1024), f32), ((), s32))(
        lambda x, i: lax.cond(i > 0, lambda x: jnp.exp(x) * 2, lambda x: x @ x, x))
    probe("switch3", ((1024, 1024), f32), ((), s32))(
        lambda x, i: lax.switch(i, [lambda x: x + 1, lambda x: jnp.sin(x), lambda x: x.T * 3], x))
    # sort, top-k, fft, rng
    probe("sort", ((1024, 1024), f32))(lambda x: jnp.sort(x, 1))
    probe("sort_pairs", ((1024, 1024), f32), ((1024, 1024), s32))(lambda x, y: lax.sort((x, y), num_keys=1))
    probe("top_k", ((1024, 1024), f32))(lambda x: lax.top_k(x, 8))
    probe("fft", ((256, 1024), "complex64"))(lambda x: jnp.fft.fft(x))
    probe("rfft2", ((64, 256, 256), f32))(lambda x: jnp.fft.rfft2(x))
    probe("rng_uniform", ((1024, 1024), f32))(lambda x: x + jax.random.uniform(jax.random.key(0), (1024, 1024)))
    probe("cholesky", ((64, 64), f32))(lambda x: jnp.linalg.cholesky(x @ x.T + 64 * jnp.eye(64)))
    probe("triangular_solve", ((256, 256), f32), ((256, 64), f32))(
        lambda a, b: jax.scipy.linalg.solve_triangular(jnp.tril(a) + 256 * jnp.eye(256), b, lower=True))
    # collectives over 4 devices (each argument split along dim 0)
    probe("psum", ((4096, 1024), f32), devices=4)(lambda x: lax.psum(x, "x"))
    probe("all_gather", ((4096, 1024), f32), devices=4)(lambda x: lax.all_gather(x, "x", tiled=True))
    probe("ppermute", ((4096, 1024), f32), devices=4)(
        lambda x: lax.ppermute(x, "x", [(i, (i + 1) % 4) for i in range(4)]))
    probe("psum_scatter", ((4096, 1024), f32), devices=4)(lambda x: lax.psum_scatter(x, "x", tiled=True))
    probe("all_to_all", ((4096, 1024), f32), devices=4)(
        lambda x: lax.all_to_all(x, "x", 1, 1, tiled=True))
    return p


PATHS = re.compile(r'"/[^"\n]*/([^"/\n]+)"')


def run_backend(backend: str, out: str, only: list[str]) -> None:
    platform, topology = BACKENDS[backend]
    if platform == "cpu":
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

    if platform == "tpu":
        devices = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices
    else:
        devices = jax.devices("cpu")
    dest = os.path.join(out, backend)
    os.makedirs(dest, exist_ok=True)
    for name, (fn, args, n) in probes().items():
        if only and name not in only:
            continue
        if n > 1:
            mesh = Mesh(devices[:n], ("x",))
            shardings = [NamedSharding(mesh, P("x")) for _ in args]
            fn = jax.shard_map(fn, mesh=mesh, in_specs=tuple(P("x") for _ in args), out_specs=P("x"),
                               check_vma=False)
        else:
            shardings = [SingleDeviceSharding(devices[0])] * len(args)
        structs = [jax.ShapeDtypeStruct(s, jnp.dtype(d), sharding=sh) for (s, d), sh in zip(args, shardings)]
        try:
            compiled = jax.jit(fn).trace(*structs).lower().compile()
        except Exception as e:  # noqa: BLE001 - a probe the backend cannot compile is reported
            print(f"failed {backend}/{name}: {str(e).splitlines()[0]}", flush=True)
            continue
        ca = compiled.cost_analysis()
        if isinstance(ca, list):
            ca = ca[0] if ca else None
        with open(os.path.join(dest, name + ".hlo"), "w") as f:
            f.write(PATHS.sub(r'"\1"', compiled.as_text()))
        with open(os.path.join(dest, name + ".json"), "w") as f:
            json.dump(None if ca is None else {k: float(v) for k, v in ca.items()}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"ok     {backend}/{name}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        run_backend(sys.argv[2], sys.argv[3], [p for p in sys.argv[4].split(",") if p])
        return
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--out", default=OUT)
    a.add_argument("--backends", default=",".join(BACKENDS))
    a.add_argument("--probes", default="")
    args = a.parse_args()
    for b in [b for b in args.backends.split(",") if b]:
        env = dict(os.environ, JAX_PLATFORMS="cpu", ALLOW_MULTIPLE_LIBTPU_LOAD="1")
        # One process per backend: XLA reads XLA_FLAGS once.
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", b, os.path.abspath(args.out), args.probes],
                           env=env, capture_output=True, text=True)
        print("\n".join(l for l in p.stdout.splitlines()))
        if p.returncode != 0:
            sys.exit(f"{b}: exit {p.returncode}\n" + "\n".join(p.stderr.splitlines()[-15:]))


if __name__ == "__main__":
    main()
