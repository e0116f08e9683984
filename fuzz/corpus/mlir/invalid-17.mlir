#c = #mxgemm.config<stage_x = packed_registers>
