"""Checks that an mxgemm-compile sidecar records exactly what the code
object's AMDHSA metadata note says (llvm-readelf --notes) and that the
kernel obeys the project's resource rules (no scratch, no spills, LDS within
the gfx950 limit)."""
import json
import re
import subprocess
import sys

readelf, hsaco, sidecar_path = sys.argv[1:4]
notes = subprocess.run([readelf, "--notes", hsaco], check=True,
                       capture_output=True, text=True).stdout
sidecar = json.load(open(sidecar_path))


def note_value(key):
    m = re.search(r"^\s*-?\s*\.%s:\s+(\S+)" % re.escape(key), notes, re.M)
    if not m:
        sys.exit("metadata note has no .%s" % key)
    return m.group(1).strip("'")


res = sidecar["resources"]
pairs = [("vgpr_count", "vgpr_count"), ("agpr_count", "agpr_count"),
         ("sgpr_count", "sgpr_count"), ("vgpr_spill_count", "vgpr_spill_count"),
         ("sgpr_spill_count", "sgpr_spill_count"),
         ("private_segment_fixed_size", "scratch_bytes"),
         ("group_segment_fixed_size", "lds_bytes"),
         ("kernarg_segment_size", "kernarg_segment_bytes")]
for note_key, side_key in pairs:
    if int(note_value(note_key)) != res[side_key]:
        sys.exit("sidecar %s = %s but the note says %s" %
                 (side_key, res[side_key], note_value(note_key)))
if note_value("name") != sidecar["kernel"]:
    sys.exit("kernel name mismatch")
problems = []
if res["scratch_bytes"] != 0:
    problems.append("uses scratch")
if res["vgpr_spill_count"] or res["sgpr_spill_count"]:
    problems.append("spills")
if res["lds_bytes"] > 163840:
    problems.append("LDS over 160 KiB")
if res["vgpr_count"] + res["agpr_count"] > 512:
    problems.append("more than 512 VGPRs+AGPRs")
if problems:
    sys.exit("resource rule broken: " + ", ".join(problems))
print("sidecar matches the metadata note: vgpr=%d agpr=%d sgpr=%d lds=%d" %
      (res["vgpr_count"], res["agpr_count"], res["sgpr_count"],
       res["lds_bytes"]))
