# MitHub image for the worker, the API and the one-shot migration (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# ffmpeg decodes audio for faster-whisper; libgomp is the OpenMP runtime of faiss and CTranslate2.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ffmpeg libgomp1 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY backend ./backend
COPY worker ./worker
COPY migrations ./migrations
# torch from the CPU wheel index first (PyPI's default build is CUDA, several GB); the dense
# retrieval channel's e5 runs on it. Editable install: `mithub db upgrade` finds migrations/.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
    && pip install -e ".[worker,cloud-stt]"

RUN useradd --create-home --uid 10001 mithub && mkdir -p /app/data && chown mithub /app/data
USER mithub
EXPOSE 8000 9100
CMD ["mithub", "--help"]
