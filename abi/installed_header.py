#!/usr/bin/env python3
"""The installed header is the manual: no build scaffolding, no pointers to what users do not have.

Checked in an install tree (ctest -L packaging runs it on a fresh install):
  scaffolding   no "@@" marker (generator insertion points) anywhere in the header
  reference     every document the header names exists in the install tree: a path such as
                share/doc/cuabi/cache.md relative to the prefix, a bare name such as errors.md
                in the documentation directory; any other path to a project file (docs/...,
                src/..., scripts/...) names something only a source checkout has
  citation      no citation of project-internal documents (DESIGN, CONFORMANCE, "section" signs)

usage: installed_header.py --prefix P [--includedir include] [--docdir share/doc/cuabi]
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402

# A file name with an extension of a project file. Toolkit headers (cuda_fp16.h) and the
# program names in examples (kernel.cu) are not project files and are left alone.
DOCUMENT = re.compile(r"(?<![\w/.~$-])((?:[\w.-]+/)*[\w.-]+\.(?:md|rst|txt|html|pdf))\b")
PROJECT_PATH = re.compile(r"(?<![\w/.~$-])((?:docs|src|tests|scripts|abi|bindings|bench|cmake|"
                          r"pkgconfig|third_party|\.ci)/[\w./-]*)")
CITATION = re.compile(r"\bDESIGN\b|\bCONFORMANCE\b|\bSTYLE\.md\b|\u00a7")


def problems_in(text, prefix, docdir, name="cuabi.h"):
    """Every scaffolding marker and dangling reference in the header `text`, with line numbers."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (name, number)
        if "@@" in line:
            problems.append("%s: scaffolding: build marker left in the installed header: %s"
                            % (where, line.strip()))
        for match in CITATION.finditer(line):
            problems.append("%s: citation: '%s' cites a document users do not have. Fix: say the "
                            "reason in place" % (where, match.group(0)))
        for match in PROJECT_PATH.finditer(line):
            problems.append("%s: reference: %s is a path in the source tree, not installed. Fix: "
                            "refer to the installed copy (share/doc/cuabi/...) or say it in place"
                            % (where, match.group(1)))
        for match in DOCUMENT.finditer(line):
            reference = match.group(1)
            if PROJECT_PATH.match(reference):
                continue  # reported above
            path = os.path.join(prefix, reference) if "/" in reference else os.path.join(docdir, reference)
            if not os.path.isfile(path):
                problems.append("%s: reference: %s is not installed (looked for %s). Fix: install it "
                                "(cmake/Install.cmake) or stop referring to it" % (where, reference, path))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--includedir", default="include")
    parser.add_argument("--docdir", default=os.path.join("share", "doc", "cuabi"))
    args = parser.parse_args()
    header = os.path.join(args.prefix, args.includedir, "cuabi", "cuabi.h")
    with open(header) as handle:
        text = handle.read()
    docdir = os.path.join(args.prefix, args.docdir)
    documents = len(set(m.group(1) for m in DOCUMENT.finditer(text)))
    abi_tools.report(problems_in(text, args.prefix, docdir),
                     "%s has no scaffolding, and the %d documents it names are installed" % (header, documents))
    return 0


if __name__ == "__main__":
    sys.exit(main())
