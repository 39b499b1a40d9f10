#!/usr/bin/env bash
# End to end through docker-compose.yml: up (built from the module jars), an order started through the gateway to
# `completed`, its `order.completed` webhook received with a valid signature, every Prometheus target up, then down
# with the volumes. Prints each step's time and the total; exits non-zero at the first failure (the stack is taken down
# either way). ComposeEndToEndTest (module compose-test, part of ./mvnw verify) runs it.
# Needs: the jars (./mvnw -B -DskipTests package), an engine with Compose v2 and the images (docker/offline-images.sh
# where no registry answers), curl and python3 on the host. Where one of those is missing it prints `SKIP: <why>` and
# exits 3 before starting anything.
# Settings: GATEWAY_HOST_PORT (8080) and PROMETHEUS_HOST_PORT (9090) where those are taken, COMPOSE_PROJECT_NAME
# (orderflow), UP_TIMEOUT (600 s for `up --wait`), KEEP=1 leaves the stack up.
set -euo pipefail
cd "$(dirname "$0")/.."
export INTERNAL_TOKEN=${INTERNAL_TOKEN:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-orderflow}
export GATEWAY_HOST_PORT=${GATEWAY_HOST_PORT:-8080} PROMETHEUS_HOST_PORT=${PROMETHEUS_HOST_PORT:-9090}
GATEWAY=http://localhost:$GATEWAY_HOST_PORT
PROMETHEUS=http://localhost:$PROMETHEUS_HOST_PORT
RECEIVER_IMAGE=orderflow/debian:trixie

skip() { echo "SKIP: $*"; exit 3; }
command -v curl > /dev/null && command -v python3 > /dev/null || skip "curl and python3 are needed on the host"
timeout 20 docker info > /dev/null 2>&1 || skip "no Docker engine answers (docker info)"
timeout 20 docker compose version > /dev/null 2>&1 || skip "no Compose v2 (docker compose version)"
# the images the stack is built from or runs: the services' base (their Dockerfiles' BASE), the compose file's
# images outside a profile, and the receiver's
IMAGES="$(sed -n 's/^ARG BASE=//p' gateway/Dockerfile | head -n1) $(sed -n 's/^    image: *//p' docker-compose.yml | grep -v grafana) $RECEIVER_IMAGE"
for image in $IMAGES; do
  docker image inspect "$image" > /dev/null 2>&1 \
    || skip "the engine has no image $image (docker pull it, or docker/offline-images.sh where no registry answers)"
done
for module in gateway order-processor flow-runner webhook-dispatcher; do
  compgen -G "$module/target/$module-*-exec.jar" > /dev/null || skip "no $module jar (./mvnw -B -DskipTests package)"
done

HOOK_DIR=$(mktemp -d)
T0=$(date +%s)
step() { printf '%4d s  %s\n' $(( $(date +%s) - T0 )) "$*"; }
cleanup() {
  docker rm -f "$COMPOSE_PROJECT_NAME-hook-receiver" > /dev/null 2>&1 || true
  [[ ${KEEP:-0} == 1 ]] || timeout 300 docker compose down -v > /dev/null 2>&1 || true
  rm -rf "$HOOK_DIR"
  step "down"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

timeout "${UP_TIMEOUT:-600}" docker compose up --build -d --wait > /dev/null 2>&1 \
  || { step "FAIL: up (or not healthy within ${UP_TIMEOUT:-600} s)"; docker compose ps -a; exit 1; }
step "up, every service healthy"

docker run -d --name "$COMPOSE_PROJECT_NAME-hook-receiver" --network "container:$COMPOSE_PROJECT_NAME-webhook-dispatcher-1" \
  -v "$PWD/docker/webhook-receiver.py:/opt/webhook-receiver.py:ro" -v "$HOOK_DIR:/hook/got" "$RECEIVER_IMAGE" bash -c \
  'apt-get update -qq && apt-get install -y -qq python3-minimal > /dev/null 2>&1 && exec python3 /opt/webhook-receiver.py' > /dev/null
SECRET=$(curl -sf $GATEWAY/api/v1/webhook-subscriptions -H 'content-type: application/json' \
  -d '{"url":"http://localhost:9000/hook","events":["order.completed"]}' | json 'd["secret"]')
for _ in $(seq 120); do
  docker exec "$COMPOSE_PROJECT_NAME-hook-receiver" bash -c 'exec 3<>/dev/tcp/127.0.0.1/9000' 2> /dev/null && break
  sleep 1
done
docker exec "$COMPOSE_PROJECT_NAME-hook-receiver" bash -c 'exec 3<>/dev/tcp/127.0.0.1/9000' 2> /dev/null \
  || { step "FAIL: the webhook receiver does not listen"; exit 1; }
step "webhook receiver listening, subscribed"

ORDER=$(curl -sf $GATEWAY/api/v1/orders -H 'content-type: application/json' -d '{"flowId":"storefront_order",
  "input":{"type":"storefront_order","customerId":"cus_smoke","currency":"USD",
  "lines":[{"sku":"TSHIRT-RED-M","name":"T-shirt","qty":2,"unitPrice":19.5}],"meta":{"shipTo":"1 Main Street"}}}' \
  | json 'd["orderId"]')
STATUS=
for _ in $(seq 60); do
  STATUS=$(curl -sf $GATEWAY/api/v1/orders/$ORDER | json 'd["status"]' 2> /dev/null || true)
  [[ $STATUS == completed ]] && break
  sleep 1
done
[[ $STATUS == completed ]] || { step "FAIL: $ORDER is $STATUS"; exit 1; }
step "order $ORDER completed"

for _ in $(seq 60); do compgen -G "$HOOK_DIR/*.json" > /dev/null && break; sleep 1; done
SECRET=$SECRET python3 - "$HOOK_DIR" "$ORDER" <<'EOF'
import glob, hashlib, hmac, json, os, sys
files = sorted(glob.glob(sys.argv[1] + '/*.json'))
if not files:
    sys.exit('FAIL: no webhook received')
d = json.load(open(files[0])); h = {k.lower(): v for k, v in d['headers'].items()}
sig = dict(p.split('=', 1) for p in h['x-service-signature'].split(','))
mac = hmac.new(os.environ['SECRET'].encode(), (sig['t'] + '.' + d['body']).encode(), hashlib.sha256).hexdigest()
if not hmac.compare_digest(mac, sig['v1']) or json.loads(d['body'])['orderId'] != sys.argv[2]:
    sys.exit('FAIL: webhook signature or order wrong')
EOF
step "webhook order.completed received, signature valid"

for _ in $(seq 60); do
  UP=$(curl -sf "$PROMETHEUS/api/v1/query?query=sum(up)" | json 'd["data"]["result"][0]["value"][1] if d["data"]["result"] else 0' 2> /dev/null || true)
  [[ $UP == 4 ]] && break
  sleep 2
done
[[ $UP == 4 ]] || { step "FAIL: $UP of 4 Prometheus targets up"; exit 1; }
step "Prometheus: 4 of 4 targets up"
trap - EXIT
cleanup
echo "PASSED in $(( $(date +%s) - T0 )) s"
