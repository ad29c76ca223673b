"""MitHub core: live meeting memory, hybrid retrieval and local-LLM agent calls.

Nothing under this package imports LiveKit; the worker (`mithub_worker`) depends on it.
"""

__version__ = "0.1.0"
