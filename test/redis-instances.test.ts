// Two gateways on one Redis server: tasks move between instances, quota is never overdrawn, revocation reaches both.
import { multiInstanceTests } from './helpers/multi-instance.js';
import { redisSkip, startRedis } from './helpers/redis.js';

const skip = redisSkip('the multi-instance tests');
multiInstanceTests('two instances on one Redis server', skip, async () => {
  const redis = await startRedis();
  return { uri: `${redis.uri}/0`, stop: () => redis.stop() };
}, /^redis redis:/);
