#!/usr/bin/env bash
# Runs the standalone system (the in-process Kafka broker and the four services in one JVM) from the exec jar that
# `./mvnw -B -DskipTests package` made, with the run command's JVM options (`standalone.jvmArgs` in standalone/pom.xml)
# and the settings of docs/settings.md from the environment (PORT, DATA_DIR, ...).
#
# The jar is unpacked into standalone/target/app (a jar per dependency). With --aot-cache, on a JDK 25 or newer, the
# JVM starts from an ahead-of-time cache kept there (standalone.aot: the classes loaded and linked, and method
# profiles, of an earlier run), which cuts the CPU a start takes by a quarter or more but slowed the first minutes
# under load (docs/performance.md, "Start-up" and "Warm-up"), so it is off by default. The first run with the option
# and no cache records one and writes it when the system stops (Ctrl-C), which takes a minute or two; kill -9 writes
# none. A new jar makes the cache stale: it is dropped and the next run records again.
#
# Usage: standalone/run.sh [--aot-cache]
#        standalone/run.sh --unpack    only unpack the jar (for the benchmarks: standalone/crash-recovery.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1
}

# JAVA_HOME when it is 21 or newer, otherwise the newest JDK 21+ under /usr/lib/jvm
jdk=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ]; then
  jdk=$JAVA_HOME
else
  best=0
  for candidate in /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/java" ]; then
      major=$(java_major "$candidate")
      if [ "$major" -ge 21 ] && [ "$major" -gt "$best" ]; then
        best=$major
        jdk=$candidate
      fi
    fi
  done
fi
[ -n "$jdk" ] || { echo "standalone/run.sh needs a JDK 21 or newer (set JAVA_HOME)" >&2; exit 1; }

jar=$(ls standalone/target/standalone-*-exec.jar 2>/dev/null | head -n1)
[ -n "$jar" ] || { echo "No exec jar: run ./mvnw -B -DskipTests package first" >&2; exit 1; }
app=standalone/target/app
if [ ! -f "$app/standalone.jar" ] || [ "$jar" -nt "$app/standalone.jar" ]; then
  rm -rf "$app"
  "$jdk/bin/java" -Djarmode=tools -jar "$jar" extract --destination "$app" >/dev/null
  mv "$app/$(basename "$jar")" "$app/standalone.jar"
fi

[ "${1:-}" != "--unpack" ] || exit 0

read -r -a options <<<"$(sed -n 's:.*<standalone.jvmArgs>\(.*\)</standalone.jvmArgs>.*:\1:p' standalone/pom.xml)"
cache=$app/standalone.aot
if [ "${1:-}" = "--aot-cache" ] && [ "$(java_major "$jdk")" -ge 25 ]; then
  if [ -f "$cache" ] && [ "$cache" -nt "$app/standalone.jar" ]; then
    options+=("-XX:AOTCache=$cache" "-Xlog:aot*=error")
  else
    rm -f "$cache"
    echo "Recording an ahead-of-time cache for the next start: it is written when the system stops" >&2
    options+=("-XX:AOTCacheOutput=$cache" "-Xlog:aot*=error")
  fi
fi
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
exec "$jdk/bin/java" "${options[@]}" -jar "$app/standalone.jar"
