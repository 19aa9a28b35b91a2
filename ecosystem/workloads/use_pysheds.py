"""pysheds: a watershed delineation over a synthetic elevation model (pits, depressions, flats, flow
directions in D8, D-infinity and MFD routing, accumulation, catchment, river network, stream order, HAND,
cell slopes and distances). Left out: distance_to_outlet, which crashes the process (a segmentation fault) on
this model, and distance_to_ridge, which fails on it."""

import numpy as np

if not hasattr(np, "in1d"):  # removed in NumPy 2.4; pysheds 0.5 still calls it from Python
    np.in1d = np.isin
from affine import Affine
from pysheds.grid import Grid
from pysheds.sview import Raster, ViewFinder

n = 60
y, x = np.mgrid[0:n, 0:n]
rng = np.random.default_rng(0)
elevation = (100.0 + 0.5 * x + 0.3 * np.abs(y - n / 2) + rng.random((n, n))).astype(np.float64)
elevation[20:23, 20:23] -= 3.0
view = ViewFinder(affine=Affine(1.0, 0.0, 0.0, 0.0, -1.0, float(n)), shape=(n, n), nodata=np.nan)
dem = Raster(elevation, viewfinder=view)
grid = Grid.from_raster(dem)
grid.detect_pits(dem)
pit_filled = grid.fill_pits(dem)
flooded = grid.fill_depressions(pit_filled)
grid.detect_flats(flooded)
inflated = grid.resolve_flats(flooded)
for routing in ["d8", "dinf", "mfd"]:
    fdir = grid.flowdir(inflated, routing=routing)
    acc = grid.accumulation(fdir, routing=routing)
    row, col = np.unravel_index(int(np.argmax(acc)), acc.shape)
    grid.catchment(x=col, y=row, fdir=fdir, routing=routing, xytype="index")
    grid.compute_hand(fdir, inflated, acc > 50, routing=routing)
fdir = grid.flowdir(inflated)
acc = grid.accumulation(fdir)
grid.extract_river_network(fdir, acc > 50)
grid.stream_order(fdir, acc > 50)
grid.cell_dh(inflated, fdir)
grid.cell_distances(fdir)
grid.cell_slopes(inflated, fdir)
print("pysheds ok")
