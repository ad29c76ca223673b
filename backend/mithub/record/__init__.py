"""What a meeting settled (DESIGN §5), LLM-free: decisions, action items, pending items,
value normalisation, and changes to past decisions of the series.

- `models`    Decision, DecisionChange, PastRef (and the action/pending models)
- `values`    extract_values, values_agree, comparable, names_match (amounts, counts,
              percents, durations, times, dates, names in Korean and English)
- `dates`     resolve_date_expressions against the meeting's local date
- `stance`    the cues shared by decisions and changes (settled, proposed, hypothetical, …)
- `decisions` extract_decisions(meeting_id, utterances, started_at)
- `changes`   ChangeDetector(embedder, decisions, …).check(utterance, previous_lines)

Modules are imported on use: Korean morphology loads on first call, not on import.
"""
