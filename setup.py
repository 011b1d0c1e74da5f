"""The compiled best-split search (referee/rules/_solver.c): optional, so that an install without a C compiler
or the Python headers still works, on referee/rules/solver.py's own search (the rest is in pyproject.toml)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("referee.rules._solver", ["referee/rules/_solver.c"], optional=True)])
