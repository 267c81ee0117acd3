"""The one exception type the command line turns into a clear message."""


class UserError(Exception):
    """A mistake in the user's input: printed as one clear line, never as a traceback.

    Subcommands catch their packages' own errors (a bad rig, an unreadable video,
    an illegal game command) and re-raise them as `UserError` with a message that
    names the problem.
    """
