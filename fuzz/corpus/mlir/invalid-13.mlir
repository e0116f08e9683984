#c = #mxgemm.config<waves_m = 4, split = 2>
