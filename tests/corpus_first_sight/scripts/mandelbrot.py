import numpy as np
from numba import njit


@njit
def escape_time(x, y, max_iter):
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iter):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return 255


@njit
def create_fractal(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]
    pixel_x = (max_x - min_x) / width
    pixel_y = (max_y - min_y) / height
    for x in range(width):
        real = min_x + x * pixel_x
        for y in range(height):
            imag = min_y + y * pixel_y
            image[y, x] = escape_time(real, imag, iters)
    return image


image = np.zeros((60, 90), dtype=np.uint8)
create_fractal(-2.0, 1.0, -1.0, 1.0, image, 20)
print(image.max())
