# smrl — common tasks. Everything needs only Go (modules from the proxy),
# but make mujoco and make test-mujoco, which need libmujoco-dev.
GO      ?= go
BIN     ?= bin/smrl
STATICCHECK_VERSION ?= v0.8.2
# NumPy comparisons (bench-numpy, bench-scale): a python3 with NumPy and
# SciPy; Debian's /usr/bin/python3 after apt-get install python3-numpy
# python3-scipy.
PYTHON  ?= /usr/bin/python3
# make install puts smrl into $(PREFIX)/bin: by default the first entry of
# GOPATH, so $(go env GOPATH)/bin, where go install would put it.
PREFIX  ?= $(firstword $(subst :, ,$(shell $(GO) env GOPATH)))

.PHONY: all build install test bench lint fuzz reproduce clean check-claims mujoco test-mujoco

all: build test

build:
	$(GO) build -o $(BIN) ./cmd/smrl

# A binary with Gymnasium's MuJoCo tasks (docs/mujoco.md): links libmujoco
# through cgo, so it needs a C compiler and libmujoco-dev (Debian:
# apt-get install libmujoco-dev). The default build needs neither.
mujoco:
	$(GO) build -tags mujoco -o $(BIN) ./cmd/smrl

# The MuJoCo tasks' tests and their stepping benchmark (needs libmujoco-dev).
test-mujoco:
	$(GO) test -tags mujoco ./internal/env/...
	$(GO) test -tags mujoco -run MuJoCo ./cmd/smrl/
	$(GO) test -tags mujoco -run '^$$' -bench 'Step' -benchtime 20000x ./internal/env/mujoco/

install:
	mkdir -p $(DESTDIR)$(PREFIX)/bin
	$(GO) build -o $(DESTDIR)$(PREFIX)/bin/smrl ./cmd/smrl
	@echo "installed $(DESTDIR)$(PREFIX)/bin/smrl"

test:
	$(GO) test ./...

# Benchmarks: estimators, sampler, planner step and a full trial.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

# One pendulum MPPI decision under sm's RFF model: smrl's benchmark and the
# same decision in NumPy (scripts/numpy-pendulum-decision.py), one after the
# other. Needs python3 with NumPy (Debian: apt-get install python3-numpy).
.PHONY: bench-numpy
bench-numpy:
	$(GO) test -run '^$$' -bench 'BenchmarkDecision/pendulum/mppi/sm$$' -count 3 -cpu 1 ./internal/runner/
	OPENBLAS_NUM_THREADS=1 $(PYTHON) scripts/numpy-pendulum-decision.py

# Issue 34's last target, one real step of sm at d_s 17, d_a 6, D 2000
# (BenchmarkScaleStep, default arithmetic and model.features.fma, refits every
# 200 and every 1000 steps), alternated ROUNDS times with the same benchmark
# compiled against 68a1240, the tree before the issue: per round the steps,
# their ratios and whether "<= 3 ms and >= 4x" holds, then each cadence's
# medians and the rounds that meet it with the steps scaled by 13.4 ms over
# the round's 68a1240 h200 step, the issue's speed (scripts/bench-step.sh;
# needs the git history; about 1.5 minutes a round).
.PHONY: bench-step
bench-step:
	scripts/bench-step.sh "$(ROUNDS)"

# Issue 34's sizes, each Go figure next to its NumPy/OpenBLAS reference
# (one BLAS thread), alternated ROUNDS times: one refit at D = 2000 and
# d_s = 17 (internal/linalg BenchmarkRefit2000 against
# scripts/numpy-refit.py), smrl estimate on 1024 random features of
# n = 2·10⁴ transitions with and without standard errors against
# scripts/numpy-estimate.py (whole processes under /usr/bin/time), and one
# real step of sm at d_s 17, d_a 6, D 2000 (BenchmarkScaleStep, thread CPU
# time). Needs /usr/bin/python3 with NumPy and SciPy (Debian:
# apt-get install python3-numpy python3-scipy); see docs/performance.md.
ROUNDS ?= 3
SCALE_N ?= 20000
.PHONY: bench-scale
bench-scale: build
	@for r in $$(seq $(ROUNDS)); do \
	  echo "== round $$r"; \
	  $(GO) test -run '^$$' -bench 'Refit2000$$' -benchtime 3x -cpu 1 ./internal/linalg/ | grep Benchmark; \
	  OPENBLAS_NUM_THREADS=1 $(PYTHON) scripts/numpy-refit.py 2000 3; \
	  /usr/bin/time -f "smrl estimate --se none: %e s wall, %U+%S s CPU, %M KB" $(BIN) estimate --config scripts/scale-estimate.yaml --n $(SCALE_N) --method sm --se none --format json >/dev/null; \
	  OPENBLAS_NUM_THREADS=1 $(PYTHON) scripts/numpy-estimate.py --n $(SCALE_N); \
	  /usr/bin/time -f "smrl estimate (sandwich SEs): %e s wall, %U+%S s CPU, %M KB" $(BIN) estimate --config scripts/scale-estimate.yaml --n $(SCALE_N) --method sm --format json >/dev/null; \
	  OPENBLAS_NUM_THREADS=1 $(PYTHON) scripts/numpy-estimate.py --n $(SCALE_N) --se; \
	  $(GO) test -run '^$$' -bench 'ScaleStep' -benchtime 2000x -cpu 1 ./internal/runner/ | grep Benchmark; \
	done
	$(GO) test -run '^$$' -bench 'PeakFMA|Panel8x2|Refit2000AVX2$$' -benchtime 300x -cpu 1 ./internal/linalg/ | grep Benchmark
	$(GO) test -run '^$$' -bench 'PhiBatch|RFFPhi2000' -benchtime 2000x -cpu 1 ./internal/expfam/ | grep Benchmark
	$(GO) test -run '^$$' -bench 'TrsmPanel2000' -cpu 1 ./internal/linalg/ | grep Benchmark
	$(GO) test -run '^$$' -bench 'RefitSM2000' -benchtime 10x -cpu 1 ./internal/estimator/ | grep Benchmark

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Execution counts (about a minute each on 2 cores), not durations: see .ci/run.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime 2400000x ./internal/dataset/
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime 15000x ./internal/config/
	$(GO) test -run '^$$' -fuzz '^FuzzParseSet$$' -fuzztime 120000x ./internal/grid/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 240000x ./internal/expr/

# The paper's experiment at full scale, the flipped MDP, the estimation
# sweep and its figure, the planner ablation (smrl sweep), then the
# acceptance checks on fresh full runs; then the joint families'
# measurements (docs/joint-families.md).
reproduce: build
	$(BIN) compare --out results/synthetic --overwrite
	$(BIN) compare --config configs/synthetic-flipped.yaml --out results/synthetic-flipped --overwrite
	$(BIN) compare --agents sm,mle,lds,oracle --out results/synthetic-mle --overwrite
	$(BIN) estimate --method sm,lds,mle --out results/estimate-sweep.csv
	$(BIN) plot --sweep results/estimate-sweep.csv
	$(BIN) sweep --config configs/ablation-tau-rollouts.yaml --out results/ablation-tau-rollouts --overwrite
	SMRL_REPRODUCE=1 $(GO) test -count=1 -run TestFullPaperAcceptance -v ./internal/experiment/
	$(BIN) estimate --config configs/relu-kink.yaml --method sm,sm-kernel,sm-plain,mle --out results/relu-kink-sweep.csv
	$(BIN) compare --config configs/relu-kink.yaml --out results/relu-kink
	SMRL_LONG=1 $(GO) test -count=1 -timeout 60m -run 'TestWeightedSMConsistencyLong|TestReLUWeightCapChoice' -v ./internal/estimator/
	$(BIN) run --config configs/coupled.yaml --out results/coupled --overwrite
	SMRL_REPRODUCE=1 $(GO) test -count=1 -timeout 120m -run TestJointScalingMeasurement -v ./internal/estimate/
	SMRL_REPRODUCE=1 $(GO) test -count=1 -timeout 60m -run TestJointRolloutChainBias -v ./internal/agent/
	SMRL_LONG=1 $(GO) test -count=1 -timeout 30m -run TestSMCoupledSinConsistency -v ./internal/estimate/
	$(BIN) run --config configs/pendulum-bimodal.yaml --out results/pendulum-bimodal --overwrite --save-transitions
	SMRL_KSM_RUN=$(CURDIR)/results/pendulum-bimodal $(GO) test -count=1 -timeout 60m -run TestBimodalPendulumLogLik -v ./internal/experiment/

# The commands whose time README.md and docs/ state, in a fresh clone with
# an empty build cache: each measured time printed beside the claim
# (CLAIMS_LONG=1 adds the full pendulum comparison and go test ./...).
check-claims:
	scripts/check-claims.sh

# Runs nothing: fails when a claim check-claims measures is no longer found
# in its file (a doc edit moved or reworded it), and lists them all.
.PHONY: check-claims-lines
check-claims-lines:
	scripts/check-claims.sh --lines

# report.html of two small runs in headless Chromium (root: installs
# chromium if missing); every image must load.
.PHONY: check-report-html
check-report-html:
	scripts/check-report-html.sh

# examples/slurm-array.sh on a real one-node Slurm cluster (root: installs
# slurm-wlm and munge if missing), merged and compared with a local run.
.PHONY: slurm-e2e
slurm-e2e:
	scripts/slurm-e2e.sh

clean:
	rm -rf bin results/*/ results/*.csv results/*.png
