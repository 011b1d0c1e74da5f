"""Who is to blame: IllegalAction (a bot broke a rule) vs ConfigError (the user's mistake)."""


class IllegalAction(Exception):
    """An action that breaks a rule; `rule` is a short stable id, the message says what was wrong."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class ConfigError(Exception):
    """Bad input from the user (unknown variant, bad option, malformed card...): exit code 2, one line."""
