"""Ask the pinned XLA which attributes each opcode allows; write hlo/opattrs.go.

XLA's parser refuses an attribute an opcode does not take with
'unexpected attribute "X". Allowed attributes: a, b, ...'. This script gives
every opcode hlo-opt knows an unknown attribute, in a minimal module XLA
otherwise accepts, and records the list XLA answers with. The attributes
every opcode allows (metadata, sharding, ...) are the intersection of the
lists; each opcode's own are the rest.

The attributes each opcode requires (XLA: "attribute X is expected but not
seen") are read from the source of XLA's parser, hlo_parser.cc at a commit:
the attributes an opcode's case of ParseInstructionRhs declares required
outside any condition.

Usage (not part of make test; needs the venv of the pinned jaxlib, see
docs/XLA-COMPILES.md):

  VENV/bin/python testdata/gen/xla_attrs.py --xla GITDIR --commit COMMIT > hlo/opattrs.go && gofmt -w hlo/opattrs.go

Opcodes XLA 0.12 no longer knows (atan) and the async sugar forms are
probed through the opcode they stand for; see the comments in the output.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PRELUDE = """HloModule m

c {
  x = f32[] parameter(0)
  ROOT y = pred[] constant(true)
}

b {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}

"""

# Modules for the opcodes whose minimal form needs more than scalar
# operands; "ATTR" is where the unknown attribute goes.
SPECIAL = {
    "tuple": "ENTRY e {\n p0 = f32[] parameter(0)\n ROOT r = (f32[]) tuple(p0), ATTR\n}\n",
    "xor": "ENTRY e {\n p0 = s32[] parameter(0)\n ROOT r = s32[] xor(p0, p0), ATTR\n}\n",
    "while": "ENTRY e {\n p0 = f32[] parameter(0)\n ROOT r = f32[] while(p0), condition=c, body=b, ATTR\n}\n",
    "conditional": "ENTRY e {\n p0 = f32[] parameter(0)\n q = s32[] parameter(1)\n ROOT r = f32[] conditional(q, p0, p0), branch_computations={b, b}, ATTR\n}\n",
    "constant": "ENTRY e {\n ROOT r = f32[] constant(1), ATTR\n}\n",
    "parameter": "ENTRY e {\n ROOT r = f32[] parameter(0), ATTR\n}\n",
    "async-start": "ENTRY e {\n p0 = f32[] parameter(0)\n ROOT r = ((f32[]), f32[], s32[]) async-start(p0), calls=b, ATTR\n}\n",
    "async-update": "ENTRY e {\n p0 = f32[] parameter(0)\n s = ((f32[]), f32[], s32[]) async-start(p0), calls=b\n ROOT r = ((f32[]), f32[], s32[]) async-update(s), ATTR\n}\n",
    "async-done": "ENTRY e {\n p0 = f32[] parameter(0)\n s = ((f32[]), f32[], s32[]) async-start(p0), calls=b\n ROOT r = f32[] async-done(s), ATTR\n}\n",
}

UNKNOWN = "zzz_unknown=1"


def probe(text: str):
    from jaxlib import _hlo

    try:
        _hlo.hlo_module_from_text(text)
        return None, "accepted"
    except Exception as e:  # noqa: BLE001 - XLA's error is the answer
        m = re.search(r'unexpected attribute "zzz_unknown"\. Allowed attributes: ([^\n]*)', str(e))
        if m:
            return [a.strip() for a in m.group(1).split(",")], None
        return None, str(e).split("\n")[1] if "\n" in str(e) else str(e)


def allowed(op: str):
    if op in SPECIAL:
        return probe(PRELUDE + SPECIAL[op].replace("ATTR", UNKNOWN))
    last = None
    for n in range(7):
        params = "".join(f" p{i} = f32[] parameter({i})\n" for i in range(n))
        args = ", ".join(f"p{i}" for i in range(n))
        attrs, err = probe(PRELUDE + f"ENTRY e {{\n{params} ROOT r = f32[] {op}({args}), {UNKNOWN}\n}}\n")
        if attrs is not None:
            return attrs, None
        last = err
    return None, last


def opcodes():
    with open(os.path.join(ROOT, "hlo", "opcodes.go")) as f:
        return re.findall(r'Op\w+\s+Opcode = "([^"]+)"', f.read())


PARSER_SOURCE = "xla/hlo/parser/hlo_parser.cc"


def kebab(name: str) -> str:
    """XLA's opcode enumerator without its k (GetTupleElement) as the text
    spells it (get-tuple-element)."""
    return {"TopK": "topk", "Fft": "fft"}.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def required(src: str):
    """Per opcode of the text, the attributes its case of the parser's
    opcode switch declares required unconditionally (at the case block's
    own level, not inside an if)."""
    body = src[src.index("switch (opcode) {") :]
    out = {}
    for m in re.finditer(r"((?:case HloOpcode::k\w+:\s*)+)\{", body):
        start, depth, j = m.end() - 1, 0, m.end() - 1
        while True:
            c = body[j]
            if c == '"':
                j = body.index('"', j + 1)
                while body[j - 1] == "\\":
                    j = body.index('"', j + 1)
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        block = body[start : j + 1]
        names = []
        for r in re.finditer(r'attrs\["(\w+)"\]\s*=\s*\{\s*/\*required=\*/true', block):
            before = block[: r.start()]
            if before.count("{") - before.count("}") == 1:
                names.append(r.group(1))
        for op in re.findall(r"HloOpcode::k(\w+)", m.group(1)):
            out.setdefault(kebab(op), names)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xla", required=True, help="git directory of openxla/xla")
    ap.add_argument("--commit", required=True, help="commit of the parser source to read")
    args = ap.parse_args()
    src = subprocess.run(
        ["git", "--git-dir", args.xla, "show", f"{args.commit}:{PARSER_SOURCE}"], check=True, capture_output=True, text=True
    ).stdout
    req = required(src)
    lists, notes = {}, []
    for op in opcodes():
        attrs, err = allowed(op)
        if attrs is None:
            notes.append(f"{op}: {err}")
            continue
        lists[op] = attrs
    common = set.intersection(*(set(v) for v in lists.values()))
    out = [
        "// Code generated by testdata/gen/xla_attrs.py from the parser of jaxlib 0.12.0.1; DO NOT EDIT.\n",
        "\npackage hlo\n",
        "\n// commonAttrs are the attributes XLA's parser allows on every opcode.\n",
        "var commonAttrs = []string{" + ", ".join(f'"{a}"' for a in sorted(common)) + "}\n",
        "\n// opcodeAttrs are the attributes XLA's parser allows on each opcode\n"
        "// besides commonAttrs.\n",
        "var opcodeAttrs = map[Opcode][]string{\n",
    ]
    for op in sorted(lists):
        own = [a for a in sorted(lists[op]) if a not in common]
        out.append(f'\t"{op}": {{' + ", ".join(f'"{a}"' for a in own) + "},\n")
    out.append("}\n")
    out.append(
        f"\n// opcodeRequiredAttrs are the attributes XLA's parser requires of each opcode\n"
        f"// (read from {PARSER_SOURCE} at {args.commit}).\n"
        "var opcodeRequiredAttrs = map[Opcode][]string{\n"
    )
    for op in sorted(lists):
        if req.get(op):
            out.append(f'\t"{op}": {{' + ", ".join(f'"{a}"' for a in req[op]) + "},\n")
    out.append("}\n")
    if notes:
        out.append("\n// Not probed (XLA refuses the opcode's minimal form; see allowedAttrs):\n")
        out.extend(f"//   {n}\n" for n in notes)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
