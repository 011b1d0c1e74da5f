"""Sample bot: random among the legal options; melds when it can (some of the time)."""

from sample_bots.common import serve

if __name__ == "__main__":
    serve("random", greedy=False)
