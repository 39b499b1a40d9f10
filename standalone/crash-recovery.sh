#!/usr/bin/env bash
# Crash recovery of the standalone system: starts it on a fresh data directory, sends a little load (2 orders a second
# for 20 s), kill -9s the whole JVM (broker and services), starts it again 2 s later on the same data, and prints how
# long after /health answered a new order was accepted and completed.
# Usage: standalone/crash-recovery.sh [exec-jar] [work-dir]   (build first: ./mvnw -B -DskipTests package)
set -u
JAR=${1:-standalone/target/standalone-0.1.0-SNAPSHOT-exec.jar}
WORK=${2:-/tmp/orderflow-crash-recovery}
JAVA=${JAVA:-java}
PORT=${PORT:-18080}
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
now() { date +%s.%N; }

start
until healthy; do sleep 0.2; done
echo "first start healthy at $(date -u +%T)"
for i in $(seq 1 40); do post "load-$i" > /dev/null & sleep 0.5; done
kill -9 "$PID"
echo "killed at $(date -u +%T)"
sleep 2
start
until healthy; do sleep 0.05; done
t0=$(now)
echo "healthy again at $(date -u +%T)"
id=""
while [ -z "$id" ]; do
  id=$(post "after-crash" | grep -o 'ord_[A-Za-z0-9_-]*' | head -1)
  [ -z "$id" ] && sleep 0.2
done
t1=$(now)
until curl -s -m 5 "$BASE/api/v1/orders/$id" | grep -q '"status":"completed"'; do sleep 0.1; done
t2=$(now)
echo "new order accepted $(echo "$t1 - $t0" | bc) s and completed $(echo "$t2 - $t0" | bc) s after /health answered"
kill "$PID"
wait "$PID" 2> /dev/null
