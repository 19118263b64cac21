"""Finding the organizers' own scorers outside the project, so the benchmark can time them on the same inputs.

Their code is never part of this project: it is read from checkouts that the person running the benchmark points
at with ``--official DIR`` or the ``OFFICIAL_SCORERS`` environment variable (several folders joined with
``os.pathsep``). A repository ``owner/name`` is looked for there as ``owner+name/repo``, ``owner+name/repo/.git`` or
``owner+name`` (a bare git directory, the layouts of a fetched mirror, read with ``git show``), then as ``owner+name``, ``name`` or
``owner/name`` (a working tree). The needed files are copied into the run's scratch folder, never into the project.
"""
import os
import subprocess

ENV = "OFFICIAL_SCORERS"


def _is_bare(path):
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def _candidates(root, repo):
    owner, name = repo.split("/")
    flat = owner + "+" + name
    return [os.path.join(root, flat, "repo"), os.path.join(root, flat, "repo", ".git"), os.path.join(root, flat),
            os.path.join(root, name), os.path.join(root, owner, name)]


def _git_show(git_dir, path):
    proc = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return proc.stdout if proc.returncode == 0 else None


def _read(checkout, path):
    if _is_bare(checkout):
        return _git_show(checkout, path)
    full = os.path.join(checkout, *path.split("/"))
    if os.path.isfile(full):
        with open(full, "rb") as handle:
            return handle.read()
    return None


def roots(option=None):
    value = option if option is not None else os.environ.get(ENV, "")
    return [r for r in value.split(os.pathsep) if r and os.path.isdir(r)]


def extract(search_roots, repo, paths, destination):
    """Copy ``paths`` of ``repo`` into ``destination`` (flat, by base name); None when absent, else the folder."""
    for root in search_roots:
        for checkout in _candidates(root, repo):
            if not os.path.isdir(checkout):
                continue
            contents = [_read(checkout, path) for path in paths]
            if any(c is None for c in contents):
                continue
            os.makedirs(destination, exist_ok=True)
            for path, data in zip(paths, contents):
                with open(os.path.join(destination, os.path.basename(path)), "wb") as handle:
                    handle.write(data)
            return destination
    return None


def export(search_roots, repo, destination, marker, revision="HEAD"):
    """The whole tree of ``repo`` at ``revision`` (a commit or tag of a git checkout; a plain folder only as it is,
    for HEAD) copied to ``destination``, from the first checkout that has the file ``marker``; None when absent,
    else the folder."""
    for root in search_roots:
        for checkout in _candidates(root, repo):
            if not os.path.isdir(checkout) or _read(checkout, marker) is None:
                continue
            git = (["git", "--git-dir", checkout] if _is_bare(checkout) else
                   ["git", "-C", checkout] if os.path.isdir(os.path.join(checkout, ".git")) else None)
            if git is None and revision != "HEAD":
                continue
            archive = None
            if git is not None:
                archive = subprocess.run(git + ["archive", revision], stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
                if archive.returncode != 0:
                    continue
            os.makedirs(destination, exist_ok=True)
            if archive is not None:
                subprocess.run(["tar", "-x", "-C", destination], input=archive.stdout, check=True)
            else:
                subprocess.run(["cp", "-R", checkout + "/.", destination], check=True)
            return destination
    return None


def describe(repo, paths):
    return "%s (%s)" % (repo, ", ".join(paths))
