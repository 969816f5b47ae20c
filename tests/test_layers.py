"""The package's layering: no import cycle inside ``evalkit/``, and light entry points.

The import graph is read with the standard library's :mod:`ast` (no module is
imported to build it). An edge ``a -> b`` is any ``import`` statement in ``a`` naming
the evalkit module ``b`` (or a name in it), at module level or inside a function
(a deferred import still makes the modules depend on each other), plus the parent
packages Python imports first; a name taken from the module's own package
(``from . import registry_for``) is an edge to that package. The command modules the
CLI package loads by name (``importlib.import_module`` over ``COMMANDS``) are edges
of ``evalkit.cli`` too. Not edges: imports under ``if TYPE_CHECKING:``
(never executed), those inside a package ``__init__``'s PEP 562
``__getattr__`` (a lazy re-export of the package's own children), and the registry
loading its plugin modules by name (``DEFAULT_PLUGINS``, as it loads third-party
entry points: a plugin depends on the host, not the other way round).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "evalkit"


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _excluded_nodes(tree: ast.Module, is_package: bool) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` and, in a package ``__init__``,
    inside a module-level ``def __getattr__``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    if is_package:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                out.update(id(n) for n in ast.walk(node))
    return out


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``{module: {evalkit modules it imports}}`` for every module of ``package``."""
    modules = {_module_name(p, package): p for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(), filename=str(path))
        skip = _excluded_nodes(tree, is_package)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
                named = set(targets)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                subs = [f"{base}.{alias.name}" for alias in node.names]
                targets = [base] + subs
                # the modules the statement names: the submodules it takes, and the base
                # module itself when it takes a name defined there
                named = {t for t in subs if t in modules}
                if any(t not in modules for t in subs):
                    named.add(base)
            else:
                continue
            for target in targets:
                if target not in modules:
                    continue
                parts = target.split(".")
                for i in range(1, len(parts) + 1):  # the parents are imported first
                    dep = ".".join(parts[:i])
                    # a module's own parent packages are being imported already, unless
                    # the statement takes a name from one (``from . import registry_for``)
                    own_parent = name.startswith(dep + ".") and dep not in named
                    if dep in modules and dep != name and not own_parent:
                        graph[name].add(dep)
    for name, children in _loaded_by_name(package, modules).items():
        graph[name] |= children
    return graph


#: the modules that call ``importlib.import_module``, and how the graph reads them
DYNAMIC_IMPORTS = {
    "cli": "its COMMANDS: edges to evalkit.cli.<command>",
    "registry": "its DEFAULT_PLUGINS and entry points: plugin discovery, not edges",
    "_cached_entry_point": "an entry point read from the registry's cache (its load): plugin discovery, not edges",
    "ecosystem": "third-party libraries only (require(module, extra))",
}


def _loaded_by_name(package: Path, modules: dict[str, Path]) -> dict[str, set[str]]:
    """``{package: {children}}`` a package loads with ``importlib.import_module`` over
    a module-level tuple ``COMMANDS`` of its children's names (read with ast)."""
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text()).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            value = getattr(node, "value", None)
            if isinstance(target, ast.Name) and target.id == "COMMANDS" and isinstance(value, ast.Tuple):
                out[name] = {f"{name}.{e.value}" for e in value.elts
                             if isinstance(e, ast.Constant) and f"{name}.{e.value}" in modules}
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_deferred_and_relative_imports(tmp_path):
    """The checker itself, on a made-up package: a cycle through a function-level
    import is found; TYPE_CHECKING imports and a lazy ``__getattr__`` are not edges."""
    pkg = tmp_path / "evalkit"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("def __getattr__(name):\n    from . import a\n    return a\n")
    (pkg / "a.py").write_text("from .sub.b import thing\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import C\n"
        "def thing():\n    from .. import a\n")
    (pkg / "c.py").write_text("from .sub import b\n")
    graph = import_graph(pkg)
    assert graph["evalkit.a"] == {"evalkit.sub", "evalkit.sub.b"}
    assert graph["evalkit.sub.b"] == {"evalkit.a"}
    assert graph["evalkit"] == set()
    assert graph["evalkit.c"] == {"evalkit.sub", "evalkit.sub.b"}
    assert cycles(graph) == [["evalkit.a", "evalkit.sub.b"]]


def test_no_import_cycle_inside_evalkit():
    assert cycles(import_graph()) == []


def test_the_graph_sees_commands_loaded_by_name_and_names_taken_from_the_package(tmp_path):
    """A package that loads its command modules by name while they take a helper from
    the package is a cycle (the CLI's was: ``from . import registry_for``)."""
    pkg = tmp_path / "evalkit"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "cli" / "__init__.py").write_text(
        'import importlib\nCOMMANDS = ("one", "two")\ndef helper():\n    pass\n'
        "def build():\n    for n in COMMANDS:\n        importlib.import_module(f'{__name__}.{n}')\n")
    (pkg / "cli" / "one.py").write_text("def run():\n    from . import helper\n")
    (pkg / "cli" / "two.py").write_text("def run():\n    from . import one\n")
    graph = import_graph(pkg)
    assert graph["evalkit.cli"] == {"evalkit.cli.one", "evalkit.cli.two"}
    assert graph["evalkit.cli.one"] == {"evalkit.cli"}
    assert graph["evalkit.cli.two"] == {"evalkit.cli.one"}
    assert cycles(graph) == [["evalkit.cli", "evalkit.cli.one", "evalkit.cli.two"]]


def test_every_import_by_name_is_accounted_for():
    """A new ``importlib.import_module`` call must be read by the graph (or said not to
    load evalkit modules) in :data:`DYNAMIC_IMPORTS`."""
    callers = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        skip = _excluded_nodes(tree, path.name == "__init__.py")  # a PEP 562 __getattr__: lazy re-exports
        for node in ast.walk(tree):
            if id(node) not in skip and isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == \
                    "import_module":
                callers.add(_module_name(path, PACKAGE).removeprefix("evalkit."))
    assert callers == set(DYNAMIC_IMPORTS)
    assert {"evalkit.cli.run", "evalkit.cli.eval"} <= import_graph()["evalkit.cli"]


def test_registry_does_not_import_the_flavour_layer():
    graph = import_graph()
    assert not graph["evalkit.registry"] & {"evalkit.flavour", "evalkit.presets"}


def reachable(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """``{module: the module that imports it}`` for every module ``start`` loads,
    directly or through others (a breadth-first search of ``graph``)."""
    via: dict[str, str] = {}
    frontier = [start]
    while frontier:
        here = frontier.pop(0)
        for dep in sorted(graph.get(here, ())):
            if dep not in via and dep != start:
                via[dep] = here
                frontier.append(dep)
    return via


#: the layer that knows libraries: their modules, the presets, and the edge that
#: resolves names into flavours
LIBRARY_LAYER = ("evalkit.libraries", "evalkit.presets", "evalkit.resolve", "evalkit.measure_names")


def _is_library_layer(module: str) -> bool:
    return any(module == top or module.startswith(top + ".") for top in LIBRARY_LAYER)


def test_the_engine_flavour_model_and_kernel_name_no_library():
    """Nothing under ``evalkit/engine/``, nor ``evalkit/flavour.py``, ``evalkit/kernel.py``,
    ``evalkit/results.py``, ``evalkit/explain.py`` or the Spark backend, imports the
    library modules, the presets or the resolving edge, directly or through another
    module (deferred imports included): specs are resolved at the edge and these take
    flavours."""
    graph = import_graph()
    lower = [m for m in graph if m == "evalkit.engine" or m.startswith("evalkit.engine.")]
    lower += ["evalkit.flavour", "evalkit.kernel", "evalkit.results", "evalkit.explain",
              "evalkit.spark.backend", "evalkit.spark.partition"]
    assert len(lower) > 10
    for module in lower:
        via = reachable(graph, module)
        bad = sorted(m for m in via if _is_library_layer(m))
        if bad:
            path, at = [bad[0]], bad[0]
            while at in via and via[at] != module:
                at = via[at]
                path.append(at)
            pytest.fail(f"{module} imports {bad[0]} (through {' <- '.join(path)} <- {module})")


def test_the_layer_check_sees_an_indirect_import(tmp_path):
    pkg = tmp_path / "evalkit"
    (pkg / "engine").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "engine" / "__init__.py").write_text("")
    (pkg / "engine" / "run.py").write_text("def f():\n    from ..helper import g\n")
    (pkg / "helper.py").write_text("from .presets import expand_spec\n")
    (pkg / "presets.py").write_text("")
    graph = import_graph(pkg)
    via = reachable(graph, "evalkit.engine.run")
    assert "evalkit.presets" in via and via["evalkit.presets"] == "evalkit.helper"


def test_plugins_and_builtins_use_only_the_public_contract():
    """Built-in plugins import the contract (evalkit.kernel, component types, hookimpl,
    data types, errors), never ``evalkit.engine``; so does the rbp plugin."""
    graph = import_graph()
    for module, deps in graph.items():
        if module.startswith(("evalkit.builtins", "evalkit.libraries")):
            assert not {d for d in deps if d.startswith("evalkit.engine")}, module
    rbp = PACKAGE.parent / "plugins" / "evalkit-rbp" / "evalkit_rbp" / "__init__.py"
    tree = ast.parse(rbp.read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m for m in imported if m.startswith("evalkit")} <= {"evalkit", "evalkit.components", "evalkit.kernel"}


@pytest.mark.parametrize("module", ["evalkit.arrays", "evalkit.kernel", "evalkit"])
def test_light_imports_load_no_runner_or_report_dependencies(module):
    code = (f"import sys, json, {module}; "
            "print(json.dumps(sorted(m for m in ('yaml', 'jsonschema', 'tabulate', 'scipy') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PACKAGE.parent, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


#: Library names the core must not mention (identifiers, strings, docstrings, comments).
LIBRARY_NAMES = re.compile(
    r"trec_eval|trec-eval|pytrec|sklearn|scikit|ranx|lightgbm|xgboost|catboost|torchmetrics|tf-ranking|"
    r"tf_ranking|tensorflow|ndeval|gdeval|\bbeir\b|\bmteb\b|opensearch|elasticsearch|torchrec|recbole|lenskit|"
    r"ir_measures|ir-measures|pyserini|anserini|allrank|pytorchltr|ranklib|\belliot\b|quepid|"
    r"sentence.transformers|pyterrier|\brecommenders\b|\bimplicit\.|ignite",
    re.IGNORECASE)

#: What must stay, with the reason: the default tie policy's component name
#: ``trec_eval`` is part of every canonical flavour string (pinned by the conformance
#: suite and by users' stored results), so the flavour model writes it.
ALLOWED = re.compile(r"ties=trec_eval|\"ties\": \"trec_eval\"|default ``trec_eval``|ties=\(\"trec_eval\",")

#: The core: the engine, the kernel, the flavour model, the component types, results,
#: explain, identify and the Spark backend.
CORE = ("engine", "kernel.py", "flavour.py", "components.py", "results.py", "explain.py", "identify.py", "spark")


def core_files() -> list[Path]:
    out: list[Path] = []
    for name in CORE:
        path = PACKAGE / name
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def library_mentions(text: str) -> list[tuple[int, str]]:
    """``(line number, name)`` of each library name in ``text`` outside :data:`ALLOWED`."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        for m in LIBRARY_NAMES.finditer(ALLOWED.sub("", line)):
            out.append((i, m.group(0)))
    return out


def test_the_core_names_no_library_in_code_strings_or_docs():
    """Library knowledge lives in :mod:`evalkit.libraries` (presets, components,
    citations); the core says what a choice does, not which library makes it."""
    files = core_files()
    assert len(files) > 20
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {name}" for p in files
             for line, name in library_mentions(p.read_text())]
    assert not found, "library names in the core:\n" + "\n".join(found)


def test_the_library_name_check_sees_a_name_and_allows_the_default_tie_policy():
    assert library_mentions("x = 1  # as scikit-learn does\ny = 'ndcg(ties=trec_eval)'\nz = 'sklearn.ndcg'") == \
        [(1, "scikit"), (3, "sklearn")]
    assert library_mentions('DEFAULT = {"ties": "trec_eval"}  # their order') == []
    assert library_mentions("ranks as in trec_eval -M") == [(1, "trec_eval")]
