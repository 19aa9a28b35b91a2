"""Signature recording from real runs (`python -m pyserver record`)."""
