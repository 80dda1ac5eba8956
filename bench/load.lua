-- wrk script for the benchmark. Env:
--   BENCH_TOKENS  file with one "token<TAB>handle" per line
--   BENCH_METHOD, BENCH_PATH  the request line
--   BENCH_KIND    "fresh": each token once, in order (first-time onboarding),
--                 "onboard": a random user, onboarding body,
--                 otherwise a random user with a profile-change body
-- Prints one line "BENCH_JSON {...}" with the summary.
local tokens, handles = {}, {}
local threads = {}
local nextId = 0

function setup(thread)
  thread:set("tid", nextId)
  nextId = nextId + 1
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(os.getenv("BENCH_TOKENS")) do
    local token, handle = line:match("^([^\t]+)\t?(.*)$")
    tokens[#tokens + 1] = token
    handles[#handles + 1] = handle
  end
  nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
  method = os.getenv("BENCH_METHOD")
  path = os.getenv("BENCH_PATH")
  kind = os.getenv("BENCH_KIND")
  cursor = tid
  created = 0
  math.randomseed(os.time() * 1000 + tid)
end

function request()
  local i, body
  if kind == "fresh" then
    i = cursor % #tokens + 1
    cursor = cursor + nthreads
    body = '{"name":"Fan ' .. i .. '","handle":"' .. handles[i] ..
      '","favoriteTeam":"Arsenal","location":"London"}'
  else
    i = math.random(#tokens)
    body = '{"name":"Fan ' .. math.random(1000000) .. '","location":"City ' .. math.random(1000) .. '"}'
  end
  return wrk.format(method, path, {
    ["Authorization"] = "Bearer " .. tokens[i],
    ["Content-Type"] = "application/json",
  }, body)
end

function response(status, headers, body)
  if status == 201 then created = created + 1 end
end

function done(summary, latency, requests)
  local totalCreated = 0
  for _, thread in ipairs(threads) do totalCreated = totalCreated + (thread:get("created") or 0) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"created":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), totalCreated))
end
