"""hyper_corr: Pearson, Spearman, Kendall, Chatterjee and Somers' D correlations (the automatic entry
points, with and without ties, sorted or not, and the jitted variants on presorted data)."""

import numpy as np
import hyper_corr

rng = np.random.default_rng(0)
x = rng.normal(size=60)
y = x * 0.5 + rng.normal(size=60)
tied_x = np.round(x)
tied_y = np.round(y)
order = np.argsort(x)
x_sorted, y_ordered = x[order], y[order]
tied_order = np.argsort(tied_x)
hyper_corr.pearsonr(x, y)
for correlation in (hyper_corr.spearmanr, hyper_corr.kendalltau, hyper_corr.chatterjeexi, hyper_corr.somersd):
    correlation(x, y)
    correlation(tied_x, tied_y)
    correlation(x_sorted, y_ordered, sorted_x=True)
hyper_corr.spearmanr_noties(x_sorted, y_ordered, 60)
hyper_corr.spearmanr_ties(tied_x[tied_order], tied_y[tied_order], 60)
hyper_corr.kendalltau_noties(x_sorted, y_ordered, 60)
hyper_corr.kendalltau_ties(tied_x[tied_order], tied_y[tied_order], 60, False)
print("hyper_corr ok")
