"""check_db_config.py DB SIDECAR N K M

The sidecar of `mxgemm-compile --n N --k K --m M` must carry the config of
the database entry whose key is (N, K, e4m3, e4m3, block32x32, bf16) and
whose m_range holds M, field for field, and name that entry as its
config_source. The expected config comes from the database file itself
(with the naive defaults of docs/MXGemmDialect.md for the fields an entry
leaves out), never from the compiler."""
import json
import sys

NAIVE = {"tile_m": 128, "tile_n": 128, "tile_k": 128, "waves_m": 2,
         "waves_n": 2, "mfma": "m32n32k64", "group_m": 1, "group_n": 0,
         "xcd_remap": False, "stage_x": "direct", "stage_w": "direct",
         "stages": 1, "lds_layout": "plain", "split": 1, "waves_per_eu": 0,
         "schedule": "default"}

db_path, sidecar_path, n, k, m = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
db = json.load(open(db_path))
sidecar = json.load(open(sidecar_path))
key = {"arch": "gfx950", "n": n, "k": k, "x_format": "e4m3",
       "w_format": "e4m3", "w_scale": "block32x32", "out_type": "bf16"}
matches = [e for e in db["entries"]
           if e["key"] == key and e["m_range"][0] <= m <= e["m_range"][1]]
if len(matches) != 1:
    sys.exit("expected one entry for %s at M %d, found %d" % (key, m, len(matches)))
entry = matches[0]
expected = dict(NAIVE, **entry["config"])
if set(sidecar["config"]) != set(NAIVE):
    sys.exit("sidecar config fields %s" % sorted(sidecar["config"]))
for field, value in expected.items():
    if sidecar["config"][field] != value:
        sys.exit("%s: sidecar has %r, entry %s has %r"
                 % (field, sidecar["config"][field], entry["name"], value))
if sidecar.get("config_source") != "database:" + entry["name"]:
    sys.exit("config_source %r" % sidecar.get("config_source"))
print("config of entry %s: %d fields equal" % (entry["name"], len(expected)))
