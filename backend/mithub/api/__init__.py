"""HTTP API: `mithub api` serves `create_app` with uvicorn."""
