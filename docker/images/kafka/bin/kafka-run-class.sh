#!/bin/bash
# kafka-run-class.sh CLASS ARGS...: runs a class of the Kafka jars (as the distribution's script of that name does).
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} -XX:+UseSerialGC ${KAFKA_OPTS:-} \
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties -cp '/opt/kafka/libs/*' "$@"
