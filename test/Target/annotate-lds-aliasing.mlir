// RUN: mxgemm-opt %s --pass-pipeline='builtin.module(gpu.module(mxgemm-annotate-lds-aliasing))' --split-input-file | FileCheck %s

// Copies into LDS get the copies' scope; LDS loads their own scope and
// noalias to the copies; global loads are left alone.
// CHECK-DAG: #[[DOMAIN:.+]] = #llvm.alias_scope_domain<id = {{.+}}, description = "mxgemm.lds">
// CHECK-DAG: #[[COPIES:.+]] = #llvm.alias_scope<id = {{.+}}, domain = #[[DOMAIN]], description = "mxgemm.lds.copies">
// CHECK-DAG: #[[READS:.+]] = #llvm.alias_scope<id = {{.+}}, domain = #[[DOMAIN]], description = "mxgemm.lds.reads">
// CHECK-LABEL: llvm.func @staged
// CHECK: rocdl.load.to.lds {{.*}}alias_scopes = [#[[COPIES]]]
// CHECK: llvm.load %{{.+}} {alias_scopes = [#[[READS]]], {{.*}}noalias_scopes = [#[[COPIES]]]} : !llvm.ptr<3>
// CHECK: llvm.load %{{[a-z0-9]+}} : !llvm.ptr<1>
gpu.module @kernels {
  llvm.func @staged(%g: !llvm.ptr<1>, %l: !llvm.ptr<3>) -> vector<16xi8> {
    rocdl.load.to.lds %g, %l, 16, 0, 0 : !llvm.ptr<1>
    %v = llvm.load %l {alignment = 16 : i64} : !llvm.ptr<3> -> vector<16xi8>
    %w = llvm.load %g : !llvm.ptr<1> -> vector<16xi8>
    %s = llvm.add %v, %w : vector<16xi8>
    llvm.return %s : vector<16xi8>
  }
}

// -----

// Without copies there is nothing to tell apart: no metadata.
// CHECK-LABEL: llvm.func @no_copies
// CHECK-NOT: alias_scopes
gpu.module @kernels {
  llvm.func @no_copies(%l: !llvm.ptr<3>) -> vector<16xi8> {
    %v = llvm.load %l : !llvm.ptr<3> -> vector<16xi8>
    llvm.return %v : vector<16xi8>
  }
}
