#!/usr/bin/env python3
"""Lists the functions over 120 lines and the files over 600 lines of the
project's own C++ and JavaScript (docs/testing.md#the-sizes-check).

usage: check_sizes.py [--all] REPO_ROOT
       check_sizes.py --self-test

Reads the .cc and .h files of the library and front-end folders (not
third_party, tests, bench or fuzz) and server/assets/*.js and web/*.js. A
brace-matching scan that skips comments, strings, character literals, raw
strings (C++), template literals and regular expressions (JavaScript) finds
each function's body; a lambda or a nested function counts in the function
around it, a namespace, class or object literal is not a function. An entry
over its limit carries its reason in a comment that starts with "size:": for
a function, in the comment lines right above it or in the first comment of
its body; for a file, in a comment before its first declaration. Fails (exit
1) with one line per entry without a reason, FILE:LINE and the count; on
success prints one line. --all lists the entries with a reason too. Standard
library only.
"""

import os
import re
import sys

FUNCTION_LIMIT = 120  # lines, from the signature's first line to the closing brace
FILE_LIMIT = 600  # lines

CPP_FOLDERS = ["base", "metrics", "graph", "adapters", "writers", "store", "advisor", "live",
               "pipeline", "server", "mcp", "cli", "python", "web"]
JS_FOLDERS = ["server/assets", "web"]  # their own .js files, not subfolders (vendor/)

# A reason: a comment whose text starts with "size:" and says why in a few words.
MARKER = re.compile(r"^\s*size:\s*(\S.{9,})")

IDENT_START = re.compile(r"[A-Za-z_$]")
IDENT = re.compile(r"[A-Za-z0-9_$]*")
PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|)*")  # with separators: 1'000
JS_NUMBER = re.compile(r"\.?[0-9][0-9A-Za-z_.]*")
RAW_PREFIXES = {"R", "u8R", "uR", "UR", "LR"}
LITERAL_PREFIXES = {"u8", "u", "U", "L"}
CLASS_WORDS = {"class", "struct", "union", "enum", "namespace"}
JS_CONTROL = {"if", "for", "while", "switch", "catch", "with"}
# After these a JavaScript "/" starts a regular expression, not a division.
JS_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete",
                        "void", "throw", "instanceof", "yield", "await"}


class Token:
    __slots__ = ("text", "line", "kind")

    def __init__(self, text, line, kind):
        self.text, self.line, self.kind = text, line, kind  # kind: word, number, string, punct


class Scan:
    """Tokens (comments, strings and preprocessor lines left out) and comments."""

    def __init__(self):
        self.tokens = []
        self.comments = []  # (first line, last line, text)
        self.code_lines = set()
        self.comment_lines = set()


def _scan_quoted(text, i, quote, line, template=False):
    """From text[i], inside a literal that `quote` closes: the index after its
    end, the line, and whether it ended at a "${" (a template literal's
    substitution). An unterminated literal ends at its line's end; a template
    literal spans lines."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                line += 1
            i += 2
            continue
        if c == quote:
            return i + 1, line, False
        if c == "\n":
            if not template:
                return i, line, False
            line += 1
        elif template and c == "$" and i + 1 < n and text[i + 1] == "{":
            return i + 2, line, True
        i += 1
    return i, line, False


def _skip_quoted(text, i, quote, line):
    """Index after the closing quote of the literal starting at text[i], and the line."""
    i, line, _ = _scan_quoted(text, i + 1, quote, line)
    return i, line


def _literal(scan, text, i, line, number):
    """A number (matched by `number`) or a quoted string at text[i]: adds its
    token and returns the index after it and the line; None for neither."""
    c = text[i]
    if c.isdigit() or (c == "." and i + 1 < len(text) and text[i + 1].isdigit()):
        j = number.match(text, i).end()
        scan.tokens.append(Token(text[i:j], line, "number"))
        return j, line
    if c in "\"'":
        j, end_line = _skip_quoted(text, i, c, line)
        scan.tokens.append(Token('""', line, "string"))
        return j, end_line
    return None


def _punctuator(scan, text, i, line, pairs):
    """Adds the punctuator at text[i], one of `pairs` or else one character;
    returns the index after it."""
    size = 2 if text[i:i + 2] in pairs else 1
    scan.tokens.append(Token(text[i:i + size], line, "punct"))
    return i + size


def _comment(scan, text, i, line):
    """Records the comment at text[i] ("//" or "/*"); returns the index after it and the line."""
    n = len(text)
    first = line
    if text.startswith("//", i):
        end = text.find("\n", i)
        end = n if end < 0 else end
        while end > 0 and text[end - 1] == "\\" and end < n:  # a continued line comment
            line += 1
            nxt = text.find("\n", end + 1)
            end = n if nxt < 0 else nxt
        body = text[i + 2:end]
        scan.comments.append((first, line, body))
        scan.comment_lines.update(range(first, line + 1))
        return end, line
    end = text.find("*/", i + 2)
    end = n if end < 0 else end
    body = text[i + 2:end]
    line += body.count("\n")
    for k, part in enumerate(body.split("\n")):
        scan.comments.append((first + k, first + k, re.sub(r"^\s*\*(?!/)", "", part)))
    scan.comment_lines.update(range(first, line + 1))
    return min(end + 2, n), line


def scan_cpp(text):
    scan = Scan()
    i, n, line = 0, len(text), 1
    at_line_start = True  # only blanks since the last newline: a "#" starts a directive
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] in "/*":
            i, line = _comment(scan, text, i, line)
            continue
        if c == "#" and at_line_start:  # a preprocessor directive, to its last continued line
            while i < n and text[i] != "\n":
                if text.startswith("//", i) or text.startswith("/*", i):
                    i, line = _comment(scan, text, i, line)
                    continue
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 2
                    continue
                if text[i] in "\"'":
                    i, line = _skip_quoted(text, i, text[i], line)
                    continue
                i += 1
            continue
        at_line_start = False
        scan.code_lines.add(line)
        if IDENT_START.match(c) and c != "$":
            j = IDENT.match(text, i + 1).end()
            word = text[i:j]
            if word in RAW_PREFIXES and j < n and text[j] == '"':
                close = text.find("(", j)
                delimiter = ")" + text[j + 1:close] + '"'
                end = text.find(delimiter, close)
                end = n if end < 0 else end + len(delimiter)
                scan.tokens.append(Token('""', line, "string"))
                line += text.count("\n", i, end)
                i = end
                continue
            if word in LITERAL_PREFIXES and j < n and text[j] in "\"'":
                start = line
                i, line = _skip_quoted(text, j, text[j], line)
                scan.tokens.append(Token('""', start, "string"))
                continue
            scan.tokens.append(Token(word, line, "word"))
            i = j
            continue
        literal = _literal(scan, text, i, line, PP_NUMBER)
        if literal:
            i, line = literal
            continue
        i = _punctuator(scan, text, i, line, ("::", "->"))
    return scan


def _regex_allowed(prev):
    if prev is None:
        return True
    if prev.kind == "word":
        return prev.text in JS_REGEX_AFTER_WORDS
    if prev.kind in ("number", "string"):
        return False
    return prev.text not in (")", "]", "}")


def scan_js(text):
    scan = Scan()
    i, n, line = 0, len(text), 1
    braces = []  # "{" for code, "${" for a template literal's substitution

    def template(i, line):
        """Scans a template literal's text from text[i] to its end or its next "${"."""
        i, line, substitution = _scan_quoted(text, i, "`", line, template=True)
        if substitution:
            braces.append("${")
        return i, line

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] in "/*":
            i, line = _comment(scan, text, i, line)
            continue
        scan.code_lines.add(line)
        prev = scan.tokens[-1] if scan.tokens else None
        if IDENT_START.match(c):
            j = IDENT.match(text, i + 1).end()
            scan.tokens.append(Token(text[i:j], line, "word"))
            i = j
            continue
        literal = _literal(scan, text, i, line, JS_NUMBER)
        if literal:
            i, line = literal
            continue
        if c == "`":
            scan.tokens.append(Token('""', line, "string"))
            i, line = template(i + 1, line)
            continue
        if c == "/" and _regex_allowed(prev):
            j, in_class = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            j = IDENT.match(text, j + 1).end()  # the flags
            scan.tokens.append(Token('""', line, "string"))
            i = j
            continue
        if c == "{":
            braces.append("{")
        elif c == "}":
            if braces and braces[-1] == "${":
                braces.pop()
                i, line = template(i + 1, line)
                continue
            if braces:
                braces.pop()
        i = _punctuator(scan, text, i, line, ("=>",))
    return scan


class Function:
    def __init__(self, name, first, body):
        self.name, self.first, self.body, self.last = name, first, body, body


def _strip_template(header):
    """The header without a leading "template <...>"."""
    k = 0
    while k + 1 < len(header) and header[k].text == "template" and header[k + 1].text == "<":
        depth, k = 0, k + 1
        while k < len(header):
            if header[k].text == "<":
                depth += 1
            elif header[k].text == ">":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            k += 1
    return header[k:]


def _top_level(header):
    """The header's tokens outside parentheses, brackets and template arguments."""
    out, depth, angles = [], 0, 0
    for k, t in enumerate(header):
        if depth == 0 and t.text == "<" and k and header[k - 1].kind == "word" \
                and header[k - 1].text != "operator":
            angles += 1
        elif depth == 0 and t.text == ">" and angles:
            angles -= 1
        elif angles:
            continue
        elif t.text in "([":
            if depth == 0:
                out.append(t)
            depth += 1
        elif t.text in ")]":
            depth -= 1
            if depth == 0:
                out.append(t)
        elif depth == 0:
            out.append(t)
    return out


def _name_before(tokens, k):
    """The qualified name that ends at tokens[k - 1] (operator names included)."""
    operator = [m for m in range(max(0, k - 4), k) if tokens[m].text == "operator"]
    if operator:  # operator==, operator(), operator[]
        j = operator[0]
        name = "".join(t.text for t in tokens[j:k])
    elif k >= 1 and tokens[k - 1].kind == "word":
        j = k - 1
        name = tokens[j].text
    else:
        return "(anonymous)"
    if j >= 1 and tokens[j - 1].text == "~":
        j -= 1
        name = "~" + name
    while j >= 2 and tokens[j - 1].text == "::" and tokens[j - 2].kind == "word":
        name = tokens[j - 2].text + "::" + name
        j -= 2
    return name


def classify_cpp(header, prev):
    """What a "{" opens outside any function: "scope", "function" or "init"."""
    body = _strip_template(header)
    top = _top_level(body)
    words = [t.text for t in top if t.kind == "word"]
    for k, t in enumerate(top):
        if t.text in ("class", "struct", "union") and k + 1 < len(top) and top[k + 1].kind == "word":
            return "scope", top[k + 1].text  # members are named Class::Member
    if any(w in CLASS_WORDS for w in words) or (words[:1] == ["extern"] and len(top) > 1
                                                  and top[1].kind == "string"):
        return "scope", None
    texts = [t.text for t in top]
    if "(" not in texts:
        return ("scope", None) if not body else ("init", None)
    first_paren = texts.index("(")
    has_operator = "operator" in texts[:first_paren + 1]
    if "=" in texts and not has_operator:
        equals = texts.index("=")
        is_lambda = "[" in texts[equals:] and prev.text in (")", "]", "mutable", "->") or (
            prev.kind == "word" and "->" in texts[equals:])
        if is_lambda:
            return "function", _name_before(top, equals)
        return "init", None
    # A constructor's member initialised with braces, ": a_{1}", is not its body.
    colon = [k for k, t in enumerate(texts) if t == ":" and k > first_paren]
    if colon and prev.text not in (")", "}"):
        return "init", None
    return "function", _name_before(top, first_paren)


def functions_cpp(scan):
    """Every function body outside another function, with its first and last lines."""
    found = []
    stack = []  # ("scope"|"function"|"init"|"inner", Function or None)
    header, depth = [], 0  # tokens since the last ";", "{" or "}" of a scope, parenthesis depth

    def in_scope():
        return all(kind == "scope" for kind, _ in stack)

    for t in scan.tokens:
        if not in_scope():
            if t.text == "{":
                stack.append(("inner", None))
            elif t.text == "}":
                kind, fn = stack.pop()
                if kind == "function":
                    fn.last = t.line
                    found.append(fn)
                    header, depth = [], 0
                elif kind == "init" and in_scope():
                    header.append(t)  # "= {...}" or "x_{1}": the declaration goes on
            continue
        if t.text == "{":
            if depth > 0 or not header:
                stack.append(("init" if header else "scope", None))
                if header:
                    header.append(t)
                continue
            kind, name = classify_cpp(header, header[-1])
            if kind == "function":
                classes = [c for k, c in stack if k == "scope" and c]
                if "::" not in name and classes:
                    name = "::".join(classes + [name])
                stack.append(("function", Function(name, header[0].line, t.line)))
            elif kind == "init":
                header.append(t)
                stack.append(("init", None))
            else:
                stack.append(("scope", name))
                header, depth = [], 0
            continue
        if t.text == "}":
            if stack:
                stack.pop()
            header, depth = [], 0
            continue
        if t.text == ";" and depth == 0:
            header = []
            continue
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth = max(0, depth - 1)
        if (t.text == ":" and len(header) == 1
                and header[0].text in ("public", "private", "protected")):
            header = []
            continue
        header.append(t)
    return found


def functions_js(scan):
    """Every function outside another function: declarations, methods and arrows."""
    found = []
    stack = []  # ("block"|"function", Function or None)
    tokens = scan.tokens

    def in_function():
        return any(kind == "function" for kind, _ in stack)

    def opening_paren(k):
        """Index of the "(" that the ")" at tokens[k] closes."""
        depth = 0
        while k >= 0:
            if tokens[k].text == ")":
                depth += 1
            elif tokens[k].text == "(":
                depth -= 1
                if depth == 0:
                    return k
            k -= 1
        return 0

    for k, t in enumerate(tokens):
        if t.text == "}":
            if stack:
                kind, fn = stack.pop()
                if kind == "function":
                    fn.last = t.line
                    found.append(fn)
            continue
        if t.text != "{":
            continue
        if in_function():
            stack.append(("block", None))
            continue
        prev = tokens[k - 1] if k else None
        start = None
        if prev is not None and prev.text == "=>":
            before = tokens[k - 2] if k >= 2 else None
            start = opening_paren(k - 2) if before is not None and before.text == ")" else k - 2
        elif prev is not None and prev.text == ")":
            paren = opening_paren(k - 1)
            word = tokens[paren - 1] if paren else None
            if word is None or word.text not in JS_CONTROL:
                start = paren
        # A function called where it is written at the file's top, "(function () {...})()",
        # is the file's scope, as a namespace.
        j = start - 1 if start is not None else -1
        while j >= 0 and tokens[j].text in ("async", "function"):
            j -= 1
        iife = (not stack and j >= 0 and tokens[j].text == "("
                and (j == 0 or tokens[j - 1].text in (";", "!") or tokens[j - 1].kind == "string"))
        if start is None or iife:
            stack.append(("block", None))
            continue
        # The name: "function f(", "f(" (a method), "f = (" or "f: (" for arrows.
        j = start - 1
        while j >= 0 and tokens[j].text in ("async", "function", "*", "=", ":", "static"):
            j -= 1
        name = tokens[j].text if j >= 0 and tokens[j].kind == "word" else "(anonymous)"
        first = tokens[max(j, 0)].line if name != "(anonymous)" else tokens[start].line
        stack.append(("function", Function(name, first, t.line)))
    return found


def _comment_text(scan, first, last):
    return [text for a, _, text in scan.comments if first <= a <= last]


def function_reason(scan, fn):
    """The reason in the comment lines right above the function or its body's first comment."""
    top = fn.first
    while top - 1 in scan.comment_lines and top - 1 not in scan.code_lines:
        top -= 1
    texts = _comment_text(scan, top, fn.body)
    code_after = [ln for ln in scan.code_lines if fn.body < ln <= fn.last]
    first_code = min(code_after) if code_after else fn.last
    texts += [text for a, _, text in scan.comments if fn.body <= a <= first_code]
    return _reason(texts)


def file_reason(scan):
    first_code = min(scan.code_lines) if scan.code_lines else 1 << 30
    return _reason([text for a, _, text in scan.comments if a < first_code])


def _reason(texts):
    for text in texts:
        m = MARKER.match(text)
        if m:
            return m.group(1).strip()
    return None


def source_files(root):
    for folder in CPP_FOLDERS:
        for dirpath, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d not in ("third_party", "vendor", "node_modules"))
            for name in sorted(names):
                if name.endswith((".cc", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, name), root), "cpp"
    for folder in JS_FOLDERS:
        path = os.path.join(root, folder)
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith(".js"):
                    yield os.path.join(folder, name), "js"


def check_text(path, language, text):
    """(entries over a limit as (path, line, what, count, reason), functions read)."""
    scan = scan_cpp(text) if language == "cpp" else scan_js(text)
    functions = functions_cpp(scan) if language == "cpp" else functions_js(scan)
    entries = []
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > FILE_LIMIT:
        entries.append((path, 1, "file", lines, FILE_LIMIT, file_reason(scan)))
    for fn in functions:
        count = fn.last - fn.first + 1
        if count > FUNCTION_LIMIT:
            entries.append((path, fn.first, "function " + fn.name, count, FUNCTION_LIMIT,
                            function_reason(scan, fn)))
    return entries, len(functions)


def self_test():
    """The scan on hand-made cases: what must and must not count as a function's body."""
    def long_body(n):
        return "".join("  x += {};\n".format(k) for k in range(n))

    cases = [
        ("cpp", "namespace a {\nint F() {\n" + long_body(130) + "}\n}  // namespace a\n",
         [("function F", 132)]),
        ("cpp", "class C {\n public:\n  void M() const {\n" + long_body(118) + "  }\n};\n", []),
        ("cpp", "class C {\n public:\n  void M() const {\n" + long_body(119) + "  }\n};\n",
         [("function C::M", 121)]),
        # Braces in comments, strings, characters and raw strings are not code.
        ("cpp", "void F() {\n  // }\n  /* } */\n  auto s = \"}\";\n  char c = '}';\n"
         "  auto r = R\"x(}\n)\" }\n)x\";\n  int n = 1'000;\n" + long_body(115) + "}\n"
         "void G() {\n" + long_body(130) + "}\n",
         [("function F", 125), ("function G", 132)]),
        # A lambda counts in its function; a constructor's braced members are not its body.
        ("cpp", "Foo::Foo(int a) : a_{a}, b_(2) {\n  auto f = [&](int x) {\n" + long_body(125)
         + "  };\n}\n", [("function Foo::Foo", 129)]),
        ("cpp", "std::function<int()> Setup(App& app) {\n" + long_body(125) + "}\n",
         [("function Setup", 127)]),
        ("cpp", "const std::vector<int> kTable = {\n" + "  1,\n" * 130 + "};\n", []),
        ("cpp", "template <typename T = int>\nstruct S {\n" + "  int x;\n" * 130 + "};\n", []),
        ("cpp", "// size: a state machine reads best in one piece\nvoid F() {\n"
         + long_body(130) + "}\n", [("function F", 132, "reason")]),
        ("cpp", "void F() {\n  // size: a state machine reads best in one piece\n"
         + long_body(130) + "}\n", [("function F", 133, "reason")]),
        ("cpp", "// the buffer's size: 64 KB\nvoid F() {\n" + long_body(130) + "}\n",
         [("function F", 132)]),
        ("js", "function f() {\n  const s = `${a + `}`}`;\n  const r = /[}]/g;\n"
         + long_body(120) + "}\nconst o = {\n  m(a) {\n" + long_body(125) + "  },\n};\n"
         "if (x) {\n" + long_body(130) + "}\n",
         [("function f", 124), ("function m", 127)]),
        ("js", "document.addEventListener('x', () => {\n" + long_body(130) + "});\n",
         [("function (anonymous)", 132)]),
        ("js", "'use strict';\n(function () {\n  const f = (a) => {\n" + long_body(125)
         + "  };\n})();\n", [("function f", 127)]),
        ("js", "const g = async (a) => {\n" + long_body(30) + "};\n" + "x();\n" * 600,
         [("file", 632)]),
    ]
    failures = 0
    for number, (language, text, expected) in enumerate(cases, start=1):
        entries, _ = check_text("case", language, text)
        got = [(what, count) + (("reason",) if reason else ()) for _, _, what, count, _, reason
               in entries]
        if got != expected:
            failures += 1
            print("check_sizes self-test: case {} gave {}, expected {}".format(
                number, got, expected), file=sys.stderr)
    if failures:
        return 1
    print("check_sizes self-test: {} cases".format(len(cases)))
    return 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    show_all = "--all" in args
    args = [a for a in args if a != "--all"]
    if len(args) != 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(args[0])
    entries, files, functions = [], 0, 0
    for path, language in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            found, count = check_text(path, language, f.read())
        entries += found
        files += 1
        functions += count
    if files == 0:
        print("check_sizes: no source files found under {}".format(root), file=sys.stderr)
        return 1
    bare = [e for e in entries if not e[5]]
    for path, line, what, count, limit, reason in entries:
        if show_all or not reason:
            print("{}:{}: {} is {} lines (limit {}){}".format(
                path, line, what, count, limit, "; size: " + reason if reason else ""))
    if bare:
        print("check_sizes: {} entr{} over the limit without a reason (a comment starting "
              "\"size:\", docs/testing.md#the-sizes-check)".format(
                  len(bare), "y" if len(bare) == 1 else "ies"), file=sys.stderr)
        return 1
    print("check_sizes: {} functions in {} files within {} lines, files within {} lines, "
          "{} over with a reason".format(functions, files, FUNCTION_LIMIT, FILE_LIMIT,
                                         len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
