"""``python -m train GAME``: self-play MaskablePPO on one game (``--help`` explains it all).

The command line itself is :mod:`train.cli`; this entry point first limits the BLAS thread
pools to one thread, before numpy loads: numpy's OpenBLAS would otherwise start a thread per
core for the opponents' small matrix products, which on the busy 2-core reference machine
made them 20 times slower (measured: 1.7 ms against 0.07 ms for a 32x743 by 743x128 product).
"""

import os
import sys

for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

from train.cli import main  # noqa: E402 (after the thread settings above)

sys.exit(main())
