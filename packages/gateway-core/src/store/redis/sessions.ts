import type { SessionRecord, SessionStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

/** A session is one JSON value whose expiry Redis moves on every touch (GETEX … PX). */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async create(session: SessionRecord, idleTtlMs: number): Promise<void> {
    await command(this.client, () => this.client.set(this.keys.session(session.sessionId), JSON.stringify(session), { expiration: { type: 'PX', value: idleTtlMs } }));
  }

  async touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null> {
    const value = await command(this.client, () => this.client.getEx(this.keys.session(sessionId), { type: 'PX', value: idleTtlMs }));
    return value === null ? null : (JSON.parse(value) as SessionRecord);
  }

  async delete(sessionId: string): Promise<boolean> {
    return (await command(this.client, () => this.client.del(this.keys.session(sessionId)))) === 1;
  }
}
