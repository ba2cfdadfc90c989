#!/usr/bin/env bash
# Runs the official auth-js single-instance suite (the one the Supabase CLI serves), unchanged
# except its URL, against `npm run backend`.
#
#   bench/official/auth-js.sh /path/to/supabase-js-checkout [api-port]
#
# The checkout needs jest, ts-jest, jsonwebtoken, @faker-js/faker, jest-mock-server,
# jest-environment-jsdom and prettier resolvable from packages/core/auth-js (e.g. `npm install`
# of them at the checkout's root). As the suite's own setup does, a fresh RSA key is written to
# test/supabase/signing_keys.json (generate-signing-keys.js) unless one is there; the backend
# signs and verifies with it (--signing-keys), as the CLI does with `signing_keys_path`.
# docker-tests/ need four extra GoTrue instances and are not part of this suite.
# Prints jest's PASS/FAIL lines and its summary line.
set -euo pipefail
checkout=$(cd "$1" && pwd)
port=${2:-48321}
repo=$(cd "$(dirname "$0")/../.." && pwd)
suite="$checkout/packages/core/auth-js"
work=$(mktemp -d)
mkdir -p "$work/supabase"
[[ -s "$suite/test/supabase/signing_keys.json" ]] || (cd "$suite/test" && node generate-signing-keys.js > /dev/null)
# The suite's URL only: it hard-codes the CLI's port.
{ grep -rl "127.0.0.1:54321" "$suite/test" || true; } | xargs -r sed -i "s#127.0.0.1:54321#127.0.0.1:$port#g"
cd "$repo"
setsid node_modules/.bin/tsx server/main.ts --port "$port" --db-port $((port + 1)) \
  --data-dir "$work/data" --supabase-dir "$work/supabase" --signing-keys "$suite/test/supabase/signing_keys.json" \
  --quiet > "$work/backend.log" 2>&1 &
backend=$!
trap 'kill -TERM -- -$backend 2>/dev/null; wait $backend 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/auth/v1/health" > /dev/null && break; sleep 1; done
cd "$suite"
npx jest --config jest.config.cli.js --runInBand --ci --coverage=false 2>&1 | tee "${AUTH_JS_LOG:-$work/jest.log}" |
  grep -E "^(PASS|FAIL|Tests:)" || true
