import { describe, expect, it } from 'vitest';
import { allowlistAllows } from './allowlist.js';

const getOrder = { name: 'orders_get_order', downstream: 'orders' };
const search = { name: 'search', downstream: 'catalog' };

describe('allowlistAllows', () => {
  it('allows a tool by its name as agents see it', () => {
    expect(allowlistAllows(['orders_get_order'], getOrder)).toBe(true);
    expect(allowlistAllows(['get_order'], getOrder)).toBe(false);
  });

  it('allows every tool of a downstream named alone or as <name>.*', () => {
    expect(allowlistAllows(['orders'], getOrder)).toBe(true);
    expect(allowlistAllows(['orders.*'], getOrder)).toBe(true);
    expect(allowlistAllows(['orders.*'], search)).toBe(false);
    expect(allowlistAllows(['order', 'orders*', 'orders_*', '*'], getOrder)).toBe(false);
  });

  it('reads a bare entry both ways: entries only add, so a tool and a downstream of one name are both allowed', () => {
    const toolNamedLikeADownstream = { name: 'catalog', downstream: 'legacy' };
    expect(allowlistAllows(['catalog'], toolNamedLikeADownstream)).toBe(true);
    expect(allowlistAllows(['catalog'], search)).toBe(true);
    expect(allowlistAllows(['catalog.*'], toolNamedLikeADownstream)).toBe(false);
  });

  it('matches a tool of no named downstream by name only', () => {
    expect(allowlistAllows(['getCustomer'], { name: 'getCustomer' })).toBe(true);
    expect(allowlistAllows(['default', 'default.*'], { name: 'getCustomer' })).toBe(false);
  });
});
