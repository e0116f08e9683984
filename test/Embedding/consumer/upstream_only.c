/*===- upstream_only.c - a consumer that never writes mxgemm IR ----------===*
 *
 * What an IREE- or torch-mlir-style compiler does: its module holds only
 * upstream ops (func, arith, tensor, linalg) for an MX linear layer,
 * Y = bf16(X . W^T) with arith.scaling_extf operands whose E8M0 scales are
 * broadcast along K in blocks of 32 (per row for X, per 32x32 block for W).
 * It registers mxgemm's passes through the C API, runs
 * mxgemm-raise-scaled-contractions and one-shot bufferization in its own
 * pass manager, and hands the module to mxgemmCompile (mxgemm-to-gfx950 and
 * serialisation) for a gfx950 code object and its sidecar.
 *
 *   upstream-only OUT.hsaco    writes OUT.hsaco and OUT.hsaco.json
 *
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

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s (%s:%d)\n", what, __FILE__, __LINE__);       \
      exit(1);                                                                 \
    }                                                                          \
    printf("ok: %s\n", what);                                                  \
  } while (0)

/* N = 256, K = 256 (8 scale columns, 8 weight-scale block rows); M is
   dynamic. Only upstream dialects. */
static const char *kModule =
    "#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>\n"
    "#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>\n"
    "#id = affine_map<(i, j) -> (i, j)>\n"
    "#mA = affine_map<(m, n, k) -> (m, k)>\n"
    "#mB = affine_map<(m, n, k) -> (n, k)>\n"
    "#mC = affine_map<(m, n, k) -> (m, n)>\n"
    "func.func @upstream_linear(%x: tensor<?x256xf8E4M3FN>,\n"
    "    %xs: tensor<?x8xf8E8M0FNU>, %w: tensor<256x256xf8E4M3FN>,\n"
    "    %ws: tensor<8x8xf8E8M0FNU>, %y: tensor<?x256xbf16>)\n"
    "    -> tensor<?x256xbf16> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %m = tensor.dim %x, %c0 : tensor<?x256xf8E4M3FN>\n"
    "  %xe = tensor.empty(%m) : tensor<?x256xf8E8M0FNU>\n"
    "  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%xs : tensor<?x8xf8E8M0FNU>)\n"
    "      outs(%xe : tensor<?x256xf8E8M0FNU>) {\n"
    "  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):\n"
    "    linalg.yield %s : f8E8M0FNU\n"
    "  } -> tensor<?x256xf8E8M0FNU>\n"
    "  %we = tensor.empty() : tensor<256x256xf8E8M0FNU>\n"
    "  %wsb = linalg.generic {indexing_maps = [#bcast_blk, #id],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%ws : tensor<8x8xf8E8M0FNU>)\n"
    "      outs(%we : tensor<256x256xf8E8M0FNU>) {\n"
    "  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):\n"
    "    linalg.yield %s : f8E8M0FNU\n"
    "  } -> tensor<256x256xf8E8M0FNU>\n"
    "  %xf = arith.scaling_extf %x, %xsb : tensor<?x256xf8E4M3FN>,\n"
    "      tensor<?x256xf8E8M0FNU> to tensor<?x256xf32>\n"
    "  %wf = arith.scaling_extf %w, %wsb : tensor<256x256xf8E4M3FN>,\n"
    "      tensor<256x256xf8E8M0FNU> to tensor<256x256xf32>\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %ae = tensor.empty(%m) : tensor<?x256xf32>\n"
    "  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x256xf32>)\n"
    "      -> tensor<?x256xf32>\n"
    "  %r = linalg.matmul indexing_maps = [#mA, #mB, #mC]\n"
    "      ins(%xf, %wf : tensor<?x256xf32>, tensor<256x256xf32>)\n"
    "      outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>\n"
    "  %t = linalg.generic {indexing_maps = [#id, #id],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%r : tensor<?x256xf32>) outs(%y : tensor<?x256xbf16>) {\n"
    "  ^bb0(%a: f32, %o: bf16):\n"
    "    %v = arith.truncf %a : f32 to bf16\n"
    "    linalg.yield %v : bf16\n"
    "  } -> tensor<?x256xbf16>\n"
    "  return %t : tensor<?x256xbf16>\n"
    "}\n";

/* The embedder's tensor-level pipeline with mxgemm's pass in it. The
   function boundary bufferizes to identity layouts: the kernel ABI takes
   contiguous row-major operands. */
static const char *kPipeline =
    "builtin.module(func.func(mxgemm-raise-scaled-contractions),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map})";

static void printToStderr(MlirStringRef piece, void *userData) {
  (void)userData;
  fwrite(piece.data, 1, piece.length, stderr);
}

/* Prints every diagnostic (remarks of the raising pass included) to stderr,
   as an embedder would forward them to its own reporting, and counts the
   errors. */
static MlirLogicalResult onDiagnostic(MlirDiagnostic diagnostic,
                                      void *userData) {
  int *errors = (int *)userData;
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++*errors;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

/* Appends printed IR to a growing buffer. */
static void appendText(MlirStringRef piece, void *userData) {
  char **text = (char **)userData;
  size_t old = *text ? strlen(*text) : 0;
  char *grown = (char *)realloc(*text, old + piece.length + 1);
  if (!grown)
    exit(1);
  memcpy(grown + old, piece.data, piece.length);
  grown[old + piece.length] = '\0';
  *text = grown;
}

static int writeFile(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: upstream-only OUT.hsaco\n");
    return 2;
  }
  MlirContext ctx = mlirContextCreate();
  int errors = 0;
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &errors, NULL);

  /* The registry of the pipeline (upstream dialects and their
     bufferization models included) and mxgemm's passes. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mxgemmRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mxgemmRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  CHECK(!mlirModuleIsNull(module), "upstream-only module parses");
  char *before = NULL;
  mlirOperationPrint(mlirModuleGetOperation(module), appendText, &before);
  CHECK(before && strstr(before, "mxgemm") == NULL,
        "the module has no mxgemm op or attribute");
  free(before);

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(kPipeline), printToStderr, NULL);
  CHECK(mlirLogicalResultIsSuccess(parsed),
        "raise + one-shot-bufferize pipeline parses");
  CHECK(mlirLogicalResultIsSuccess(
            mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))),
        "raise + one-shot-bufferize runs");
  mlirPassManagerDestroy(pm);

  char *after = NULL;
  mlirOperationPrint(mlirModuleGetOperation(module), appendText, &after);
  CHECK(after && strstr(after, "mxgemm.scaled_matmul ") != NULL &&
            strstr(after, "linalg.") == NULL,
        "the contraction became mxgemm.scaled_matmul, no linalg left");
  free(after);

  MxgemmCompileResult result = mxgemmCompile(module, NULL);
  CHECK(!mxgemmCompileResultIsNull(result) && errors == 0,
        "mxgemm-to-gfx950 compiles");
  const void *code = NULL;
  size_t codeBytes = 0;
  mxgemmCompileResultGetCodeObject(result, &code, &codeBytes);
  CHECK(codeBytes > 4 && memcmp(code,
                                "\x7f"
                                "ELF",
                                4) == 0,
        "code object starts with the ELF magic");
  MlirStringRef json = mxgemmCompileResultGetMetadataJSON(result);
  CHECK(strstr(json.data, "\"kernel\": \"upstream_linear\"") != NULL,
        "metadata JSON names the kernel");

  size_t pathLength = strlen(argv[1]);
  char *jsonPath = (char *)malloc(pathLength + sizeof(".json"));
  if (!jsonPath)
    return 1;
  memcpy(jsonPath, argv[1], pathLength);
  memcpy(jsonPath + pathLength, ".json", sizeof(".json"));
  CHECK(writeFile(argv[1], code, codeBytes) &&
            writeFile(jsonPath, json.data, json.length),
        "code object and sidecar written");
  free(jsonPath);
  printf("code object: %zu bytes\n", codeBytes);

  mxgemmCompileResultDestroy(result);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  printf("upstream-only: all checks passed\n");
  return 0;
}
