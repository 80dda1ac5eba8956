#!/usr/bin/env bash
# `npm run production:check`: the Dockerfile's steps outside a container, on a
# fresh copy of this checkout (CI runs it; no container engine is needed):
#
#   build stage    npm ci --ignore-scripts, npm run postinstall (patches/),
#                  npm run build, npm prune --omit=dev
#   runtime stage  package.json, node_modules and dist/ only, as a non-root
#                  user (nobody, when run as root), every patch still applied:
#                  npm run migrate, then
#                  npm start with MIGRATE_ON_START=false, the Dockerfile's
#                  HEALTHCHECK command, GET /readyz, GET /admin/ (the built
#                  console), SIGTERM exits 0.
#
# It also checks that no dev dependency (typescript, tsx) is left. The
# database: a new one on PostgreSQL at 127.0.0.1:5432 when it answers, else the
# embedded one (ALLOW_EMBEDDED_DATABASE=true).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
chmod 755 "${WORK}"
SERVER_PID=""
DB_NAME=""
# The node process under a process (npm start → sh → node).
node_pid() {
  local pid="$1" child
  for child in $(ps -o pid= --ppid "${pid}"); do
    if [ "$(ps -o comm= -p "${child}")" = node ]; then echo "${child}"; return; fi
    node_pid "${child}"
  done
}
cleanup() {
  if [ -n "${SERVER_PID}" ]; then
    for pid in $(node_pid "${SERVER_PID}") "${SERVER_PID}"; do kill "${pid}" 2>/dev/null || true; done
  fi
  if [ -n "${DB_NAME}" ]; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)" >/dev/null || true
  fi
  rm -rf "${WORK}"
}
trap cleanup EXIT

echo "== fresh copy of the checkout (tracked and new files, nothing ignored)"
mkdir "${WORK}/build"
(cd "${ROOT}" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' | tar --null -T - -cf -) | tar -xf - -C "${WORK}/build"

echo "== build stage: npm ci, npm run postinstall (patches/), npm run build, npm prune --omit=dev"
cd "${WORK}/build"
npm ci --ignore-scripts --no-audit --no-fund --prefer-offline
npm run -s postinstall
npm run -s build
npm prune --omit=dev --ignore-scripts --no-audit --no-fund
# (typescript and some @types stay: npm installs @trpc/server's peer dependencies.)
for dev in tsx vitest prettier dependency-cruiser; do
  if [ -e "node_modules/${dev}" ]; then echo "dev dependency ${dev} left after prune" >&2; exit 1; fi
done

echo "== runtime stage: package.json, node_modules, dist/ only"
APP="${WORK}/app"
mkdir -p "${APP}/.data" "${WORK}/home"
cp -a package.json node_modules dist "${APP}/"
# The runtime's packages carry every patch (docs/PATCHES.md): each undoes cleanly.
for patch in "${WORK}/build"/patches/*.patch; do
  (cd "${APP}" && git apply --reverse --check "${patch}") ||
    { echo "$(basename "${patch}") is not applied in the runtime's node_modules" >&2; exit 1; }
done
echo "patches applied: $(cd "${WORK}/build/patches" && ls -- *.patch | tr '\n' ' ')"
RUN_AS=()
if [ "$(id -u)" = 0 ]; then
  chown -R nobody:nogroup "${APP}/.data" "${WORK}/home"
  RUN_AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
cd "${APP}"

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
ENV=(
  env -i PATH="${PATH}" HOME="${WORK}/home" NODE_ENV=production PORT="${PORT}" HOST=127.0.0.1
  DATA_DIR="${APP}/.data" AUTH_ISSUER=urn:production-check AUTH_AUDIENCE=user-profile-service
  AUTH_HS256_SECRET=production-check-secret-of-32-chars-or-more
)
if pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  DB_NAME="production_check_$$"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE ${DB_NAME}"
  ENV+=(DATABASE_URL="postgres://postgres@127.0.0.1:5432/${DB_NAME}")
  echo "database: PostgreSQL ${DB_NAME}"
else
  ENV+=(ALLOW_EMBEDDED_DATABASE=true)
  echo "database: embedded (PostgreSQL at 127.0.0.1:5432 does not answer)"
fi

echo "== npm run migrate (compiled, as $("${RUN_AS[@]}" id -un))"
"${RUN_AS[@]}" "${ENV[@]}" npm run -s migrate

echo "== npm start with MIGRATE_ON_START=false"
"${RUN_AS[@]}" "${ENV[@]}" MIGRATE_ON_START=false npm start > "${WORK}/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
  grep -q '"msg":"listening"' "${WORK}/server.log" && break
  kill -0 "${SERVER_PID}" 2>/dev/null || { cat "${WORK}/server.log" >&2; exit 1; }
  sleep 0.5
done
grep -q '"msg":"listening"' "${WORK}/server.log" || { cat "${WORK}/server.log" >&2; exit 1; }
if grep -q '"msg":"migrations applied"' "${WORK}/server.log"; then
  echo "the server migrated although MIGRATE_ON_START=false" >&2; exit 1
fi

echo "== the Dockerfile's HEALTHCHECK command"
# The JSON array after `CMD` on the HEALTHCHECK line, run as is.
HEALTHCHECK="$(sed -n 's/^  CMD \(\["node", "-e".*\]\)$/\1/p' "${ROOT}/Dockerfile")"
[ -n "${HEALTHCHECK}" ] || { echo "no HEALTHCHECK CMD found in the Dockerfile" >&2; exit 1; }
mapfile -t HC < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "${HEALTHCHECK}")
"${RUN_AS[@]}" env PORT="${PORT}" "${HC[@]}"
echo "healthcheck: ok"
curl -fsS "http://127.0.0.1:${PORT}/readyz"; echo
# The operator's console is built into dist/ and served from it.
curl -fsS "http://127.0.0.1:${PORT}/admin/" | grep -q '<script type="module"' ||
  { echo "GET /admin/ does not serve the built console" >&2; exit 1; }
echo "console: served"

echo "== SIGTERM to the service process: it drains, stops, exits 0 (and so does npm)"
# npm does not wait for its script when it gets SIGTERM itself, so a container
# runs node directly (the Dockerfile's CMD) and this signals the node process.
NODE_PID="$(node_pid "${SERVER_PID}")"
[ -n "${NODE_PID}" ] || { echo "no node process under npm start" >&2; exit 1; }
kill -TERM "${NODE_PID}"
wait "${SERVER_PID}"
SERVER_PID=""
grep -q '"msg":"stopped"' "${WORK}/server.log"
echo "production check passed"
