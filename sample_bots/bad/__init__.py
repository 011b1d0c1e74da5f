"""Deliberately misbehaving bots for the runner and referee tests: `python -m sample_bots.bad.NAME`."""
