"""`python -m referee` and the `romis` command: load the command line and run it."""

import os
import sys


def main() -> None:
    """Run the romis command line; a Ctrl-C while its modules load is one line and exit 130, as later."""
    try:
        from referee.cli import main as run_cli
    except KeyboardInterrupt:
        sys.stderr.write("romis: interrupted\n")
        sys.stderr.flush()
        os._exit(130)  # not sys.exit: see referee.cli.main
    run_cli()


if __name__ == "__main__":  # tournament workers re-import the main module: do not run the CLI again there
    main()
