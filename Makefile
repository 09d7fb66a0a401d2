# The operator's build, code generation and tests. `make help` lists the targets.
SHELL := /usr/bin/env bash -o pipefail
CONTROLLER_GEN := bin/controller-gen
GOLANGCI_LINT := bin/golangci-lint
# gotestsum runs go test -json and prints go test's usual lines (standard-quiet);
# make test keeps each run's events in TEST_JSON and ends with one recap of them
# all: a line per package, the tests that skipped and why, the count.
GOTESTSUM := bin/gotestsum
TEST_JSON := bin/test-json
GO_TEST_FLAGS ?= -count=1 -timeout=40m
# Packages `make test` runs under the race detector: those that own every
# goroutine and lock of the operator (internal/apply's parallel writes and its
# memory of them; internal/controller/...'s status write beside the applies and
# the CN cleanup state; internal/feaccess's FE views and job pool;
# internal/reconcile's memories and ConfigMap source; internal/writeorder's
# gate on concurrent requests).
# -race compiles the Kubernetes libraries a second time: measured cold (empty
# GOCACHE, 2 busy cores) 4.5 min for apply and controller (writeorder needs
# only the standard library). The test module's integration package (the same
# code in a manager in-process) would add 2.6 min more of compiling (its run is
# not slower: TestOnAPIServer 58 s under -race, 56 s without), past the ~5 min
# -race may cost a cold CI: it is not in the default
# (RACE_PKGS_TEST=./integration/... includes it).
RACE_PKGS ?= ./internal/apply/... ./internal/controller/... ./internal/feaccess/... ./internal/reconcile/... ./internal/writeorder/...
RACE_PKGS_TEST ?=
# Every Go module of the repository: `make verify` checks that each is tidy.
GO_MODULES := . test tools tools/etcd tools/kwok tools/golangci-lint tools/gotestsum

# The image `make image` builds; the operator chart's default (its image.repository
# and appVersion) names the same one, and a test (test/ociimage) holds them together.
IMAGE_REPO ?= ghcr.io/srscale/starrocks-operator
VERSION ?= $(shell sed -n 's/^appVersion: *"*\([^"]*\)"*/\1/p' charts/operator/Chart.yaml)
IMG ?= $(IMAGE_REPO):$(VERSION)
IMAGE_PLATFORMS ?= linux/amd64
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)

# `make` builds the operator and the kubectl plugin for every platform; `make help` lists the targets.
.DEFAULT_GOAL := all

.PHONY: all
all: build plugin ## Build the operator and bin/kubectl-starrocks, and the plugin's archives and krew manifest (make plugin).

.PHONY: help
help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: run
run: ## Run the operator against $$KUBECONFIG (pass flags with ARGS="--max-concurrent-reconciles=8").
	go run ./cmd/starrocks-operator $(ARGS)

.PHONY: build
build: ## Build the operator binary and the kubectl plugin (this platform) into bin/.
	go build -o bin/starrocks-operator ./cmd/starrocks-operator
	go build -o bin/kubectl-starrocks ./cmd/kubectl-starrocks

# The kubectl plugin's archives, one per platform krew installs it on, and
# its krew manifest rendered from plugins/starrocks.yaml with their SHA-256.
PLUGIN_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
PLUGIN_DIST ?= dist/plugin

.PHONY: plugin
plugin: ## kubectl starrocks for linux and darwin, amd64 and arm64: $(PLUGIN_DIST)/kubectl-starrocks_<os>_<arch>.tar.gz and the krew manifest starrocks.yaml.
	@mkdir -p $(PLUGIN_DIST)
	@for p in $(PLUGIN_PLATFORMS); do \
		os=$${p%%/*}; arch=$${p##*/}; dir=$(PLUGIN_DIST)/$${os}_$${arch}; \
		echo "go build kubectl-starrocks for $$p"; \
		mkdir -p $$dir && cp LICENSE $$dir/ && \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w" -o $$dir/kubectl-starrocks ./cmd/kubectl-starrocks || exit 1; \
		tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C $$dir -cf - kubectl-starrocks LICENSE | gzip -n > $(PLUGIN_DIST)/kubectl-starrocks_$${os}_$${arch}.tar.gz || exit 1; \
	done
	go run ./hack/krewmanifest --template plugins/starrocks.yaml --dist $(PLUGIN_DIST) --version $(VERSION)

.PHONY: image
image: ## Build the operator image without Docker: bin/image/oci (OCI layout) and bin/image/starrocks-operator.tar (docker load).
	$(MAKE) --no-print-directory image-build PLATFORMS="$(IMAGE_PLATFORMS)" OUT=bin/image

.PHONY: image-docker
image-docker: ## Build the same image with Docker (needs a Docker daemon): docker build -t $(IMG) .
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: image-ref
image-ref: ## Print the image reference make image tags.
	@echo $(IMG)

.PHONY: release
release: ## Multi-arch image (RELEASE_PLATFORMS) as an OCI layout and the packaged charts, in dist/.
	$(MAKE) --no-print-directory image-build PLATFORMS="$(RELEASE_PLATFORMS)" OUT=dist/image
	cd test && go run ./cmd/chartpkg --out $(CURDIR)/dist/charts $(CURDIR)/charts/operator $(CURDIR)/charts/starrocks $(CURDIR)/charts/kube-starrocks
	@echo "push with: skopeo copy --all oci:dist/image/oci:$(IMG) docker://$(IMG)   (or crane push --index dist/image/oci $(IMG))"

.PHONY: image-build
image-build: # Static binaries for $(PLATFORMS), then the image from them into $(OUT).
	@for p in $(PLATFORMS); do \
		echo "go build linux static binary for $$p"; \
		CGO_ENABLED=0 GOOS=$${p%%/*} GOARCH=$${p##*/} go build -trimpath -ldflags "-s -w" -o $(OUT)/$${p/\//_}/starrocks-operator ./cmd/starrocks-operator || exit 1; \
	done
	cd test && go run ./cmd/image --tag $(IMG) --version $(VERSION) --revision $(REVISION) \
		$(foreach p,$(PLATFORMS),--binary $(p)=$(CURDIR)/$(OUT)/$(subst /,_,$(p))/starrocks-operator) \
		--layout $(CURDIR)/$(OUT)/oci --tarball $(CURDIR)/$(OUT)/starrocks-operator.tar

.PHONY: testbin
testbin: ## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from Go modules (cached outside the repo).
	cd test && go run ./cmd/testbin

.PHONY: test
# The recap comes after a failed run too; make's status is the runs'.
test: verify testbin $(GOTESTSUM) ## Run unit and integration tests against a real kube-apiserver (both modules; RACE_PKGS under -race); ends with the skipped tests.
	@rm -rf $(TEST_JSON) && mkdir -p $(TEST_JSON)
	@status=0; ( $(call go-test,.,$(RACE_PKGS),root) ) && ( $(call go-test,test,$(RACE_PKGS_TEST),test) ) || status=$$?; \
	echo "== make test: every package, the tests that skipped and why"; \
	$(GOTESTSUM) --format pkgname --format-icons text --format-hide-empty-pkg --hide-summary=failed,errors --raw-command -- cat $(TEST_JSON)/*.json || true; \
	if [ $$status -ne 0 ]; then echo "== make test: the tests that failed (their output is above)"; \
	  hack/failed-tests.sh $(TEST_JSON); fi; \
	exit $$status

# go-test runs the tests of module $(1) through gotestsum, its events in
# $(TEST_JSON)/$(3)*.json: packages $(2) under -race, the rest without.
define go-test
cd $(1) && $(if $(strip $(2)),$(call gotest,$(3)-race) -race $(2) && $(call gotest,$(3)) $$(go list ./... | grep -vxF "$$(go list $(2))"),$(call gotest,$(3)) ./...)
endef
gotest = $(CURDIR)/$(GOTESTSUM) --format standard-quiet --hide-summary=skipped --jsonfile $(CURDIR)/$(TEST_JSON)/$(1).json -- $(GO_TEST_FLAGS)

$(GOTESTSUM): tools/gotestsum/go.mod tools/gotestsum/go.sum
	cd tools/gotestsum && go build -o ../../$(GOTESTSUM) gotest.tools/gotestsum

.PHONY: test-standalone
test-standalone: ## Unit tests on a clone of HEAD with no upstream reference beside it: they must pass, reference tests must skip.
	hack/standalone-test.sh

.PHONY: verify
# go vet runs inside golangci-lint: its govet linter runs the analyzers cmd/vet
# runs by default (golangci-lint v2.15 lists Go 1.26's set). A separate go vet
# pass cost 1.5 minutes of a cold CI run for no finding of its own; `make vet` runs it.
verify: generate lint tidy-check ## gofmt, go vet's analyzers and the rest of golangci-lint, go mod tidy; in CI also fail if generated files are stale.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	@if [ -n "$${CI:-}" ] && git rev-parse --git-dir >/dev/null 2>&1 && [ -n "$$(git status --porcelain -- api config)" ]; then \
		echo "generated files are stale; run 'make generate' and commit:"; git status --porcelain -- api config; exit 1; fi

.PHONY: vet
vet: ## go vet in both modules (make verify runs the same analyzers through golangci-lint).
	go vet ./...
	cd test && go vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) bin/goheader.tmpl ## golangci-lint (.golangci.yml) in both modules.
	$(GOLANGCI_LINT) run ./...
	cd test && ../$(GOLANGCI_LINT) run -c ../.golangci.yml ./...

$(GOLANGCI_LINT): tools/golangci-lint/go.mod tools/golangci-lint/go.sum
	cd tools/golangci-lint && go build -o ../../$(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# goheader compares with the comment's text: the boilerplate without /* and */.
bin/goheader.tmpl: hack/boilerplate.go.txt
	@mkdir -p bin && sed '1d;$$d' $< > $@

.PHONY: tidy-check
tidy-check: ## Fail if `go mod tidy` would change a go.mod or go.sum (every module).
	@fail=0; for m in $(GO_MODULES); do \
		if ! out=$$(cd $$m && go mod tidy -diff 2>&1); then echo "$$m: go mod tidy would change go.mod/go.sum:"; echo "$$out"; fail=1; fi; \
	done; exit $$fail

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy, CRDs and RBAC from kubebuilder markers.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	$(CONTROLLER_GEN) crd:maxDescLen=0 paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=starrocks-operator paths=./internal/controller/... output:rbac:artifacts:config=config/rbac

$(CONTROLLER_GEN): tools/go.mod tools/go.sum
	cd tools && go build -o ../$(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

.PHONY: helm
helm: ## Regenerate chart files derived from the code (parent values, CRDs, RBAC).
	go run ./hack/helmgen

.PHONY: starrocks-faults
starrocks-faults: testbin ## The StarRocks fault tests (about 10 min); rewrites the StarRocks faults section of docs/reliability.md.
	mkdir -p $(CURDIR)/bin && rm -f $(CURDIR)/bin/starrocks-faults.jsonl
	cd test && STARROCKS_FAULTS=$(CURDIR)/bin/starrocks-faults.jsonl go test -count=1 -timeout=40m -v \
		-run 'TestScaleInWithoutDataLoss/(operator_process|the_FE_leader_killed|clusters_whose_FE|followers_60|a_node_drain|BE_4_to_3_and_back|FE_3_to_2_reverted)|TestGatedRollouts/a_BE_(down|restarted)|TestFEReadsOfOne|TestUpgradeProcedure/(an_operator_SIGKILLed|an_FE_FE|FE.s_HTTP)|TestBackupAcrossSIGKILL|TestBackupAndRestore/(retention|a_user|a_BE_stopped|an_unreachable)' ./integration/
	cd test && go run ./cmd/faulttable -in $(CURDIR)/bin/starrocks-faults.jsonl -doc $(CURDIR)/docs/reliability.md

.PHONY: hostile-tenants
hostile-tenants: testbin ## The hostile-tenant table (10 healthy beside 1, then beside 100 hostile, 3 rounds each; about 30 min); writes its section of docs/reliability.md. Run it on a quiet machine: it measures time.
	cd test && export SRSCALE_HOSTILE_HEALTHY=10 SRSCALE_HOSTILE_ROUNDS=3 HOSTILE_REPORT=$(CURDIR)/docs/reliability.md; \
		SRSCALE_HOSTILE_CLUSTERS=1 go test -count=1 -timeout=60m -v -run 'TestHostileTenants' ./integration/; one=$$?; \
		SRSCALE_HOSTILE_CLUSTERS=100 go test -count=1 -timeout=60m -v -run 'TestHostileTenants' ./integration/; hundred=$$?; \
		exit $$((one | hundred))

.PHONY: bench-backup
bench-backup: testbin ## The backup measurement of docs/benchmark.md: 1,000 clusters × 5 databases nightly (BACKUP_CLUSTERS=1000); under the exclusive lock.
	cd test && SRSCALE_BACKUP_SCALE=1 SRSCALE_BACKUP_CLUSTERS=$(or $(BACKUP_CLUSTERS),1000) go test -count=1 -timeout=90m -v -run 'TestBackupAtScale' ./integration/

.PHONY: reliability
reliability: testbin ## Fault tests at full size (API faults, crash, failover: about 10 min); writes docs/reliability.md.
	cd test && RELIABILITY_FULL=1 RELIABILITY_REPORT=$(CURDIR)/docs/reliability.md go test -count=1 -timeout=40m -v -run . ./reliability/

# Fuzzing: every `func Fuzz` of every module (found by grep, so a new target is
# run without being listed here), FUZZTIME each, one after another, with one
# worker (-parallel=1: 2 cores, shared with other work). Each target's whole
# output goes to $(FUZZ_LOGS)/<target>.log; its last `fuzz: elapsed` line
# (execs, new interesting, total corpus; its N/sec is the last 3 s only) is
# repeated in a summary at the end, with the average execs/s over the whole
# run and the size of the cached corpus under $(go env GOCACHE)/fuzz.
# A crasher is written to the package's testdata/fuzz/<target>/ by go test; the
# other targets still run and make fails at the end. FUZZ_FLAGS adds go test
# flags, e.g. -fuzzminimizetime=10s: each new interesting input is minimized for
# up to 60 s by default, and its calls are counted only when it ends (progress
# lines show 0/sec meanwhile; a minimization cut off by FUZZTIME is not counted).
FUZZTIME ?= 10m
FUZZ_FLAGS ?=
FUZZ_LOGS ?= bin/fuzz

.PHONY: fuzz
fuzz: ## Run every fuzz target (both modules) for FUZZTIME each (default 10m), one worker; prints each one's execs and corpus.
	@mkdir -p $(FUZZ_LOGS); cache=$$(go env GOCACHE)/fuzz; summary=; failed=0; \
	for file in $$(grep -rlE --include='*_test.go' --exclude-dir=.git --exclude-dir=bin --exclude-dir=dist --exclude-dir=testdata '^func Fuzz[A-Za-z0-9_]*\(' . | sort); do \
		dir=$$(dirname $$file); mod=$$dir; \
		while [ ! -f $$mod/go.mod ]; do mod=$$(dirname $$mod); done; \
		pkg=.$${dir#$$mod}; \
		for name in $$(grep -oE '^func Fuzz[A-Za-z0-9_]*\(' $$file | sed 's/^func //;s/($$//'); do \
			log=$(CURDIR)/$(FUZZ_LOGS)/$$name.log; \
			echo "== $$name ($$mod $$pkg) for $(FUZZTIME), log $$log"; \
			if (cd $$mod && go test -run=NONE -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -parallel=1 $(FUZZ_FLAGS) $$pkg) 2>&1 | tee $$log; then result=ok; else result=FAIL; failed=1; fi; \
			imp=$$(cd $$mod && go list $$pkg); \
			last=$$(grep '^fuzz: elapsed.*execs' $$log | tail -1); last=$${last:-$$(grep '^fuzz: ' $$log | tail -1)}; \
			crasher=$$(grep -o 'Failing input written to .*' $$log | sed "s|written to |&$$dir/|"); \
			execs=$$(sed -nE 's/.* execs: ([0-9]+) .*/\1/p' <<<"$$last"); \
			secs=$$(( $$(sed -nE 's/^fuzz: elapsed: ([0-9hms.]+),.*/\1/p' <<<"$$last" | sed -E 's/h/*3600+/;s/m/*60+/;s/s$$//;s/\.[0-9]+//;s/\+$$//') +0 )); \
			summary="$$summary$$result $$name $$imp: $${last#fuzz: }; $$(( secs > 0 ? $${execs:-0} / secs : 0 )) execs/s on average; cache $$(ls $$cache/$$imp/$$name 2>/dev/null | wc -l) entries in $$cache/$$imp/$$name$${crasher:+; $$crasher}"$$'\n'; \
		done; \
	done; \
	echo "== fuzz summary (FUZZTIME=$(FUZZTIME) per target)"; printf '%s' "$$summary"; exit $$failed

BENCH_PRESET ?= latency,burst,steady,full,scale

.PHONY: bench
bench: testbin ## Run the benchmark presets (BENCH_PRESET=latency ARGS="--n=20"); writes docs/benchmark/.
	cd test && go run ./cmd/srbench --preset=$(BENCH_PRESET) --out=$(CURDIR)/docs/benchmark $(ARGS)

.PHONY: bench-smoke
bench-smoke: testbin ## The benchmark harness end to end at N=5 (under 2 minutes; no timing asserted).
	cd test && go test -count=1 -run 'TestHarnessSmoke|TestReadAudit' ./bench/

.PHONY: demo
# Built, then run: `go run` exits 1 whenever it sees Ctrl-C, which is how the demo is meant to stop.
demo: ## Simulated cluster + operator + sample StarRocks clusters, live (ARGS="--clusters 3 --once"; Ctrl-C stops).
	cd test && go build -o ../bin/srdemo ./cmd/srdemo
	bin/srdemo $(ARGS)
