"""romis tournaments: schedules, execution, durable results, standings, ratings and reports."""
