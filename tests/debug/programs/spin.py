"""A jitted loop that runs for minutes: pause must stop it in jitted code (test_dap_control.py)."""

from numba import njit


@njit(debug=True)
def spin(n):
    acc = 0
    for i in range(n):
        acc += i % 7
    return acc


def main():
    spin(1)  # compile first: after "spinning" the thread is in jitted code
    print("spinning", flush=True)
    print(spin(10**13))


if __name__ == "__main__":
    main()
