"""Sample bot: melds as much as it can, keeps cards that build melds, discards its highest dead card."""

from sample_bots.common import serve

if __name__ == "__main__":
    serve("greedy", greedy=True)
