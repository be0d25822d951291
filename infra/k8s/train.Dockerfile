# syntax=docker/dockerfile:1
# The training image: the repository with every package and vLLM, run from /app so that recipes (apps/train/recipes)
# and the run folders (runs/) resolve as in a checkout. Used by infra/k8s/rayjob.yaml for the head and the workers.
# Build from the repository root:  docker build -f infra/k8s/train.Dockerfile -t kimina-train .
# UNTESTED: the project's CI machines have no Docker engine; this file was written, not built.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm
FROM ${PYTHON_IMAGE}
# KubeRay's probes call wget.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends wget && rm -rf /var/lib/apt/lists/*
COPY --from=ghcr.io/astral-sh/uv:0.13.9 /uv /usr/local/bin/uv
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never UV_PYTHON=/usr/local/bin/python3.12 \
    UV_PROJECT_ENVIRONMENT=/opt/kimina
WORKDIR /app
# Dependencies first (only the lock and the manifests), so code changes do not re-download torch and vLLM.
COPY pyproject.toml uv.lock ./
COPY packages/kimina-format/pyproject.toml packages/kimina-format/
COPY packages/kimina-verify/pyproject.toml packages/kimina-verify/
COPY packages/kimina-data/pyproject.toml packages/kimina-data/
COPY packages/kimina-rl/pyproject.toml packages/kimina-rl/
COPY packages/kimina-eval/pyproject.toml packages/kimina-eval/
COPY apps/train/pyproject.toml apps/train/
COPY apps/api/pyproject.toml apps/api/
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --locked --no-default-groups --no-install-workspace --package kimina-train --extra vllm
COPY packages packages
COPY apps apps
# Editable: kimina-train finds its recipes next to its source, in /app/apps/train/recipes.
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --locked --no-default-groups --package kimina-train --extra vllm
ENV PATH=/opt/kimina/bin:$PATH
CMD ["kimina-train", "--help"]
