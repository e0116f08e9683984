//===- ConfigChoice.cpp - which config a compile uses ---------------------===//

#include "mxgemm/Compiler/ConfigChoice.h"

#include "EmbeddedFiles.h"

#include "mxgemm/Dialect/MXGemm/IR/ConfigText.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/Support/MemoryBuffer.h"

#include <string_view>

using namespace mlir;
using namespace mxgemm;
namespace contract = ::mxgemm::contract;

namespace {
struct EmbeddedDatabase {
  contract::TuningDatabase database;
  contract::ErrorMessage error;
};

EmbeddedDatabase parseEmbedded() {
  EmbeddedDatabase out;
  for (size_t i = 0; i < compiler::kEmbeddedFileCount; ++i) {
    const EmbeddedFile &f = compiler::kEmbeddedFiles[i];
    if (std::string_view(f.name) != "tuning-database.json")
      continue;
    std::string_view text(reinterpret_cast<const char *>(f.data), f.size);
    if (contract::ErrorMessage e =
            contract::TuningDatabase::parse(text, out.database))
      out.error = "the embedded tuning database: " + *e;
    return out;
  }
  out.error = "the compiler has no embedded tuning database";
  return out;
}
} // namespace

const contract::TuningDatabase *
mxgemm::getEmbeddedTuningDatabase(contract::ErrorMessage *error) {
  // Parsed once per process (thread-safe static); the build checked it.
  static const EmbeddedDatabase embedded = parseEmbedded();
  if (embedded.error) {
    if (error)
      *error = embedded.error;
    return nullptr;
  }
  return &embedded.database;
}

contract::ErrorMessage mxgemm::readTuningDatabase(llvm::StringRef path,
                                                  contract::TuningDatabase &out,
                                                  bool *ioError) {
  if (ioError)
    *ioError = false;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    if (ioError)
      *ioError = true;
    return "cannot read " + path.str() + ": " + buffer.getError().message();
  }
  if (contract::ErrorMessage e =
          contract::TuningDatabase::parse((*buffer)->getBuffer(), out))
    return path.str() + ": " + *e;
  return std::nullopt;
}

FailureOr<contract::ConfigChoice>
mxgemm::chooseConfig(MLIRContext *ctx, const contract::GemmProblem &problem,
                     llvm::StringRef chip, const ConfigRequest &request,
                     llvm::function_ref<void(const llvm::Twine &)> error) {
  contract::ConfigChoice choice;
  llvm::StringRef text = request.text;
  text = text.trim();
  if (text == kConfigDefault) {
    choice.source = contract::ConfigSource::Default;
    choice.reason = "--config=default: the naive config";
    return choice;
  }
  if (!text.empty() && text != kConfigAuto) {
    FailureOr<contract::KernelConfig> parsed = parseConfigBody(ctx, text);
    if (failed(parsed))
      return failure();
    choice.config = *parsed;
    choice.source = contract::ConfigSource::Explicit;
    choice.reason = "the config given";
    return choice;
  }
  const target::TargetModel *target = target::findTargetModel(chip);
  if (!target) {
    error("unsupported chip '" + chip + "' (only gfx950 is supported)");
    return failure();
  }
  const contract::TuningDatabase *database = request.database;
  if (!database) {
    contract::ErrorMessage e;
    database = getEmbeddedTuningDatabase(&e);
    if (!database) {
      error(*e);
      return failure();
    }
  }
  if (contract::ErrorMessage e = contract::selectConfig(
          problem, request.mHint, database, *target, choice)) {
    error(*e);
    return failure();
  }
  return choice;
}
