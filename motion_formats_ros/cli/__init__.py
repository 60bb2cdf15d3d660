"""The ``motion-formats`` command line."""
