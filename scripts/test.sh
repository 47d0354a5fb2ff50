#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, diagnostics, end-to-end, fuzz).
# Arguments go to ctest (scripts/test.sh -R Semantics). The per-benchmark GPU sweeps run on a
# core set of benchmarks that covers every feature (`Core/` tests; tests/unit/gpu_test_util.h
# says which and why); every benchmark still runs through the C++ backend and `global` on PoCL.
#
# scripts/test.sh --full [CTEST ARGS]: the sweeps on the other benchmarks too (`Full/` tests: all
# 21 benchmarks instead of 7 in each sweep), and the ptxas figures of docs/gpu.md's kernel tables
# (Full/DocsPtxasFigures, some 40 nvcc runs per benchmark).
#
# scripts/test.sh --sanitize [CTEST ARGS]: builds build-asan/ with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DTESSEL_SANITIZE=ON) and runs a subset under them (below); any
# report fails its test. Further arguments go to ctest after the subset's (a -R replaces it).
set -euo pipefail
cd "$(dirname "$0")/.."

# This kind of machine has the CUDA toolkit (nvcc compiles here; nothing runs CUDA): where nvcc
# is found, and always in CI, the tests that need it (ptxas's registers and spills, the
# comparison with cuda_occupancy.h, CUDA that must compile) fail instead of skipping without it.
if [ "${CI:-}" = true ] || command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] ||
  [ -n "${NVCC:-}" ]; then
  export TESSEL_TESTS_REQUIRE_NVCC=1
fi

if [ "${1:-}" = "--sanitize" ]; then
  shift
  bash scripts/deps.sh
  # Debug (-O0), not RelWithDebInfo: the build is most of this job's time and -O0 compiles much
  # faster on a 2-core machine; the optimiser can also fold away the accesses and arithmetic
  # that the sanitizers check, and -O0 reports name exact lines.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTESSEL_SANITIZE=ON >/dev/null
  # Only the programs the subset runs (tessel for the end-to-end tests).
  ninja -C build-asan -j "$(nproc)" tessel test_diagnostics test_fuzz_frontend test_semantics \
    test_runtime test_cpp_backend test_run_verify test_cli test_benchmarks test_greedy_fusion \
    test_cli_fusion_plan test_regroup test_tuning_db
  suppressions="$PWD/tests/lsan.supp"
  cd build-asan
  # The subset: the frontend (Parsed, every benchmark through `tessel check` and `info`), the
  # diagnostics files, the fuzzers (in process and through the command line: Cli), the semantics
  # and the interpreter, and the C++/OpenMP backend (unit tests, RunVerify, every benchmark run
  # and verified), the greedy fusion plan (in process and through `tessel info`), and fusion
  # groups with MODESTO's and the greedy plan's groupings (in process), the register estimate's
  # liveness walk, the tuning database (SQLite's C API). Not the
  # OpenCL suites (PoCL's LLVM is very slow under ASan; one Cli test runs a tiny program on it)
  # nor the CUDA ones. The generated C++ is compiled unsanitized and
  # dlopen'ed into the sanitized process. Interpreter.SevenPointSpeed asserts a time an -O0
  # sanitized build cannot meet; MODESTO's grouping test takes minutes there (below).
  subset='^(Parsed|Diagnostics|FuzzFrontend|Semantics|Interpreter|CppLowering|CppModule|Emitter'
  subset+='|LoopIr|RunVerify|Cli|Benchmarks|GreedyFusion|CliFusionPlan|Regroup|RegisterEstimate'
  subset+='|TuningDb)\.'
  subset+='|^All/Benchmark\.'
  # Any report, a leak included, ends the process with SIGABRT (a sanitized `tessel` must not
  # exit 1 or 2 like a user error). Leaks in system libraries are suppressed by tests/lsan.supp.
  # Options already in the environment come last and win.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export LSAN_OPTIONS="suppressions=$suppressions${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  # Quicker builds of the generated programs, as below.
  export TESSEL_HOST_OPT="${TESSEL_HOST_OPT--O0}"
  export POCL_EXTRA_BUILD_FLAGS="${POCL_EXTRA_BUILD_FLAGS--cl-opt-disable}"
  export POCL_WORK_GROUP_METHOD="${POCL_WORK_GROUP_METHOD:-loops}"
  # MODESTO's counting engine (Regroup.Modesto...) enumerates and sorts points: minutes at -O0
  # under ASan; it runs unsanitized in the main job.
  ctest --output-on-failure -j "$(nproc)" -R "$subset" \
    -E '^(Interpreter\.SevenPointSpeed|Regroup\.ModestoGroups.*)$' "$@"
  exit
fi

exclude=(-E '^Full/')
if [ "${1:-}" = "--full" ]; then
  shift
  exclude=()
fi

bash scripts/build.sh
cd build
# deps.sh installed PoCL: a missing OpenCL device is a failure here, not a skipped test.
export TESSEL_TESTS_REQUIRE_OPENCL=1
# PoCL compiles every kernel the tests run (hundreds, most of this job's time on a fresh machine,
# where its kernel cache is empty): without LLVM's optimisations (-cl-opt-disable) and with its
# plain work-group loops instead of the vectorising ones it compiles 2 to 2.5 times faster. The
# kernels the tests run are small (awkward sizes), and what they check, the results against the
# reference interpreter, does not depend on how PoCL optimises. Set in the environment already,
# these win (POCL_EXTRA_BUILD_FLAGS= gives the optimised build).
export POCL_EXTRA_BUILD_FLAGS="${POCL_EXTRA_BUILD_FLAGS--cl-opt-disable}"
export POCL_WORK_GROUP_METHOD="${POCL_WORK_GROUP_METHOD:-loops}"
# Likewise the generated host code and C++ programs the tests build (hundreds, each a g++ run):
# -O0 builds them about 1.7 times faster (TESSEL_HOST_OPT, docs/user-guide.md).
export TESSEL_HOST_OPT="${TESSEL_HOST_OPT--O0}"
ctest --output-on-failure -j "$(nproc)" "${exclude[@]}" "$@"
