//! The queue's Lua scripts. Redis runs a script atomically, which is what keeps the set of active
//! streams exact: an append and its stream's registration happen together, and a stream leaves
//! the set only if nothing is queued or pending in it at that instant.

/// Appends one job to a project's stream, creating the stream and its consumer group on first use,
/// and registers the stream as active. A stream that just became active is one an idle worker's
/// blocked read is not watching, so the script also posts to the wake stream, which every read
/// watches (see `IngestionQueue::read`). KEYS: stream, active set, wake stream, inline hash.
/// ARGV: group, job field, job, then for a payload carried in the entry: payload field, payload,
/// the most inline bytes all streams may hold. Such an entry is refused (the script returns 0, and
/// appends nothing) when the payloads carried in entries would exceed that bound; the caller
/// stores it in blob storage instead. The inline hash counts those bytes per stream and in all
/// (field `*`).
pub const APPEND: &str = r"
local size = 0
if #ARGV > 3 then
  size = string.len(ARGV[5])
  local held = tonumber(redis.call('HGET', KEYS[4], '*') or '0')
  if held + size > tonumber(ARGV[6]) then
    return 0
  end
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
end
local id
if size > 0 then
  id = redis.call('XADD', KEYS[1], '*', ARGV[2], ARGV[3], ARGV[4], ARGV[5])
  redis.call('HINCRBY', KEYS[4], '*', size)
  redis.call('HINCRBY', KEYS[4], KEYS[1], size)
else
  id = redis.call('XADD', KEYS[1], '*', ARGV[2], ARGV[3])
end
if redis.call('SADD', KEYS[2], KEYS[1]) == 1 then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('XGROUP', 'CREATE', KEYS[3], ARGV[1], '0', 'MKSTREAM')
  end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', '64', '*', 'stream', KEYS[1])
end
return id
";

/// Acknowledges and deletes entries of one stream and forgets their delivery counts, then retires
/// the stream from the active sets when nothing is left in it (queued or pending). The bytes of
/// payloads the entries carried are released from the inline hash; a retired stream's count is
/// dropped whole, so a count can never outlive its stream's entries.
/// KEYS: stream, active set, active set of earlier releases, attempts hash, inline hash.
/// ARGV: group, payload field, ids….
pub const COMPLETE: &str = r"
local ids = {}
local fields = {}
local freed = 0
for i = 3, #ARGV do
  ids[#ids + 1] = ARGV[i]
  fields[#fields + 1] = KEYS[1] .. ' ' .. ARGV[i]
  local entry = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])
  if #entry > 0 then
    local values = entry[1][2]
    for j = 1, #values, 2 do
      if values[j] == ARGV[2] then freed = freed + string.len(values[j + 1]) end
    end
  end
end
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
redis.call('XDEL', KEYS[1], unpack(ids))
redis.call('HDEL', KEYS[4], unpack(fields))
if freed > 0 then
  redis.call('HINCRBY', KEYS[5], KEYS[1], -freed)
  redis.call('HINCRBY', KEYS[5], '*', -freed)
end
if redis.call('XLEN', KEYS[1]) == 0 then
  local pending = redis.call('XPENDING', KEYS[1], ARGV[1])
  if pending[1] == 0 then
    redis.call('SREM', KEYS[2], KEYS[1])
    redis.call('SREM', KEYS[3], KEYS[1])
    local rest = tonumber(redis.call('HGET', KEYS[5], KEYS[1]) or '0')
    if rest ~= 0 then redis.call('HINCRBY', KEYS[5], '*', -rest) end
    redis.call('HDEL', KEYS[5], KEYS[1])
  end
end
return 1
";

/// The backlog: for the base stream and every active stream, its length and the id of its oldest
/// entry (`''` when empty), as a flat list `key, length, oldest, …`. KEYS: base stream, active
/// set, active set of earlier releases.
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
for _, set in ipairs({KEYS[2], KEYS[3]}) do
  for _, key in ipairs(redis.call('SMEMBERS', set)) do
    if key ~= KEYS[1] then add(key) end
  end
end
return out
";
