#!/usr/bin/env bash
# Runs the official storage-js suite, unchanged except its URL, against `npm run backend`.
#
#   bench/official/storage-js.sh /path/to/supabase-js-checkout [api-port]
#
# The checkout needs jest and ts-jest resolvable from packages/core/storage-js (e.g. `npm install`
# of them at the checkout's root). The suite's own seed (test users, buckets, objects and the
# storage policies) is the backend's seed.sql, as `supabase db reset` loads it. The live tests are
# the files that reach the CLI's port; the others run against the suite's mock servers and are
# counted by jest too. Prints jest's PASS/FAIL lines and its summary line.
set -euo pipefail
checkout=$(cd "$1" && pwd)
port=${2:-47331}
repo=$(cd "$(dirname "$0")/../.." && pwd)
suite="$checkout/packages/core/storage-js"
work=$(mktemp -d)
mkdir -p "$work/supabase"
cp "$suite/test/supabase/seed.sql" "$work/supabase/"
# The suite's URL only: it hard-codes the CLI's port.
{ grep -rl "127.0.0.1:54321" "$suite/test" --include '*.ts' || true; } |
  xargs -r sed -i "s#http://127.0.0.1:54321#http://127.0.0.1:$port#g"
cd "$repo"
setsid node_modules/.bin/tsx server/main.ts --port "$port" --db-port $((port + 1)) \
  --data-dir "$work/data" --supabase-dir "$work/supabase" --quiet > "$work/backend.log" 2>&1 &
backend=$!
trap 'kill -TERM -- -$backend 2>/dev/null; wait $backend 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/auth/v1/health" > /dev/null && break; sleep 1; done
cd "$suite"
npx jest --runInBand --ci --coverage=false 2>&1 | tee "${STORAGE_JS_LOG:-$work/jest.log}" |
  grep -E "^(PASS|FAIL|Tests:)" || true
