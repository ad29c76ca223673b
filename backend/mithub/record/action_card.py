"""The model card written beside `record/weights/actions.json` at each retraining."""

from __future__ import annotations

import numpy as np

from mithub.learn.estimator import LogisticModel
from mithub.record.action_features import FEATURE_NAMES


def model_card(model: LogisticModel, meta: dict) -> str:
    order = np.argsort(-np.abs(model.coef))
    top = "\n".join(f"| {FEATURE_NAMES[i]} | {model.coef[i]:+.3f} |" for i in order[:15])
    rows = "\n".join(f"| {k} | {s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f} | {s['listed']} | {s['gold']} |"
                     for k, s in meta["cv"].items())
    d, r = meta["data"], meta["rule"]
    return f"""# Model card: commitment-turn model (`actions.json`)

What it does: scores every (line, candidate owner) pair of a meeting -- the speaker, a participant
named as the doer, the next and previous speakers, a team -- for "this line settles an action item
for this person". `record/actions.py` keeps the strongest pair of an owner within {r['window']} lines.

- Estimator: L2 logistic regression (`learn/estimator.py`, Newton/IRLS, l2={meta['l2']}), {len(FEATURE_NAMES)}
  named features (`record/action_features.py`), standardised. No random state: retraining on the
  same data gives the same weights (tested).
- Data: {d['series_meetings']} meetings of the invented series (`data/decisions/*/actions.json`) and
  {d['real_meetings']} real AMI/ICSI meetings (`data/real_record`): {d['gold_items']} gold items, {d['rows']} pairs,
  {d['positive_rows']} positive (the settling line and support lines within 2 of it; farther support lines
  are left out of training). The two sources weigh the same.
- Decision rule, chosen out of fold (a whole series or one real meeting held out): the best mean F1
  of the two sources among rules with precision >= 0.5 in both, a threshold per language. Shown at
  confidence >= {r.get('by_language', {}).get('ko', r['threshold'])} in a Korean meeting and >=
  {r.get('by_language', {}).get('en', r['threshold'])} in an English one; kept as a candidate down to {r['candidate_floor']}.
- Rebuild: `{meta['rebuild']}` (about 20-60 s on 2 cores).

Cross-validated figures of the shown items (lines and owners; `benchmarks/record_actions.py` scores
the whole output, due dates included, with the benchmark scorers):

| source | precision | recall | F1 | listed | gold |
|---|---|---|---|---|---|
{rows}

Largest weights (standardised features):

| feature | weight |
|---|---|
{top}

Limits: Korean mood comes from kiwi tags, English modality from closed-class words; an owner named
only by a role or a pronoun ("you two") is not a candidate; a task given to several people on one
line is found for the named ones only; no turn embedding yet.
"""
