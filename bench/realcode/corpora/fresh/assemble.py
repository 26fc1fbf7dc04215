#!/usr/bin/env python3
"""Rebuild the fresh real-code corpus from public git repositories.

Reads sources.json (next to this script): per repository its URL, commit, the
paths taken, and the edits made so that each file compiles with CUDA 13
(text replacements and small files written). Writes OUT/<dir>/... and copies
corpus.json to OUT, so that

    assemble.py OUT && evaluate.py OUT/corpus.json ...

measures the corpus. A repository is cloned (blobless) and its commit checked
out; --local OWNER/NAME=GIT_DIR takes an existing clone or bare repository
instead (it must hold the commit).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def git(*args, cwd=None):
    subprocess.run(["git", *args], cwd=cwd, check=True)


def repo_name(url):
    return url.rstrip("/").removesuffix(".git").split("github.com/")[-1]


def git_dir_for(repo, local, scratch):
    """A git directory holding repo["commit"]: a given one, else a fresh clone."""
    name = repo_name(repo["url"])
    if name in local:
        return local[name]
    dest = os.path.join(scratch, name.replace("/", "+"))
    git("clone", "--quiet", "--bare", "--filter=blob:none", repo["url"], dest)
    return dest


def extract(git_dir, commit, paths, dest):
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", commit, *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "x", "-C", dest], input=archive, check=True)


def apply_edits(repo, dest):
    for edit in repo.get("replace", []):
        path = os.path.join(dest, edit["file"])
        text = open(path, encoding="utf-8").read()
        found = text.count(edit["old"])
        if found != edit.get("count", 1):
            sys.exit(f"{path}: expected {edit.get('count', 1)} of {edit['old']!r}, found {found}")
        open(path, "w", encoding="utf-8").write(text.replace(edit["old"], edit["new"]))
    for new in repo.get("write", []):
        path = os.path.join(dest, new["file"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w", encoding="utf-8").write(new["text"])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="directory to write the corpus into")
    ap.add_argument("--sources", default=os.path.join(HERE, "sources.json"))
    ap.add_argument("--local", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                    help="use this clone (or bare repository) instead of cloning")
    opts = ap.parse_args()

    local = dict(item.split("=", 1) for item in opts.local)
    repos = json.load(open(opts.sources))["repos"]
    with tempfile.TemporaryDirectory() as scratch:
        for repo in repos:
            dest = os.path.join(opts.out, repo["dir"])
            print(f"{repo['dir']}: {repo['url']} @ {repo['commit'][:12]}", flush=True)
            git_dir = git_dir_for(repo, local, scratch)
            extract(git_dir, repo["commit"], repo["paths"], dest)
            apply_edits(repo, dest)
            missing = [f for f in repo["files"] if not os.path.isfile(os.path.join(dest, f))]
            if missing:
                sys.exit(f"{repo['dir']}: missing {missing}")
    # The corpus beside the sources read (another round's folder has no
    # script of its own).
    corpus = os.path.join(os.path.dirname(os.path.abspath(opts.sources)), "corpus.json")
    os.makedirs(opts.out, exist_ok=True)
    shutil.copy(corpus, os.path.join(opts.out, "corpus.json"))
    print(f"{sum(len(r['files']) for r in repos)} files from {len(repos)} repositories in {opts.out}")


if __name__ == "__main__":
    main()
