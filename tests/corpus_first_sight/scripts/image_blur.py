import numpy as np
from numba import njit


@njit
def box_blur(image, radius):
    h, w = image.shape
    out = np.empty_like(image)
    for y in range(h):
        for x in range(w):
            acc = 0.0
            count = 0
            for dy in range(-radius, radius + 1):
                for dx in range(-radius, radius + 1):
                    yy, xx = y + dy, x + dx
                    if 0 <= yy < h and 0 <= xx < w:
                        acc += image[yy, xx]
                        count += 1
            out[y, x] = acc / count
    return out


def load_image():
    rng = np.random.default_rng(0)
    return rng.random((32, 32)).astype(np.float32)


if __name__ == "__main__":
    image = np.random.rand(32, 32).astype(np.float32)
    blurred = box_blur(image, 1)
    other = box_blur(load_image(), 2)  # from a Python helper: not typed statically
    print(blurred.mean(), other.mean())
