"""romis referee: cards, melds, the rules engine, variants, the bot runner, the match loop and the CLI."""
