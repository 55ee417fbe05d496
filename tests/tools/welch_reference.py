#!/usr/bin/env python3
"""Reference values for tests/metrics/welch_test.cc, computed without Boost:
sample variances from `statistics`, the t tail from mpmath (python3-mpmath)."""
import statistics as st
import mpmath as mp
mp.mp.dps = 50
def welch(a, b):
    na, nb = len(a), len(b)
    va = mp.mpf(st.variance(a)) / na  # statistics.variance: n-1
    vb = mp.mpf(st.variance(b)) / nb
    t = (mp.mpf(st.fmean(b)) - mp.mpf(st.fmean(a))) / mp.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    # one-sided P(T >= t): the regularized incomplete beta
    x = df / (df + t * t)
    tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, x, regularized=True) / 2
    p = tail if t > 0 else 1 - tail
    return t, df, p
cases = {
 "wikipedia_A1_A2": ([27.5,21.0,19.0,23.6,17.0,17.9,16.9,20.1,21.9,22.6,23.1,19.6,19.0,21.7,21.4],
                     [27.1,22.0,20.8,23.4,23.4,23.5,25.8,22.0,24.8,20.2,21.9,22.1,22.9,20.5,24.4]),
 "unequal_sizes": ([1.0,1.2,0.9,1.1,1.05], [1.3,1.25,1.4,1.1,1.35,1.5,1.2,1.45,1.3]),
 "faster": ([2.0,2.2,2.1,1.9,2.05,2.15], [1.7,1.9,1.8,1.75]),
 "one_constant": ([3.0,3.0,3.0,3.0], [3.1,3.3,2.9,3.2,3.05]),
}
for k,(a,b) in cases.items():
    t,df,p = welch(a,b)
    print(k, mp.nstr(t,17), mp.nstr(df,17), mp.nstr(p,17))
