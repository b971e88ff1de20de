"""The one exception type the command line turns into a one-line error."""


class KluebookError(Exception):
    """Bad input or a failed precondition, reported to the user in one line."""
