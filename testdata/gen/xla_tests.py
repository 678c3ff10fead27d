"""Port XLA's own unit tests to hlo-opt's golden archives (txtar).

Reads the test sources of openxla/xla at one commit and writes the cases of
each suite as data that hlo-opt's Go tests read:

  hlo/testdata/xla-parser.txtar            xla/hlo/parser/hlo_parser_test.cc
  hlo/testdata/xla-shapes.txtar            xla/shape_util_test.cc, shape_test.cc,
                                           layout_util_test.cc, layout_test.cc and
                                           the ParseShape tests of hlo_parser_test.cc
  testdata/indexing/xla-conformance.txtar  xla/hlo/analysis/indexing_analysis_test.cc
  testdata/indexing/xla-simplifier.txtar   xla/hlo/analysis/indexing_map_test.cc
  testdata/coalescing/xla-coalescing.txtar xla/service/gpu/model/coalescing_analysis_test.cc

Usage (not part of make test; Python 3.10 or newer, nothing to install):

  python3 testdata/gen/xla_tests.py --xla GITDIR --commit COMMIT [--check-xla PY]

GITDIR is a git directory of openxla/xla (or a fork) holding COMMIT; the
sources are read with "git show COMMIT:PATH". The archives are rewritten in
place. What hlo-opt says about a case where it differs from XLA on purpose
(files named "NAME: ..., why ours differs" and "NAME: ..., ours") is
written by hand, not extracted: it is read from the archive being replaced
and kept after its case.

Most cases are extracted mechanically from the test bodies (the HLO text of
each test, whether XLA accepts it, the substrings its error must contain,
the text it prints). Tests whose expectations are C++ objects rather than
text (shapes built with ShapeUtil, maps built with the MLIR API) are
transcribed in the tables of this file, in the text form XLA prints for the
object the test builds; each transcription names its test.

--check-xla PY runs the parser cases through the XLA of the Python at PY
(jaxlib's hlo_module_from_text: XLA's parser without the verifier) and
reports where that XLA disagrees with the test's expectation; the report is
for the person regenerating, nothing of it is written.
"""

import argparse
import copy
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------
# C++ source helpers


def cpp_string_at(src: str, i: int):
    """Reads one C++ string literal at src[i] (after blanks): "..." with
    escapes or R"delim(...)delim". Returns (value, end) or None."""
    n = len(src)
    while i < n and src[i] in " \t\n":
        i += 1
    if src.startswith('R"', i):
        j = src.index("(", i)
        delim = src[i + 2 : j]
        close = ")" + delim + '"'
        k = src.index(close, j + 1)
        return src[j + 1 : k], k + len(close)
    if i < n and src[i] == '"':
        out = []
        j = i + 1
        while src[j] != '"':
            c = src[j]
            if c == "\\":
                e = src[j + 1]
                j += 2
                if e == "n":
                    out.append("\n")
                elif e == "r":
                    out.append("\r")
                elif e == "t":
                    out.append("\t")
                elif e in "\\\"'?":
                    out.append(e)
                elif e == "x":
                    m = re.match(r"[0-9a-fA-F]+", src[j:])
                    out.append(chr(int(m.group(0), 16)))
                    j += len(m.group(0))
                else:
                    raise ValueError("escape \\" + e)
                continue
            out.append(c)
            j += 1
        return "".join(out), j + 1
    return None


def cpp_strings_at(src: str, i: int):
    """Reads adjacent C++ string literals (concatenated) and comments between
    them. Returns (value, end) or None."""
    r = cpp_string_at(src, i)
    if r is None:
        return None
    val, end = r
    while True:
        k = end
        while k < len(src) and src[k] in " \t\n":
            k += 1
        if src.startswith("//", k):
            k = src.index("\n", k)
            continue
        r = cpp_string_at(src, k)
        if r is None:
            return val, end
        val += r[0]
        end = r[1]


def matching(src: str, i: int) -> int:
    """Returns the index after the bracket matching src[i] ('(' or '{'),
    skipping string literals."""
    opener = src[i]
    closer = {"(": ")", "{": "}", "[": "]"}[opener]
    depth = 0
    j = i
    while j < len(src):
        c = src[j]
        if c == '"' or src.startswith('R"', j):
            _, j = cpp_string_at(src, j)
            continue
        if c == "'" :
            j = src.index("'", j + 1 + (src[j + 1] == "\\")) + 1
            continue
        if src.startswith("//", j):
            j = src.index("\n", j)
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError("unbalanced")


def split_args(text: str):
    """Splits the text inside a call's parentheses at top-level commas."""
    args, depth, cur, j = [], 0, [], 0
    while j < len(text):
        c = text[j]
        if c == '"' or text.startswith('R"', j):
            _, e = cpp_string_at(text, j)
            cur.append(text[j:e])
            j = e
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        j += 1
    if "".join(cur).strip():
        args.append("".join(cur).strip())
    return args


@dataclass
class CppTest:
    suite: str
    name: str
    body: str
    line: int

    @property
    def full(self) -> str:
        return f"{self.suite}.{self.name}"


def cpp_tests(src: str):
    """The TEST, TEST_F and TEST_P blocks of a test file, in order."""
    out = []
    for m in re.finditer(r"^TEST(?:_F|_P)?\(\s*(\w+),\s*(\w+)\)\s*\{", src, re.M):
        start = m.end() - 1
        end = matching(src, start)
        out.append(CppTest(m.group(1), m.group(2), src[start + 1 : end - 1], src.count("\n", 0, m.start()) + 1))
    return out


def string_vars(body: str):
    """The string variables a test body assigns from literals, by name."""
    out = {}
    pat = re.compile(
        r"(?:const\s+|constexpr\s+|static\s+)*(?:std::string|char\s*\*\s*const|const\s+char\s*\*|char|absl::string_view)"
        r"\s+(\w+)(?:\[\])?\s*=\s*"
    )
    for m in pat.finditer(body):
        r = cpp_strings_at(body, m.end())
        if r is not None:
            out[m.group(1)] = r[0]
    for m in re.finditer(r"\b(\w+)\s*=\s*(?=R?\")", body):
        if m.group(1) not in out:
            r = cpp_strings_at(body, m.end())
            if r is not None:
                out[m.group(1)] = r[0]
    return out


def has_substr_phrases(body: str):
    """The substrings the body expects an error to contain, in order."""
    out = []
    for m in re.finditer(r"\b(ExpectHasSubstr|HasSubstr)\(", body):
        start = m.end() - 1
        end = matching(body, start)
        args = split_args(body[start + 1 : end - 1])
        lit = args[-1] if m.group(1) == "ExpectHasSubstr" else args[0]
        r = cpp_strings_at(lit, 0)
        if r is not None:
            # "error: " starts XLA's messages after their position
            # ("was parsing L:C: error: ..."), not the message itself.
            out.append((m.start(), r[0].removeprefix("error: ")))
    return out


def git_show(gitdir: str, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout


# ---------------------------------------------------------------------------
# txtar


@dataclass
class Case:
    """One case of an archive: its input file, then its checks."""

    name: str
    data: str
    checks: list = field(default_factory=list)  # (check name, data)


def txtar_files(path: str):
    if not os.path.exists(path):
        return []
    files, cur = [], None
    with open(path, newline="") as f:
        for line in f.read().splitlines(keepends=True):
            t = line.rstrip("\n")
            if t.startswith("-- ") and t.endswith(" --") and len(t) > 6:
                cur = [t[3:-3].strip(), ""]
                files.append(cur)
            elif cur is not None:
                cur[1] += line
    return files


HAND_SUFFIXES = (", why ours differs", ", ours")


def hand_written(path: str):
    """The hand-written files of an archive ("..., why ours differs",
    "..., ours"), by the name of the file they follow."""
    out, last = {}, None
    for name, data in txtar_files(path):
        if name.endswith(HAND_SUFFIXES):
            out.setdefault(last, []).append((name, data))
        else:
            last = name
    return out


def write_archive(path: str, comment: str, cases, check_names_hand=True):
    hand = hand_written(path)
    parts = [comment.rstrip("\n") + "\n"]

    def emit(name, data):
        if data and not data.endswith("\n"):
            data += "\n"
        parts.append(f"-- {name} --\n{data}")
        for hn, hd in hand.get(name, []):
            parts.append(f"-- {hn} --\n{hd}")

    for c in cases:
        emit(c.name, c.data)
        for cn, cd in c.checks:
            emit(f"{c.name}: {cn}", cd)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write("".join(parts))
    print(f"{os.path.relpath(path, ROOT)}: {len(cases)} cases", file=sys.stderr)


# ---------------------------------------------------------------------------
# hlo_parser_test.cc

PARSER_TEST = "xla/hlo/parser/hlo_parser_test.cc"


def table_entries(section: str, fields: int):
    """The {"Name", R"(...)", ...} entries of a test-case table."""
    out = []
    i = 0
    while True:
        m = re.search(r'\{\s*\n?\s*"(\w+)"\s*,', section[i:])
        if not m:
            return out
        j = i + m.end()
        vals = []
        for _ in range(fields):
            r = cpp_strings_at(section, j)
            vals.append(r[0])
            j = r[1]
            k = j
            while section[k] in " \t\n,":
                k += 1
            j = k
        extra = re.match(r"/\*replica_count=\*/(\d+)", section[j:])
        out.append((m.group(1), vals, int(extra.group(1)) if extra else 1))
        i = j


def parser_tables(src: str):
    def between(a, b):
        i = src.index(a)
        return src[i : src.index(b, i)]

    long_ = between("std::vector<TestData> CreateTestCases()", "std::vector<TestData> CreateShortTestCases()")
    short = between("std::vector<TestData> CreateShortTestCases()", "std::vector<NonRoundtripTestData> CreateNonRoundtripTestCases()")
    nonrt = between("std::vector<NonRoundtripTestData> CreateNonRoundtripTestCases()", "absl::StatusOr<std::unique_ptr<HloModule>> ParseAndReturnVerifiedModule(")
    cases = []
    for name, (text,), replicas in table_entries(long_, 1):
        cases.append(Case(f"HloParserTestLong/{name}", text, [("round trip", "")]))
    for name, (text,), replicas in table_entries(short, 1):
        cases.append(Case(f"HloParserTestShort/{name}", text, [("round trip, short", "")]))
    for name, (text, want), _ in table_entries(nonrt, 2):
        cases.append(Case(f"HloNonRoundtripParserTest/{name}", text, [("prints short", want.strip() + "\n")]))
    return cases


# Tests of hlo_parser_test.cc that call an XLA C++ API hlo-opt has no
# counterpart of, with the reason; they are listed in the summary, not run.
PARSER_NOT_PORTED = {
    "LexesAsJsonDict": "tests the lexer's LexesAsJsonDict helper, not a text form",
    "AllReduceWithMode": None,  # transcribed below
}

# Sub-grammar tests (XLA's ParseSharding, ParseWindow, ... of a value on
# its own): the value is parsed where XLA's text holds it, an attribute of
# an instruction, and must print back as XLA prints it. {value} is the value.
SUBGRAMMAR_MODULES = {
    "sharding": """HloModule m

ENTRY e {{
  ROOT p = f32[8,8] parameter(0), sharding={value}
}}
""",
    "frontend_attributes": """HloModule m

ENTRY e {{
  ROOT p = f32[8,8] parameter(0), frontend_attributes={value}
}}
""",
    "dim_labels": """HloModule m

ENTRY e {{
  p0 = f32[1,2,1] parameter(0)
  p1 = f32[1,1,1] parameter(1)
  ROOT c = f32[1,2,1] convolution(p0, p1), window={{size=1}}, dim_labels={value}
}}
""",
    "window": """HloModule m

add {{
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT a = f32[] add(x, y)
}}

ENTRY e {{
  p0 = f32[8,8,8] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = f32[8,7,6] reduce-window(p0, p1), window={value}, to_apply=add
}}
""",
    "padding": """HloModule m

ENTRY e {{
  p0 = f32[4,4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = f32[{dims}] pad(p0, p1), padding={value}
}}
""",
    "replica_groups": """HloModule m

ENTRY e {{
  p0 = f32[4] parameter(0)
  ROOT r = f32[8] all-gather(p0), dimensions={{0}}, replica_groups={value}
}}
""",
}


def subgrammar_case(t: CppTest, attr: str, value: str, printed: str, **kw):
    text = SUBGRAMMAR_MODULES[attr].format(value=value, **kw)
    return Case(t.full, text, [("prints attribute", f"{attr}={printed}\n")])


def pad_dims(config: str) -> str:
    """The result dimensions of padding f32[4,4] with config."""
    dims = []
    for d in config.split("x"):
        lo, hi, *interior = (int(v) for v in d.split("_"))
        dims.append(str(4 + lo + hi + 3 * (interior[0] if interior else 0)))
    return ",".join(dims)


def parser_subgrammar(t: CppTest, vars_):
    """The case of a sub-grammar test, or None when t is not one."""
    b = t.body
    orig = vars_.get("original")
    if "ParseSharding(" in b:
        return subgrammar_case(t, "sharding", orig, orig)
    if "ParseFrontendAttributes(" in b:
        return subgrammar_case(t, "frontend_attributes", orig, orig)
    if "ParseConvolutionDimensionNumbers(" in b:
        return subgrammar_case(t, "dim_labels", orig, orig)
    if "ParsePaddingConfig(" in b:
        got = re.search(r'EXPECT_EQ\("([^"]*)", PaddingConfigToString', b)
        value = orig if orig is not None else re.search(r'ParsePaddingConfig\("([^"]*)"\)', b).group(1)
        printed = got.group(1) if got else value
        return subgrammar_case(t, "padding", value, printed, dims=pad_dims(value))
    if "ParseReplicaGroupsOnly(" in b or "ParseCollectiveDeviceListBase(" in b:
        printed = orig
        case = subgrammar_case(t, "replica_groups", orig, printed)
        if "MaximalMeshError" in t.name:
            case.checks = [("rejected", "\n".join(p for _, p in has_substr_phrases(b)) + "\n")]
        return case
    if "ParseWindow(" in b:
        # window_util::MakeWindow({1, 2, 3}) prints as size=1x2x3.
        return subgrammar_case(t, "window", "{size=1x2x3}", "{size=1x2x3}")
    return None


# Parse calls of hlo_parser_test.cc and what they parse with.
PARSE_CALL = re.compile(r"\b(ParseAndReturnUnverifiedModule|ParseAndReturnVerifiedModule|ParseShape)\(")

OK_PATTERNS = (
    "ASSERT_OK(",
    "TF_EXPECT_OK(",
    "TF_ASSERT_OK(",
    "ASSERT_OK_AND_ASSIGN(",
    "EXPECT_EQ(absl::OkStatus(), result.status())",
    "EXPECT_EQ(absl::OkStatus(), ParseAndReturnVerifiedModule(original).status())",
    "EXPECT_TRUE(ParseAndReturnUnverifiedModule(original).ok())",
)
ERR_PATTERNS = (
    "EXPECT_NE(absl::OkStatus()",
    "ASSERT_FALSE(result.status().ok())",
    "ASSERT_FALSE(status.ok())",
    "EXPECT_FALSE(status.ok())",
    "EXPECT_FALSE(result.ok())",
    "ASSERT_FALSE(result.ok())",
    "ASSERT_TRUE(!module.status().ok())",
    "EXPECT_FALSE(module_or_status.ok())",
    "ExpectHasSubstr(",
    "StatusIs(",
)


def parser_case(t: CppTest):
    """The case of a TEST of hlo_parser_test.cc (module text, outcome,
    phrases), or None when the test parses no module."""
    b = t.body
    vars_ = string_vars(b)
    sub = parser_subgrammar(t, vars_)
    if sub is not None:
        return [sub]
    calls = []
    for m in PARSE_CALL.finditer(b):
        args = split_args(b[m.end() : matching(b, m.end() - 1) - 1])
        a = args[0] if args else ""
        if a in vars_:
            calls.append((m.group(1), vars_[a]))
        else:
            r = cpp_strings_at(a, 0) if a else None
            if r is not None:
                calls.append((m.group(1), r[0]))
    if not calls:
        return None
    kind, text = calls[0]
    if kind == "ParseShape":
        return None  # a shape case (xla-shapes.txtar)
    phrases = [p for _, p in has_substr_phrases(b)]
    err = any(p in b for p in ERR_PATTERNS) and not any(
        p in b for p in ("ExpectHasSubstr(module->ToString", "OriginalValue")
    )
    checks = []
    if err:
        checks.append(("rejected", "".join(p + "\n" for p in phrases)))
    else:
        checks.append(("accepted", ""))
        m = re.search(r"EXPECT_EQ\(result\.value\(\)->ToString\(HloPrintOptions\(\)\), original\)", b)
        if m:
            checks.append(("prints", text))
        for p in phrases:
            checks.append(("prints short, contains", p + "\n"))
        m = re.search(r'entry_computation\(\)->name\(\),\s*"(\w+)"', b)
        if m:
            checks.append(("entry", m.group(1) + "\n"))
        m = re.search(r'root_instruction\(\)->name\(\),\s*"(\w+)"', b)
        if m:
            checks.append(("root", m.group(1) + "\n"))
    return [Case(t.full, text, checks)]


# XLA's messages that quote the source line with a caret ("was parsing
# L:C: error: MSG\nLINE\n^"), transcribed: "at L:C" is where the error
# must be (the error's own position), the other lines are phrases.
PARSER_PHRASES = {
    "UnterminatedComment": "at 3:1\n",
    "ComputationExists": "computation previously defined here\n2:1\n",
    "CrossComputationLookup": "at 8:39\ninstruction does not exist: aparam\n",
}


def parser_special(t: CppTest):
    """Cases of tests the generic extraction does not read, or None."""
    b = t.body
    vars_ = string_vars(b)
    if t.name == "InvalidDimLabels":
        out = []
        calls = re.findall(r'StrCat\(prefix, "([^"]*)", suffix\)', b)
        phrases = [p for _, p in has_substr_phrases(b)]
        for k, (mid, ph) in enumerate(zip(calls, phrases)):
            out.append(Case(f"{t.full}#{k}", vars_["prefix"] + mid + vars_["suffix"], [("rejected", ph + "\n")]))
        return out
    if t.name == "AllReduceWithMode":
        tmpl = vars_["hlo_template"]
        return [
            Case(f"{t.full}#0", tmpl.replace("%s", "mode=cross_replica,"), [("accepted", "")]),
            Case(f"{t.full}#1", tmpl.replace("%s", ""), [("accepted", "")]),
        ]
    return None


def parser_cases(src: str):
    cases = parser_tables(src)
    not_ported = []
    for t in cpp_tests(src):
        if t.name == "Run":
            continue  # the TEST_P of the tables above
        if t.name in PARSER_NOT_PORTED and PARSER_NOT_PORTED[t.name]:
            not_ported.append((t.full, PARSER_NOT_PORTED[t.name]))
            continue
        got = parser_special(t) or parser_case(t)
        if got is None:
            continue  # ParseShape: xla-shapes.txtar
        for c in got:
            if t.name in PARSER_PHRASES:
                c.checks = [("rejected", PARSER_PHRASES[t.name])]
        cases.extend(got)
    return cases, not_ported


PARSER_COMMENT = """The tests of XLA's {path} (openxla/xla at
{commit}), read by hlo/xla_parser_test.go: the HLO
text of each test and what XLA's parser does with it. Written by
testdata/gen/xla_tests.py; regenerate, do not edit, except the files named
"..., why ours differs" and "..., ours".

"-- NAME --" is the text XLA's test parses; NAME is the test's name
(HloParserTestLong/N, HloParserTestShort/N and HloNonRoundtripParserTest/N
are the entries of its round-trip tables; SUITE.TEST a TEST or TEST_F; "#k"
numbers the texts of a test that parses several). The checks follow as
"-- NAME: CHECK --":

  round trip          XLA accepts the text and prints it back as written
                      (HloModule::ToString with operand shapes)
  round trip, short   the same, printed in XLA's short parsable form
  prints short        XLA accepts the text and prints this (short form;
                      compared without leading and trailing blanks)
  prints              XLA accepts the text and prints this (default form)
  prints short, contains  ... a print (short form) that contains this
  prints attribute    XLA accepts the text and prints this attribute (an XLA
                      test of a value on its own, ParseSharding and the like,
                      placed in an instruction)
  accepted            XLA accepts the text
  entry, root         XLA accepts the text; its entry computation, or the
                      entry's root instruction, has this name
  rejected            XLA rejects the text; every line is a phrase its error
                      contains ("at L:C": the error is at line L, column C;
                      no line: any error)

"NAME: CHECK, why ours differs" says why hlo-opt answers a check otherwise
on purpose, and "NAME: CHECK, ours" what it answers instead.
"""


def write_parser(src: str, commit: str):
    cases, not_ported = parser_cases(src)
    comment = PARSER_COMMENT.format(path=PARSER_TEST, commit=commit)
    comment += "\nNot ported (an XLA C++ API with no text form):\n" + "".join(f"  {n}: {why}\n" for n, why in not_ported)
    write_archive(os.path.join(ROOT, "hlo/testdata/xla-parser.txtar"), comment, cases)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xla", required=True, help="git directory of openxla/xla")
    ap.add_argument("--commit", required=True, help="commit to read the tests at")
    ap.add_argument("--check-xla", help="python of a venv with jaxlib: report XLA's own verdicts")
    args = ap.parse_args()
    commit = subprocess.run(
        ["git", "--git-dir", args.xla, "rev-parse", args.commit], check=True, capture_output=True, text=True
    ).stdout.strip()
    parser_src = git_show(args.xla, commit, PARSER_TEST)
    parser = write_parser(parser_src, commit)
    write_shapes(args.xla, commit, parser_src)
    write_indexing(git_show(args.xla, commit, INDEXING_TEST), commit)
    write_simplifier(git_show(args.xla, commit, SIMPLIFIER_TEST), commit)
    write_coalescing(git_show(args.xla, commit, COALESCING_TEST), commit)
    if args.check_xla:
        check_with_xla(args.check_xla, parser)


XLA_PROBE = r"""
import json, sys
from jaxlib import _hlo
out = {}
for name, text in json.load(sys.stdin):
    try:
        _hlo.hlo_module_from_text(text)
        out[name] = None
    except Exception as e:  # XLA's error is the answer
        out[name] = str(e)
json.dump(out, sys.stdout)
"""


def check_with_xla(python: str, cases):
    """Runs every parser case through the XLA of python and prints where it
    disagrees with the test's expectation (one process per case, so that a
    case XLA aborts on is reported as such)."""
    import json

    for c in cases:
        want_err = any(k == "rejected" for k, _ in c.checks)
        r = subprocess.run([python, "-c", XLA_PROBE], input=json.dumps([[c.name, c.data]]), capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{c.name}: XLA aborts", file=sys.stderr)
            continue
        err = json.loads(r.stdout)[c.name]
        if (err is not None) != want_err:
            got = "accepts" if err is None else "refuses: " + err.split("\n")[1][:160]
            print(f"{c.name}: test expects {'rejection' if want_err else 'acceptance'}, XLA {got}", file=sys.stderr)
        elif err is not None:
            for k, d in c.checks:
                for ph in d.splitlines() if k == "rejected" else []:
                    if ph and not ph.startswith("at ") and ph not in err:
                        print(f"{c.name}: XLA's error lacks {ph!r}: {err.splitlines()[1][:160]}", file=sys.stderr)


# ---------------------------------------------------------------------------
# indexing_analysis_test.cc

INDEXING_TEST = "xla/hlo/analysis/indexing_analysis_test.cc"

GET_INDEXING = re.compile(r"\b(GetOutputToInputIndexing|GetInputToOutputIndexing)\(")


def indexing_call(args_text: str):
    """(instruction argument, id, physical) of a Get...Indexing call."""
    args = split_args(args_text)
    instr = args[0] if args else ""
    ident = 0
    physical = False
    for a in args[1:]:
        a = re.sub(r"/\*.*?\*/", "", a).strip()
        if a in ("true", "false"):
            physical = a == "true"
        else:
            ident = int(a)
    return instr, ident, physical


def indexing_cases(src: str):
    cases, not_ported = [], []
    for t in cpp_tests(src):
        b = t.body
        modules = []
        for m in re.finditer(r"ParseAndGetRoot\(", b):
            modules.append(cpp_strings_at(b, m.end())[0])
        vars_ = {}
        for m in re.finditer(r"auto\s+(\w+)\s*=\s*(GetOutputToInputIndexing|GetInputToOutputIndexing)\(", b):
            start = m.end() - 1
            instr, ident, phys = indexing_call(b[start + 1 : matching(b, start) - 1])
            vars_[m.group(1)] = (m.group(2), instr, ident, phys)
        checks, bad = [], None
        for m in re.finditer(r"EXPECT_THAT\(", b):
            start = m.end() - 1
            args = split_args(b[start + 1 : matching(b, start) - 1])
            if len(args) != 2:
                continue
            target = args[0].removesuffix(".ToString()").removesuffix(".indexing_maps")
            want = expected_indexing(args[1], string_vars(b))
            if want is None:
                bad = "expects " + args[1]
                continue
            if target in vars_:
                kind, instr, ident, phys = vars_[target]
            else:
                g = GET_INDEXING.match(target)
                if not g:
                    bad = "checks " + target
                    continue
                kind = g.group(1)
                instr, ident, phys = indexing_call(target[g.end() : -1])
            if instr != "root" and not instr.startswith("ParseAndGetRoot("):
                bad = "checks the indexing of " + instr + ", not of the entry's root"
                continue
            spec = f"output {ident} to inputs" if kind == "GetOutputToInputIndexing" else f"input {ident} to output"
            if phys:
                spec += ", physical"
            checks.append((spec, dedent_block(want)))
        if not checks or len(modules) != 1:
            apis = sorted(set(re.findall(
                r"\b(GroupIndexingMapsByProducers|ComputeGroupedOutputToInputIndexing|ComputeEpilogueInputToOutputIndexing)\b", b)))
            reason = bad or ("tests " + ", ".join(apis) if apis else "an API other than the indexing of one instruction")
            not_ported.append((t.name, reason))
            continue
        if bad:
            not_ported.append((t.name, bad))
            continue
        cases.append(Case(t.name, dedent_block(modules[0]), checks))
    return cases, not_ported


def expected_indexing(matcher: str, vars_=None):
    """The HloInstructionIndexing text an EXPECT_THAT matcher of
    indexing_analysis_test.cc stands for: MatchIndexingString(text),
    IsEmpty() (no operand), or ElementsAre(per operand,
    (Unordered)ElementsAre(MatchOperandIndexing(map), ...)); None for
    another one. StrFormat's %s, the name of a runtime variable's HLO, is
    the one the test gives for HLO (not StableHLO)."""
    matcher = matcher.strip()
    if matcher == "IsEmpty()":
        return ""
    if matcher.startswith("MatchIndexingString("):
        inner = matcher[len("MatchIndexingString(") : -1].strip()
        if inner.startswith("absl::StrFormat("):
            fargs = split_args(inner[len("absl::StrFormat(") : -1])
            fmt = cpp_strings_at(fargs[0], 0)[0]
            vals = [re.search(r':\s*"([^"]*)"', a).group(1) for a in fargs[1:]]
            return fmt % tuple(vals)
        lit = cpp_strings_at(inner, 0)
        return lit[0] if lit else None
    if matcher.startswith("ElementsAre("):
        out = []
        for k, op in enumerate(split_args(matcher[len("ElementsAre(") : -1])):
            m = re.match(r"(Unordered)?ElementsAre\(", op)
            if not m:
                return None
            out.append(f"operand id = {k}\n")
            for mm in split_args(op[m.end() : -1]):
                if not mm.startswith("MatchOperandIndexing("):
                    return None
                arg = mm[len("MatchOperandIndexing(") : -1].strip()
                lit = cpp_strings_at(arg, 0)
                text = lit[0] if lit else (vars_ or {}).get(arg)
                if text is None:
                    return None
                out.append(dedent_block(text))
        return "".join(out)
    return None


def dedent_block(text: str) -> str:
    """The text without its common indentation and blank edges."""
    lines = text.strip("\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    ind = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return "\n".join(l[ind:] for l in lines) + "\n"


INDEXING_COMMENT = """The tests of XLA's {path} (openxla/xla at
{commit}) that check the maps of an instruction, read by
indexing/xla_conformance_test.go: the HLO and the expected maps, copied from
the test. Written by testdata/gen/xla_tests.py; regenerate, do not edit,
except the files named "..., ours" and "..., why ours differs".

"-- NAME --" is the HLO of XLA's TEST_P NAME. Each check of its entry root
follows as "-- NAME: output ID to inputs --" (GetOutputToInputIndexing) or
"-- NAME: input ID to output --" (GetInputToOutputIndexing), holding the
HloInstructionIndexing text XLA expects; ", physical" composes the maps with
the layouts. A check we answer differently on purpose is followed by
"..., ours --" (what we print, asserted exactly) and "..., why ours
differs --".

Not ported (an API other than the indexing of one instruction):
"""


def write_indexing(src: str, commit: str):
    cases, not_ported = indexing_cases(src)
    comment = INDEXING_COMMENT.format(path=INDEXING_TEST, commit=commit)
    comment += "".join(f"  {n}: {why}\n" for n, why in not_ported)
    write_archive(os.path.join(ROOT, "testdata/indexing/xla-conformance.txtar"), comment, cases)


# ---------------------------------------------------------------------------
# indexing_map_test.cc

SIMPLIFIER_TEST = "xla/hlo/analysis/indexing_map_test.cc"


def cpp_statements(body: str):
    """The statements of a test body, split at top-level ';', comments
    dropped."""
    out, depth, cur, j = [], 0, [], 0
    while j < len(body):
        c = body[j]
        if c == '"' or body.startswith('R"', j):
            _, e = cpp_string_at(body, j)
            cur.append(body[j:e])
            j = e
            continue
        if body.startswith("//", j):
            j = body.index("\n", j)
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        if c == ";" and depth == 0:
            s = "".join(cur).strip()
            if s:
                out.append(s)
            cur = []
        else:
            cur.append(c)
        j += 1
    return out


def variables(text: str):
    """The IndexingMap::Variable list of a C++ initializer: (lo, hi, name)."""
    out = []
    for m in re.finditer(r"Variable[\s{(]*(?:Interval[\s{]*)?(-?\d+)\s*,\s*(-?\d+)[\s}]*(?:,\s*\"(\w+)\")?", text):
        out.append((int(m.group(1)), int(m.group(2)), m.group(3)))
    return out


def symbolic_map_text(sym: str, dims, ranges, rts) -> str:
    """The text of an IndexingMap built from ParseSymbolicMap(sym) and its
    variables: the symbols beyond the range variables are runtime ones."""
    m = re.match(r"\s*\(([^)]*)\)\s*(?:\[([^\]]*)\])?\s*->\s*(.*)$", sym, re.S)
    dnames = [d.strip() for d in m.group(1).split(",") if d.strip()]
    snames = [s.strip() for s in (m.group(2) or "").split(",") if s.strip()]
    body = m.group(3).strip()
    nr = len(ranges)
    names = {}
    for k, n in enumerate(snames):
        v = ranges[k] if k < nr else rts[k - nr]
        names[n] = v[2] or (f"s{k}" if k < nr else f"rt{k - nr}")
    for k, n in enumerate(dnames):
        names[n] = dims[k][2] or f"d{k}"
    body = re.sub(r"\b(\w+)\b", lambda mm: names.get(mm.group(1), mm.group(1)), body)
    head = "(" + ", ".join(names[n] for n in dnames) + ")"
    if nr:
        head += "[" + ", ".join(names[n] for n in snames[:nr]) + "]"
    if len(snames) > nr:
        head += "{" + ", ".join(names[n] for n in snames[nr:]) + "}"
    dom = [f"{names[n]} in [{v[0]}, {v[1]}]" for n, v in zip(dnames + snames, list(dims) + list(ranges) + list(rts))]
    return head + " -> " + body + ",\ndomain:\n" + ",\n".join(dom) + "\n"


def simplifier_case(t: CppTest):
    """The op files of a TEST_F of indexing_map_test.cc, or a reason it is
    not ported."""
    ops = []
    b = t.body
    vars_ = string_vars(b)
    nrange = {}  # map name -> number of range variables, where rt vars follow
    for st in cpp_statements(b):
        st = re.sub(r"\s+", " ", st) if "R\"" not in st else st
        m = re.match(r"(?:auto|IndexingMap) (\w+) = Parse\((.*)\)$", st, re.S)
        if m:
            lit = cpp_strings_at(m.group(2), 0)
            ops.append((f"{m.group(1)} = parse", dedent_block(lit[0])))
            continue
        m = re.match(r"IndexingMap (\w+)\(\s*ParseSymbolicMap\(\s*(\"(?:[^\"\\]|\\.)*\"(?:\s*\"(?:[^\"\\]|\\.)*\")*)\s*,\s*&mlir_context_\)\s*,(.*)\)$", st, re.S)
        if m:
            sym = cpp_strings_at(m.group(2), 0)[0]
            groups = split_args(m.group(3))
            lists = [variables(g) for g in groups] + [[], [], []]
            nrange[m.group(1)] = len(lists[1])
            ops.append((f"{m.group(1)} = parse", symbolic_map_text(sym, *lists[:3])))
            continue
        m = re.match(r"auto (\w+) = IndexingMap::FromTensorSizes\(\s*ParseSymbolicMap\((\"[^\"]*\"),\s*&mlir_context_\),\s*\{([^}]*)\},\s*\{([^}]*)\}\)$", st, re.S)
        if m:
            sym = cpp_strings_at(m.group(2), 0)[0]
            dims = [(0, int(x) - 1, None) for x in re.findall(r"\d+", m.group(3))]
            rngs = [(0, int(x) - 1, None) for x in re.findall(r"\d+", m.group(4))]
            ops.append((f"{m.group(1)} = parse", symbolic_map_text(sym, dims, rngs, [])))
            continue
        m = re.match(r"(\w+)\.AddConstraint\(\s*ParseSymbolicExpr\((\"[^\"]*\"),.*?\),\s*Interval\s*\{(-?\d+),\s*(-?\d+)\}\)$", st, re.S)
        if m:
            expr = cpp_strings_at(m.group(2), 0)[0]
            if m.group(1) in nrange:
                nr = nrange[m.group(1)]
                expr = re.sub(r"\bs(\d+)\b", lambda mm: f"s{mm.group(1)}" if int(mm.group(1)) < nr else f"rt{int(mm.group(1)) - nr}", expr)
            ops.append((f"{m.group(1)} = constrain {m.group(1)}", f"{expr} in [{m.group(3)}, {m.group(4)}]\n"))
            continue
        m = re.match(r"(EXPECT_TRUE|EXPECT_FALSE)?\(?\s*(\w+)\.(Simplify|RescaleSymbols)\((IndexingMap::SimplifyPointDimensions::kPreserve)?\)\)?$", st)
        if m:
            what = {"Simplify": "simplify", "RescaleSymbols": "rescale symbols"}[m.group(3)]
            name = f"{m.group(2)} = {what} {m.group(2)}"
            if m.group(4):
                name += " preserving points"
            if m.group(1):
                name += ", changed" if m.group(1) == "EXPECT_TRUE" else ", unchanged"
            ops.append((name, ""))
            continue
        m = re.match(r"(?:auto \w+ = )?(\w+)\.(RemoveUnusedSymbols|RemoveUnusedVars)\(\)$", st)
        if m:
            what = {"RemoveUnusedSymbols": "remove unused symbols", "RemoveUnusedVars": "remove unused vars"}[m.group(2)]
            ops.append((f"{m.group(1)} = {what} {m.group(1)}", ""))
            continue
        m = re.match(r"auto (\w+) = ComposeIndexingMaps\((\w+), (\w+)\)$", st)
        if m:
            ops.append((f"{m.group(1)} = compose {m.group(2)} {m.group(3)}", ""))
            continue
        m = re.match(r"EXPECT_THAT\((.*), (MatchIndexingMap|MatchIndexingString)\((.*)\)\)$", st, re.S)
        if m:
            target = m.group(1).strip()
            target = re.sub(r"^ToString\((.*)\)$", r"\1", target)
            lit = cpp_strings_at(m.group(3), 0)
            if lit is None:
                return None, "expects " + m.group(3)
            want = dedent_block(lit[0]) if "\n" in lit[0] else lit[0].strip() + "\n"
            mm = re.match(r"^(\w+)$", target)
            if mm:
                ops.append((f"expect {target}", want))
                continue
            mm = re.match(r"^(\w+) \* (\w+)$", target)
            if mm:
                ops.append((f"_ = compose {mm.group(1)} {mm.group(2)}", ""))
                ops.append(("expect _", want))
                continue
            mm = re.match(r"^(\w+)\.ConvertSymbolsToDimensions\(\)$", target)
            if mm:
                ops.append((f"_ = symbols to dims {mm.group(1)}", ""))
                ops.append(("expect _", want))
                continue
            return None, "expects " + target
        m = re.match(r"EXPECT_(EQ|NE)\((\w+), (\w+)\)$", st)
        if m:
            ops.append((f"expect {m.group(2)} {'==' if m.group(1) == 'EQ' else '!='} {m.group(3)}", ""))
            continue
        if re.match(r"(std::vector|auto|IndexingMap|SymbolicExpr|mlir::)", st) and "Parse(" not in st and "ParseSymbolic" not in st:
            pass
        short = re.sub(r"\s+", " ", st)[:100]
        return None, "uses " + short
    if not any(n.startswith("expect") or n.endswith("changed") for n, _ in ops):
        return None, "checks no map"
    return Case(t.full, "", ops), None


SIMPLIFIER_COMMENT = """The tests of XLA's {path} (openxla/xla at
{commit}) that build, simplify and compose indexing maps, read by
indexing/xla_simplifier_test.go. Written by testdata/gen/xla_tests.py;
regenerate, do not edit, except the files named "..., why ours differs".

A case is XLA's test, "-- SUITE.TEST --" (empty), then its steps in order,
each "-- SUITE.TEST: STEP --" holding a map's text where the step needs one:

  x = parse                the map in the file
  x = constrain x          x with the constraint in the file ("expr in [a, b]")
  x = simplify x[, changed|, unchanged]   IndexingMap::Simplify (and what it
                           returns); "preserving points" is its kPreserve
  x = rescale symbols x[, changed]        IndexingMap::RescaleSymbols
  x = remove unused symbols x, x = remove unused vars x
  x = symbols to dims x    IndexingMap::ConvertSymbolsToDimensions
  c = compose a b          ComposeIndexingMaps(a, b): a's results feed b
  expect x                 x is the map in the file (XLA's MatchIndexingMap)
  expect a == b, a != b    the maps are (not) equal

A step hlo-opt answers otherwise on purpose is followed by "..., why ours
differs" (the reason).

Not ported (an API other than building, simplifying and composing maps):
"""


def write_simplifier(src: str, commit: str):
    cases, not_ported = [], []
    for t in cpp_tests(src):
        c, why = simplifier_case(t)
        if c is None:
            not_ported.append((t.full, why))
        else:
            cases.append(c)
    comment = SIMPLIFIER_COMMENT.format(path=SIMPLIFIER_TEST, commit=commit)
    comment += "".join(f"  {n}: {why}\n" for n, why in not_ported)
    write_archive(os.path.join(ROOT, "testdata/indexing/xla-simplifier.txtar"), comment, cases)


# ---------------------------------------------------------------------------
# coalescing_analysis_test.cc

COALESCING_TEST = "xla/service/gpu/model/coalescing_analysis_test.cc"

# Tests that build their module with HloComputation::Builder: the module
# they build, as XLA prints it (transcribed from the test body).
COALESCING_BUILT = {
    "CoalescingTest.UnusedParameter": """HloModule m
subcomp {
  p0f = f32[100000] parameter(0)
  p1f = f32[100000] parameter(1)
  ROOT n = f32[100000] negate(p0f)
}
ENTRY b {
  p0 = f32[100000] parameter(0)
  p1 = f32[100000] parameter(1)
  ROOT f = f32[100000] fusion(p0, p1), kind=kLoop, calls=subcomp
}
""",
}


def coalescing_case(t: CppTest):
    """The case of a coalescing test, or a reason it is not ported."""
    b = t.body
    vars_ = string_vars(b)
    hlo = None
    if "ir" in vars_:
        hlo = dedent_block(vars_["ir"])
    elif "ParseAndReturnVerifiedModule(R" in b:
        i = b.index("ParseAndReturnVerifiedModule(") + len("ParseAndReturnVerifiedModule(")
        hlo = dedent_block(cpp_strings_at(b, i)[0])
    elif t.full in COALESCING_BUILT:
        hlo = COALESCING_BUILT[t.full]
    if hlo is None:
        return None, "no HLO text"
    checks = []
    i = b.find("IsReadCoalescedPerOperand(")
    if i >= 0:
        end = matching(b, b.index("(", i))
        m = re.match(r"\s*,\s*ElementsAre\(([^)]*)\)", b[end:])
        if m:
            checks.append(("indexing: " + ", ".join(v.strip() for v in m.group(1).split(",")), ""))
    m = re.search(r"EXPECT_(TRUE|FALSE)\(IsReadCoalescedHeuristic\(ir\)\)", b)
    if m:
        checks.append((f"heuristic: {m.group(1).lower()}", ""))
    consts = {k: int(v) for k, v in re.findall(r"constexpr int (\w+) = (\d+);", b)}
    for m in re.finditer(r"EffectiveBandwidthUtilizationRatePerOperand\(root, \{([^}]*)\}\),\s*ElementsAre\(([^)]*)\)\)", b):
        tile = ",".join(x.strip() for x in m.group(1).split(","))
        expr = m.group(2)
        for k, v in consts.items():
            expr = re.sub(rf"\b{k}\b", str(v), expr)
        if not re.fullmatch(r"[\d.\s/*+-]+", expr):
            return None, "expects " + m.group(2)
        checks.append((f"tile {tile}: {eval(expr):g}", ""))
    if not checks:
        return None, "checks nothing this harness reads"
    return Case(t.full, hlo + "\n", checks), None


COALESCING_COMMENT = """The tests of XLA's {path} (openxla/xla at
{commit}), read by cost/xla_coalescing_test.go. Written by
testdata/gen/xla_tests.py; regenerate, do not edit, except the files named
"..., why ours differs".

A case is XLA's test, "-- SUITE.TEST --" holding its HLO, then its checks:

  indexing: V0, V1, ...   IsReadCoalescedPerOperand: per operand of the ENTRY
                          root fusion, whether XLA finds its reads coalesced
                          (CoalescingAnalysis without the heuristic)
  heuristic: V            IsReadCoalescedHeuristic(emitter, root operand 0, root)
  tile T: R               BandwidthUtilizationRateHeuristicForTiledMemoryAccess
                          of the root's operand under output tile T (both of
                          XLA's tilings, TEST_P's parameter, expect the same)

UnusedParameter builds its module with HloComputation::Builder; its HLO is
the module the builder makes, transcribed in the script.
"""


def write_coalescing(src: str, commit: str):
    cases, not_ported = [], []
    for t in cpp_tests(src):
        c, why = coalescing_case(t)
        if c is None:
            not_ported.append((t.full, why))
        else:
            cases.append(c)
    comment = COALESCING_COMMENT.format(path=COALESCING_TEST, commit=commit)
    if not_ported:
        comment += "\nNot ported:\n" + "".join(f"  {n}: {why}\n" for n, why in not_ported)
    write_archive(os.path.join(ROOT, "testdata/coalescing/xla-coalescing.txtar"), comment, cases)


# ---------------------------------------------------------------------------
# shape and layout tests: shape_util_test.cc, shape_test.cc,
# layout_util_test.cc, layout_test.cc and the ParseShape tests of
# hlo_parser_test.cc

SHAPE_TESTS = ["xla/shape_util_test.cc", "xla/shape_test.cc", "xla/layout_util_test.cc", "xla/layout_test.cc"]

# The checks the harness (hlo/xla_shapes_test.go) runs, by the XLA function
# each ports; a test that calls anything else, or builds a value otherwise
# than below, is listed as not ported with the first such statement.
SHAPE_PREDICATES = {
    "Compatible": "compatible",
    "CompatibleIgnoringFpPrecision": "compatible ignoring fp precision",
    "CompatibleIgnoringElementType": "compatible ignoring element type",
    "Equal": "equal",
    "EqualIgnoringFpPrecision": "equal ignoring fp precision",
    "EqualIgnoringElementType": "equal ignoring element type",
}


# Shape::Equal's options, as the harness names them.
SHAPE_EQUAL_OPTIONS = {
    "IgnoreBuffer": "buffer",
    "IgnoreLayout": "layout",
    "IgnoreDynamicDimension": "dynamic dimension",
    "IgnoreElementType": "element type",
    "IgnoreFpPrecision": "fp precision",
}


class Unsupported(Exception):
    pass


def cpp_int(text: str) -> int:
    text = text.strip()
    for k, v in (("Shape::kUnboundedSize", -1), ("Tile::kCombineDimension", -1)):
        text = text.replace(k, str(v))
    if not re.fullmatch(r"-?\d+", text):
        raise Unsupported(text)
    return int(text)


def int_list(text: str):
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise Unsupported(text)
    inner = text[1:-1].strip()
    return [x for x in split_args(inner)] if inner else []


def tile_text(expr: str) -> str:
    m = re.fullmatch(r"Tile\(\s*(\{.*\})\s*\)", expr.strip(), re.S)
    if not m:
        raise Unsupported(expr)
    return "(" + ",".join("*" if cpp_int(d) == -1 else str(cpp_int(d)) for d in int_list(m.group(1))) + ")"


def split_config_text(expr: str) -> str:
    m = re.fullmatch(r"SplitConfig\(\s*(\d+)\s*,\s*(\{.*\})\s*\)", expr.strip(), re.S)
    if not m:
        raise Unsupported(expr)
    return "(" + m.group(1) + ":" + ",".join(str(cpp_int(x)) for x in int_list(m.group(2))) + ")"


@dataclass
class XLayout:
    """A layout an XLA test builds, printed as Layout::ToString."""

    m2m: list
    tiles: list = field(default_factory=list)  # "(2,128)" each
    tail: int = 1
    index: str = ""
    pointer: str = ""
    esize: int = 0
    mspace: int = 0
    splits: list = field(default_factory=list)
    prefix: int = 0

    def text(self) -> str:
        items = ""
        if self.tiles:
            items += "T" + "".join(self.tiles)
        if self.tail != 1:
            items += f"L({self.tail})"
        if self.index:
            items += f"#({self.index})"
        if self.pointer:
            items += f"*({self.pointer})"
        if self.esize:
            items += f"E({self.esize})"
        if self.mspace:
            items += f"S({self.mspace})"
        if self.splits:
            items += "SC" + "".join(self.splits)
        if self.prefix:
            items += f"M({self.prefix})"
        return "{" + ",".join(str(x) for x in self.m2m) + (":" + items if items else "") + "}"

    def holder(self) -> str:
        """A shape holding this layout: f32, one dimension of 2 per entry."""
        return "f32[" + ",".join("2" for _ in self.m2m) + "]" + self.text()


@dataclass
class XShape:
    """A shape an XLA test builds, printed as HumanStringWithLayout."""

    kind: str  # array, tuple, token, opaque
    type: str = ""
    dims: list = field(default_factory=list)
    dyn: list = field(default_factory=list)
    layout: XLayout = None
    elems: list = field(default_factory=list)
    buffer: bool = False

    def text(self) -> str:
        if self.kind == "tuple":
            return "(" + ", ".join(e.text() for e in self.elems) + ")"
        if self.kind != "array":
            return self.kind + "[]"
        ds = []
        for i, d in enumerate(self.dims):
            if d == -1:
                ds.append("?")
            elif i < len(self.dyn) and self.dyn[i]:
                ds.append(f"<={d}")
            else:
                ds.append(str(d))
        out = f"{self.type}[{','.join(ds)}]"
        if self.layout is not None and (self.dims or self.layout.text() != "{}"):
            out += self.layout.text()
        return f"b({out})" if self.buffer else out


def prim(text: str) -> str:
    t = text.strip().removeprefix("PrimitiveType::").removeprefix("xla::")
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*", t) or t in ("TUPLE", "OPAQUE_TYPE", "TOKEN", "PRIMITIVE_TYPE_INVALID"):
        raise Unsupported(text)
    return t.lower()


def descending(n: int):
    return list(range(n - 1, -1, -1))


def shape_expr(expr: str, env) -> XShape:
    """The shape a C++ expression builds (a copy)."""
    e = re.sub(r"\s+", " ", expr.strip()).removeprefix("xla::")
    if e in env:
        if not isinstance(env[e], XShape):
            raise Unsupported(expr)
        return copy.deepcopy(env[e])
    e = re.sub(r"\.value\(\)$", "", e)
    m = re.fullmatch(r"(?:ShapeUtil::)?(\w+)\((.*)\)", e, re.S)
    if not m:
        raise Unsupported(expr)
    fn, args = m.group(1), split_args(m.group(2)) if m.group(2).strip() else []
    if fn in ("MakeShape", "MakeValidatedShape") and len(args) in (2, 3):
        dims = [cpp_int(x) for x in int_list(args[1])]
        dyn = [x.strip().endswith("true") for x in int_list(args[2])] if len(args) == 3 else []
        return XShape("array", prim(args[0]), dims, dyn, XLayout(descending(len(dims))))
    if fn == "MakeScalarShape" and len(args) == 1:
        return XShape("array", prim(args[0]), [], [], XLayout([]))
    if fn in ("MakeShapeWithDenseLayout", "MakeValidatedShapeWithDenseLayout", "MakeShapeWithLayout") and 3 <= len(args) <= 8:
        dims = [cpp_int(x) for x in int_list(args[1])]
        lay = XLayout([cpp_int(x) for x in int_list(args[2])])
        lay.tiles = [tile_text(x) for x in int_list(args[3])] if len(args) > 3 else []
        lay.tail = cpp_int(args[4]) if len(args) > 4 else 1
        lay.esize = cpp_int(args[5]) if len(args) > 5 else 0
        lay.mspace = cpp_int(args[6]) if len(args) > 6 else 0
        lay.splits = [split_config_text(x) for x in int_list(args[7])] if len(args) > 7 else []
        return XShape("array", prim(args[0]), dims, [], lay)
    if fn == "MakeValidatedBufferShape" and len(args) == 2:
        dims = [cpp_int(x) for x in int_list(args[1])]
        return XShape("array", prim(args[0]), dims, [], XLayout(descending(len(dims))), buffer=True)
    if fn == "MakeTupleShape" and len(args) == 1:
        return XShape("tuple", elems=[shape_expr(x, env) for x in int_list(args[0])])
    if fn == "MakeTupleShapeWithPtrs" and len(args) == 1:
        return XShape("tuple", elems=[shape_expr(x.strip().removeprefix("&"), env) for x in int_list(args[0])])
    if fn == "MakeNil" and not args:
        return XShape("tuple")
    if fn == "MakeTokenShape" and not args:
        return XShape("token")
    if fn == "MakeOpaqueShape" and not args:
        return XShape("opaque")
    raise Unsupported(expr)


def layout_expr(expr: str, env) -> XLayout:
    """The layout a C++ expression builds (a copy)."""
    e = re.sub(r"\s+", " ", expr.strip())
    if e in env and isinstance(env[e], XLayout):
        return copy.deepcopy(env[e])
    m = re.match(r"(?:LayoutUtil::MakeLayout|Layout)\((.*?)\)((?:\.\w+\([^()]*(?:\([^()]*(?:\([^()]*\))?[^()]*\))?[^()]*\))*)$", e)
    if not m:
        m2 = re.fullmatch(r"LayoutUtil::Make(Descending|Ascending)Layout\((\d+)\)", e)
        if m2:
            n = int(m2.group(2))
            return XLayout(descending(n) if m2.group(1) == "Descending" else list(range(n)))
        raise Unsupported(expr)
    args = split_args(m.group(1)) if m.group(1).strip() else []
    if len(args) > 2:
        raise Unsupported(expr)
    lay = XLayout([cpp_int(x) for x in int_list(args[0])] if args else [])
    lay.tiles = [tile_text(x) for x in int_list(args[1])] if len(args) > 1 else []
    for cm in re.finditer(r"\.(\w+)\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", m.group(2)):
        layout_setter(lay, cm.group(1), cm.group(2), expr)
    return lay


def layout_setter(lay: XLayout, name: str, arg: str, stmt: str):
    """Applies a Layout setter (set_memory_space(3), add_split_configs(...))."""
    if name == "set_element_size_in_bits":
        lay.esize = cpp_int(arg)
    elif name == "set_memory_space":
        lay.mspace = cpp_int(arg)
    elif name == "set_tail_padding_alignment_in_elements":
        lay.tail = cpp_int(arg)
    elif name == "set_index_primitive_type":
        lay.index = prim(arg)
    elif name == "set_pointer_primitive_type":
        lay.pointer = prim(arg)
    elif name == "set_dynamic_shape_metadata_prefix_bytes":
        lay.prefix = cpp_int(arg)
    elif name == "add_split_configs":
        lay.splits.append(split_config_text(arg))
    elif name == "clear_tiles" and not arg.strip():
        lay.tiles = []
    elif name == "clear_minor_to_major" and not arg.strip():
        lay.m2m = []
    elif name == "add_minor_to_major":
        lay.m2m.append(cpp_int(arg))
    else:
        raise Unsupported(stmt)


def strip_stream(st: str) -> str:
    """The statement without a trailing "<< message" of a gtest macro."""
    depth, i = 0, 0
    while i < len(st):
        c = st[i]
        if c == '"' or st.startswith('R"', i):
            _, i = cpp_string_at(st, i)
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif depth == 0 and st.startswith("<<", i):
            return st[:i].strip()
        i += 1
    return st


def string_lit(text: str, env):
    t = text.strip()
    if t in env and env[t][0] == "string":
        return env[t][1]
    r = cpp_strings_at(t, 0)
    if r is None or t[r[1]:].strip():
        raise Unsupported(text)
    return r[0]


def printed(expr: str, env):
    """(check, shape text) of an expression that prints a shape or layout."""
    e = re.sub(r"\s+", " ", expr.strip())
    m = re.fullmatch(r"ShapeUtil::(HumanStringWithLayout|HumanString)\((.*)\)", e)
    if m:
        return ("prints" if m.group(1) == "HumanStringWithLayout" else "prints without layout"), shape_expr(m.group(2), env).text()
    m = re.fullmatch(r"LayoutUtil::HumanString\((.*)\)", e)
    if m:
        return "layout prints", layout_expr(m.group(1), env).holder()
    m = re.fullmatch(r"(.*)\.ToString\((.*)\)", e)
    if not m:
        raise Unsupported(expr)
    target, arg = m.group(1), re.sub(r"/\*\w+=\*/", "", m.group(2)).strip()
    try:
        return "layout prints", layout_expr(target, env).holder()
    except Unsupported:
        pass
    if arg not in ("", "false", "true"):
        raise Unsupported(expr)
    return ("prints" if arg == "true" else "prints without layout"), shape_expr(target, env).text()


def shape_ref(name: str, env) -> XShape:
    """The shape variable name (itself, to mutate)."""
    v = env.get(name.strip())
    if not isinstance(v, XShape):
        raise Unsupported(name)
    return v


STRING_DECL = re.compile(r'(?:(?:const )?(?:std::string|absl::string_view) )?(\w+)(?: =)? ("(?:[^"\\]|\\.)*")')


def shape_statement(st: str, env, checks):
    """Translates one statement into env updates and checks, or raises
    Unsupported."""
    st = strip_stream(re.sub(r"\s+", " ", st) if 'R"' not in st else st)
    st = re.sub(r"\(\s+", "(", re.sub(r"/\*\w+=\*/", "", st))
    m = STRING_DECL.fullmatch(st)
    if m:
        env[m.group(1)] = ("string", cpp_strings_at(m.group(2), 0)[0])
        return
    m = re.fullmatch(r"(?:TF_)?ASSERT_OK_AND_ASSIGN\((?:Shape |auto )?(\w+), ParseShape\((.*)\)\)", st)
    if m:
        text = string_lit(m.group(2), env)
        env[m.group(1)] = ("parsed", text)
        checks.append(("parses", text + "\n"))
        return
    m = re.fullmatch(r"(?:auto|absl::StatusOr<Shape>) (\w+) = ParseShape\((.*)\)", st)
    if m:
        env[m.group(1)] = ("parse", string_lit(m.group(2), env))
        return
    m = re.fullmatch(r"ExpectHasSubstr\((\w+)\.status\(\)\.message\(\), (.*)\)", st)
    if m and env.get(m.group(1), ("",))[0] == "parse":
        checks.append(("rejected", env[m.group(1)][1] + "\n" + string_lit(m.group(2), env) + "\n"))
        return
    m = re.fullmatch(r"(?:(?:EXPECT|ASSERT)_FALSE\((\w+)\.ok\(\)\)|EXPECT_NE\(absl::OkStatus\(\), (\w+)\.status\(\)\))", st)
    if m and env.get(m.group(1) or m.group(2), ("",))[0] == "parse":
        checks.append(("rejected", env[m.group(1) or m.group(2)][1] + "\n"))
        return
    # Declarations and assignments.
    m = re.fullmatch(r"(?:auto|Layout\*) (\w+) = (\w+)\.mutable_layout\(\)", st)
    if m:
        env[m.group(1)] = ("layout of", m.group(2))
        return
    m = re.fullmatch(r"(?:const )?(?:Shape|auto) (\w+) = (.*)", st) or re.fullmatch(r"(\w+) = (ShapeUtil::.*)", st)
    if m:
        env[m.group(1)] = shape_expr(m.group(2), env)
        return
    m = re.fullmatch(r"(?:const )?Shape (\w+)\((.*)\)", st)
    if m:
        env[m.group(1)] = shape_expr(f"ShapeUtil::MakeShape({m.group(2)})", env)
        return
    m = re.fullmatch(r"(?:const )?Layout (\w+)(?: = (.*)|\((.*)\))", st)
    if m:
        env[m.group(1)] = layout_expr(m.group(2) if m.group(2) is not None else f"Layout({m.group(3)})", env)
        return
    # Mutations.
    m = re.fullmatch(r"\*(\w+)\.mutable_layout\(\) = (.*)", st)
    if m:
        shape_ref(m.group(1), env).layout = layout_expr(m.group(2), env)
        return
    m = re.fullmatch(r"(?:Tile\* )?(\w+) = (\w+)\.mutable_layout\(\)->add_tiles\(\)", st)
    if m:
        shape_ref(m.group(2), env).layout.tiles.append("()")
        env[m.group(1)] = ("tile of", m.group(2))
        return
    m = re.fullmatch(r"(?:(\w+)\.mutable_layout\(\)|(\w+))->(\w+)\((.*)\)", st)
    if m:
        name = m.group(1)
        if name is None:
            ref = env.get(m.group(2))
            if isinstance(ref, tuple) and ref[0] == "tile of" and m.group(3) == "add_dimensions":
                lay = shape_ref(ref[1], env).layout
                d = cpp_int(m.group(4))
                t = lay.tiles[-1][1:-1]
                lay.tiles[-1] = "(" + (t + "," if t else "") + ("*" if d == -1 else str(d)) + ")"
                return
            if not (isinstance(ref, tuple) and ref[0] == "layout of"):
                raise Unsupported(st)
            name = ref[1]
        layout_setter(shape_ref(name, env).layout, m.group(3), m.group(4), st)
        return
    m = re.fullmatch(r"(\w+)\.set_dynamic_dimension\((\d+), (true|false)\)", st)
    if m:
        sh = shape_ref(m.group(1), env)
        sh.dyn = (sh.dyn + [False] * len(sh.dims))[: len(sh.dims)]
        sh.dyn[int(m.group(2))] = m.group(3) == "true"
        return
    m = re.fullmatch(r"(?:constexpr |const )?(?:int|int64_t) (\w+) = (-?\d+)", st)
    if m:
        env[m.group(1)] = ("int", m.group(2))
        return
    if re.fullmatch(r"Tile\* \w+", st):
        return  # a declaration; add_tiles() gives it its value
    # Checks.
    m = re.fullmatch(r"(?:EXPECT|ASSERT)_(TRUE|FALSE)\(Shape::Equal\(\)((?:\.Ignore\w+\(\))*)\((.*)\)\)", st)
    if m:
        ignored = [SHAPE_EQUAL_OPTIONS.get(o) for o in re.findall(r"\.(Ignore\w+)\(\)", m.group(2))]
        args = split_args(m.group(3))
        if None in ignored or len(args) != 2:
            raise Unsupported(st)
        verb = "equal" + (" ignoring " + ", ".join(ignored) if ignored else "")
        want = "true" if m.group(1) == "TRUE" else "false"
        checks.append((f"{verb}: {want}", value_text(args[0], env) + "\n" + value_text(args[1], env) + "\n"))
        return
    m = re.fullmatch(r"(?:EXPECT|ASSERT)_(TRUE|FALSE)\(ShapeUtil::(\w+)\((.*)\)\)", st)
    if m and m.group(2) in SHAPE_PREDICATES:
        args = split_args(m.group(3))
        if len(args) != 2:
            raise Unsupported(st)
        want = "true" if m.group(1) == "TRUE" else "false"
        for x, y in ((args[0], args[1]), (args[1], args[0])):
            ms = re.fullmatch(r"\*?ShapeUtil::Get(?:Mutable)?Subshape\(&?(\w+), (\{[^}]*\})\)", y.strip())
            if ms and m.group(2) == "Equal":
                idx = ",".join(str(cpp_int(v)) for v in int_list(ms.group(2)))
                checks.append((f"subshape {{{idx}}} equal: {want}", value_text(ms.group(1), env) + "\n" + value_text(x, env) + "\n"))
                return
        checks.append((f"{SHAPE_PREDICATES[m.group(2)]}: {want}", value_text(args[0], env) + "\n" + value_text(args[1], env) + "\n"))
        return
    m = re.fullmatch(r"(?:EXPECT|ASSERT)_(EQ|NE)\((.*)\)", st)
    if m:
        args = split_args(m.group(2))
        if len(args) != 2:
            raise Unsupported(st)
        equality_check(args[0], args[1], m.group(1) == "EQ", env, checks, st)
        return
    raise Unsupported(st)


def value_text(expr: str, env) -> str:
    """The text of a shape, or of what ParseShape read into a variable."""
    v = env.get(expr.strip())
    if isinstance(v, tuple) and v[0] == "parsed":
        return v[1]
    return shape_expr(expr, env).text()


def equality_check(a: str, b: str, eq: bool, env, checks, st: str):
    """The check of EXPECT_EQ(a, b) (or EXPECT_NE)."""
    ints = {k: v[1] for k, v in env.items() if isinstance(v, tuple) and v[0] == "int"}
    a, b = ints.get(a.strip(), a), ints.get(b.strip(), b)
    for x, y in ((a, b), (b, a)):
        r = cpp_strings_at(x.strip(), 0)
        if r is not None and not x.strip()[r[1] :].strip() and eq:
            kind, text = printed(y, env)
            checks.append((kind, text + "\n" + r[0] + "\n"))
            return
    for x, y in ((a, b), (b, a)):
        if not re.fullmatch(r"\s*-?\d+\s*", x) or not eq:
            continue
        mm = re.fullmatch(r"ShapeUtil::(ElementsIn|ByteSizeOf)\((.*)\)", y.strip(), re.S)
        if mm:
            args = split_args(mm.group(2))
            verb = "elements" if mm.group(1) == "ElementsIn" else "bytes"
            if len(args) == 2 and verb == "bytes":
                verb += f" with pointers of {cpp_int(args[1])}"
            elif len(args) != 1:
                raise Unsupported(st)
            checks.append((f"{verb}: {x.strip()}", value_text(args[0], env) + "\n"))
            return
        mm = re.fullmatch(r"LayoutUtil::LinearIndexForNestedTiling\((\w+), (\{[^}]*\})\)", y.strip())
        if mm:
            idx = ",".join(str(cpp_int(v)) for v in int_list(mm.group(2)))
            checks.append((f"linear index {idx}: {x.strip()}", value_text(mm.group(1), env) + "\n"))
            return
    want = "true" if eq else "false"
    try:
        checks.append((f"equal: {want}", value_text(a, env) + "\n" + value_text(b, env) + "\n"))
        return
    except Unsupported:
        pass
    la, lb = layout_expr(a, env), layout_expr(b, env)
    if len(la.m2m) != len(lb.m2m):
        raise Unsupported(st)  # a shape holds a layout of its rank only
    checks.append((f"layout equal: {want}", la.holder() + "\n" + lb.holder() + "\n"))


def fixture_env(src: str):
    """The shapes the test fixtures of src hold as members."""
    env = {}
    for cm in re.finditer(r"class \w+ : public ::testing::Test \{(.*?)\n\};", src, re.S):
        for m in re.finditer(r"const Shape (\w+) =\s*(.*?);", cm.group(1), re.S):
            try:
                env[m.group(1)] = shape_expr(m.group(2), env)
            except Unsupported:
                pass
    return env


def shape_case(t: CppTest, fixture):
    """The case of a shape or layout test: its checks, and the statements
    it could not port (empty when all were)."""
    env = dict(fixture)
    checks, skipped = [], []
    stmts = cpp_statements(t.body)
    m = re.search(r"std::string (\w+)\[\] = (\{.*?\});\s*for \(const std::string& (\w+) : \1\) \{(.*)\}", t.body, re.S)
    if m and "ParseShape(" in m.group(4) and re.search(r"ASSERT_FALSE\(result\.ok\(\)\)", m.group(4)):
        texts = [cpp_strings_at(x.strip(), 0)[0] for x in int_list(re.sub(r"\s+", " ", m.group(2)))]
        return Case(t.full, "", [("rejected", x + "\n") for x in texts]), []
    loops = re.findall(r"\bfor \(", t.body)
    if loops:
        return None, "loops over values (" + re.sub(r"\s+", " ", t.body.strip())[:60] + ")"
    for st in stmts:
        try:
            shape_statement(st, env, checks)
        except Unsupported:
            skipped.append(re.sub(r"\s+", " ", st)[:90])
            if not re.match(r"\s*(EXPECT|ASSERT)_", st):
                # It may have changed the values it names: later checks of
                # them are not ported either.
                for name in set(re.findall(r"\b\w+\b", st)) & set(env):
                    del env[name]
    if not checks:
        return None, "uses " + (skipped[0] if skipped else "nothing")
    return Case(t.full, "", checks), skipped


def parse_shape_tests(src: str):
    """The ParseShape tests of hlo_parser_test.cc."""
    return [t for t in cpp_tests(src) if re.search(r"\bParseShape\(", t.body) and "ParseAndReturn" not in t.body]


SHAPES_COMMENT = """The shape and layout tests of XLA (openxla/xla at {commit}):
{paths}
and the ParseShape tests of {parser}, read by hlo/xla_shapes_test.go.
Written by testdata/gen/xla_tests.py, which translates each test's
statements: a shape built with ShapeUtil::Make* or a Layout becomes the text
XLA prints for it (HumanStringWithLayout, Layout::ToString), each check a
file. Regenerate, do not edit, except the files named "..., why ours
differs".

"-- SUITE.TEST --" starts a test; its checks follow as "-- SUITE.TEST: CHECK --"
with the shapes they take, one per line:

  parses                      ParseShape accepts the text
  rejected                    ParseShape refuses the text (line 1); line 2,
                              if any, is a phrase of XLA's error
  equal: B                    ShapeUtil::Equal (Shape ==) of the two shapes is B
  equal ignoring fp precision: B, equal ignoring element type: B
  compatible: B               ShapeUtil::Compatible; also "compatible
                              ignoring fp precision", "... element type"
  layout equal: B             Layout == of the two shapes' layouts
  prints                      the shape (line 1) prints as line 2 with its
                              layout (HumanStringWithLayout, ToString(true))
  prints without layout       ... without it (HumanString, ToString())
  layout prints               the shape's layout prints as line 2
  elements: N, bytes: N       ShapeUtil::ElementsIn, ByteSizeOf
  linear index I: N           LayoutUtil::LinearIndexForNestedTiling at I

Not ported (what the test calls that hlo-opt has no counterpart of):
"""


def write_shapes(gitdir: str, commit: str, parser_src: str):
    cases, not_ported = [], []
    sources = [(p, git_show(gitdir, commit, p)) for p in SHAPE_TESTS]
    tests = [(t, {}) for t in parse_shape_tests(parser_src)]
    for _, src in sources:
        fixture = fixture_env(src)
        tests += [(t, fixture) for t in cpp_tests(src)]
    for t, fixture in tests:
        c, skipped = shape_case(t, fixture)
        if c is None:
            not_ported.append((t.full, skipped))
            continue
        cases.append(c)
        if skipped:
            not_ported.append((t.full + ", in part", f"{len(skipped)} statements, first: " + skipped[0]))
    comment = SHAPES_COMMENT.format(commit=commit, paths="".join(f"  {p}\n" for p in SHAPE_TESTS).rstrip("\n"), parser=PARSER_TEST)
    comment += "".join(f"  {n}: {why}\n" for n, why in not_ported)
    write_archive(os.path.join(ROOT, "hlo/testdata/xla-shapes.txtar"), comment, cases)


if __name__ == "__main__":
    main()
