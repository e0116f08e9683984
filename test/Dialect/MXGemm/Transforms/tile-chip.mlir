// RUN: not mxgemm-opt %s --mxgemm-tile=chip=gfx942 2>&1 | FileCheck %s
// CHECK: error: mxgemm-tile: unsupported chip 'gfx942' (only gfx950 is supported)
module {}
