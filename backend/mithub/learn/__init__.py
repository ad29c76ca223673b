"""What the models learned from data share: the estimator (L2 logistic regression) and the
reader of its JSON weights. The record's models and the topic boundary model both use it;
it depends on neither."""
