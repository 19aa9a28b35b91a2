"""A Python breakpoint in a second thread: thread ids are native ids in both worlds."""

import threading


def work():
    value = 42
    return value


def main():
    worker = threading.Thread(target=work, name="worker-1")
    worker.start()
    worker.join()


if __name__ == "__main__":
    main()
