// A process run by runProcess whose deep code calls fatal() once started: the unit test of the
// process lifecycle runs it with the pinned Node and reads its exit code and log.
import { z } from 'zod';
import { fatal } from '../../common/fatal.ts';
import { runProcess } from '../../common/run.ts';

const schema = z.object({ LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info') });

await runProcess('fatal-fixture', schema, async (_env, logger) => {
  setTimeout(() => fatal('the consumer of group g stopped: gave up'), 50);
  return { stop: async () => logger.info('cleaned up') };
});
