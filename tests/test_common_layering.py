"""The shared runtime (scoring_programs/common) is layered: its modules import one another one way only.

They run as top-level modules beside a task's evaluate.py. A cycle between two of them works only as long as
neither needs the other while it is being imported, which an import inside a function hides: the cycle is still
there, and the next top-level import or name moved turns it into an ImportError in every scoring program. So the
graph here counts every import, at a module's top or inside a function, and must have no cycle.
"""
import ast
import sys

from conftest import ROOT

COMMON = ROOT / "scoring_programs" / "common"

# Imports among the common modules made inside a function, each with its reason (never to dodge a cycle: the
# graph below counts them too).
LAZY_IMPORTS = {
    # Only the two-file way needs score_files; what it loads (argparse, tempfile, zipfile, random) would add some
    # 20 ms to every platform run.
    ("scoring_main", "score_files"),
}


def _imported_names(node):
    """The modules an import statement (or a call of __import__ / importlib.import_module with a literal) names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module] if node.level == 0 and node.module else []
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in ("__import__", "import_module"):
            return [node.args[0].value]
    return []


def module_imports(path):
    """[(module, line, inside a function)] for every import in the file at ``path``, wherever it is."""
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            for name in _imported_names(child):
                found.append((name.split(".")[0], child.lineno, in_function))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def import_graph(folder):
    """{module: {module of the folder it imports: [(line, inside a function)]}} over the folder's *.py files."""
    paths = dict((path.stem, path) for path in sorted(folder.glob("*.py")))
    graph = dict((name, {}) for name in paths)
    for name, path in paths.items():
        for imported, line, in_function in module_imports(path):
            if imported in paths:
                graph[name].setdefault(imported, []).append((line, in_function))
    return graph


def find_cycle(graph):
    """A cycle of ``graph`` as the list of its modules, the first repeated at the end, or None."""
    state = {}  # module -> "open" while on the path being explored, "done" after

    def explore(name, path):
        state[name] = "open"
        path.append(name)
        for imported in sorted(graph[name]):
            if state.get(imported) == "open":
                return path[path.index(imported):] + [imported]
            if imported not in state:
                cycle = explore(imported, path)
                if cycle:
                    return cycle
        path.pop()
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = explore(name, [])
            if cycle:
                return cycle
    return None


def reachable(graph, name):
    """The modules ``name`` imports, directly or through others."""
    seen, todo = set(), list(graph[name])
    while todo:
        imported = todo.pop()
        if imported not in seen:
            seen.add(imported)
            todo.extend(graph[imported])
    return seen


def on_cycles(graph):
    """The modules that are on some import cycle, sorted."""
    return sorted(name for name in graph if name in reachable(graph, name))


def describe(graph, cycle):
    steps = []
    for here, there in zip(cycle, cycle[1:]):
        where = ", ".join("line %d%s" % (line, " inside a function" if inner else "") for line, inner in graph[here][there])
        steps.append("%s imports %s (%s)" % (here, there, where))
    return "; ".join(steps)


def layers(graph):
    """The modules by layer: those importing no module of the graph first, then those importing only earlier ones."""
    placed, order = set(), []
    while len(placed) < len(graph):
        layer = sorted(name for name in graph if name not in placed and set(graph[name]) <= placed)
        assert layer, "no layering: the graph has a cycle"
        order.append(layer)
        placed.update(layer)
    return order


def test_common_modules_import_one_another_without_a_cycle():
    graph = import_graph(COMMON)
    assert {"scoring_base", "scoring_runtime", "score_files", "report_html"} <= set(graph)  # the runtime's folder
    cycle = find_cycle(graph)
    assert cycle is None, "modules on import cycles: %s; one cycle: %s" % (", ".join(on_cycles(graph)),
                                                                          describe(graph, cycle))
    assert on_cycles(graph) == []


def test_the_layers_of_the_runtime():
    """Where each module sits, lowest first. A change here is a change of the runtime's design: say why."""
    assert layers(import_graph(COMMON)) == [
        # scoring_limits: the organizer's size limit on a submission, checked before anything of it is read
        ["class_f1", "fast_csv", "report_html", "resampling", "scoring_limits", "signature"],
        ["scoring_base"],
        # scoring_private: what the builder's marks of public/private items and withheld scores make a run write
        ["char_offsets", "json_stream", "scoring_private", "scoring_run"],
        ["score_files", "scoring_tracks"],  # scoring_tracks: a track's program keeps its scores (scoring_main's step)
        ["scoring_main"],
        ["scoring_runtime"],
    ]


def test_only_task_programs_import_the_runtime_under_its_one_name():
    """scoring_runtime is the top: what task programs import, imported by no module of the runtime (else the
    re-exports could close a cycle)."""
    graph = import_graph(COMMON)
    assert [name for name, targets in graph.items() if "scoring_runtime" in targets] == []
    assert set(graph["scoring_runtime"]) == {"scoring_base", "scoring_run", "scoring_main"}


def test_a_program_written_before_the_layers_imports_what_it_did(tmp_path):
    """Organizers' own programs say ``from scoring_runtime import ...``: every name a program used then (the
    module's public names at 0.4.0) is still there, the same object, and ``import *`` gives what it gave."""
    sys.path.insert(0, str(COMMON))
    try:
        import scoring_base
        import scoring_main
        import scoring_run
        import scoring_runtime
    finally:
        sys.path.remove(str(COMMON))
    # the module's public names at 0.4.0 (functions, classes and constants it defined)
    for name in ("VERSION", "SCORES_TXT", "SCORES_JSON", "DETAILED_RESULTS", "SubmissionError", "ReferenceDataError",
                 "Result", "plural", "Items", "GOLD_PUBLIC_MARKER", "HIDDEN_GOLD_RULE", "gold_is_public",
                 "predicted_only", "find_file", "STANDS_IN", "STOOD_FOR", "find_submission_file", "find_reference_file",
                 "read_text", "iter_lines", "read_csv", "stream_lines", "QUOTE_LIMIT", "MAX_INTEGER_DIGITS",
                 "MAX_JSON_DEPTH", "shorten", "quote", "is_integer", "parse_integer", "canonical_integer", "load_json",
                 "mean", "format_score", "write_outputs", "page_for", "GoldHash", "run_score", "without_gc",
                 "print_result", "print_warnings", "USAGE", "main"):
        here = [getattr(module, name) for module in (scoring_base, scoring_run, scoring_main) if hasattr(module, name)]
        assert here and getattr(scoring_runtime, name) is here[0], name
    assert "main" in scoring_runtime.__all__ and set(scoring_runtime.__all__) <= set(dir(scoring_runtime))


def test_imports_inside_functions_are_the_known_lazy_ones():
    graph = import_graph(COMMON)
    lazy = set((name, imported) for name, targets in graph.items() for imported, places in targets.items()
               if any(inner for _, inner in places))
    assert lazy == LAZY_IMPORTS, "an import inside a function among the common modules: give its reason in LAZY_IMPORTS"


def test_common_modules_import_no_task_module():
    """The runtime is below every task: it imports the standard library and its own modules, nothing else."""
    local = set(path.stem for path in COMMON.glob("*.py"))
    for path in sorted(COMMON.glob("*.py")):
        for name, line, _ in module_imports(path):
            assert name in local or name in sys.stdlib_module_names, (path.name, line, name)


def test_the_check_sees_a_cycle_hidden_inside_functions(tmp_path):
    """The shape the runtime had: a imports b at its top, b imports a inside a function (and c imports itself by
    __import__), which runs fine and is still a cycle."""
    (tmp_path / "a.py").write_text("import b\n\ndef f():\n    return b.g()\n")
    (tmp_path / "b.py").write_text("import os\n\ndef g():\n    from a import f\n    return f\n")
    (tmp_path / "c.py").write_text("def h():\n    return __import__('c')\n")
    graph = import_graph(tmp_path)
    assert graph == {"a": {"b": [(1, False)]}, "b": {"a": [(4, True)]}, "c": {"c": [(2, True)]}}
    assert find_cycle(graph) == ["a", "b", "a"] and on_cycles(graph) == ["a", "b", "c"]
    assert describe(graph, ["a", "b", "a"]) == ("a imports b (line 1); b imports a (line 4 inside a function)")
    del graph["a"]["b"]
    assert find_cycle(graph) == ["c", "c"] and on_cycles(graph) == ["c"]
    del graph["c"]["c"]
    assert find_cycle(graph) is None and layers(graph) == [["a", "c"], ["b"]]
