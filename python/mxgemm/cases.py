"""The case table: the workload's GEMM families (data/README.md).

A tab-separated file: '#' comment lines, a header line naming the columns
(at least family, N and K), then one row per family. read_cases returns one
dict per row, keyed by the header, with N and K as integers.
"""

import os

DEFAULT_TABLE = "deepseek_v4_flash_tp2.tsv"
REQUIRED = ("family", "N", "K")


class CaseTableError(ValueError):
    pass


def default_path():
    """$MXGEMM_CASES, else the table of the checkout this package sits in
    (<repo>/data/cases), else None (installed packages: pass a path)."""
    if os.environ.get("MXGEMM_CASES"):
        return os.environ["MXGEMM_CASES"]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    path = os.path.join(repo, "data", "cases", DEFAULT_TABLE)
    return path if os.path.exists(path) else None


def read_cases(path):
    """The rows of the case table at `path`; a malformed table is a
    CaseTableError naming the file and line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise CaseTableError(f"{path}: cannot read the case table: {e}") \
            from None
    header, rows = None, []
    for number, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        where = f"{path}:{number}"
        cols = line.split("\t")
        if header is None:
            missing = [c for c in REQUIRED if c not in cols]
            if missing or len(set(cols)) != len(cols):
                raise CaseTableError(
                    f"{where}: the header must name the columns "
                    f"{', '.join(REQUIRED)} once each, got {cols}")
            header = cols
            continue
        if len(cols) != len(header):
            raise CaseTableError(f"{where}: {len(cols)} columns, the header "
                                 f"has {len(header)}")
        row = dict(zip(header, cols))
        for dim in ("N", "K"):
            if not row[dim].isdigit() or int(row[dim]) < 1:
                raise CaseTableError(f"{where}: {dim} must be a positive "
                                     f"integer, got {row[dim]!r}")
            row[dim] = int(row[dim])
        if any(r["family"] == row["family"] for r in rows):
            raise CaseTableError(f"{where}: family {row['family']!r} "
                                 f"appears twice")
        rows.append(row)
    if not rows:
        raise CaseTableError(f"{path}: no cases")
    return rows
