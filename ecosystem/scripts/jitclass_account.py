from numba import float64, int64
from numba.experimental import jitclass


@jitclass([("balance", float64), ("transactions", int64)])
class Account:
    def __init__(self, opening):
        self.balance = opening
        self.transactions = 0

    def deposit(self, amount):
        self.balance += amount
        self.transactions += 1

    def withdraw(self, amount):
        if amount > self.balance:
            return False
        self.balance -= amount
        self.transactions += 1
        return True


def simulate():
    acct = Account(100.0)
    for k in range(10):
        acct.deposit(2.5 * k)
        acct.withdraw(7.0)
    return acct.balance, acct.transactions


if __name__ == "__main__":
    print(simulate())
