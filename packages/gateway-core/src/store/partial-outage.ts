/**
 * What `GatewayStore.ping` throws when part of the store answers and part
 * does not (some masters of a Redis Cluster): the data on the parts that
 * answer is served, the rest is refused (fails closed) until it is back.
 */
export class PartialStoreOutage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PartialStoreOutage';
  }
}
