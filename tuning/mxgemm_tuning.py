#!/usr/bin/env python3
"""Build-time tool for the mxgemm tuning database (tuning/gfx950.json).

The runtime's AOT kernel library is produced in three steps, each a CMake
custom command that calls one sub-command of this script:

  check DB --out-dir DIR    schema check (unknown/missing fields, types,
                            overlapping M ranges per key), then one small
                            DIR/<name>.json per entry, rewritten only when its
                            content changed so that Ninja (restat) recompiles
                            only the entries that were edited;
  compile ENTRY --compiler mxgemm-compile -o K.hsaco
                            compiles one entry; a config the compiler or its
                            verifier rejects fails the build with the entry's
                            name and the compiler's message;
  table --out FILE.cpp ENTRY...
                            generates the C++ dispatch table with every code
                            object embedded as a byte array.

`list DB` prints the entry names (used by CMake at configure time). The
format is documented in docs/Runtime.md. Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys

FORMAT = "mxgemm-tuning-db"
VERSION = 1

TOP_FIELDS = {"comment": str, "format": str, "version": int, "entries": list}
ENTRY_FIELDS = {"name": str, "comment": str, "note": str, "key": dict,
                "m_range": list, "config": dict}
ENTRY_REQUIRED = ["name", "key", "m_range", "config"]
KEY_FIELDS = {
    "arch": ["gfx950"],
    "n": int,
    "k": int,
    "x_format": ["e4m3", "e5m2"],
    "w_format": ["e4m3", "e5m2"],
    "w_scale": ["block32x32", "per_row"],
    "out_type": ["bf16", "f32"],
}
# Every field of #mxgemm.config (docs/MXGemmDialect.md). The database can
# express all of them; mxgemm-compile decides which ones it implements.
CONFIG_FIELDS = {
    "tile_m": int, "tile_n": int, "tile_k": int,
    "waves_m": int, "waves_n": int,
    "mfma": ["m32n32k64", "m16n16k128"],
    "group_m": int, "group_n": int,
    "xcd_remap": bool,
    "stage_x": ["direct", "lds_async", "lds_sync", "packed_registers"],
    "stage_w": ["direct", "lds_async", "lds_sync", "packed_registers"],
    "stages": int,
    "lds_layout": ["plain", "padded", "xor"],
    "split": int,
    "waves_per_eu": int,
    "schedule": ["default", "interleave"],
}
CONFIG_DEFAULTS = {"tile_m": 128, "tile_n": 128, "tile_k": 128, "waves_m": 2,
                   "waves_n": 2, "mfma": "m32n32k64", "stage_w": "direct"}
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
# The grid formula the runtime implements (DESIGN.md section 4).
GRID_FORMULA = "ceil(M / program_tile_m) * num_tiles_n"


class DBError(Exception):
    pass


def _type_ok(value, spec):
    if isinstance(spec, list):
        return isinstance(value, str) and value in spec
    if spec is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, spec)


def _describe(spec):
    if isinstance(spec, list):
        return "one of " + ", ".join(repr(s) for s in spec)
    return {int: "an integer", bool: "true or false", str: "a string",
            list: "a list", dict: "an object"}[spec]


def _check_fields(where, obj, allowed, required):
    if not isinstance(obj, dict):
        raise DBError(f"{where}: expected an object")
    for field in obj:
        if field not in allowed:
            raise DBError(f"{where}: unknown field '{field}' (allowed: "
                          + ", ".join(sorted(allowed)) + ")")
    for field in required:
        if field not in obj:
            raise DBError(f"{where}: missing field '{field}'")
    for field, value in obj.items():
        if not _type_ok(value, allowed[field]):
            raise DBError(f"{where}: field '{field}' must be "
                          f"{_describe(allowed[field])}, got {value!r}")


def read_cases(tsv):
    """The case table (../shared/cases/*.tsv): one dict per row, keyed by
    its header line; '#' comments and blank lines are skipped."""
    header, rows = None, []
    with open(tsv) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if header is None:
                header = cols
                continue
            rows.append(dict(zip(header, cols)))
    return rows


def render_config(config):
    """The body of #mxgemm.config<...> in the database's field order."""
    parts = []
    for field, value in config.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        parts.append(f"{field} = {value}")
    return ", ".join(parts)


def load_db(path):
    """Parses and checks the database; returns the normalised entries."""
    try:
        with open(path) as f:
            db = json.load(f)
    except json.JSONDecodeError as e:
        raise DBError(f"not valid JSON: {e}")
    except OSError as e:
        raise DBError(f"cannot read: {e}")
    _check_fields("top level", db, TOP_FIELDS, ["format", "version", "entries"])
    if db["format"] != FORMAT or db["version"] != VERSION:
        raise DBError(f"top level: expected format '{FORMAT}' version "
                      f"{VERSION}, got '{db['format']}' version {db['version']}")
    entries, names, by_key = [], set(), {}
    for i, e in enumerate(db["entries"]):
        where = f"entry {i}" + (f" '{e['name']}'" if isinstance(e, dict)
                                and isinstance(e.get("name"), str) else "")
        _check_fields(where, e, ENTRY_FIELDS, ENTRY_REQUIRED)
        name = e["name"]
        if not NAME_RE.match(name):
            raise DBError(f"{where}: name must match {NAME_RE.pattern}")
        if name in names:
            raise DBError(f"{where}: duplicate name '{name}'")
        names.add(name)
        _check_fields(f"{where} key", e["key"], KEY_FIELDS, list(KEY_FIELDS))
        key = e["key"]
        for dim in ("n", "k"):
            if not 0 < key[dim] < (1 << 24):
                raise DBError(f"{where} key: '{dim}' must be in 1..16777215, "
                              f"got {key[dim]}")
        if key["k"] % 32:
            raise DBError(f"{where} key: 'k' must be a multiple of 32 "
                          f"(one E8M0 scale per 32 K elements), got {key['k']}")
        rng = e["m_range"]
        if (len(rng) != 2 or not all(_type_ok(v, int) for v in rng)
                or not 1 <= rng[0] <= rng[1] <= 2**31 - 1):
            raise DBError(f"{where}: 'm_range' must be [m_min, m_max] with "
                          f"1 <= m_min <= m_max <= 2147483647, got {rng!r}")
        _check_fields(f"{where} config", e["config"], CONFIG_FIELDS, [])
        config = dict(e["config"])
        for dim, tile in (("n", "tile_n"), ("k", "tile_k")):
            t = config.get(tile, CONFIG_DEFAULTS[tile])
            if t <= 0 or key[dim] % t:
                raise DBError(f"{where}: key '{dim}' = {key[dim]} is not a "
                              f"multiple of config '{tile}' = {t}")
        ktuple = tuple(key[f] for f in KEY_FIELDS)
        # A caller packs W once per weight tensor, for whatever M comes: all
        # M ranges of a key must read the same W layout (runtime contract).
        layout = _weight_layout(config)
        for other, orng, olayout in by_key.get(ktuple, []):
            if rng[0] <= orng[1] and orng[0] <= rng[1]:
                raise DBError(f"{where}: M range {rng[0]}..{rng[1]} overlaps "
                              f"entry '{other}' ({orng[0]}..{orng[1]}) of the "
                              f"same key")
            if layout != olayout:
                raise DBError(f"{where}: reads W as {layout}, but entry "
                              f"'{other}' of the same key reads {olayout}; "
                              f"packed weights must serve every M of a key")
        by_key.setdefault(ktuple, []).append((name, rng, layout))
        entries.append({
            "name": name,
            "kernel": "mxgemm_" + name,
            "key": key,
            "m_min": rng[0],
            "m_max": rng[1],
            "config": config,
            "config_text": render_config(config),
            "note": e.get("note", ""),
        })
    return entries


def _weight_layout(config):
    """The W layout an entry's kernel reads: row-major, or MFMA panels of
    the config's MFMA shape (include/mxgemm/Support/WeightPanels.h)."""
    if config.get("stage_w") != "packed_registers":
        return "row-major"
    return "mfma panels (%s)" % config.get("mfma", CONFIG_DEFAULTS["mfma"])


def write_if_changed(path, text, binary=False):
    data = text if binary else text.encode()
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def cmd_list(args):
    for e in load_db(args.db):
        print(e["name"])


def cmd_check(args):
    entries = load_db(args.db)
    os.makedirs(args.out_dir, exist_ok=True)
    for e in entries:
        write_if_changed(os.path.join(args.out_dir, e["name"] + ".json"),
                         json.dumps(e, indent=2, sort_keys=True) + "\n")
    if args.stamp:
        write_if_changed(args.stamp, "\n".join(e["name"] for e in entries))


def cmd_compile(args):
    with open(args.entry) as f:
        e = json.load(f)
    key = e["key"]
    cmd = [args.compiler, "--n", str(key["n"]), "--k", str(key["k"]),
           "--x-format", key["x_format"], "--w-format", key["w_format"],
           "--w-scale", key["w_scale"], "--out-type", key["out_type"],
           "--chip", key["arch"], "--name", e["kernel"],
           "--config", e["config_text"], "-o", args.output]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        msg = proc.stderr.strip() or proc.stdout.strip()
        sys.stderr.write(
            f"{args.db or 'tuning database'}: entry '{e['name']}': config "
            f"'{e['config_text']}' rejected by mxgemm-compile:\n{msg}\n")
        for p in (args.output, args.output + ".json"):
            if os.path.exists(p):
                os.remove(p)
        return 1
    return 0


def _c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


FORMAT_ENUM = {"e4m3": "MXGEMM_DTYPE_E4M3", "e5m2": "MXGEMM_DTYPE_E5M2"}
SCALE_ENUM = {"block32x32": "MXGEMM_SCALE_BLOCK32X32",
              "per_row": "MXGEMM_SCALE_PER_ROW"}
OUT_ENUM = {"bf16": "MXGEMM_DTYPE_BF16", "f32": "MXGEMM_DTYPE_F32"}


def cmd_table(args):
    rows = []
    for path in args.entries:
        with open(path) as f:
            e = json.load(f)
        hsaco = os.path.join(args.kernel_dir, e["name"] + ".hsaco")
        with open(hsaco, "rb") as f:
            code = f.read()
        with open(hsaco + ".json") as f:
            side = json.load(f)
        grid = side["grid"]
        if grid.get("grid_x") != GRID_FORMULA:
            sys.stderr.write(f"entry '{e['name']}': the runtime does not know "
                             f"the grid formula '{grid.get('grid_x')}'\n")
            return 1
        if side["kernel"] != e["kernel"]:
            sys.stderr.write(f"entry '{e['name']}': sidecar names kernel "
                             f"'{side['kernel']}', expected '{e['kernel']}'\n")
            return 1
        rows.append((e, code, side))
    rows.sort(key=lambda r: (r[0]["key"]["n"], r[0]["key"]["k"],
                             r[0]["key"]["x_format"], r[0]["key"]["w_format"],
                             r[0]["key"]["w_scale"], r[0]["key"]["out_type"],
                             r[0]["m_min"]))
    out = ["// Generated by tuning/mxgemm_tuning.py from the tuning database.",
           "// Do not edit: edit the database and rebuild.",
           '#include "KernelTable.h"', "",
           "namespace mxgemm::runtime {", ""]
    for i, (e, code, _) in enumerate(rows):
        out.append(f"// {e['name']}: {len(code)} bytes")
        out.append(f"alignas(16) static const unsigned char kCode{i}[] = {{")
        for j in range(0, len(code), 24):
            out.append("  " + ",".join(str(b) for b in code[j:j + 24]) + ",")
        out.append("};")
    out.append("")
    out.append("// Sorted by (dispatch key, m_min): binary-searched at run "
               "time.")
    out.append("const KernelEntry kKernelTable[] = {")
    for i, (e, code, side) in enumerate(rows):
        key, grid, res = e["key"], side["grid"], side["resources"]
        cfg = e["config"]
        mfma = cfg.get("mfma", "m32n32k64")
        out.append("  {" + ", ".join([
            f"makeDispatchKey({key['n']}, {key['k']}, "
            f"{FORMAT_ENUM[key['x_format']]}, {FORMAT_ENUM[key['w_format']]}, "
            f"{SCALE_ENUM[key['w_scale']]}, {OUT_ENUM[key['out_type']]})",
            f"{e['m_min']}", f"{e['m_max']}",
            f"{key['n']}", f"{key['k']}",
            _c_string(e["name"]), _c_string(side["kernel"]),
            _c_string(key["arch"]),
            f"kCode{i}", f"sizeof(kCode{i})",
            f"{grid['workgroup_size']}", f"{grid['program_tile_m']}",
            f"{grid['tile_n']}", f"{grid['num_tiles_n']}",
            f"{side['lds_bytes']}", f"{res['kernarg_segment_bytes']}",
            f"{res['vgpr_count']}", f"{res['agpr_count']}",
            f"{res['sgpr_count']}", f"{64 if mfma == 'm32n32k64' else 128}",
            "true" if cfg.get("stage_w") == "packed_registers" else "false",
            f"{cfg.get('group_m', 1)}", f"{cfg.get('group_n', 0)}",
            "true" if cfg.get("xcd_remap", False) else "false",
            _c_string(e["config_text"]), _c_string(e["note"]),
        ]) + "},")
    out.append("};")
    out.append("const size_t kKernelTableSize = "
               "sizeof(kKernelTable) / sizeof(kKernelTable[0]);")
    out.append("")
    out.append("} // namespace mxgemm::runtime")
    write_if_changed(args.out, "\n".join(out) + "\n")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("list")
    s.add_argument("db")
    s = sub.add_parser("check")
    s.add_argument("db")
    s.add_argument("--out-dir", required=True)
    s.add_argument("--stamp")
    s = sub.add_parser("compile")
    s.add_argument("entry")
    s.add_argument("--compiler", required=True)
    s.add_argument("--db")
    s.add_argument("-o", "--output", required=True)
    s = sub.add_parser("table")
    s.add_argument("--out", required=True)
    s.add_argument("--kernel-dir", required=True)
    s.add_argument("entries", nargs="*")
    args = p.parse_args()
    try:
        rc = {"list": cmd_list, "check": cmd_check, "compile": cmd_compile,
              "table": cmd_table}[args.cmd](args)
    except DBError as e:
        db = getattr(args, "db", None) or "tuning database"
        sys.stderr.write(f"{db}: error: {e}\n")
        return 1
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
