#!/usr/bin/env python3
"""The README's facts that drift, checked against the build tree (ctest label docs).

  install list   `cmake --install` into an emptied prefix: every file, link and directory the
                 README's "installs ..." paragraph names is there, each link points where the
                 paragraph says, and nothing is installed that the paragraph does not name
  library name   every versioned library file named in README.md and docs/*.md is
                 libcuabi.so.<the project version CMake builds>
  documents      share/doc/cuabi/ holds exactly the files the README's "Documentation" section
                 links to
  library build  the README's library-only build line (`cmake --build build --target ...`) runs
                 against this build tree and leaves the library and the compile worker there

--planted-mistakes runs the same checks on copies of the README with one mistake planted in each
(an old library version, the worker left out of the list, a document left out, another target in
the build line) and fails unless every one of them is reported.
"""
import argparse
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "abi"))
import abi_tools  # noqa: E402

VERSIONED_LIBRARY = re.compile(r"libcuabi\.so\.(\d+\.\d+\.\d+)")
BUILD_LINE = re.compile(r"^cmake --build build --target (\S+)$", re.M)


def section(readme, heading):
    """The text of the README section `## heading`, up to the next `## `."""
    match = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(heading), readme, re.M | re.S)
    return match.group(1) if match else None


def install_paragraph(readme):
    text = section(readme, "Installing and linking") or ""
    match = re.search(r"^installs (.*?)(?:\n\n|\Z)", text, re.M | re.S)
    return match.group(1) if match else None


class Layout:
    """Where the README's prefix-relative names (lib/, bin/, ...) land in this build's install."""

    def __init__(self, args):
        self.dirs = [("share/doc/cuabi/", args.docdir), ("include/", args.includedir),
                     ("lib/", args.libdir), ("bin/", args.bindir)]
        self.bindir = args.bindir

    def installed_name(self, readme_name):
        for readme_dir, real_dir in self.dirs:
            if readme_name.startswith(readme_dir):
                return os.path.join(real_dir, readme_name[len(readme_dir):])
        return None


def named_paths(paragraph, layout):
    """The install paragraph's code spans that are paths, as (name, [link targets]) in the tree."""
    named = []
    for span in re.findall(r"`([^`]+)`", paragraph.replace("\n", " ")):
        parts = [part.strip() for part in span.split("->")]
        name = layout.installed_name(parts[0])
        if name is not None:
            named.append((name.rstrip("/") + ("/" if parts[0].endswith("/") else ""), parts[1:]))
    return named


def check_install_list(readme, prefix, layout, with_cli):
    paragraph = install_paragraph(readme)
    if paragraph is None:
        return ["README.md's 'Installing and linking' section has no paragraph starting "
                "'installs ...'. Fix: list what `cmake --install` installs there."]
    problems, covered = [], []
    for name, chain in named_paths(paragraph, layout):
        if name.startswith(layout.bindir + "/") and not with_cli:
            continue  # the tool is installed only when it is built (CUABI_BUILD_CLI)
        if os.path.basename(name) == "cuabi-cache-remote" and not os.path.lexists(os.path.join(prefix, name)):
            continue  # the remote cache's client is built only where hiredis and libsodium are
        directory = os.path.dirname(name.rstrip("/"))
        for link, target in zip([os.path.basename(name)] + chain, chain):
            path = os.path.join(prefix, directory, link)
            if not os.path.islink(path) or os.readlink(path) != target:
                actual = os.readlink(path) if os.path.islink(path) else "not a link"
                problems.append("README.md says %s/%s -> %s, but the install has %s. Fix: name "
                                "the links as `cmake --install` makes them." % (directory, link, target, actual))
            covered.append(os.path.join(directory, link))
        last = os.path.join(directory, chain[-1]) if chain else name.rstrip("/")
        if not os.path.lexists(os.path.join(prefix, last)):
            problems.append("README.md says the install has %s, but `cmake --install` made no %s. "
                            "Fix: correct the README's list." % (last, last))
        covered.append(name if name.endswith("/") else last)
    for installed in installed_files(prefix):
        if not any(installed == name or (name.endswith("/") and installed.startswith(name))
                   for name in covered):
            problems.append("`cmake --install` installs %s, which README.md's list of installed "
                            "files does not name. Fix: add it to the 'installs ...' paragraph."
                            % installed)
    return problems


def installed_files(prefix):
    found = []
    for directory, _, files in os.walk(prefix):
        for name in files:
            found.append(os.path.relpath(os.path.join(directory, name), prefix))
    return sorted(found)


def check_library_names(texts, version):
    """Every libcuabi.so.X.Y.Z named in the documents is the library this project version builds."""
    problems = []
    for document, text in texts:
        for named in sorted(set(VERSIONED_LIBRARY.findall(text))):
            if named != version:
                problems.append("%s names libcuabi.so.%s, but this build makes libcuabi.so.%s "
                                "(project(cuabi VERSION ...) in CMakeLists.txt). Fix: name "
                                "libcuabi.so.%s." % (document, named, version, version))
    return problems


def check_documents(readme, prefix, docdir):
    text = section(readme, "Documentation")
    if text is None:
        return ["README.md has no '## Documentation' section. Fix: link the installed documents there."]
    linked = {os.path.basename(target) for target in re.findall(r"^- \[[^]]*\]\(([^)]+)\)", text, re.M)}
    installed = set(os.listdir(os.path.join(prefix, docdir))) if os.path.isdir(os.path.join(prefix, docdir)) else set()
    problems = ["%s/%s is installed, but README.md's Documentation section does not link it. Fix: "
                "add it to the list." % (docdir, name) for name in sorted(installed - linked)]
    problems += ["README.md's Documentation section links %s, which is not installed in %s. Fix: "
                 "install it (cmake/Install.cmake) or take it off the list." % (name, docdir)
                 for name in sorted(linked - installed)]
    return problems


def check_library_build(readme, args):
    lines = BUILD_LINE.findall(section(readme, "Installing and linking") or "")
    if len(lines) != 1:
        return ["README.md's 'Installing and linking' section should show one library-only build "
                "line (`cmake --build build --target cuabi`); it shows %d. Fix: show exactly one."
                % len(lines)]
    command = [args.cmake, "--build", args.build_dir, "--target", lines[0]]
    result = abi_tools.run(command, check=False)
    if result.returncode != 0:
        return ["README.md's library-only build line failed here (`%s`, exit %d):\n%s%s" % (
            " ".join(command), result.returncode, result.stdout[-2000:], result.stderr[-2000:])]
    return ["`%s` left no %s. Fix: make the README's library-only build line build it." % (
        " ".join(command), path) for path in (args.library, args.worker) if not os.path.isfile(path)]


def problems_in(readme, docs, args):
    layout = Layout(args)
    problems = check_install_list(readme, args.prefix, layout, args.with_cli)
    problems += check_library_names([("README.md", readme)] + docs, args.version)
    problems += check_documents(readme, args.prefix, args.docdir)
    problems += check_library_build(readme, args)
    return problems


# Each mistake: a description, and how it is made from the README's text.
PLANTED = [
    ("an earlier library version",
     lambda readme, version: readme.replace("libcuabi.so." + version, "libcuabi.so.1.0.0")),
    ("the compile worker left out of the install list",
     lambda readme, version: re.sub(r"`lib/cuabi/cuabi-compile-worker`[^,]*,", "", readme, count=1)),
    ("an installed document left out of the Documentation section",
     lambda readme, version: re.sub(r"^- \[docs/device\.md\].*\n", "", readme, count=1, flags=re.M)),
    ("another target in the library-only build line",
     lambda readme, version: BUILD_LINE.sub("cmake --build build --target cuabi_library", readme, count=1)),
]


def planted_mistakes_missed(readme, docs, args):
    if problems_in(readme, docs, args):
        return ["the README itself fails the checks, so planted mistakes prove nothing"]
    missed = []
    for description, plant in PLANTED:
        broken = plant(readme, args.version)
        if broken == readme:
            missed.append("could not plant %s: the README no longer has the text it edits" % description)
        elif not problems_in(broken, docs, args):
            missed.append("a README with %s passed the checks" % description)
        else:
            print("OK: a README with %s is refused" % description)
    return missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option in ("source-dir", "build-dir", "prefix", "cmake", "version", "libdir", "bindir",
                   "includedir", "docdir", "library", "worker"):
        parser.add_argument("--" + option, required=True)
    parser.add_argument("--with-cli", action="store_true", help="the cuabi tool was built")
    parser.add_argument("--planted-mistakes", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.source_dir, "README.md")) as handle:
        readme = handle.read()
    docs_dir = os.path.join(args.source_dir, "docs")
    docs = []
    for name in sorted(os.listdir(docs_dir)):
        with open(os.path.join(docs_dir, name)) as handle:
            docs.append(("docs/" + name, handle.read()))
    shutil.rmtree(args.prefix, ignore_errors=True)
    abi_tools.run([args.cmake, "--install", args.build_dir, "--prefix", args.prefix])
    if args.planted_mistakes:
        abi_tools.report(planted_mistakes_missed(readme, docs, args), "every planted README mistake is reported")
    else:
        abi_tools.report(problems_in(readme, docs, args), "README.md's install list, library name, "
                         "documents and library-only build line match the build")
    return 0


if __name__ == "__main__":
    sys.exit(main())
