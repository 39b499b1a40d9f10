#!/bin/bash
# Writes server.properties from the KAFKA_* variables (as the apache/kafka image does), formats the storage on the
# first start, then runs the broker.
set -euo pipefail
props=/opt/kafka/config/server.properties
: > "$props"
skip=" KAFKA_HEAP_OPTS KAFKA_OPTS KAFKA_JVM_PERFORMANCE_OPTS KAFKA_LOG4J_OPTS KAFKA_JMX_OPTS KAFKA_GC_LOG_OPTS KAFKA_TOOL_HEAP_OPTS KAFKA_VERSION "
for var in $(compgen -e | grep '^KAFKA_'); do
  [[ $skip == *" $var "* ]] && continue
  key=$(printf %s "${var#KAFKA_}" | tr '[:upper:]' '[:lower:]' | sed -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g')
  printf '%s=%s\n' "$key" "${!var}" >> "$props"
done
grep -q '^log.dirs=' "$props" || echo 'log.dirs=/tmp/kraft-combined-logs' >> "$props"
/opt/kafka/bin/kafka-storage.sh format --ignore-formatted --cluster-id "${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}" --config "$props"
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xmx512m -Xms256m} exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$props"
