"""The library's rooms, drawn from its own imports: every import runs down (or stays in its room), none loops.

The graph is read with ``ast`` from codalab_bundles/ itself, imports inside functions included, so a room that
reaches up cannot hide it in a function. The order, bottom first: the version, where the package's files are
(resources) and importing a file by its path (loading), beside checking YAML against a JSON Schema with messages a
person can act on (schema_check: authoring checks task.yaml with it and validate the bundles, so it sits below both;
it knows no platform, so it is not in platforms) and what every command shares (command_options: how the tool was
called, the exit statuses); zips and the platforms' rules; replay (what a worker does); authoring (a task folder
made into bundles, checked by replaying its samples); validate, offline scoring and the live site; migrate (which
uses the validator and the replay); the command line on top. Each command's options and main live in its room
(authoring/build_command.py, replay/replay_command.py, ...); cli.py only dispatches.
"""
import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "codalab_bundles"
LAYERS = (  # rooms on one floor do not import each other
    ("__init__",),
    ("resources",),
    ("loading", "schema_check", "command_options"),  # tools of every room above: a file imported by its path, a
    # schema's errors worded, what the commands share (Invocation, exit statuses, track options)
    ("zips", "platforms"),
    ("replay",),
    ("authoring",),
    ("validate", "offline", "site"),
    ("migrate", "results"),
    ("cli",),
    ("__main__", "generic_kits"),  # python -m codalab_bundles; the old import path of authoring.generic_kits
)
LAYER = {room: number for number, rooms in enumerate(LAYERS) for room in rooms}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted):
    relative = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file()


def import_graph():
    """{module: {module it imports}} for every module of codalab_bundles (dotted names)."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_shipped" in path.parts:
            continue
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                elif node.module and node.module.split(".")[0] == "codalab_bundles":
                    source = node.module
                else:
                    continue
                for alias in node.names:
                    target = "%s.%s" % (source, alias.name)
                    edges.add(target if _is_module(target) else source)
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name.split(".")[0] == "codalab_bundles")
        edges.discard(name)
        graph[name] = edges
    return graph


def room_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_the_graph_is_read_from_the_code():
    graph = import_graph()
    # a few edges this test depends on seeing, one per kind of import statement
    assert "codalab_bundles.zips.pack" in graph["codalab_bundles.authoring.build"]          # from ..zips import pack
    assert "codalab_bundles.authoring.generic_kits" in graph["codalab_bundles.authoring.render"]  # inside a function
    assert "codalab_bundles.migrate.report" in graph["codalab_bundles.migrate.leaderboard"]  # from .report import ...
    assert set(LAYER) >= {room_of(m) for m in graph}, "a room without a place in LAYERS"


def test_every_import_runs_down_or_stays_in_its_room():
    upward = []
    for module, targets in import_graph().items():
        for target in targets:
            here, there = room_of(module), room_of(target)
            if here != there and LAYER[there] >= LAYER[here]:
                upward.append("%s -> %s" % (module, target))
    assert upward == []


def test_authoring_and_replay_never_reach_the_site_or_migrate():
    graph = import_graph()
    for module, targets in graph.items():
        if room_of(module) in ("authoring", "replay"):
            assert not {room_of(t) for t in targets} & {"site", "migrate"}, module


def test_no_import_loop():
    graph = import_graph()
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                pytest.fail("import loop: " + " -> ".join(path[path.index(target):] + [target]))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_a_loop_or_an_upward_import_would_be_seen(tmp_path, monkeypatch):
    """The checks above on a made-up package with both faults: they must not pass it."""
    fake = tmp_path / "codalab_bundles"
    for name, text in {"__init__.py": "", "zips/__init__.py": "", "zips/pack.py": "from ..replay import run\n",
                       "replay/__init__.py": "", "replay/run.py": "def f():\n    from ..zips import pack\n"}.items():
        (fake / name).parent.mkdir(parents=True, exist_ok=True)
        (fake / name).write_text(text)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    graph = import_graph()
    assert graph["codalab_bundles.zips.pack"] == {"codalab_bundles.replay.run"}
    assert graph["codalab_bundles.replay.run"] == {"codalab_bundles.zips.pack"}
    with pytest.raises(AssertionError):
        test_every_import_runs_down_or_stays_in_its_room()
    with pytest.raises(pytest.fail.Exception, match="import loop"):
        test_no_import_loop()


def test_task_folders_written_before_the_rooms_still_import_the_generic_kits():
    # derive.py and sample_data.py written by `new` in 0.4.0 say codalab_bundles.generic_kits
    old = importlib.import_module("codalab_bundles.generic_kits")
    from codalab_bundles.authoring import generic_kits
    assert old is generic_kits
    from codalab_bundles.generic_kits import public_data, starting_kit
    assert public_data is generic_kits.public_data and starting_kit is generic_kits.starting_kit
