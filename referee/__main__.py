"""`python -m referee` runs the romis command line."""

from referee.cli import main

if __name__ == "__main__":  # tournament workers re-import the main module: do not run the CLI again there
    main()
