"""The JAX programs whose XLA compiles are hlo-opt's ground truth.

Each program is a pure function of arrays plus, per size, the arguments it takes.
The generator (generate.py) compiles them for TPU, GPU and CPU and keeps what XLA
writes; measure_gpu.py runs them on a real H100 and times every kernel. Both import
PROGRAMS from here so that every backend sees the same programs at the same sizes.

An argument is an Arg: shape, dtype, how to fill it (random normal values, or integer
indices below a bound), and which dimension a data-parallel mesh shards (None: the
argument is replicated). Shapes are chosen so that the "large" size fills an H100
(tens of microseconds per kernel or more) and the "small" size is what a unit test
would use.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

SIZES = ("small", "large")


@dataclasses.dataclass(frozen=True)
class Arg:
    shape: tuple[int, ...]
    dtype: str
    # index_bound > 0: integer indices uniform in [0, index_bound).
    index_bound: int = 0
    # shard: the dimension a data-parallel mesh splits over its devices, or None.
    shard: int | None = None


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    doc: str
    fn: Callable
    args: Callable[[str], Sequence[Arg]]
    # donate: argument positions whose buffers the program may reuse (in-place ops).
    donate: tuple[int, ...] = ()


PROGRAMS: dict[str, Program] = {}


def program(name: str, doc: str, args: Callable[[str], Sequence[Arg]], donate=()):
    def register(fn):
        fn.__name__ = name
        fn.__qualname__ = name
        PROGRAMS[name] = Program(name, doc, fn, args, tuple(donate))
        return fn

    return register


def pick(size: str, small, large):
    return small if size == "small" else large


# ---------------------------------------------------------------- matmuls


@program("matmul_bf16_square", "bf16 [N,N] x [N,N]",
         lambda s: [Arg((n := pick(s, 512, 4096), n), "bfloat16", shard=0),
                    Arg((n, n), "bfloat16")])
def _(a, b):
    return a @ b


@program("matmul_f32_square", "f32 [N,N] x [N,N]",
         lambda s: [Arg((n := pick(s, 512, 4096), n), "float32", shard=0),
                    Arg((n, n), "float32")])
def _(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


@program("matmul_int8", "int8 [M,K] x [K,N] accumulated in int32",
         lambda s: [Arg((pick(s, 256, 4096), k := pick(s, 512, 4096)), "int8", index_bound=127, shard=0),
                    Arg((k, pick(s, 256, 4096)), "int8", index_bound=127)])
def _(a, b):
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32)


@program("matmul_bf16_skinny", "bf16 decode-style [M small, K] x [K, N]",
         lambda s: [Arg((pick(s, 8, 16), k := pick(s, 1024, 8192)), "bfloat16"),
                    Arg((k, pick(s, 1024, 8192)), "bfloat16", shard=1)])
def _(x, w):
    return x @ w


@program("matmul_bf16_batched", "bf16 batched [B,M,K] x [B,K,N]",
         lambda s: [Arg((b := pick(s, 4, 32), m := pick(s, 128, 1024), k := pick(s, 64, 128)), "bfloat16", shard=0),
                    Arg((b, k, m), "bfloat16", shard=0)])
def _(x, y):
    return jnp.einsum("bmk,bkn->bmn", x, y)


# ---------------------------------------------------------------- normalisations


@program("softmax", "f32 softmax over the last axis",
         lambda s: [Arg((pick(s, 256, 8192), pick(s, 1024, 4096)), "float32", shard=0)])
def _(x):
    return jax.nn.softmax(x, axis=-1)


@program("layer_norm", "f32 layer norm with scale and bias",
         lambda s: [Arg((pick(s, 256, 16384), d := pick(s, 512, 4096)), "float32", shard=0),
                    Arg((d,), "float32"), Arg((d,), "float32")])
def _(x, g, b):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * g + b


@program("rms_norm", "bf16 RMS norm (statistics in f32)",
         lambda s: [Arg((pick(s, 256, 16384), d := pick(s, 512, 4096)), "bfloat16", shard=0),
                    Arg((d,), "bfloat16")])
def _(x, g):
    xf = x.astype(jnp.float32)
    y = xf * lax.rsqrt(jnp.mean(xf * xf, axis=-1, keepdims=True) + 1e-6)
    return (y * g.astype(jnp.float32)).astype(jnp.bfloat16)


# ---------------------------------------------------------------- data movement


@program("transpose_2d", "f32 [N,M] -> [M,N]",
         lambda s: [Arg((pick(s, 512, 8192), pick(s, 384, 4096)), "float32", shard=0)])
def _(x):
    return x.T + 1.0


@program("transpose_3d", "bf16 [A,B,C] -> [C,A,B]",
         lambda s: [Arg((pick(s, 8, 64), pick(s, 128, 512), pick(s, 256, 1024)), "bfloat16", shard=0)])
def _(x):
    return jnp.transpose(x, (2, 0, 1)) * 2


@program("reduce_row", "f32 sum over the minor dimension",
         lambda s: [Arg((pick(s, 512, 16384), pick(s, 1024, 8192)), "float32", shard=0)])
def _(x):
    return jnp.sum(x, axis=1)


@program("reduce_column", "f32 sum over the major dimension",
         lambda s: [Arg((pick(s, 1024, 16384), pick(s, 512, 8192)), "float32", shard=1)])
def _(x):
    return jnp.sum(x, axis=0)


@program("concatenate", "bf16 concatenate of three arrays along the minor dimension",
         lambda s: [Arg((r := pick(s, 256, 8192), pick(s, 128, 1024)), "bfloat16", shard=0),
                    Arg((r, pick(s, 256, 2048)), "bfloat16", shard=0),
                    Arg((r, pick(s, 64, 512)), "bfloat16", shard=0)])
def _(a, b, c):
    return jnp.concatenate([a, b * 2, c], axis=1)


@program("gather_embedding", "embedding lookup: table[ids]",
         lambda s: [Arg((v := pick(s, 1000, 32000), pick(s, 128, 4096)), "bfloat16"),
                    Arg((pick(s, 4, 16), pick(s, 32, 1024)), "int32", index_bound=v, shard=0)])
def _(table, ids):
    return jnp.take(table, ids, axis=0, mode="clip")


@program("scatter_embedding", "embedding update: table.at[ids].add(updates)",
         lambda s: [Arg((v := pick(s, 1000, 32000), d := pick(s, 128, 1024)), "float32"),
                    Arg((n := pick(s, 64, 8192),), "int32", index_bound=v),
                    Arg((n, d), "float32")],
         donate=(0,))
def _(table, ids, updates):
    return table.at[ids].add(updates, mode="clip")


@program("dynamic_update_slice", "KV-cache write at a runtime position",
         lambda s: [Arg((b := pick(s, 2, 8), t := pick(s, 128, 4096), h := pick(s, 4, 16), d := 128), "bfloat16", shard=0),
                    Arg((b, 1, h, d), "bfloat16", shard=0),
                    Arg((), "int32", index_bound=t)],
         donate=(0,))
def _(cache, new, pos):
    return lax.dynamic_update_slice(cache, new, (0, pos, 0, 0))


# ---------------------------------------------------------------- blocks


def _attention(q, k, v):
    d = q.shape[-1]
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(d)
    p = jax.nn.softmax(s, axis=-1).astype(q.dtype)
    return jnp.einsum("bhqk,bkhd->bqhd", p, v)


@program("attention", "bf16 multi-head attention softmax(QK^T/sqrt(d)) V",
         lambda s: [Arg((pick(s, 2, 8), pick(s, 128, 1024), pick(s, 4, 16), 64), "bfloat16", shard=0)] * 3)
def _(q, k, v):
    return _attention(q, k, v)


@program("mlp", "bf16 MLP block: gelu(x W1) W2",
         lambda s: [Arg((pick(s, 256, 8192), d := pick(s, 256, 2048)), "bfloat16", shard=0),
                    Arg((d, f := 4 * d), "bfloat16"), Arg((f, d), "bfloat16")])
def _(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2


def _layer_args(s):
    b, t, d, h, layers = pick(s, 2, 8), pick(s, 64, 512), pick(s, 128, 1024), pick(s, 4, 16), pick(s, 2, 4)
    return [Arg((b, t, d), "float32", shard=0),
            Arg((layers, d, 3 * d), "float32"), Arg((layers, d, d), "float32"),
            Arg((layers, d, 4 * d), "float32"), Arg((layers, 4 * d, d), "float32"),
            Arg((layers, d), "float32"), Arg((layers, d), "float32"),
            Arg((h,), "int32", index_bound=1)]


def _transformer(x, wqkv, wo, w1, w2, g1, g2, heads):
    nh = heads.shape[0]

    def norm(y, g):
        return y * lax.rsqrt(jnp.mean(y * y, axis=-1, keepdims=True) + 1e-6) * g

    def layer(y, p):
        wqkv, wo, w1, w2, g1, g2 = p
        b, t, d = y.shape
        qkv = norm(y, g1) @ wqkv
        q, k, v = jnp.split(qkv.reshape(b, t, 3 * nh, d // nh), 3, axis=2)
        y = y + _attention(q, k, v).reshape(b, t, d) @ wo
        y = y + jax.nn.gelu(norm(y, g2) @ w1) @ w2
        return y, None

    y, _ = lax.scan(layer, x, (wqkv, wo, w1, w2, g1, g2))
    return y


@program("transformer_fwd", "a small transformer's layers under lax.scan (a while loop), forward",
         _layer_args)
def _(x, wqkv, wo, w1, w2, g1, g2, heads):
    return _transformer(x, wqkv, wo, w1, w2, g1, g2, heads)


@program("transformer_bwd", "the same layers: gradient of a squared loss w.r.t. the weights (forward and backward scans)",
         _layer_args)
def _(x, wqkv, wo, w1, w2, g1, g2, heads):
    def loss(params):
        return jnp.mean(jnp.square(_transformer(x, *params, heads)))

    return jax.grad(loss)((wqkv, wo, w1, w2, g1, g2))


@program("resnet_block", "ResNet basic block, NHWC: conv3x3-norm-relu-conv3x3-norm + residual, relu",
         lambda s: [Arg((pick(s, 2, 32), hw := pick(s, 16, 56), hw, c := pick(s, 32, 128)), "float32", shard=0),
                    Arg((3, 3, c, c), "float32"), Arg((3, 3, c, c), "float32"),
                    Arg((c,), "float32"), Arg((c,), "float32")])
def _(x, k1, k2, g1, g2):
    def conv(y, k):
        return lax.conv_general_dilated(y, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def norm(y, g):
        mean = jnp.mean(y, axis=(0, 1, 2))
        var = jnp.var(y, axis=(0, 1, 2))
        return (y - mean) * lax.rsqrt(var + 1e-5) * g

    y = jax.nn.relu(norm(conv(x, k1), g1))
    y = norm(conv(y, k2), g2)
    return jax.nn.relu(y + x)


# ---------------------------------------------------------------- shapes that pad badly on TPU


@program("awkward_minor", "minor dimensions of 3, 64 and 130 (TPU pads the minor dimension to 128)",
         lambda s: [Arg((r := pick(s, 1024, 65536), 3), "float32", shard=0),
                    Arg((r, 64), "bfloat16", shard=0),
                    Arg((r, 130), "float32", shard=0)])
def _(a, b, c):
    return a * 2 + 1, jnp.tanh(b), jnp.exp(c) - 1


@program("awkward_second_minor", "second-minor dimensions of 1, 2 and 5 (TPU pads it to 8, or uses the compact tilings)",
         lambda s: [Arg((b := pick(s, 64, 4096), 1, c := pick(s, 256, 1024)), "float32", shard=0),
                    Arg((b, 2, c), "bfloat16", shard=0),
                    Arg((b, 5, c), "float32", shard=0)])
def _(a, b, c):
    return a + 1, b * b, jnp.sum(c, axis=1, keepdims=True) + c
