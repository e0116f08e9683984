#c = #mxgemm.config<group_m = 4611686018427387904, group_n = 2>
