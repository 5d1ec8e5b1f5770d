"""Asset sources of scene files: a local path (string or {path}), inline URDF XML, or a git
sparse checkout ({git: {repo, rev, sparse, path}}) kept in the asset cache.

Cache: $SAP_WARP_ASSET_CACHE, else ~/.cache/sap_warp/assets (the variables seed 001 names).
SAP_WARP_ASSET_OFFLINE=1 never fetches: the cache entry must exist. Otherwise a missing entry
is fetched with the `git` command line (sparse, one revision) and moved into place atomically."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

from ..core.errors import GymlikeFileNotFoundError
from .values import SceneError, join, mapping, sequence, string


def cache_dir():
    return (os.environ.get("SAP_WARP_ASSET_CACHE")
            or os.path.join(os.path.expanduser("~"), ".cache", "sap_warp", "assets"))


def offline():
    return os.environ.get("SAP_WARP_ASSET_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def source(value, path, base):
    """-> ("file", absolute path) | ("inline", URDF XML text)."""
    if isinstance(value, str) and value.lstrip().startswith("<"):
        return ("inline", value)
    if isinstance(value, dict):
        m = mapping(value, path, ("path", "git"))
        if ("path" in m) == ("git" in m):
            raise SceneError(path, "expected exactly one of path or git")
        if "git" in m:
            return ("file", git_source(m["git"], join(path, "git")))
        value, path = m["path"], join(path, "path")
    text = string(value, path)
    full = os.path.abspath(text if os.path.isabs(text) else os.path.join(base, text))
    if not os.path.isfile(full):
        raise GymlikeFileNotFoundError(f"{path}: asset file not found: '{full}'")
    return ("file", full)


def git_source(value, path):
    m = mapping(value, path, ("repo", "rev", "sparse", "path"), ("repo", "rev", "path"))
    repo, rev = string(m["repo"], join(path, "repo")), string(m["rev"], join(path, "rev"))
    rel = string(m["path"], join(path, "path"))
    sparse = [string(s, f"{path}.sparse[{i}]") for i, s in enumerate(sequence(m.get("sparse"), join(path, "sparse")))]
    key = hashlib.sha1("\n".join([repo, rev] + sorted(sparse)).encode()).hexdigest()[:16]
    entry = os.path.join(cache_dir(), f"{os.path.basename(repo.rstrip('/')).removesuffix('.git')}-{key}")
    target = os.path.join(entry, rel)
    if os.path.isdir(entry):
        if not os.path.exists(target):
            raise GymlikeFileNotFoundError(f"{join(path, 'path')}: '{rel}' is not in the checkout of {repo} at {rev} "
                                           f"('{entry}'; sparse paths: {sparse or 'all'})")
        return target
    if offline():
        raise GymlikeFileNotFoundError(
            f"{path}: SAP_WARP_ASSET_OFFLINE is set and the cache has no checkout of {repo} at {rev}: "
            f"'{entry}' does not exist (fetch it once online, or point SAP_WARP_ASSET_CACHE at a cache that has it)")
    error = _fetch(repo, rev, sparse, entry)
    if error:
        raise GymlikeFileNotFoundError(
            f"{path}: could not fetch {repo} at {rev} ({error}) and the cache entry '{entry}' does not exist "
            "(SAP_WARP_ASSET_CACHE sets the cache folder)")
    if not os.path.exists(target):
        raise GymlikeFileNotFoundError(f"{join(path, 'path')}: '{rel}' is not in {repo} at {rev} "
                                       f"(sparse paths: {sparse or 'all'})")
    return target


def _fetch(repo, rev, sparse, entry):
    """Sparse checkout of one revision into `entry`; '' on success, else the reason."""
    if shutil.which("git") is None:
        return "the git command is not installed"
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    tmp = f"{entry}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)

    def git(*args):
        return subprocess.run(["git", "-C", tmp, *args], capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, GIT_TERMINAL_PROMPT="0"))
    try:
        os.makedirs(tmp)
        steps = [("init", "-q"), ("remote", "add", "origin", repo)]
        if sparse:    # non-cone patterns: a listed path may be a folder or a file
            steps.append(("sparse-checkout", "set", "--no-cone", *[f"/{s.strip('/')}" for s in sparse]))
        for args in steps:
            r = git(*args)
            if r.returncode:
                return _last_line(r)
        r = git("fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", rev)
        if r.returncode:        # a server that refuses a commit by id: fetch the history instead
            r = git("fetch", "-q", "--filter=blob:none", "origin")
            if r.returncode:
                return _last_line(r)
            r = git("checkout", "-q", "--detach", rev)
        else:
            r = git("checkout", "-q", "--detach", "FETCH_HEAD")
        if r.returncode:
            return _last_line(r)
        try:
            os.rename(tmp, entry)
        except OSError:          # another process filled the entry first: keep theirs
            if not os.path.isdir(entry):
                raise
        return ""
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _last_line(r):
    lines = (r.stderr or r.stdout).strip().splitlines()
    return lines[-1] if lines else f"git exited {r.returncode}"
