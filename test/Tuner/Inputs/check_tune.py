"""Checks mxgemm-tune's output against facts it does not compute itself.

  check_tune.py counts LOG BUDGET
      The log's counts add up: structural configs enumerated = the product
      of the default table's structural axes (3 tile_m x 3 tile_n x 3 tile_k
      x 3 waves_m x 3 waves_n x 2 mfma x 2 stage_x x 3 stage_w x 3 stages x
      2 lds_layout x 2 split = 34992), passing + pruned = enumerated, and
      BUDGET candidates tried: screened plus duplicates (configs that
      compiled to a code object already screened).
  check_tune.py ranking DB BASELINE_SIM CHOSEN_SIM M
      The entry's predicted time at M is what mxgemm-sim predicts for the
      chosen config compiled by mxgemm-compile from the database
      (CHOSEN_SIM), and it is below mxgemm-sim's prediction for the
      baseline (BASELINE_SIM), which is not the config chosen.
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
    product = 3 * 3 * 3 * 3 * 3 * 2 * 2 * 3 * 3 * 2 * 2
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


if __name__ == "__main__":
    if sys.argv[1] == "counts":
        counts(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "ranking":
        ranking(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        fail("unknown mode " + sys.argv[1])
