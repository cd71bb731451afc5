#!/usr/bin/env bash
# Downloads Kafka's jars (org.apache.kafka:kafka_2.13 and org.apache.kafka:kafka-tools) with their
# runtime dependencies from Maven Central into .kafka/<version>/libs, for
# test/e2e/kafka-dump-log.test.ts, which runs Kafka's own log dumper on our segments
# (org.apache.kafka.tools.DumpLogSegments in 4.x, the class kafka-dump-log.sh runs).
# Cached: does nothing when the jars are already there. Needs Java and Maven (mvn).
#   scripts/fetch-kafka.sh            # Kafka 4.3.1
#   KAFKA_VERSION=4.3.0 scripts/fetch-kafka.sh
set -euo pipefail
cd "$(dirname "$0")/.."

KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
DEST=".kafka/${KAFKA_VERSION}"
LIBS="${DEST}/libs"
STAMP="${DEST}/.complete"

if [ -f "$STAMP" ] && [ -f "$LIBS/kafka-tools-${KAFKA_VERSION}.jar" ] && [ -f "$LIBS/kafka_2.13-${KAFKA_VERSION}.jar" ]; then
  echo "Kafka ${KAFKA_VERSION} jars already in ${LIBS}"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "fetch-kafka.sh: mvn (Maven) is required" >&2; exit 1; }

mkdir -p "$DEST"
rm -rf "$LIBS"
cat > "${DEST}/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-mock-coordinator</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
    <!-- Since 4.x the log dumper lives here: org.apache.kafka.tools.DumpLogSegments. -->
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
  </dependencies>
</project>
POM

echo "== mvn dependency:copy-dependencies org.apache.kafka:kafka_2.13:${KAFKA_VERSION} -> ${LIBS}"
mvn -q -B -Dstyle.color=never -f "${DEST}/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$PWD/${LIBS}"

[ -f "$LIBS/kafka-tools-${KAFKA_VERSION}.jar" ] || { echo "fetch-kafka.sh: kafka-tools jar missing after download" >&2; exit 1; }
touch "$STAMP"
echo "Kafka ${KAFKA_VERSION}: $(ls "$LIBS" | wc -l) jars in ${LIBS}"
