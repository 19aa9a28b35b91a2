"""A sampling profiler for programs that run Numba-jitted code: `python -m pyserver profile -- COMMAND`.

- `inproc`: runs inside the profiled process (loaded by `hook/sitecustomize.py`): measures the Python
  frame layout, times Numba compiles and copies each JIT object (ELF with DWARF line tables) to a file.
- `ptrace`, `pyframes`, `sampler`: the sampler, in the profiler's own process, stopping each running
  thread of the program for a few microseconds to read its registers, stack and Python frames.
- `jitmap`: native addresses of jitted code to (function, source line), from the copied JIT objects.
- `report`, `formats`: aggregation into the JSON contract, the text table and speedscope's file format.
"""

DEFAULT_RATE_HZ = 100.0  # samples per second per thread (the sampler imports NumPy; the CLI must not)
