import { createHash } from 'node:crypto';
import { ErrorReply } from 'redis';
import type { RedisClient } from './connection.js';

/** A Lua script sent once per server by its SHA-1, and in full only when Redis does not know it yet. */
export class LuaScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  run(client: RedisClient, keys: string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    const options = { keys, arguments: stringsOf(args) };
    return client.evalSha(this.sha1, options).catch((error: unknown) => {
      // After a restart or SCRIPT FLUSH the cache is empty; EVAL loads it again.
      if (error instanceof ErrorReply && error.message.startsWith('NOSCRIPT')) return client.eval(this.source, options);
      throw error;
    });
  }
}

/** The arguments as Redis takes them; most callers pass strings already, and that array is used as it is. */
function stringsOf(args: ReadonlyArray<string | number>): string[] {
  for (let i = 0; i < args.length; i++) {
    if (typeof args[i] !== 'string') return args.map(String);
  }
  return args as string[];
}
