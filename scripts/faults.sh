#!/usr/bin/env bash
# Runs newsrank's fault-injection suite (integration/, every TestFault...):
# consumer processes killed with SIGKILL, Redis restarted mid-crawl and
# mid-rebuild, Redis unreachable for 10 s under a running daemon, and
# hostile sites (hangs, random bytes, truncation, 50 MB bodies, redirect
# loops, endless pagination, another port of the same host, gzip bombs
# under crawl -once with its peak RSS measured). It starts its own redis-server processes and
# HTTP servers, and builds the newsrank binary; about 1-2 minutes on 2 cores.
#   bash scripts/faults.sh               (make faults)
#   FAULTS_RUN=HostileSite bash scripts/faults.sh   (some cases)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
run=${FAULTS_RUN:-Fault}
exec go test -race -count=1 -run "$run" -timeout 15m -v ./integration/
