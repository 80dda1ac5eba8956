-- wrk script for `npm run bench:reads`: GET BENCH_PATH as a random user of
-- BENCH_TOKENS (one token per line), no body. Prints one line "BENCH_JSON {...}".
local tokens = {}
local threads = {}
local nextId = 0

function setup(thread)
  thread:set("tid", nextId)
  nextId = nextId + 1
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(os.getenv("BENCH_TOKENS")) do
    tokens[#tokens + 1] = line
  end
  path = os.getenv("BENCH_PATH")
  failed = 0
  math.randomseed(os.time() * 1000 + tid)
end

function request()
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] })
end

function response(status, headers, body)
  if status ~= 200 then failed = failed + 1 end
end

function done(summary, latency, requests)
  local notOk = 0
  for _, thread in ipairs(threads) do notOk = notOk + (thread:get("failed") or 0) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"errors":%d,"notOk":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    notOk, latency:percentile(50), latency:percentile(99)))
end
