import type { Customer, Order, OrderLine, OrderStatus, Product } from './model.js';

// Deterministic seed data: tests and demos see the same records on every start.

const PEOPLE: ReadonlyArray<[name: string, city: string]> = [
  ['Ada Lovelace', 'London'],
  ['Grace Hopper', 'New York'],
  ['Alan Turing', 'Manchester'],
  ['Katherine Johnson', 'Hampton'],
  ['Edsger Dijkstra', 'Eindhoven'],
  ['Barbara Liskov', 'Boston'],
  ['Donald Knuth', 'Stanford'],
  ['Margaret Hamilton', 'Cambridge'],
  ['Tim Berners-Lee', 'Geneva'],
  ['Radia Perlman', 'Seattle'],
  ['Ken Thompson', 'Murray Hill'],
  ['Frances Allen', 'Yorktown Heights'],
];

const PRODUCTS: Product[] = [
  { sku: 'KB-100', name: 'Mechanical keyboard', category: 'hardware', priceCents: 12900, stock: 42 },
  { sku: 'MS-210', name: 'Wireless mouse', category: 'hardware', priceCents: 3900, stock: 120 },
  { sku: 'MN-270', name: '27-inch monitor', category: 'hardware', priceCents: 32900, stock: 8 },
  { sku: 'DK-050', name: 'USB-C dock', category: 'hardware', priceCents: 18900, stock: 0 },
  { sku: 'CB-001', name: 'USB-C cable, 2 m', category: 'accessories', priceCents: 1500, stock: 500 },
  { sku: 'PD-010', name: 'Desk pad', category: 'accessories', priceCents: 2500, stock: 75 },
  { sku: 'ST-300', name: 'Laptop stand', category: 'accessories', priceCents: 4900, stock: 33 },
  { sku: 'SW-IDE', name: 'IDE licence, 1 year', category: 'software', priceCents: 19900, stock: 1000 },
  { sku: 'SW-VPN', name: 'VPN subscription, 1 year', category: 'software', priceCents: 5900, stock: 1000 },
];

const STATUSES: readonly OrderStatus[] = ['pending', 'paid', 'shipped', 'shipped', 'cancelled'];
const SEED_EPOCH = Date.UTC(2025, 0, 1);
export const SEEDED_ORDER_COUNT = 300;

export function seedCustomers(): Customer[] {
  return PEOPLE.map(([name, city], index) => {
    const handle = name.toLowerCase().replace(/[^a-z]+/g, '.');
    return {
      id: index + 1,
      name,
      email: `${handle}@example.com`,
      phone: `+1-555-01${String(index).padStart(2, '0')}`,
      city,
      createdAt: new Date(SEED_EPOCH + index * 86_400_000).toISOString(),
    };
  });
}

export function seedProducts(): Product[] {
  return PRODUCTS.map((product) => ({ ...product }));
}

export function seedOrders(customers: readonly Customer[], products: readonly Product[]): Order[] {
  return Array.from({ length: SEEDED_ORDER_COUNT }, (_, index) => {
    const lines = Array.from({ length: 1 + (index % 3) }, (_, line): OrderLine => {
      const product = products[(index * 7 + line * 3) % products.length] as Product;
      return { sku: product.sku, quantity: 1 + ((index + line) % 4), unitPriceCents: product.priceCents };
    });
    return {
      id: 1001 + index,
      customerId: (customers[(index * 5) % customers.length] as Customer).id,
      status: STATUSES[index % STATUSES.length] as OrderStatus,
      lines,
      totalCents: totalOf(lines),
      note: index % 10 === 0 ? 'Please deliver to the back entrance' : null,
      placedAt: new Date(SEED_EPOCH + index * 3_600_000 * 7).toISOString(),
    };
  });
}

export function totalOf(lines: readonly OrderLine[]): number {
  return lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
}
