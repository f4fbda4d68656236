# aggregatord: build, run, test, benchmark and install.
# `make run` and `make test` work on a fresh Debian/Ubuntu machine: `make deps` installs what is missing.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share/aggregator
SWIFT ?= swift
RELEASE_BIN = .build/release

# Debian packages the build and the tests need.
DEB_PACKAGES := pkg-config libxml2-dev libsqlite3-dev libcurl4-openssl-dev

.PHONY: all build deps run test conformance bench bench-deps install uninstall clean

all: build

deps:
	@missing=""; \
	for package in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "Installing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	else echo "error: missing packages:$$missing; run as root or install sudo, then retry" >&2; exit 1; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get update -q && $$sudo apt-get install -y -q --no-install-recommends $$missing \
	    || { echo "error: could not install:$$missing (apt-get failed; install them by hand)" >&2; exit 1; }

build: deps
	$(SWIFT) build -c release

run: build
	$(RELEASE_BIN)/aggregatord --seed-opml feeds.opml

test: deps
	$(SWIFT) build -c release
	@$(MAKE) --no-print-directory conformance
	$(SWIFT) test

# Scores `aggregatorctl parse` against feedparser's test suite in ../shared (skipped when absent).
CONFORMANCE_DIR ?= ../shared/conformance
CONFORMANCE_MIN ?= 98
conformance:
	@if [ -d $(CONFORMANCE_DIR)/public ]; then \
	    out=$$(python3 $(CONFORMANCE_DIR)/compare.py $(CONFORMANCE_DIR)/public --min $(CONFORMANCE_MIN) \
	        --cmd "$(RELEASE_BIN)/aggregatorctl parse {file} --json {opts}"); status=$$?; \
	    echo "$$out" | tail -n 2; \
	    [ $$status -eq 0 ] || { echo "conformance: below $(CONFORMANCE_MIN)%" >&2; exit $$status; }; \
	else echo "conformance: $(CONFORMANCE_DIR) not found, skipped"; fi

# Tools the benchmarks compare against (xmllint) and measure with (GNU time).
BENCH_PACKAGES := libxml2-utils time

bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(BENCH_PACKAGES)"

bench: build bench-deps
	@bench/run.sh

install: build
	install -d $(BINDIR) $(SHAREDIR)
	install -m 0755 $(RELEASE_BIN)/aggregatord $(RELEASE_BIN)/aggregatorctl $(BINDIR)/
	install -m 0644 feeds.opml $(SHAREDIR)/feeds.opml

uninstall:
	rm -f $(BINDIR)/aggregatord $(BINDIR)/aggregatorctl $(SHAREDIR)/feeds.opml
	-rmdir $(SHAREDIR) 2>/dev/null

clean:
	$(SWIFT) package clean
