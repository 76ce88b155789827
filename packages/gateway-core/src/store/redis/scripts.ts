import { createHash } from 'node:crypto';
import { ErrorReply } from 'redis';
import type { RedisClient } from './connection.js';

/** A Lua script sent once per server by its SHA-1, and in full only when Redis does not know it yet. */
export class LuaScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: Array<string | number>): Promise<unknown> {
    const options = { keys, arguments: args.map(String) };
    try {
      return await client.evalSha(this.sha1, options);
    } catch (error) {
      // After a restart or SCRIPT FLUSH the cache is empty; EVAL loads it again.
      if (error instanceof ErrorReply && error.message.startsWith('NOSCRIPT')) {
        return client.eval(this.source, options);
      }
      throw error;
    }
  }
}
