#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas to the version of this
# admin-tools image: run by docker-compose's `temporal-schema` service before the server starts,
# on every `docker compose up` (each step leaves a database that is already there as it is).
set -eu

# The schema files of the admin-tools image (npm run test:cluster passes those of Temporal's Go module).
versioned="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

prepare() {
  database=$1
  schema=$2
  echo "Temporal database ${database}: creating it if needed, then its ${schema} schema"
  temporal-sql-tool --plugin postgres12 --ep "${POSTGRES_SEEDS}" --port "${DB_PORT}" --user "${POSTGRES_USER}" --db "${database}" create
  temporal-sql-tool --plugin postgres12 --ep "${POSTGRES_SEEDS}" --port "${DB_PORT}" --user "${POSTGRES_USER}" --db "${database}" setup-schema -v 0.0
  temporal-sql-tool --plugin postgres12 --ep "${POSTGRES_SEEDS}" --port "${DB_PORT}" --user "${POSTGRES_USER}" --db "${database}" update-schema -d "${versioned}/${schema}/versioned"
}

prepare temporal temporal
prepare temporal_visibility visibility
echo "Temporal's databases are ready."
