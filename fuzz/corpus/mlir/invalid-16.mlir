#c = #mxgemm.config<group_m = 0>
