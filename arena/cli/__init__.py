"""The ``arena`` command line: one module per command, each a thin layer over a library function."""
