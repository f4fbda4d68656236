# aggregatord: build, run, test, benchmark and install.
# `make run` and `make test` work on a fresh Debian/Ubuntu machine: `make deps` installs what is missing.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share/aggregator
SWIFT ?= swift
RELEASE_BIN = .build/release
# Static Swift runtime and Foundation: installed binaries need no toolchain, and a client starts in
# 4 ms rather than 10 (no shared libraries to load and relocate).
RELEASE_BUILD = $(SWIFT) build -c release --static-swift-stdlib

# Debian packages the build and the tests need (libseccomp-dev: systemd/check-sandbox.sh).
DEB_PACKAGES := pkg-config libxml2-dev libsqlite3-dev libcurl4-openssl-dev libmicrohttpd-dev libsodium-dev libpq-dev zlib1g-dev libseccomp-dev

.PHONY: all build deps run test test-deps test-venv test-postgres coverage faults check-sanitizers check-asan check-tsan fuzz fuzz-build conformance miniflux-suite check-units bench bench-deps bench-e2e bench-e2e-deps install uninstall deb deb-deps check-deb clean

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
	$(RELEASE_BUILD)

# Fuzzing (docs/RELIABILITY.md): libFuzzer with AddressSanitizer, one target per outside input, in
# the package under Fuzz/. `make fuzz` runs each for FUZZ_SECONDS and fails on a crash, a broken
# property, a leak or an input taking over 2 s (the reproducer is left in .build/fuzz/findings/).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= FeedParser OPML Sanitizer Dates SearchQuery ControlProtocol HTTPRequest CanonicalURL
FUZZ_BUILD := -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing \
	-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
fuzz-build: deps
	cd Fuzz && swift build --build-path ../.build/fuzz $(FUZZ_BUILD)
fuzz: fuzz-build
	bash Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

run: build
	$(RELEASE_BIN)/aggregatord --seed-opml feeds.opml

# The reader-app clients the end-to-end tests drive: Debian's newsboat (and curl, util-linux's
# `script` for a pseudo-terminal), and those from PyPI (pinned) in .build/test-venv.
TEST_PACKAGES := newsboat curl util-linux chromium chromium-driver postgresql
test-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(TEST_PACKAGES)"

TEST_VENV := .build/test-venv
test-venv: $(TEST_VENV)/.installed
$(TEST_VENV)/.installed: Tests/requirements.txt
	python3 -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --disable-pip-version-check -r Tests/requirements.txt
	@touch $@

test: deps test-deps test-venv
	$(RELEASE_BUILD)
	@$(MAKE) --no-print-directory conformance
	@systemd/check-units.sh
	@systemd/check-activation.sh
	@systemd/check-sandbox.sh
	@contrib/check-completion.sh
	$(SWIFT) test
	@$(MAKE) --no-print-directory test-postgres
	@$(MAKE) --no-print-directory check-deb

# The store's, the HTTP routes' and the end-to-end tests again on PostgreSQL: a throwaway cluster (Tests/postgres-cluster.sh: initdb and
# pg_ctl in a temporary directory, Unix socket only), stopped and removed however the tests end.
POSTGRES_TESTS ?= FeedStoreTests|EndToEndTests|HTTPAPITests
# Line coverage per module: every SQLite test instrumented, then llvm-cov's report summed per module.
coverage: deps test-deps test-venv
	$(SWIFT) build --build-tests --enable-code-coverage
	$(SWIFT) test --skip-build --enable-code-coverage
	@Tests/coverage.sh

test-postgres:
	@directory=$$(mktemp -d /tmp/aggregator-pg.XXXXXX); \
	trap 'Tests/postgres-cluster.sh stop "$$directory"' EXIT; \
	uri=$$(Tests/postgres-cluster.sh start "$$directory") || exit 1; \
	echo "PostgreSQL test cluster: $$uri"; \
	AGGREGATOR_TEST_POSTGRES="$$uri" $(SWIFT) test --filter '$(POSTGRES_TESTS)'

# The fault suite (docs/RELIABILITY.md): its fast cases are part of `make test`; this runs them with
# the long ones (AGGREGATOR_LONG_FAULTS=1: 500 clients at once, a lock held for three minutes) on
# SQLite, then on a throwaway PostgreSQL cluster. About ten minutes.
FAULT_TESTS ?= LongFaultTests|LoadSheddingTests|ClusterTests|ConflictRetryTests|KilledDaemonTests|StorageFaultTests|CrashSafetyTests|HostileServerTests
faults: deps test-deps test-venv
	$(RELEASE_BUILD)
	AGGREGATOR_LONG_FAULTS=1 $(SWIFT) test --filter '$(FAULT_TESTS)'
	@AGGREGATOR_LONG_FAULTS=1 $(MAKE) --no-print-directory test-postgres POSTGRES_TESTS='$(FAULT_TESTS)'

# The whole suite under each sanitizer, built apart (.build/asan, .build/tsan): the daemons and
# clients the tests start are the sanitized builds too, and every process writes its report to
# .build/SANITIZER/reports (a daemon's stderr goes to a log the test removes). Any report fails the
# run. Waits are 4 times longer. `check-asan`: AddressSanitizer with LeakSanitizer (the harness's own
# leaks: Tests/lsan-suppressions.txt). `check-tsan`: ThreadSanitizer (Tests/tsan-suppressions.txt:
# the Mutex it cannot see).
check-sanitizers: check-asan check-tsan

ASAN_REPORTS := $(CURDIR)/.build/asan/reports
check-asan: deps test-deps test-venv
	@rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS)
	AGGREGATOR_TEST_TIME_SCALE=4 ASAN_OPTIONS=log_path=$(ASAN_REPORTS)/report \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0 \
	    $(SWIFT) test --sanitize=address --scratch-path .build/asan
	@if ls $(ASAN_REPORTS)/report.* > /dev/null 2>&1; then \
	    cat $(ASAN_REPORTS)/report.*; echo "check-asan: AddressSanitizer reported the above" >&2; exit 1; \
	else echo "check-asan: the suite ran clean under AddressSanitizer and LeakSanitizer"; fi

TSAN_REPORTS := $(CURDIR)/.build/tsan/reports
check-tsan: deps test-deps test-venv
	@rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	AGGREGATOR_TEST_TIME_SCALE=4 \
	    TSAN_OPTIONS=log_path=$(TSAN_REPORTS)/report:suppressions=$(CURDIR)/Tests/tsan-suppressions.txt \
	    $(SWIFT) test --sanitize=thread --scratch-path .build/tsan
	@if ls $(TSAN_REPORTS)/report.* > /dev/null 2>&1; then \
	    cat $(TSAN_REPORTS)/report.*; echo "check-tsan: ThreadSanitizer reported the above" >&2; exit 1; \
	else echo "check-tsan: the suite ran clean under ThreadSanitizer"; fi

check-units: build
	@systemd/check-units.sh

# Scores `aggregatorctl parse --json` against feedparser 6.0.14's reading of its own test suite
# (conformance/README.md; the JSON and the score: docs/parse-json.md). The suite comes from
# feedparser's sdist on PyPI, the expected JSON from feedparser itself in a venv; both are kept in
# .build/conformance and made again when conformance/ changes. Fails below CONFORMANCE_MIN % of the
# fields agreeing. Scores $(RELEASE_BIN)/aggregatorctl without building it: RELEASE_BIN=DIR scores
# another build's.
CONFORMANCE_MIN ?= 99.4
CONFORMANCE_WORK := .build/conformance
CONFORMANCE_VENV := $(CONFORMANCE_WORK)/venv
CONFORMANCE_CORPUS := $(CONFORMANCE_WORK)/corpus
CONFORMANCE_INPUTS := conformance/corpus.py conformance/datefeeds.py conformance/oracle.py $(wildcard conformance/feeds/*)

$(CONFORMANCE_VENV)/.installed: conformance/requirements.txt
	@rm -rf $(CONFORMANCE_VENV)
	@python3 -m venv $(CONFORMANCE_VENV) \
	    || { echo "conformance: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
	@$(CONFORMANCE_VENV)/bin/pip install -q --disable-pip-version-check --timeout 20 --retries 3 \
	    --no-deps --only-binary :all: --require-hashes -r conformance/requirements.txt \
	    || { echo "conformance: could not download feedparser 6.0.14 and feedparser-sgmllib 2.1.0 from PyPI" \
	        "(pinned in conformance/requirements.txt)" >&2; exit 1; }
	@touch $@

$(CONFORMANCE_WORK)/expected.stamp: $(CONFORMANCE_VENV)/.installed $(CONFORMANCE_INPUTS)
	@python3 conformance/corpus.py --cache $(CONFORMANCE_WORK) --out $(CONFORMANCE_CORPUS)
	@$(CONFORMANCE_VENV)/bin/python conformance/oracle.py build $(CONFORMANCE_CORPUS)
	@touch $@

conformance: $(CONFORMANCE_WORK)/expected.stamp
	@[ -x $(RELEASE_BIN)/aggregatorctl ] \
	    || { echo "conformance: no $(RELEASE_BIN)/aggregatorctl: make build first, or RELEASE_BIN=DIR" >&2; exit 1; }
	@out=$$(python3 conformance/compare.py $(CONFORMANCE_CORPUS) --min $(CONFORMANCE_MIN) \
	    --cmd "$(RELEASE_BIN)/aggregatorctl parse {file} --json {opts}"); status=$$?; \
	echo "$$out" | tail -n 2; \
	[ $$status -eq 0 ] || { echo "conformance: below $(CONFORMANCE_MIN)%" >&2; exit $$status; }

# Miniflux's own API suite (its Go client and API integration tests, kept outside this repository:
# docs/reader-apps.md, "What was tested") against the release build, when MINIFLUX_SUITE names its
# directory (the one holding serve-and-run.sh); skipped with a message otherwise.
MINIFLUX_SUITE ?=
miniflux-suite:
	@if [ -z "$(MINIFLUX_SUITE)" ]; then echo "miniflux-suite: skipped (MINIFLUX_SUITE=DIR names the suite's directory)"; \
	elif [ ! -x "$(MINIFLUX_SUITE)/serve-and-run.sh" ]; then echo "miniflux-suite: no serve-and-run.sh in $(MINIFLUX_SUITE)" >&2; exit 1; \
	else EXTRA_DAEMON_ARGS="--private-networks all $(MINIFLUX_DAEMON_ARGS)" "$(MINIFLUX_SUITE)/serve-and-run.sh" "$(CURDIR)/$(RELEASE_BIN)"; fi

# Tools the benchmarks compare against (xmllint) and measure with (GNU time).
BENCH_PACKAGES := libxml2-utils time

bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(BENCH_PACKAGES)"

bench: build bench-deps
	@bench/run.sh

# The end-to-end comparison needs nginx and newsboat; not part of `make bench` (it takes minutes).
bench-e2e-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="nginx libnginx-mod-http-echo newsboat time"

bench-e2e: build bench-e2e-deps
	@bench/e2e_newsboat.sh

SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
SYSUSERS_DIR ?= $(PREFIX)/lib/sysusers.d
SYSCONF_DIR ?= /etc/aggregator

install: build
	install -d $(BINDIR) $(SHAREDIR) $(DESTDIR)$(SYSTEMD_UNIT_DIR) $(DESTDIR)$(SYSUSERS_DIR) $(DESTDIR)$(SYSCONF_DIR)
	install -m 0755 $(RELEASE_BIN)/aggregatord $(RELEASE_BIN)/aggregatorctl $(BINDIR)/
	install -m 0644 feeds.opml $(SHAREDIR)/feeds.opml
	sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/aggregatord.service.in > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord.service
	install -m 0644 systemd/aggregatord.socket $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord.socket
	install -m 0644 systemd/aggregatord-http.socket $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord-http.socket
	install -m 0644 systemd/aggregator.sysusers $(DESTDIR)$(SYSUSERS_DIR)/aggregator.conf
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0644 man/aggregatorctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/aggregatorctl.1
	install -m 0644 man/aggregatord.8 $(DESTDIR)$(PREFIX)/share/man/man8/aggregatord.8
	install -m 0644 contrib/aggregatorctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/aggregatorctl
	install -m 0644 contrib/_aggregatorctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_aggregatorctl
	# An existing configuration is kept.
	[ -e $(DESTDIR)$(SYSCONF_DIR)/aggregatord.conf ] || install -m 0644 aggregatord.conf $(DESTDIR)$(SYSCONF_DIR)/aggregatord.conf

uninstall:
	rm -f $(BINDIR)/aggregatord $(BINDIR)/aggregatorctl $(SHAREDIR)/feeds.opml
	rm -f $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord.service $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord.socket $(DESTDIR)$(SYSTEMD_UNIT_DIR)/aggregatord-http.socket
	rm -f $(DESTDIR)$(SYSUSERS_DIR)/aggregator.conf
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/aggregatorctl.1 $(DESTDIR)$(PREFIX)/share/man/man8/aggregatord.8
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/aggregatorctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_aggregatorctl
	-rmdir $(SHAREDIR) 2>/dev/null
	# $(SYSCONF_DIR)/aggregatord.conf is left in place: it may hold your settings.

# The Debian package (docs/deploying.md, packaging/deb/): `make deb` builds
# .build/deb/aggregatord_VERSION_ARCH.deb from the release build's two executables, stripped;
# `make deb VERSION=0.2.0~rc1` builds another version
# of the same tree. `make check-deb` lints it and installs, runs, upgrades and purges it on a clean
# Debian 12 root made with mmdebstrap from Debian's archive (2 to 4 minutes, up to one of them
# mmdebstrap's; part of `make test`; needs root, skipped with a message without it).
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/ControlProtocol/AggregatorVersion.swift)
DEB_TOOLS := dpkg-dev lintian mmdebstrap iproute2
deb-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_TOOLS)"

deb: deps deb-deps
	$(RELEASE_BUILD)
	@bash packaging/deb/build-deb.sh $(VERSION) .build/deb

check-deb: deb
	@bash packaging/deb/check-deb.sh $(VERSION)

clean:
	$(SWIFT) package clean
