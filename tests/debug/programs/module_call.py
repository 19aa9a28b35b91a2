"""Step into a jitted function called as a module attribute (test_dap_session.py)."""

import mixed
import numpy as np


def main():
    a = np.arange(1.0, 7.0)
    result = mixed.walk(a, 2)
    return result


if __name__ == "__main__":
    main()
