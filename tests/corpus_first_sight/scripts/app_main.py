import kernels_lib
import numpy as np
from kernels_lib import moving_average


def main():
    prices = 100.0 + np.cumsum(np.random.randn(200))
    smooth = moving_average(prices, 10)
    kernels_lib.clip_inplace(smooth, 95.0, 105.0)
    print(smooth[:3])


if __name__ == "__main__":
    main()
