package redistest

import "github.com/redis/go-redis/v9"

// redisScript sets two keys and returns how many exist.
var redisScript = redis.NewScript(`
redis.call('SET', KEYS[1], 1)
redis.call('SET', KEYS[2], 2)
return redis.call('EXISTS', KEYS[1], KEYS[2])`)
