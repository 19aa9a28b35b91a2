"""Step into a jitted function imported from another module (test_dap_session.py)."""

import numpy as np
from mixed import walk


def main():
    a = np.arange(1.0, 7.0)
    result = walk(a, 3)
    print("imported:", result)
    return result


if __name__ == "__main__":
    main()
