"""Loading and validating ``evalkit run`` configs (YAML).

A config names the qrels, the runs (by path or glob), the flavours (by display name),
an optional baseline run and where the report goes::

    qrels: ../data/qrels.txt
    runs:
      - name: bm25
        path: ../data/bm25.run
      - glob: ../data/runs/input.*.gz        # each file becomes a run named by its file
    cutoffs: [10, 100]                       # flavours without their own cutoffs get these
    flavours:
      trec: trec_eval.ndcg_cut               # preset  -> columns trec@10, trec@100
      exp2: "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)"
      full: {spec: trec_eval.ndcg, cutoffs: null}   # no cutoff
    baseline: bm25
    statistics: {test: permutation, alpha: 0.05, correction: holm, seed: 42, n_resamples: 10000}
    report: {sensitivity: true}              # false: no tie spread, no judged@k (2 evaluations fewer)
    output: {dir: ../out/example, formats: [markdown, csv, json, latex, html]}

Paths rule: **every path in the config (qrels, subtopic_qrels, run paths, globs and
``output.dir``) is relative to the directory holding the config file**, so a config
gives the same result from any working directory. Command-line paths
(``--output-dir``) are relative to the current directory as usual. A config given as
an in-memory mapping resolves its paths against ``base_dir`` (default: the current
directory). A ``glob:`` walks only inside that directory's tree unless the entry says
``allow_outside: true`` (or ``load_config(allow_outside=True)``, ``evalkit run
--allow-outside``), and is bounded; aliases, nesting, key types, ``cutoffs`` and
``n_resamples`` are limited (``docs/input-rules.md``).

The YAML is read with :func:`yaml.safe_load` semantics (``SafeLoader``; nothing is
ever ``eval``-ed) and validated by the JSON Schema in ``config.schema.json``
(:mod:`jsonschema`). Every error is a :class:`evalkit.errors.ConfigError` whose
message reads ``FILE:LINE: KEY.PATH: what is wrong``; the line comes from the node
start marks of :func:`yaml.compose`.
"""

from __future__ import annotations

import glob as globlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import yaml

if TYPE_CHECKING:  # jsonschema is imported when a config is validated, not at start-up
    import jsonschema
    from ..registry import Registry
    from ..gates import Gate

from ..backends import DEFAULT_BACKEND
from ..errors import ConfigError, FlavourError
from ..flavour import Flavour
from ..resolve import resolve_measures
from ..registry import registry_or_default
from ..report.stats import StatSettings

#: Formats written when the config names none.
FORMATS = ("markdown", "csv", "json")
#: Every format a config may name.
ALL_FORMATS = ("markdown", "csv", "json", "latex", "html")

KeyPath = Sequence[str | int]

#: Largest config file read (bytes): a config is a page of YAML.
MAX_CONFIG_BYTES = 1 << 20
#: Most YAML aliases (``*name``) a config may use. An anchored node may not itself
#: contain an alias, so aliases cannot nest: expanding a config costs at most its
#: size times this count (a "billion laughs" file of nine nested alias levels took
#: 126 s of CPU before).
MAX_ALIASES = 50
#: Most directory entries one ``glob:`` may visit, and most files it may match.
MAX_GLOB_ENTRIES = 100_000
#: Deepest nesting of YAML collections (a config needs 4).
MAX_DEPTH = 32
MAX_GLOB_FILES = 10_000


@lru_cache(maxsize=1)
def config_schema() -> dict:
    """The JSON Schema (draft 2020-12) that configs are validated against."""
    text = resources.files(__package__).joinpath("config.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass(frozen=True)
class RunEntry:
    """One system of the config: display ``name`` and resolved file ``path``;
    ``key`` is the config key path it came from (for error messages)."""

    name: str
    path: Path
    key: str = ""


@dataclass(frozen=True)
class FlavourEntry:
    """One evaluated flavour: display ``label`` (``name`` or ``name@k``), the
    :class:`Flavour`, and the ``spec`` string the config gave."""

    label: str
    flavour: Flavour
    spec: str
    name: str

    @property
    def canonical(self) -> str:
        return str(self.flavour)


@dataclass(frozen=True)
class Config:
    """A validated config with every path resolved and every flavour parsed.

    :param source: the config file (``str``) or ``"<mapping>"``.
    :param base_dir: directory the config's relative paths are resolved against.
    :param output_dir: resolved ``output.dir`` or ``None`` (nothing is written).
    :param formats: output formats (subset of :data:`ALL_FORMATS`; default :data:`FORMATS`).
    :param statistics: the ``statistics:`` section as :class:`~evalkit.report.stats.StatSettings`,
        or ``None`` when the config has none (the report then uses the defaults if
        there is a baseline).
    :param baselines: every baseline of ``baseline:`` (a name or a list); ``baseline``
        is the first.
    :param raw: the config mapping as loaded (for the report's metadata).
    """

    source: str
    base_dir: Path
    qrels: Path | str  # a path, or "irds:DATASET_ID"
    runs: tuple[RunEntry, ...]
    flavours: tuple[FlavourEntry, ...]
    subtopic_qrels: Path | str | None = None
    baseline: str | None = None
    output_dir: Path | None = None
    formats: tuple[str, ...] = FORMATS
    title: str | None = None
    statistics: StatSettings | None = None
    baselines: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: ``report.sensitivity``: compute the tie spread and judged@k (default ``True``)
    sensitivity: bool = True
    #: ``report.unjudged_bounds``: ``None`` (default: not computed), or the grade the
    #: unjudged documents take in the upper bound: ``"qrels"`` (the qrels' largest;
    #: ``true`` in the config), ``"query"`` or a number (:mod:`evalkit.bounds`)
    unjudged_bounds: Any = None
    #: the ``engine:`` section (``{"name": DEFAULT_BACKEND}`` when absent; :mod:`evalkit.backends`)
    engine: Mapping[str, Any] = field(default_factory=lambda: {"name": DEFAULT_BACKEND}, compare=False)
    #: the ``store:`` section: ``None`` (absent), ``True``/``False`` or ``{"path": ...}`` (:mod:`evalkit.store`)
    store: Any = None
    #: the ``gates:`` section as :class:`evalkit.gates.Gate` values
    gates: tuple = ()
    #: resolved ``output.gates_dir`` or ``None``
    gates_dir: Path | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f.label for f in self.flavours)

    @property
    def run_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.runs)


# ----------------------------------------------------------------------------- lines


class _Locator:
    """Maps key paths (``["runs", 1, "path"]``) to 1-based line numbers using the
    node tree of :func:`yaml.compose`. Without a node tree (in-memory mapping) it
    gives no line."""

    def __init__(self, source: str, root: yaml.Node | None) -> None:
        self.source = source
        self.root = root

    def line(self, path: KeyPath) -> int | None:
        node = self.root
        if node is None:
            return None
        line = node.start_mark.line + 1
        for part in path:
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(part):
                        line = key_node.start_mark.line + 1
                        node = value_node
                        break
                else:
                    return line
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                node = node.value[part]
                line = node.start_mark.line + 1
            else:
                return line
        return line

    def value_line(self, path: KeyPath) -> int | None:
        """Line of the value at ``path`` (for a multi-line value, where it starts)."""
        node = self.root
        if node is None:
            return None
        for part in path:
            nxt = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(part):
                        nxt = value_node
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                nxt = node.value[part]
            if nxt is None:
                return self.line(path)
            node = nxt
        return node.start_mark.line + 1

    def error(self, path: KeyPath, message: str, *, value: bool = False) -> ConfigError:
        line = self.value_line(path) if value else self.line(path)
        where = self.source + (f":{line}" if line is not None else "")
        key = format_key(path)
        return ConfigError(f"{where}: {key + ': ' if key else ''}{message}")


def _check_engine(section: Mapping[str, Any], registry: Any, loc: _Locator) -> None:
    """The ``engine:`` section names a registered backend and only options it declares
    (:func:`evalkit.backends.engine_options`).

    :raises ConfigError: naming the file, line and key."""
    from ..backends import engine_options, get_backend

    try:
        backend = get_backend(section["name"], registry)
    except FlavourError as exc:
        raise loc.error(["engine", "name"], str(exc), value=True) from None
    for key in section:
        if key != "name" and key not in {o.key for o in backend.options}:
            try:
                engine_options(backend, {key: section[key]})
            except ConfigError as exc:
                raise loc.error(["engine", key], str(exc)) from None


def format_key(path: KeyPath) -> str:
    """``["runs", 1, "path"]`` -> ``"runs[1].path"``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _check_aliases(text: str, source: str) -> None:
    """Refuse more than :data:`MAX_ALIASES` aliases, and any alias inside an anchored
    node (nesting), from the YAML event stream (linear in the file's size, before any
    node graph is built); the error names the alias's line."""
    count = 0
    anchored_depth = 0  # > 0 while inside an anchored collection
    stack: list[bool] = []  # per open collection: was it anchored?
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                count += 1
                assert event.start_mark is not None  # the parser marks every event
                line = event.start_mark.line + 1
                if anchored_depth:
                    raise ConfigError(f"{source}:{line}: alias *{event.anchor} inside an anchored node: "
                                      "nested aliases are not allowed in a config")
                if count > MAX_ALIASES:
                    raise ConfigError(f"{source}:{line}: more than {MAX_ALIASES} aliases (*name) in one config")
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    assert event.start_mark is not None  # the parser marks every event
                    raise ConfigError(f"{source}:{event.start_mark.line + 1}: collections nested deeper than "
                                      f"{MAX_DEPTH} levels")
                stack.append(event.anchor is not None)
                anchored_depth += event.anchor is not None
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                anchored_depth -= stack.pop()
    except yaml.YAMLError:
        return  # the loader reports syntax errors with their line


def _string_keys(node: yaml.Node | None, source: str, path: list) -> None:
    """Every mapping key that names something (flavour labels, statistics keys ...)
    must be a string: YAML reads ``1`` as an integer, ``~`` as null and ``yes`` as
    true (YAML 1.1), which would become labels ``1``, ``None`` and ``True``."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not (isinstance(key_node, yaml.ScalarNode) and key_node.tag == "tag:yaml.org,2002:str"):
                shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                where = format_key(path)
                raise ConfigError(
                    f"{source}:{key_node.start_mark.line + 1}: {where + ': ' if where else ''}key {shown!r} is not "
                    f"a string (YAML reads 1, ~, yes/no, true/false as numbers, null or booleans); quote it: "
                    f"'{shown}'")
            _string_keys(value_node, source, path + [key_node.value])
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _string_keys(item, source, path + [i])
    elif isinstance(node, yaml.ScalarNode):
        _check_scalar(node, source, path)


_YAML11_OCTAL = re.compile(r"[-+]?0[0-7_]+", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_scalar(node: yaml.ScalarNode, source: str, path: list) -> None:
    """A value YAML reads otherwise than it looks: a plain ``05`` or ``010`` is an
    octal integer in YAML 1.1 (PyYAML: ``010`` is 8); a lone surrogate (``"\\ud800"``)
    is a string no UTF-8 output can hold.

    :raises ConfigError: naming the file, line and key."""
    where = format_key(path)
    at = f"{source}:{node.start_mark.line + 1}: {where + ': ' if where else ''}"
    if node.style is None and node.tag == "tag:yaml.org,2002:int" and _YAML11_OCTAL.fullmatch(node.value):
        raise ConfigError(f"{at}{node.value} is an octal number in YAML 1.1 ({node.value} = "
                          f"{yaml.safe_load(node.value)}); write it without the leading zero, or quote it")
    bad = _SURROGATE.search(node.value)
    if bad is not None:
        raise ConfigError(f"{at}contains a lone surrogate U+{ord(bad.group()):04X} (an escape such as \\ud800 "
                          "that is half of a character): no output file can hold it")


def _mapping_string_keys(data: Any, path: list) -> None:
    """:func:`_string_keys` for an in-memory mapping."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            if not isinstance(key, str):
                where = format_key(path)
                raise ConfigError(f"<mapping>: {where + ': ' if where else ''}key {key!r} is not a string")
            _mapping_string_keys(value, path + [key])
    elif isinstance(data, (list, tuple)):
        for i, item in enumerate(data):
            _mapping_string_keys(item, path + [i])


def _check_duplicate_keys(node: yaml.Node | None, source: str) -> None:
    """``yaml.safe_load`` silently keeps the last of two equal keys; refuse them."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                line = key_node.start_mark.line + 1
                if key_node.value in seen:
                    raise ConfigError(
                        f"{source}:{line}: key '{key_node.value}' appears twice "
                        f"(first at line {seen[key_node.value]})"
                    )
                seen[key_node.value] = line
            _check_duplicate_keys(value_node, source)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicate_keys(item, source)


# ----------------------------------------------------------------------------- schema


def _describe(error: jsonschema.ValidationError) -> tuple[list, str, bool]:
    """``(key path, message, point at the value?)`` for a schema violation."""
    path = list(error.absolute_path)
    v = error.validator
    # every (sub)schema of CONFIG_SCHEMA is an object, and a failed validator has a value
    schema = cast(Mapping[str, Any], error.schema)
    validator_value = cast(Any, error.validator_value)
    if v == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(schema.get("properties", {}))
        extra = sorted(str(k) for k in error.instance if k not in known)
        if extra:
            return path + [extra[0]], f"unknown key '{extra[0]}' (known: {', '.join(known)})", False
    if v == "required" and isinstance(error.instance, dict):
        missing = [k for k in validator_value if k not in error.instance]
        if missing:
            return path, f"missing required key '{missing[0]}'", False
    if "propertyNames" in error.absolute_schema_path:
        return path + [str(error.instance)], f"invalid name {error.instance!r}: no spaces or '@' allowed", False
    if v in ("oneOf", "anyOf"):
        hint = schema.get("x-error")
        # errors of the branch that has the right type (a type error at a branch's
        # root only says that the other branch was meant)
        ctx = [e for e in error.context
               if not (e.validator == "type" and len(e.relative_schema_path) <= 2)]
        from jsonschema.exceptions import best_match

        sub = best_match(ctx) if ctx else None
        if sub is not None and sub.validator in ("oneOf", "anyOf", "not"):
            sub = None
        if sub is not None and sub.validator != "required":
            return _describe(sub)
        if hint:
            detail = f" ({_describe(sub)[1]})" if sub is not None else ""
            return path, f"{hint}; got {_short(error.instance)}{detail}", False
        if sub is not None:
            return _describe(sub)
    if v == "enum":
        allowed = ", ".join(map(str, validator_value))
        return path, f"{_short(error.instance)} is not one of: {allowed}", True
    if v == "type":
        want = validator_value
        want = [want] if isinstance(want, str) else want
        want = " or ".join(_YAML_TYPES.get(w, w) for w in want)
        return path, f"expected {_article(want)}, got {_short(error.instance)}", True
    return path, error.message, True


def _schema_error(error: jsonschema.ValidationError, loc: _Locator) -> ConfigError:
    path, message, value = _describe(error)
    return loc.error(path, message, value=value)


_YAML_TYPES = {"object": "mapping", "array": "list", "null": "null"}


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _validate(data: Any, loc: _Locator) -> None:
    if not isinstance(data, dict):
        raise loc.error([], f"a config must be a mapping with keys qrels, runs, flavours; got {_short(data)}")
    import jsonschema

    validator = jsonschema.Draft202012Validator(config_schema())
    errors = list(validator.iter_errors(data))
    if errors:
        # report the error that comes first in the file
        errors.sort(key=lambda e: (loc.line(list(e.absolute_path)) or 0, len(e.absolute_path)))
        raise _schema_error(errors[0], loc)


# ----------------------------------------------------------------------------- loading


def run_name_from_file(filename: str) -> str:
    """A run's name from its file name: ``input.InexpC2.gz`` -> ``InexpC2`` (a leading
    ``input.``, TREC's submission prefix, and a trailing ``.gz`` are removed)."""
    name = filename
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name


def _resolve(base: Path, text: str) -> Path:
    return (base / os.path.expanduser(text)).resolve() if not os.path.isabs(text) else Path(text)


def _existing(base: Path, text: str, key: KeyPath, loc: _Locator, what: str) -> Path | str:
    path = _resolve(base, text)
    if what in ("qrels", "subtopic qrels") and text.startswith("irds:"):
        return text  # an ir_datasets id, read by read_qrels (evalkit.ecosystem.ir_datasets)
    if not path.exists():
        raise loc.error(key, f"{what} file not found: {path} (paths are relative to {base})", value=True)
    if not (path.is_file() or path.is_fifo()):  # a named pipe is read once, like a file
        raise loc.error(key, f"{what} path {path} is not a file (a directory or a device)", value=True)
    return path


def _glob(pattern: str, base: Path, allow_outside: bool, key: KeyPath, loc: _Locator) -> list[str]:
    """Files matching ``pattern`` (``glob`` syntax, ``**`` for any depth), sorted.

    The walk starts at the pattern's wildcard-free directory, which must lie inside
    ``base`` (the config's directory, after resolving ``..`` and symbolic links) unless
    ``allow_outside``; symbolic links to directories are not followed by ``**``; at most
    :data:`MAX_GLOB_ENTRIES` directory entries are visited and :data:`MAX_GLOB_FILES`
    files matched (so no glob can walk ``/proc`` or a whole disk). Names starting with
    ``.`` match only a pattern part that starts with ``.``, as :mod:`glob` does."""
    import fnmatch

    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) and not globlib.has_magic(parts[fixed]):
        fixed += 1
    root = Path(*parts[:fixed]) if fixed else Path(".")
    rest = parts[fixed:]
    if not rest:  # no wildcard: one file
        return [str(root)] if root.is_file() else []
    start = root.resolve()
    if not allow_outside and not start.is_relative_to(base):
        raise loc.error(key, f"the glob walks {start}, outside the config's directory {base}; set "
                             "allow_outside: true on this entry (or pass --allow-outside) to allow it", value=True)
    visited = 0
    out: list[str] = []

    def match(name: str, part: str) -> bool:
        return (not name.startswith(".") or part.startswith(".")) and fnmatch.fnmatchcase(name, part)

    stack = [(str(root), 0)]
    seen: set[tuple[str, int]] = set()
    while stack:
        directory, i = stack.pop()
        if (directory, i) in seen:
            continue
        seen.add((directory, i))
        part = rest[i]
        last = i == len(rest) - 1
        if part == "**" and not last:  # '**' matching no directory
            stack.append((directory, i + 1))
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        visited += len(entries)
        if visited > MAX_GLOB_ENTRIES:
            raise loc.error(key, f"the glob visits more than {MAX_GLOB_ENTRIES} directory entries; "
                                 "give a narrower pattern", value=True)
        for e in entries:
            path = os.path.join(directory, e.name)
            if part == "**":
                if e.name.startswith("."):
                    continue
                if e.is_dir(follow_symlinks=False):
                    stack.append((path, i))
                elif last and e.is_file():
                    out.append(path)
            elif match(e.name, part):
                if last:
                    if e.is_file():
                        out.append(path)
                elif e.is_dir():
                    stack.append((path, i + 1))
        if len(out) > MAX_GLOB_FILES:
            raise loc.error(key, f"the glob matches more than {MAX_GLOB_FILES} files", value=True)
    return sorted(set(out))


def _runs(data: dict, base: Path, loc: _Locator, allow_outside: bool = False) -> tuple[RunEntry, ...]:
    out: list[RunEntry] = []
    for i, entry in enumerate(data["runs"]):
        key: list[str | int] = ["runs", i]
        if "path" in entry:
            path = _existing(base, entry["path"], key + ["path"], loc, "run")
            assert isinstance(path, Path)  # only qrels may be an ir_datasets id
            name = entry.get("name") or run_name_from_file(path.name)
            out.append(RunEntry(name, path, format_key(key)))
            continue
        pattern = entry["glob"]
        regex = None
        if "name_pattern" in entry:
            from ..user_regex import compile_user_regex

            try:
                regex = compile_user_regex(entry["name_pattern"])
            except ValueError as exc:
                raise loc.error(key + ["name_pattern"], f"invalid regular expression: {exc}", value=True) from None
            if regex.groups != 1:
                raise loc.error(key + ["name_pattern"],
                                f"name_pattern needs exactly one group (...), it has {regex.groups}", value=True)
        full = pattern if os.path.isabs(pattern) else str(base / os.path.expanduser(pattern))
        outside = allow_outside or entry.get("allow_outside", False)
        files = _glob(full, base, outside, key + ["glob"], loc)
        if not files:
            raise loc.error(key + ["glob"], f"no file matches {full}", value=True)
        for f in files:
            fname = os.path.basename(f)
            if regex is None:
                name = run_name_from_file(fname)
            else:
                from ..user_regex import UserRegexTimeout, search

                try:
                    m = search(regex, fname)
                except UserRegexTimeout as exc:
                    raise loc.error(key + ["name_pattern"], str(exc), value=True) from None
                if m is None or not m.group(1):
                    raise loc.error(key + ["name_pattern"],
                                    f"file name {fname!r} does not match {regex.pattern!r}", value=True)
                name = m.group(1)
            out.append(RunEntry(name, Path(f).resolve(), format_key(key)))
    seen: dict[str, RunEntry] = {}
    for i, r in enumerate(out):
        if r.name in seen:
            first = seen[r.name]
            raise loc.error(
                _parse_key(r.key),
                f"two runs are named {r.name!r} ({first.path} from {first.key} and {r.path} from {r.key}); "
                f"give distinct names (name:, or name_pattern: for globs)",
            )
        seen[r.name] = r
    return tuple(out)


def _parse_key(key: str) -> list[str | int]:
    parts: list[str | int] = []
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", key):
        parts.append(int(index) if index else name)
    return parts


def _flavours(data: dict, registry: Registry, loc: _Locator) -> tuple[FlavourEntry, ...]:
    top = data.get("cutoffs")
    out: list[FlavourEntry] = []
    where: dict[str, list] = {}
    for name, value in data["flavours"].items():
        key = ["flavours", name]
        if isinstance(value, str):
            spec, spec_key, own, has_own = value, key, None, False
        else:
            spec, spec_key = value["spec"], key + ["spec"]
            has_own, own = "cutoffs" in value, value.get("cutoffs")
        has_at = "@" in spec
        if has_own and own is not None and has_at:
            raise loc.error(key + ["cutoffs"], f"the spec {spec!r} already has a cutoff (@k); "
                                               f"give it either there or in cutoffs, not both")
        cutoffs = own if has_own else (None if has_at else top)
        if spec == "official":  # the official measures of an irds: qrels, each labelled by its name
            from ..ecosystem.ir_datasets import DatasetError, expand_official

            try:
                specs = expand_official([spec], data.get("qrels"), registry)
            except (FlavourError, DatasetError) as exc:
                raise loc.error(spec_key, str(exc), value=True) from None
            for s in specs:
                out.append(FlavourEntry(s, resolve_measures(s, registry)[0].flavour, s, name))
                where[s] = key
            continue
        try:
            flavours = [m.flavour for m in resolve_measures(spec, registry, cutoffs=cutoffs)]  # once, here
        except FlavourError as exc:
            raise loc.error(spec_key, str(exc), value=True) from None
        labelled = cutoffs is not None or len(flavours) > 1
        for fl in flavours:
            label = f"{name}@{fl.k}" if labelled and fl.k is not None else name
            out.append(FlavourEntry(label, fl, spec, name))
            where[label] = key
    labels: dict[str, FlavourEntry] = {}
    for entry in out:  # presets sharing a flavour are kept, each under its own label
        if entry.label in labels:
            raise loc.error(where[entry.label], f"two flavours are labelled {entry.label!r}")
        labels[entry.label] = entry
    return tuple(out)


def load_config(
    config: str | os.PathLike | Mapping[str, Any],
    *,
    registry: Registry | None = None,
    base_dir: str | os.PathLike | None = None,
    allow_outside: bool = False,
) -> Config:
    """Read, validate and resolve a config.

    :param config: path of a YAML file, or an already-loaded mapping.
    :param registry: component registry (default: :func:`evalkit.default_registry`).
    :param base_dir: for a mapping, the directory relative paths are resolved against
        (default: the current directory); ignored for files (their own directory).
    :param allow_outside: let every ``glob:`` match files outside the config's
        directory tree (a glob entry can also say ``allow_outside: true``).
    :returns: a :class:`Config` with existing input files, parsed flavours and labels.
    :raises ConfigError: invalid YAML, schema violation, unknown component or
        parameter in a spec, missing file, empty glob, duplicate run or flavour names,
        unknown baseline. The message names the file, the line and the key path.
    :raises FileNotFoundError: the config file itself does not exist.
    """
    registry = registry_or_default(registry)
    if isinstance(config, Mapping):
        data: Any = dict(config)
        _mapping_string_keys(data, [])
        source = "<mapping>"
        base = Path(base_dir if base_dir is not None else os.getcwd()).resolve()
        loc = _Locator(source, None)
    else:
        path = Path(config)
        try:
            with open(path, "rb") as f:
                raw = f.read(MAX_CONFIG_BYTES + 1)
            if len(raw) > MAX_CONFIG_BYTES:
                raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; not a config")
            text = raw.decode("utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such config file") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not valid UTF-8 text: {exc}") from None
        source = str(path)
        base = path.resolve().parent
        _check_aliases(text, source)
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
            data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = f":{mark.line + 1}" if mark is not None else ""
            problem = " ".join(p for p in (exc.context, exc.problem) if p)
            raise ConfigError(f"{source}{line}: invalid YAML: {problem}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{source}: invalid YAML: {exc}") from None
        _check_duplicate_keys(root, source)
        _string_keys(root, source, [])
        loc = _Locator(source, root)
    if data is None:
        raise ConfigError(f"{source}: the config is empty; it needs qrels, runs and flavours")
    _validate(data, loc)

    qrels = _existing(base, data["qrels"], ["qrels"], loc, "qrels")
    subtopic = None
    if "subtopic_qrels" in data:
        subtopic = _existing(base, data["subtopic_qrels"], ["subtopic_qrels"], loc, "subtopic qrels")
    runs = _runs(data, base, loc, allow_outside)
    flavours = _flavours(data, registry, loc)
    given = data.get("baseline")
    baselines = () if given is None else ((given,) if isinstance(given, str) else tuple(given))
    for i, name in enumerate(baselines):
        if name not in {r.name for r in runs}:
            key: list[str | int] = ["baseline"] if isinstance(given, str) else ["baseline", i]
            raise loc.error(key, f"baseline {name!r} is not one of the runs "
                                 f"(runs: {', '.join(r.name for r in runs)})", value=True)
    baseline = baselines[0] if baselines else None
    statistics = None
    if "statistics" in data:
        try:
            statistics = StatSettings.from_mapping(data["statistics"])
        except ValueError as exc:  # the schema catches these; kept for a clear message anyway
            raise loc.error(["statistics"], str(exc)) from None
    output = data.get("output", {})
    out_dir = _resolve(base, output["dir"]) if "dir" in output else None
    # results store and gates (evalkit.store, evalkit.gates)
    gates: tuple[Gate, ...] = ()
    if "gates" in data:
        from ..gates import parse_gates

        gates = parse_gates(data["gates"], [r.name for r in runs], flavours, baseline, loc)
    gates_dir = _resolve(base, output["gates_dir"]) if "gates_dir" in output else None
    formats = tuple(output.get("formats", FORMATS))
    if "engine" in data:
        _check_engine(data["engine"], registry, loc)
    return Config(
        source=source,
        base_dir=base,
        qrels=qrels,
        runs=runs,
        flavours=flavours,
        subtopic_qrels=subtopic,
        baseline=baseline,
        baselines=baselines,
        output_dir=out_dir,
        formats=formats,
        title=data.get("title"),
        statistics=statistics,
        raw=data,
        sensitivity=data.get("report", {}).get("sensitivity", True),
        unjudged_bounds=_unjudged_setting(data.get("report", {}).get("unjudged_bounds")),
        engine=dict(data.get("engine", {"name": DEFAULT_BACKEND})),
        store=data.get("store"),
        gates=gates,
        gates_dir=gates_dir,
    )


def _unjudged_setting(value: object) -> str | float | None:
    """``report.unjudged_bounds`` (validated by the schema: a boolean, ``"qrels"``,
    ``"query"`` or a number) as :attr:`Config.unjudged_bounds`."""
    if value is None or value is False:
        return None
    if value is True:
        return "qrels"
    return value if isinstance(value, str) else float(value)  # type: ignore[arg-type]
