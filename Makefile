# Armada: the two commands that matter are `make up` and `make test` (see README.md).
SHELL := /bin/bash
PY := .venv/bin/python

.PHONY: help up worker test lint install services images bot-image app-image service-images bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

up:  ## install what is missing, start everything, print the site's URL (Ctrl-C stops)
	@infra/up.sh

worker:  ## one more match worker for the instance `make up` runs here (give it the ARMADA_DATA_DIR and PORT given to `make up`; the rest comes from its manage.env)
	@infra/worker.sh

test:  ## the whole test suite (starts Redis, Docker and builds the images when needed)
	@infra/test.sh $(PYTEST_ARGS)

lint:  ## ruff and mypy
	@infra/install.sh
	$(PY) -m ruff check .
	$(PY) -m mypy sdk/armada sandbox/armada_sandbox platform/armada_web

install:  ## create .venv and install the three packages (and Debian packages as root)
	@infra/install.sh

services:  ## start Redis and the Docker engine when they are not running
	@infra/install.sh
	@infra/services.sh

images: install bot-image app-image service-images  ## every image, each only when its inputs changed

bot-image:  ## build the bot image armada/bot:latest when its inputs changed
	@infra/images/bot/build.sh

app-image: install  ## build the application image armada/app:latest (web, worker, beat) when its inputs changed
	@infra/images/app/build.sh

service-images:  ## build armada/postgres:15 and armada/redis:7 for infra/compose.yml when changed
	@infra/images/services.sh

bench:  ## speed targets: engines, sandbox, validation, ranking, the league, the finals, integrity, deployment, scale, faults and a ten-minute soak, learning
	@ARMADA_PY_EXTRAS=dev,bench infra/install.sh
	$(PY) bench/engines.py
	$(PY) bench/sandbox.py
	$(PY) bench/validation.py
	$(PY) bench/ranking.py
	$(PY) bench/league.py
	$(PY) bench/finals.py
	$(PY) bench/integrity.py
	$(PY) bench/deploy.py
	$(PY) bench/scale.py
	$(PY) bench/faults.py
	$(PY) bench/learning.py

clean:  ## remove the venv and local data (asks no questions)
	rm -rf .venv var .pytest_cache .mypy_cache .ruff_cache .hypothesis
