"""`python -m referee` runs the romis command line."""
from referee.cli import main

main()
