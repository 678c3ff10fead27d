"""Have the pinned XLA parse the modules of syntax_in.hlo and print them.

Writes OUT/syntax/syntax.hlo: for each module of syntax_in.hlo (split at
"// -----"), its "// syntax: ..." line, then the module as XLA prints it
(HloModule::ToString of the parsed module), modules separated by
"// -----". Fails if XLA refuses a module: every row of hlo/SYNTAX.md that
has a test here is something XLA itself reads.
"""

import os
import sys


def main(out: str) -> None:
    from jaxlib import _hlo

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "syntax_in.hlo")) as f:
        chunks = f.read().split("\n// -----\n")
    parts = []
    for chunk in chunks:
        tag = next((l for l in chunk.split("\n") if l.startswith("// syntax:")), None)
        if tag is None:
            continue
        try:
            text = _hlo.hlo_module_from_text(chunk).to_string()
        except Exception as e:  # noqa: BLE001 - report which module XLA refused
            sys.exit(f"XLA refuses the module tagged {tag!r}:\n{e}")
        parts.append(tag + "\n" + text)
    os.makedirs(os.path.join(out, "syntax"), exist_ok=True)
    with open(os.path.join(out, "syntax", "syntax.hlo"), "w") as f:
        f.write("// -----\n".join(parts))


if __name__ == "__main__":
    main(sys.argv[1])
