"""Prompt templates of seed 002 (§3.3.1, §3.4, §3.5). Meeting text is always inserted as quoted data."""
