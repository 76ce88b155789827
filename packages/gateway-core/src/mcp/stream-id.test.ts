import { describe, expect, it } from 'vitest';
import { eventId, newStreamId, parseEventId } from './stream-id.js';

describe('stream event ids', () => {
  it('round-trips the stream and the request id, string or number', () => {
    for (const requestId of [7, 'req-1', 0]) {
      const streamId = newStreamId(requestId);
      expect(parseEventId(eventId(streamId, 0))).toEqual({ streamId, requestId, seen: 0 });
      expect(parseEventId(eventId(streamId, 1))).toMatchObject({ seen: 1 });
    }
    expect(newStreamId(1)).not.toBe(newStreamId(1));
  });

  it('refuses anything it did not hand out', () => {
    const good = newStreamId(3);
    for (const value of ['', 'x', `${good}:2`, `${good}`, `short.${good.split('.')[1]}:0`, `${good.split('.')[0]}.${Buffer.from('{"a":1}').toString('base64url')}:0`, `${good.split('.')[0]}.!!:0`]) {
      expect(parseEventId(value), value).toBeNull();
    }
  });
});
