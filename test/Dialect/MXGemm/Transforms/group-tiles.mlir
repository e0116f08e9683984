// RUN: mxgemm-opt %s --mxgemm-group-tiles --split-input-file | FileCheck %s

// Row-major: (pid / tiles_n, pid % tiles_n).
// CHECK-LABEL: func.func @row_major
// CHECK-SAME: (%[[PID:.+]]: index, %[[TM:.+]]: index)
// CHECK: %[[TN:.+]] = arith.constant 40 : index
// CHECK: %[[M:.+]] = arith.divui %[[PID]], %[[TN]]
// CHECK: %[[N:.+]] = arith.remui %[[PID]], %[[TN]]
// CHECK: return %[[M]], %[[N]]
// CHECK-NOT: mxgemm.program_tile
func.func @row_major(%pid: index, %tm: index) -> (index, index) {
  %m, %n = mxgemm.program_tile %pid, %tm
      {num_tiles_n = 40 : i64, group_m = 1 : i64, group_n = 0 : i64,
       xcd_remap = false, num_xcds = 8 : i64}
  return %m, %n : index, index
}

// -----

// 4M x 8N groups: bands of 4 rows x 40 tiles, ragged height
// min(4, tiles_m - first_row), M fastest inside a group.
// CHECK-LABEL: func.func @groups_4x8
// CHECK-SAME: (%[[PID:.+]]: index, %[[TM:.+]]: index)
// CHECK: %[[BANDT:.+]] = arith.constant 160 : index
// CHECK: %[[BAND:.+]] = arith.divui %[[PID]], %[[BANDT]]
// CHECK: %[[INB:.+]] = arith.remui %[[PID]], %[[BANDT]]
// CHECK: %[[FIRST:.+]] = arith.muli %[[BAND]], %{{.+}}
// CHECK: %[[LEFT:.+]] = arith.subi %[[TM]], %[[FIRST]]
// CHECK: %[[H:.+]] = arith.minui %{{.+}}, %[[LEFT]]
// CHECK: %[[GT:.+]] = arith.muli %[[H]], %{{.+}}
// CHECK: %[[GCOL:.+]] = arith.divui %[[INB]], %[[GT]]
// CHECK: %[[ING:.+]] = arith.remui %[[INB]], %[[GT]]
// CHECK: %[[MOFF:.+]] = arith.remui %[[ING]], %[[H]]
// CHECK: %[[M:.+]] = arith.addi %[[FIRST]], %[[MOFF]]
// CHECK: %[[NBASE:.+]] = arith.muli %[[GCOL]], %{{.+}}
// CHECK: %[[NOFF:.+]] = arith.divui %[[ING]], %[[H]]
// CHECK: %[[N:.+]] = arith.addi %[[NBASE]], %[[NOFF]]
// CHECK: return %[[M]], %[[N]]
func.func @groups_4x8(%pid: index, %tm: index) -> (index, index) {
  %m, %n = mxgemm.program_tile %pid, %tm
      {num_tiles_n = 40 : i64, group_m = 4 : i64, group_n = 8 : i64,
       xcd_remap = false, num_xcds = 8 : i64}
  return %m, %n : index, index
}

// -----

// XCD remap before row-major order: xcd = pid % 8, local = pid / 8.
// CHECK-LABEL: func.func @xcd_remap
// CHECK-SAME: (%[[PID:.+]]: index, %[[TM:.+]]: index)
// CHECK: %[[NP:.+]] = arith.muli %[[TM]], %{{.+}}
// CHECK: %[[XCD:.+]] = arith.remui %[[PID]], %c8
// CHECK: %[[LOCAL:.+]] = arith.divui %[[PID]], %c8
// CHECK: %[[TALL:.+]] = arith.cmpi ult, %[[XCD]], %{{.+}}
// CHECK: %[[LOGICAL:.+]] = arith.select %[[TALL]]
// CHECK: arith.divui %[[LOGICAL]], %{{.+}}
// CHECK: arith.remui %[[LOGICAL]], %{{.+}}
func.func @xcd_remap(%pid: index, %tm: index) -> (index, index) {
  %m, %n = mxgemm.program_tile %pid, %tm
      {num_tiles_n = 40 : i64, group_m = 1 : i64, group_n = 0 : i64,
       xcd_remap = true, num_xcds = 8 : i64}
  return %m, %n : index, index
}
