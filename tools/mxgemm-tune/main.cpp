//===- mxgemm-tune.cpp - choose kernel configs by search on mxgemm-sim ----===//
//
// Thin driver over the MXGemmTuner library (docs/Tuning.md):
//   mxgemm-tune --n N --k K [formats] --m RANGES -o DB.json [search options]
//   mxgemm-tune --db DB [--entries A,B] --m RANGES -o DB.json [...]
// RANGES is a comma-separated list of `M`, `LO..HI` (simulated at HI) or
// `LO..HI@S1/S2` (simulated at S1 and S2). Writes a tuning database that
// contract::TuningDatabase reads, each entry with its predicted figures;
// --export DIR also writes the chosen code objects, their descriptors, a
// manifest and a copy of the database (what mxgemm_context_load_library
// loads). Exit status: 0 done, 1 the search found nothing, 2 usage,
// 3 I/O.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ConfigSelection.h"
#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Support/Options.h"
#include "mxgemm/Support/Tool.h"
#include "mxgemm/Tuner/RowSplit.h"
#include "mxgemm/Tuner/TailSplitRanges.h"
#include "mxgemm/Tuner/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::tuner;

namespace {

/// One key to tune and where its names come from.
struct Job {
  TuneOptions options;
};

/// --buckets: the Ms each bucket is judged at (by the sum of the predicted
/// times). Its upper end, except the last bucket's, judged at its lower end
/// (a kernel's grid only grows with M, and simulating M = 65536 takes
/// minutes). The buckets between 2048 and the case table hold grids of
/// several rounds whose last one fills differently across the bucket, so
/// they are judged at its half and three quarters too: a tile that leaves an
/// eighth of a round at the upper end can fill whole rounds below it
/// (docs/Tuning.md).
std::vector<int64_t> judgedMs(const contract::MBucket &b) {
  if (b.mMin > 16384)
    return {b.mMin};
  if (b.mMin <= 2048)
    return {b.mMax};
  int64_t size = b.mMax - b.mMin + 1;
  return {b.mMin - 1 + size / 2, b.mMin - 1 + size / 4 * 3, b.mMax};
}

std::vector<MRange> parseRanges(const ToolOptions &tool, StringRef text) {
  std::vector<MRange> ranges;
  SmallVector<StringRef> items;
  text.split(items, ',', -1, false);
  auto number = [&](StringRef s) {
    int64_t v;
    if (s.trim().getAsInteger(10, v) || v < 1 || v > contract::kMaxM)
      tool.usageError("--m: '" + s.str() + "' is not an M in 1.." +
                      std::to_string(contract::kMaxM));
    return v;
  };
  for (StringRef item : items) {
    auto [range, samples] = item.split('@');
    MRange r;
    if (range.contains("..")) {
      auto [lo, hi] = range.split("..");
      r.lo = number(lo);
      r.hi = number(hi);
    } else {
      r.lo = r.hi = number(range);
    }
    if (r.lo > r.hi)
      tool.usageError("--m: empty range '" + range.str() + "'");
    if (samples.empty()) {
      r.samples.push_back(r.hi);
    } else {
      SmallVector<StringRef> list;
      samples.split(list, '/', -1, false);
      for (StringRef s : list)
        r.samples.push_back(number(s));
    }
    ranges.push_back(std::move(r));
  }
  if (ranges.empty())
    tool.usageError("--m needs at least one M or range");
  return ranges;
}

/// The directory of `path` exists and is writable (checked before hours of
/// search, not after).
bool canWrite(StringRef path) {
  SmallString<256> dir(path);
  sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  if (sys::fs::is_directory(path))
    return false;
  return sys::fs::is_directory(dir) &&
         !sys::fs::access(dir, sys::fs::AccessMode::Write);
}

/// The --db database as the one reader parses it (the tool ends on an
/// error).
contract::TuningDatabase readDatabase(ToolOptions &tool) {
  auto buffer = MemoryBuffer::getFile(tool.text("--db"));
  if (!buffer)
    tool.fail(ExitIO, "cannot read " + tool.text("--db") + ": " +
                          buffer.getError().message());
  contract::TuningDatabase db;
  if (auto e = contract::TuningDatabase::parse((*buffer)->getBuffer(), db))
    tool.fail(ExitUsage, tool.text("--db") + ": " + *e);
  return db;
}

/// Writes `text` to `path`, or ends the tool with an I/O error.
void writeTextFile(ToolOptions &tool, const std::string &path,
                   const std::string &text) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    tool.fail(ExitIO, "cannot write " + path + ": " + ec.message());
  os << text;
  os.close();
  if (os.has_error())
    tool.fail(ExitIO, "cannot write " + path + ": " + os.error().message());
}

/// Writes the database `text` to `out` once the one reader has accepted
/// it; false (after saying why) if it would not load.
bool writeDatabase(ToolOptions &tool, const std::string &out,
                   const std::string &text) {
  contract::TuningDatabase check;
  if (auto e = contract::TuningDatabase::parse(text, check)) {
    errs() << "mxgemm-tune: error: the database written would not load: " << *e
           << "\n";
    return false;
  }
  writeTextFile(tool, out, text);
  return true;
}

/// A row split must be predicted 3% faster than one launch: the sum of two
/// simulations leaves out the gap between the launches (an assumption,
/// docs/Tuning.md "Row splits").
constexpr double kRowSplitMinGain = 0.03;
/// A tail split's second launch starts after the same gap (the margin of
/// --tail-splits).
constexpr double kTailSplitMinGain = 0.03;

/// The runs that search nothing (searchNothing).
enum class NoSearch { Repredict, RowSplits, TailSplitRanges };

/// The names --entries lists (none without it), each checked to name an
/// entry of `db`.
std::vector<std::string> requestedEntries(ToolOptions &tool,
                                          const contract::TuningDatabase &db) {
  SmallVector<StringRef> listed;
  std::string entries = tool.text("--entries");
  StringRef(entries).split(listed, ',', -1, false);
  std::vector<std::string> names;
  for (StringRef name : listed) {
    if (!db.find(std::string_view(name)))
      tool.usageError("--entries: no entry named '" + name.str() + "'");
    names.push_back(name.str());
  }
  return names;
}

/// The entries of `db` that are exactly one M bucket and not their key's
/// first entry (the qualified config): those --buckets wrote.
std::vector<size_t> bucketEntries(const contract::TuningDatabase &db) {
  std::vector<size_t> out;
  for (size_t i = 0; i < db.entries.size(); ++i) {
    const contract::TuningEntry &e = db.entries[i];
    const bool first =
        llvm::find_if(db.entries, [&](const contract::TuningEntry &o) {
          return o.problem == e.problem;
        }) == db.entries.begin() + i;
    if (!first && !e.isScaleLayoutVariant() &&
        any_of(contract::kMBuckets, [&](const contract::MBucket &b) {
          return b.mMin == e.mMin && b.mMax == e.mMax;
        }))
      out.push_back(i);
  }
  return out;
}

/// --repredict: the database's own configs simulated again at the Ms of
/// their recorded predictions; --row-splits: every entry's row split chosen
/// again (the step --buckets ends with); --tail-split-ranges: the bucket
/// entries (or --entries) cut into tail-split ranges, then the row splits
/// chosen again, as --buckets --tail-split-ranges ends. Everything else of
/// the file kept.
int searchNothing(ToolOptions &tool, const std::string &out, const char *argv0,
                  NoSearch what) {
  const std::string mode = what == NoSearch::RowSplits ? "--row-splits"
                           : what == NoSearch::Repredict
                               ? "--repredict"
                               : "--tail-split-ranges";
  for (const char *other :
       {"--n", "--k", "--baseline", "--buckets", "--m", "--keep-layout",
        "--from-scratch", "--only-buckets", "--no-staged-splits",
        "--tail-splits", "--full-up-to", "--budget", "--max-minutes", "--seed",
        "--confirm", "--export", "--native-x-scales"})
    if (tool.has(other))
      tool.usageError(mode + " searches nothing: drop " + other);
  if (tool.has("--no-row-split") && what != NoSearch::TailSplitRanges)
    tool.usageError(mode + " searches nothing: drop --no-row-split");
  if (int(tool.has("--repredict")) + int(tool.has("--row-splits")) +
          int(tool.has("--tail-split-ranges")) >
      1)
    tool.usageError("--repredict, --row-splits and --tail-split-ranges are "
                    "separate runs");
  if (what == NoSearch::RowSplits && tool.has("--entries"))
    tool.usageError("--row-splits chooses the row splits of every entry: "
                    "drop --entries");
  if (!tool.has("--db"))
    tool.usageError(mode + " needs --db");
  int64_t jobs = tool.integer("--jobs", 2);
  if (jobs < 1 || jobs > 64)
    tool.usageError("--jobs must be in 1..64");
  contract::TuningDatabase db = readDatabase(tool);
  std::vector<std::string> names = requestedEntries(tool, db);
  if (!canWrite(out))
    tool.fail(ExitIO, "cannot write " + out +
                          ": its directory does not exist or is not writable");
  std::string executable =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&canWrite));
  SmallString<256> workDir(tool.text("--work-dir"));
  const bool ownWorkDir = workDir.empty();
  std::error_code ec =
      ownWorkDir ? sys::fs::createUniqueDirectory("mxgemm-tune", workDir)
                 : sys::fs::create_directories(workDir);
  if (ec)
    tool.fail(ExitIO, "cannot create a work directory: " + ec.message());
  Error error = Error::success();
  if (what == NoSearch::TailSplitRanges) {
    std::vector<size_t> which;
    if (names.empty())
      which = bucketEntries(db);
    for (const std::string &n : names)
      which.push_back(size_t(db.find(n) - db.entries.data()));
    outs() << carveTailSplitRanges(db, which, target::kGFX950,
                                   kTailSplitMinGain, executable,
                                   unsigned(jobs), workDir, outs())
           << " full simulations for the tail-split ranges\n";
  }
  if (what == NoSearch::RowSplits ||
      (what == NoSearch::TailSplitRanges && !tool.has("--no-row-split")))
    outs() << tuneRowSplits(db, target::kGFX950, kRowSplitMinGain, executable,
                            unsigned(jobs), workDir, outs())
           << " full simulations for the row splits\n";
  if (what == NoSearch::Repredict)
    error = repredictEntries(db, names, executable, unsigned(jobs), workDir,
                             outs());
  if (ownWorkDir)
    sys::fs::remove_directories(workDir);
  if (error) {
    errs() << "mxgemm-tune: error: " << toString(std::move(error)) << "\n";
    return ExitFailure;
  }
  if (!writeDatabase(tool, out, db.toJson(db.comment)))
    return ExitFailure;
  outs() << "wrote " << out << " (" << db.entries.size() << " entries)\n";
  return ExitSuccess;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && StringRef(argv[1]) == "--worker")
    return runWorker(argv[2], argv[3]);

  ToolOptions tool(
      "mxgemm-tune",
      "mxgemm-tune (--n N --k K [formats] | --db DB [--entries A,B]) --m "
      "RANGES -o OUT.json [options]",
      "Chooses kernel configs for a GEMM key by search on the timing "
      "simulator (every figure a PREDICTION of mxgemm-sim) and writes them "
      "as a tuning database.",
      {
          {"--n", "N", "weight rows of the key"},
          {"--k", "K", "reduction length (a multiple of 32)"},
          {"--x-format", "F", "e4m3 (default) or e5m2"},
          {"--w-format", "F", "e4m3 (default) or e5m2"},
          {"--w-scale", "S", "block32x32 (default) or per_row"},
          {"--out-type", "T", "bf16 (default) or f32"},
          {"--name", "NAME", "entry name (default n<N>_k<K>)"},
          {"--baseline", "CONFIG",
           "the key's current config ('tile_m = 128, ...'), screened first"},
          {"--native-x-scales", nullptr,
           "with --n/--k: every candidate reads X scales in its MFMA's "
           "native layout (a scale-layout variant, docs/Tuning.md); with "
           "--db each entry's own X scale layout decides"},
          {"--db", "DB",
           "tune the keys of this database; its configs are the baselines, "
           "its names and notes are kept"},
          {"--entries", "A,B", "only these entries of --db"},
          {"--buckets", nullptr,
           "with --db: keep each key's first entry (its qualified config) "
           "and tune one entry <name>_m<lo>_<hi> per other M bucket of "
           "docs/Compiler.md, in the first entry's W layout, with every "
           "seed structure screened; writes the whole database"},
          {"--keep-layout", nullptr,
           "with --db: every candidate reads W like the entry it replaces "
           "(--buckets always does)"},
          {"--from-scratch", nullptr,
           "with --buckets: the existing bucket entries are not baselines, "
           "so the output depends only on each key's first entry"},
          {"--only-buckets", "LO,LO",
           "with --buckets: tune only the buckets starting at these M (the "
           "others keep their entries)"},
          {"--no-row-split", nullptr,
           "with --buckets: keep every entry's row split as it is instead "
           "of choosing them by simulation after the search"},
          {"--no-staged-splits", nullptr,
           "do not try split-K variants of the LDS-staged candidates after "
           "the search (docs/Tuning.md)"},
          {"--tail-splits", nullptr,
           "also try tail splits of the best candidates after the search, "
           "chosen with a 3% margin (docs/Tuning.md)"},
          {"--full-up-to", "M",
           "ranges judged above M are decided by screening, without full "
           "simulations"},
          {"--m", "RANGES",
           "M, LO..HI (simulated at HI) or LO..HI@S1/S2, comma separated"},
          {"-o", "OUT", "the tuning database to write"},
          {"--budget", "N", "candidates screened per key (default 24)"},
          {"--max-minutes", "X",
           "stop screening a key after X minutes (output then depends on "
           "the machine)"},
          {"--seed", "S", "seed of the search (default 1)"},
          {"--jobs", "J", "worker processes (default 2)"},
          {"--confirm", "C",
           "best candidates per range confirmed by a full simulation "
           "(default 2; 0: the screened predictions decide)"},
          {"--work-dir", "DIR", "directory for the workers' files"},
          {"--repredict", nullptr,
           "with --db: search nothing; simulate every entry (or --entries) "
           "in its own config at the M of each recorded prediction, with "
           "the same sampling, and write the database with those figures "
           "(after a simulator change)"},
          {"--row-splits", nullptr,
           "with --db: search nothing; choose the row split of every entry "
           "by simulation, as --buckets does after its search, and write "
           "the database (after a kernel change)"},
          {"--tail-split-ranges", nullptr,
           "cut bucket entries into M ranges of one tile-row count and give "
           "those whose last round a tail split shortens by 3% their own "
           "entry (docs/Tuning.md): with --buckets after the search, for "
           "the buckets it tuned; with --db alone, searching nothing, for "
           "every bucket entry (or --entries), then the row splits again"},
          {"--export", "DIR",
           "also write the chosen code objects, descriptors, manifest and "
           "a copy of the database (a directory the runtime loads)"},
      },
      "Same inputs and --seed give the same output file byte for byte "
      "(without --max-minutes).");
  tool.parse(argc, argv);

  std::string out = tool.text("-o");
  if (out.empty())
    tool.usageError("missing -o OUT.json");
  const bool buckets = tool.has("--buckets");
  if (tool.has("--repredict") || tool.has("--row-splits") ||
      (tool.has("--tail-split-ranges") && !buckets))
    return searchNothing(tool, out, argv[0],
                         tool.has("--repredict") ? NoSearch::Repredict
                         : tool.has("--row-splits")
                             ? NoSearch::RowSplits
                             : NoSearch::TailSplitRanges);
  if (buckets && !tool.has("--db"))
    tool.usageError("--buckets tunes the keys of a database: give --db");
  if (buckets && tool.has("--m"))
    tool.usageError("--buckets sets the M ranges (the buckets); drop --m");
  if (!buckets && !tool.has("--m"))
    tool.usageError("missing --m");
  std::vector<MRange> ranges;
  if (!buckets)
    ranges = parseRanges(tool, tool.text("--m"));
  if (tool.has("--native-x-scales") && tool.has("--db"))
    tool.usageError("--native-x-scales is for --n/--k; with --db each "
                    "entry's own X scale layout decides");
  if (tool.has("--keep-layout") && !tool.has("--db"))
    tool.usageError("--keep-layout needs --db");
  const bool fromScratch = tool.has("--from-scratch");
  if (fromScratch && !buckets)
    tool.usageError("--from-scratch needs --buckets");
  std::vector<int64_t> onlyBuckets;
  if (tool.has("--only-buckets")) {
    if (!buckets)
      tool.usageError("--only-buckets needs --buckets");
    SmallVector<StringRef> items;
    // The items point into this string: keep it alive while they are read.
    const std::string list = tool.text("--only-buckets");
    StringRef(list).split(items, ',', -1, false);
    for (StringRef item : items) {
      int64_t lo;
      if (item.trim().getAsInteger(10, lo) ||
          none_of(contract::kMBuckets,
                  [&](const contract::MBucket &b) { return b.mMin == lo; }))
        tool.usageError("--only-buckets: '" + item.str() +
                        "' is not the lower end of an M bucket (" +
                        join(map_range(contract::kMBuckets,
                                       [](const contract::MBucket &b) {
                                         return std::to_string(b.mMin);
                                       }),
                             ", ") +
                        ")");
      onlyBuckets.push_back(lo);
    }
  }
  int64_t fullUpTo = tool.integer("--full-up-to", 0);
  if (fullUpTo < 0)
    tool.usageError("--full-up-to must not be negative");
  int64_t budget = tool.integer("--budget", 24);
  int64_t seed = tool.integer("--seed", 1);
  int64_t jobs = tool.integer("--jobs", 2);
  int64_t confirm = tool.integer("--confirm", 2);
  double maxMinutes = 0;
  if (tool.has("--max-minutes") &&
      (StringRef(tool.text("--max-minutes")).getAsDouble(maxMinutes) ||
       maxMinutes <= 0))
    tool.usageError("--max-minutes takes a positive number");
  if (budget < 1)
    tool.usageError("--budget must be at least 1, got " +
                    std::to_string(budget));
  if (jobs < 1 || jobs > 64)
    tool.usageError("--jobs must be in 1..64");
  if (confirm < 0 || confirm > 64)
    tool.usageError("--confirm must be in 0..64");
  if (seed < 0)
    tool.usageError("--seed must not be negative");

  std::vector<Job> jobsList;
  auto common = [&](TuneOptions &o) {
    o.ranges = ranges;
    o.budget = uint64_t(budget);
    o.maxMinutes = maxMinutes;
    o.seed = uint64_t(seed);
    o.jobs = unsigned(jobs);
    o.confirm = unsigned(confirm);
    o.fullUpTo = fullUpTo;
    if (tool.has("--no-staged-splits"))
      o.stagedSplitMinGain = -1;
    if (tool.has("--tail-splits"))
      o.tailSplitMinGain = kTailSplitMinGain;
  };
  // --buckets: the entries of the database in the order they are written
  // (each key's first entry, then its bucket entries), in slots; a job's
  // result replaces its slot (the bucket's previous entry or pieces).
  std::vector<std::vector<contract::TuningEntry>> kept;
  std::vector<std::pair<size_t, size_t>> bucketSlots; // (job, slot in kept)
  if (tool.has("--db")) {
    if (tool.has("--n") || tool.has("--k") || tool.has("--baseline"))
      tool.usageError("--db takes its keys and baselines from the database; "
                      "drop --n, --k and --baseline");
    contract::TuningDatabase db = readDatabase(tool);
    std::vector<std::string> wanted = requestedEntries(tool, db);
    if (buckets) {
      // Each key's first entry is its base (the qualified config). The
      // scale-layout variants are kept as they are, after the base's
      // ranges: they repeat a range of the key for other callers.
      std::vector<const contract::TuningEntry *> bases;
      for (const contract::TuningEntry &e : db.entries)
        if (!e.isScaleLayoutVariant() &&
            none_of(bases, [&](const contract::TuningEntry *b) {
              return b->problem == e.problem;
            }))
          bases.push_back(&e);
      // A qualified config may be split by M range inside its bucket (a
      // tile chosen per range): the entries <base>_m<lo>_<hi> of the key
      // inside the base's bucket, kept byte for byte after the base.
      auto rangeName = [](const contract::TuningEntry *b, int64_t lo,
                          int64_t hi) {
        return formatv("{0}_m{1}_{2}", b->name, lo, hi).str();
      };
      struct Qualified {
        contract::MBucket bucket;
        std::vector<std::string> rangeNames;
      };
      std::map<const contract::TuningEntry *, Qualified> qualified;
      for (const contract::TuningEntry *b : bases) {
        Qualified &q = qualified[b];
        q.bucket = contract::kMBuckets[contract::findMBucket(b->mMin)];
        int64_t covered = b->mMax - b->mMin + 1;
        kept.push_back({*b});
        for (const contract::TuningEntry &e : db.entries)
          if (&e != b && e.problem == b->problem && !e.isScaleLayoutVariant() &&
              e.mMin >= q.bucket.mMin && e.mMax <= q.bucket.mMax &&
              e.name == rangeName(b, e.mMin, e.mMax)) {
            q.rangeNames.push_back(e.name);
            covered += e.mMax - e.mMin + 1;
            kept.push_back({e});
          }
        for (const contract::TuningEntry &e : db.entries)
          if (e.problem == b->problem && e.isScaleLayoutVariant())
            kept.push_back({e});
        // The key's entries do not overlap (the reader checks it), so the
        // lengths add up to the bucket only if they tile it.
        if (b->mMax > q.bucket.mMax ||
            covered != q.bucket.mMax - q.bucket.mMin + 1)
          tool.usageError("--buckets: entry '" + b->name + "' (M " +
                          std::to_string(b->mMin) + ".." +
                          std::to_string(b->mMax) +
                          "), with its <name>_m<lo>_<hi> ranges, is not "
                          "exactly one M bucket");
      }
      for (const contract::TuningEntry *b : bases) {
        bool selected = wanted.empty() || is_contained(wanted, b->name);
        const Qualified &q = qualified[b];
        std::vector<std::string> bucketNames = q.rangeNames;
        for (const contract::MBucket &bucket : contract::kMBuckets) {
          if (bucket.mMin == q.bucket.mMin)
            continue;
          std::string name = rangeName(b, bucket.mMin, bucket.mMax);
          bucketNames.push_back(name);
          if (const contract::TuningEntry *other = db.find(name);
              other && other->problem != b->problem)
            tool.usageError("--buckets: entry '" + name +
                            "' has another key than '" + b->name + "'");
          // The bucket's entry, or the pieces --tail-split-ranges cut it
          // into (each named after its own range), in the file's order.
          std::vector<contract::TuningEntry> pieces;
          int64_t covered = 0;
          for (const contract::TuningEntry &e : db.entries)
            if (e.problem == b->problem && !e.isScaleLayoutVariant() &&
                e.mMin >= bucket.mMin && e.mMax <= bucket.mMax &&
                e.name == rangeName(b, e.mMin, e.mMax)) {
              pieces.push_back(e);
              bucketNames.push_back(e.name);
              covered += e.mMax - e.mMin + 1;
            }
          if (!pieces.empty() && covered != bucket.mMax - bucket.mMin + 1)
            tool.usageError("--buckets: the entries of '" + b->name +
                            "' in M " + std::to_string(bucket.mMin) + ".." +
                            std::to_string(bucket.mMax) +
                            " do not tile that bucket");
          if (!selected || (!onlyBuckets.empty() &&
                            !is_contained(onlyBuckets, bucket.mMin))) {
            kept.push_back(std::move(pieces));
            continue;
          }
          // The baseline: the config of the piece the bucket is judged at
          // last, without a tail split (the search never adds one).
          const contract::TuningEntry *previous = nullptr;
          for (const contract::TuningEntry &e : pieces)
            if (e.mMax == bucket.mMax)
              previous = &e;
          Job j;
          TuneOptions &o = j.options;
          o.problem = b->problem;
          o.name = name;
          std::vector<int64_t> samples = judgedMs(bucket);
          int64_t m = samples.back();
          o.allSeeds = true;
          o.weightLayout = weightLayoutClass(b->config);
          if (previous && !fromScratch) {
            o.baseline = previous->config;
            if (o.baseline->tailSplit) {
              o.baseline->tailSplit = false;
              o.baseline->kSplits = 1;
            }
          }
          // What --config=auto picks without this bucket's entry (the
          // heuristic, in the key's W layout): an entry is never predicted
          // slower than the compiler's own choice.
          contract::TuningDatabase baseOnly;
          baseOnly.entries.push_back(*b);
          contract::ConfigChoice heuristic;
          if (!contract::selectConfig(b->problem, m, &baseOnly, target::kGFX950,
                                      heuristic))
            o.extraSeeds.push_back({heuristic.sourceLabel(), heuristic.config});
          // Above M = 1024 the key's qualified structure competes too.
          if (m > 1024)
            o.extraSeeds.push_back({"qualified " + b->name, b->config});
          common(o);
          o.ranges = {MRange{bucket.mMin, bucket.mMax, samples}};
          bucketSlots.push_back({jobsList.size(), kept.size()});
          kept.push_back(std::move(pieces));
          jobsList.push_back(std::move(j));
        }
        // Entries of the key that are neither its base, nor a range of its
        // bucket, nor a bucket entry, nor a variant would overlap the
        // buckets.
        for (const contract::TuningEntry &e : db.entries)
          if (e.problem == b->problem && &e != b && !e.isScaleLayoutVariant() &&
              !is_contained(bucketNames, e.name))
            tool.usageError("--buckets: entry '" + e.name + "' of key '" +
                            b->name + "' is not named <" + b->name +
                            ">_m<lo>_<hi> after an M bucket");
      }
    } else {
      for (const contract::TuningEntry &e : db.entries) {
        if (!wanted.empty() && !is_contained(wanted, e.name))
          continue;
        Job j;
        j.options.problem = e.problem;
        j.options.name = e.name;
        j.options.note = e.note;
        j.options.baseline = e.config;
        if (e.config.wScaleLayout != contract::ScaleLayout::RowMajor)
          tool.usageError("entry '" + e.name +
                          "' reads MFMA-native W scales; the search varies "
                          "the X scale layout only");
        j.options.nativeXScales =
            e.config.xScaleLayout != contract::ScaleLayout::RowMajor;
        if (tool.has("--keep-layout"))
          j.options.weightLayout = weightLayoutClass(e.config);
        common(j.options);
        jobsList.push_back(std::move(j));
      }
    }
  } else {
    if (!tool.has("--n") || !tool.has("--k"))
      tool.usageError("give --n and --k, or --db");
    Job j;
    contract::GemmProblem &p = j.options.problem;
    p.n = tool.integer("--n");
    p.k = tool.integer("--k");
    auto x = contract::parseElementType(tool.text("--x-format", "e4m3"));
    auto w = contract::parseElementType(tool.text("--w-format", "e4m3"));
    auto s =
        contract::parseScaleGranularity(tool.text("--w-scale", "block32x32"));
    auto o = contract::parseElementType(tool.text("--out-type", "bf16"));
    if (!x || !w || !s || !o)
      tool.usageError("--x-format/--w-format take e4m3 or e5m2, --w-scale "
                      "block32x32 or per_row, --out-type bf16 or f32");
    p.xType = *x;
    p.wType = *w;
    p.wScale = *s;
    p.outType = *o;
    j.options.name = tool.text("--name", "n" + std::to_string(p.n) + "_k" +
                                             std::to_string(p.k));
    j.options.nativeXScales = tool.has("--native-x-scales");
    if (tool.has("--baseline")) {
      contract::TuningDatabase probe;
      // The baseline is read by the database's own config reader.
      std::string text = tool.text("--baseline");
      contract::KernelConfig c;
      SmallVector<StringRef> parts;
      StringRef(text).split(parts, ',', -1, false);
      for (StringRef part : parts) {
        auto [name, value] = part.split('=');
        int f = contract::findConfigField(std::string_view(name.trim()));
        if (f < 0)
          tool.usageError("--baseline: unknown field '" + name.trim().str() +
                          "'");
        int64_t v;
        contract::ErrorMessage e =
            contract::configFieldKind(f) == contract::ConfigFieldKind::Integer
                ? (value.trim().getAsInteger(10, v)
                       ? contract::ErrorMessage("'" + value.trim().str() +
                                                "' is not an integer")
                       : contract::setConfigInteger(c, f, v))
                : contract::setConfigKeyword(c, f,
                                             std::string_view(value.trim()));
        if (e)
          tool.usageError("--baseline: " + *e);
      }
      j.options.baseline = c;
    }
    common(j.options);
    jobsList.push_back(std::move(j));
  }
  if (jobsList.empty())
    tool.usageError("no key to tune");
  for (const Job &j : jobsList)
    if (auto e = validateOptions(j.options))
      tool.usageError(j.options.name + ": " + *e);
  if (!canWrite(out))
    tool.fail(ExitIO, "cannot write " + out +
                          ": its directory does not exist or is not writable");
  std::string exportDir = tool.text("--export");
  if (!exportDir.empty()) {
    if (std::error_code ec = sys::fs::create_directories(exportDir))
      tool.fail(ExitIO, "cannot create " + exportDir + ": " + ec.message());
  }

  std::string executable =
      sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&canWrite));
  SmallString<256> workDir(tool.text("--work-dir"));
  bool ownWorkDir = workDir.empty();
  if (ownWorkDir) {
    if (std::error_code ec =
            sys::fs::createUniqueDirectory("mxgemm-tune", workDir))
      tool.fail(ExitIO, "cannot create a work directory: " + ec.message());
  } else if (std::error_code ec = sys::fs::create_directories(workDir)) {
    tool.fail(ExitIO,
              "cannot create " + workDir.str().str() + ": " + ec.message());
  }

  const auto start = std::chrono::steady_clock::now();
  contract::TuningDatabase result;
  std::vector<TuneReport> reports;
  std::vector<std::string> reportNames;
  int status = ExitSuccess;
  std::vector<std::string> tunedNames; // --buckets: the entries searched
  for (size_t ji = 0; ji < jobsList.size(); ++ji) {
    Job &j = jobsList[ji];
    outs() << "== " << j.options.name << " (N = " << j.options.problem.n
           << ", K = " << j.options.problem.k << ")\n";
    outs().flush();
    Expected<TuneReport> r = tune(j.options, executable, workDir, outs());
    if (!r) {
      errs() << "mxgemm-tune: error: " << j.options.name << ": "
             << toString(r.takeError()) << "\n";
      status = ExitFailure;
      continue;
    }
    if (buckets) {
      for (auto &[job, slot] : bucketSlots)
        if (job == ji) {
          kept[slot] = {r->entries.front()};
          tunedNames.push_back(r->entries.front().name);
        }
    } else {
      for (contract::TuningEntry &e : r->entries)
        result.entries.push_back(e);
    }
    reports.push_back(std::move(*r));
    reportNames.push_back(j.options.name);
  }
  uint64_t rowSplitSimulations = 0, tailSplitSimulations = 0;
  if (buckets) {
    // A bucket whose search failed keeps its previous entries (if any).
    for (std::vector<contract::TuningEntry> &slot : kept)
      for (contract::TuningEntry &e : slot)
        result.entries.push_back(std::move(e));
    // Tail splits per M range, in the buckets searched now: before the row
    // splits, whose tails run on the final entries.
    if (tool.has("--tail-split-ranges")) {
      outs() << "== tail-split ranges\n";
      std::vector<size_t> which;
      for (const std::string &n : tunedNames)
        which.push_back(size_t(result.find(n) - result.entries.data()));
      tailSplitSimulations = carveTailSplitRanges(
          result, which, target::kGFX950, kTailSplitMinGain, executable,
          unsigned(jobs), workDir, outs());
    }
    // Row splits are chosen with the final entries: a split's tail runs on
    // the bucket entry of its rows. A split must be predicted 3% faster:
    // the sum of two simulations leaves out the gap between the launches
    // (an assumption, docs/Tuning.md "Row splits").
    if (!tool.has("--no-row-split")) {
      outs() << "== row splits\n";
      rowSplitSimulations =
          tuneRowSplits(result, target::kGFX950, kRowSplitMinGain, executable,
                        unsigned(jobs), workDir, outs());
    }
  }
  if (ownWorkDir)
    sys::fs::remove_directories(workDir);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  // The summary: counts, old vs new, grid efficiency.
  outs() << "\n== summary (PREDICTIONS of mxgemm-sim at the sustained clock)\n";
  uint64_t totalScreened = 0, totalFull = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const TuneReport &r = reports[i];
    totalScreened += r.screened;
    totalFull += r.fullSimulations;
    uint64_t pruned = 0;
    for (auto &[reason, n] : r.enumerationPruned)
      pruned += n;
    outs() << formatv("{0}: space {1} generated, {2} pruned statically (",
                      reportNames[i], r.enumerated, pruned);
    bool first = true;
    for (auto &[reason, n] : r.enumerationPruned) {
      outs() << (first ? "" : ", ") << pruneReasonName(reason) << " " << n;
      first = false;
    }
    outs() << formatv("); search: {0} mutants/draws pruned statically, {1} "
                      "screened (",
                      r.mutantsPruned, r.screened);
    first = true;
    for (auto &[outcome, n] : r.outcomes) {
      outs() << (first ? "" : ", ") << evalStatusName(outcome) << " " << n;
      first = false;
    }
    outs() << formatv("), {0} full simulations; W layout {1}\n",
                      r.fullSimulations, r.weightLayout);
    for (const RangeChoice &c : r.choices)
      for (size_t s = 0; s < c.predictions.size(); ++s) {
        const MPrediction &p = c.predictions[s];
        outs() << formatv("  M = {0} (range {1}..{2}): #{3} {4:F1} us, "
                          "{5:F0} TFLOP/s, MFMA {6:F1}%, {7}, grid {8:F1}% "
                          "({9} WG, {10}/CU, {11} rounds)",
                          p.m, c.range.lo, c.range.hi, c.candidate, p.timeUs,
                          p.tflops, 100 * p.mfmaUtilisation, p.limiter,
                          100 * p.gridEfficiency, p.workgroups,
                          p.workgroupsPerCu, p.rounds);
        if (s < c.baseline.size()) {
          const MPrediction &b = c.baseline[s];
          outs() << formatv(
              "; baseline {0:F1} us (grid {1:F1}%), {2:+0.0;-0.0}%", b.timeUs,
              100 * b.gridEfficiency, 100 * (p.timeUs / b.timeUs - 1));
        }
        outs() << "\n";
      }
  }
  outs() << formatv("{0} candidates screened, {1} full simulations, {2:F0} s "
                    "({3:F1} min) with {4} jobs\n",
                    totalScreened, totalFull, seconds, seconds / 60, jobs);
  if (tailSplitSimulations)
    outs() << tailSplitSimulations
           << " more full simulations chose the tail-split ranges\n";
  if (rowSplitSimulations)
    outs() << rowSplitSimulations
           << " more full simulations chose the row splits\n";
  if (result.entries.empty()) {
    errs() << "mxgemm-tune: error: nothing to write\n";
    return ExitFailure;
  }

  std::string hash = reports.empty() ? "" : reports.front().targetHash;
  std::string text = result.toJson(
      buckets
          ? "mxgemm tuning database for gfx950, one entry per (key, M range), "
            "format in docs/Runtime.md. Each key's first entry is its "
            "qualified config, with the entries <name>_m<lo>_<hi> inside its "
            "M bucket where a range of that bucket has its own tile "
            "(docs/Tuning.md, \"Full last rounds\"); the other entries "
            "<name>_m<lo>_<hi> were written by mxgemm-tune --buckets "
            "(docs/Tuning.md, \"The database's bucket entries: one "
            "command\"), one per M bucket or, with --tail-split-ranges, "
            "per range of one where a tail split pays (docs/Tuning.md, "
            "\"Tail splits per M range\"). Every 'predicted' figure is a "
            "PREDICTION of mxgemm-sim (target table " +
                hash + "), not a measurement."
          : "mxgemm tuning database written by mxgemm-tune (docs/Tuning.md): "
            "every 'predicted' figure is a PREDICTION of mxgemm-sim (target "
            "table " +
                hash + "), not a measurement.");
  if (!writeDatabase(tool, out, text))
    return ExitFailure;
  outs() << "wrote " << out << " (" << result.entries.size() << " entries)\n";

  if (!exportDir.empty()) {
    std::vector<EvalRequest> requests;
    for (const contract::TuningEntry &e : result.entries) {
      EvalRequest r{e.problem, e.config, {}, SimMode::Full};
      r.kernelName = e.kernelName();
      r.exportPath = exportDir + "/" + e.name + ".hsaco";
      requests.push_back(std::move(r));
    }
    std::vector<EvalResult> built =
        evaluateInWorkers(executable, requests, unsigned(jobs), exportDir);
    json::Array kernels;
    for (size_t i = 0; i < built.size(); ++i) {
      const contract::TuningEntry &e = result.entries[i];
      auto bytes = MemoryBuffer::getFile(requests[i].exportPath);
      if (built[i].status != EvalStatus::Simulated || !bytes)
        tool.fail(ExitIO, "cannot export " + e.name + ": " + built[i].message);
      std::string sha = contract::sha256Hex((*bytes)->getBufferStart(),
                                            (*bytes)->getBufferSize());
      kernels.push_back(
          json::Object{{"name", e.name},
                       {"kernel", e.kernelName()},
                       {"code_object", e.name + ".hsaco"},
                       {"descriptor", e.name + ".hsaco.json"},
                       {"sha256", sha},
                       {"m_range", json::Array{e.mMin, e.mMax}},
                       {"n", e.problem.n},
                       {"k", e.problem.k},
                       {"config", contract::formatConfigBody(e.config)}});
    }
    // The database goes beside the manifest too: the runtime
    // (mxgemm_context_load_library) reads the directory alone.
    std::string dbCopy = exportDir + "/" + sys::path::filename(out).str();
    bool same = false;
    if (sys::fs::equivalent(out, dbCopy, same) || !same)
      writeTextFile(tool, dbCopy, text);
    json::Object manifest{{"format", "mxgemm-tune-export"},
                          {"version", 1},
                          {"target_hash", hash},
                          {"database", sys::path::filename(out)},
                          {"kernels", std::move(kernels)}};
    std::error_code ec;
    raw_fd_ostream os(exportDir + "/manifest.json", ec, sys::fs::OF_Text);
    if (ec)
      tool.fail(ExitIO, "cannot write the manifest: " + ec.message());
    os << formatv("{0:2}", json::Value(std::move(manifest))) << "\n";
    outs() << "exported " << built.size() << " kernels to " << exportDir
           << "\n";
  }
  return status;
}
