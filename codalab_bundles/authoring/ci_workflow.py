"""The CI of a competition folder, written by ``new``: a GitHub Actions workflow and the script holding its steps.

``ci/competition.sh`` holds every step (install the tool, check every task: build, validate, replay; publish: check,
then ``publish --update ID --apply`` for each task whose competition codabench.json records, or a new competition
with ``--new``); ``.github/workflows/competition.yml`` only checks out, sets up Python and calls the script's steps,
so that running the script anywhere runs what CI runs; a .gitignore keeps dist/ out of the repository. Each is
written only where there is none: an organizer's edits are never overwritten by a later ``new``.
"""
import importlib.metadata
import json
from pathlib import Path

from .. import __version__

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new" / "ci"
WORKFLOW = Path(".github") / "workflows" / "competition.yml"
SCRIPT = Path("ci") / "competition.sh"
IGNORE = Path(".gitignore")
IGNORED = "# what codalab-bundles build writes: made again by every build, never committed\ndist/\n__pycache__/\n"
DISTRIBUTION = "codalab-bundles"


def install_spec(version=__version__):
    """What CI's ``pip install`` asks for by default: this very release. When the running tool was installed from a
    git URL (pip records it: PEP 610's direct_url.json), that URL at that commit; otherwise the release by its
    version, from the package index (``codalab-bundles==VERSION``)."""
    try:
        found = importlib.metadata.distribution(DISTRIBUTION)
        here = Path(__file__).resolve().parent.parent / "__init__.py"
        if found.version != version or Path(found.locate_file("codalab_bundles/__init__.py")).resolve() != here:
            found = None  # another installed copy than the one running (e.g. this repository's build_bundle.py)
        direct = json.loads(found.read_text("direct_url.json") or "null") if found else None
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        direct = None
    vcs = (direct or {}).get("vcs_info") or {}
    url = (direct or {}).get("url") or ""
    if vcs.get("vcs") == "git" and vcs.get("commit_id") and url.startswith("https://"):
        return "%s @ git+%s@%s" % (DISTRIBUTION, url, vcs["commit_id"])
    return "%s==%s" % (DISTRIBUTION, version)


def files(spec=None, version=__version__):
    """{relative path: (text, mode)} of the CI files."""
    spec = spec or install_spec(version)
    if "'" in spec:
        raise ValueError("an install spec with a quote: %r" % spec)

    def text(name):
        return (TEMPLATES / name).read_text(encoding="utf-8").replace("@VERSION@", version).replace("@SPEC@", spec)
    return {WORKFLOW: (text("competition.yml"), 0o644), SCRIPT: (text("competition.sh"), 0o755),
            IGNORE: (IGNORED, 0o644)}


def write(root, write_file, notes=None):
    """Write the CI files that ``root`` does not have yet, with ``write_file(path, text)``; returns the paths kept
    as they were. ``notes`` gets what the organizer should know (the files kept; a workflow that GitHub will not
    see because the folder is not the root of its git repository)."""
    root = Path(root)
    kept = []
    for relative, (text, mode) in sorted(files().items()):
        path = root / relative
        if path.exists():
            kept.append(path)
            continue
        write_file(path, text)
        path.chmod(mode)
    steps = [p.relative_to(root).as_posix() for p in kept if p.relative_to(root) in (WORKFLOW, SCRIPT)]
    if notes is not None and steps:
        notes.append("kept %s as %s: new writes the CI files only where there are none (ci/competition.sh "
                     "checks and publishes every task of bundles/, this one too)"
                     % (" and ".join(steps), "they are" if len(steps) > 1 else "it is"))
    top = _git_top(root)
    if notes is not None and top is not None and top != root.resolve() and root / WORKFLOW not in kept:
        notes.append("this folder is inside the git repository %s: GitHub runs only the workflows at a "
                     "repository's root, so move .github/ there and give its steps 'working-directory: %s'"
                     % (top, root.resolve().relative_to(top)))
    return kept


def _git_top(folder):
    """The work tree holding ``folder`` (the nearest parent with a .git), or None."""
    for parent in [Path(folder).resolve()] + list(Path(folder).resolve().parents):
        if (parent / ".git").exists():
            return parent
    return None
