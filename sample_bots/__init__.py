"""Sample bots: random and greedy (Python), random (JavaScript), and misbehaving bots for tests."""
