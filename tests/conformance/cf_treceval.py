"""trec_eval as its users run it: the 9.0.8 and 10.0 command-line programs, built from
their release sources in ``../shared/references/trec_eval`` (``reference_programs``:
sha256 pinned, built once into a cache with ``make``; their own ``make quicktest`` is
reproduced by ``tests/test_trec_eval_quicktest.py``), run as ``trec_eval -q -m MEASURE
[flags] qrels run`` on each case written as TREC files.

trec_eval prints ``%6.4f`` (4 decimals), so comparisons carry a tolerance of half a unit in
the 4th decimal. trec_eval 9.0.8 stores scores as C float, 10.0 as C double. Without ``-c``,
10.0 stops (exit status 4, ``trec_eval: result qid '...' not found in qrels``, naming the
qrels topic the run lacks) where 9.0.8 skips the topic: the reference then refuses the whole
input (``Ref.raised``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import reference_programs
from cf_refs import Ref

#: the release each family of presets follows
NINE, TEN = "9.0.8", "10.0"


def SOURCE_OF(version: str) -> str:  # noqa: N802 -- a constant-like text per release
    return (f"trec_eval {version} (usnistgov/trec_eval {reference_programs.TREC_EVAL_COMMIT[version][:12]}), "
            f"built from trec_eval-{version}.tar.gz in ../shared/references (sha256 "
            f"{reference_programs.TREC_EVAL_SHA256[version][:12]}...), run as trec_eval -q -m MEASURE qrels run")


#: Pyserini 1.6.0 runs jtreceval's trec_eval 9.0.4 binary; its ndcg code is 9.0.8's (UNCHANGED_TO_908)
VERSION = "9.0.4"
SOURCE = SOURCE_OF(NINE)

#: trec_eval 9.0.4 -> 9.0.8, read in usnistgov/trec_eval (v9.0.4 d63f5c4b..v9.0.8 d95ca64e, the tag
#: whose archive pytrec_eval-terrier 0.5.11 builds: archive/v9.0.8.tar.gz): no m_*.c, meas_*.c,
#: measures.c, form_res_rels.c, trec_format.h or trec_eval.h change. get_qrels.c reads the file with
#: fopen/fseek/ftell/fread instead of open/lseek/read (25aeb26, fd803bb, 5f41c8a, 8c33f74; the
#: parsing is untouched), get_trec_results.c drops a (caddr_t) cast (c0f1a67), trec_eval.c declares
#: the te_num_* counters int as defined (8c56e93); the rest is Windows/Cygwin build support. The
#: later tag trec_eval-9.0.8 (d4dd9d9c, 2023) also has fa69fd77 "Convert float to double" (scores
#: and measures as double, trec_eval 10.0's behaviour): not what pytrec_eval builds.
UNCHANGED_TO_908 = ("ndcg code unchanged 9.0.4 to 9.0.8 (usnistgov/trec_eval v9.0.4 d63f5c4b..v9.0.8 d95ca64e: "
                    "no m_*.c, meas_*.c, form_res_rels.c or trec_format.h change; get_qrels.c reads with "
                    "fread, same parsing, 25aeb26/fd803bb/8c33f74; trec_eval.c int counters, 8c56e93)")


def binary(version: str = NINE) -> Path:
    """The built trec_eval ``version`` (``reference_programs.trec_eval_binary``).

    :raises reference_programs.ReferenceUnavailable: the release source is missing or
        altered, or the build failed (a failure, never a skip).
    """
    return reference_programs.trec_eval_binary(version)


def parse(text: str, name: str) -> tuple[dict, float | None]:
    """``trec_eval -q`` output -> (``{qid: value}``, the ``all`` line's mean) for ``name``."""
    per_query, mean = {}, None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == name:
            if parts[1] == "all":
                mean = float(parts[2])
            else:
                per_query[parts[1]] = float(parts[2])
    return per_query, mean


_OUT: dict = {}


def run(case, measure: str, flags: tuple = (), version: str = NINE) -> tuple[int, str, str]:
    """``trec_eval -q -m <measure> [flags] qrels run`` of ``version`` on ``case`` written
    as TREC files: (exit status, stdout, stderr)."""
    key = (case.name, measure, tuple(flags), version)  # a case name names one content
    if key not in _OUT:
        folder = Path(tempfile.mkdtemp(prefix="cf-trec_eval-"))
        try:
            qp, rp = case.write(folder)
            cmd = [str(binary(version)), "-q", "-m", measure, *flags, str(qp), str(rp)]
            got = subprocess.run(cmd, capture_output=True, text=True)
            if got.returncode != 0 and not got.stderr.strip():
                raise AssertionError(f"{' '.join(cmd)} exited {got.returncode} without a message")
            _OUT[key] = (got.returncode, got.stdout, got.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return _OUT[key]


#: measures whose cutoffs are parameters (``ndcg_cut_5`` is ``-m ndcg_cut.5``)
_CUT = ("ndcg_cut", "P", "map_cut", "recall")


def measure_arg(name: str) -> str:
    head, _, cut = name.rpartition("_")
    return f"{head}.{cut}" if cut.isdigit() and head in _CUT else name


def trec_eval(measure: str, flags: tuple = (), version: str = NINE):
    """The built binary of ``version`` as a conformance reference: ``measure`` as trec_eval
    prints it (``ndcg_cut_{k}``); per query from ``-q`` and trec_eval's own ``all`` mean; a
    non-zero exit is the reference refusing the input (its message's first line)."""
    def ref(case, k=None) -> Ref:
        name = measure.format(k=k)
        code, out, err = run(case, measure_arg(name), flags, version)
        if code != 0:
            return Ref({}, raised=f"trec_eval {version} exit {code}: " + err.strip().splitlines()[0])
        per_query, mean = parse(out, name)
        return Ref(per_query, mean)
    return ref
