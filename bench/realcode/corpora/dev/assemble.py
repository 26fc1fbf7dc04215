#!/usr/bin/env python3
"""Rebuild a real-file corpus from public git repositories.

    assemble.py DEST [--sources sources.json] [--git-dir OWNER/NAME=GITDIR ...]
                [--clones DIR] [--edited DIR] [--skip OWNER/NAME ...]

For each repository of sources.json the paths under "take" are extracted at
its commit (directories keep the files whose names end in one of "suffixes";
"exclude" drops subtrees; a path with "*" is a pattern within one folder) and
placed under DEST/<into>/ with their repository paths. "files" name single
files at their own commits. Files listed under "edited" are not the fetched
ones: each is copied from the --edited directory (laid out as DEST) and its
edit is described in sources.json; a missing one is reported.

Repositories are cloned (blobs on demand) into --clones, or read from an
existing git directory given with --git-dir (a bare or mirror clone is
enough: nothing is checked out). --skip leaves a repository out: its files
are then taken from --edited too, where a copy is there. corpus.json, next to this script, is copied
to DEST, so that evaluate.py DEST/corpus.json runs on the tree.
"""
import argparse
import fnmatch
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def git(gitdir, *args, binary=False):
    out = subprocess.run(["git", "--git-dir", gitdir] + list(args),
                         check=True, capture_output=True)
    return out.stdout if binary else out.stdout.decode()


def owner_name(url):
    return "/".join(url.rstrip("/").removesuffix(".git").split("/")[-2:])


def repository(url, commits, opts):
    """A git directory holding every commit named."""
    name = owner_name(url)
    if name in opts.git_dirs:
        return opts.git_dirs[name]
    gitdir = os.path.join(opts.clones, name.replace("/", "+") + ".git")
    if not os.path.isdir(gitdir):
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", url,
                        gitdir], check=True)
    for commit in commits:
        probe = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e",
                                commit + "^{commit}"], capture_output=True)
        if probe.returncode != 0:
            subprocess.run(["git", "--git-dir", gitdir, "fetch", "origin",
                            commit], check=True)
    return gitdir


def selected(gitdir, commit, take, exclude, suffixes):
    """The repository paths that 'take' names at the commit."""
    listing = git(gitdir, "ls-tree", "-r", "--name-only", commit).splitlines()
    chosen = []
    for path in listing:
        if any(path == x or path.startswith(x.rstrip("/") + "/")
               for x in exclude):
            continue
        for t in take:
            if "*" in t:
                hit = (os.path.dirname(path) == os.path.dirname(t) and
                       fnmatch.fnmatch(os.path.basename(path),
                                       os.path.basename(t)))
            elif path == t:
                hit = True
            else:
                hit = (path.startswith(t.rstrip("/") + "/") and
                       path.endswith(tuple(suffixes)))
            if hit:
                chosen.append(path)
                break
    return chosen


def extract(gitdir, commit, paths, dest, rename=None):
    """Write the paths at the commit under dest (rename: one file's new path)."""
    if not paths:
        return
    data = git(gitdir, "archive", "--format=tar", commit, "--", *paths,
               binary=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            target = os.path.join(dest, rename or member.name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with tar.extractfile(member) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest")
    ap.add_argument("--sources", default=os.path.join(HERE, "sources.json"))
    ap.add_argument("--git-dir", action="append", default=[],
                    metavar="OWNER/NAME=GITDIR",
                    help="take this repository from a local git directory")
    ap.add_argument("--clones", default=None,
                    help="where to clone repositories (default: DEST/.git-clones)")
    ap.add_argument("--edited", default=None,
                    help="a tree laid out as DEST holding the edited files")
    ap.add_argument("--skip", action="append", default=[], metavar="OWNER/NAME",
                    help="do not fetch this repository (its files from --edited)")
    opts = ap.parse_args()
    opts.git_dirs = dict(g.split("=", 1) for g in opts.git_dir)
    opts.clones = opts.clones or os.path.join(opts.dest, ".git-clones")
    with open(opts.sources) as f:
        doc = json.load(f)
    suffixes = doc.get("suffixes", [".cu", ".cuh", ".h"])
    missing = []
    for repo in doc["repositories"]:
        into = os.path.join(opts.dest, repo["into"])
        commits = [c for c in [repo.get("commit")] +
                   [f["commit"] for f in repo.get("files", [])] if c]
        skipped = owner_name(repo["url"]) in opts.skip
        copied = repo.get("edited", []) + (repo.get("files", []) if skipped else [])
        if not skipped and (repo.get("take") or repo.get("files")):
            gitdir = repository(repo["url"], commits, opts)
            if repo.get("take"):
                paths = selected(gitdir, repo["commit"], repo["take"],
                                 repo.get("exclude", []), suffixes)
                extract(gitdir, repo["commit"], paths, into)
            for f in repo.get("files", []):
                extract(gitdir, f["commit"], [f["path"]], into)
        for e in copied:
            src = os.path.join(opts.edited, repo["into"], e["path"]) \
                if opts.edited else None
            if src and os.path.isfile(src):
                target = os.path.join(into, e["path"])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(src, target)
            else:
                missing.append(os.path.join(repo["into"], e["path"]))
        print(f"{repo['name']}: done", flush=True)
    corpus = os.path.join(os.path.dirname(opts.sources), "corpus.json")
    if os.path.exists(corpus):
        shutil.copyfile(corpus, os.path.join(opts.dest, "corpus.json"))
    for m in missing:
        print(f"missing edited file (see sources.json): {m}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
