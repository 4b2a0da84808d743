"""The modules of covshift import one another without a cycle, and no private name crosses a module."""

import ast
import pathlib

import covshift

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "covshift"


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name):
    """(imported module, imported names) of every import in the file, function-level ones included;
    a ``from package import module`` counts as an import of the module."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target, [alias.name for alias in node.names]


def import_graph():
    """{module: {modules of covshift it imports}} and the list of private names imported from
    another module of covshift."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph, private = {name: set() for name in modules}, []
    for name, path in modules.items():
        for target, names in _imports(path, name):
            if not target.startswith("covshift"):
                continue
            for imported in names:
                sub = f"{target}.{imported}"
                if sub in modules:
                    graph[name].add(sub)
                else:
                    graph[name].add(target)
                    if imported.startswith("_") and not imported.startswith("__"):
                        private.append(f"{name} imports {target}.{imported}")
            if not names:
                graph[name].add(target)
    for name in graph:  # a package's __init__ importing its own modules is how packages work
        graph[name] = {t for t in graph[name] if t in modules and t != name}
    return graph, private


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_walk_sees_the_package():
    graph, _ = import_graph()
    assert "covshift.weights.frank_wolfe" in graph and "covshift.model_selection" in graph
    assert "covshift.weights.sigma" in graph["covshift.model_selection"]
    assert covshift.__name__ == "covshift"


def test_the_modules_of_covshift_import_one_another_without_a_cycle():
    graph, _ = import_graph()
    # a package's __init__ imports its submodules; a submodule importing its own package's
    # __init__ would close a cycle and is caught like any other edge
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_a_cycle_is_found_when_there_is_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_private_name_is_imported_from_another_module():
    _, private = import_graph()
    assert not private, private
