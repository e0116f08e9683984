#c = #mxgemm.config<waves_per_eu = 9>
