"""What a meeting settled: decisions, changes to past decisions, value normalisation."""
