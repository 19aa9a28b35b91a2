"""stumpy: matrix profiles of a random walk (stump, mass, motifs, snippets-free parts)."""

import numpy as np
import stumpy

rng = np.random.default_rng(0)
series = np.cumsum(rng.standard_normal(400))
profile = stumpy.stump(series, m=20)
stumpy.mass(series[:20], series)
stumpy.motifs(series, profile[:, 0], max_motifs=1)
stumpy.match(series[:20], series, max_matches=2)
other = np.cumsum(rng.standard_normal(300))
stumpy.stump(series, m=20, T_B=other, ignore_trivial=False)
stumpy.aamp(series, m=20)
stumpy.fluss(profile[:, 1].astype(np.int64), L=20, n_regimes=2)
print("stumpy", profile.shape)
