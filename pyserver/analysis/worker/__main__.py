"""`python -m pyserver.analysis.worker`: the analysis worker process."""

import sys

from pyserver.analysis.worker.main import main

sys.exit(main(sys.argv[1:]))
