//===- Evaluator.h - compile and simulate one candidate ---------*- C++ -*-===//
//
// One evaluation compiles a config in-process (KernelCompiler), rejects a
// kernel that spills or needs scratch, and predicts its time at each M with
// the timing simulator. Evaluations run in worker processes, `jobs` at a
// time: lld's driver resets LLVM's global options on every link, so two
// compilations cannot share a process, and a worker that crashes on one
// config costs that config only. Requests and results travel as JSON files;
// every figure in them is a PREDICTION of mxgemm-sim.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_EVALUATOR_H
#define MXGEMM_TUNER_EVALUATOR_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::tuner {

/// How closely to simulate. Screening traces XCD 0 only (the other XCDs'
/// MALL traffic taken equal: pessimistic, several times faster); a full
/// simulation is what `mxgemm-sim --m M` predicts. Both at the sustained
/// clock only.
enum class SimMode : uint8_t { Screen = 0, Full = 1 };

struct EvalRequest {
  EvalRequest() = default;
  EvalRequest(const contract::GemmProblem &problem,
              const contract::KernelConfig &config, std::vector<int64_t> ms,
              SimMode mode)
      : problem(problem), config(config), ms(std::move(ms)), mode(mode) {}

  contract::GemmProblem problem;
  contract::KernelConfig config;
  std::vector<int64_t> ms;
  SimMode mode = SimMode::Screen;
  /// Kernel symbol (default "mxgemm_tune").
  std::string kernelName = "mxgemm_tune";
  /// When set, the code object is written here and its descriptor beside
  /// it (`<path>.json`), as mxgemm-compile writes them.
  std::string exportPath;
  /// SHA-256 of code objects already simulated: a config that compiles to
  /// one of them (a knob the compiler ignores here) is not simulated again.
  std::vector<std::string> knownCodeObjects;
};

/// The simulator's prediction at one M.
struct MPrediction {
  int64_t m = 0;
  double timeUs = 0, tflops = 0, mfmaUtilisation = 0;
  std::string limiter, targetHash;
  int64_t workgroups = 0, workgroupsPerCu = 0, rounds = 0;
  /// workgroups / (rounds x CUs x workgroups per CU).
  double gridEfficiency = 0;
  /// Every XCD traced (SimMode::Full), or XCD 0 only.
  bool allXcds = false;
};

enum class EvalStatus : uint8_t {
  Simulated = 0,
  CompileFailed = 1, // the compiler rejected or failed on the config
  Spills = 2,        // registers spilled or scratch used: not simulated
  SimulationFailed = 3,
  WorkerFailed = 4, // the worker process crashed or wrote no result
  Duplicate = 5,    // same code object as an earlier candidate
};
const char *evalStatusName(EvalStatus status);

struct EvalResult {
  EvalStatus status = EvalStatus::WorkerFailed;
  std::string message;
  int64_t vgprCount = 0, agprCount = 0, vgprSpills = 0, sgprSpills = 0;
  int64_t scratchBytes = 0, ldsBytes = 0;
  std::string codeObjectSha256;
  std::vector<MPrediction> predictions; // in request order
  /// Total of the predicted times (the ranking score of a set of Ms).
  double totalTimeUs() const;
};

std::string requestToJson(const EvalRequest &request);
llvm::Expected<EvalRequest> requestFromJson(llvm::StringRef text);
std::string resultToJson(const EvalResult &result);
llvm::Expected<EvalResult> resultFromJson(llvm::StringRef text);

/// Grid efficiency of `workgroups` on `cus` CUs holding `perCu` each.
double gridEfficiency(int64_t workgroups, int64_t cus, int64_t perCu,
                      int64_t *rounds = nullptr);

/// Runs `request` in this process: the worker's body.
EvalResult evaluate(const EvalRequest &request);

/// Runs `requests` in worker processes (`executable --worker REQ RESULT`),
/// at most `jobs` at a time, files under `workDir`; results in request
/// order, independent of which worker finished first.
std::vector<EvalResult> evaluateInWorkers(llvm::StringRef executable,
                                          llvm::ArrayRef<EvalRequest> requests,
                                          unsigned jobs,
                                          llvm::StringRef workDir);

/// The worker's main: reads the request file, writes the result file.
/// Returns the process exit status.
int runWorker(llvm::StringRef requestPath, llvm::StringRef resultPath);

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_EVALUATOR_H
