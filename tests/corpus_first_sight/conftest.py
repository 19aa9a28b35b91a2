"""The corpus scripts are run by the test, never collected by pytest (some are named test_*.py)."""

collect_ignore = ["scripts", "run_scripts.py"]
