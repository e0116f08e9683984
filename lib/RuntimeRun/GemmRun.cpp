//===- GemmRun.cpp - one GEMM through the runtime's C API, checked --------===//

#include "mxgemm/RuntimeRun/GemmRun.h"

#include "mxgemm/Contract/ExportManifest.h"
#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Numerics/Npy.h"
#include "mxgemm/Runtime/KernelCache.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace mxgemm;
using namespace mxgemm::runtime;
namespace nx = mxgemm::numerics;

namespace {
/// Device buffers freed with the run.
struct Buffers {
  mxgemm_context *ctx;
  std::vector<void *> ptrs;
  ~Buffers() {
    for (void *p : ptrs)
      mxgemm_device_free(ctx, p);
  }
};

nx::FP8Format fp8(mxgemm_dtype t) {
  return t == MXGEMM_DTYPE_E5M2 ? nx::FP8Format::E5M2 : nx::FP8Format::E4M3;
}

/// The descriptor (JSON) of the embedded kernel that served `plan`.
std::string embeddedDescriptor(const mxgemm_plan &plan) {
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    if (mxgemm_kernel_get(i, &info) == MXGEMM_STATUS_OK &&
        std::strcmp(info.entry, plan.entry) == 0)
      return mxgemm_kernel_descriptor(i);
  }
  return "";
}

/// The descriptor (JSON) of the entry of the loaded directory `dir` that
/// served `plan` (the manifest names its file).
std::string libraryDescriptor(const std::string &dir, const mxgemm_plan &plan) {
  auto read = [](const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  contract::ExportManifest manifest;
  if (contract::ExportManifest::parse(read(dir + "/manifest.json"), manifest))
    return "";
  for (const contract::ExportedKernel &k : manifest.kernels)
    if (k.name == plan.entry)
      return read(dir + "/" + k.descriptor);
  return "";
}

/// The descriptor of the JIT kernel that served `plan`: the kernel cache's
/// entry (plan.entry is its key).
std::string jitDescriptor(const mxgemm_plan &plan) {
  KernelCache cache;
  CachedKernel kernel;
  std::string note;
  if (!cache.open(KernelCache::defaultDirectory()).empty() ||
      !cache.lookup(plan.entry, kernel, note))
    return "";
  return kernel.descriptor;
}
} // namespace

RunResult runtime::runGemm(mxgemm_context *ctx, const mxgemm_problem &problem,
                           const RunOptions &options) {
  RunResult r;
  mxgemm_problem &p = r.problem;
  p = problem;
  // Each C API call: on failure the result says which, and why.
  auto ok = [&](mxgemm_status s, const char *call) {
    if (s == MXGEMM_STATUS_OK)
      return true;
    r.status = s;
    r.failedCall = call;
    r.message = mxgemm_last_error();
    return false;
  };
  auto query = [&] {
    return options.kernel
               ? mxgemm_kernel_query(ctx, options.kernel, &p, &r.plan)
               : mxgemm_query_row_split(ctx, &p, &r.plan, &r.firstRows,
                                        &r.tailPlan);
  };
  mxgemm_status s = query();
  if (s == MXGEMM_STATUS_NOT_ELIGIBLE && options.autoWeightLayout &&
      r.plan.reason == MXGEMM_REASON_PACKED_WEIGHTS) {
    p.w_layout = r.plan.w_layout; // pack W once, as an engine would
    s = query();
  }
  if (s == MXGEMM_STATUS_NOT_ELIGIBLE && options.autoWeightLayout &&
      options.autoScaleLayouts && r.plan.reason == MXGEMM_REASON_SCALE_LAYOUT) {
    p.x_scale_layout = r.plan.x_scale_layout; // pack the scales likewise
    p.w_scale_layout = r.plan.w_scale_layout;
    s = query();
  }
  if (!ok(s, options.kernel ? "mxgemm_kernel_query" : "mxgemm_query"))
    return r;
  mxgemm_plan &plan = r.plan;
  auto descriptorOf = [&](const mxgemm_plan &pl) {
    return options.kernel ? options.kernelDescriptor
           : pl.kind == MXGEMM_PLAN_KIND_LIBRARY
               ? libraryDescriptor(options.libraryDir, pl)
           : pl.kind == MXGEMM_PLAN_KIND_JIT ? jitDescriptor(pl)
                                             : embeddedDescriptor(pl);
  };
  // Each launch: its plan, its rows of the call and its descriptor.
  struct Part {
    const mxgemm_plan *plan = nullptr;
    int64_t row0 = 0, rows = 0;
    contract::KernelDescriptor d;
    std::set<uint32_t> tiles;
    std::vector<nx::OutputRegion> regions; // rows counted from row0
  };
  std::vector<Part> parts;
  r.descriptor = descriptorOf(plan);
  if (r.firstRows)
    r.tailDescriptor = descriptorOf(r.tailPlan);
  for (int part = 0; part < (r.firstRows ? 2 : 1); ++part) {
    Part pt;
    pt.plan = part ? &r.tailPlan : &plan;
    pt.row0 = part ? r.firstRows : 0;
    pt.rows = r.firstRows ? (part ? p.m - r.firstRows : r.firstRows) : p.m;
    if (auto e = contract::KernelDescriptor::parse(
            part ? r.tailDescriptor : r.descriptor, pt.d)) {
      r.status = MXGEMM_STATUS_INVALID_ARGUMENT;
      r.failedCall = "the kernel descriptor";
      r.message = *e;
      return r;
    }
    parts.push_back(std::move(pt));
  }
  const contract::KernelDescriptor &d = parts.front().d;

  // The workgroups that run (facade) and are checked, and their tiles: the
  // first, the last and random others of each launch.
  std::mt19937_64 rng(options.seed ^ 0x5eed);
  for (Part &part : parts) {
    const uint32_t gridX = part.plan->grid_x;
    std::set<uint32_t> &chosen = part.tiles;
    chosen = {0, gridX - 1};
    const uint64_t count =
        options.sample ? std::min<uint64_t>(options.sample, gridX) : gridX;
    while (chosen.size() < count)
      chosen.insert(options.sample ? uint32_t(rng() % gridX)
                                   : uint32_t(chosen.size() - 1));
  }
  // The facade runs the listed workgroups in every launch whose grid holds
  // them: the runtime closes the list over every workgroup that writes a
  // tile they compute (K segments, a tail split's segments and reductions,
  // the other launch of a row split), and a launch checks the tiles of the
  // ids in its first grid.
  std::vector<const mxgemm_plan *> plans;
  std::vector<uint64_t> chosenIds;
  for (Part &part : parts) {
    plans.push_back(part.plan);
    chosenIds.insert(chosenIds.end(), part.tiles.begin(), part.tiles.end());
  }
  size_t numIds = 0;
  if (!ok(mxgemm_plan_workgroup_closure(plans.data(), plans.size(),
                                        chosenIds.data(), chosenIds.size(),
                                        nullptr, 0, &numIds),
          "mxgemm_plan_workgroup_closure"))
    return r;
  std::vector<uint64_t> ids(numIds);
  if (!ok(mxgemm_plan_workgroup_closure(plans.data(), plans.size(),
                                        chosenIds.data(), chosenIds.size(),
                                        ids.data(), ids.size(), &numIds),
          "mxgemm_plan_workgroup_closure"))
    return r;
  for (Part &part : parts)
    for (uint64_t id : ids)
      if (id < uint64_t(part.plan->grid_x) * part.plan->grid_y)
        part.tiles.insert(uint32_t(id % part.plan->grid_x));
  std::string list;
  for (uint64_t id : ids)
    list += (list.empty() ? "" : ",") + std::to_string(id);
  for (Part &part : parts) {
    // A tail split's segments of one tile are one region.
    std::set<std::pair<int64_t, int64_t>> origins;
    for (uint32_t g : part.tiles) {
      int64_t row, col;
      if (!ok(mxgemm_plan_workgroup_tile(part.plan, g, &row, &col),
              "mxgemm_plan_workgroup_tile"))
        return r;
      if (!origins.insert({row, col}).second)
        continue;
      const int64_t rowEnd =
          std::min<int64_t>(row + part.plan->program_tile_m, part.rows);
      // The last tile column may be partial (N not a multiple of tile_n).
      const int64_t colEnd = std::min<int64_t>(col + part.plan->tile_n, p.n);
      part.regions.push_back({row, rowEnd, col, colEnd});
      r.expected += uint64_t(rowEnd - row) * uint64_t(colEnd - col);
    }
  }
  r.workgroups.assign(parts.front().tiles.begin(), parts.front().tiles.end());
  if (parts.size() > 1)
    r.tailWorkgroups.assign(parts.back().tiles.begin(),
                            parts.back().tiles.end());

  // Random MX operands with a different scale per block.
  const auto wScale = nx::ScaleGranularity(p.w_scale);
  r.x = nx::randomMXMatrix(options.seed, p.m, p.k, fp8(p.x_type));
  r.w = nx::randomMXMatrix(options.seed + 1, p.n, p.k, fp8(p.w_type), wScale);
  Buffers buffers{ctx, {}};
  auto device = [&](const void *host, size_t bytes, void *&ptr) {
    return ok(mxgemm_device_alloc(ctx, bytes, &ptr), "mxgemm_device_alloc") &&
           (buffers.ptrs.push_back(ptr), true) &&
           ok(host ? mxgemm_copy_to_device(ctx, ptr, host, bytes)
                   : mxgemm_device_memset(ctx, ptr, 0xff, bytes),
              host ? "mxgemm_copy_to_device" : "mxgemm_device_memset");
  };
  const bool f32 = p.out_type == MXGEMM_DTYPE_F32;
  const size_t elementBytes = f32 ? 4 : 2;
  // The query checked that every operand's byte count fits.
  const size_t yBytes = size_t(p.m) * size_t(p.n) * elementBytes;
  void *x, *xs, *w, *ws, *y;
  if (!device(r.x.data.data(), r.x.data.size(), x) ||
      !device(r.x.scales.data(), r.x.scales.size(), xs) ||
      !device(r.w.data.data(), r.w.data.size(), w) ||
      !device(r.w.scales.data(), r.w.scales.size(), ws) ||
      !device(nullptr, yBytes, y))
    return r;
  // Scales in an MFMA-native layout: packed on the device by the runtime,
  // into buffers of their own size.
  auto packScales = [&](mxgemm_scale_layout layout, int64_t rows, void *&ptr) {
    size_t bytes;
    void *packed;
    if (layout == MXGEMM_SCALES_ROW_MAJOR)
      return true;
    if (!ok(mxgemm_scale_bytes(layout, rows, p.k, &bytes),
            "mxgemm_scale_bytes") ||
        !device(nullptr, bytes, packed) ||
        !ok(mxgemm_pack_scales(ctx, layout, ptr, rows, p.k, packed, nullptr),
            "mxgemm_pack_scales"))
      return false;
    ptr = packed;
    return true;
  };
  if (!packScales(p.x_scale_layout, r.x.scaleRows(), xs) ||
      !packScales(p.w_scale_layout, r.w.scaleRows(), ws))
    return r;
  if (p.w_layout == MXGEMM_WEIGHTS_MFMA_PANELS) {
    if (options.kernel) { // packed here, with the kernel's MFMA geometry
      std::vector<uint8_t> panels(r.w.data.size());
      contract::packWeightPanels(r.w.data.data(), panels.data(), p.n, p.k,
                                 d.mfma.nonK);
      if (!ok(mxgemm_copy_to_device(ctx, w, panels.data(), panels.size()),
              "mxgemm_copy_to_device"))
        return r;
      r.packedBytes = panels.size();
    } else if (!ok(mxgemm_pack_weights(ctx, &p, w, w, &r.packedBytes, nullptr),
                   "mxgemm_pack_weights")) { // in place, once, as an engine
      return r;
    }
  }

  if (options.facade)
    ::setenv("MXGEMM_EMU_WORKGROUPS", list.c_str(), 1);
  mxgemm_tensors t{x, xs, w, ws, y};
  s = options.kernel
          ? mxgemm_kernel_launch(ctx, options.kernel, &p, &t, nullptr, &plan)
          : mxgemm_gemm(ctx, &p, &t, nullptr, &plan);
  if (options.facade)
    ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  r.y.resize(yBytes);
  if (!ok(s, options.kernel ? "mxgemm_kernel_launch" : "mxgemm_gemm") ||
      !ok(mxgemm_synchronize(ctx, nullptr), "mxgemm_synchronize") ||
      !ok(mxgemm_copy_to_host(ctx, r.y.data(), y, yBytes),
          "mxgemm_copy_to_host"))
    return r;

  // The check: the sampled tiles bit for bit, nothing written elsewhere;
  // each launch's rows against the reference of its kernel.
  r.mask.assign(size_t(p.m) * size_t(p.n), 0);
  for (const Part &part : parts)
    for (const nx::OutputRegion &g : part.regions)
      for (int64_t i = part.row0 + g.rowBegin; i < part.row0 + g.rowEnd; ++i)
        std::memset(&r.mask[size_t(i) * size_t(p.n) + size_t(g.colBegin)], 1,
                    size_t(g.colEnd - g.colBegin));
  for (size_t i = 0; i < r.mask.size() && !options.facade; ++i)
    if (!r.mask[i]) // real HIP ran every workgroup: keep the sampled ones
      std::memset(&r.y[i * elementBytes], 0xff, elementBytes);
  for (const Part &part : parts) {
    const size_t row0 = size_t(part.row0);
    nx::MXGemmOperands ops;
    ops.m = part.rows, ops.n = p.n, ops.k = p.k;
    ops.x = r.x.data.data() + row0 * size_t(p.k);
    ops.xScales = r.x.scales.data() + row0 * size_t(r.x.scaleCols());
    ops.xFormat = r.x.format;
    ops.w = r.w.data.data(), ops.wScales = r.w.scales.data();
    ops.wFormat = r.w.format;
    ops.wScaleGranularity = wScale;
    nx::GemmCheckOptions checkOptions;
    checkOptions.reference.kStep = int(part.plan->k_step);
    if (part.d.config.splitsK())
      checkOptions.reference.kSegments =
          contract::kSegmentBoundaries(part.d.problem, part.d.config);
    // A tail split's segments apply to its tail tiles only (none: to no
    // output).
    if (part.d.grid.tailSplit) {
      const contract::TileGrid grid = part.d.grid.forN(p.n);
      for (auto [row, col] : grid.tailTileOrigins(part.rows))
        checkOptions.reference.kSegmentRegions.push_back(
            {row, std::min(part.rows, row + grid.programTileM), col,
             std::min<int64_t>(p.n, col + grid.tileN)});
      if (checkOptions.reference.kSegmentRegions.empty())
        checkOptions.reference.kSegments.clear();
    }
    checkOptions.expected = part.regions;
    nx::GemmCheckResult c = nx::checkGemmOutput(
        ops, r.y.data() + row0 * size_t(p.n) * elementBytes,
        f32 ? nx::OutputType::F32 : nx::OutputType::BF16, checkOptions);
    r.check.compared += c.compared;
    r.check.mismatches += c.mismatches;
    r.check.unwritten += c.unwritten;
    r.check.stray += c.stray;
    r.check.lastRowWritten = c.lastRowWritten; // the last part holds M - 1
    for (nx::GemmMismatch m : c.first)
      if (r.check.first.size() < 10) {
        m.row += part.row0;
        r.check.first.push_back(m);
      }
  }
  return r;
}

std::string runtime::writeDump(const std::string &dir, const RunResult &r) {
  contract::KernelDescriptor d;
  if (auto e = contract::KernelDescriptor::parse(r.descriptor, d))
    return *e;
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return "cannot create " + dir + ": " + std::strerror(errno);
  const mxgemm_problem &p = r.problem;
  std::string error;
  auto write = [&](const char *name, nx::NpyDType type, const void *data,
                   int64_t rows, int64_t cols) {
    return error.empty() &&
           nx::writeNpy(dir + "/" + name, type, data, rows, cols, &error);
  };
  const bool f32 = p.out_type == MXGEMM_DTYPE_F32;
  if (!write("x.npy", nx::NpyDType::UInt8, r.x.data.data(), p.m, p.k) ||
      !write("xs.npy", nx::NpyDType::UInt8, r.x.scales.data(), r.x.scaleRows(),
             r.x.scaleCols()) ||
      !write("w.npy", nx::NpyDType::UInt8, r.w.data.data(), p.n, p.k) ||
      !write("ws.npy", nx::NpyDType::UInt8, r.w.scales.data(), r.w.scaleRows(),
             r.w.scaleCols()) ||
      !write("y.npy", f32 ? nx::NpyDType::Float32 : nx::NpyDType::UInt16,
             r.y.data(), p.m, p.n) ||
      !write("mask.npy", nx::NpyDType::Bool, r.mask.data(), p.m, p.n))
    return error;
  // K's segment boundaries (docs/Design.md section 1, the segment rule):
  // [0, K] unless the kernel splits K.
  auto segments = [](const contract::KernelDescriptor &k) {
    std::string list;
    for (int64_t b : contract::kSegmentBoundaries(k.problem, k.config))
      list += (list.empty() ? "" : ", ") + std::to_string(b);
    return list;
  };
  std::ofstream meta(dir + "/meta.json");
  meta << "{\"kernel\": \"" << d.kernel
       << "\", \"config\": " << contract::formatConfigJson(d.config)
       << ", \"k_step\": " << d.mfma.kStep << ", \"k_segments\": ["
       << segments(d) << "]";
  // A tail split: k_segments hold for these output tiles ([row0, row1,
  // col0, col1), the tail's), every other output is one segment [0, K].
  if (d.grid.tailSplit) {
    const int64_t rows = r.firstRows ? r.firstRows : p.m;
    const contract::TileGrid grid = d.grid.forN(p.n);
    std::string tiles;
    for (auto [row, col] : grid.tailTileOrigins(rows))
      tiles += (tiles.empty() ? "[" : ", [") + std::to_string(row) + ", " +
               std::to_string(std::min(rows, row + grid.programTileM)) + ", " +
               std::to_string(col) + ", " +
               std::to_string(std::min<int64_t>(p.n, col + grid.tileN)) + "]";
    meta << ", \"k_segment_tiles\": [" << tiles << "]";
  }
  // A row split: the rows from first_rows on follow the tail kernel's K
  // step and segments.
  contract::KernelDescriptor t;
  if (r.firstRows && !contract::KernelDescriptor::parse(r.tailDescriptor, t)) {
    meta << ", \"row_split\": {\"first_rows\": " << r.firstRows
         << ", \"kernel\": \"" << t.kernel
         << "\", \"config\": " << contract::formatConfigJson(t.config)
         << ", \"k_step\": " << t.mfma.kStep << ", \"k_segments\": ["
         << segments(t) << "]}";
  }
  meta << "}\n";
  if (!meta.flush())
    return "cannot write " + dir + "/meta.json";
  return "";
}

std::string runtime::describeRun(const RunResult &r,
                                 const std::string &source) {
  const mxgemm_plan &plan = r.plan;
  std::ostringstream os;
  const bool planned =
      r.failedCall != "mxgemm_query" && r.failedCall != "mxgemm_kernel_query";
  if (!planned) {
    os << "plan: " << mxgemm_status_string(r.status) << " "
       << mxgemm_reason_string(plan.reason) << ": " << plan.message << "\n";
    return os.str();
  }
  os << "plan: MXGEMM_STATUS_OK kernel " << plan.kernel << " (entry "
     << (source.empty() ? plan.entry : source) << ") grid " << plan.grid_x
     << "x" << plan.grid_y << "x" << plan.grid_z << " block " << plan.block_x
     << "x" << plan.block_y << "x" << plan.block_z << " dynamic lds "
     << plan.lds_bytes << " k_step " << plan.k_step << " M range " << plan.m_min
     << ".." << plan.m_max << " " << mxgemm_plan_kind_string(plan.kind)
     << "\n  config: " << plan.config << "\n  note: " << plan.note << "\n";
  if (r.firstRows) {
    const mxgemm_plan &tail = r.tailPlan;
    os << "row split: rows 0.." << (r.firstRows - 1)
       << " by the plan above, rows " << r.firstRows << ".."
       << (r.problem.m - 1) << " by kernel " << tail.kernel << " (entry "
       << tail.entry << ") grid " << tail.grid_x << "x" << tail.grid_y << "x"
       << tail.grid_z << " k_step " << tail.k_step << " M range " << tail.m_min
       << ".." << tail.m_max << "\n  config: " << tail.config << "\n";
  }
  for (const auto &[operand, layout] :
       {std::pair{"X", r.problem.x_scale_layout},
        std::pair{"W", r.problem.w_scale_layout}})
    if (layout != MXGEMM_SCALES_ROW_MAJOR)
      os << "scales: " << operand << "'s packed once by mxgemm_pack_scales ("
         << contract::scaleLayoutName(contract::ScaleLayout(layout)).data()
         << ")\n";
  if (r.packedBytes)
    os << "weights: packed once in MFMA panels by "
       << (source.empty() ? "mxgemm_pack_weights" : "the host") << " ("
       << r.packedBytes << " bytes)\n";
  if (r.status != MXGEMM_STATUS_OK) {
    os << r.failedCall << ": " << mxgemm_status_string(r.status) << " "
       << mxgemm_reason_string(plan.reason) << ": " << r.message << "\n";
    return os.str();
  }
  char line[128];
  for (const nx::GemmMismatch &m : r.check.first) {
    std::snprintf(line, sizeof(line),
                  "mismatch: Y[%lld][%lld] = 0x%04x, reference 0x%04x\n",
                  (long long)m.row, (long long)m.col, m.got, m.expected);
    os << line;
  }
  // "k_step S[, G K segments[ in T tail tiles]]" of a launch.
  auto steps = [](const mxgemm_plan &pl) {
    std::string s = "k_step " + std::to_string(pl.k_step);
    if (pl.k_splits > 1 && pl.grid_y == 1)
      return s + ", " + std::to_string(pl.k_splits) + " K segments in " +
             std::to_string(pl.tail_tiles) + " tail tiles";
    return pl.grid_y > 1 ? s + ", " + std::to_string(pl.grid_y) + " K segments"
                         : s;
  };
  os << "verify: " << r.workgroups.size();
  if (r.firstRows)
    os << " + " << r.tailWorkgroups.size();
  os << " workgroups, " << r.check.compared << " elements, "
     << r.check.mismatches << " mismatches (bit-exact vs the CPU reference, "
     << steps(plan)
     << (r.firstRows ? "; tail " + steps(r.tailPlan) : std::string()) << "), "
     << r.check.stray << " stray: " << (r.verified() ? "OK" : "FAIL") << "\n";
  return os.str();
}

std::string runtime::defaultHipLibrary() {
  if (const char *env = std::getenv("MXGEMM_HIP_LIBRARY"); env && *env)
    return env;
  if (void *h = dlopen("libamdhip64.so", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(h);
    return "libamdhip64.so";
  }
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  std::string self(exe, size_t(std::max<ssize_t>(len, 0)));
  return self.substr(0, self.rfind('/')) + "/../lib/libmxgemm_hip_emu.so";
}
