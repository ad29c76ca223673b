"""What a meeting settled (DESIGN §5), LLM-free: decisions, action items, pending items,
value normalisation, and changes to past decisions of the series.

- `models`    Decision, DecisionChange, PastRef (and the action/pending models)
- `values`    extract_values, values_agree, comparable, names_match (amounts, counts,
              percents, durations, times, dates, names in Korean and English)
- `dates`     resolve_date_expressions against the meeting's local date
- `due_dates` MeetingDates: a meeting's dates in context (the month named last, a reply's short
              date, the dates of the events deadlines hang on)
- `event_dates` event_table: event noun phrase -> date, from the statements that date it
- `stance`    the cues shared by decisions and changes (settled, proposed, hypothetical, …)
- `turn_features` the shared turn features of the learned models (kiwi mood and morpheme
              tags, English modality, value kinds, next-turn agreement, speaker role)
- `settle_model`, `pair_model`  the fitted decision-settling turn and change pair models
              (weights in `weights/`, retrained by `python -m mithub.record.training decisions`)
- `decisions` extract_decisions(meeting_id, utterances, started_at): decisions with a
              confidence; below the threshold, candidates
- `changes`   ChangeDetector(embedder, decisions, …).check(utterance, previous_lines)

Modules are imported on use: Korean morphology loads on first call, not on import.
"""
