#!/usr/bin/env python3
"""Lay out the conformance corpus (conformance/README.md).

    corpus.py --cache .build/conformance --out .build/conformance/corpus

1. feedparser's source distribution (pinned below, sha256 checked) is downloaded from PyPI into
   the cache once; a cached copy whose hash does not match is fetched again.
2. The feeds of its test suite (`tests/`) are copied under OUT/feedparser/, keeping their paths,
   except the ones `excluded()` names, with feedparser's LICENSE beside them.
3. The project's own feeds (conformance/feeds/) go to OUT/project/.
4. The date feeds of conformance/datefeeds.py go to OUT/generated/dates/.

OUT is built in a scratch folder and swapped in whole, so an interrupted run leaves no half corpus.
Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import codecs
import hashlib
import os
import re
import shutil
import sys
import tarfile
import urllib.error
import urllib.request

import datefeeds

FEEDPARSER_VERSION = "6.0.14"
SDIST_NAME = f"feedparser-{FEEDPARSER_VERSION}.tar.gz"
SDIST_URL = ("https://files.pythonhosted.org/packages/37/8a/"
             "a53da4a77352045d277978a2df322d5379369f9deb1707178899ff7e1121/" + SDIST_NAME)
SDIST_SHA256 = "088679b0c4b543ee211a820dd544698c76a402122eae7473c04a43425f283d06"

HERE = os.path.dirname(os.path.abspath(__file__))

# Parts of tests/ that are not about what `aggregatorctl parse --json` prints (docs/parse-json.md):
# HTML sanitizing, Podlove chapters, GeoRSS, and the HTTP status and compression tests (they
# exercise feedparser's HTTP client, not its parser).
EXCLUDED_DIRS = (
    "wellformed/sanitize/",
    "wellformed/psc/",
    "wellformed/geo/",
    "illformed/geo/",
    "http/",
    "compression/",
)

# A test's "SkipUnless:" comment names a prerequisite that feedparser's runner checks before it
# runs the test. Two kinds occur: a codec lookup, and the chardet module.
SKIP_UNLESS = re.compile(rb"SkipUnless:[ \t]*(.*?)[ \t]*\r?\n")
CODEC_LOOKUP = re.compile(r"""^__import__\(['"]codecs['"]\)\.lookup\(['"]([^'"]+)['"]\)$""")
MODULE_IMPORT = re.compile(r"""^__import__\(['"]([A-Za-z_][A-Za-z0-9_.]*)['"]\)$""")


def prerequisite_met(expression: str) -> bool:
    """Whether the oracle meets a "SkipUnless:" prerequisite.

    A codec must be one this Python knows. A module import is met only for modules of the standard
    library: the oracle has no chardet on purpose (charset guessing would make the expected output
    depend on a third library). Anything else (a Python version test, a feedparser attribute) is
    met by feedparser 6.0.14 on Python 3.
    """
    codec = CODEC_LOOKUP.match(expression)
    if codec:
        try:
            codecs.lookup(codec.group(1))
            return True
        except LookupError:
            return False
    module = MODULE_IMPORT.match(expression)
    if module:
        return module.group(1) in sys.stdlib_module_names
    return True


def excluded(relpath: str, head: bytes) -> bool:
    """Whether tests/RELPATH (whose first bytes are HEAD) stays out of the corpus."""
    if not relpath.endswith(".xml"):
        return True
    if relpath.startswith(EXCLUDED_DIRS):
        return True
    for expression in SKIP_UNLESS.findall(head):
        if not prerequisite_met(expression.decode("utf-8", "replace")):
            return True
    return False


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_sdist(cache: str) -> str:
    """The path of the pinned sdist in CACHE, downloaded when absent or not the pinned bytes."""
    path = os.path.join(cache, SDIST_NAME)
    if os.path.exists(path) and sha256_of(path) == SDIST_SHA256:
        return path
    os.makedirs(cache, exist_ok=True)
    partial = path + ".part"
    for attempt in range(1, 4):  # a stalled connection is given up after 20 s and tried again
        try:
            with urllib.request.urlopen(SDIST_URL, timeout=20) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
            break
        except (urllib.error.URLError, OSError) as error:
            if attempt == 3:
                sys.exit(f"conformance: could not download {SDIST_NAME} (feedparser {FEEDPARSER_VERSION}'s "
                         f"test suite) from PyPI: {SDIST_URL}: {error}")
    actual = sha256_of(partial)
    if actual != SDIST_SHA256:
        os.unlink(partial)
        sys.exit(f"conformance: {SDIST_NAME} from PyPI has sha256 {actual}, pinned {SDIST_SHA256}")
    os.replace(partial, path)
    return path


def extract_tests(sdist: str, out: str) -> tuple[int, int, bytes]:
    """Copy the selected feeds of the sdist's tests/ to OUT/feedparser/.

    Returns (copied, left out, the bytes of tests/runtests.py)."""
    root = f"feedparser-{FEEDPARSER_VERSION}/"
    copied = skipped = 0
    runtests = b""
    with tarfile.open(sdist, "r:gz") as archive:
        for member in archive:
            if not member.isfile() or not member.name.startswith(root):
                continue
            inner = member.name[len(root):]
            if inner == "tests/runtests.py":
                runtests = archive.extractfile(member).read()
                continue
            if inner == "LICENSE":
                relpath = "LICENSE"
            elif inner.startswith("tests/"):
                relpath = inner[len("tests/"):]
            else:
                continue
            data = archive.extractfile(member).read()
            if relpath != "LICENSE":
                if excluded(relpath, data[:4096]):
                    skipped += 1
                    continue
                copied += 1
            target = os.path.join(out, "feedparser", *relpath.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
    if not runtests:
        sys.exit(f"conformance: {SDIST_NAME} has no tests/runtests.py")
    return copied, skipped, runtests


def copy_project_feeds(out: str) -> int:
    source = os.path.join(HERE, "feeds")
    names = sorted(name for name in os.listdir(source) if not name.startswith("."))
    os.makedirs(os.path.join(out, "project"), exist_ok=True)
    for name in names:
        shutil.copyfile(os.path.join(source, name), os.path.join(out, "project", name))
    return len(names)


def files_in_order(folder: str) -> list[str]:
    """Every file below FOLDER, as its path from FOLDER with "/" between the parts, in a stable
    order: a folder's own files by name, then its subfolders by name, each with all it holds. The
    oracle and the comparer take the corpus in this order."""
    found = []
    for parent, _, names in os.walk(folder):
        inside = os.path.relpath(parent, folder).replace(os.sep, "/")
        found += [name if inside == "." else f"{inside}/{name}" for name in names]

    def position(path):
        *folders, name = path.split("/")
        return [(1, each) for each in folders] + [(0, name)]

    return sorted(found, key=position)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", required=True, help="folder for the downloaded sdist")
    parser.add_argument("--out", required=True, help="corpus folder to (re)create")
    args = parser.parse_args()

    sdist = fetch_sdist(args.cache)
    scratch = args.out.rstrip("/") + ".new"
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    copied, skipped, runtests = extract_tests(sdist, scratch)
    own = copy_project_feeds(scratch)
    vectors = datefeeds.vectors(runtests)
    dates = datefeeds.write(os.path.join(scratch, "generated", "dates"), vectors)
    shutil.rmtree(args.out, ignore_errors=True)
    os.replace(scratch, args.out)
    print(f"corpus: {copied} feeds from {SDIST_NAME} ({skipped} files of tests/ left out), "
          f"{own} of the project's, {dates} date feeds of {len(vectors)} dates each, in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
