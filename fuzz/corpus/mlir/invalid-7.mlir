#c = #mxgemm.config<waves_m = 4611686018427387904, waves_n = 4>
