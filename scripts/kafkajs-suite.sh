#!/usr/bin/env bash
# Runs kafkajs's own transaction tests (from a checkout of the kafkajs project at v2.2.4, which
# the npm tarball does not carry) against this server, with kafkajs's own test helpers and jest.
# Not part of `npm test` (it needs the kafkajs sources, which stay out of this repository); the
# same scenarios in our own words are test/e2e/transactions-kafkajs-suite.test.ts.
#
#   git clone https://github.com/tulios/kafkajs /tmp/kafkajs && git -C /tmp/kafkajs checkout v2.2.4
#   scripts/kafkajs-suite.sh /tmp/kafkajs                       # the transaction tests (below)
#   scripts/kafkajs-suite.sh /tmp/kafkajs src/broker/__tests__/endTxn.spec.js   # other spec files
#
# kafkajs's helpers (testHelpers/index.js) expect the cluster of its docker-compose files: three
# brokers, ids 0-2, PLAINTEXT on localhost:9092, 9095 and 9098. The server gives them that:
# `--brokers 3` with `node.id=0` and three PLAINTEXT listeners (9092-9094, 9095-9097, 9098-9100:
# the ports kafkajs's brokers use for PLAINTEXT, SSL and SASL; only the first of each is used here).
# Those ports must be free. The first run installs kafkajs's dev dependencies in the checkout
# (npm, about a minute); `npm run build` here first if dist/ is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECKOUT="${1:?usage: scripts/kafkajs-suite.sh <kafkajs-checkout> [spec files and jest args]}"
shift
CHECKOUT="$(cd "$CHECKOUT" && pwd)"
VERSION="$(node -p "require('$CHECKOUT/package.json').version")"
[ "$VERSION" = "2.2.4" ] || echo "kafkajs-suite.sh: the checkout is kafkajs $VERSION, not 2.2.4" >&2

if [ $# -eq 0 ]; then
  # The transaction tests of consumeMessages.spec.js (describe 'transactions'), the control-batch
  # tests (controlBatches.spec.js) and the instrumentation test on empty control batches.
  set -- src/consumer/__tests__/consumeMessages.spec.js src/consumer/__tests__/controlBatches.spec.js \
    src/consumer/__tests__/instrumentationEvents.spec.js -t 'transactions|empty control batches'
fi

[ -f dist/cli.cjs ] || { echo "kafkajs-suite.sh: dist/cli.cjs is missing: run npm run build" >&2; exit 1; }
if [ ! -x "$CHECKOUT/node_modules/.bin/jest" ]; then
  echo "kafkajs-suite.sh: installing kafkajs's dev dependencies in $CHECKOUT"
  (cd "$CHECKOUT" && npm install --no-save --ignore-scripts --no-audit --no-fund --no-package-lock >/dev/null)
fi

for port in 9092 9095 9098; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "kafkajs-suite.sh: port $port is in use (kafkajs's helpers need 9092, 9095, 9098)" >&2
    exit 1
  fi
done

LOG="$(mktemp -t kmc-kafkajs-suite.XXXXXX.log)"
node dist/cli.cjs --in-memory --no-admin --brokers 3 --log-level info \
  --config node.id=0 \
  --config listeners=PLAINTEXT://:9092,P2://:9095,P3://:9098 \
  --config listener.security.protocol.map=PLAINTEXT:PLAINTEXT,P2:PLAINTEXT,P3:PLAINTEXT \
  >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q 'kafka-mock-coordinator ready' "$LOG" && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$LOG" >&2; exit 1; }
  sleep 0.1
done
echo "kafkajs-suite.sh: server (log: $LOG) on 9092, 9095, 9098; kafkajs $VERSION tests in $CHECKOUT"

# KAFKA_VERSION is what kafkajs's testIfKafkaAtLeast_0_11 and friends compare with.
cd "$CHECKOUT"
KAFKA_VERSION=4.3 NODE_ENV=test KAFKAJS_DEBUG_PROTOCOL_BUFFERS=1 \
  node_modules/.bin/jest --ci --runInBand --no-watchman --forceExit --verbose "$@"
