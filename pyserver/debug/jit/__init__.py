"""The jitted code's side, as the adapter sees it through gdb: jitted frames named and classified
(frames.py), where a line's code really starts (line_addresses.py), line steps in jitted code
(stepping.py) and the stop at a jitted function's first statement (entry_stop.py). Each module is
a public component; nothing here runs outside the adapter."""
