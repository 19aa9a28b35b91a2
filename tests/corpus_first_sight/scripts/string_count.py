from numba import njit


@njit
def count_char(text, ch):
    n = 0
    for c in text:
        if c == ch:
            n += 1
    return n


if __name__ == "__main__":
    sentence = "the quick brown fox jumps over the lazy dog"
    print(count_char(sentence, "o"))
