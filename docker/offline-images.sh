#!/usr/bin/env bash
# Makes `docker compose up` work on a Debian machine where no image registry answers (run as root):
#   - installs the Docker engine (Debian's docker.io) and starts dockerd when no engine answers;
#   - installs Compose v2 (the CLI plugin of Debian trixie's docker-compose package) when `docker compose` is missing;
#   - builds local stand-ins, under the upstream names and tags the compose files use, for the images it can make from
#     Debian packages and Maven Central:
#       orderflow/debian:trixie     debootstrap --variant=minbase trixie, imported
#       eclipse-temurin:21-jre      Debian's openjdk-21-jre-headless          (docker/images/jre)
#       apache/kafka:4.4.0          Kafka's jars from Maven Central, KRaft     (docker/images/kafka)
#       prom/prometheus:v3.7.3      Debian's prometheus package                (docker/images/prometheus)
#     Grafana cannot be made this way: it sits in the compose profile `monitoring`, left out of a plain `up`.
#     The Kafka stand-in also serves the tests' Testcontainers KafkaContainer (TestKafka), and the Debian base the
#     webhook receiver of docker/compose-smoke.sh.
# An image that already exists (pulled or built before) is kept; FORCE=1 rebuilds the stand-ins.
# Settings: DEBIAN_MIRROR (default: the first Debian mirror apt uses here), WORK_DIR (default /var/tmp/orderflow-offline).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
WORK_DIR=${WORK_DIR:-/var/tmp/orderflow-offline}
FORCE=${FORCE:-0}
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' pom.xml | head -n1)
JRE_IMAGE=eclipse-temurin:21-jre
KAFKA_IMAGE=apache/kafka:$KAFKA_VERSION
PROMETHEUS_IMAGE=$(sed -n 's/^ *image: *\(prom\/prometheus:.*\)$/\1/p' docker-compose.yml | head -n1)
BASE_IMAGE=orderflow/debian:trixie

log() { printf '%s offline-images: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

mirror() {
  if [[ -n ${DEBIAN_MIRROR:-} ]]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m=$(grep -rhoE '(URIs:|^deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
      | grep -oE 'https?://[^ ]+' | head -n1 || true)
  echo "${m:-http://deb.debian.org/debian}"
}

ensure_engine() {
  if docker info > /dev/null 2>&1; then return; fi
  if ! command -v dockerd > /dev/null; then
    log "installing the Docker engine (docker.io)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io
  fi
  if ! docker info > /dev/null 2>&1; then
    log "starting dockerd (log: /var/log/dockerd.log)"
    nohup dockerd > /var/log/dockerd.log 2>&1 &
    for _ in $(seq 60); do docker info > /dev/null 2>&1 && return; sleep 1; done
    log "dockerd did not answer within 60 s; see /var/log/dockerd.log"; exit 1
  fi
}

has_image() { [[ $FORCE != 1 ]] && docker image inspect "$1" > /dev/null 2>&1; }

ensure_base() {
  if docker image inspect "$BASE_IMAGE" > /dev/null 2>&1 && [[ $FORCE != 1 ]]; then return; fi
  command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap
  local dir=$WORK_DIR/rootfs
  rm -rf "$dir"; mkdir -p "$WORK_DIR"
  log "debootstrap trixie from $(mirror)"
  debootstrap --variant=minbase trixie "$dir" "$(mirror)" > "$WORK_DIR/debootstrap.log"
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" -c . | docker import -c 'CMD ["bash"]' - "$BASE_IMAGE" > /dev/null
  rm -rf "$dir"
}

ensure_compose() {
  if docker compose version > /dev/null 2>&1; then return; fi
  ensure_base
  log "installing Compose v2 from Debian trixie's docker-compose package"
  mkdir -p "$WORK_DIR/compose"
  docker run --rm -v "$WORK_DIR/compose:/out" "$BASE_IMAGE" bash -c \
    'apt-get update -qq && cd /tmp && apt-get download -qq docker-compose && dpkg-deb -x docker-compose_*.deb x \
     && cp x/usr/libexec/docker/cli-plugins/docker-compose /out/'
  install -D -m 0755 "$WORK_DIR/compose/docker-compose" /usr/libexec/docker/cli-plugins/docker-compose
  # a docker CLI installed apart from Debian's package looks under /usr/local/lib as well
  install -D -m 0755 "$WORK_DIR/compose/docker-compose" /usr/local/lib/docker/cli-plugins/docker-compose
  docker compose version
}

build_jre() {
  has_image "$JRE_IMAGE" && { log "$JRE_IMAGE present"; return; }
  log "building $JRE_IMAGE (Debian's OpenJDK 21)"
  docker build -q -t "$JRE_IMAGE" --build-arg BASE="$BASE_IMAGE" --build-arg JAVA_MAJOR=21 docker/images/jre > /dev/null
}

build_kafka() {
  # a stand-in built before the image started by its command (/etc/kafka/docker/run) had an entrypoint that
  # Testcontainers' KafkaContainer cannot start: it is built again
  if has_image "$KAFKA_IMAGE" \
      && [[ $(docker image inspect -f '{{json .Config.Entrypoint}}' "$KAFKA_IMAGE") != '["/opt/kafka/bin/start.sh"]' ]]; then
    log "$KAFKA_IMAGE present"; return
  fi
  log "building $KAFKA_IMAGE (Kafka $KAFKA_VERSION's jars from Maven Central)"
  local ctx=$WORK_DIR/kafka
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp -r docker/images/kafka/. "$ctx/"
  JAVA_HOME=${JAVA_HOME:-} "$ROOT/mvnw" -B -q -f "$ctx/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$ctx/libs"
  docker build -q -t "$KAFKA_IMAGE" --build-arg BASE="$JRE_IMAGE" "$ctx" > /dev/null
}

build_prometheus() {
  has_image "$PROMETHEUS_IMAGE" && { log "$PROMETHEUS_IMAGE present"; return; }
  log "building $PROMETHEUS_IMAGE (Debian's prometheus)"
  docker build -q -t "$PROMETHEUS_IMAGE" --build-arg BASE="$BASE_IMAGE" docker/images/prometheus > /dev/null
}

ensure_engine
ensure_base
ensure_compose
build_jre
build_kafka
build_prometheus
log "done: $(docker images --format '{{.Repository}}:{{.Tag}}' | grep -E 'temurin|apache/kafka|prometheus|orderflow/debian' | tr '\n' ' ')"
