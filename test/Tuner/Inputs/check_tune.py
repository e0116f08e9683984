"""Checks mxgemm-tune's output against facts it does not compute itself.

  check_tune.py counts LOG BUDGET
      The log's counts add up: structural configs enumerated = the product
      of the default table's structural axes (5 tile_m x 5 tile_n x 5 tile_k
      x 3 waves_m x 3 waves_n x 2 mfma x 2 stage_x x 3 stage_w x 3 stages x
      3 lds_layout x 2 split x 4 k_splits = 972000), passing + pruned =
      enumerated, and
      BUDGET candidates tried: screened plus duplicates (configs that
      compiled to a code object already screened).
  check_tune.py ranking DB BASELINE_SIM CHOSEN_SIM M
      The entry's predicted time at M is what mxgemm-sim predicts for the
      chosen config compiled by mxgemm-compile from the database
      (CHOSEN_SIM), and it is below mxgemm-sim's prediction for the
      baseline (BASELINE_SIM), which is not the config chosen.
  check_tune.py staged-splits LOG DB M
      Split-K variants of the LDS-staged baseline were screened at M, the
      fastest screened one was fully simulated, and the entry took it only
      if it was at least 3% faster than the baseline (the margin of
      TuneOptions), else kept the baseline.
  check_tune.py tail-splits LOG DB M
      The same for the tail-split variants of --tail-splits.
  check_tune.py tail-split-ranges LOG DB INPUT SIM
      --tail-split-ranges cut INPUT's ts_m7937_8448 into ts_m7937_8192 (its
      config, no prediction: 256 tiles leave no tail) and ts_m8193_8448,
      whose config is the input's with the log's fastest segment count, and
      whose prediction is what mxgemm-sim predicts for that entry compiled
      from DB (SIM), at least 3% below the log's one launch; ts unchanged.
"""
import json
import re
import sys


def fail(msg):
    sys.exit("check_tune.py: " + msg)


def counts(log_path, budget):
    text = open(log_path).read()
    space = re.search(r"space: (\d+) structural configs enumerated, (\d+) pass",
                      text)
    summary = re.search(r"space (\d+) generated, (\d+) pruned statically .*?"
                        r"(\d+) screened", text)
    if not space or not summary:
        fail("no counts in the log")
    enumerated, passing = int(space.group(1)), int(space.group(2))
    generated, pruned, screened = map(int, summary.groups())
    dup = re.search(r"screened \([^)]*duplicate (\d+)", text)
    duplicates = int(dup.group(1)) if dup else 0
    product = 5 * 5 * 5 * 3 * 3 * 2 * 2 * 3 * 3 * 3 * 2 * 4
    if enumerated != product or generated != product:
        fail("enumerated %d, expected %d" % (enumerated, product))
    if passing + pruned != enumerated:
        fail("%d passing + %d pruned != %d" % (passing, pruned, enumerated))
    if screened + duplicates != budget:
        fail("%d screened + %d duplicates, budget %d" %
             (screened, duplicates, budget))


def ranking(db_path, baseline_sim, chosen_sim, m):
    db = json.load(open(db_path))
    (entry,) = db["entries"]
    (pred,) = [p for p in entry["predicted"] if p["m"] == m]
    chosen = json.load(open(chosen_sim))
    baseline = json.load(open(baseline_sim))
    if abs(pred["time_us"] - chosen["time_us"]) > 0.006:
        fail("database says %.3f us, mxgemm-sim %.3f us" %
             (pred["time_us"], chosen["time_us"]))
    if pred["target_hash"] != chosen["target_hash"]:
        fail("target hash differs")
    if not pred["time_us"] < baseline["time_us"]:
        fail("chosen %.3f us is not below the baseline's %.3f us" %
             (pred["time_us"], baseline["time_us"]))
    if entry["config"].get("tile_m") == 32 and entry["config"].get("tile_n") == 32:
        fail("the baseline was chosen")


BUCKETS = [(1, 16), (17, 64), (65, 256), (257, 1024), (1025, 2048),
           (2049, 4096), (4097, 8192), (8193, 16384), (16385, 65536)]


def reads_panels(config):
    return config.get("stage_w") == "packed_registers"


def buckets(in_path, out_path, checks):
    before = json.load(open(in_path))["entries"]
    after = {e["name"]: e for e in json.load(open(out_path))["entries"]}
    names = [c.split(":", 1)[0] for c in checks]
    for e in before:
        if e["name"] not in names and after.get(e["name"]) != e:
            fail("entry %s was not kept as it was" % e["name"])
    base = before[0]
    for check in checks:
        name, sim = check.split(":", 1)
        e = after.get(name)
        if not e:
            fail("no entry " + name)
        if e["key"] != base["key"]:
            fail(name + ": another key")
        lo, hi = e["m_range"]
        if (lo, hi) not in BUCKETS or name != "%s_m%d_%d" % (base["name"], lo, hi):
            fail(name + ": range %d..%d is not its bucket" % (lo, hi))
        if reads_panels(e["config"]) != reads_panels(base["config"]):
            fail(name + ": reads W in another layout than " + base["name"])
        auto = json.load(open(sim))
        (pred,) = e["predicted"]
        if pred["time_us"] > auto["time_us"] + 0.006:
            fail("%s: %.3f us, slower than auto's %.3f us" %
                 (name, pred["time_us"], auto["time_us"]))
    extra = set(after) - {e["name"] for e in before} - set(names)
    if extra:
        fail("unexpected entries " + ", ".join(sorted(extra)))


def staged_splits(log_path, db_path, m, origin="k_splits"):
    text = open(log_path).read()
    variants = {}  # candidate -> (k_splits, screened us)
    for i, splits, screened in re.findall(
            r"^#(\d+) \[%s (\d+) of #\d+\][^\n]*\n\s+\d+ VGPRs: "
            r"M=%d: ([\d.]+) us" % (origin, m), text, re.M):
        variants[int(i)] = (int(splits), float(screened))
    if not variants:
        fail("no screened split-K variant in the log")
    full = {int(i): float(t) for i, t in re.findall(
        r"^#(\d+) full: M=%d: ([\d.]+) us" % m, text, re.M)}
    confirmed = [v for v in variants if v in full]
    fastest = min(variants, key=lambda v: (variants[v][1], v))
    if 0 not in full or confirmed != [fastest]:
        fail("expected the baseline and variant #%d (fastest screened) fully "
             "simulated, got %s" % (fastest, sorted(full)))
    entries = json.load(open(db_path))["entries"]
    if len(entries) != 1:
        fail("expected one entry, got %d" % len(entries))
    config = entries[0]["config"]
    chosen = config.get("k_splits", 1)
    splits, t = variants[fastest][0], full[fastest]
    # The margin of TuneOptions::stagedSplitMinGain and tailSplitMinGain
    # (the log rounds to 0.1).
    passes = t <= 0.97 * full[0] + 0.05
    if chosen != (splits if passes else 1) or \
            config.get("tail_split", False) != (passes and
                                                origin == "tail split"):
        fail("took k_splits %d; baseline %.1f us, %s %d %.1f us" %
             (chosen, full[0], origin, splits, t))
    print("%s: baseline %.1f us, %s %d %.1f us, chosen k_splits %d" %
          ("staged splits" if origin == "k_splits" else "tail splits",
           full[0], origin, splits, t, chosen))


def tail_split_ranges(log_path, db_path, in_path, sim_path):
    text = open(log_path).read()
    trial = re.search(r"^tail split ts_m7937_8448 M = 8448 \(264 tiles, tail 8\): "
                      r"one launch ([\d.]+) us((?:; \d+ segments [\d.]+ us)+)",
                      text, re.M)
    if not trial:
        fail("no trial at M = 8448 in the log")
    one = float(trial.group(1))
    splits = {int(s): float(t) for s, t in
              re.findall(r"; (\d+) segments ([\d.]+) us", trial.group(2))}
    before = {e["name"]: e for e in json.load(open(in_path))["entries"]}
    after = {e["name"]: e for e in json.load(open(db_path))["entries"]}
    if sorted(after) != ["ts", "ts_m7937_8192", "ts_m8193_8448"]:
        fail("entries " + ", ".join(sorted(after)))
    if after["ts"] != before["ts"]:
        fail("ts changed")
    parent = before["ts_m7937_8448"]
    first, second = after["ts_m7937_8192"], after["ts_m8193_8448"]
    if first["m_range"] != [7937, 8192] or first["config"] != parent["config"] \
            or "predicted" in first:
        fail("ts_m7937_8192 is not the unsplit piece")
    best = min(splits, key=lambda s: (splits[s], s))
    if not splits[best] <= 0.97 * one + 0.01:
        fail("the split (%.2f us) is not 3%% faster than %.2f us" %
             (splits[best], one))
    want = dict(parent["config"], k_splits=best, tail_split=True)
    if second["m_range"] != [8193, 8448] or second["config"] != want:
        fail("ts_m8193_8448: %s, expected %s" % (second["config"], want))
    (pred,) = second["predicted"]
    sim = json.load(open(sim_path))
    if pred["m"] != 8448 or abs(pred["time_us"] - splits[best]) > 0.006 or \
            abs(pred["time_us"] - sim["time_us"]) > 0.006:
        fail("prediction %.3f us; log %.3f us, mxgemm-sim %.3f us" %
             (pred["time_us"], splits[best], sim["time_us"]))
    print("ts 1..7936 unchanged")
    print("ts_m7937_8192 7937..8192 unsplit, no prediction")
    print("ts_m8193_8448 8193..8448 tail split, prediction at 8448 is the "
          "log's and at least 3% faster")


if __name__ == "__main__":
    if sys.argv[1] == "counts":
        counts(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "ranking":
        ranking(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "staged-splits":
        staged_splits(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "tail-splits":
        staged_splits(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                      origin="tail split")
    elif sys.argv[1] == "tail-split-ranges":
        tail_split_ranges(*sys.argv[2:6])
    elif sys.argv[1] == "buckets":
        buckets(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        fail("unknown mode " + sys.argv[1])
