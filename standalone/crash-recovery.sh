#!/usr/bin/env bash
# Crash recovery of the standalone system, in rounds: starts the system (the exec jar, the run command's JVM options)
# on a fresh data directory and, ROUNDS times (20 by default), kill -9s the whole JVM (broker and services) at a random
# moment of one of these kinds, in turn: idle; 2-8 s into a load of 48 orders in flight; the same at 256 in flight;
# 0.5-3 s after a previous restart answered (stores restoring, load of 48); twice within 10 s. Each time it starts the
# JVM again at once on the same data. Per round it prints the kill point, the time from the restart to readiness
# (/actuator/health/readiness), from readiness to a newly started order completed, the orders accepted, those never
# completed (lost) and the nodes run more than once; then min/median/max. It exits non-zero when a round missed the
# goal (ready within 30 s, the new order completed within 10 s of ready, nothing lost or run twice).
# Usage: standalone/crash-recovery.sh [rounds] [work-dir]   (from the repository root; builds the exec jar first)
# Other JVM options for the system: CRASH_JVM_ARGS="..." (an empty value: a plain java -jar). KEEP=N fills the system
# with N orders before the first round, so every restart restores the state of N orders kept; FROM=DIR starts on a
# copy of a data directory instead (one a KEEP run filled: the data directory of its work directory, stopped
# cleanly). AOT_CACHE=1 starts the
# system as standalone/run.sh does on a JDK 25+: from the unpacked jar and an ahead-of-time cache, recorded by the
# first start (the rounds' own cache, in the work directory). POINTS=twice,restoring takes only those kill points, in
# turn.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-20}
WORK=${2:-/tmp/orderflow-crash-recovery}
args=(-B -q -pl standalone -am -Pcrash -DskipTests verify -Dcrash.rounds="$ROUNDS" -Dcrash.work="$WORK"
  -Dcrash.seed="${SEED:-$(date +%s)}" -Dcrash.keep="${KEEP:-0}" -Dcrash.from="${FROM:-}"
  -Dcrash.points="${POINTS:-}")
if [ -n "${AOT_CACHE:-}" ]; then
  ./mvnw -B -q -pl standalone -am -DskipTests package
  standalone/run.sh --unpack
  args+=(-Dcrash.jar="$PWD/standalone/target/app/standalone.jar" -Dcrash.aotCache="$WORK.aot")
fi
if [ -n "${CRASH_JVM_ARGS+set}" ]; then
  args+=(-Dcrash.jvmArgs="$CRASH_JVM_ARGS")
fi
exec ./mvnw "${args[@]}"
