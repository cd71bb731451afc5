#!/usr/bin/env bash
# Re-fetches schemas/*.json from the Apache Kafka jars on Maven Central (the version below), keeping
# only the files already in schemas/ (the messages we serve). Then run: npm run generate
set -euo pipefail
VERSION=${1:-4.3.1}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for artifact in kafka-clients kafka-group-coordinator kafka-share-coordinator kafka-transaction-coordinator; do
  curl -sSfL -o "$tmp/$artifact.jar" "https://repo1.maven.org/maven2/org/apache/kafka/$artifact/$VERSION/$artifact-$VERSION.jar"
  (cd "$tmp" && unzip -oq "$artifact.jar" 'common/message/*.json')
done
for f in schemas/*.json; do
  cp "$tmp/common/message/$(basename "$f")" "$f"
done
echo "schemas/ refreshed from Kafka $VERSION"
