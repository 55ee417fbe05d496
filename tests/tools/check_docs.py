#!/usr/bin/env python3
"""Checks that the repository's documentation holds together.

usage: check_docs.py REPO_ROOT

Fails (exit 1, one line per problem naming FILE:LINE) when:
  - README.md is longer than 300 lines;
  - a relative Markdown link in README.md or docs/**/*.md points to a file
    that does not exist, or to an #anchor that no heading of the target file
    produces (GitHub's rules: the heading's text in lower case, inline markup
    dropped, every character other than letters, digits, spaces, '-' and '_'
    removed, spaces turned into '-'; a repeated anchor gets -1, -2, ...);
  - a file of the repository (tracked, or new and not ignored; never under
    .git) cites the team's documents that live outside the repository: the
    repository carries its own copy in docs/, and comments cite that;
  - a citation of docs/ in any file of the repository (a code comment's
    "docs/architecture.md#critical-path") names a file or an anchor that
    does not exist.
On success prints "check_docs: N links and C citations checked, README L lines"
and exits 0.
Exit 2 on a usage error. Standard library only.
"""

import os
import re
import subprocess
import sys
import urllib.parse

MAX_README_LINES = 300

# What no file of the repository may mention. Spelled in pieces so that this
# script does not mention them itself.
OUTSIDE = ("../" + "shared", "DESIGN" + ".md", "REFERENCE" + ".md")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*?(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
# [text](target "title") and ![alt](target); the text may hold one level of
# brackets (a badge inside a link).
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+[\"'(][^)]*)?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def heading_text_to_anchor(text):
    """GitHub's anchor of a heading whose Markdown source text is `text`."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)  # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.replace("`", "")
    text = text.strip().lower()
    # Keep letters, digits, '_' (all \w), spaces and '-'; drop the rest.
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def markdown_lines(text):
    """(line number, line, in_code) for each line; fences and indented code are code."""
    in_fence = None
    previous_blank = True
    for number, line in enumerate(text.split("\n"), start=1):
        m = FENCE.match(line)
        if in_fence is None and m:
            in_fence = m.group(1)[0] * len(m.group(1))
            yield number, line, True
        elif in_fence is not None:
            if line.strip().startswith(in_fence) and line.strip().strip(in_fence[0]) == "":
                in_fence = None
            yield number, line, True
        else:
            indented = previous_blank and (line.startswith("    ") or line.startswith("\t"))
            yield number, line, indented and line.strip() != ""
        previous_blank = line.strip() == "" or (previous_blank and line.startswith("    "))


def anchors_of(text):
    """The set of anchors the headings (and HTML anchors) of a Markdown text produce."""
    anchors = set()
    seen = {}

    def add(slug):
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else "{}-{}".format(slug, count))

    previous = None  # the previous line, when it can be a setext heading's text
    for _, line, code in markdown_lines(text):
        if code:
            previous = None
            continue
        for m in HTML_ANCHOR.finditer(line):
            anchors.add(m.group(1))
        atx = ATX.match(line)
        if atx:
            add(heading_text_to_anchor(atx.group(2) or ""))
            previous = None
            continue
        if previous is not None and SETEXT.match(line):
            add(heading_text_to_anchor(previous))
            previous = None
            continue
        stripped = line.strip()
        plain = stripped and not re.match(r"^(?:[-*+>|]|\d+[.)])(?:\s|$)", stripped)
        previous = line if plain and not stripped.startswith("|") else None
    return anchors


def links_of(text):
    """(line number, target) of every link outside code."""
    for number, line, code in markdown_lines(text):
        if code:
            continue
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)  # no links in code spans
        for m in INLINE_LINK.finditer(line):
            yield number, m.group(1)
        m = REFERENCE_DEF.match(line)
        if m:
            yield number, m.group(1)


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def documentation_files(root):
    files = []
    if os.path.isfile(os.path.join(root, "README.md")):
        files.append("README.md")
    docs = os.path.join(root, "docs")
    for folder, dirs, names in os.walk(docs):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".md"):
                files.append(os.path.relpath(os.path.join(folder, name), root))
    return files


def check_links(root, problems):
    anchor_cache = {}
    checked = 0
    for doc in documentation_files(root):
        text = read_text(os.path.join(root, doc))
        for number, target in links_of(text):
            target = target.strip()
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue  # absolute URLs are not checked
            checked += 1
            path, _, anchor = target.partition("#")
            path = urllib.parse.unquote(path.split("?", 1)[0])
            if path == "":
                resolved = os.path.join(root, doc)
            elif path.startswith("/"):
                resolved = os.path.join(root, path.lstrip("/"))
            else:
                resolved = os.path.join(root, os.path.dirname(doc), path)
            resolved = os.path.normpath(resolved)
            shown = "{}:{}".format(doc, number)
            if os.path.relpath(resolved, root).startswith(".."):
                problems.append("{}: link '{}' leaves the repository".format(shown, target))
                continue
            if not os.path.exists(resolved):
                problems.append("{}: link '{}': {} does not exist".format(
                    shown, target, os.path.relpath(resolved, root)))
                continue
            if not anchor:
                continue
            if not resolved.endswith(".md"):
                continue  # line anchors (#L10) of code files are GitHub's business
            if resolved not in anchor_cache:
                anchor_cache[resolved] = anchors_of(read_text(resolved))
            if urllib.parse.unquote(anchor).lower() not in anchor_cache[resolved]:
                problems.append("{}: link '{}': no heading of {} makes the anchor #{}".format(
                    shown, target, os.path.relpath(resolved, root), anchor))
    return checked


def repository_files(root):
    """Tracked files and new files git does not ignore; every file when git cannot say."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout
        names = sorted(set(n for n in out.decode("utf-8", "replace").split("\0") if n))
        return [n for n in names if os.path.isfile(os.path.join(root, n))]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != ".git" and not d.startswith("build"))
            for name in sorted(files):
                names.append(os.path.relpath(os.path.join(folder, name), root))
        return names


def repository_contents(root):
    """(name, bytes) of every file of the repository, .git left out."""
    for name in repository_files(root):
        if name == ".git" or name.startswith(".git/"):
            continue
        try:
            with open(os.path.join(root, name), "rb") as f:
                yield name, f.read()
        except OSError:
            continue


def check_outside_mentions(root, problems):
    needles = [n.encode() for n in OUTSIDE]
    for name, data in repository_contents(root):
        if not any(n in data for n in needles):
            continue
        for number, line in enumerate(data.split(b"\n"), start=1):
            found = [n.decode() for n in needles if n in line]
            if found:
                problems.append("{}:{}: cites {} outside the repository; cite docs/ instead".format(
                    name, number, ", ".join("'{}'".format(f) for f in found)))


CITATION = re.compile(rb"\bdocs/([A-Za-z0-9_./-]+\.md)(?:#([A-Za-z0-9_-]+))?")


def check_citations(root, problems):
    """Every citation of a docs/ file (and anchor) anywhere in the repository resolves."""
    anchor_cache = {}
    checked = 0
    for name, data in repository_contents(root):
        if b"docs/" not in data:
            continue
        for number, line in enumerate(data.split(b"\n"), start=1):
            for match in CITATION.finditer(line):
                doc = "docs/" + match.group(1).decode()
                if name.endswith(".md") and "](" in line.decode("utf-8", "replace"):
                    continue  # Markdown links are check_links' business
                checked += 1
                path = os.path.join(root, doc)
                if not os.path.isfile(path):
                    problems.append("{}:{}: cites {}, which does not exist".format(name, number, doc))
                    continue
                anchor = match.group(2)
                if anchor is None:
                    continue
                anchor = anchor.decode()
                if path not in anchor_cache:
                    anchor_cache[path] = anchors_of(read_text(path))
                if anchor.lower() not in anchor_cache[path]:
                    problems.append("{}:{}: cites {}#{}, but no heading of {} makes that anchor".format(
                        name, number, doc, anchor, doc))
    return checked


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    readme = os.path.join(root, "README.md")
    if not os.path.isfile(readme):
        print("check_docs: {} has no README.md".format(root), file=sys.stderr)
        return 2
    problems = []
    readme_text = read_text(readme)
    readme_lines = len(readme_text.splitlines())
    if readme_lines > MAX_README_LINES:
        problems.append("README.md:{}: README.md has {} lines, more than {}".format(
            MAX_README_LINES + 1, readme_lines, MAX_README_LINES))
    checked = check_links(root, problems)
    check_outside_mentions(root, problems)
    cited = check_citations(root, problems)
    if problems:
        for problem in problems:
            print(problem)
        print("check_docs: {} problem(s); {} links and {} citations checked, README {} lines".format(
            len(problems), checked, cited, readme_lines), file=sys.stderr)
        return 1
    print("check_docs: {} links and {} citations checked, README {} lines".format(
        checked, cited, readme_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
