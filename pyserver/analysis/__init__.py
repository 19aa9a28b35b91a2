"""Analysis: loader, signatures, inference, report. Runs the user's module in a worker process."""
