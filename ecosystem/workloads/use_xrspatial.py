"""xarray-spatial: terrain analysis (slope, aspect, curvature, hillshade), focal and zonal statistics,
classification, proximity, viewshed and multispectral indices on small synthetic rasters (NumPy
backend; its CUDA kernels need a GPU and are not run)."""

import numpy as np
import xarray as xr
import xrspatial
from xrspatial import classify, focal, multispectral, zonal
from xrspatial.convolution import circle_kernel

rng = np.random.default_rng(0)
ys, xs = np.mgrid[0:24, 0:24]
height = np.sin(xs / 4.0) * np.cos(ys / 5.0) * 40.0 + rng.random((24, 24))
terrain = xr.DataArray(height, dims=["y", "x"], coords={"y": np.arange(24.0), "x": np.arange(24.0)})
xrspatial.slope(terrain)
xrspatial.aspect(terrain)
xrspatial.curvature(terrain)
xrspatial.hillshade(terrain)
xrspatial.generate_terrain(xr.DataArray(np.zeros((16, 16)), dims=["y", "x"]), seed=3)
focal.mean(terrain)
focal.apply(terrain, circle_kernel(1, 1, 2))
focal.focal_stats(terrain, circle_kernel(1, 1, 1), stats_funcs=["mean", "max", "std"])
zones = xr.DataArray((xs // 8 + (ys // 8) * 3).astype(np.int64), dims=["y", "x"])
zonal.stats(zones, terrain)
zonal.crosstab(zones, (terrain > 0).astype(np.int64))
classify.equal_interval(terrain, k=4)
classify.natural_breaks(terrain, k=3)
classify.binary(terrain, [1, 2, 3])
sources = xr.DataArray(
    np.where(rng.random((24, 24)) > 0.97, 1.0, 0.0),
    dims=["y", "x"],
    coords={"y": np.arange(24.0), "x": np.arange(24.0)},
)
xrspatial.proximity(sources)
xrspatial.allocation(sources)
xrspatial.viewshed(terrain, x=10.0, y=12.0, observer_elev=5)
red = xr.DataArray(rng.random((12, 12)), dims=["y", "x"])
nir = xr.DataArray(rng.random((12, 12)), dims=["y", "x"])
multispectral.ndvi(nir, red)
multispectral.savi(nir, red)
multispectral.evi(nir, red, red * 0.5)
print("xrspatial ok")
