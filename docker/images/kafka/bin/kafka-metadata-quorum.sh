#!/bin/bash
KAFKA_HEAP_OPTS=${KAFKA_TOOL_HEAP_OPTS:--Xmx128m -Xshare:auto -XX:TieredStopAtLevel=1} exec /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.tools.MetadataQuorumCommand "$@"
