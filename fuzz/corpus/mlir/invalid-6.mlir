#c = #mxgemm.config<waves_m = 0>
