from numba import njit


@njit
def count_vowels(s):
    n = 0
    for ch in s:
        if ch in "aeiou":
            n += 1
    return n


@njit
def caesar(s, shift):
    out = ""
    for ch in s:
        if "a" <= ch <= "z":
            out += chr((ord(ch) - 97 + shift) % 26 + 97)
        else:
            out += ch
    return out


msg = "hello numba world"
print(count_vowels(msg), caesar(msg, 3))
