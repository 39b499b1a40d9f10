#!/usr/bin/env bash
# Crash recovery of the standalone system under a steady load: starts it on a fresh data directory, starts orders at
# RATE a second (4 by default) for the whole run, kill -9s the whole JVM (broker and services) after WARM seconds (30),
# starts it again 2 s later on the same data and keeps the load going for AFTER seconds (60) after /health answers.
# Prints how long after /health answered a new order was accepted and completed, and how long until orders completed
# again at the rate they did before the kill (in a 5 s window, at least 90 % of the rate of the 20 s before the kill).
# Orders sent while the system is down are refused and not sent again; every order accepted is checked to complete.
# Usage: standalone/crash-recovery.sh [exec-jar] [work-dir]   (build first: ./mvnw -B -DskipTests package)
# Needs curl, jq and bc.
set -u
JAR=${1:-standalone/target/standalone-0.1.0-SNAPSHOT-exec.jar}
WORK=${2:-/tmp/orderflow-crash-recovery}
JAVA=${JAVA:-java}
PORT=${PORT:-18080}
RATE=${RATE:-4}
WARM=${WARM:-30}
AFTER=${AFTER:-60}
BASE=http://localhost:$PORT
DATA=$WORK/data
rm -rf "$WORK" && mkdir -p "$DATA"
start() {
  PORT=$PORT KAFKA_PORT=${KAFKA_PORT:-19092} INTAKE_SMTP_PORT=-1 DATA_DIR=$DATA AI_MODE=mock \
    "$JAVA" -jar "$JAR" >> "$WORK/standalone.log" 2>&1 &
  PID=$!
}
healthy() { curl -sf -m 1 "$BASE/health" > /dev/null; }
body='{"flowId":"storefront_order","input":{"type":"storefront_order","customerId":"cus_42","currency":"USD",
"lines":[{"sku":"TSHIRT-RED-M","name":"T-shirt","qty":2,"unitPrice":19.5}],"meta":{"shipTo":"1 Main Street"}}}'
post() { curl -s -m 12 -H 'content-type: application/json' -H "Idempotency-Key: $1" -d "$body" "$BASE/api/v1/orders"; }
order_id() { grep -o 'ord_[A-Za-z0-9_-]*' | head -1; }
now() { date +%s.%N; }
now_ms() { date +%s%3N; }

# The load: one order every 1/RATE s, each POST in the background; an accepted order's id goes to accepted.txt.
load() {
  local i=0
  while [ ! -e "$WORK/stop-load" ]; do
    i=$((i + 1))
    ( id=$(post "load-$i" | order_id); [ -n "$id" ] && echo "$id" >> "$WORK/accepted.txt" ) &
    sleep "$(echo "scale=3; 1 / $RATE" | bc)"
  done
  wait
}

start
until healthy; do sleep 0.2; done
echo "first start healthy at $(date -u +%T)"
load &
LOAD=$!
sleep "$WARM"
killed=$(now_ms)
kill -9 "$PID"
echo "killed at $(date -u +%T)"
sleep 2
start
until healthy; do sleep 0.05; done
t0=$(now)
healthy_ms=$(now_ms)
echo "healthy again at $(date -u +%T)"
id=""
while [ -z "$id" ]; do
  id=$(post "after-crash" | order_id)
  [ -z "$id" ] && sleep 0.2
done
t1=$(now)
until curl -s -m 5 "$BASE/api/v1/orders/$id" | grep -q '"status":"completed"'; do sleep 0.1; done
t2=$(now)
echo "new order accepted $(echo "$t1 - $t0" | bc) s and completed $(echo "$t2 - $t0" | bc) s after /health answered"
sleep "$AFTER"
touch "$WORK/stop-load"
wait "$LOAD"

# When each accepted order completed: the end of its last node. Every order is read; one not yet completed is read
# again until 60 s after the load stopped.
deadline=$(( $(date +%s) + 60 ))
: > "$WORK/completed.txt"
sort -u "$WORK/accepted.txt" > "$WORK/orders.txt"
completed_at() {
  curl -s -m 5 "$BASE/api/v1/orders/$1" \
    | jq -r 'select(.status == "completed") | [.nodes[].endedAt | numbers] | max // empty' 2> /dev/null
}
while read -r order; do
  at=$(completed_at "$order")
  while [ -z "$at" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    sleep 0.5
    at=$(completed_at "$order")
  done
  if [ -n "$at" ]; then echo "$at" >> "$WORK/completed.txt"; else echo "not completed: $order"; fi
done < "$WORK/orders.txt"
sort -n "$WORK/completed.txt" -o "$WORK/completed.txt"
echo "$(wc -l < "$WORK/orders.txt") orders accepted, $(wc -l < "$WORK/completed.txt") completed"
awk -v killed="$killed" -v healthy="$healthy_ms" '
  { at[NR] = $1 }
  END {
    before = 0
    for (i = 1; i <= NR; i++) if (at[i] >= killed - 20000 && at[i] < killed) before++
    rate = before / 20
    printf "before the kill: %.2f orders completed a second\n", rate
    for (t = healthy; t < healthy + 120000; t += 250) {
      n = 0
      for (i = 1; i <= NR; i++) if (at[i] >= t && at[i] < t + 5000) n++
      if (n >= 0.9 * rate * 5) {
        printf "back at that rate %.1f s after /health answered (%.1f s after the kill)\n",
          (t - healthy) / 1000, (t - killed) / 1000
        exit
      }
    }
    print "not back at that rate within 120 s of /health answering"
  }' "$WORK/completed.txt"
kill "$PID"
wait "$PID" 2> /dev/null
exit 0
