"""The online topic detector (seed 002 §3.4): cue phrases, semantic shift, a boundary model
fitted on data, and the LLM check. Uses `context` models; `context` uses it through the
TopicDetector the ContextManager is given."""
