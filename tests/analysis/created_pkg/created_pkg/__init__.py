"""A small package whose jitted functions are made in each way Numba allows, not only by `@njit`
(tests/analysis/test_discovery_created.py): discovery must find them from what Numba creates."""
