"""XLA's HloCostAnalysis of one elementwise instruction per opcode.

Each opcode is costed alone, on 1024 elements, in a module given to XLA as HLO
text (jaxlib's hlo_module_from_text) and costed by the CPU client's
HloCostAnalysis (hlo_module_cost_analysis): jax itself decomposes most of these
ops (acos, sinh, exp2, ...) before XLA sees them, so a jitted program would not
show XLA's rule for them. The result, testdata/xla-cost/elementwise.json, maps
each opcode to its "flops" and "transcendentals"; cost/xlacost_test.go checks
XLACost against it. Pinned versions: testdata/groundtruth/gen/requirements.txt
(jax/jaxlib 0.12.0.1). Not part of make test.

Usage: JAX_PLATFORMS=cpu python elementwise.py
"""

import json
import os

import jax
import jaxlib._jax as _jax
from jaxlib import _hlo

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "elementwise.json")

FLOAT_UNARY = """abs acos acosh asin asinh atanh cbrt ceil cosine cosh erf exponential exp2
exponential-minus-one floor log log-plus-one log2 logistic negate round-nearest-afz
round-nearest-even rsqrt sign sine sinh sqrt tan tanh""".split()
FLOAT_BINARY = "add atan2 divide maximum minimum multiply power remainder subtract".split()
INT_UNARY = "count-leading-zeros not popcnt".split()
INT_BINARY = "and or xor shift-left shift-right-arithmetic shift-right-logical".split()


def module(op, ty, arity):
    args = ", ".join(["p"] * arity)
    return (f"HloModule m\nENTRY e {{\n  p = {ty}[1024]{{0}} parameter(0)\n"
            f"  ROOT r = {ty}[1024]{{0}} {op}({args})\n}}\n")


def main():
    client = jax.devices("cpu")[0].client
    out = {}
    for ops, ty, arity in ((FLOAT_UNARY, "f32", 1), (FLOAT_BINARY, "f32", 2),
                           (INT_UNARY, "s32", 1), (INT_BINARY, "s32", 2)):
        for op in ops:
            cost = _jax.hlo_module_cost_analysis(client, _hlo.hlo_module_from_text(module(op, ty, arity)))
            out[op] = {"type": ty, "elements": 1024, "flops": cost.get("flops", 0.0),
                       "transcendentals": cost.get("transcendentals", 0.0)}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
