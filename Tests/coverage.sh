#!/usr/bin/env bash
# Line coverage per module (docs/DEVELOPMENT.md): after `swift test --enable-code-coverage`, llvm-cov's
# report of the test binary over Sources/ (the toolchain's llvm-cov: Debian's reads another profile format), summed per module (Sources/NAME/), then the whole.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(swift build --show-bin-path)
profile=$build/codecov/default.profdata
binary=$(ls -d "$build"/*PackageTests.xctest | head -1)
[ -f "$profile" ] || { echo "no coverage data: run swift test --enable-code-coverage first" >&2; exit 1; }
"$(dirname "$(command -v swift)")/llvm-cov" report "$binary" -instr-profile "$profile" -ignore-filename-regex='(\.build|Tests|bench)/' \
    | awk '
        $1 ~ /\.swift$/ {
            split($1, parts, "/"); module = parts[1]  # paths are relative to Sources/
            # columns: regions missed cover functions missed executed lines missed cover …
            lines[module] += $8; missed[module] += $9; total += $8; totalMissed += $9
        }
        END {
            for (m in lines) printf "%-16s %6.1f %%  (%d lines)\n", m, 100 * (lines[m] - missed[m]) / lines[m], lines[m] | "sort"
            close("sort")
            printf "%-16s %6.1f %%  (%d lines)\n", "all", 100 * (total - totalMissed) / total, total
        }'
