//! The queue's Lua scripts. Redis runs a script atomically, which is what keeps the set of active
//! streams exact: an append and its stream's registration happen together, and a stream leaves
//! the set only if nothing is queued or pending in it at that instant.

/// Appends one job to a project's stream, creating the stream and its consumer group on first use,
/// and registers the stream as active. A stream that just became active is one an idle worker's
/// blocked read is not watching, so the script also posts to the wake stream, which every read
/// watches (see `IngestionQueue::read`). KEYS: stream, active set, wake stream. ARGV: group, job
/// field, job.
pub const APPEND: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
end
local id = redis.call('XADD', KEYS[1], '*', ARGV[2], ARGV[3])
if redis.call('SADD', KEYS[2], KEYS[1]) == 1 then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('XGROUP', 'CREATE', KEYS[3], ARGV[1], '0', 'MKSTREAM')
  end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', '64', '*', 'stream', KEYS[1])
end
return id
";

/// Acknowledges and deletes entries of one stream and forgets their delivery counts, then retires
/// the stream from the active set when nothing is left in it (queued or pending).
/// KEYS: stream, active set, attempts hash. ARGV: group, ids….
pub const COMPLETE: &str = r"
local ids = {}
local fields = {}
for i = 2, #ARGV do
  ids[#ids + 1] = ARGV[i]
  fields[#fields + 1] = KEYS[1] .. ' ' .. ARGV[i]
end
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
redis.call('XDEL', KEYS[1], unpack(ids))
redis.call('HDEL', KEYS[3], unpack(fields))
if redis.call('XLEN', KEYS[1]) == 0 then
  local pending = redis.call('XPENDING', KEYS[1], ARGV[1])
  if pending[1] == 0 then
    redis.call('SREM', KEYS[2], KEYS[1])
  end
end
return 1
";

/// The backlog: for the base stream and every active stream, its length and the id of its oldest
/// entry (`''` when empty), as a flat list `key, length, oldest, …`. KEYS: base stream, active set.
pub const BACKLOG: &str = r"
local out = {}
local function add(key)
  if redis.call('EXISTS', key) == 1 then
    local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)
    local oldest = ''
    if #first > 0 then oldest = first[1][1] end
    out[#out + 1] = key
    out[#out + 1] = redis.call('XLEN', key)
    out[#out + 1] = oldest
  end
end
add(KEYS[1])
for _, key in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if key ~= KEYS[1] then add(key) end
end
return out
";
