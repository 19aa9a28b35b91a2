#!/usr/bin/env python
"""Render a Mandelbrot set: python mandelbrot_cli.py --width 80 --height 40 --iters 50"""
import argparse

import numpy as np
from numba import njit


@njit
def escape_time(c, max_iter):
    z = 0j
    for n in range(max_iter):
        z = z * z + c
        if abs(z) > 2.0:
            return n
    return max_iter


@njit
def render(width, height, max_iter):
    image = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.0 + 2.0 * row / height)
            image[row, col] = escape_time(c, max_iter)
    return image


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--width", type=int, default=60)
    parser.add_argument("--height", type=int, default=30)
    parser.add_argument("--iters", type=int, default=40)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse_args()
    img = render(args.width, args.height, args.iters)
    print(img.sum())
