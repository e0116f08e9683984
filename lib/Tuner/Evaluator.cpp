//===- Evaluator.cpp - compile and simulate one candidate -----------------===//

#include "mxgemm/Tuner/Evaluator.h"

#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/Emulator/CodeObject.h"
#include "mxgemm/Emulator/DeviceMemory.h"
#include "mxgemm/InitAll.h"
#include "mxgemm/Simulator/GemmLaunch.h"
#include "mxgemm/Simulator/Simulator.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::tuner;
namespace ljson = llvm::json;

const char *tuner::evalStatusName(EvalStatus status) {
  switch (status) {
  case EvalStatus::Simulated:
    return "simulated";
  case EvalStatus::CompileFailed:
    return "compile-failed";
  case EvalStatus::Spills:
    return "spills";
  case EvalStatus::SimulationFailed:
    return "simulation-failed";
  case EvalStatus::WorkerFailed:
    return "worker-failed";
  case EvalStatus::Duplicate:
    return "duplicate";
  }
  return "?";
}

double EvalResult::totalTimeUs() const {
  double t = 0;
  for (const MPrediction &p : predictions)
    t += p.timeUs;
  return t;
}

double tuner::gridEfficiency(int64_t workgroups, int64_t cus, int64_t perCu,
                             int64_t *rounds) {
  int64_t slots = cus * perCu;
  int64_t r = slots > 0 ? (workgroups + slots - 1) / slots : 0;
  if (rounds)
    *rounds = r;
  return r > 0 ? double(workgroups) / double(r * slots) : 0;
}

//===----------------------------------------------------------------------===//
// JSON of requests and results (between the tool and its workers)
//===----------------------------------------------------------------------===//

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

std::string tuner::requestToJson(const EvalRequest &r) {
  const contract::GemmProblem &p = r.problem;
  ljson::Array ms;
  for (int64_t m : r.ms)
    ms.push_back(m);
  ljson::Array known;
  for (const std::string &h : r.knownCodeObjects)
    known.push_back(h);
  ljson::Object o{
      {"known", std::move(known)},
      {"n", p.n},
      {"k", p.k},
      {"x_format", std::string(contract::elementTypeName(p.xType))},
      {"w_format", std::string(contract::elementTypeName(p.wType))},
      {"w_scale", std::string(contract::scaleGranularityName(p.wScale))},
      {"out_type", std::string(contract::elementTypeName(p.outType))},
      {"config", contract::formatConfigBody(r.config)},
      {"ms", std::move(ms)},
      {"mode", r.mode == SimMode::Full ? "full" : "screen"},
      {"kernel", r.kernelName},
      {"export", r.exportPath},
  };
  std::string s;
  raw_string_ostream os(s);
  os << ljson::Value(std::move(o));
  return s;
}

/// Parses the config body written by formatConfigBody ("a = 1, b = x").
static Error parseConfigText(StringRef text, contract::KernelConfig &out) {
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, false);
  for (StringRef part : parts) {
    auto [name, value] = part.split('=');
    name = name.trim();
    value = value.trim();
    int f = contract::findConfigField(std::string_view(name));
    if (f < 0)
      return fail("unknown config field '" + name + "'");
    contract::ErrorMessage e;
    if (contract::configFieldKind(f) == contract::ConfigFieldKind::Integer) {
      int64_t v;
      if (value.getAsInteger(10, v))
        return fail("config field '" + name + "' expects an integer");
      e = contract::setConfigInteger(out, f, v);
    } else {
      e = contract::setConfigKeyword(out, f, std::string_view(value));
    }
    if (e)
      return fail(*e);
  }
  return Error::success();
}

Expected<EvalRequest> tuner::requestFromJson(StringRef text) {
  Expected<ljson::Value> v = ljson::parse(text);
  if (!v)
    return v.takeError();
  const ljson::Object *o = v->getAsObject();
  if (!o)
    return fail("request: not an object");
  EvalRequest r;
  auto str = [&](StringRef key) -> std::string {
    std::optional<StringRef> s = o->getString(key);
    return s ? s->str() : std::string();
  };
  std::optional<int64_t> n = o->getInteger("n"), k = o->getInteger("k");
  auto x = contract::parseElementType(str("x_format"));
  auto w = contract::parseElementType(str("w_format"));
  auto s = contract::parseScaleGranularity(str("w_scale"));
  auto out = contract::parseElementType(str("out_type"));
  const ljson::Array *ms = o->getArray("ms");
  if (!n || !k || !x || !w || !s || !out || !ms)
    return fail("request: missing or invalid problem fields");
  r.problem = {*n, *k, *x, *w, *s, *out};
  if (Error e = parseConfigText(str("config"), r.config))
    return e;
  for (const ljson::Value &m : *ms) {
    std::optional<int64_t> mv = m.getAsInteger();
    if (!mv)
      return fail("request: ms must be integers");
    r.ms.push_back(*mv);
  }
  if (const ljson::Array *known = o->getArray("known"))
    for (const ljson::Value &h : *known)
      if (std::optional<StringRef> s = h.getAsString())
        r.knownCodeObjects.push_back(s->str());
  r.mode = str("mode") == "full" ? SimMode::Full : SimMode::Screen;
  r.kernelName = str("kernel");
  r.exportPath = str("export");
  return r;
}

std::string tuner::resultToJson(const EvalResult &r) {
  ljson::Array preds;
  for (const MPrediction &p : r.predictions)
    preds.push_back(ljson::Object{{"m", p.m},
                                  {"time_us", p.timeUs},
                                  {"tflops", p.tflops},
                                  {"mfma_utilisation", p.mfmaUtilisation},
                                  {"limiter", p.limiter},
                                  {"target_hash", p.targetHash},
                                  {"workgroups", p.workgroups},
                                  {"workgroups_per_cu", p.workgroupsPerCu},
                                  {"rounds", p.rounds},
                                  {"grid_efficiency", p.gridEfficiency},
                                  {"all_xcds", p.allXcds}});
  ljson::Object o{
      {"status", int64_t(r.status)},     {"message", r.message},
      {"vgpr_count", r.vgprCount},       {"agpr_count", r.agprCount},
      {"vgpr_spills", r.vgprSpills},     {"sgpr_spills", r.sgprSpills},
      {"scratch_bytes", r.scratchBytes}, {"lds_bytes", r.ldsBytes},
      {"sha256", r.codeObjectSha256},    {"predictions", std::move(preds)}};
  std::string s;
  raw_string_ostream os(s);
  os << ljson::Value(std::move(o));
  return s;
}

Expected<EvalResult> tuner::resultFromJson(StringRef text) {
  Expected<ljson::Value> v = ljson::parse(text);
  if (!v)
    return v.takeError();
  const ljson::Object *o = v->getAsObject();
  if (!o)
    return fail("result: not an object");
  EvalResult r;
  auto integer = [&](const ljson::Object &obj, StringRef key) {
    return obj.getInteger(key).value_or(0);
  };
  auto number = [&](const ljson::Object &obj, StringRef key) {
    return obj.getNumber(key).value_or(0);
  };
  auto string = [&](const ljson::Object &obj, StringRef key) {
    std::optional<StringRef> s = obj.getString(key);
    return s ? s->str() : std::string();
  };
  int64_t status = integer(*o, "status");
  if (status < 0 || status > int64_t(EvalStatus::Duplicate))
    return fail("result: bad status");
  r.status = EvalStatus(status);
  r.message = string(*o, "message");
  r.vgprCount = integer(*o, "vgpr_count");
  r.agprCount = integer(*o, "agpr_count");
  r.vgprSpills = integer(*o, "vgpr_spills");
  r.sgprSpills = integer(*o, "sgpr_spills");
  r.scratchBytes = integer(*o, "scratch_bytes");
  r.ldsBytes = integer(*o, "lds_bytes");
  r.codeObjectSha256 = string(*o, "sha256");
  if (const ljson::Array *preds = o->getArray("predictions"))
    for (const ljson::Value &pv : *preds) {
      const ljson::Object *p = pv.getAsObject();
      if (!p)
        return fail("result: bad prediction");
      MPrediction m;
      m.m = integer(*p, "m");
      m.timeUs = number(*p, "time_us");
      m.tflops = number(*p, "tflops");
      m.mfmaUtilisation = number(*p, "mfma_utilisation");
      m.limiter = string(*p, "limiter");
      m.targetHash = string(*p, "target_hash");
      m.workgroups = integer(*p, "workgroups");
      m.workgroupsPerCu = integer(*p, "workgroups_per_cu");
      m.rounds = integer(*p, "rounds");
      m.gridEfficiency = number(*p, "grid_efficiency");
      m.allXcds = p->getBoolean("all_xcds").value_or(false);
      r.predictions.push_back(std::move(m));
    }
  return r;
}

//===----------------------------------------------------------------------===//
// The worker's body
//===----------------------------------------------------------------------===//

static Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return fail("cannot write " + path + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return fail("cannot write " + path + ": " + os.error().message());
  return Error::success();
}

EvalResult tuner::evaluate(const EvalRequest &request) {
  EvalResult result;
  const target::TargetModel &target = target::kGFX950;
  ProblemSpec spec{request.kernelName, request.problem, request.config, {}};

  // Compile in-process.
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    if (diagnostics.size() < 1000)
      diagnostics += d.str() + "; ";
    return mlir::success();
  });
  if (contract::ErrorMessage e = validateProblemSpec(spec, target.chip)) {
    result.status = EvalStatus::CompileFailed;
    result.message = *e;
    return result;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = buildProblem(&ctx, spec);
  FailureOr<CompileResult> compiled = failure();
  if (module)
    compiled = compileProblem(*module, CompileOptions());
  if (!module || mlir::failed(compiled)) {
    result.status = EvalStatus::CompileFailed;
    result.message = diagnostics.empty() ? "compilation failed" : diagnostics;
    return result;
  }
  contract::KernelDescriptor &desc = compiled->descriptor;
  const contract::KernelResources &res = desc.resources;
  result.vgprCount = res.vgprCount;
  result.agprCount = res.agprCount;
  result.vgprSpills = res.vgprSpillCount;
  result.sgprSpills = res.sgprSpillCount;
  result.scratchBytes = res.scratchBytes;
  result.ldsBytes = res.ldsBytes;
  result.codeObjectSha256 = desc.codeObjectSha256;
  if (!request.exportPath.empty()) {
    desc.codeObject = sys::path::filename(request.exportPath).str();
    if (Error e = writeFile(request.exportPath, compiled->output)) {
      result.status = EvalStatus::CompileFailed;
      result.message = toString(std::move(e));
      return result;
    }
    if (Error e = writeFile(request.exportPath + ".json", desc.toJson())) {
      result.status = EvalStatus::CompileFailed;
      result.message = toString(std::move(e));
      return result;
    }
  }
  // A spilling kernel reads and writes scratch in its loop: never a winner,
  // and not worth a simulation.
  if (res.vgprSpillCount || res.sgprSpillCount || res.scratchBytes) {
    result.status = EvalStatus::Spills;
    result.message = std::to_string(res.vgprSpillCount) + " VGPR and " +
                     std::to_string(res.sgprSpillCount) + " SGPR spills, " +
                     std::to_string(res.scratchBytes) + " bytes of scratch";
    return result;
  }

  if (llvm::is_contained(request.knownCodeObjects, desc.codeObjectSha256)) {
    result.status = EvalStatus::Duplicate;
    result.message = "same code object as an earlier candidate";
    return result;
  }

  // Simulate at each M.
  const std::string &bytes = compiled->output;
  auto object = emu::CodeObject::load(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  if (!object) {
    result.status = EvalStatus::SimulationFailed;
    result.message = toString(object.takeError());
    return result;
  }
  const emu::KernelInfo *kernel = (*object)->findKernel(desc.kernel);
  if (!kernel) {
    result.status = EvalStatus::SimulationFailed;
    result.message = "no kernel '" + desc.kernel + "' in the code object";
    return result;
  }
  sim::SimOptions options;
  options.onlyClockHz = target.timing.sustainedClockHz;
  options.traceAllXcds = request.mode == SimMode::Full;
  for (int64_t m : request.ms) {
    emu::DeviceMemory memory;
    Expected<sim::Launch> launch = sim::prepareGemmLaunch(desc, m, memory);
    Expected<sim::Prediction> p =
        launch
            ? sim::simulate(**object, *kernel, *launch, memory, target, options)
            : Expected<sim::Prediction>(launch.takeError());
    if (!p) {
      result.status = EvalStatus::SimulationFailed;
      result.message =
          "M = " + std::to_string(m) + ": " + toString(p.takeError());
      result.predictions.clear();
      return result;
    }
    MPrediction mp;
    mp.m = m;
    // A split-K kernel's time and rates include its reduction launch.
    Expected<std::optional<sim::Prediction>> reduction =
        sim::simulateSplitKReduction(**object, *kernel, desc, m, target,
                                     options);
    if (!reduction) {
      result.status = EvalStatus::SimulationFailed;
      result.message = "M = " + std::to_string(m) + " (split-K reduction): " +
                       toString(reduction.takeError());
      result.predictions.clear();
      return result;
    }
    if (*reduction)
      sim::appendLaunch(*p, **reduction);
    mp.timeUs = p->sustained.seconds * 1e6;
    mp.tflops = p->sustained.tflops;
    mp.mfmaUtilisation = p->sustained.mfmaUtilisation;
    mp.limiter = p->sustained.limiter;
    mp.targetHash = p->targetHash;
    mp.workgroups = int64_t(p->numWorkgroups);
    mp.workgroupsPerCu = p->occupancy;
    mp.allXcds = options.traceAllXcds;
    mp.gridEfficiency = gridEfficiency(mp.workgroups, target.numCus,
                                       mp.workgroupsPerCu, &mp.rounds);
    result.predictions.push_back(std::move(mp));
  }
  result.status = EvalStatus::Simulated;
  return result;
}

int tuner::runWorker(StringRef requestPath, StringRef resultPath) {
  auto buffer = MemoryBuffer::getFile(requestPath);
  if (!buffer) {
    errs() << "mxgemm-tune worker: cannot read " << requestPath << "\n";
    return 3;
  }
  Expected<EvalRequest> request = requestFromJson((*buffer)->getBuffer());
  if (!request) {
    errs() << "mxgemm-tune worker: " << toString(request.takeError()) << "\n";
    return 2;
  }
  EvalResult result = evaluate(*request);
  if (Error e = writeFile(resultPath, resultToJson(result))) {
    errs() << "mxgemm-tune worker: " << toString(std::move(e)) << "\n";
    return 3;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// The pool of worker processes
//===----------------------------------------------------------------------===//

std::vector<EvalResult> tuner::evaluateInWorkers(StringRef executable,
                                                 ArrayRef<EvalRequest> requests,
                                                 unsigned jobs,
                                                 StringRef workDir) {
  std::vector<EvalResult> results(requests.size());
  struct Running {
    size_t index;
    sys::ProcessInfo process;
    std::string requestPath, resultPath, logPath;
  };
  std::vector<Running> running;
  size_t next = 0;
  static uint64_t serial = 0; // unique file names over the tool's run
  auto finish = [&](Running &r, const sys::ProcessInfo &done,
                    const std::string &waitError) {
    EvalResult &out = results[r.index];
    auto text = MemoryBuffer::getFile(r.resultPath);
    if (done.ReturnCode == 0 && text) {
      if (Expected<EvalResult> parsed = resultFromJson((*text)->getBuffer()))
        out = std::move(*parsed);
      else
        out.message =
            "unreadable worker result: " + toString(parsed.takeError());
    } else {
      out.status = EvalStatus::WorkerFailed;
      std::string log;
      if (auto l = MemoryBuffer::getFile(r.logPath))
        log = (*l)->getBuffer().take_back(400).str();
      out.message = "worker exited with status " +
                    std::to_string(done.ReturnCode) +
                    (waitError.empty() ? "" : " (" + waitError + ")") +
                    (log.empty() ? "" : ": " + log);
    }
    sys::fs::remove(r.requestPath);
    sys::fs::remove(r.resultPath);
    sys::fs::remove(r.logPath);
  };
  while (next < requests.size() || !running.empty()) {
    while (next < requests.size() && running.size() < std::max(1u, jobs)) {
      Running r;
      r.index = next;
      std::string base = (workDir + "/eval-" + Twine(serial++)).str();
      r.requestPath = base + ".request.json";
      r.resultPath = base + ".result.json";
      r.logPath = base + ".log";
      if (Error e = writeFile(r.requestPath, requestToJson(requests[next]))) {
        results[next].message = toString(std::move(e));
        ++next;
        continue;
      }
      StringRef args[] = {executable, "--worker", r.requestPath, r.resultPath};
      std::optional<StringRef> redirects[] = {
          std::nullopt, StringRef(r.logPath), StringRef(r.logPath)};
      std::string error;
      bool failed = false;
      r.process = sys::ExecuteNoWait(executable, args, std::nullopt, redirects,
                                     0, &error, &failed);
      if (failed) {
        results[next].message = "cannot start a worker: " + error;
        ++next;
        continue;
      }
      running.push_back(std::move(r));
      ++next;
    }
    bool progressed = false;
    for (size_t i = 0; i < running.size();) {
      std::string error;
      sys::ProcessInfo done = sys::Wait(running[i].process, 0, &error);
      if (done.Pid == 0) { // still running
        ++i;
        continue;
      }
      finish(running[i], done, error);
      running.erase(running.begin() + i);
      progressed = true;
    }
    if (!progressed && !running.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return results;
}
