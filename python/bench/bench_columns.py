"""MD5 of a string column, hex digests, one thread each: linerate's Arrow
function against polars-hash, DuckDB's md5() and a pandas map over
hashlib, in one process, contenders alternating round by round (the order
rotating), medians in rows/s and the ratio of linerate's median to each
peer's beside the issue's targets.

    .venv-python/bin/python python/bench/bench_columns.py [--rows N] [--rounds R]
        [--pandas-rows M] [--json PATH]

The column: N rows (default 10,000,000) of random printable ASCII, 8 to 64
bytes each (uniform), one Arrow ``string`` array that every contender reads
(polars and DuckDB after loading it, outside the timing). Contenders:

* linerate arrow hex: ``linerate_hash.arrow.md5(col, hex=True, threads=1)``
* linerate polars: ``linerate_hash.polars.md5(pl.col("x"), hex=True)`` in a
  ``select`` (the plugin)
* polars-hash: ``polars_hash.col("x").nchash.md5()`` in a ``select``. This
  script sets ``POLARS_MAX_THREADS=1`` before polars is imported, so polars
  runs one thread (it prints the pool size it got).
* DuckDB md5(): ``SELECT min(md5(x)) FROM t`` with ``SET threads=1``, on a
  table already in DuckDB: every digest is computed, none is handed to
  Python (fetching them as Arrow costs DuckDB more, so this is the
  conservative form); ``linerate_md5(x)``, the DuckDB UDF of
  ``linerate_hash.duckdb``, is measured the same way.
* pandas map: ``s.map(lambda v: hashlib.md5(v.encode()).hexdigest())`` on an
  object Series of the first M rows (``--pandas-rows``, default 1,000,000),
  scaled to rows/s.
* linerate arrow binary: ``linerate_hash.arrow.md5(col, threads=1)``
  (FixedSizeBinary(16)).

Every contender's output is checked against hashlib on the first 1000 rows
before any timing (the DuckDB minimums against linerate's), so a wrong
answer is never timed.
"""

import os

# Before anything imports polars: its thread pool is sized once, at import.
os.environ["POLARS_MAX_THREADS"] = "1"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

import linerate_hash.arrow as la  # noqa: E402

CHECK_ROWS = 1000

# The targets: linerate arrow hex over the peer, in medians.
TARGETS = {"polars_hash": 4.0, "duckdb_md5": 4.0, "pandas_map": 10.0}
BINARY_TARGET = 25e6  # rows/s


def make_column(n, seed=1):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, 65, n)
    offsets = np.zeros(n + 1, np.int64 if 64 * n >= 2**31 else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(33, 127, int(offsets[-1]), dtype=np.uint8)
    kind = pa.large_string() if offsets.dtype == np.int64 else pa.string()
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


class Contender:
    def __init__(self, key, label, run, rows, first_rows):
        self.key, self.label, self.run, self.rows = key, label, run, rows
        # first_rows(output) -> the first CHECK_ROWS digests as hex strings
        self.first_rows = first_rows
        self.times = []


def contenders(column, args, notes):
    n = len(column)
    out = []
    out.append(
        Contender(
            "linerate_arrow_hex",
            "linerate arrow hex",
            lambda: la.md5(column, hex=True, threads=1),
            n,
            lambda r: r.slice(0, CHECK_ROWS).to_pylist(),
        )
    )
    out.append(
        Contender(
            "linerate_arrow_binary",
            "linerate arrow binary",
            lambda: la.md5(column, threads=1),
            n,
            lambda r: [d.hex() for d in r.slice(0, CHECK_ROWS).to_pylist()],
        )
    )
    out += polars_contenders(column, notes)
    out += duckdb_contenders(column, notes)
    out += pandas_contenders(column, args.pandas_rows, notes)
    return out


def polars_contenders(column, notes):
    try:
        import polars as pl
    except ImportError:
        notes.append("polars not installed: polars contenders skipped")
        return []
    notes.append(f"polars {pl.__version__}, thread pool {pl.thread_pool_size()} (POLARS_MAX_THREADS=1)")
    frame = pl.from_arrow(pa.table({"x": column}))
    first = lambda r: r.get_column(r.columns[0]).head(CHECK_ROWS).to_list()  # noqa: E731
    import linerate_hash.polars as lp

    ours = lp.md5(pl.col("x"), hex=True)
    out = [Contender("linerate_polars_hex", "linerate polars hex", lambda: frame.select(ours), len(column), first)]
    try:
        import polars_hash as plh
    except ImportError:
        notes.append("polars-hash not installed: skipped")
    else:
        peer = plh.col("x").nchash.md5()
        out.append(
            Contender("polars_hash", "polars-hash nchash.md5", lambda: frame.select(peer), len(column), first)
        )
    return out


def duckdb_contenders(column, notes):
    try:
        import duckdb
    except ImportError:
        notes.append("duckdb not installed: skipped")
        return []
    con = duckdb.connect()
    con.sql("SET threads=1")
    import linerate_hash.duckdb as lduck

    lduck.register(con)
    con.register("source", pa.table({"i": pa.array(np.arange(len(column))), "x": column}))
    con.sql("CREATE TABLE t AS SELECT * FROM source")
    con.unregister("source")
    notes.append(f"duckdb {duckdb.__version__}, SET threads=1, table t of {len(column):,} rows")

    def contender(key, label, function):
        query = f"SELECT min({function}(x)) FROM t"
        check = f"SELECT {function}(x) FROM t WHERE i < {CHECK_ROWS} ORDER BY i"

        def first(result):
            return [r[0] for r in con.sql(check).fetchall()]

        return Contender(key, label, lambda: con.sql(query).fetchall()[0][0], len(column), first)

    return [
        contender("duckdb_md5", "DuckDB md5()", "md5"),
        contender("linerate_duckdb_udf", "linerate DuckDB UDF", "linerate_md5"),
    ]


def pandas_contenders(column, rows, notes):
    try:
        import pandas as pd
    except ImportError:
        notes.append("pandas not installed: skipped")
        return []
    rows = min(rows, len(column))
    series = pd.Series(column.slice(0, rows).to_pylist(), dtype=object)
    notes.append(f"pandas {pd.__version__}, map over an object Series of {rows:,} rows, scaled")
    return [
        Contender(
            "pandas_map",
            "pandas map hashlib",
            lambda: series.map(lambda v: hashlib.md5(v.encode()).hexdigest()),
            rows,
            lambda r: r.head(CHECK_ROWS).tolist(),
        )
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--pandas-rows", type=int, default=1_000_000)
    p.add_argument("--json", metavar="PATH", help="write the medians (rows/s) and ratios here")
    args = p.parse_args()

    column = make_column(args.rows)
    notes = []
    runners = contenders(column, args, notes)
    print(f"python {sys.version.split()[0]}, pyarrow {pa.__version__}, cores {os.cpu_count()}")
    print(f"{args.rows:,} rows of 8-64 random ASCII bytes, one thread each, median of {args.rounds} rounds")
    for note in notes:
        print(f"  {note}")

    want = [hashlib.md5(v.encode()).hexdigest() for v in column.slice(0, CHECK_ROWS).to_pylist()]
    whole_min = pc.min(la.md5(column, hex=True, threads=1)).as_py()
    for c in runners:
        result = c.run()  # also the warm-up
        got = c.first_rows(result)
        if got != want:
            raise SystemExit(f"{c.label}: wrong digests in the first {CHECK_ROWS} rows; not timed")
        if c.key in ("duckdb_md5", "linerate_duckdb_udf") and result != whole_min:
            raise SystemExit(f"{c.label}: min(digest) {result} != linerate's {whole_min}; not timed")

    for r in range(args.rounds):
        k = r % len(runners)
        for c in runners[k:] + runners[:k]:
            start = time.perf_counter()
            c.run()
            c.times.append(time.perf_counter() - start)

    medians = {c.key: c.rows / statistics.median(c.times) for c in runners}
    ours = medians["linerate_arrow_hex"]
    print(f"  {'contender':<24} {'M rows/s':>9}  {'spread':>6}  linerate arrow hex / it   target")
    ratios = {}
    for c in runners:
        spread = (max(c.times) - min(c.times)) / statistics.median(c.times)
        line = f"  {c.label:<24} {medians[c.key] / 1e6:9.2f}  {spread:6.0%}"
        if c.key in TARGETS:
            ratios[c.key] = ours / medians[c.key]
            verdict = "met" if ratios[c.key] >= TARGETS[c.key] else "NOT met"
            line += f"  {ratios[c.key]:22.2f}x   >= {TARGETS[c.key]:g}x ({verdict})"
        elif c.key == "linerate_arrow_binary":
            verdict = "met" if medians[c.key] >= BINARY_TARGET else "NOT met"
            line += f"  {'':23}   >= {BINARY_TARGET / 1e6:g} M rows/s ({verdict})"
        print(line)
    # linerate's own front ends against the peer in the same engine.
    for ours_key, peer_key in (("linerate_polars_hex", "polars_hash"), ("linerate_duckdb_udf", "duckdb_md5")):
        if ours_key in medians and peer_key in medians:
            ratios[f"{ours_key}/{peer_key}"] = medians[ours_key] / medians[peer_key]
            print(f"  {ours_key} / {peer_key}: {ratios[f'{ours_key}/{peer_key}']:.2f}x")

    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "rows": args.rows,
                    "pandas_rows": min(args.pandas_rows, args.rows),
                    "rounds": args.rounds,
                    "medians_rows_per_s": medians,
                    "ratios": ratios,
                    "targets": {**TARGETS, "linerate_arrow_binary_rows_per_s": BINARY_TARGET},
                    "notes": notes,
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
