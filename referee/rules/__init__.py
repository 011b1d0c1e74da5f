"""The pure rules engine: cards, melds, the solver, the family engines and the variants.

Nothing here does I/O, reads a clock or uses global random state (tests/test_layout.py checks it).
"""
