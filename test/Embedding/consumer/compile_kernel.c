/*===- compile_kernel.c - embed the mxgemm compiler through its C API -----===*
 *
 * What a graph compiler does with mxgemm: create its own MlirContext, make
 * the mxgemm dialect known to it, build one problem, run mxgemm-to-gfx950
 * and take the code object and the sidecar. Also checks that every failure
 * comes back as a diagnostic and a null result (the process survives).
 * Prints one line per check; exits non-zero on the first failed one.
 *
 *===----------------------------------------------------------------------===*/

#include "mxgemm-c/Compiler.h"
#include "mxgemm-c/Dialects.h"
#include "mxgemm-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s (%s:%d)\n", what, __FILE__, __LINE__);       \
      exit(1);                                                                 \
    }                                                                          \
    printf("ok: %s\n", what);                                                  \
  } while (0)

/* Collects the diagnostics of the context, as an embedding compiler would
   forward them to its own error reporting. */
typedef struct Diagnostics {
  char text[4096];
  size_t length;
  int errors;
} Diagnostics;

static void appendText(MlirStringRef piece, void *userData) {
  Diagnostics *d = (Diagnostics *)userData;
  size_t room = sizeof(d->text) - 1 - d->length;
  size_t n = piece.length < room ? piece.length : room;
  memcpy(d->text + d->length, piece.data, n);
  d->length += n;
  d->text[d->length] = '\0';
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic diagnostic,
                                      void *userData) {
  Diagnostics *d = (Diagnostics *)userData;
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++d->errors;
  mlirDiagnosticPrint(diagnostic, appendText, userData);
  appendText(mlirStringRefCreateFromCString("\n"), userData);
  return mlirLogicalResultSuccess();
}

static void resetDiagnostics(Diagnostics *d) {
  d->length = 0;
  d->text[0] = '\0';
  d->errors = 0;
}

static void appendSource(MlirStringRef piece, void *userData) {
  size_t *bytes = (size_t *)userData;
  *bytes += piece.length;
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  Diagnostics diagnostics;
  resetDiagnostics(&diagnostics);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diagnostics, NULL);

  /* Register through the dialect handle only: it brings the upstream
     dialects and extensions of the pipeline with it. */
  MlirDialectHandle handle = mlirGetDialectHandle__mxgemm__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  CHECK(ns.length == 6 && memcmp(ns.data, "mxgemm", 6) == 0,
        "dialect handle namespace is mxgemm");
  mlirDialectHandleRegisterDialect(handle, ctx);
  CHECK(!mlirDialectIsNull(mlirDialectHandleLoadDialect(handle, ctx)),
        "mxgemm dialect loads into the caller's context");
  mxgemmRegisterPasses();
  mxgemmRegisterPasses(); /* idempotent */

  MxgemmProblemSpec spec;
  mxgemmProblemSpecInit(&spec, 512, 256);
  spec.name = mlirStringRefCreateFromCString("consumer_gemm");
  size_t sourceBytes = 0;
  CHECK(mlirLogicalResultIsSuccess(
            mxgemmProblemPrintSource(&spec, appendSource, &sourceBytes)) &&
            sourceBytes > 0,
        "problem source prints");

  MlirModule module = mxgemmProblemBuild(ctx, &spec);
  CHECK(!mlirModuleIsNull(module), "problem builds and verifies");
  CHECK(diagnostics.errors == 0, "no diagnostics for a valid problem");

  MxgemmCompileOptions options;
  mxgemmCompileOptionsInit(&options);
  MxgemmCompileResult result = mxgemmCompile(module, &options);
  if (mxgemmCompileResultIsNull(result))
    fprintf(stderr, "%s", diagnostics.text);
  CHECK(!mxgemmCompileResultIsNull(result), "mxgemm-to-gfx950 compiles");

  const void *code = NULL;
  size_t codeBytes = 0;
  mxgemmCompileResultGetCodeObject(result, &code, &codeBytes);
  CHECK(codeBytes > 4 && memcmp(code, kElfMagic, 4) == 0,
        "code object starts with the ELF magic");
  MlirStringRef json = mxgemmCompileResultGetMetadataJSON(result);
  CHECK(json.length > 0 &&
            strstr(json.data, "\"kernel\": \"consumer_gemm\"") != NULL,
        "metadata JSON names the kernel");
  CHECK(strstr(json.data, "\"target\": \"amdgcn-amd-amdhsa--gfx950\"") != NULL,
        "metadata JSON names the gfx950 target");
  printf("code object: %zu bytes\n", codeBytes);
  mxgemmCompileResultDestroy(result);
  mlirModuleDestroy(module);

  /* The pipeline in the caller's own pass manager. */
  module = mxgemmProblemBuild(ctx, &spec);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mxgemmAddToGFX950Pipeline(mlirPassManagerGetAsOpPassManager(pm),
                            mlirStringRefCreateFromCString("gfx950"), 3);
  CHECK(mlirLogicalResultIsSuccess(
            mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))),
        "pipeline runs in the caller's pass manager");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* Failures: diagnostics and null results, never an abort. */
  resetDiagnostics(&diagnostics);
  spec.config = mlirStringRefCreateFromCString(
      "tile_m = 100, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2");
  CHECK(mlirModuleIsNull(mxgemmProblemBuild(ctx, &spec)) &&
            diagnostics.errors > 0,
        "an invalid config is a diagnostic and a null module");
  printf("diagnostic: %s", diagnostics.text);

  /* Issue 13's overflow: waves_m * waves_n wrapped to 0 and the verifier
     divided by it (SIGFPE). */
  resetDiagnostics(&diagnostics);
  mxgemmProblemSpecInit(&spec, 128, 128);
  spec.config = mlirStringRefCreateFromCString(
      "waves_m = 4611686018427387904, waves_n = 4");
  CHECK(mlirModuleIsNull(mxgemmProblemBuild(ctx, &spec)) &&
            strstr(diagnostics.text, "waves_m and waves_n must be in") != NULL,
        "a config whose products would wrap is a diagnostic");

  resetDiagnostics(&diagnostics);
  mxgemmProblemSpecInit(&spec, 512, 100);
  CHECK(mlirModuleIsNull(mxgemmProblemBuild(ctx, &spec)) &&
            strstr(diagnostics.text, "multiple of 32") != NULL,
        "K not a multiple of 32 is a diagnostic");

  /* The compiler's choice (API version 2): the embedded database's wq_b
     for its key at M = 16384, the naive config on request, and no config
     for N = 1000 until edge masking lands. */
  CHECK(mxgemmCompilerGetAPIVersion() == MXGEMM_C_COMPILER_API_VERSION &&
            MXGEMM_C_COMPILER_API_VERSION == 2,
        "compiler C API version 2");
  resetDiagnostics(&diagnostics);
  MxgemmConfigOptions choose;
  mxgemmConfigOptionsInit(&choose);
  choose.mHint = 16384;
  mxgemmProblemSpecInit(&spec, 16384, 1280);
  CHECK(mlirLogicalResultIsSuccess(mxgemmProblemChooseConfig(
            ctx, &spec, &choose, appendText, &diagnostics)) &&
            strstr(diagnostics.text, "\"config_source\": \"database:wq_b\"") !=
                NULL &&
            strstr(diagnostics.text, "schedule = pingpong") != NULL,
        "auto config at M = 16384 is the database's wq_b");
  resetDiagnostics(&diagnostics);
  spec.config = mlirStringRefCreateFromCString("default");
  CHECK(mlirLogicalResultIsSuccess(mxgemmProblemChooseConfig(
            ctx, &spec, &choose, appendText, &diagnostics)) &&
            strstr(diagnostics.text, "\"config_source\": \"default\"") != NULL,
        "config = default is the naive config");
  resetDiagnostics(&diagnostics);
  mxgemmProblemSpecInit(&spec, 256, 256);
  choose.mHint = 4;
  module = mxgemmProblemBuildWithOptions(ctx, &spec, &choose);
  CHECK(!mlirModuleIsNull(module), "auto config builds with an M hint");
  result = mxgemmCompile(module, NULL);
  CHECK(!mxgemmCompileResultIsNull(result) &&
            strstr(mxgemmCompileResultGetMetadataJSON(result).data,
                   "\"config_source\": \"heuristic:decode\"") != NULL,
        "the descriptor records the heuristic rule");
  mxgemmCompileResultDestroy(result);
  mlirModuleDestroy(module);
  resetDiagnostics(&diagnostics);
  mxgemmProblemSpecInit(&spec, 1000, 992);
  module = mxgemmProblemBuildWithOptions(ctx, &spec, NULL);
  CHECK(!mlirModuleIsNull(module),
        "N = 1000, K = 992 get the naive kernel, which masks both edges");
  mlirModuleDestroy(module);
  resetDiagnostics(&diagnostics);
  choose.tuningDatabase =
      mlirStringRefCreateFromCString("/nonexistent/tuning.json");
  mxgemmProblemSpecInit(&spec, 256, 256);
  CHECK(mlirModuleIsNull(mxgemmProblemBuildWithOptions(ctx, &spec, &choose)) &&
            strstr(diagnostics.text, "cannot read /nonexistent/tuning.json") !=
                NULL,
        "an unreadable tuning database is a diagnostic");

  resetDiagnostics(&diagnostics);
  module = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
  result = mxgemmCompile(module, NULL);
  CHECK(mxgemmCompileResultIsNull(result) &&
            strstr(diagnostics.text, "no mxgemm.scaled_matmul") != NULL,
        "compiling a module without a problem is a diagnostic");
  mxgemmCompileResultDestroy(result); /* null: no-op */
  mlirModuleDestroy(module);

  mlirContextDestroy(ctx);
  printf("compile-kernel: all checks passed\n");
  return 0;
}
