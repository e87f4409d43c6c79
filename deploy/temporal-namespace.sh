#!/bin/sh
# Registers the namespace the workers and the CLI use (TEMPORAL_NAMESPACE, default `default`) once
# the server answers: run by docker-compose's `temporal-namespace` service; the Web UI and the
# workers start after it. A namespace that exists already is left as it is.
set -eu

namespace="${TEMPORAL_NAMESPACE:-default}"

until temporal operator cluster health --address "${TEMPORAL_ADDRESS}" | grep -q SERVING; do
  echo "Waiting for the Temporal server at ${TEMPORAL_ADDRESS}"
  sleep 2
done

if temporal operator namespace describe --address "${TEMPORAL_ADDRESS}" --namespace "${namespace}" > /dev/null 2>&1; then
  echo "Namespace ${namespace} exists."
else
  temporal operator namespace create --address "${TEMPORAL_ADDRESS}" --namespace "${namespace}" --retention 72h
  echo "Namespace ${namespace} registered."
fi
